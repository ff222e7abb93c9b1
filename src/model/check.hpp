// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan check` works on, shared by the layers that fill it and the one
// that prints it: io/check_input reads a file into a parsed_input, the
// checker (src/check/) resolves and checks it into a file_check, and render/check prints
// it. Plain data only; neither io/ nor render/ is included here.

#include <cstdint>
#include <migplan/compute.hpp>
#include <migplan/explain.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/search.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostic.hpp"

namespace migplan::cli::check {

/// How serious a diagnostic is: the one severity of every reader.
using migplan::cli::severity;

/// What an error does to the exit code (diagnostic.hpp).
using migplan::cli::fault;
/// A position in a file, 1-based; 0 when unknown.
using migplan::cli::location;
/// One finding of `check`, printed ninja-style (`file:line:col: error:
/// message`): the one diagnostic (diagnostic.hpp), its `file` left empty
/// (the file_check has the path).
using migplan::cli::diagnostic;

/// A diagnostic at `at` about the entry `entry` of `config` (none: the file's).
inline diagnostic check_diagnostic(severity level, fault kind, location at, std::string message,
                                   std::vector<std::string> notes = {}, std::string config = "",
                                   int entry = -1) {
  diagnostic d;
  d.line = at.line;
  d.column = at.col;
  d.level = level;
  d.message = std::move(message);
  d.kind = kind;
  d.notes = std::move(notes);
  d.config = std::move(config);
  d.entry = entry;
  return d;
}

/// A diagnostic about a whole file (no config, no entry, no notes).
inline diagnostic file_diagnostic(severity level, fault kind, location at, std::string message) {
  return check_diagnostic(level, kind, at, std::move(message));
}

/// The formats `check` reads: migplan geometry files, NVIDIA mig-parted
/// configs, and the MIG templates of HAMi's and Volcano's device configs
/// (`nvidia.knownMigGeometries`).
enum class input_format { unknown, geometry, mig_parted, hami, resource_slices };

/// A PCI ID of a mig-parted `device-filter`.
struct filter_id {
  std::string text;         ///< as written
  std::uint32_t value = 0;  ///< device in the upper 16 bits, vendor in the lower
  bool readable = false;    ///< false when mig-parted cannot read it as an ID
  location at;
};

/// One requested profile: an ITEM of a geometry file or a mig-devices entry.
struct profile_request {
  std::string text;          ///< as written ("2x1g.5gb@0", or the mig-devices key)
  std::string name;          ///< PROFILE
  long long count = 1;       ///< N
  std::optional<int> start;  ///< START of "@START" (geometry files only)
  location at;
  /// A geometry file's ITEM that names compute instances ("3g.20gb[2c,1c]",
  /// "4x1c.3g.20gb"): `name` is its GI profile, and check re-reads `text` for the CIs.
  bool compute = false;
  /// A HAMi template's `memory`, in MiB (what the scheduler counts the instance as).
  std::optional<long long> memory_mib;
  location memory_at;
};

/// One geometry to check: a `gpus:` entry or one entry of a mig-parted config label.
struct geometry_spec {
  std::string label;  ///< mig-parted label, the entry's `name`, or "gpus[N]"
  int entry = 0;      ///< index in the label's list / in `gpus`
  location at;        ///< the entry
  location items_at;  ///< `instances` / `mig-devices` (the entry when absent)
  bool mig_enabled = true;
  bool all_devices = true;         ///< `devices: all` / no `index`
  std::vector<long long> devices;  ///< `devices` / `index` list
  // migplan geometry files
  std::string model;  ///< as written; empty when absent
  /// The Kubernetes ConfigMap whose `config.yaml` holds this entry, for a
  /// config read from a manifest (its metadata.name, "" when it has none).
  std::optional<std::string> configmap;
  location model_at;
  // mig-parted configs
  bool has_filter = false;
  location filter_at;
  std::vector<filter_id> filter;
  std::vector<profile_request> items;
  bool broken = false;    ///< a schema error inside: reported, not checked
  bool conflict = false;  ///< already invalid when read (a gpu index given twice)
  /// A HAMi device config: the index of the knownMigGeometries entry in
  /// parsed_input::table whose models this geometry is for.
  int table_entry = -1;
};

/// One entry of a HAMi (or Volcano) device config's `knownMigGeometries`:
/// the GPU models it is for, each matched as HAMi matches it, as a substring
/// of the GPU's type ("NVIDIA-" and its NVML name); the first entry that
/// matches a GPU is the one it gets.
struct table_entry {
  std::string label;  ///< "knownMigGeometries[N]"
  location at;
  struct model_text {
    std::string text;
    location at;
  };
  std::vector<model_text> models;
  bool broken = false;  ///< `models` could not be read: the entry is not checked
  /// Which device config of the file it is in (a manifest may hold several,
  /// each a list of its own); 0 in a file that is one.
  int group = 0;
};

// Kubernetes DRA ResourceSlices, as io/check_slices.cpp reads them and
// check/slices.cpp checks them.

/// One counter: a capacity in a counter set, or an amount a device consumes.
struct slice_counter {
  std::string name;
  long long value = 0;  ///< the Quantity in base units (whole, not negative)
  location at;
  /// False where the value does not read (an error said so): the name still
  /// resolves, so that the devices drawing it are not blamed too, and the
  /// GPU's admission is not compared.
  bool valid = true;
};

/// A counter set of `spec.sharedCounters`.
struct slice_counter_set {
  std::string name;
  std::vector<slice_counter> counters;
  location at;
  location counters_at;  ///< its `counters` key
};

/// One entry of a device's `consumesCounters`.
struct slice_consumption {
  std::string counter_set;
  std::vector<slice_counter> counters;
  location at;
  location counters_at;  ///< its `counters` key
};

/// One attribute of a device: a string, an int, a bool or a version.
struct slice_attribute {
  std::string name;  ///< as written, domain included ("gpu.nvidia.com/profile")
  std::string text;  ///< the value as written
  bool is_int = false;
  long long number = 0;  ///< when is_int
  location at;
};

/// A device of `spec.devices`.
struct slice_device {
  std::string name;
  std::vector<slice_attribute> attributes;
  std::vector<slice_consumption> consumes;
  bool taints = false;  ///< has `taints` (the 64-device limit applies)
  location at;
  location consumes_at;  ///< its `consumesCounters` key
};

/// One ResourceSlice.
struct resource_slice {
  std::string name;         ///< metadata.name
  std::string api_version;  ///< resource.k8s.io/v1 or v1beta2
  std::string driver;
  std::string pool;
  long long generation = 0;
  long long slice_count = 0;  ///< spec.pool.resourceSliceCount
  std::vector<slice_counter_set> counter_sets;
  std::vector<slice_device> devices;
  location at;
  location pool_at;
  location counter_sets_at;  ///< the `sharedCounters` key
  location devices_at;       ///< the `devices` key
  /// Of an API version check does not read (an error said so): only its
  /// pool is read, so that its pool's other slices are not blamed for it.
  bool refused = false;
};

/// A file read for `check`.
struct parsed_input {
  input_format format = input_format::unknown;
  std::vector<geometry_spec> geometries;
  std::vector<diagnostic> diagnostics;
  /// Every mig-parted config label, in file order (also those with no
  /// readable entry), for `-c`.
  std::vector<std::string> labels;
  /// Read as a Kubernetes manifest (its ConfigMaps' configs are the geometries).
  bool kubernetes = false;
  /// A HAMi device config's knownMigGeometries entries, in order.
  std::vector<table_entry> table;
  /// DRA ResourceSlices (input_format::resource_slices), in file order.
  std::vector<resource_slice> slices;
  /// Read, and neither format: its first document has none of 'gpus',
  /// 'version: 1', 'mig-configs' and 'version: v1' (a workflow, a compose
  /// file). A file that does not parse is never foreign: it may be a broken config.
  bool foreign = false;
  /// Another migplan file (a state, demand, fleet file or a trace: no gpus),
  /// what it is and who reads it ("a migplan state file (version: 1, nodes:
  /// ...), which plan, place and simulate read with --current"); empty for
  /// any other file. Also foreign.
  std::string other_file;
};

/// The answer for one geometry on one GPU model.
struct model_check {
  enum class outcome { fits, does_not_fit, unknown_profile };
  const gpu_model* gpu = nullptr;
  outcome status = outcome::fits;
  std::vector<item> items;           ///< the request, resolved (not for unknown_profile)
  std::uint64_t layout_count = 0;    ///< distinct layouts when it fits
  std::optional<layout> preferred;   ///< the preferred layout when it fits
  reason why;                        ///< explained, when it does not fit
  std::vector<closest_fit> closest;  ///< at most 3, when it does not fit
  std::vector<std::string> unknown;  ///< profile names `gpu` lacks (unknown_profile)
  std::string message;               ///< why not, for unknown_profile and a CI code
  /// does_not_fit because of the compute instances a mig-parted entry names: the code
  /// (unknown_ci_profile, ...), with `message` and the GI profiles involved in `unknown`.
  ci_reason_code ci_code = ci_reason_code::none;
};

/// What became of one geometry.
enum class geometry_status { valid, invalid, unchecked };

/// One checked geometry: a `gpus:` entry or one entry of a mig-parted config label.
struct geometry_check {
  const geometry_spec* spec = nullptr;
  geometry_status status = geometry_status::valid;
  std::vector<model_check> models;
};

/// What became of one file (`skipped`: found under a directory and foreign).
enum class file_status { valid, invalid, malformed, unreadable, skipped };

/// One checked file.
struct file_check {
  std::string path;    ///< as diagnostics name it ("<stdin>" for "-")
  std::string text;    ///< the source, for carets
  parsed_input input;  ///< what was read
  std::vector<geometry_check> geometries;
  std::vector<diagnostic> diagnostics;  ///< schema and feasibility findings, by line
  file_status status = file_status::valid;
  /// ResourceSlices: GPUs whose admission was compared, and those exact.
  int slice_gpus = 0, slice_gpus_exact = 0;
};

/// Totals over every file (`files` counts the files checked, not those skipped).
struct summary {
  int files = 0, geometries = 0, valid = 0, invalid = 0, unchecked = 0;
  /// GPUs of ResourceSlices whose admission was compared, and those exact.
  int slice_gpus = 0, slice_gpus_exact = 0;
  int malformed_files = 0, unreadable_files = 0, skipped_files = 0;
  int errors = 0, warnings = 0, notes = 0;
  int exit_code = 0;
};

}  // namespace migplan::cli::check

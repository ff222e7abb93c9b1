// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading the files `migplan check` validates: migplan's own geometry files
// (YAML or JSON, `version: 1`, `gpus:`) and NVIDIA mig-parted configs
// (`version: v1`, `mig-configs:`). This layer only reads and checks the
// schema, with a line and column for everything; resolving names against the
// catalog and checking feasibility is the command's job.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace migplan::cli::check {

/// How serious a diagnostic is.
enum class severity { error, warning, note };

/// What an error does to the exit code: an invalid geometry (1) or a file
/// that cannot be read as either format (2).
enum class fault { invalid, malformed };

/// A position in a file, 1-based; 0 when unknown.
struct location {
  int line = 0;
  int col = 0;
};

/// One finding, ninja-style: `file:line:col: error: message`.
struct diagnostic {
  severity level = severity::error;
  fault kind = fault::invalid;     ///< meaningful for errors only
  location at;                     ///< where the culprit is
  std::string message;             ///< lowercase, names the culprit
  std::vector<std::string> notes;  ///< follow-up lines (closest fits)
};

/// The two formats `check` reads.
enum class input_format { unknown, geometry, mig_parted };

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
  location model_at;
  // mig-parted configs
  bool has_filter = false;
  location filter_at;
  std::vector<filter_id> filter;
  std::vector<profile_request> items;
  bool broken = false;    ///< a schema error inside: reported, not checked
  bool conflict = false;  ///< already invalid when read (a gpu index given twice)
};

/// A file read for `check`.
struct parsed_input {
  input_format format = input_format::unknown;
  std::vector<geometry_spec> geometries;
  std::vector<diagnostic> diagnostics;
};

/// Reads `text` (JSON syntax is checked first when `json`): syntax, schema and
/// mig-parted's own parse-time rules. Never throws.
parsed_input parse_check_input(std::string_view text, bool json);

/// The keys each mapping of the two formats accepts (for suggestions and docs).
inline constexpr std::string_view geometry_top_keys[] = {"version", "gpus", "comment"};
inline constexpr std::string_view geometry_entry_keys[] = {"model", "index", "name", "comment",
                                                           "instances"};
inline constexpr std::string_view mig_parted_top_keys[] = {"version", "mig-configs"};
inline constexpr std::string_view mig_parted_entry_keys[] = {"device-filter", "devices",
                                                             "mig-enabled", "mig-devices"};

/// Checks a mig-devices key the way mig-parted does before it touches a GPU
/// ([Cc.]Gg.MEMgb, then +attr or -attr, attributes alphanumeric or '.');
/// returns "" when valid, else why not.
std::string mig_profile_format_error(std::string_view name);

/// Reads a device-filter ID the way mig-parted does ("0x20B010DE", decimal,
/// an optional ":SUBSYSTEM" part); false when it cannot.
bool parse_filter_id(std::string_view text, std::uint32_t& out);

}  // namespace migplan::cli::check

// SPDX-License-Identifier: Apache-2.0
#pragma once

// The checking service of `migplan check`, between reading (io/check_input)
// and printing (render/check): resolves what a file names and asks the core
// whether each geometry fits. It computes findings and never prints.

#include <iosfwd>
#include <migplan/gpu.hpp>
#include <migplan/lookup.hpp>
#include <string>
#include <vector>

#include "io/source.hpp"
#include "model/check.hpp"

namespace migplan::cli::check {

/// What `check` is asked to do beside reading files.
struct check_settings {
  /// The models of the run (the catalog and --gpu-file's): what names resolve
  /// to, and the models a mig-parted entry may apply to.
  model_list models;
  /// --gpu: the fleet. Geometry-file entries without `model` are checked on
  /// each of these; mig-parted entries only on these (a device-filter naming
  /// none of them is skipped with a note). Empty: every model of `models` a
  /// mig-parted entry can apply to.
  std::vector<const gpu_model*> fleet;
  std::vector<std::string> configs;  ///< -c: the mig-parted labels to check (empty: all)
  bool verbose = false;              ///< a note for each model a geometry fits on
  bool strict = false;               ///< warnings are errors
};

/// Reads, parses and checks one source: every geometry on every model it
/// applies to, diagnostics sorted by position.
file_check check_source(const source& s, std::istream& in, const check_settings& settings);

/// check_source() of YAML `text` already read, named `shown`: what
/// `emit-config --merge` checks before it writes.
file_check check_text(std::string shown, std::string text, const check_settings& settings);

/// The checks of a file whose text and input are read (`f.text`, `f.input`).
file_check check_read(file_check f, const check_settings& settings);

/// Resolves and checks every geometry `f.input` holds, on every model it
/// applies to, adding a geometry_check each and the diagnostics found
/// (geometries.cpp).
void check_geometries(file_check& f, const check_settings& settings);

/// Checks the DRA ResourceSlices `f.input.slices` holds: the API's limits,
/// names that resolve, and for each GPU of MIG devices whether its counters
/// admit exactly the sets of devices the placement rules allow (slices.cpp).
void check_slices(file_check& f, const check_settings& settings);

/// A model an entry of a HAMi device config is for, and why: the entry's
/// model string and the GPU type it is in (tables.cpp).
struct table_target {
  const gpu_model* gpu = nullptr;
  std::string model_text;
  std::string type;
};

/// Per entry of f.input.table, the models of settings.models it is for (those
/// it comes first for, as HAMi picks), adding warnings for model strings that
/// are in no GPU's type or never come first, and, with a fleet, for its
/// models no entry is for (tables.cpp).
std::vector<std::vector<table_target>> table_targets(file_check& f, const check_settings& settings);

/// A note where a template of `g` says more memory than its profile has on `gpu`.
void check_template_memory(file_check& f, const geometry_spec& g, const gpu_model& gpu);

/// Adds what `f` holds to `s`, and its exit code (the worst file wins).
void tally(summary& s, const file_check& f);

}  // namespace migplan::cli::check

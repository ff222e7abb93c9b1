// SPDX-License-Identifier: Apache-2.0
// The file-level pass of `migplan check`: read one source, check its
// geometries (geometries.cpp), then sort, deduplicate and grade the findings.

#include "check/checker.hpp"

#include <algorithm>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include "io/check_input.hpp"
#include "io/mig_parted.hpp"

namespace migplan::cli::check {
namespace {

// The same finding at the same place once: an alias or a merge key makes
// one mapping part of many entries, and what is wrong in it is said once.
void drop_repeats(std::vector<diagnostic>& ds) {
  std::vector<bool> keep(ds.size(), true);
  {
    std::set<std::tuple<int, int, severity, std::string_view>> seen;
    for (std::size_t i = 0; i < ds.size(); ++i)
      keep[i] = seen.emplace(ds[i].line, ds[i].column, ds[i].level, ds[i].message).second;
  }
  std::size_t n = 0;
  for (std::size_t i = 0; i < ds.size(); ++i)
    if (keep[i]) {
      if (n != i) ds[n] = std::move(ds[i]);
      ++n;
    }
  ds.resize(n);
}

// --strict: a warning fails the check like an error (exit 1), and the
// geometry it belongs to counts as invalid.
void make_warnings_errors(file_check& f) {
  for (diagnostic& d : f.diagnostics) {
    if (d.level != severity::warning) continue;
    d.level = severity::error;
    d.kind = fault::invalid;
    d.message += " [--strict]";
    for (geometry_check& g : f.geometries)
      if (g.spec->entry == d.entry && g.spec->label == d.config)
        g.status = geometry_status::invalid;
  }
}

void finish_status(file_check& f) {
  bool malformed = false, invalid = false;
  for (const diagnostic& d : f.diagnostics) {
    if (d.level != severity::error) continue;
    if (d.kind == fault::malformed)
      malformed = true;
    else
      invalid = true;
  }
  for (const geometry_check& g : f.geometries)
    if (g.status == geometry_status::invalid) invalid = true;
  f.status = malformed ? file_status::malformed
             : invalid ? file_status::invalid
                       : file_status::valid;
}

}  // namespace

file_check check_source(const source& s, std::istream& in, const check_settings& settings) {
  file_check f;
  f.path = s.shown;
  if (!s.empty_dir_error.empty()) {
    f.status = file_status::unreadable;
    f.diagnostics.push_back(
        file_diagnostic(severity::error, fault::malformed, {}, s.empty_dir_error));
    return f;
  }
  auto text = read_check_source(s.path, in);
  if (!text) {
    f.status = file_status::unreadable;
    f.diagnostics.push_back(
        file_diagnostic(severity::error, fault::malformed, {}, text.error().message));
    return f;
  }
  f.text = std::move(*text);
  const bool json = looks_json(s, f.text);
  if (auto slices = read_resource_slices(f.text, json))
    f.input = std::move(*slices);
  else
    f.input = read_mig_parted_input(settings.models, f.text, json);
  if (s.scanned && f.input.foreign) {
    // A workflow or a compose file beside the configs: not ours to judge.
    // Named on the command line, the same file is an error.
    const bool was_kubernetes = f.input.kubernetes;
    const std::string other = std::move(f.input.other_file);
    f = file_check{};
    f.path = s.shown;
    f.status = file_status::skipped;
    f.diagnostics.push_back(file_diagnostic(
        severity::note, fault::invalid, {},
        was_kubernetes
            ? "skipped: a Kubernetes manifest with no ConfigMap holding config.yaml (the "
              "key the GPU Operator reads a mig-parted config from) or a device-config.yaml "
              "with MIG templates (HAMi's and Volcano's nvidia.knownMigGeometries)"
        : !other.empty() ? "skipped: " + other
                         : "skipped: not " + std::string(formats_read)));
    return f;
  }
  return check_read(std::move(f), settings);
}

file_check check_text(std::string shown, std::string text, const check_settings& settings) {
  file_check f;
  f.path = std::move(shown);
  f.text = std::move(text);
  f.input = read_mig_parted_input(settings.models, f.text, false);
  return check_read(std::move(f), settings);
}

file_check check_read(file_check f, const check_settings& settings) {
  f.diagnostics = f.input.diagnostics;
  check_geometries(f, settings);
  if (f.input.format == input_format::resource_slices) check_slices(f, settings);
  if (settings.strict) make_warnings_errors(f);
  std::stable_sort(f.diagnostics.begin(), f.diagnostics.end(),
                   [](const diagnostic& a, const diagnostic& b) {
                     return a.line != b.line ? a.line < b.line : a.column < b.column;
                   });
  drop_repeats(f.diagnostics);
  finish_status(f);
  return f;
}

void tally(summary& s, const file_check& f) {
  {
    if (f.status == file_status::skipped)
      ++s.skipped_files;
    else
      ++s.files;
    s.slice_gpus += f.slice_gpus;
    s.slice_gpus_exact += f.slice_gpus_exact;
    for (const geometry_check& g : f.geometries) {
      ++s.geometries;
      switch (g.status) {
        case geometry_status::valid:
          ++s.valid;
          break;
        case geometry_status::invalid:
          ++s.invalid;
          break;
        case geometry_status::unchecked:
          ++s.unchecked;
          break;
      }
    }
    for (const diagnostic& d : f.diagnostics) {
      switch (d.level) {
        case severity::error:
          ++s.errors;
          break;
        case severity::warning:
          ++s.warnings;
          break;
        case severity::note:
          ++s.notes;
          break;
      }
    }
    int code = 0;
    switch (f.status) {
      case file_status::valid:
        break;
      case file_status::invalid:
        code = 1;
        break;
      case file_status::malformed:
        ++s.malformed_files, code = 2;
        break;
      case file_status::unreadable:
        ++s.unreadable_files, code = 2;
        break;
      case file_status::skipped:
        break;
    }
    s.exit_code = std::max(s.exit_code, code);
  }
}

}  // namespace migplan::cli::check

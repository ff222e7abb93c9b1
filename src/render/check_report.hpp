// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan check` found, and its three renderings: text diagnostics
// (ninja-style, with the source line and a caret), GitHub Actions annotations
// and one JSON document.

#include <cstdint>
#include <iosfwd>
#include <migplan/explain.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/search.hpp>
#include <span>
#include <string>
#include <vector>

#include "io/check_input.hpp"

namespace migplan::cli::check {

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
  std::string message;               ///< why not, for unknown_profile
};

/// What became of one geometry.
enum class geometry_status { valid, invalid, unchecked };

/// One checked geometry: a `gpus:` entry or one entry of a mig-parted config label.
struct geometry_check {
  const geometry_spec* spec = nullptr;
  geometry_status status = geometry_status::valid;
  std::vector<model_check> models;
};

/// What became of one file.
enum class file_status { valid, invalid, malformed, unreadable };

/// One checked file.
struct file_check {
  std::string path;    ///< as diagnostics name it ("<stdin>" for "-")
  std::string text;    ///< the source, for carets
  parsed_input input;  ///< what was read
  std::vector<geometry_check> geometries;
  std::vector<diagnostic> diagnostics;  ///< schema and feasibility findings, by line
  file_status status = file_status::valid;
};

/// Totals over every file.
struct summary {
  int files = 0, geometries = 0, valid = 0, invalid = 0, unchecked = 0;
  int malformed_files = 0, unreadable_files = 0;
  int errors = 0, warnings = 0, notes = 0;
  int exit_code = 0;
};

/// Counts what `files` hold, and the exit code (the worst file wins).
summary summarize(std::span<const file_check> files);

/// "valid", "invalid", "malformed", "unreadable".
std::string_view status_name(file_status s);
/// "valid", "invalid", "unchecked".
std::string_view status_name(geometry_status s);
/// "fits", "does_not_fit", "unknown_profile".
std::string_view status_name(model_check::outcome s);

/// "checked 3 files: 12 geometries valid, 1 invalid" (and what else happened).
std::string summary_line(const summary& s);

/// Text: every diagnostic as `file:line:col: severity: message`, the source
/// line, a caret under the column and any follow-up lines (indented).
void render_text(std::ostream& os, std::span<const file_check> files);

/// GitHub Actions workflow commands: `::error file=F,line=L,col=C::message`.
void render_github(std::ostream& os, std::span<const file_check> files);

/// One JSON document: {"schema_version":1,"files":[...],"summary":{...}}.
void render_json(std::ostream& os, std::span<const file_check> files, const summary& s);

/// Escapes workflow-command data (message): %, CR and LF.
std::string github_escape_data(std::string_view s);
/// Escapes a workflow-command property value: also ':' and ','.
std::string github_escape_property(std::string_view s);

}  // namespace migplan::cli::check

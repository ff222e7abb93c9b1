// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan check` found, and its three renderings: text diagnostics
// (ninja-style, with the source line and a caret), GitHub Actions annotations
// and one JSON document.

#include <cstddef>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

#include "model/check.hpp"
#include "render/diagnostics.hpp"
#include "render/json_writer.hpp"

namespace migplan::cli::render {

/// "valid", "invalid", "malformed", "unreadable", "skipped".
std::string_view status_name(check::file_status s);
/// "valid", "invalid", "unchecked".
std::string_view status_name(check::geometry_status s);
/// "fits", "does_not_fit", "unknown_profile".
std::string_view status_name(check::model_check::outcome s);

/// "checked 3 files: 12 geometries valid, 1 invalid" (and what else happened).
std::string check_summary_line(const check::summary& s);

/// Text for one file: every diagnostic as `file:line:col: severity:
/// message`, the source line, a caret under the column and any follow-up
/// lines (indented); past `max_per_file` of the file's diagnostics (0: no
/// limit), one line that counts the rest ("and 12 more errors in FILE
/// (--max-errors 0 shows all)").
void check_text(std::ostream& os, const check::file_check& f, std::size_t max_per_file = 0);

/// GitHub Actions workflow commands for one file: `::error
/// file=F,line=L,col=C::message`; past `max_per_file` of its diagnostics,
/// one `::notice` that counts the rest.
void check_github(std::ostream& os, const check::file_check& f, std::size_t max_per_file = 0);

/// One JSON document, {"schema_version":1,"files":[...],"summary":{...}},
/// written a file at a time so that a file's text is let go once it is
/// written: `file` for each file, then `finish`. Every diagnostic of every
/// file (no limit: a program reads it).
class check_json_stream {
 public:
  explicit check_json_stream(std::ostream& os);
  void file(const check::file_check& f);
  void finish(const check::summary& s);

 private:
  void flush();
  std::ostream& os_;
  std::string buf_;
  json_writer w_;
};

}  // namespace migplan::cli::render

// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one printer of diagnostics (diagnostic.hpp) beyond their plain text
// (to_text()): a severity's name, the source line with a caret under the
// column, and GitHub workflow commands, which GitHub Actions shows as
// annotations on the file and line. `check` prints its findings through it,
// and every command its bad input (app.cpp's report_bad_input, with
// MIGPLAN_DIAGNOSTICS=github).

#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "diagnostic.hpp"

namespace migplan::cli::render {

/// "error", "warning" or "note".
std::string_view severity_name(severity s);

/// The source line `line` and, under it, a caret under 1-based byte column
/// `col` (none for 0). Control characters, invisible code points and invalid
/// bytes are shown escaped, so that a file cannot drive the terminal; tabs
/// before the column are kept so the caret lines up; a very long line
/// (minified JSON) shows a window around the column.
void source_and_caret(std::ostream& os, std::string_view line, int col);

/// Escapes workflow-command data (message): %, CR and LF.
std::string github_escape_data(std::string_view s);
/// Escapes a workflow-command property value: also ':' and ','.
std::string github_escape_property(std::string_view s);

/// One diagnostic as a GitHub workflow command:
/// "::error file=F,line=L,col=C::message", "::warning ..." or "::notice ..."
/// (a note). `file` is the diagnostic's (empty: no file= property, nor line
/// or column); `notes` follow the message on lines of their own.
void github_annotation(std::ostream& os, const diagnostic& d, std::string_view file,
                       std::span<const std::string> notes = {});

}  // namespace migplan::cli::render

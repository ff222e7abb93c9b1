// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan pack`'s outputs: the text report with its slice diagram, the JSON
// document of `--json`, and the per-line forms of `--batch` (a JSON line, or a
// tab-separated line with `--brief`).

#include <iosfwd>
#include <string>
#include <string_view>

#include "model/pack.hpp"

namespace migplan::cli::render {

/// The report: gpu, request, verdict, then the preferred layout (every layout
/// with `all`) with its diagram, or the reason and closest fits.
void pack_text(std::ostream& os, const pack_answer& a, bool all, bool color);

/// The answer as one indented JSON document (schema_version 1).
void pack_json(std::ostream& os, const pack_answer& a, bool all);

/// The answer as one compact JSON line with its input `line` number, appended to `out`.
void pack_json_line(std::string& out, const pack_answer& a, bool all, int line);

/// A bad batch line as one compact JSON line: {"schema_version","line","error"}.
void pack_error_json_line(std::string& out, int line, std::string_view message);

/// The answer as one tab-separated line: line, gpu, fits|no_fit, layout count,
/// then the preferred layout or the reason code.
void pack_brief_line(std::string& out, const pack_answer& a, int line);

/// A bad batch line as one tab-separated line: line, "-", error, 0, message.
void pack_brief_error_line(std::string& out, int line, std::string_view message);

}  // namespace migplan::cli::render

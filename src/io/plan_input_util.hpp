// SPDX-License-Identifier: Apache-2.0
#pragma once

// What plan's readers (plan_input.cpp, kube_state.cpp, trace.cpp) share: how
// their messages name files, lines and names. Internal to src/io.

#include <fmt/format.h>

#include <algorithm>
#include <migplan/detail/strings.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostic.hpp"
#include "io/names.hpp"
#include "io/schema.hpp"
#include "quote.hpp"

namespace migplan::cli::plan_io {

inline std::string q(std::string_view s) { return quote_token(s); }

/// "FILE:LINE: message", or "FILE: message" when the line is unknown.
inline std::string at(std::string_view shown, int line, std::string_view message) {
  return located(shown, line, message);
}

using doc::suggest;

/// "'a', 'b', 'c', 'd', 'e' and 7 more": a list of names a note can afford.
inline std::string some_names(const std::vector<std::string>& names) {
  constexpr std::size_t most = 5;
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < most; ++i)
    out += fmt::format("{}{}", i == 0 ? "" : ", ", q(names[i]));
  if (names.size() > most) out += fmt::format(" and {} more", names.size() - most);
  return out;
}

inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = detail::ascii_lower(c);
  return out;
}

/// The line of nlohmann's byte position (it counts from 1, at the byte after
/// the error's start).
inline int line_at(std::string_view text, std::size_t byte) {
  const std::size_t end = std::min(byte > 0 ? byte - 1 : 0, text.size());
  return 1 + static_cast<int>(
                 std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

/// "<stdin>" for "-", else the path.
inline std::string shown_path(const std::string& path) { return path == "-" ? "<stdin>" : path; }

/// One CSV line's fields: separated by commas, each trimmed of spaces; a field
/// in double quotes may hold commas, and "" for a quote.
result<std::vector<std::string>> csv_fields(std::string_view line);

/// The walker's first diagnostic, as the one-line error plan reports.
error first_error(const doc::walker& r);

/// The budget of a plan file: the document layer's, with `key`'s list of the
/// top level refused at its first item past `most`.
doc::budget plan_budget(std::string_view key, std::size_t most, std::string_view what);

}  // namespace migplan::cli::plan_io

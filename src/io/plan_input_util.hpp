// SPDX-License-Identifier: Apache-2.0
#pragma once

// What plan's readers (plan_input.cpp, kube_state.cpp, trace.cpp) share: how
// their messages name files, lines and names. Internal to src/io.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <migplan/detail/strings.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "diagnostic.hpp"
#include "io/names.hpp"
#include "io/schema.hpp"
#include "io/text_view.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli::plan_io {

inline std::string q(std::string_view s) { return quote_token(s); }

using doc::suggest;

/// Keys of one of the two demand formats written in the other: a trace pod's
/// `item` (plan's demand word) against a demand item's `profile`, `memory`,
/// `compute_slices` and `sms`.
inline constexpr std::string_view trace_item_hint =
    "a trace names what a pod asks for in item: a profile such as 1g.10gb, "
    "mem=SIZE[:sms=N][:slices=N], or gpu";
inline constexpr doc::key_hint trace_key_hints[] = {{"profile", trace_item_hint},
                                                    {"memory", trace_item_hint},
                                                    {"compute_slices", trace_item_hint},
                                                    {"sms", trace_item_hint}};
inline constexpr doc::key_hint demand_key_hints[] = {
    {"item",
     "a demand file names a profile in profile, or a size in memory, compute_slices and sms"}};

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

/// "<stdin>" for "-", else the path.
inline std::string shown_path(const std::string& path) { return path == "-" ? "<stdin>" : path; }

/// The lines of a text that carry data, for the CSV readers: neither blank
/// (once trimmed) nor a '#' comment, trimmed, each with its line number.
class data_lines {
 public:
  explicit data_lines(std::string_view text) noexcept : lines_(text) {}
  /// The next such line, or nothing past the last.
  std::optional<std::string_view> next() noexcept {
    while (const auto raw = lines_.next())
      if (const std::string_view line = trim(*raw); !line.empty() && line.front() != '#')
        return line;
    return std::nullopt;
  }
  /// The 1-based number of the line next() returned last.
  int number() const noexcept { return lines_.number(); }

 private:
  text_lines lines_;
};

/// One CSV line's fields: separated by commas, each trimmed of spaces; a field
/// in double quotes may hold commas, and "" for a quote, but no line break.
/// With `starts`, also where each field starts in `line` (its opening quote
/// for a quoted one), for an error at its column.
result<std::vector<std::string>> csv_fields(std::string_view line,
                                            std::vector<std::size_t>* starts = nullptr);

/// The walker's first diagnostic, as the one-line error plan reports.
error first_error(const doc::walker& r);

/// Keeps `message` at `at` (a line or a position) in `r`, and returns the
/// walker's first diagnostic as first_error() does: where a reader stops.
template <class At>
error stop(doc::walker& r, At at, std::string message) {
  r.fail(at, std::move(message));
  return first_error(r);
}

/// True when `n` is a mapping; else keeps "EACH, not VALUE" at `at` in `r`
/// ("each node must be a mapping with 'name', 'gpu' and 'gpus', not a list").
template <class At>
bool mapping(doc::walker& r, const doc::node& n, At at, std::string_view each) {
  if (!n.is_map()) r.fail(at, fmt::format("{}, not {}", each, doc::value_text(n)));
  return n.is_map();
}

/// The budget of a plan file: the document layer's, with `key`'s list of the
/// top level refused at its first item past `most`.
doc::budget plan_budget(std::string_view key, std::size_t most, std::string_view what);

}  // namespace migplan::cli::plan_io

// SPDX-License-Identifier: Apache-2.0
#pragma once

// One diagnostic for every reader of a document: where (file, line, column),
// a stable code, a severity and the message; `check` adds what an error does
// to its exit code, follow-up notes, and the config and entry it is about
// (every other reader leaves those as they are). Readers keep positions as
// numbers; to_text() is the one place that writes them: "FILE:LINE: message",
// "FILE: message" where no line is known, and "line N: message" for a
// diagnostic not yet given a file (a reader of text the caller names).
// Messages name a culprit through one quoting rule (quote_token(), quote.hpp).

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quote.hpp"

namespace migplan::cli {

/// How bad a diagnostic is.
enum class severity : unsigned char {
  error,    ///< the file is refused
  warning,  ///< the file is read, but likely not as meant
  note,     ///< context for the diagnostic before it
};

/// What an error does to `check`'s exit code: an invalid geometry (1) or a
/// file that cannot be read as any format it knows (2).
enum class fault : unsigned char { invalid, malformed };

/// A line and column, 1-based; 0 when unknown.
struct location {
  int line = 0;
  int col = 0;
  bool operator==(const location&) const = default;
};

/// One finding about one place of one file.
struct diagnostic {
  /// Every reader's fields, in order; check's are set afterwards.
  diagnostic(std::string in_file = {}, int at_line = 0, int at_column = 0,
             std::string with_code = {}, severity how_bad = severity::error, std::string text = {})
      : file(std::move(in_file)),
        line(at_line),
        column(at_column),
        code(std::move(with_code)),
        level(how_bad),
        message(std::move(text)) {}

  std::string file;                  ///< as shown to the user ("<stdin>" for "-")
  int line = 0;                      ///< 1-based; 0 when unknown
  int column = 0;                    ///< 1-based byte column; 0 when unknown
  std::string code;                  ///< a stable name ("unknown-key"); empty for a plain error
  severity level = severity::error;  ///< how bad
  std::string message;               ///< lowercase, one line, naming the culprit
  fault kind = fault::invalid;       ///< check's: meaningful for errors only
  std::vector<std::string> notes;    ///< check's follow-up lines (closest fits)
  std::string config;                ///< check's geometry label ("" when the file's, not one's)
  int entry = -1;                    ///< check's entry index (-1 with no config)

  /// Where the culprit is.
  location at() const noexcept { return {line, column}; }
};

/// Whether to_text() writes a known column: "FILE:LINE:COL: message".
enum class column_shown : bool { no, yes };

/// A position as every message writes it: "FILE:LINE:COL", "FILE:LINE"
/// where no column is given, "FILE" where no line is known.
inline std::string position_text(std::string_view file, int line, int column = 0) {
  if (line <= 0) return std::string(file);
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

/// The one printer of a diagnostic: "FILE:LINE: message" ("FILE:LINE:COL: "
/// with `column` yes and a column known), "FILE: message" where the line is
/// unknown; without a file, "line N: message", or the message alone.
inline std::string to_text(const diagnostic& d, column_shown column = column_shown::no) {
  if (d.file.empty()) return d.line > 0 ? fmt::format("line {}: {}", d.line, d.message) : d.message;
  return fmt::format("{}: {}",
                     position_text(d.file, d.line, column == column_shown::yes ? d.column : 0),
                     d.message);
}

/// An error at a line of `file` (0: the whole file), as to_text() writes
/// it: "FILE:LINE: message", or "FILE: message".
inline diagnostic located(std::string_view file, int line, std::string_view message) {
  return {std::string(file), line, 0, {}, severity::error, std::string(message)};
}

/// A diagnostic of a reader that does not know its file, placed in `file`.
inline diagnostic in_file(diagnostic d, std::string_view file) {
  d.file = file;
  return d;
}

}  // namespace migplan::cli

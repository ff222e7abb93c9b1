// SPDX-License-Identifier: Apache-2.0
#pragma once

// One diagnostic for every reader of a document: where (file, line, column),
// a stable code, a severity and the message. Messages name a culprit through
// one quoting rule (quote_token(), quote.hpp) and print their position one
// way: "FILE:LINE: message", or "FILE: message" where no line is known.

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "quote.hpp"

namespace migplan::cli {

/// How bad a diagnostic is.
enum class severity : unsigned char {
  error,    ///< the file is refused
  warning,  ///< the file is read, but likely not as meant
  note,     ///< context for the diagnostic before it
};

/// One finding about one place of one file.
struct diagnostic {
  std::string file;                  ///< as shown to the user ("<stdin>" for "-")
  int line = 0;                      ///< 1-based; 0 when unknown
  int column = 0;                    ///< 1-based byte column; 0 when unknown
  std::string code;                  ///< a stable name ("unknown-key"); empty for a plain error
  severity level = severity::error;  ///< how bad
  std::string message;               ///< lowercase, one line, naming the culprit
};

/// "FILE:LINE: message", or "FILE: message" where the line is unknown.
inline std::string located(std::string_view file, int line, std::string_view message) {
  return line > 0 ? fmt::format("{}:{}: {}", file, line, message)
                  : fmt::format("{}: {}", file, message);
}

/// A diagnostic as one line of text, positioned by located().
inline std::string to_text(const diagnostic& d) { return located(d.file, d.line, d.message); }

}  // namespace migplan::cli

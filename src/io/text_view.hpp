// SPDX-License-Identifier: Apache-2.0
#pragma once

// Small pieces every reader of a document needs: a text read as a stream
// without a copy (yaml-cpp takes streams, and a file can be hundreds of MiB),
// a text read line by line, a byte-order mark skipped, and nlohmann's parse
// error cut down to the sentence a user needs.

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/exceptions.h>

#include <cstddef>
#include <optional>
#include <streambuf>
#include <string>
#include <string_view>

#include "quote.hpp"

namespace migplan::cli {

/// The text as a stream buffer, without a copy; the text must outlive it.
class view_buf : public std::streambuf {
 public:
  explicit view_buf(std::string_view text) {
    char* begin = const_cast<char*>(text.data());  // only ever read
    setg(begin, begin, begin + text.size());
  }
};

/// The lines of a text in turn, each without its '\n' (a '\r' is kept), and
/// the number of the last one: every line-based reader's loop. A text ending
/// in '\n' has an empty last line.
class text_lines {
 public:
  explicit text_lines(std::string_view text) noexcept : text_(text) {}
  /// The next line, or nothing past the last.
  std::optional<std::string_view> next() noexcept {
    if (from_ > text_.size()) return std::nullopt;
    const std::size_t nl = text_.find('\n', from_);
    const std::string_view line = text_.substr(from_, nl == text_.npos ? text_.npos : nl - from_);
    from_ = nl == text_.npos ? text_.size() + 1 : nl + 1;
    ++number_;
    return line;
  }
  /// The 1-based number of the line next() returned last.
  int number() const noexcept { return number_; }

 private:
  std::string_view text_;
  std::size_t from_ = 0;
  int number_ = 0;
};

/// The text without a UTF-8 byte-order mark at its start, which editors on
/// Windows and PowerShell's redirection write: every reader skips it.
inline std::string_view skip_bom(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return text;
}

/// "[json.exception.parse_error.101] parse error at line 3, column 3: syntax
/// error while parsing object key - unexpected '}'; expected string literal"
/// -> "syntax error while parsing ...": from "syntax error" on, else what
/// follows the exception's "[...] " tag (the caller says where); escaped by
/// one_line(), as nlohmann quotes the raw bytes it read ("last read: '...'").
inline std::string json_error_text(const std::string& what) {
  const std::size_t at = what.find("syntax error");
  if (at != std::string::npos) return one_line(what.substr(at));
  const std::size_t tag = what.find("] ");
  return one_line(tag != std::string::npos ? what.substr(tag + 2) : what);
}

/// yaml-cpp's message, in words a user can act on: its "bad file" for
/// nesting past its recursion limit says how deep it went; others escaped by
/// one_line(), as it quotes the raw byte it stopped at ("unknown escape
/// character: ...").
inline std::string yaml_error_text(const YAML::Exception& e) {
  if (const auto* deep = dynamic_cast<const YAML::DeepRecursion*>(&e))
    return "values nest more than " + std::to_string(deep->depth()) +
           " levels deep, the most the yaml parser reads";
  return one_line(e.msg);
}

}  // namespace migplan::cli

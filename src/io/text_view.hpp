// SPDX-License-Identifier: Apache-2.0
#pragma once

// Small pieces every reader of a document needs: a text read as a stream
// without a copy (yaml-cpp takes streams, and a file can be hundreds of MiB),
// and nlohmann's parse error cut down to the sentence a user needs.

#include <streambuf>
#include <string>
#include <string_view>

namespace migplan::cli {

/// The text as a stream buffer, without a copy; the text must outlive it.
class view_buf : public std::streambuf {
 public:
  explicit view_buf(std::string_view text) {
    char* begin = const_cast<char*>(text.data());  // only ever read
    setg(begin, begin, begin + text.size());
  }
};

/// "[json.exception.parse_error.101] parse error at line 3, column 3: syntax
/// error while parsing object key - unexpected '}'; expected string literal"
/// -> "syntax error while parsing ...": from "syntax error" on, else what
/// follows the exception's "[...] " tag (the caller says where).
inline std::string json_error_text(const std::string& what) {
  const std::size_t at = what.find("syntax error");
  if (at != std::string::npos) return what.substr(at);
  const std::size_t tag = what.find("] ");
  return tag != std::string::npos ? what.substr(tag + 2) : what;
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#include "render/diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "quote.hpp"

namespace migplan::cli::render {

std::string_view severity_name(severity s) {
  switch (s) {
    case severity::error:
      return "error";
    case severity::warning:
      return "warning";
    case severity::note:
      return "note";
  }
  return "";
}

void source_and_caret(std::ostream& os, std::string_view line, int col) {
  constexpr std::size_t max_width = 160, before = 60;
  std::size_t c = col > 0 ? static_cast<std::size_t>(col - 1) : 0;
  c = std::min(c, line.size());
  std::string prefix, suffix;
  if (line.size() > max_width) {
    const std::size_t start = c > before ? c - before : 0;
    const std::size_t end = std::min(line.size(), start + max_width);
    if (start > 0) prefix = "...";
    if (end < line.size()) suffix = "...";
    line = line.substr(start, end - start);
    c -= start;
  }
  // Escaped as clip_token writes them; the caret counts the escapes' width.
  std::string shown = prefix, caret(prefix.size(), ' ');
  for (std::size_t i = 0; i < line.size();) {
    const auto ch = static_cast<unsigned char>(line[i]);
    std::size_t n = 1, width = 1;
    std::string piece;
    if (ch == '\t') {
      piece = "\t";
    } else if (ch < 0x20 || ch == 0x7F) {
      piece = clip_token(line.substr(i, 1), 1);
      width = piece.size();
    } else if (ch < 0x80) {
      piece = line.substr(i, 1);
    } else {
      std::uint32_t cp = 0;
      bool valid = false;
      n = quote_detail::utf8_step(line, i, cp, valid);
      piece = valid && !quote_detail::invisible(cp) ? std::string(line.substr(i, n))
                                                    : clip_token(line.substr(i, n), 1);
      width = valid && !quote_detail::invisible(cp) ? 1 : piece.size();
      if (!valid) width = 1;  // one U+FFFD
    }
    shown += piece;
    if (i < c) caret += ch == '\t' ? std::string("\t") : std::string(width, ' ');
    i += n;
  }
  os << shown << suffix << "\n";
  if (col <= 0) return;
  os << caret << "^\n";
}

std::string github_escape_data(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string github_escape_property(std::string_view s) {
  std::string out;
  for (char c : github_escape_data(s)) {
    switch (c) {
      case ':':
        out += "%3A";
        break;
      case ',':
        out += "%2C";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void github_annotation(std::ostream& os, const diagnostic& d, std::string_view file,
                       std::span<const std::string> notes) {
  const std::string_view command = d.level == severity::error     ? "error"
                                   : d.level == severity::warning ? "warning"
                                                                  : "notice";
  std::string props;
  if (!file.empty()) {
    props = " file=" + github_escape_property(file);
    if (d.line > 0) props += fmt::format(",line={}", d.line);
    if (d.line > 0 && d.column > 0) props += fmt::format(",col={}", d.column);
  }
  std::string message = one_line(d.message);
  for (const std::string& n : notes) message += "\n" + one_line(n);
  os << "::" << command << props << "::" << github_escape_data(message) << "\n";
}

}  // namespace migplan::cli::render

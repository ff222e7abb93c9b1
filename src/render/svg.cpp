// SPDX-License-Identifier: Apache-2.0
#include "render/svg.hpp"

#include <cstdint>

#include "quote.hpp"

namespace migplan::cli::render {

std::string xml_text(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '&':
          out += "&amp;";
          break;
        case '<':
          out += "&lt;";
          break;
        case '>':
          out += "&gt;";
          break;
        case '"':
          out += "&quot;";
          break;
        case '\'':
          out += "&apos;";
          break;
        default:
          out += c < 0x20 && c != '\t' && c != '\n' ? "\xEF\xBF\xBD" : std::string(1, s[i]);
      }
      ++i;
      continue;
    }
    std::uint32_t cp = 0;
    bool valid = false;
    const std::size_t n = quote_detail::utf8_step(s, i, cp, valid);
    // U+FFFE and U+FFFF are not XML characters either.
    if (valid && cp != 0xFFFE && cp != 0xFFFF)
      out.append(s.substr(i, n));
    else
      out += "\xEF\xBF\xBD";
    i += n;
  }
  return out;
}

}  // namespace migplan::cli::render

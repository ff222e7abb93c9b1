// SPDX-License-Identifier: Apache-2.0
#include "render/yaml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "quote.hpp"

namespace migplan::cli::render {

namespace {

constexpr bool ascii_lower_eq(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char c = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    if (c != b[i]) return false;
  }
  return true;
}

constexpr bool digit(char c) noexcept { return c >= '0' && c <= '9'; }

constexpr bool alnum(char c) noexcept {
  return digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// YAML 1.1's booleans and nulls (yaml.org/type/bool, /null), in every case
// form: go-yaml v2 resolves "y", "Yes", "ON", "off" and "~" as such, yaml-cpp
// the nulls.
constexpr std::array<std::string_view, 10> special_words = {"y",   "n",    "yes",   "no",   "on",
                                                            "off", "true", "false", "null", "~"};

// True when a plain `s` that starts with a digit may resolve to a number or
// a timestamp: an integer in any base (0x1F, 0o17, 0b101, 017, 1_000), a
// float (1e3, 1.5, 0x1p4) or a date (2024-01-02). Such a scalar holds
// nothing but digits, hex digits, the base and exponent letters and
// '.', '_', '-' and '+'; quoting every one of those is simpler and safer
// than following each resolver's grammar ("1.2.3" is a float to YAML 1.1's
// regular expression, a string to go-yaml). Sexagesimal numbers (1:20) hold
// ':', which is never plain.
constexpr bool may_be_number(std::string_view s) noexcept {
  if (s.empty() || !digit(s.front())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == 'x' || c == 'X' ||
           c == 'o' || c == 'O' || c == 'p' || c == 'P' || c == '.' || c == '_' || c == '-' ||
           c == '+';
  });
}

}  // namespace

std::string yaml_quoted(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80) {
      ++i;
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (u < 0x20 || u == 0x7F) {
        out += fmt::format("\\x{:02x}", u);
      } else {
        out += c;
      }
      continue;
    }
    std::uint32_t cp = 0;
    bool valid = false;
    const std::size_t n = quote_detail::utf8_step(s, i, cp, valid);
    if (!valid) out += "\xEF\xBF\xBD";  // U+FFFD, the replacement character
    // YAML 1.1 allows neither C1 controls (but NEL) nor U+FFFE/U+FFFF in a
    // stream, and reads NEL, U+2028 and U+2029 as line breaks.
    else if (quote_detail::invisible(cp) || cp == 0xFFFE || cp == 0xFFFF)
      out += fmt::format("\\u{:04x}", cp);
    else
      out.append(s.substr(i, n));
    i += n;
  }
  return out + "\"";
}

std::string yaml_scalar(std::string_view s) {
  const bool plain = !s.empty() && alnum(s.front()) && std::all_of(s.begin(), s.end(), [](char c) {
    return alnum(c) || c == '.' || c == '_' || c == '-' || c == '/';
  }) && std::none_of(special_words.begin(), special_words.end(), [&](std::string_view w) {
    return ascii_lower_eq(s, w);
  }) && !may_be_number(s);
  return plain ? std::string(s) : yaml_quoted(s);
}

}  // namespace migplan::cli::render

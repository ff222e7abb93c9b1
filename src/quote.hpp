// SPDX-License-Identifier: Apache-2.0
#pragma once

// Echoing what a person typed back in a message, safely: a word from the
// command line or an input file may hold terminal escape sequences, invalid
// UTF-8 or a megabyte of garbage, and a message must stay one short, inert
// line. Shared by reading (io/), the commands and writing (render/), so it
// lives beside error.hpp rather than in one of those layers.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace migplan::cli {

/// Characters of a token quoted back in a message before it is cut off with "...".
inline constexpr std::size_t max_quoted_chars = 40;

namespace quote_detail {

inline void append_hex_escape(std::string& out, char prefix, std::uint32_t v, int digits) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '\\';
  out += prefix;
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out += hex[(v >> shift) & 0xFu];
}

// At s[i]: the length of a whole UTF-8 character and its code point, or of
// one maximal invalid subpart (Unicode table 3-7) with `cp` unset, which
// becomes one U+FFFD, as the JSON writer replaces it.
inline std::size_t utf8_step(std::string_view s, std::size_t i, std::uint32_t& cp, bool& valid) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char lead = b(0);
  std::size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
  valid = false;
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 2;
    cp = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 3;
    cp = lead & 0x0Fu;
    if (lead == 0xE0) lo = 0xA0;  // no overlong forms
    if (lead == 0xED) hi = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 4;
    cp = lead & 0x07u;
    if (lead == 0xF0) lo = 0x90;  // no overlong forms
    if (lead == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
  } else {
    return 1;  // a stray continuation byte, C0, C1 or F5..FF
  }
  for (std::size_t k = 1; k < need; ++k) {
    if (i + k >= s.size()) return k;
    const unsigned char c = b(k);
    if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) return k;
    cp = (cp << 6) | (c & 0x3Fu);
  }
  valid = true;
  return need;
}

// Code points that print nothing or change how the rest of the line shows:
// C1 controls, zero-width and bidirectional formatting marks, line and
// paragraph separators, the byte-order mark.
constexpr bool invisible(std::uint32_t cp) noexcept {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0xAD || (cp >= 0x200B && cp <= 0x200F) ||
         (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF;
}

}  // namespace quote_detail

namespace quote_detail {

// The escape messages and JSON both write for a tab, a newline and a
// carriage return (a backslash, then t, n or r); nullptr for any other byte.
constexpr const char* control_escape(char c) noexcept {
  switch (c) {
    case '\t':
      return "\\t";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    default:
      return nullptr;
  }
}

// clip_token() and one_line(): the same escapes, but one_line() leaves a
// backslash as it is, so that a message whose parts clip_token() already
// escaped comes through unchanged.
inline std::string escape(std::string_view text, std::size_t max_chars, bool escape_backslash) {
  std::string out;
  std::size_t chars = 0, i = 0;
  for (; i < text.size() && chars < max_chars; ++chars) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80) {
      ++i;
      if (c == '\\') {
        out += escape_backslash ? "\\\\" : "\\";
        continue;
      }
      if (const char* e = control_escape(c)) {
        out += e;
        continue;
      }
      if (u < 0x20 || u == 0x7F)
        append_hex_escape(out, 'x', u, 2);
      else
        out += c;
      continue;
    }
    std::uint32_t cp = 0;
    bool valid = false;
    const std::size_t n = utf8_step(text, i, cp, valid);
    if (!valid)
      out += "\xEF\xBF\xBD";  // U+FFFD, the replacement character
    else if (invisible(cp))
      append_hex_escape(out, 'u', cp, 4);
    else
      out.append(text.substr(i, n));
    i += n;
  }
  if (i < text.size()) out += "...";
  return out;
}

}  // namespace quote_detail

/// `text` made safe to print inside a message: backslash, tab, newline and
/// carriage return become \\, \t, \n and \r; other control bytes become
/// \xNN; invisible or direction-changing code points become \uNNNN; bytes
/// that are not UTF-8 become U+FFFD (as in JSON output); at most `max_chars`
/// characters are kept, then "...".
inline std::string clip_token(std::string_view text, std::size_t max_chars = max_quoted_chars) {
  return quote_detail::escape(text, max_chars, true);
}

/// A whole message made one inert line of valid UTF-8, whatever a parser's
/// own text put in it (yaml-cpp quotes the raw byte it stops at): escaped as
/// clip_token() escapes, but whole and with backslashes as they are. Every
/// message passes through it on its way out (text and JSON); a message that
/// is already one clean line comes out unchanged.
inline std::string one_line(std::string_view message) {
  return quote_detail::escape(message, std::string_view::npos, false);
}

/// one_line() of each line of a message that is meant to have several (an
/// ambiguity lists its candidates one a line): the line breaks stay.
inline std::string each_line(std::string_view message) {
  std::string out;
  for (std::size_t from = 0;;) {
    const std::size_t nl = message.find('\n', from);
    out += one_line(message.substr(from, nl == std::string_view::npos ? nl : nl - from));
    if (nl == std::string_view::npos) return out;
    out += '\n';
    from = nl + 1;
  }
}

/// clip_token() in single quotes, the way messages name a culprit: "'1g.5gbb'".
inline std::string quote_token(std::string_view text, std::size_t max_chars = max_quoted_chars) {
  // Appended, not "'" + ... + "'": g++ 12 at -O2 warns (-Wrestrict, a false
  // positive) on that operator+ once it is inlined.
  std::string out(1, '\'');
  out += clip_token(text, max_chars);
  out += '\'';
  return out;
}

}  // namespace migplan::cli

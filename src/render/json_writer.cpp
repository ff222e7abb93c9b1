// SPDX-License-Identifier: Apache-2.0
#include "render/json_writer.hpp"

#include <fmt/format.h>

#include <array>
#include <iterator>

namespace migplan::cli {
namespace {

// Length of the well-formed UTF-8 prefix of `s` that starts a sequence
// (Unicode table 3-7), and whether that prefix is a whole character.
struct utf8_step {
  std::size_t length;  // bytes to consume
  bool valid;          // a whole character (else: one maximal invalid subpart)
};

utf8_step utf8_at(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char lead = b(0);
  std::size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 3;
    if (lead == 0xE0) lo = 0xA0;  // no overlong forms
    if (lead == 0xED) hi = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 4;
    if (lead == 0xF0) lo = 0x90;  // no overlong forms
    if (lead == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
  } else {
    return {1, false};  // a stray continuation byte, C0, C1 or F5..FF
  }
  for (std::size_t k = 1; k < need; ++k) {
    if (i + k >= s.size()) return {k, false};
    const unsigned char c = b(k);
    const bool ok = k == 1 ? (c >= lo && c <= hi) : (c >= 0x80 && c <= 0xBF);
    if (!ok) return {k, false};  // the offending byte starts afresh
  }
  return {need, true};
}

// Bytes copied as they are: printable ASCII but '"' and '\\'. A table, as
// this runs on every string of every `--batch` line.
constexpr std::array<bool, 256> plain_bytes = [] {
  std::array<bool, 256> t{};
  for (std::size_t c = 0x20; c < 0x80; ++c) t[c] = c != '"' && c != '\\';
  return t;
}();

bool plain(char c) { return plain_bytes[static_cast<unsigned char>(c)]; }

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  std::size_t i = 0;
  while (i < s.size()) {
    // Copy runs that need no attention whole.
    const std::size_t from = i;
    while (i < s.size() && plain(s[i])) ++i;
    out.append(s.data() + from, i - from);
    if (i == s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const utf8_step step = utf8_at(s, i);
      if (step.valid)
        out.append(s.substr(i, step.length));
      else
        out += "\xEF\xBF\xBD";
      i += step.length;
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20)
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c));
        else
          out += static_cast<char>(c);
    }
    ++i;
  }
  out += '"';
}

void json_writer::newline(std::size_t depth) {
  out_ += '\n';
  out_.append(depth * static_cast<std::size_t>(indent_), ' ');
}

void json_writer::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (has_items_.empty()) return;
  if (has_items_.back()) out_ += ',';
  has_items_.back() = true;
  if (indent_ > 0) newline(has_items_.size());
}

json_writer& json_writer::begin_object() {
  separate();
  out_ += '{';
  has_items_.push_back(false);
  return *this;
}

json_writer& json_writer::begin_array() {
  separate();
  out_ += '[';
  has_items_.push_back(false);
  return *this;
}

json_writer& json_writer::close(char c) {
  const bool had_items = has_items_.back();
  has_items_.pop_back();
  if (indent_ > 0 && had_items) newline(has_items_.size());
  out_ += c;
  return *this;
}

json_writer& json_writer::end_object() { return close('}'); }

json_writer& json_writer::end_array() { return close(']'); }

json_writer& json_writer::key(std::string_view k) {
  separate();
  append_json_string(out_, k);
  out_ += ':';
  if (indent_ > 0) out_ += ' ';
  after_key_ = true;
  return *this;
}

json_writer& json_writer::value(std::string_view s) {
  separate();
  append_json_string(out_, s);
  return *this;
}

json_writer& json_writer::integer(long long v) {
  separate();
  fmt::format_to(std::back_inserter(out_), "{}", v);
  return *this;
}

json_writer& json_writer::unsigned_integer(unsigned long long v) {
  separate();
  fmt::format_to(std::back_inserter(out_), "{}", v);
  return *this;
}

json_writer& json_writer::value(bool v) {
  separate();
  out_ += v ? "true" : "false";
  return *this;
}

json_writer& json_writer::null() {
  separate();
  out_ += "null";
  return *this;
}

json_writer& json_writer::hundredths(int x100) {
  separate();
  const long long v = x100;
  const long long a = v < 0 ? -v : v;
  fmt::format_to(std::back_inserter(out_), "{}{}.{:02}", v < 0 ? "-" : "", a / 100, a % 100);
  return *this;
}

}  // namespace migplan::cli

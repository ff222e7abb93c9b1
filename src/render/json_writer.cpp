// SPDX-License-Identifier: Apache-2.0
#include "render/json_writer.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <iterator>

#include "quote.hpp"

namespace migplan::cli {
namespace {

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
      // One reading of UTF-8 for messages and JSON alike (quote.hpp).
      std::uint32_t cp = 0;
      bool valid = false;
      const std::size_t n = quote_detail::utf8_step(s, i, cp, valid);
      if (valid)
        out.append(s.substr(i, n));
      else
        out += "\xEF\xBF\xBD";
      i += n;
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
      default:
        if (const char* e = quote_detail::control_escape(static_cast<char>(c)))
          out += e;
        else if (c < 0x20)
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
  const bool had = has_items_.back();
  if (had) out_ += ',';
  has_items_.back() = true;
  if (indent_ == 0) return;
  if (!in_flat())
    newline(has_items_.size());
  else if (had)
    out_ += ' ';
}

void json_writer::opened() {
  if (!flat_next_) return;
  flat_next_ = false;
  if (flat_depth_ == 0) flat_depth_ = has_items_.size();
}

json_writer& json_writer::flat() {
  flat_next_ = true;
  return *this;
}

json_writer& json_writer::begin_object() {
  separate();
  out_ += '{';
  has_items_.push_back(false);
  opened();
  return *this;
}

json_writer& json_writer::begin_array() {
  separate();
  out_ += '[';
  has_items_.push_back(false);
  opened();
  return *this;
}

json_writer& json_writer::close(char c) {
  const bool had_items = has_items_.back();
  const bool flat = in_flat();
  has_items_.pop_back();
  if (has_items_.size() < flat_depth_) flat_depth_ = 0;
  if (indent_ > 0 && had_items && !flat) newline(has_items_.size());
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

json_writer& json_writer::number(double v) {
  if (!std::isfinite(v)) return null();
  separate();
  // -0 is written 0; fmt's "{}" is the shortest form that reads back as v.
  fmt::format_to(std::back_inserter(out_), "{}", v == 0 ? 0.0 : v);
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

// SPDX-License-Identifier: Apache-2.0
#include "render/json_writer.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace migplan::cli {

void json_writer::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_items_.empty()) {
    if (has_items_.back()) out_ += ',';
    has_items_.back() = true;
  }
}

json_writer& json_writer::begin_object() {
  separate();
  out_ += '{';
  has_items_.push_back(false);
  return *this;
}

json_writer& json_writer::end_object() {
  out_ += '}';
  has_items_.pop_back();
  return *this;
}

json_writer& json_writer::begin_array() {
  separate();
  out_ += '[';
  has_items_.push_back(false);
  return *this;
}

json_writer& json_writer::end_array() {
  out_ += ']';
  has_items_.pop_back();
  return *this;
}

json_writer& json_writer::key(std::string_view k) {
  value(k);
  out_ += ':';
  after_key_ = true;
  return *this;
}

json_writer& json_writer::value(std::string_view s) {
  separate();
  out_ += '"';
  // Most strings (names, slugs) need no escaping: copy them whole.
  const bool plain = std::none_of(s.begin(), s.end(), [](char c) {
    return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
  });
  if (plain) {
    out_.append(s);
    out_ += '"';
    return *this;
  }
  for (const char c : s) {
    switch (c) {
      case '"':
        out_ += "\\\"";
        break;
      case '\\':
        out_ += "\\\\";
        break;
      case '\n':
        out_ += "\\n";
        break;
      case '\r':
        out_ += "\\r";
        break;
      case '\t':
        out_ += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          fmt::format_to(std::back_inserter(out_), "\\u{:04x}", static_cast<unsigned>(c));
        else
          out_ += c;
    }
  }
  out_ += '"';
  return *this;
}

json_writer& json_writer::value(long long v) {
  separate();
  fmt::format_to(std::back_inserter(out_), "{}", v);
  return *this;
}

json_writer& json_writer::value(unsigned long long v) {
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
  const int a = x100 < 0 ? -x100 : x100;
  fmt::format_to(std::back_inserter(out_), "{}{}.{:02}", x100 < 0 ? "-" : "", a / 100, a % 100);
  return *this;
}

}  // namespace migplan::cli

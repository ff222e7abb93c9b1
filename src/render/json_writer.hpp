// SPDX-License-Identifier: Apache-2.0
#pragma once

// A small streaming JSON writer for the hot path (`pack --batch`): appends
// compact JSON to a string without building a tree. Keys are written in the
// order they are given, so documents keep a stable key order.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace migplan::cli {

/// Appends compact JSON to a buffer.
class json_writer {
 public:
  /// Writes into `out` (appending).
  explicit json_writer(std::string& out) : out_(out) {}

  json_writer& begin_object();           ///< {
  json_writer& end_object();             ///< }
  json_writer& begin_array();            ///< [
  json_writer& end_array();              ///< ]
  json_writer& key(std::string_view k);  ///< "k": (the next call writes the value)
  json_writer& value(std::string_view s);
  json_writer& value(const char* s) { return value(std::string_view(s)); }
  json_writer& value(long long v);
  json_writer& value(unsigned long long v);
  json_writer& value(int v) { return value(static_cast<long long>(v)); }
  json_writer& value(bool v);
  json_writer& null();
  /// A number with two decimals from a value x 100 (4.91 from 491).
  json_writer& hundredths(int x100);

 private:
  void separate();
  std::string& out_;
  std::vector<bool> has_items_;  // per open container: something written already
  bool after_key_ = false;
};

}  // namespace migplan::cli

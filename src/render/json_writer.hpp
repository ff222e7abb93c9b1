// SPDX-License-Identifier: Apache-2.0
#pragma once

// migplan's one JSON writer: every JSON document and line it prints goes
// through here. It streams into a string without building a tree, keeps keys
// in the order they are written, and writes either compact JSON (one line, for
// `pack --batch`) or the indented layout of `--json`. Strings are escaped the
// way nlohmann::json escapes them, and invalid UTF-8 is replaced, so every
// document is valid UTF-8 JSON whatever bytes the input held.

#include <concepts>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace migplan::cli {

/// Version of every JSON document migplan writes.
inline constexpr int json_schema_version = 1;

/// Appends `s` as a JSON string (quotes included): '"', '\\' and control
/// characters escaped (\b \f \n \r \t, others as \u00xx), other bytes copied,
/// and each maximal invalid UTF-8 subpart replaced by one U+FFFD, exactly as
/// nlohmann::json's dump() with error_handler_t::replace does.
void append_json_string(std::string& out, std::string_view s);

/// Appends JSON to a buffer, compact or indented.
class json_writer {
 public:
  /// Writes into `out` (appending). `indent` 0 writes compact JSON on one
  /// line; n > 0 puts each member on its own line, n spaces per level (the
  /// layout of nlohmann::json's dump(n): `"key": value`, empty containers as
  /// `{}` and `[]`).
  explicit json_writer(std::string& out, int indent = 0) : out_(out), indent_(indent) {}

  json_writer& begin_object();  ///< {
  json_writer& end_object();    ///< }
  json_writer& begin_array();   ///< [
  json_writer& end_array();     ///< ]
  /// Writes the next object or array, and all it holds, on one line of an
  /// indented document ({"a": 1, "b": [2, 3]}): for long lists of small records.
  json_writer& flat();
  json_writer& key(std::string_view k);    ///< "k": (the next call writes the value)
  json_writer& value(std::string_view s);  ///< a string
  json_writer& value(const char* s) { return value(std::string_view(s)); }  ///< a string
  json_writer& value(bool v);                                               ///< true or false
  /// An integer of any width.
  template <std::integral T>
  requires(!std::same_as<T, bool> && !std::same_as<T, char>) json_writer& value(T v) {
    if constexpr (std::is_signed_v<T>)
      return integer(static_cast<long long>(v));
    else
      return unsigned_integer(static_cast<unsigned long long>(v));
  }
  /// The value, or null when empty.
  template <class T>
  json_writer& value(const std::optional<T>& v) {
    return v ? value(*v) : null();
  }
  json_writer& null();  ///< null
  /// A finite number in its shortest round-trip form (2, 2.5, 0.125); null
  /// when not finite. For costs, bounds and seconds, which are not whole.
  json_writer& number(double v);
  /// A number with two decimals from a value x 100: 4.91 from 491, 0.00 from
  /// 0. Every GiB figure is written this way, as `nvidia-smi mig -lgip` prints it.
  json_writer& hundredths(int x100);
  /// hundredths(), or null when empty.
  json_writer& hundredths(const std::optional<int>& x100) {
    return x100 ? hundredths(*x100) : null();
  }

 private:
  json_writer& integer(long long v);
  json_writer& unsigned_integer(unsigned long long v);
  void separate();
  bool in_flat() const { return flat_depth_ != 0 && has_items_.size() >= flat_depth_; }
  void opened();
  void newline(std::size_t depth);
  json_writer& close(char c);
  std::string& out_;
  int indent_ = 0;
  std::vector<bool> has_items_;  // per open container: something written already
  bool after_key_ = false;
  bool flat_next_ = false;      // flat() was called: the next container is flat
  std::size_t flat_depth_ = 0;  // depth of the open flat container; 0: none
};

}  // namespace migplan::cli

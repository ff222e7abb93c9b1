// SPDX-License-Identifier: Apache-2.0
#pragma once

// Errors as values: every failure the CLI reports is one of these, with a
// lowercase message that names the culprit, and the diagnostic it comes from
// where a reader found it in a file (so that the one printer can write it
// as text, JSON or a GitHub annotation: render/diagnostics.hpp).

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "diagnostic.hpp"

namespace migplan::cli {

/// Process exit codes (documented in migplan(1) and each command's man page).
enum exit_code : int {
  exit_ok = 0,         ///< fits / valid
  exit_no_fit = 1,     ///< does not fit / invalid geometry
  exit_bad_input = 2,  ///< bad input or usage
  exit_timed_out = 3,  ///< plan: no answer found within the time limit, none proven impossible
};

/// A user-facing error: its message, and where it is when a reader found it.
struct error {
  error(std::string m) : message(std::move(m)) {}  // NOLINT: implicit by design
  error(const char* m) : message(m) {}             // NOLINT: implicit by design
  /// A diagnostic's error: the message is its text (to_text()).
  explicit error(diagnostic d, column_shown column = column_shown::no)
      : message(to_text(d, column)), where(std::move(d)) {}
  std::string message;              ///< as stderr shows it ("FILE:LINE: ...")
  std::optional<diagnostic> where;  ///< the structured form, for a reader's error
};

/// A value or an error (the member names follow std::expected); the error
/// is a message unless `E` says otherwise (the document layer's readers
/// return a diagnostic).
template <class T, class E = cli::error>
class result {
 public:
  result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  result(E e) : v_(std::move(e)) {}          // NOLINT: implicit by design
  bool has_value() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const E& error() const& { return std::get<1>(v_); }

 private:
  std::variant<T, E> v_;
};

}  // namespace migplan::cli

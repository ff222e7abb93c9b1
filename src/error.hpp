// SPDX-License-Identifier: Apache-2.0
#pragma once

// Errors as values: every failure the CLI reports is one of these, with a
// lowercase message that names the culprit.

#include <string>
#include <utility>
#include <variant>

namespace migplan::cli {

/// Process exit codes (documented in migplan(1) and each command's man page).
enum exit_code : int {
  exit_ok = 0,         ///< fits / valid
  exit_no_fit = 1,     ///< does not fit / invalid geometry
  exit_bad_input = 2,  ///< bad input or usage
  exit_timed_out = 3,  ///< plan: no answer found within the time limit, none proven impossible
};

/// A user-facing error message.
struct error {
  std::string message;
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

// SPDX-License-Identifier: Apache-2.0
#pragma once

// The few string helpers every layer of src/ uses, one definition each:
// readers trim fields and test digits, writers pluralise, and both look a
// profile up by index.

#include <concepts>
#include <migplan/gpu.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace migplan::cli {

/// `s` without the blanks around it: spaces, tabs, carriage returns (a file
/// written on Windows), form feeds, vertical tabs and newlines.
constexpr std::string_view trim(std::string_view s) noexcept {
  constexpr std::string_view blanks = " \t\r\n\f\v";
  const auto b = s.find_first_not_of(blanks);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(blanks) - b + 1);
}

/// True when `s` is one or more ASCII digits (no sign, no blanks).
constexpr bool all_digits(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (const char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

/// "s" unless `n` is 1: "1 gpu", "2 gpus", "1.5 gpus". Any number type, so
/// that a count from size() needs no cast.
template <class N>
requires std::integral<N> || std::floating_point<N>
constexpr std::string_view plural(N n) noexcept { return n == 1 ? "" : "s"; }

/// "a", "a and b", "a, b and c".
inline std::string join_and(const std::vector<std::string>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += i + 1 == v.size() ? " and " : ", ";
    out += v[i];
  }
  return out;
}

/// Profile `p` (an index into `g.profiles`) of model `g`.
constexpr const profile& prof(const gpu_model& g, int p) noexcept {
  return g.profiles[static_cast<std::size_t>(p)];
}

}  // namespace migplan::cli

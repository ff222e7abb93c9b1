// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file strings.hpp
/// Small constexpr string helpers for the core. ASCII only: GPU and profile names are ASCII,
/// and locale-dependent <cctype> is neither constexpr nor wanted here.

#include <cstddef>
#include <string_view>

namespace migplan {
inline namespace v1 {
namespace detail {

/// `c` lowered if it is an ASCII capital letter, otherwise `c` unchanged.
constexpr char ascii_lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
}

/// True when `a` and `b` are equal ignoring ASCII case.
constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

/// True when `s` starts with `prefix`, ignoring ASCII case.
constexpr bool istarts_with(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

}  // namespace detail
}  // namespace v1
}  // namespace migplan

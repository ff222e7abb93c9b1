// SPDX-License-Identifier: Apache-2.0
#pragma once

// GPU costs as exact whole numbers: `--cost` and a fleet file's costs are
// decimals; the planner works on them as integer multiples of one unit
// (2.5 and 1 are 5 and 2 units of 0.5), so that no cost is too small or too
// fine for the solver's tolerances and the total is printed exactly as the
// costs were typed (75597.3, never 75597.29999998256). Shared by the
// command (which refuses costs too fine to scale), the solver and the
// report.

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace migplan::cli {

/// The most units a cost may be: integer costs up to 10^6 keep every plan's
/// total (10^7 GPUs at most) exact in the solver's doubles.
inline constexpr long long max_cost_units = 1'000'000;

/// Costs as whole multiples of a unit: cost_m = units[m] * unit_digits * 10^unit_exp10.
struct cost_scale {
  std::vector<long long> units;  ///< per cost, its whole number of units (>= 1)
  long long unit_digits = 1;     ///< the unit's significant digits
  int unit_exp10 = 0;            ///< and its power of ten
};

/// A positive finite double as the shortest decimal that reads back to it:
/// digits * 10^exp10. Unset for 0, negatives and non-finite values.
inline std::optional<std::pair<long long, int>> shortest_decimal(double v) {
  if (!(v > 0) || v > 1e300) return std::nullopt;
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  if (r.ec != std::errc{}) return std::nullopt;
  const std::string s(buf, r.ptr);  // "7.55973e+04"
  const std::size_t e = s.find('e');
  long long digits = 0;
  int frac = 0;
  bool after_point = false;
  for (std::size_t i = 0; i < e; ++i) {
    if (s[i] == '.') {
      after_point = true;
      continue;
    }
    digits = digits * 10 + (s[i] - '0');
    if (after_point) ++frac;
  }
  const int exp10 = std::stoi(s.substr(e + 1)) - frac;
  return std::pair{digits, exp10};
}

/// The costs as whole units of their greatest common unit; unset when one is
/// not positive, or when the largest would be more than max_cost_units
/// units (costs that differ by more than six digits of precision together).
inline std::optional<cost_scale> scale_costs(const std::vector<double>& costs) {
  std::vector<std::pair<long long, int>> dec;
  for (double c : costs) {
    const auto d = shortest_decimal(c);
    if (!d) return std::nullopt;
    dec.push_back(*d);
  }
  cost_scale out;
  if (dec.empty()) return out;
  int low = dec.front().second;
  for (const auto& d : dec) low = std::min(low, d.second);
  std::vector<long long> whole;
  long long g = 0;
  for (const auto& [digits, e] : dec) {
    long long v = digits;
    for (int k = low; k < e; ++k) {
      if (v > max_cost_units * 1'000'000'000LL) return std::nullopt;
      v *= 10;
    }
    whole.push_back(v);
    g = std::gcd(g, v);
  }
  out.unit_exp10 = low;
  out.unit_digits = g;
  // The unit's digits without trailing zeros, moved into its exponent.
  while (out.unit_digits % 10 == 0) {
    out.unit_digits /= 10;
    ++out.unit_exp10;
  }
  for (long long v : whole) {
    if (v / g > max_cost_units) return std::nullopt;
    out.units.push_back(v / g);
  }
  return out;
}

/// `units` units of `s`, exactly, as a decimal without trailing zeros: "75597.3".
inline std::string cost_decimal(long long units, const cost_scale& s) {
  __extension__ typedef unsigned __int128 wide;
  wide v = static_cast<wide>(units < 0 ? -units : units) * static_cast<wide>(s.unit_digits);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v > 0);
  if (s.unit_exp10 >= 0) {
    if (digits != "0") digits.append(static_cast<std::size_t>(s.unit_exp10), '0');
  } else {
    const auto frac = static_cast<std::size_t>(-s.unit_exp10);
    if (digits.size() <= frac) digits.insert(0, frac - digits.size() + 1, '0');
    digits.insert(digits.size() - frac, ".");
    while (digits.back() == '0') digits.pop_back();
    if (digits.back() == '.') digits.pop_back();
  }
  return units < 0 ? "-" + digits : digits;
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#include "plan/certify.hpp"

#include <cmath>
#include <cstdint>

namespace migplan::cli::plan {

namespace {

// The duals are scaled to integers over this denominator: lcm(1..16) times
// 2^12, so that duals with small denominators (1/7 of a GPU per 1g
// instance) are exact and the others lose less than 2^-12 / 720720 each.
constexpr long long denominator = 720720LL * 4096;
// Bounds at or beyond this are infinite (the planner's infinity is 1e30).
constexpr double infinite = 1e15;

bool whole(double v) { return std::abs(v) < infinite && v == std::floor(v); }

// ceil(a / b) for b > 0.
wide ceil_div(wide a, wide b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

}  // namespace

std::optional<long long> integer_bound(const mip& prog, const std::vector<double>& duals,
                                       const std::vector<double>& upper) {
  const int n = prog.var_count();
  if (duals.size() != static_cast<std::size_t>(prog.row_count())) return std::nullopt;
  const double sense = prog.maximize() ? -1.0 : 1.0;
  // sum_r pi_r * rhs_r + sum_j min over [lb_j, ub_j] of d_j x_j, with
  // d_j = c_j - sum_r pi_r a_rj: for every integer point x of the program,
  // c.x >= that, whatever pi is (weak duality with each row's pi read as
  // its lower side when positive, its upper side when negative).
  std::vector<wide> reduced(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    const double c = sense * prog.objective()[static_cast<std::size_t>(j)];
    if (!whole(c) || !prog.is_integer(j)) return std::nullopt;
    reduced[static_cast<std::size_t>(j)] = static_cast<wide>(c) * denominator;
  }
  wide total = 0;
  for (int r = 0; r < prog.row_count(); ++r) {
    const double pi = duals[static_cast<std::size_t>(r)];
    if (!std::isfinite(pi) || std::abs(pi) > 1e9) continue;
    auto scaled = static_cast<wide>(std::llround(pi * static_cast<double>(denominator)));
    const auto& coeffs = prog.row_coeffs(r);
    bool integral = true;
    for (const auto& [v, a] : coeffs) integral = integral && whole(a);
    if (!integral) continue;  // a row left out (dual 0) proves less, never wrongly
    // A row of whole coefficients over integer variables holds at its bounds
    // rounded inwards.
    const double lb = prog.row_lower(r), ub = prog.row_upper(r);
    if (scaled > 0 && lb > -infinite)
      total += scaled * static_cast<wide>(std::ceil(lb));
    else if (scaled < 0 && ub < infinite)
      total += scaled * static_cast<wide>(std::floor(ub));
    else
      continue;
    for (const auto& [v, a] : coeffs)
      reduced[static_cast<std::size_t>(v)] -= scaled * static_cast<wide>(a);
  }
  for (int j = 0; j < n; ++j) {
    const wide d = reduced[static_cast<std::size_t>(j)];
    if (d == 0) continue;
    double lo = prog.lower(j), hi = prog.upper(j);
    if (static_cast<std::size_t>(j) < upper.size())
      hi = std::min(hi, upper[static_cast<std::size_t>(j)]);
    if (d > 0) {
      if (lo <= -infinite) return std::nullopt;
      total += d * static_cast<wide>(std::ceil(lo));
    } else {
      if (hi >= infinite) return std::nullopt;
      total += d * static_cast<wide>(std::floor(hi));
    }
  }
  const wide bound = ceil_div(total, denominator);
  constexpr wide most = static_cast<wide>(INT64_MAX);
  if (bound > most || bound < -most) return std::nullopt;
  return static_cast<long long>(bound);
}

}  // namespace migplan::cli::plan

// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file rules.hpp
/// The feasibility rules, each with its source:
///  1. No two instances share a placement unit (NVML: a GPU instance owns the
///     memory slices `{start, size}` of its placement; `-lgipp`).
///  2. An instance starts only at an allowed start of its profile (`-lgipp`).
///  3. At most `max_instances` instances of a profile ("Total" of `-lgip` on an
///     empty GPU; e.g. one `+me` instance).
///  4. The compute slices ("g") of all instances sum to at most the GPU's
///     (MIG user guide, concepts: compute and memory are separate budgets).
///  5. Each kind of copy/media engine (CE, DEC, ENC, JPG, OFA) sums to at most
///     the full-GPU profile's count, where that budget is known and consistent
///     (see engine_limits). This is what keeps a `+me` instance and an A30
///     `2g.12gb+me` apart, and RTX PRO `+me.all` with only `-me` profiles
///     (nvml.h: ALL_ME "prevents allocation of all but _NO_ME profiles").

#include <array>
#include <bit>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <optional>

namespace migplan {
inline namespace v1 {

/// Per-kind engine budgets of a model; an empty optional is not enforced.
using engine_limits = std::array<std::optional<int>, engine_kinds>;

/// The engine budgets rule 5 enforces. A kind is enforced only when
///  - the full-GPU profile's count is known,
///  - every profile's count of that kind is known, and
///  - the budget is consistent with the instance caps: every profile at its
///    own cap stays within it (the driver reports each cap as reachable on an
///    empty GPU, so a budget that contradicts one is a table artefact, as the
///    docs' NVDEC=1 for B200 7g.180gb against seven 1g.23gb with one each).
constexpr engine_limits engine_budgets(const gpu_model& gpu) noexcept {
  engine_limits out{};
  const profile* full = nullptr;
  for (const profile& p : gpu.profiles)
    if (p.size == gpu.units && p.compute_slices == gpu.compute_slices) {
      full = &p;
      break;
    }
  if (full == nullptr) return out;
  for (std::size_t e = 0; e < engine_kinds; ++e) {
    if (!full->engines[e]) continue;
    const int budget = *full->engines[e];
    bool ok = true;
    for (const profile& p : gpu.profiles)
      if (!p.engines[e] || p.max_instances * *p.engines[e] > budget) ok = false;
    if (ok) out[e] = budget;
  }
  return out;
}

/// What a set of instances uses: the running totals the rules are checked on.
struct usage {
  profile_counts counts{};                  ///< instances per profile
  unit_mask units = 0;                      ///< occupied units
  int compute = 0;                          ///< compute slices
  std::array<int, engine_kinds> engines{};  ///< engines per kind (known counts only)

  /// Records an instance (no checks).
  constexpr void add(const profile& p, int index, int start) noexcept {
    ++counts[index];
    units |= p.mask_at(start);
    compute += p.compute_slices;
    for (std::size_t e = 0; e < engine_kinds; ++e) engines[e] += p.engines[e].value_or(0);
  }
  /// Undoes add().
  constexpr void remove(const profile& p, int index, int start) noexcept {
    --counts[index];
    units &= ~p.mask_at(start);
    compute -= p.compute_slices;
    for (std::size_t e = 0; e < engine_kinds; ++e) engines[e] -= p.engines[e].value_or(0);
  }
};

/// Context for checking rules on one model: the model and its engine budgets.
struct rules {
  const gpu_model* gpu = nullptr;  ///< the model
  engine_limits budgets{};         ///< from engine_budgets()

  /// Builds the rules of a model.
  constexpr explicit rules(const gpu_model& g) noexcept : gpu(&g), budgets(engine_budgets(g)) {}

  /// True when profile `p` can be added at `start` to `u` under rules 1 to 5.
  constexpr bool can_add(const usage& u, int p, int start) const noexcept {
    const profile& pr = gpu->profiles[static_cast<std::size_t>(p)];
    if (!pr.allows_start(start) || start + pr.size > gpu->units) return false;
    if ((u.units & pr.mask_at(start)) != 0) return false;
    return fits_totals(u, p);
  }
  /// True when one more instance of `p` keeps rules 3 to 5 (units not checked).
  constexpr bool fits_totals(const usage& u, int p) const noexcept {
    const profile& pr = gpu->profiles[static_cast<std::size_t>(p)];
    if (u.counts[p] + 1 > pr.max_instances) return false;
    if (u.compute + pr.compute_slices > gpu->compute_slices) return false;
    for (std::size_t e = 0; e < engine_kinds; ++e)
      if (budgets[e] && u.engines[e] + pr.engines[e].value_or(0) > *budgets[e]) return false;
    return true;
  }
};

/// Number of units in a mask.
constexpr int unit_count(unit_mask m) noexcept { return std::popcount(m); }

}  // namespace v1
}  // namespace migplan

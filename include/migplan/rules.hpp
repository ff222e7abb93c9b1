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
///
/// Each rule is defined once, in `rules`, for both the searches' incremental
/// checks and check_totals() on whole requests; for_each_extension() is the
/// one walk over the sets of placements the rules allow.

#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <optional>
#include <span>

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
  const int full_index = full_profile(gpu);
  if (full_index < 0) return out;
  const profile& full = gpu.profiles[static_cast<std::size_t>(full_index)];
  for (std::size_t e = 0; e < engine_kinds; ++e) {
    if (!full.engines[e]) continue;
    const int budget = *full.engines[e];
    bool ok = true;
    for (const profile& p : gpu.profiles)
      if (!p.engines[e] || p.max_instances * *p.engines[e] > budget) ok = false;
    if (ok) out[e] = budget;
  }
  return out;
}

namespace detail {
// a + b, clamped to the range of long long rather than wrapped: a clamped
// total still breaks every limit it broke, so the verdict stays exact.
constexpr long long saturating_add(long long a, long long b) noexcept {
  constexpr long long hi = std::numeric_limits<long long>::max();
  constexpr long long lo = std::numeric_limits<long long>::min();
  if (b > 0 && a > hi - b) return hi;
  if (b < 0 && a < lo - b) return lo;
  return a + b;
}
}  // namespace detail

/// Sums over a multiset of instances: what rules 4 and 5, and the unit total
/// that rule 1 implies, are checked on. Wide, because a request may hold any
/// number of instances: n instances of a profile (n an int) sum exactly in a
/// long long, and totals_of() clamps the sum of such terms.
struct totals {
  long long units = 0;                            ///< placement units, summed over instances
  long long compute = 0;                          ///< compute slices
  std::array<long long, engine_kinds> engines{};  ///< engines per kind (known counts only)

  /// Adds `n` instances of `p` (a negative `n` takes them away). Plain
  /// arithmetic, as it is on the searches' hot path: exact from empty totals,
  /// and for a usage, which never holds more than a layout's instances.
  constexpr void add(const profile& p, int n) noexcept {
    const long long k = n;
    units += k * p.size;
    compute += k * p.compute_slices;
    for (std::size_t e = 0; e < engine_kinds; ++e) engines[e] += k * p.engines[e].value_or(0);
  }
  /// Adds `other`, clamping each sum to the range of long long instead of
  /// wrapping.
  constexpr void merge(const totals& other) noexcept {
    units = detail::saturating_add(units, other.units);
    compute = detail::saturating_add(compute, other.compute);
    for (std::size_t e = 0; e < engine_kinds; ++e)
      engines[e] = detail::saturating_add(engines[e], other.engines[e]);
  }
};

/// Totals of `counts[p]` instances of each profile p of `gpu`, for any counts.
constexpr totals totals_of(const gpu_model& gpu, const profile_counts& counts) noexcept {
  assert(gpu.profiles.size() <= static_cast<std::size_t>(max_profiles));
  totals t;
  for (std::size_t p = 0; p < gpu.profiles.size(); ++p) {
    // A request names few profiles: skipping the absent ones keeps this off
    // `pack --batch`'s profile.
    const int n = counts[static_cast<int>(p)];
    if (n == 0) continue;
    totals one;
    one.add(gpu.profiles[p], n);
    t.merge(one);
  }
  return t;
}

/// What a set of instances uses: the running totals the rules are checked on.
struct usage {
  profile_counts counts{};  ///< instances per profile
  unit_mask units = 0;      ///< occupied units
  totals sums{};            ///< units, compute slices and engines, summed

  /// Records an instance (no checks).
  constexpr void add(const profile& p, int index, int start) noexcept {
    ++counts[index];
    units |= p.mask_at(start);
    sums.add(p, 1);
  }
  /// Undoes add().
  constexpr void remove(const profile& p, int index, int start) noexcept {
    --counts[index];
    units &= ~p.mask_at(start);
    sums.add(p, -1);
  }
};

/// The aggregate rules (those on totals), in the order they are checked.
enum class aggregate : std::uint8_t {
  none,     ///< every aggregate rule holds
  units,    ///< the units sum to more than the GPU's (implied by rule 1)
  compute,  ///< rule 4
  engines,  ///< rule 5
};

/// The first aggregate rule a set of totals breaks, with the evidence.
struct breach {
  aggregate rule = aggregate::none;  ///< aggregate::none when all hold
  int engine = -1;                   ///< engine kind, for aggregate::engines
  long long needed = 0;              ///< the total that is over its limit
  int available = 0;                 ///< the limit
};

/// Context for checking rules on one model: the model and its engine budgets.
/// Each rule on counts and totals has its one definition here (within_cap(),
/// within_units(), within_compute(), within_engine()), used alike by the
/// incremental checks of the searches and by check_totals() on whole requests.
struct rules {
  const gpu_model* gpu = nullptr;  ///< the model
  engine_limits budgets{};         ///< from engine_budgets()

  /// Builds the rules of a model.
  constexpr explicit rules(const gpu_model& g) noexcept : gpu(&g), budgets(engine_budgets(g)) {}

  /// Profile `p` of the model; `p` must be a valid index.
  constexpr const profile& profile_at(int p) const noexcept {
    assert(p >= 0 && static_cast<std::size_t>(p) < gpu->profiles.size());
    return gpu->profiles[static_cast<std::size_t>(p)];
  }
  /// Rule 3: true when `n` instances of profile `p` are within its cap.
  static constexpr bool within_cap(const profile& p, long long n) noexcept {
    return n <= p.max_instances;
  }
  /// Rule 1 on totals: instances that sum to more units than the GPU has
  /// cannot all be placed (where they go is checked on unit masks).
  constexpr bool within_units(long long units) const noexcept { return units <= gpu->units; }
  /// Rule 4: true when `slices` compute slices are within the GPU's.
  constexpr bool within_compute(long long slices) const noexcept {
    return slices <= gpu->compute_slices;
  }
  /// Rule 5: true when `n` engines of kind `e` are within its budget, if enforced.
  constexpr bool within_engine(std::size_t e, long long n) const noexcept {
    return !budgets[e] || n <= *budgets[e];
  }
  /// The first aggregate rule `t` breaks: units, then compute (rule 4), then
  /// each enforced engine kind in order (rule 5).
  constexpr breach first_breach(const totals& t) const noexcept {
    if (!within_units(t.units)) return {aggregate::units, -1, t.units, gpu->units};
    if (!within_compute(t.compute)) return {aggregate::compute, -1, t.compute, gpu->compute_slices};
    for (std::size_t e = 0; e < engine_kinds; ++e)
      if (!within_engine(e, t.engines[e]))
        return {aggregate::engines, static_cast<int>(e), t.engines[e], *budgets[e]};
    return {};
  }
  /// True when profile `p` can be added at `start` to `u` under rules 1 to 5.
  constexpr bool can_add(const usage& u, int p, int start) const noexcept {
    const profile& pr = profile_at(p);
    if (!pr.allows_start(start) || start + pr.size > gpu->units) return false;
    if ((u.units & pr.mask_at(start)) != 0) return false;
    return fits_totals(u, p);
  }
  /// True when one more instance of `p` keeps rules 3 to 5. Units are
  /// can_add()'s: its mask check implies the unit total. This is the
  /// searches' hot path, so each total is checked in place instead of
  /// building the next totals for first_breach().
  constexpr bool fits_totals(const usage& u, int p) const noexcept {
    const profile& pr = profile_at(p);
    if (!within_cap(pr, static_cast<long long>(u.counts[p]) + 1)) return false;
    if (!within_compute(u.sums.compute + pr.compute_slices)) return false;
    for (std::size_t e = 0; e < engine_kinds; ++e)
      if (!within_engine(e, u.sums.engines[e] + pr.engines[e].value_or(0))) return false;
    return true;
  }
};

namespace detail {
// One step of for_each_extension: visits `u`, then each placement from index
// `next` on that can join it, recursively. `chosen[0, depth)` holds the
// placements added so far; every placement takes a unit, so depth stays
// below max_units.
template <class Visit>
void extend(const rules& r, std::span<const instance> places, std::size_t next, usage& u,
            std::array<std::size_t, max_units>& chosen, std::size_t depth, Visit& visit) {
  visit(static_cast<const usage&>(u), std::span<const std::size_t>(chosen.data(), depth));
  for (std::size_t i = next; i < places.size(); ++i) {
    const instance pl = places[i];
    if (!r.can_add(u, pl.profile, pl.start)) continue;
    const profile& p = r.profile_at(pl.profile);
    assert(depth < chosen.size() && "a placement that takes no unit");
    u.add(p, pl.profile, pl.start);
    chosen[depth] = i;
    extend(r, places, i + 1, u, chosen, depth + 1, visit);
    u.remove(p, pl.profile, pl.start);
  }
}
}  // namespace detail

/// Calls visit(const usage& u, std::span<const std::size_t> chosen) once for
/// every set of further placements from `places` that can join `from` under
/// the rules, the empty set first: `chosen` holds the set's indices into
/// `places` in increasing order and `u` is `from` with the set added.
/// Placements are added depth first in increasing index order, so each set is
/// reached along one path only; every rule is monotone (a subset of a valid
/// set is valid), so pruning a branch at the first rule it breaks loses none.
/// The one walk behind room_of(), room_memo and enumerate(); it is on their
/// hot path, so the visitor is a template argument, inlined.
template <class Visit>
void for_each_extension(const rules& r, std::span<const instance> places, usage from,
                        Visit&& visit) {
  std::array<std::size_t, max_units> chosen{};
  detail::extend(r, places, 0, from, chosen, 0, visit);
}

/// Number of units in a mask.
constexpr int unit_count(unit_mask m) noexcept { return std::popcount(m); }

}  // namespace v1
}  // namespace migplan

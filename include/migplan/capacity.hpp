// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file capacity.hpp
/// What a layout leaves: free, reachable and stranded capacity, and what can
/// still be added. "Reachable" is exact: the most that any further set of
/// instances, placed under all the rules, could claim from here.

#include <cstdint>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/rules.hpp>
#include <optional>
#include <vector>

namespace migplan {
inline namespace v1 {

/// Room left by a layout.
struct room {
  int free_units = 0;            ///< units no instance occupies
  int free_compute = 0;          ///< compute slices no instance uses
  int reachable_units = 0;       ///< most extra units any further instances can occupy
  int reachable_compute = 0;     ///< most extra compute slices any further instances can use
  std::uint64_t extensions = 0;  ///< distinct non-empty sets of further instances
  unit_mask free_mask = 0;       ///< the free units
  unit_mask reachable_mask = 0;  ///< units some further instance can occupy
};

/// Capacity a layout strands: free but unreachable.
struct stranded {
  int units = 0;           ///< free units no further instance can use
  int compute_slices = 0;  ///< free compute slices no further instance can use
  /// The stranded units' memory in GiB x 100, from the full-GPU profile's
  /// memory split evenly over the units; empty when that is unknown.
  std::optional<int> memory_gib_x100;
};

/// A profile that can still be created next to a layout.
struct addable {
  int profile = 0;       ///< index into gpu_model::profiles
  unit_mask starts = 0;  ///< starts where one more instance fits now
  int max_more = 0;      ///< most further instances of this profile alone
};

/// All placements (profile, start) of a model, in profile then start order.
inline std::vector<instance> all_placements(const gpu_model& gpu) {
  std::vector<instance> out;
  for (std::size_t p = 0; p < gpu.profiles.size(); ++p)
    for (int s = 0; s < gpu.units; ++s)
      if (gpu.profiles[p].allows_start(s)) out.push_back({static_cast<int>(p), s});
  return out;
}

/// Usage of a layout.
constexpr usage usage_of(const gpu_model& gpu, const layout& l) noexcept {
  usage u;
  for (const instance& in : l)
    u.add(gpu.profiles[static_cast<std::size_t>(in.profile)], in.profile, in.start);
  return u;
}

namespace detail {
// Depth-first over placement indices in increasing order, so each set of
// further instances is visited exactly once.
inline void extend(const rules& r, const std::vector<instance>& places, std::size_t from, usage& u,
                   unit_mask base, int compute0, room& out) {
  ++out.extensions;
  const unit_mask added = u.units & ~base;
  out.reachable_mask |= added;
  if (unit_count(added) > out.reachable_units) out.reachable_units = unit_count(added);
  if (u.compute - compute0 > out.reachable_compute) out.reachable_compute = u.compute - compute0;
  for (std::size_t i = from; i < places.size(); ++i) {
    const instance pl = places[i];
    if (!r.can_add(u, pl.profile, pl.start)) continue;
    const profile& p = r.gpu->profiles[static_cast<std::size_t>(pl.profile)];
    u.add(p, pl.profile, pl.start);
    extend(r, places, i + 1, u, base, compute0, out);
    u.remove(p, pl.profile, pl.start);
  }
}
}  // namespace detail

/// Exact room left by `l` on `gpu` (exhaustive over further instance sets).
inline room room_of(const gpu_model& gpu, const rules& r, const std::vector<instance>& places,
                    const layout& l) {
  usage u = usage_of(gpu, l);
  const int compute0 = u.compute;
  room out;
  out.free_mask = gpu.all_units() & ~u.units;
  out.free_units = unit_count(out.free_mask);
  out.free_compute = gpu.compute_slices - u.compute;
  detail::extend(r, places, 0, u, u.units, compute0, out);
  --out.extensions;  // extend() also counted the empty set
  return out;
}

/// Exact room left by `l` on `gpu`.
inline room room_of(const gpu_model& gpu, const layout& l) {
  return room_of(gpu, rules(gpu), all_placements(gpu), l);
}

/// Stranded capacity: free minus reachable.
inline stranded stranded_of(const gpu_model& gpu, const room& rm) {
  stranded s;
  s.units = rm.free_units - rm.reachable_units;
  s.compute_slices = rm.free_compute - rm.reachable_compute;
  for (const profile& p : gpu.profiles)
    if (p.size == gpu.units && p.memory_gib_x100) {
      s.memory_gib_x100 = (*p.memory_gib_x100 * s.units + gpu.units / 2) / gpu.units;
      break;
    }
  return s;
}

/// Every profile that can still be created next to `l`, with its starts and
/// how many more of it alone fit. Greedy leftmost placement is exact for
/// max_more: instances of one profile all have the same size, so taking the
/// earliest free start never blocks more than it frees (interval scheduling),
/// and rules 3 to 5 depend only on the count.
inline std::vector<addable> addable_to(const gpu_model& gpu, const rules& r, const layout& l) {
  const usage base = usage_of(gpu, l);
  std::vector<addable> out;
  for (std::size_t pi = 0; pi < gpu.profiles.size(); ++pi) {
    const int p = static_cast<int>(pi);
    addable a{p, 0, 0};
    for (int s = 0; s < gpu.units; ++s)
      if (r.can_add(base, p, s)) a.starts |= unit_mask{1} << s;
    if (a.starts == 0) continue;
    usage u = base;
    for (int s = 0; s < gpu.units; ++s)
      if (r.can_add(u, p, s)) {
        u.add(gpu.profiles[pi], p, s);
        ++a.max_more;
      }
    out.push_back(a);
  }
  return out;
}

/// The preference score of a layout: more reachable units, then more
/// reachable compute, then more distinct ways to grow. Higher is better.
struct score {
  int reachable_units = 0;       ///< see room
  int reachable_compute = 0;     ///< see room
  std::uint64_t extensions = 0;  ///< see room
  friend constexpr auto operator<=>(const score&, const score&) = default;
};

/// The score of a room.
constexpr score score_of(const room& r) noexcept {
  return {r.reachable_units, r.reachable_compute, r.extensions};
}

}  // namespace v1
}  // namespace migplan

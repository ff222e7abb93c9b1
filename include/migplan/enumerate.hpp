// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file enumerate.hpp
/// Every feasible geometry of a model: each multiset of profiles that has at
/// least one layout, with its number of distinct layouts and whether it is
/// maximal (no further instance of any profile can be added to it).

#include <algorithm>
#include <cstdint>
#include <map>
#include <migplan/capacity.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/rules.hpp>
#include <vector>

namespace migplan {
inline namespace v1 {

/// One feasible geometry.
struct geometry {
  profile_counts counts;           ///< instances per profile
  std::uint64_t layout_count = 0;  ///< distinct layouts
  bool maximal = false;            ///< no profile can be added
};

/// All geometries of a model and their totals.
struct geometry_set {
  std::vector<geometry> geometries;  ///< non-empty geometries, by instance count, then counts
  std::uint64_t layout_count = 0;    ///< layouts of those geometries, summed
  std::size_t maximal_count = 0;     ///< maximal geometries
};

namespace detail {
inline void walk(const rules& r, const std::vector<instance>& places, std::size_t from, usage& u,
                 std::map<profile_counts, std::uint64_t>& seen) {
  ++seen[u.counts];
  for (std::size_t i = from; i < places.size(); ++i) {
    const instance pl = places[i];
    if (!r.can_add(u, pl.profile, pl.start)) continue;
    const profile& p = r.gpu->profiles[static_cast<std::size_t>(pl.profile)];
    u.add(p, pl.profile, pl.start);
    walk(r, places, i + 1, u, seen);
    u.remove(p, pl.profile, pl.start);
  }
}
}  // namespace detail

/// Enumerates every layout of the model once (sets of placements in index
/// order) and groups them by geometry. A geometry is maximal when adding one
/// instance of any profile gives a geometry with no layout.
inline geometry_set enumerate(const gpu_model& gpu) {
  const rules r(gpu);
  std::map<profile_counts, std::uint64_t> seen;
  usage u;
  detail::walk(r, all_placements(gpu), 0, u, seen);
  geometry_set out;
  for (const auto& [counts, n] : seen) {
    if (counts.total() == 0) continue;
    geometry g{counts, n, true};
    for (int p = 0; p < static_cast<int>(gpu.profiles.size()) && g.maximal; ++p) {
      profile_counts more = counts;
      ++more[p];
      if (seen.count(more) != 0) g.maximal = false;
    }
    out.layout_count += n;
    out.maximal_count += g.maximal ? 1 : 0;
    out.geometries.push_back(g);
  }
  std::stable_sort(out.geometries.begin(), out.geometries.end(),
                   [](const geometry& a, const geometry& b) {
                     if (a.counts.total() != b.counts.total())
                       return a.counts.total() < b.counts.total();
                     return a.counts > b.counts;
                   });
  return out;
}

}  // namespace v1
}  // namespace migplan

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
#include <span>
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

/// Enumerates every layout of the model once (sets of placements in index
/// order) and groups them by geometry. A geometry is maximal when adding one
/// instance of any profile gives a geometry with no layout.
inline geometry_set enumerate(const gpu_model& gpu) {
  const std::vector<instance> places = all_placements(gpu);
  std::map<profile_counts, std::uint64_t> seen;
  for_each_extension(rules(gpu), places, usage{},
                     [&](const usage& u, std::span<const std::size_t>) { ++seen[u.counts]; });
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

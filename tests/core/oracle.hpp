// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file oracle.hpp
/// A deliberately naive reference planner for differential tests. It shares no
/// code with the search: it sees only the data model (gpu.hpp) and the standard
/// library, re-implements the rules of rules.hpp from their documentation, and
/// enumerates placements the slow way (every instance at every allowed start,
/// duplicates removed by a std::set). Slow is the point: it is easy to read.

#include <cstdint>
#include <map>
#include <migplan/gpu.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace oracle {

/// One placed instance as (start unit, profile index).
using placed = std::pair<int, int>;
/// A layout: its placed instances in increasing (start, profile) order.
using layout_set = std::vector<placed>;
/// Instances per profile index (index = position in gpu_model::profiles).
using counts = std::vector<int>;

/// An instance whose start the request fixes.
struct pin {
  int profile = 0;  ///< profile index
  int start = 0;    ///< the pinned start unit
};

/// What the oracle found for one request. The flags are independent checks,
/// all evaluated; `layouts` is filled only when caps, compute and engines pass.
struct verdict {
  bool over_cap = false;         ///< some profile has more instances than max_instances
  bool bad_pin = false;          ///< some pin is not an allowed start of its profile
  bool over_units = false;       ///< the sizes sum to more than gpu.units
  bool over_compute = false;     ///< the compute slices sum to more than gpu.compute_slices
  bool over_engines = false;     ///< an enforced engine budget is exceeded
  int over_engine_kind = -1;     ///< the first engine kind over its budget, or -1
  std::set<layout_set> layouts;  ///< every distinct layout
  /// True when at least one layout exists.
  bool feasible() const { return !layouts.empty(); }
};

/// Per-kind engine budgets (CE, DEC, ENC, JPG, OFA), -1 where not enforced:
/// the full-GPU profile's count, enforced only if known, if every profile's
/// count of that kind is known, and if every profile at its cap stays within it.
std::vector<int> engine_budgets(const migplan::gpu_model& gpu);

/// Checks and enumerates a request: `n[p]` free instances of profile p plus
/// the pinned ones (caps count both).
verdict solve(const migplan::gpu_model& gpu, const counts& n, const std::vector<pin>& pins = {});

/// Every count vector with 0 <= n[p] <= max_instances that has a layout
/// (the empty one included), with all its layouts.
std::map<counts, std::set<layout_set>> all_layouts(const migplan::gpu_model& gpu);

/// Every count vector up to the caps that has a layout (the empty one
/// included), with its number of distinct layouts.
std::map<counts, std::uint64_t> all_geometries(const migplan::gpu_model& gpu);

/// Readable form of a request, e.g. "2x1g.5gb 3g.20gb 1g.5gb@6"; "(empty)" for none.
std::string describe(const migplan::gpu_model& gpu, const counts& n,
                     const std::vector<pin>& pins = {});

/// Readable form of a layout, e.g. "4g.20gb@0 2g.10gb@4"; "(empty)" for none.
std::string describe(const migplan::gpu_model& gpu, const layout_set& l);

}  // namespace oracle

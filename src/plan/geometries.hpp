// SPDX-License-Identifier: Apache-2.0
#pragma once

// The planner's view of a model: every geometry with its preferred layout
// and room value (kept in a cache a solver owns), the profile that serves a
// demand item, and the compute-instance patterns of a GPU instance.

#include <map>
#include <memory>
#include <migplan/capacity.hpp>
#include <migplan/compute.hpp>
#include <migplan/gpu.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/plan.hpp"

namespace migplan::cli::plan::detail {

/// One geometry of a model: its counts, its preferred layout and its room value.
struct config {
  profile_counts counts;
  layout where;      ///< the search's first (best-scored) layout
  long long room{};  ///< room_value of that layout
};

/// Every geometry of a model, the empty one first.
struct model_configs {
  std::vector<config> configs;
  std::map<profile_counts, int> index;  ///< counts -> index into configs
};

/// The geometries of the models a solver has seen, each built once. Keyed by
/// what the geometries depend on (structure_key), not by the model's address:
/// a model read from a file and freed can leave its address to another model
/// with another table, which must not get the first's geometries. Not safe to
/// share between threads: one solver per thread.
class geometry_cache {
 public:
  /// The geometries of `gpu`, built on first use.
  const model_configs& of(const gpu_model& gpu);

 private:
  std::map<std::string, std::unique_ptr<model_configs>> by_structure_;
};

/// What a model's geometries depend on: its units and compute slices, and
/// each profile's name, size, slices, starts, cap and engines.
std::string structure_key(const gpu_model& gpu);

/// The profile of `gpu` that serves `d`: its `resolved` one, the named one,
/// or the smallest meeting the need as `migplan fit` sizes it; -1 when none.
int serving_profile(const gpu_model& gpu, const demand_item& d);

/// For an item named by a compute-instance profile ("1c.3g.20gb"): the GI
/// profile of `gpu` whose CIs include it and the CI's index there; {-1, -1}
/// when none. A name that is a GI profile is never a CI item.
std::pair<int, int> serving_ci(const gpu_model& gpu, const demand_item& d);

/// A CI pattern of a GI profile: a non-empty multiset of its CI profiles
/// that fits one GI, with its preferred CI layout.
struct ci_pattern {
  std::vector<int> counts;  ///< per CI profile of the GI
  std::vector<ci_instance> where;
};

/// Every CI pattern of `gi`.
std::vector<ci_pattern> ci_patterns(const profile& gi);

}  // namespace migplan::cli::plan::detail

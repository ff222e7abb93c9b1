// SPDX-License-Identifier: Apache-2.0
#pragma once

// Helpers shared by the planner's tests: requests, and checks of a result
// that use only the core (never the solver's code).

#include <catch2/catch.hpp>
#include <migplan/capacity.hpp>
#include <migplan/catalog.hpp>
#include <migplan/compute.hpp>
#include <migplan/search.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/plan.hpp"
#include "plan/solver.hpp"

namespace plan_test {

using namespace migplan;
using namespace migplan::cli;

inline const gpu_model* gpu(std::string_view slug) {
  const gpu_model* g = find_model(slug);
  REQUIRE(g != nullptr);
  return g;
}

inline demand_item want(std::string name, long long count) {
  demand_item d;
  d.name = name;
  d.profile = name;
  d.count = count;
  return d;
}

// What lower_bound, gap, optimal and status mean (doc/plan.md "What is
// proven"), on every plan the tests make: the bound never above the cost,
// the gap (cost - lower_bound) / cost (0 for a cost of 0), optimal exactly
// when the gap is 0, the headline's per-model GPUs adding up to gpu_count,
// and a status that agrees with feasible.
inline void check_bounds(const plan_result& res) {
  CHECK(res.lower_bound_units <= res.cost_units);
  CHECK(res.lower_bound <= res.cost);
  CHECK(res.lower_bound >= 0);
  const double gap = res.cost_units > 0
                         ? static_cast<double>(res.cost_units - res.lower_bound_units) /
                               static_cast<double>(res.cost_units)
                         : 0.0;
  CHECK(res.gap == Approx(gap).margin(1e-12));
  if (res.status == plan_status::timed_out && res.groups.empty()) {
    // Cut short before any plan was found: nothing is proven, cost 0, gap 0.
    CHECK_FALSE(res.optimal);
    CHECK(res.cost_units == 0);
  } else {
    CHECK(res.optimal == (res.lower_bound_units == res.cost_units));
    CHECK(res.optimal == (res.gap == 0));
  }
  long long per_model = 0;
  for (const auto& [g, n] : res.gpus_per_model) per_model += n;
  CHECK(per_model == res.gpu_count);
  CHECK(res.feasible ==
        (res.status == plan_status::optimal || res.status == plan_status::feasible));
  CHECK(res.changes_lower_bound <= static_cast<long long>(res.changes.size()));
}

// Every group is a legal layout at its starts, and each item's instances are
// served exactly `count - missing` times by instances of a profile that can
// serve it (the named one, for named items).
inline void check_plan(const plan_request& req, const plan_result& res) {
  std::vector<long long> served(req.demand.size(), 0);
  for (const plan_group& g : res.groups) {
    REQUIRE(g.gpu != nullptr);
    REQUIRE(g.count > 0);
    std::vector<item> items;
    int last = -1;
    for (const planned_instance& in : g.instances) {
      items.push_back({in.where.profile, in.where.start});
      CHECK(in.where.start >= last);
      last = in.where.start;
      if (!in.cis.empty()) {
        // A GI holding CIs: they fit it, and each serves an item named by its CI profile.
        const profile& gi = g.gpu->profiles[static_cast<std::size_t>(in.where.profile)];
        CHECK(in.serves == -1);
        REQUIRE(in.ci_serves.size() == in.cis.size());
        std::vector<int> cis;
        for (std::size_t k = 0; k < in.cis.size(); ++k) {
          cis.push_back(in.cis[k].ci);
          const int sv = in.ci_serves[k];
          if (sv < 0) continue;
          REQUIRE(static_cast<std::size_t>(sv) < req.demand.size());
          CHECK(gi.ci_profiles[static_cast<std::size_t>(in.cis[k].ci)].name ==
                req.demand[static_cast<std::size_t>(sv)].profile);
          served[static_cast<std::size_t>(sv)] += g.count;
        }
        CHECK(cis_fit(gi, cis));
      }
      if (in.serves < 0) continue;
      REQUIRE(static_cast<std::size_t>(in.serves) < req.demand.size());
      const demand_item& d = req.demand[static_cast<std::size_t>(in.serves)];
      if (!d.profile.empty())
        CHECK(g.gpu->profiles[static_cast<std::size_t>(in.where.profile)].name == d.profile);
      served[static_cast<std::size_t>(in.serves)] += g.count;
    }
    CHECK(fits(rules(*g.gpu), items));
  }
  for (std::size_t i = 0; i < req.demand.size(); ++i) {
    long long missing = 0;
    for (const plan_unmet& u : res.unmet)
      if (u.item == static_cast<int>(i)) missing = u.missing;
    CHECK(served[i] == req.demand[i].count - missing);
  }
  CHECK(res.feasible == res.unmet.empty());
  check_bounds(res);
}

// Room summed over the plan's GPUs, measured by the core.
// The room a layout keeps, by brute force and sharing no code with the
// planner's room_value or capacity.hpp's room_of: every set of further
// instances that fits beside it (fits(), with the layout's instances pinned
// where they are), the most units such a set occupies and, apart, the most
// compute slices one uses, weighed as doc/plan.md says the planner weighs
// them: units first, so units * (compute slices + 1) + compute slices.
inline long long brute_room(const gpu_model& gpu, const layout& l) {
  const rules r(gpu);
  std::vector<item> items;
  for (const instance& in : l) items.push_back({in.profile, in.start});
  std::vector<item> further;  // every (profile, start) the model allows
  for (int p = 0; p < static_cast<int>(gpu.profiles.size()); ++p)
    for (int s = 0; s < max_units; ++s)
      if (gpu.profiles[static_cast<std::size_t>(p)].allows_start(s)) further.push_back({p, s});
  int most_units = 0, most_compute = 0;
  // Each set once: its instances in the order of `further`.
  const auto grow = [&](auto&& self, std::size_t from, int units, int compute) -> void {
    most_units = std::max(most_units, units);
    most_compute = std::max(most_compute, compute);
    for (std::size_t i = from; i < further.size(); ++i) {
      items.push_back(further[i]);
      if (fits(r, items)) {
        const profile& p = gpu.profiles[static_cast<std::size_t>(further[i].profile)];
        self(self, i + 1, units + p.size, compute + p.compute_slices);
      }
      items.pop_back();
    }
  };
  grow(grow, 0, 0, 0);
  return static_cast<long long>(most_units) * (gpu.compute_slices + 1) + most_compute;
}

// The room a plan keeps: each group's layout's brute_room, times its GPUs.
inline long long summed_room(const plan_result& res) {
  long long total = 0;
  for (const plan_group& g : res.groups) {
    layout l;
    for (const planned_instance& in : g.instances) l.add(in.where);
    total += g.count * brute_room(*g.gpu, l);
  }
  return total;
}

}  // namespace plan_test

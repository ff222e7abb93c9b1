// SPDX-License-Identifier: Apache-2.0
// Differential tests: the search against the naive oracle, on every multiset
// of every catalog model, and on pinned variants.

#include "oracle.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <migplan/catalog.hpp>
#include <migplan/search.hpp>
#include <set>
#include <string>
#include <vector>

#include "support.hpp"

namespace {

using migplan::test::each_multiset;

using migplan::gpu_model;
using migplan::item;
using migplan::reason_code;

std::vector<item> to_items(const oracle::counts& n, const std::vector<oracle::pin>& pins = {}) {
  std::vector<item> out;
  for (std::size_t p = 0; p < n.size(); ++p)
    for (int k = 0; k < n[p]; ++k) out.push_back({static_cast<int>(p), item::any_start});
  for (const oracle::pin& x : pins) out.push_back({x.profile, x.start});
  return out;
}

std::set<oracle::layout_set> to_sets(const migplan::solution& s) {
  std::set<oracle::layout_set> out;
  for (const migplan::scored_layout& sl : s.layouts) {
    oracle::layout_set l;
    for (const migplan::instance& in : sl.where) l.push_back({in.start, in.profile});
    std::sort(l.begin(), l.end());
    out.insert(l);
  }
  return out;
}

// The reason solve() must give, from the oracle's independent checks in the
// order search.hpp documents.
reason_code expected_code(const oracle::verdict& v) {
  if (v.over_cap) return reason_code::instance_cap;
  if (v.bad_pin) return reason_code::bad_start;
  if (v.over_units) return reason_code::memory_units;
  if (v.over_compute) return reason_code::compute_slices;
  if (v.over_engines) return reason_code::engines;
  if (!v.feasible()) return reason_code::placement;
  return reason_code::none;
}

// Compares solve() with the oracle on one request; returns the oracle's feasibility.
bool compare(const gpu_model& gpu, const oracle::counts& n, const std::vector<oracle::pin>& pins) {
  const oracle::verdict want = oracle::solve(gpu, n, pins);
  const std::vector<item> items = to_items(n, pins);
  const migplan::solution got = migplan::solve(gpu, items);
  const std::set<oracle::layout_set> got_sets = to_sets(got);
  const bool agree =
      got.feasible() == want.feasible() && got.layout_count == want.layouts.size() &&
      got.layouts.size() == got_sets.size() && got_sets == want.layouts &&
      got.why.code == expected_code(want) &&
      (got.why.code != reason_code::engines || got.why.engine == want.over_engine_kind);
  if (agree) {
    SUCCEED();
    return want.feasible();
  }
  INFO("model " << gpu.slug << ", request: " << oracle::describe(gpu, n, pins));
  CHECK(got.feasible() == want.feasible());
  CHECK(got.layout_count == want.layouts.size());
  CHECK(got.layouts.size() == got_sets.size());
  CHECK(static_cast<int>(got.why.code) == static_cast<int>(expected_code(want)));
  if (got.why.code == reason_code::engines) CHECK(got.why.engine == want.over_engine_kind);
  for (const auto& l : want.layouts)
    if (got_sets.count(l) == 0) FAIL_CHECK("solve misses " << oracle::describe(gpu, l));
  for (const auto& l : got_sets)
    if (want.layouts.count(l) == 0) FAIL_CHECK("solve invents " << oracle::describe(gpu, l));
  return want.feasible();
}

}  // namespace

TEST_CASE("solve agrees with the naive oracle on every multiset of every catalog model",
          "[oracle][search][exhaustive]") {
  for (const gpu_model& gpu : migplan::catalog()) {
    DYNAMIC_SECTION("model " << gpu.slug) {
      std::size_t multisets = 0, feasible = 0;
      each_multiset(gpu, [&](const std::vector<item>&, const oracle::counts& n) {
        ++multisets;
        if (compare(gpu, n, {})) ++feasible;
      });
      // Every model has at least its full-GPU profile alone and the empty request.
      CHECK(feasible >= 2);
      CHECK(multisets > feasible);
    }
  }
}

TEST_CASE("one instance over a profile's cap is an instance_cap failure on every model",
          "[oracle][search]") {
  for (const gpu_model& gpu : migplan::catalog()) {
    DYNAMIC_SECTION("model " << gpu.slug) {
      const std::size_t np = gpu.profiles.size();
      for (std::size_t p = 0; p < np; ++p) {
        const int cap = gpu.profiles[p].max_instances;
        for (int extra : {1, 2, 500}) {
          oracle::counts n(np, 0);
          n[p] = cap + extra;
          INFO("request: " << oracle::describe(gpu, n));
          const migplan::solution s = migplan::solve(gpu, to_items(n));
          CHECK_FALSE(s.feasible());
          CHECK(s.why.code == reason_code::instance_cap);
          CHECK(s.why.profiles == std::vector<int>{static_cast<int>(p)});
          CHECK(s.why.needed == cap + extra);
          CHECK(s.why.available == cap);
          CHECK(oracle::solve(gpu, n).over_cap);
        }
        // Every other profile at its cap too: the cap is still what is reported.
        oracle::counts all(np, 0);
        for (std::size_t q = 0; q < np; ++q) all[q] = gpu.profiles[q].max_instances;
        all[p] += 1;
        INFO("request: " << oracle::describe(gpu, all));
        const migplan::solution s = migplan::solve(gpu, to_items(all));
        CHECK(s.why.code == reason_code::instance_cap);
        CHECK(s.why.profiles == std::vector<int>{static_cast<int>(p)});
      }
    }
  }
}

TEST_CASE("solve agrees with the oracle when one instance is pinned at any unit",
          "[oracle][search][pinned]") {
  for (const gpu_model& gpu : migplan::catalog()) {
    DYNAMIC_SECTION("model " << gpu.slug) {
      const std::size_t np = gpu.profiles.size();
      for (std::size_t p = 0; p < np; ++p) {
        for (int u = 0; u < gpu.units; ++u) {
          const std::vector<oracle::pin> pins{{static_cast<int>(p), u}};
          compare(gpu, oracle::counts(np, 0), pins);
          for (std::size_t q = 0; q < np; ++q) {
            oracle::counts n(np, 0);
            n[q] = 1;
            compare(gpu, n, pins);
          }
        }
      }
    }
  }
}

TEST_CASE("solve agrees with the oracle when two instances are pinned",
          "[oracle][search][pinned]") {
  // Two pins of every pair of profiles at every pair of allowed starts: covers
  // overlapping pins, a pin taking the only start another needs, and two pins
  // of a cap-1 profile.
  for (const gpu_model& gpu : migplan::catalog()) {
    DYNAMIC_SECTION("model " << gpu.slug) {
      const std::size_t np = gpu.profiles.size();
      for (std::size_t p = 0; p < np; ++p)
        for (std::size_t q = p; q < np; ++q)
          for (int a = 0; a < gpu.units; ++a)
            for (int b = 0; b < gpu.units; ++b) {
              if (!gpu.profiles[p].allows_start(a) || !gpu.profiles[q].allows_start(b)) continue;
              compare(gpu, oracle::counts(np, 0),
                      {{static_cast<int>(p), a}, {static_cast<int>(q), b}});
            }
    }
  }
}

TEST_CASE("every profile over its cap is reported with the request's own count of it",
          "[oracle][search]") {
  // Two profiles over their caps by different amounts: each count goes with
  // its profile, in profile order, and `needed` is still the first one's.
  for (const gpu_model& gpu : migplan::catalog()) {
    DYNAMIC_SECTION("model " << gpu.slug) {
      const std::size_t np = gpu.profiles.size();
      for (std::size_t p = 0; p < np; ++p)
        for (std::size_t q = p + 1; q < np; ++q) {
          oracle::counts n(np, 0);
          n[p] = gpu.profiles[p].max_instances + 1;
          n[q] = gpu.profiles[q].max_instances + 3;
          INFO("request: " << oracle::describe(gpu, n));
          const migplan::solution s = migplan::solve(gpu, to_items(n));
          CHECK(oracle::solve(gpu, n).over_cap);
          CHECK(s.why.code == reason_code::instance_cap);
          CHECK(s.why.profiles == std::vector<int>{static_cast<int>(p), static_cast<int>(q)});
          CHECK(s.why.counts == std::vector<int>{n[p], n[q]});
          CHECK(s.why.needed == n[p]);
        }
    }
  }
}

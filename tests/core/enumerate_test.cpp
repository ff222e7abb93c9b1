// SPDX-License-Identifier: Apache-2.0
// enumerate() against the oracle's geometry enumeration on every catalog model.

#include <catch2/catch.hpp>
#include <map>
#include <migplan/catalog.hpp>
#include <migplan/enumerate.hpp>
#include <string>
#include <vector>

#include "oracle.hpp"

namespace {

using migplan::gpu_model;

oracle::counts to_counts(const gpu_model& gpu, const migplan::profile_counts& c) {
  oracle::counts out(gpu.profiles.size(), 0);
  for (std::size_t p = 0; p < out.size(); ++p) out[p] = c[static_cast<int>(p)];
  return out;
}

// Maximal by definition: one more instance of any profile gives a multiset
// the oracle finds infeasible. `feasible` is the oracle's answer for every
// count vector up to the caps; one past a cap is infeasible by rule 3.
bool oracle_maximal(const gpu_model& gpu, const oracle::counts& n,
                    const std::map<oracle::counts, std::uint64_t>& feasible) {
  for (std::size_t p = 0; p < n.size(); ++p) {
    if (n[p] == gpu.profiles[p].max_instances) continue;
    oracle::counts more = n;
    ++more[p];
    if (feasible.count(more) != 0) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("enumerate finds exactly the oracle's geometries with the same layout counts",
          "[enumerate][oracle][exhaustive]") {
  for (const gpu_model& gpu : migplan::catalog()) {
    DYNAMIC_SECTION("model " << gpu.slug) {
      const migplan::geometry_set got = migplan::enumerate(gpu);
      const std::map<oracle::counts, std::uint64_t> feasible = oracle::all_geometries(gpu);
      // enumerate() leaves out the empty geometry.
      std::map<oracle::counts, std::uint64_t> want = feasible;
      REQUIRE(want.erase(oracle::counts(gpu.profiles.size(), 0)) == 1);

      std::map<oracle::counts, const migplan::geometry*> seen;
      for (const migplan::geometry& g : got.geometries) {
        const oracle::counts n = to_counts(gpu, g.counts);
        INFO("geometry " << oracle::describe(gpu, n));
        CHECK(seen.emplace(n, &g).second);  // no duplicates
        // Nothing beyond the profiles of the model.
        for (std::size_t p = gpu.profiles.size(); p < migplan::profile_counts{}.n.size(); ++p)
          CHECK(g.counts[static_cast<int>(p)] == 0);
      }
      std::uint64_t want_layouts = 0;
      std::size_t want_maximal = 0;
      for (const auto& [n, count] : want) {
        INFO("geometry " << oracle::describe(gpu, n));
        want_layouts += count;
        const bool maximal = oracle_maximal(gpu, n, feasible);
        want_maximal += maximal ? 1 : 0;
        const auto it = seen.find(n);
        if (it == seen.end()) {
          FAIL_CHECK("enumerate misses it");
          continue;
        }
        CHECK(it->second->layout_count == count);
        CHECK(it->second->maximal == maximal);
      }
      for (const auto& [n, g] : seen)
        if (want.count(n) == 0) FAIL_CHECK("enumerate invents " << oracle::describe(gpu, n));
      CHECK(got.geometries.size() == want.size());
      CHECK(got.layout_count == want_layouts);
      CHECK(got.maximal_count == want_maximal);
    }
  }
}

TEST_CASE("enumerate orders geometries by instance count, then by counts descending",
          "[enumerate]") {
  for (const gpu_model& gpu : migplan::catalog()) {
    DYNAMIC_SECTION("model " << gpu.slug) {
      const auto got = migplan::enumerate(gpu);
      REQUIRE_FALSE(got.geometries.empty());
      for (std::size_t i = 1; i < got.geometries.size(); ++i) {
        const auto& a = got.geometries[i - 1].counts;
        const auto& b = got.geometries[i].counts;
        INFO("position " << i);
        CHECK(a.total() <= b.total());
        if (a.total() == b.total()) CHECK(a > b);
      }
      CHECK(got.geometries.front().counts.total() == 1);
    }
  }
}

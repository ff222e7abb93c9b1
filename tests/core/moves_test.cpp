// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>
#include <migplan/catalog.hpp>
#include <migplan/moves.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "moves_oracle.hpp"
#include "support.hpp"

using namespace migplan;
using migplan::test::model;

namespace {

// Every legal layout of a model, as the oracle lists them, in a vector to
// draw from.
std::vector<oracle::layout_set> every_layout(const gpu_model& gpu) {
  std::vector<oracle::layout_set> out;
  for (const auto& [n, ls] : oracle::all_layouts(gpu)) out.insert(out.end(), ls.begin(), ls.end());
  return out;
}

layout layout_of_set(const oracle::layout_set& l) {
  layout out;
  for (const auto& [start, p] : l) out.add({p, start});
  return out;
}

oracle::layout_set set_of_layout(const layout& l) {
  oracle::layout_set out;
  for (const instance& in : l) out.emplace_back(in.start, in.profile);
  return out;
}

// Runs the steps of `plan` on `fleet` with the oracle's rules: every step
// leaves its source's instance and lands legally, and the arrival then fits
// at the plan's place.
void check_steps(const std::vector<moves_gpu>& fleet, const moves_plan& plan) {
  std::vector<oracle::layout_set> now;
  for (const moves_gpu& g : fleet) now.push_back(set_of_layout(g.held));
  for (const move_step& s : plan.steps) {
    auto& from = now[static_cast<std::size_t>(s.from)];
    const auto it = std::find(from.begin(), from.end(), std::pair{s.what.start, s.what.profile});
    REQUIRE(it != from.end());
    from.erase(it);
    REQUIRE(fleet[static_cast<std::size_t>(s.to)].model ==
            fleet[static_cast<std::size_t>(s.from)].model);
    auto& to = now[static_cast<std::size_t>(s.to)];
    to.emplace_back(s.to_start, s.what.profile);
    REQUIRE(oracle::legal(*fleet[static_cast<std::size_t>(s.to)].model, to));
  }
  const moves_gpu& t = fleet[static_cast<std::size_t>(plan.gpu)];
  REQUIRE(plan.where.profile == t.arrival);
  auto last = now[static_cast<std::size_t>(plan.gpu)];
  last.emplace_back(plan.where.start, plan.where.profile);
  REQUIRE(oracle::legal(*t.model, last));
}

}  // namespace

TEST_CASE("the fewest moves equal a breadth-first search over every move set",
          "[moves][exhaustive]") {
  struct fleet_case {
    std::string_view slug;
    int gpus;
    int most;
  };
  const fleet_case cases[] = {
      {"a30", 1, 3},          {"a30", 2, 3},          {"a30", 3, 2},       {"a100-40gb", 1, 3},
      {"a100-40gb", 2, 2},    {"a100-40gb", 3, 2},    {"h100-80gb", 2, 2}, {"h100-80gb", 3, 2},
      {"rtx-pro-6000", 1, 3}, {"rtx-pro-6000", 2, 2}, {"b200", 2, 2},
  };
  std::mt19937 rng(39);
  for (const fleet_case& c : cases) {
    const gpu_model& gpu = model(c.slug);
    const std::vector<oracle::layout_set> all = every_layout(gpu);
    // Half the GPUs drawn from the nearly full layouts, where moves are needed
    // and often do not suffice.
    std::vector<oracle::layout_set> dense;
    for (const oracle::layout_set& l : all) {
      int used = 0;
      for (const auto& [start, p] : l) used += gpu.profiles[static_cast<std::size_t>(p)].size;
      if (used >= gpu.units - 2) dense.push_back(l);
    }
    int without = 0;
    int with_moves = 0;
    for (int round = 0; round < 60; ++round) {
      std::vector<moves_gpu> fleet;
      std::vector<oracle::fleet_gpu> naive;
      const int arrival =
          std::uniform_int_distribution<int>(0, static_cast<int>(gpu.profiles.size()) - 1)(rng);
      for (int g = 0; g < c.gpus; ++g) {
        const std::vector<oracle::layout_set>& from = rng() % 2 ? dense : all;
        const oracle::layout_set& l =
            from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng)];
        fleet.push_back({&gpu, arrival, layout_of_set(l)});
        naive.push_back({&gpu, arrival, l});
      }
      const int expected = oracle::fewest_moves(naive, c.most);
      const moves_plan plan = fewest_moves(fleet, c.most);
      INFO(c.slug << " round " << round << " arrival "
                  << gpu.profiles[static_cast<std::size_t>(arrival)].name);
      REQUIRE(plan.found == (expected >= 0));
      if (!plan.found) {
        ++without;
        continue;
      }
      REQUIRE(static_cast<int>(plan.steps.size()) == expected);
      check_steps(fleet, plan);
      if (expected > 0) ++with_moves;
    }
    INFO(c.slug);
    CHECK(with_moves > 0);
    CHECK(without > 0);
  }
}

namespace {

// Three H100s: GPU 0 holds 1g.10gb@0 and 3g.40gb@4, GPUs 1 and 2 hold
// 4g.40gb@0 and 2g.20gb@4. A 4g.40gb starts only at 0: it fits nowhere.
std::vector<moves_gpu> blocked_h100s(std::string_view arrival) {
  const gpu_model& h100 = model("h100-80gb");
  const int p = migplan::test::index_of(h100, arrival);
  const auto at = [&](std::string_view name, int start) {
    return instance{migplan::test::index_of(h100, name), start};
  };
  std::vector<moves_gpu> out(3, moves_gpu{&h100, p, {}});
  out[0].held.add(at("1g.10gb", 0));
  out[0].held.add(at("3g.40gb", 4));
  for (int g = 1; g < 3; ++g) {
    out[static_cast<std::size_t>(g)].held.add(at("4g.40gb", 0));
    out[static_cast<std::size_t>(g)].held.add(at("2g.20gb", 4));
  }
  return out;
}

}  // namespace

TEST_CASE("one move takes the blocking 1g.10gb to the lowest GPU and start with room", "[moves]") {
  const std::vector<moves_gpu> fleet = blocked_h100s("4g.40gb");
  const moves_plan plan = fewest_moves(fleet, 3);
  REQUIRE(plan.found);
  REQUIRE(plan.steps.size() == 1);
  const move_step& s = plan.steps.front();
  // Within GPU 0 every start of a 1g.10gb is in 0-3 or taken; GPU 1's first
  // free start is 6 (2g.20gb holds 4 and 5).
  CHECK(s.from == 0);
  CHECK(s.what.start == 0);
  CHECK(s.to == 1);
  CHECK(s.to_start == 6);
  CHECK(plan.gpu == 0);
  CHECK(plan.where.start == 0);
  CHECK(plan.gpus_touched == 2);
  check_steps(fleet, plan);
}

TEST_CASE("an arrival that fits needs no move", "[moves]") {
  const moves_plan plan = fewest_moves(blocked_h100s("1g.10gb"), 3);
  REQUIRE(plan.found);
  CHECK(plan.steps.empty());
  CHECK(plan.gpu == 0);
  CHECK(plan.where.start == 1);
}

TEST_CASE("with no move allowed, the fewest instances to shed is the reason", "[moves]") {
  const moves_plan plan = fewest_moves(blocked_h100s("4g.40gb"), 0);
  CHECK_FALSE(plan.found);
  CHECK(plan.failure == moves_failure::too_many_shed);
  CHECK(plan.fewest_shed == 1);
  CHECK(plan.fewest_shed_gpu == 0);
}

TEST_CASE("a whole GPU's worth finds room nowhere on a full fleet", "[moves]") {
  // Every GPU of blocked_h100s is full but GPU 0's units 1-3: a 7g.80gb needs
  // GPU 0's two instances gone, and 3g.40gb has no other place.
  const moves_plan plan = fewest_moves(blocked_h100s("7g.80gb"), 3);
  CHECK_FALSE(plan.found);
  CHECK(plan.failure == moves_failure::nowhere_to_go);
  CHECK(plan.fewest_shed == 2);
}

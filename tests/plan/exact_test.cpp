// SPDX-License-Identifier: Apache-2.0
// Exact at every documented scale (issue 19): counts up to 10,000,000, any
// positive cost, bounds proven in integer arithmetic, and a status that says
// whether a plan that misses demand was proven to or only cut short.
#include <migplan/enumerate.hpp>
#include <random>
#include <string>

#include "model/plan_cost.hpp"
#include "plan/certify.hpp"
#include "plan/mip.hpp"
#include "plan_support.hpp"

using namespace plan_test;

namespace {

plan_request one_model(const char* slug, double cost = 1.0) {
  plan_request req;
  req.models.push_back({gpu(slug), std::nullopt, cost});
  return req;
}

// The most instances of `profile` one GPU of `g` holds alone, by the core.
long long most_alone(const gpu_model& g, const char* profile) {
  const int p = find_profile(g, profile);
  REQUIRE(p >= 0);
  const rules r(g);
  long long k = 0;
  std::vector<item> items;
  while (true) {
    items.push_back({p, item::any_start});
    if (!fits(r, items)) return k;
    ++k;
  }
}

}  // namespace

TEST_CASE("millions of one profile take exactly ceil(n / per gpu) GPUs, proven", "[plan][large]") {
  const gpu_model* h = gpu("h100-80gb");
  const long long per = most_alone(*h, "1g.10gb");
  for (const long long n : {7'000'000LL, 10'000'000LL, 9'999'999LL}) {
    plan_request req = one_model("h100-80gb");
    req.demand.push_back(want("1g.10gb", n));
    const plan_result res = plan::solve(req);
    INFO("n = " << n);
    REQUIRE(res.feasible);
    CHECK(res.gpu_count == (n + per - 1) / per);
    CHECK(res.optimal);
    CHECK(res.status == plan_status::optimal);
    CHECK(res.lower_bound_units == res.gpu_count);
    check_plan(req, res);
  }
}

TEST_CASE("three items of ten million take the 7,500,000 GPUs the LP relaxation proves least",
          "[plan][large]") {
  plan_request req = one_model("h100-80gb");
  const long long n = 10'000'000;
  req.demand.push_back(want("1g.10gb", n));
  req.demand.push_back(want("3g.40gb", n));
  demand_item m;
  m.name = "mem=5GiB";
  m.memory_mib = 5 * 1024;
  m.count = n;
  req.demand.push_back(m);
  const plan_result res = plan::solve(req);
  REQUIRE(res.feasible);
  // The LP relaxation's value is whole here, so it is the least GPU count.
  CHECK(res.lp_bound == Approx(static_cast<double>(res.gpu_count)).margin(1e-6));
  CHECK(res.gpu_count == 3 * n / 4);
  CHECK(res.optimal);
  check_plan(req, res);
}

TEST_CASE("any positive cost of a one-model fleet gives the plan of cost 1",
          "[plan][cost][exhaustive]") {
  plan_request base = one_model("h100-80gb");
  base.demand.push_back(want("1g.10gb", 100));
  const plan_result ref = plan::solve(base);
  REQUIRE(ref.optimal);
  for (const double cost : {1e-9, 1e-7, 1e-6, 0.3, 75597.3, 1e9}) {
    plan_request req = base;
    req.models[0].cost = cost;
    const plan_result res = plan::solve(req);
    INFO("cost " << cost);
    CHECK(res.gpu_count == ref.gpu_count);
    CHECK(res.optimal);
    CHECK(res.cost == Approx(cost * static_cast<double>(ref.gpu_count)).epsilon(1e-12));
    check_plan(req, res);
  }
}

TEST_CASE("costs are whole units of one decimal unit, and totals print as typed", "[plan][cost]") {
  const auto s = scale_costs({2.5, 1.0});
  REQUIRE(s);
  CHECK(s->units == std::vector<long long>{5, 2});
  CHECK(cost_decimal(1, *s) == "0.5");
  const auto t = scale_costs({75597.3});
  REQUIRE(t);
  CHECK(t->units == std::vector<long long>{1});
  // 15 GPUs at 75597.3: the decimal total, not the double product.
  CHECK(cost_decimal(15, *t) == "1133959.5");
  CHECK(cost_decimal(3, *scale_costs({1e-9})) == "0.000000003");
  CHECK(cost_decimal(7, *scale_costs({1e9})) == "7000000000");
  // Too fine together: 1e-9 and 1 would be 10^9 units of 1e-9.
  CHECK_FALSE(scale_costs({1e-9, 1.0}));
  CHECK(scale_costs({1e-6, 1.0}));
}

TEST_CASE("an integer bound from any duals never exceeds the optimum", "[plan][certify]") {
  // min x0 + x1 subject to 7 x0 + 4 x1 >= 7,000,001, integers >= 0: the
  // optimum is 1,000,001 (7 x0 alone needs ceil(7,000,001 / 7)).
  plan::mip prog;
  const int x0 = prog.add_var(0, 1e30, true, 1);
  const int x1 = prog.add_var(0, 1e30, true, 1);
  prog.add_row({{x0, 7}, {x1, 4}}, 7'000'001, 1e30);
  const auto lp = prog.solve_lp();
  REQUIRE(lp.optimal);
  const auto best = plan::integer_bound(prog, lp.duals);
  REQUIRE(best);
  CHECK(*best == 1'000'001);  // ceil(7,000,001 / 7), from the dual 1/7
  std::mt19937 rng(19);
  std::uniform_real_distribution<double> dual(-1, 1);
  for (int k = 0; k < 200; ++k) {
    const double pi = dual(rng);
    const auto b = plan::integer_bound(prog, {pi}, {2e6, 2e6});
    REQUIRE(b);
    CHECK(*b <= 1'000'001);
  }
  // Unbounded variables and a dual that prices them above their cost: no proof.
  CHECK_FALSE(plan::integer_bound(prog, {0.5}));
}

TEST_CASE("a plan cut short before it meets the demand is timed_out, not unmet", "[plan][status]") {
  // 200 H100s in random layouts (a third of their instances in use), and a
  // demand the fleet can hold (a seventh of its 1g.10gb room and a few
  // whole GPUs) but only after many changes; a 10 ms limit cuts the search.
  const gpu_model* h = gpu("h100-80gb");
  const geometry_set set = enumerate(*h);
  std::mt19937 rng(7);
  plan_request req = one_model("h100-80gb");
  req.current.emplace();
  for (int n = 0; n < 25; ++n) {
    current_node node;
    node.name = "node-" + std::to_string(n);
    node.gpu = h;
    for (int i = 0; i < 8; ++i) {
      const geometry& g = set.geometries[std::uniform_int_distribution<std::size_t>(
          0, set.geometries.size() - 1)(rng)];
      current_gpu cg;
      cg.index = i;
      for (int p = 0; p < static_cast<int>(h->profiles.size()); ++p)
        for (int k = 0; k < g.counts[p]; ++k)
          cg.instances.push_back(current_instance::at(
              p, item::any_start, std::uniform_int_distribution<int>(0, 2)(rng) == 0));
      node.gpus.push_back(cg);
    }
    req.current->push_back(node);
  }
  req.demand.push_back(want("1g.10gb", 400));
  req.demand.push_back(want("3g.40gb", 50));
  req.demand.push_back(want("7g.80gb", 12));
  // The time limit runs out before the first search ends, on every machine
  // (10 ms did on slow ones only), so the cut-short answer is always checked.
  req.time_limit_s = 0.5;
  req.searches_in_time = 0;
  const plan_result res = plan::solve(req);
  check_plan(req, res);
  CHECK_FALSE(res.feasible);
  CHECK(res.status == plan_status::timed_out);
  CHECK(res.first_cut_short);
  REQUIRE(res.suggested_time_limit_s);
  CHECK(*res.suggested_time_limit_s == 10);  // four times 0.5 s, at least 10
  // Without the limit the same demand is met: the cut-short answer was not a proof.
  req.time_limit_s = 60;
  req.searches_in_time = -1;
  const plan_result full = plan::solve(req);
  CHECK(full.feasible);
  check_plan(req, full);
}

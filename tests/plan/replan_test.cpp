// SPDX-License-Identifier: Apache-2.0
// Re-plans: the fewest GPUs changed, in-use instances kept, and a brute force
// of the minimum number of changes on tiny fleets.
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>

#include "plan_support.hpp"

using namespace plan_test;

namespace {

current_node node_of(const gpu_model* g, const std::string& name,
                     const std::vector<std::vector<current_instance>>& gpus) {
  current_node n;
  n.name = name;
  n.gpu = g;
  for (std::size_t i = 0; i < gpus.size(); ++i)
    n.gpus.push_back({static_cast<int>(i), gpus[i], ""});
  return n;
}

std::vector<current_instance> many(const gpu_model* g, const char* profile, int n, int in_use = 0) {
  std::vector<current_instance> out;
  const int p = find_profile(*g, profile);
  REQUIRE(p >= 0);
  for (int i = 0; i < n; ++i) out.push_back(current_instance::at(p, item::any_start, i < in_use));
  return out;
}

// Every change destroys no in-use instance unless listed as evicted, and
// every GPU of the fleet is in `nodes`.
void check_replan(const plan_request& req, const plan_result& res) {
  check_plan(req, res);
  std::size_t gpus = 0;
  for (const auto& n : *req.current) gpus += n.gpus.size();
  std::size_t seen = 0;
  for (const auto& n : res.nodes) seen += n.gpus.size();
  CHECK(seen == gpus);
  for (const plan_change& c : res.changes) {
    std::size_t in_use = 0;
    for (const current_instance& x : c.destroyed) in_use += x.in_use ? 1 : 0;
    CHECK(c.evicted.size() == in_use);
    if (!req.allow_evict) CHECK(c.evicted.empty());
    REQUIRE(c.to_group >= 0);
  }
  // The groups count exactly the fleet's GPUs.
  long long total = 0;
  for (const plan_group& g : res.groups) total += g.count;
  CHECK(total == static_cast<long long>(gpus));
  // A GPU is listed as changed exactly when its profile counts change.
  REQUIRE(res.nodes.size() == req.current->size());
  for (std::size_t n = 0; n < res.nodes.size(); ++n) {
    const current_node& cur = (*req.current)[n];
    REQUIRE(res.nodes[n].gpus.size() == cur.gpus.size());
    for (std::size_t k = 0; k < cur.gpus.size(); ++k) {
      const int grp = res.nodes[n].gpus[k].group;
      REQUIRE(grp >= 0);
      std::vector<int> before(cur.gpu->profiles.size(), 0), after(before);
      for (const current_instance& x : cur.gpus[k].instances)
        ++before[static_cast<std::size_t>(x.profile)];
      for (const planned_instance& in : res.groups[static_cast<std::size_t>(grp)].instances)
        ++after[static_cast<std::size_t>(in.where.profile)];
      const bool listed = std::any_of(
          res.changes.begin(), res.changes.end(),
          [&](const plan_change& c) { return c.node == cur.name && c.index == cur.gpus[k].index; });
      INFO("node " << cur.name << " gpu " << cur.gpus[k].index);
      CHECK(listed == (before != after));
    }
  }
}

// Solves `req` with `planner` and checks it against a brute force's fewest
// changes `best` (-1: no plan meets the demand).
void check_fewest(plan::solver& planner, const plan_request& req, int best) {
  const plan_result res = planner.solve(req);
  if (best < 0) {
    CHECK_FALSE(res.feasible);
    return;
  }
  REQUIRE(res.feasible);
  CHECK(res.status == plan_status::optimal);
  CHECK(static_cast<int>(res.changes.size()) == best);
  CHECK(res.changes_lower_bound == best);
  check_replan(req, res);
}

// Every geometry of `g` as counts per profile, by trying every count vector
// against the core's rules (independent of the solver).
std::vector<std::vector<int>> all_geometries(const gpu_model* g) {
  const rules r(*g);
  std::vector<std::vector<int>> geos;
  std::vector<int> counts(g->profiles.size(), 0);
  std::function<void(std::size_t)> visit = [&](std::size_t p) {
    if (p == counts.size()) {
      std::vector<item> items;
      for (std::size_t q = 0; q < counts.size(); ++q)
        for (int k = 0; k < counts[q]; ++k) items.push_back({static_cast<int>(q)});
      if (items.empty() || fits(r, items)) geos.push_back(counts);
      return;
    }
    for (int k = 0; k <= g->profiles[p].max_instances; ++k) {
      counts[p] = k;
      visit(p + 1);
    }
    counts[p] = 0;
  };
  visit(0);
  return geos;
}

// The fewest GPUs that must change for `fleet` to hold `demand` (instances
// per profile), each GPU keeping its geometry or taking any other that holds
// its in-use instances (all of them with allow_evict); -1 when none does.
int fewest_changes(const gpu_model* g, const std::vector<std::vector<int>>& geos,
                   const std::vector<std::vector<current_instance>>& fleet,
                   const std::vector<long long>& demand, bool allow_evict) {
  const std::size_t np = g->profiles.size();
  int best = -1;
  std::vector<long long> have(np, 0);
  std::function<void(std::size_t, int)> rec = [&](std::size_t i, int changed) {
    if (best >= 0 && changed >= best) return;
    if (i == fleet.size()) {
      bool ok = true;
      for (std::size_t p = 0; p < np; ++p) ok = ok && have[p] >= demand[p];
      if (ok) best = changed;
      return;
    }
    std::vector<int> cur(np, 0), used(np, 0);
    for (const current_instance& x : fleet[i]) {
      ++cur[static_cast<std::size_t>(x.profile)];
      if (x.in_use && !allow_evict) ++used[static_cast<std::size_t>(x.profile)];
    }
    auto with = [&](const std::vector<int>& geo, int cost) {
      for (std::size_t p = 0; p < np; ++p) have[p] += geo[p];
      rec(i + 1, changed + cost);
      for (std::size_t p = 0; p < np; ++p) have[p] -= geo[p];
    };
    with(cur, 0);
    for (const auto& geo : geos) {
      bool ok = geo != cur;
      for (std::size_t q = 0; q < np && ok; ++q) ok = geo[q] >= used[q];
      if (ok) with(geo, 1);
    }
  };
  rec(0, 0);
  return best;
}

}  // namespace

TEST_CASE("the issue's re-plan changes exactly one GPU", "[replan]") {
  const gpu_model* h = gpu("h100-80gb");
  plan_request req;
  req.models.push_back({h, std::nullopt, 1.0});
  std::vector<std::vector<current_instance>> gpus(8, many(h, "1g.10gb", 7));
  req.current = std::vector<current_node>{node_of(h, "node-a", gpus)};
  req.demand.push_back(want("1g.10gb", 49));
  req.demand.push_back(want("3g.40gb", 2));
  const plan_result res = plan::solve(req);
  REQUIRE(res.feasible);
  CHECK(res.status == plan_status::optimal);  // the changes are proven fewest
  CHECK(res.changes.size() == 1);
  CHECK(res.changes_lower_bound == 1);
  REQUIRE(res.changes.size() == 1);
  CHECK(res.changes[0].destroyed.size() == 7);
  CHECK(res.changes[0].evicted.empty());
  CHECK(res.gpu_count == 8);
  check_replan(req, res);
}

TEST_CASE("a demand the fleet already meets changes nothing", "[replan]") {
  const gpu_model* h = gpu("h100-80gb");
  plan_request req;
  req.models.push_back({h, std::nullopt, 1.0});
  std::vector<std::vector<current_instance>> gpus(4, many(h, "1g.10gb", 7));
  gpus[3] = many(h, "3g.40gb", 2);
  req.current = std::vector<current_node>{node_of(h, "n", gpus)};
  req.demand.push_back(want("1g.10gb", 10));
  req.demand.push_back(want("3g.40gb", 1));
  const plan_result res = plan::solve(req);
  REQUIRE(res.feasible);
  CHECK(res.status == plan_status::optimal);
  CHECK(res.changes.empty());
  CHECK(res.changes_lower_bound == 0);
  check_replan(req, res);
}

TEST_CASE("in-use instances survive unless eviction is allowed", "[replan]") {
  const gpu_model* h = gpu("h100-80gb");
  plan_request req;
  req.models.push_back({h, std::nullopt, 1.0});
  std::vector<std::vector<current_instance>> gpus{many(h, "1g.10gb", 7, 7),
                                                  many(h, "1g.10gb", 7, 2)};
  req.current = std::vector<current_node>{node_of(h, "n", gpus)};
  req.demand.push_back(want("7g.80gb", 1));
  SECTION("without --allow-evict the demand is unmet") {
    const plan_result res = plan::solve(req);
    CHECK_FALSE(res.feasible);
    REQUIRE(res.unmet.size() == 1);
    CHECK(res.unmet[0].missing == 1);
    CHECK(res.changes.empty());
    check_replan(req, res);
  }
  SECTION("with it one GPU changes and its in-use instances are listed") {
    req.allow_evict = true;
    const plan_result res = plan::solve(req);
    REQUIRE(res.feasible);
    REQUIRE(res.changes.size() == 1);
    CHECK(res.changes[0].destroyed.size() == 7);
    CHECK_FALSE(res.changes[0].evicted.empty());
    check_replan(req, res);
  }
  SECTION("a change that keeps the in-use instances is allowed") {
    req.demand[0] = want("3g.40gb", 1);
    const plan_result res = plan::solve(req);
    REQUIRE(res.feasible);
    REQUIRE(res.changes.size() == 1);
    CHECK(res.changes[0].index == 1);
    CHECK(res.changes[0].evicted.empty());
    check_replan(req, res);
  }
}

TEST_CASE("re-plans on tiny fleets change the fewest GPUs, by brute force",
          "[replan][exact][exhaustive]") {
  plan::solver planner;  // each model's geometries built once
  for (const char* slug : {"a30", "h100-80gb"}) {
    const gpu_model* g = gpu(slug);
    const std::vector<std::vector<int>> geos = all_geometries(g);
    const char* small = std::string_view(slug) == "a30" ? "1g.6gb" : "1g.10gb";
    const char* mid = std::string_view(slug) == "a30" ? "2g.12gb" : "3g.40gb";
    const int ps = find_profile(*g, small), pm = find_profile(*g, mid);
    // Fleets: 2 or 3 GPUs drawn from a few current geometries (first instance in use).
    // The fewest changes do not depend on the order of the GPUs, so each multiset
    // of shapes is tried once (30 fleets, not 80), in ascending order and in
    // descending order by turns: the solver pools GPUs by what they hold and
    // must map its changes back to the right indices either way.
    const std::vector<std::vector<current_instance>> shapes{
        many(g, small, 4, 1), many(g, mid, 2, 1), {}, many(g, small, 2, 0)};
    std::size_t multisets = 0;
    for (std::size_t n = 2; n <= 3; ++n) {
      std::vector<std::size_t> pick(n, 0);
      for (std::size_t code = 0; code < static_cast<std::size_t>(std::pow(4, n)); ++code) {
        std::size_t c = code;
        for (std::size_t i = 0; i < n; ++i, c /= 4) pick[i] = c % 4;
        if (!std::is_sorted(pick.begin(), pick.end())) continue;
        if (multisets++ % 2 == 1) std::reverse(pick.begin(), pick.end());
        std::vector<std::vector<current_instance>> fleet;
        for (std::size_t i : pick) fleet.push_back(shapes[i]);
        for (int ds = 0; ds <= 8; ds += 2)
          for (int dm = 0; dm <= 3; ++dm) {
            if (ds + dm == 0) continue;
            // Brute force: each GPU keeps its geometry or takes any other that
            // holds its in-use instances; least changes meeting the demand.
            int best = -1;
            // Each GPU's instances per profile, and those in use.
            std::vector<std::vector<int>> curs(n), useds(n);
            for (std::size_t i = 0; i < n; ++i) {
              curs[i].assign(g->profiles.size(), 0);
              useds[i].assign(g->profiles.size(), 0);
              for (const current_instance& x : fleet[i]) {
                ++curs[i][static_cast<std::size_t>(x.profile)];
                if (x.in_use) ++useds[i][static_cast<std::size_t>(x.profile)];
              }
            }
            std::function<void(std::size_t, int, long long, long long)> rec =
                [&](std::size_t i, int changed, long long hs, long long hm) {
                  if (best >= 0 && changed >= best) return;
                  if (i == n) {
                    if (hs >= ds && hm >= dm) best = changed;
                    return;
                  }
                  const std::vector<int>& cur = curs[i];
                  const std::vector<int>& used = useds[i];
                  rec(i + 1, changed, hs + cur[static_cast<std::size_t>(ps)],
                      hm + cur[static_cast<std::size_t>(pm)]);
                  for (const auto& geo : geos) {
                    if (geo == cur) continue;
                    bool ok = true;
                    for (std::size_t q = 0; q < geo.size(); ++q) ok = ok && geo[q] >= used[q];
                    if (ok)
                      rec(i + 1, changed + 1, hs + geo[static_cast<std::size_t>(ps)],
                          hm + geo[static_cast<std::size_t>(pm)]);
                  }
                };
            rec(0, 0, 0, 0);
            plan_request req;
            req.models.push_back({g, std::nullopt, 1.0});
            req.current = std::vector<current_node>{node_of(g, "n", fleet)};
            if (ds > 0) req.demand.push_back(want(small, ds));
            if (dm > 0) req.demand.push_back(want(mid, dm));
            INFO(slug << " fleet " << code << " n=" << n << " demand " << ds << "+" << dm);
            check_fewest(planner, req, best);
          }
      }
    }
  }
}

TEST_CASE("re-plans of churned fleets change the fewest GPUs, by brute force",
          "[replan][exact][exhaustive]") {
  plan::solver planner;  // each model's geometries built once
  // GPUs whose layouts all differ (random profiles at random allowed starts,
  // some instances in use), as a fleet is after churn: classes of one GPU,
  // which the solver pools by in-use instances and splits back after.
  std::mt19937_64 rng(19);
  for (const char* slug : {"a30", "h100-80gb"}) {
    const gpu_model* g = gpu(slug);
    const rules r(*g);
    const std::vector<std::vector<int>> geos = all_geometries(g);
    std::vector<int> plain;
    for (std::size_t p = 0; p < g->profiles.size(); ++p)
      if (g->profiles[p].name.find('+') == std::string_view::npos)
        plain.push_back(static_cast<int>(p));
    for (int round = 0; round < 24; ++round) {
      const std::size_t n = 3;
      std::vector<std::vector<current_instance>> fleet(n);
      for (auto& gpu_now : fleet) {
        usage u;
        for (int tries = 0; tries < 6; ++tries) {
          const int p = plain[rng() % plain.size()];
          std::vector<int> starts;
          for (int s = 0; s < g->units; ++s)
            if (r.can_add(u, p, s)) starts.push_back(s);
          if (starts.empty()) continue;
          const int s = starts[rng() % starts.size()];
          u.add(g->profiles[static_cast<std::size_t>(p)], p, s);
          gpu_now.push_back(current_instance::at(p, s, rng() % 3 == 0));
        }
      }
      // Demand: two or three plain profiles, up to about what the fleet holds.
      plan_request req;
      req.models.push_back({g, std::nullopt, 1.0});
      req.current = std::vector<current_node>{node_of(g, "n", fleet)};
      req.allow_evict = round % 4 == 3;
      std::vector<long long> demand(g->profiles.size(), 0);
      const std::size_t kinds = 2 + rng() % 2;
      for (std::size_t k = 0; k < kinds; ++k) {
        const int p = plain[rng() % plain.size()];
        if (demand[static_cast<std::size_t>(p)] > 0) continue;
        const int most = g->profiles[static_cast<std::size_t>(p)].max_instances;
        demand[static_cast<std::size_t>(p)] =
            1 + static_cast<long long>(rng() % (static_cast<std::uint64_t>(most) * n / 2 + 1));
        req.demand.push_back(want(std::string(g->profiles[static_cast<std::size_t>(p)].name),
                                  demand[static_cast<std::size_t>(p)]));
      }
      const int best = fewest_changes(g, geos, fleet, demand, req.allow_evict);
      INFO(slug << " round " << round);
      check_fewest(planner, req, best);
    }
  }
}

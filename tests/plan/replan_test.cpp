// SPDX-License-Identifier: Apache-2.0
// Re-plans: the fewest GPUs changed, in-use instances kept, and a brute force
// of the minimum number of changes on tiny fleets.
#include <algorithm>
#include <cmath>
#include <functional>

#include "plan_support.hpp"

using namespace plan_test;

namespace {

current_node node_of(const gpu_model* g, const std::string& name,
                     const std::vector<std::vector<current_gi>>& gpus) {
  current_node n;
  n.name = name;
  n.gpu = g;
  for (std::size_t i = 0; i < gpus.size(); ++i)
    n.gpus.push_back({static_cast<int>(i), gpus[i], ""});
  return n;
}

std::vector<current_gi> many(const gpu_model* g, const char* profile, int n, int in_use = 0) {
  std::vector<current_gi> out;
  const int p = find_profile(*g, profile);
  REQUIRE(p >= 0);
  for (int i = 0; i < n; ++i) out.push_back({p, item::any_start, i < in_use});
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
    for (const current_gi& x : c.destroyed) in_use += x.in_use ? 1 : 0;
    CHECK(c.evicted.size() == in_use);
    if (!req.allow_evict) CHECK(c.evicted.empty());
    REQUIRE(c.to_group >= 0);
  }
  // The groups count exactly the fleet's GPUs.
  long long total = 0;
  for (const plan_group& g : res.groups) total += g.count;
  CHECK(total == static_cast<long long>(gpus));
}

}  // namespace

TEST_CASE("the issue's re-plan changes exactly one GPU", "[replan]") {
  const gpu_model* h = gpu("h100-80gb");
  plan_request req;
  req.models.push_back({h, std::nullopt, 1.0});
  std::vector<std::vector<current_gi>> gpus(8, many(h, "1g.10gb", 7));
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
  std::vector<std::vector<current_gi>> gpus(4, many(h, "1g.10gb", 7));
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
  std::vector<std::vector<current_gi>> gpus{many(h, "1g.10gb", 7, 7), many(h, "1g.10gb", 7, 2)};
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

TEST_CASE("re-plans on tiny fleets change the fewest GPUs, by brute force", "[replan][exact]") {
  for (const char* slug : {"a30", "h100-80gb"}) {
    const gpu_model* g = gpu(slug);
    const rules r(*g);
    // Geometries by trying every count vector (independent of the solver).
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
    const char* small = std::string_view(slug) == "a30" ? "1g.6gb" : "1g.10gb";
    const char* mid = std::string_view(slug) == "a30" ? "2g.12gb" : "3g.40gb";
    const int ps = find_profile(*g, small), pm = find_profile(*g, mid);
    // Fleets: 2 or 3 GPUs drawn from a few current geometries (first instance in use).
    const std::vector<std::vector<current_gi>> shapes{
        many(g, small, 4, 1), many(g, mid, 2, 1), {}, many(g, small, 2, 0)};
    for (std::size_t n = 2; n <= 3; ++n) {
      std::vector<std::size_t> pick(n, 0);
      for (std::size_t code = 0; code < static_cast<std::size_t>(std::pow(4, n)); ++code) {
        std::size_t c = code;
        for (std::size_t i = 0; i < n; ++i, c /= 4) pick[i] = c % 4;
        std::vector<std::vector<current_gi>> fleet;
        for (std::size_t i : pick) fleet.push_back(shapes[i]);
        for (int ds = 0; ds <= 8; ds += 2)
          for (int dm = 0; dm <= 3; ++dm) {
            if (ds + dm == 0) continue;
            // Brute force: each GPU keeps its geometry or takes any other that
            // holds its in-use instances; least changes meeting the demand.
            int best = -1;
            std::vector<std::size_t> choice(n, 0);
            std::function<void(std::size_t, int, long long, long long)> rec =
                [&](std::size_t i, int changed, long long hs, long long hm) {
                  if (best >= 0 && changed >= best) return;
                  if (i == n) {
                    if (hs >= ds && hm >= dm) best = changed;
                    return;
                  }
                  std::vector<int> cur(g->profiles.size(), 0), used(g->profiles.size(), 0);
                  for (const current_gi& x : fleet[i]) {
                    ++cur[static_cast<std::size_t>(x.profile)];
                    if (x.in_use) ++used[static_cast<std::size_t>(x.profile)];
                  }
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
            const plan_result res = plan::solve(req);
            if (best < 0) {
              CHECK_FALSE(res.feasible);
              continue;
            }
            REQUIRE(res.feasible);
            CHECK(res.status == plan_status::optimal);
            CHECK(static_cast<int>(res.changes.size()) == best);
            CHECK(res.changes_lower_bound == best);
            check_replan(req, res);
          }
      }
    }
  }
}

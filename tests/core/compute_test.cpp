// SPDX-License-Identifier: Apache-2.0
// Compute instances inside a GPU instance (compute.hpp) against a brute force written
// separately: every CI of a request tried at every compute slice of its GI, the start
// rule re-derived from doc/compute-instances.md, duplicates removed by a std::set. And
// the catalog's CI tables against data/mig-profiles.json, field by field.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <migplan/migplan.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support.hpp"

using namespace migplan;
using migplan::test::index_of;
using migplan::test::model;
using migplan::test::read_text;
using nlohmann::json;

namespace {

// ---------------------------------------------------------------------------------------
// The brute force. It knows only the documented rule: a CI of c slices may start at slice
// s of a g-slice GI when s is a multiple of the smallest power of two that is >= c and
// s + c <= g; CIs may not share a slice; at most max_instances CIs of a profile per GI.

int alignment(int c) {
  int a = 1;
  while (a < c) a *= 2;
  return a;
}

bool may_start(int g, int c, int s) { return s % alignment(c) == 0 && s + c <= g; }

using ci_set = std::vector<std::pair<int, int>>;  // (CI profile, start), sorted

struct brute_verdict {
  std::string reason;        // "", "unknown_ci_profile", "ci_cap", "ci_slices", "ci_placement"
  std::set<ci_set> layouts;  // every distinct layout
};

void place_all(const profile& gi, const std::vector<int>& cis, std::size_t i,
               std::vector<int>& owner, ci_set& cur, std::set<ci_set>& out) {
  if (i == cis.size()) {
    ci_set sorted = cur;
    std::sort(sorted.begin(), sorted.end());
    out.insert(sorted);
    return;
  }
  const int c = gi.ci_profiles[static_cast<std::size_t>(cis[i])].compute_slices;
  for (int s = 0; s < gi.compute_slices; ++s) {
    if (!may_start(gi.compute_slices, c, s)) continue;
    bool free = true;
    for (int k = s; k < s + c; ++k) free = free && owner[static_cast<std::size_t>(k)] < 0;
    if (!free) continue;
    for (int k = s; k < s + c; ++k) owner[static_cast<std::size_t>(k)] = static_cast<int>(i);
    cur.emplace_back(cis[i], s);
    place_all(gi, cis, i + 1, owner, cur, out);
    cur.pop_back();
    for (int k = s; k < s + c; ++k) owner[static_cast<std::size_t>(k)] = -1;
  }
}

brute_verdict brute(const profile& gi, const std::vector<int>& cis) {
  brute_verdict v;
  if (gi.ci_profiles.empty() && !cis.empty()) {
    v.reason = "unknown_ci_profile";
    return v;
  }
  std::map<int, int> count;
  int slices = 0;
  for (int ci : cis) {
    ++count[ci];
    slices += gi.ci_profiles[static_cast<std::size_t>(ci)].compute_slices;
  }
  for (const auto& [ci, n] : count)
    if (n > gi.ci_profiles[static_cast<std::size_t>(ci)].max_instances) v.reason = "ci_cap";
  if (v.reason.empty() && slices > gi.compute_slices) v.reason = "ci_slices";
  if (!v.reason.empty()) return v;
  std::vector<int> owner(static_cast<std::size_t>(gi.compute_slices), -1);
  ci_set cur;
  place_all(gi, cis, 0, owner, cur, v.layouts);
  if (v.layouts.empty()) v.reason = "ci_placement";
  return v;
}

// Every multiset of `gi`'s CI profiles with 0 <= count <= max_instances + 1.
template <class F>
void each_ci_request(const profile& gi, F&& f) {
  const std::size_t n = gi.ci_profiles.size();
  std::vector<int> count(n, 0);
  for (;;) {
    std::vector<int> cis;
    for (std::size_t i = 0; i < n; ++i)
      for (int k = 0; k < count[i]; ++k) cis.push_back(static_cast<int>(i));
    f(cis);
    std::size_t i = 0;
    while (i < n && count[i] == gi.ci_profiles[i].max_instances + 1) count[i++] = 0;
    if (i == n) return;
    ++count[i];
  }
}

std::string names_of(const profile& gi, const std::vector<int>& cis) {
  std::string out;
  for (int ci : cis) out += std::string(gi.ci_profiles[static_cast<std::size_t>(ci)].name) + " ";
  return out;
}

// The fewest GIs that hold `cis`: every way of putting the CIs into GIs (each CI into a GI
// already opened or a new one, so each grouping is tried once), a GI dropped as soon as
// what it holds does not fit.
void fewest_from(const profile& gi, const std::vector<int>& cis, std::size_t i,
                 std::vector<std::vector<int>>& bins, std::size_t& best) {
  if (bins.size() >= best) return;
  if (i == cis.size()) {
    best = bins.size();
    return;
  }
  for (std::size_t b = 0; b <= bins.size(); ++b) {
    if (b == bins.size()) bins.emplace_back();
    bins[b].push_back(cis[i]);
    if (brute(gi, bins[b]).reason.empty()) fewest_from(gi, cis, i + 1, bins, best);
    bins[b].pop_back();
    if (bins[b].empty()) bins.pop_back();
  }
}

std::size_t brute_fewest_gis(const profile& gi, const std::vector<int>& cis) {
  std::vector<std::vector<int>> bins;
  std::size_t best = cis.size() + 1;
  fewest_from(gi, cis, 0, bins, best);
  return best;
}

}  // namespace

TEST_CASE("every CI combination of every GI with CI data matches the brute force",
          "[compute][oracle][exhaustive]") {
  std::size_t checked = 0, fitting = 0;
  for (const gpu_model& m : catalog()) {
    for (const profile& gi : m.profiles) {
      if (gi.ci_profiles.empty()) continue;
      each_ci_request(gi, [&](const std::vector<int>& cis) {
        INFO(m.slug << " " << gi.name << ": " << names_of(gi, cis));
        const brute_verdict want = brute(gi, cis);
        const ci_solution got = solve_cis(gi, cis);
        CHECK(ci_reason_name(got.why.code) == want.reason);
        CHECK(got.layout_count == want.layouts.size());
        if (want.reason.empty()) {
          ++fitting;
          ci_set preferred;
          for (const ci_instance& c : got.where) preferred.emplace_back(c.ci, c.start);
          std::sort(preferred.begin(), preferred.end());
          CHECK(want.layouts.count(preferred) == 1);
          // By start, every CI once.
          CHECK(std::is_sorted(
              got.where.begin(), got.where.end(),
              [](const ci_instance& a, const ci_instance& b) { return a.start < b.start; }));
          CHECK(got.where.size() == cis.size());
        } else {
          CHECK(got.where.empty());
        }
        ++checked;
      });
    }
  }
  CHECK(checked > 100);
  CHECK(fitting > 20);
}

TEST_CASE("the CI start rule meets hand-made GIs where a placement fails", "[compute][oracle]") {
  // No catalog GI has a combination that passes its caps and slices yet cannot be placed
  // under the rule; a hand-made 5-slice GI has one (3c at 0 leaves 3-4, and 2c starts at
  // 0, 2 or 4 only: 4 + 2 > 5).
  static constexpr ci_profile cis[] = {
      {.name = "1c.5g.x", .id = 0, .compute_slices = 1, .sm_count = {}, .max_instances = 5},
      {.name = "2c.5g.x", .id = 1, .compute_slices = 2, .sm_count = {}, .max_instances = 2},
      {.name = "3c.5g.x", .id = 2, .compute_slices = 3, .sm_count = {}, .max_instances = 1},
      {.name = "5g.x",
       .id = 3,
       .compute_slices = 5,
       .sm_count = {},
       .max_instances = 1,
       .is_default = true},
  };
  profile gi{};
  gi.name = "5g.x";
  gi.compute_slices = 5;
  gi.ci_profiles = cis;
  const std::vector<int> bad{2, 1};
  CHECK(solve_cis(gi, bad).why.code == ci_reason_code::ci_placement);
  CHECK(brute(gi, bad).reason == "ci_placement");
  each_ci_request(gi, [&](const std::vector<int>& req) {
    INFO(names_of(gi, req));
    const brute_verdict want = brute(gi, req);
    const ci_solution got = solve_cis(gi, req);
    CHECK(ci_reason_name(got.why.code) == want.reason);
    CHECK(got.layout_count == want.layouts.size());
  });
  // An index that is not a CI profile of the GI, and a GI without CI data.
  CHECK(solve_cis(gi, std::vector<int>{7}).why.code == ci_reason_code::unknown_ci_profile);
  profile unknown{};
  unknown.compute_slices = 3;
  CHECK(solve_cis(unknown, std::vector<int>{0}).why.code == ci_reason_code::unknown_ci_profile);
  CHECK(group_cis(unknown, std::vector<int>{0}).why.code == ci_reason_code::unknown_ci_profile);
}

TEST_CASE("the start rule reproduces every per-GI cap the data gives", "[compute][catalog]") {
  // The caps come from -lcip captures and mig-parted's known configs; the rule was chosen
  // without them in its definition, so each cap is an independent check of it.
  for (const gpu_model& m : catalog())
    for (const profile& gi : m.profiles)
      for (const ci_profile& ci : gi.ci_profiles) {
        INFO(m.slug << " " << gi.name << " " << ci.name);
        CHECK(std::popcount(ci_starts(gi.compute_slices, ci.compute_slices)) == ci.max_instances);
      }
}

TEST_CASE("the user guide's examples: three 1c.3g.20gb fill a 3g GI at 0, 1 and 2", "[compute]") {
  const gpu_model& a100 = model("a100-40gb");
  const profile& gi = a100.profiles[static_cast<std::size_t>(index_of(a100, "3g.20gb"))];
  const int one = find_ci(gi, "1c.3g.20gb");
  REQUIRE(one >= 0);
  const ci_solution three = solve_cis(gi, std::vector<int>{one, one, one});
  REQUIRE(three.feasible());
  CHECK(three.layout_count == 1);
  REQUIRE(three.where.size() == 3);
  for (int i = 0; i < 3; ++i) {
    CHECK(three.where[static_cast<std::size_t>(i)].ci == one);
    CHECK(three.where[static_cast<std::size_t>(i)].start == i);
  }
  const ci_solution four = solve_cis(gi, std::vector<int>{one, one, one, one});
  CHECK(four.why.code == ci_reason_code::ci_cap);
  CHECK(four.why.ci == one);
  CHECK(four.why.needed == 4);
  CHECK(four.why.available == 3);
}

TEST_CASE("the -lci capture's two 1c.3g.40gb CIs are placed at 0:1 and 1:1", "[compute]") {
  // data/captures/a100-80gb-lci.txt: created with -cci 1c.3g.40gb,1c.3g.40gb, no placement.
  const gpu_model& a100 = model("a100-80gb");
  const profile& gi = a100.profiles[static_cast<std::size_t>(index_of(a100, "3g.40gb"))];
  const int one = find_ci(gi, "1c.3g.40gb");
  REQUIRE(one >= 0);
  const ci_solution two = solve_cis(gi, std::vector<int>{one, one});
  REQUIRE(two.feasible());
  CHECK(two.layout_count == 3);  // {0,1}, {0,2}, {1,2}
  REQUIRE(two.where.size() == 2);
  CHECK(two.where[0].start == 0);
  CHECK(two.where[1].start == 1);
}

TEST_CASE("a 4g GI offers 1c, 2c and 4c but no 3c, and 4c and 3c share a 7g GI", "[compute]") {
  const gpu_model& a100 = model("a100-40gb");
  const profile& four = a100.profiles[static_cast<std::size_t>(index_of(a100, "4g.20gb"))];
  CHECK(find_ci_by_slices(four, 1) >= 0);
  CHECK(find_ci_by_slices(four, 2) >= 0);
  CHECK(find_ci_by_slices(four, 3) < 0);
  CHECK(find_ci_by_slices(four, 4) == default_ci(four));
  const profile& seven = a100.profiles[static_cast<std::size_t>(index_of(a100, "7g.40gb"))];
  const ci_solution s =
      solve_cis(seven, std::vector<int>{find_ci_by_slices(seven, 4), find_ci_by_slices(seven, 3)});
  REQUIRE(s.feasible());
  REQUIRE(s.where.size() == 2);
  CHECK(s.where[0].start == 0);
  CHECK(s.where[1].start == 4);
}

TEST_CASE("the default CI of a profile-15 GI is CI profile 7", "[compute][catalog]") {
  for (const auto& [slug, name] : {std::pair{"h100-80gb", "1g.20gb"}, {"gh200-96gb", "1g.24gb"}}) {
    const gpu_model& m = model(slug);
    const profile& gi = m.profiles[static_cast<std::size_t>(index_of(m, name))];
    INFO(slug);
    CHECK(gi.id == 15);
    const int d = default_ci(gi);
    REQUIRE(d >= 0);
    CHECK(gi.ci_profiles[static_cast<std::size_t>(d)].id == 7);
    CHECK(gi.ci_profiles[static_cast<std::size_t>(d)].name == gi.name);
  }
  // Without data the span is empty: unknown, not none.
  const gpu_model& h100 = model("h100-80gb");
  CHECK(h100.profiles[static_cast<std::size_t>(index_of(h100, "3g.40gb"))].ci_profiles.empty());
}

TEST_CASE("CIs asked on their own take the fewest GIs the brute force finds",
          "[compute][oracle][exhaustive]") {
  for (const gpu_model& m : catalog()) {
    for (const profile& gi : m.profiles) {
      if (gi.ci_profiles.empty()) continue;
      const std::size_t n = gi.ci_profiles.size();
      // Every demand of at most 7 CIs (the brute force tries every assignment).
      std::vector<int> count(n, 0);
      for (;;) {
        std::vector<int> cis;
        for (std::size_t i = 0; i < n; ++i)
          for (int k = 0; k < count[i]; ++k) cis.push_back(static_cast<int>(i));
        if (!cis.empty() && cis.size() <= 7) {
          INFO(m.slug << " " << gi.name << ": " << names_of(gi, cis));
          const ci_grouping g = group_cis(gi, cis);
          CHECK(g.why.code == ci_reason_code::none);
          const std::size_t want = brute_fewest_gis(gi, cis);
          if (static_cast<int>(want) > gi.max_instances) {
            CHECK(g.over_cap);
            CHECK(g.gis.size() <= want);
            CHECK(static_cast<int>(g.gis.size()) > gi.max_instances);
          } else {
            CHECK_FALSE(g.over_cap);
            CHECK(g.gis.size() == want);
            std::multiset<int> all;
            for (const auto& part : g.gis) {
              CHECK(brute(gi, part).reason.empty());
              all.insert(part.begin(), part.end());
            }
            CHECK(all == std::multiset<int>(cis.begin(), cis.end()));
          }
        }
        std::size_t i = 0;
        while (i < n && count[i] == 7) count[i++] = 0;
        if (i == n) break;
        ++count[i];
      }
    }
  }
  // The examples: 3 x 1c.3g.20gb fill one GI, 4 need two.
  const gpu_model& a100 = model("a100-40gb");
  const profile& gi = a100.profiles[static_cast<std::size_t>(index_of(a100, "3g.20gb"))];
  const int one = find_ci(gi, "1c.3g.20gb");
  CHECK(group_cis(gi, std::vector<int>(3, one)).gis.size() == 1);
  CHECK(group_cis(gi, std::vector<int>(4, one)).gis.size() == 2);
  const ci_grouping many = group_cis(gi, std::vector<int>(9, one));
  CHECK(many.over_cap);
  CHECK(many.gis.size() == 3);
}

TEST_CASE("the catalog's CI profiles equal data/mig-profiles.json field by field",
          "[compute][catalog][evidence]") {
  const json doc =
      json::parse(read_text(std::filesystem::path(MIGPLAN_DATA_DIR) / "mig-profiles.json"));
  std::size_t rows = 0;
  for (const json& g : doc.at("gpus")) {
    const gpu_model* m = find_model(g.at("id").get<std::string>());
    if (m == nullptr) continue;
    for (const json& r : g.at("gi_profiles")) {
      const std::string gi_name = r.at("name").get<std::string>();
      const profile& gi = m->profiles[static_cast<std::size_t>(index_of(*m, gi_name))];
      const json cis = r.value("ci_profiles", json::array());
      INFO(m->slug << " " << gi_name);
      REQUIRE(gi.ci_profiles.size() == cis.size());
      std::set<int> slices;
      for (std::size_t i = 0; i < cis.size(); ++i) {
        const json& c = cis[i];
        const ci_profile& ci = gi.ci_profiles[i];
        const std::string name = c.at("name").get<std::string>();
        INFO(name);
        CHECK(ci.name == name);
        CHECK(ci.id == c.at("id").get<int>());
        CHECK(ci.max_instances == c.at("max_instances").get<int>());
        CHECK(ci.is_default == c.at("default").get<bool>());
        CHECK(ci.sm_count.has_value() == !c.at("sm_count").is_null());
        if (ci.sm_count) CHECK(*ci.sm_count == c.at("sm_count").get<int>());
        // "1c.3g.20gb" -> 1; the GI's own name -> its slices.
        CHECK(ci.compute_slices ==
              (name == gi_name ? gi.compute_slices : std::stoi(name.substr(0, name.find('c')))));
        CHECK(slices.insert(ci.compute_slices).second);
        CHECK(ci.prov.source == c.at("source").get<std::string>());
        CHECK(ci.prov.notes == c.value("notes", std::string()));
        field want = field::none;
        for (const json& f : c.at("inferred_fields")) {
          const std::string s = f.get<std::string>();
          if (s == "id") want = want | field::id;
          if (s == "sm_count") want = want | field::sm_count;
          if (s == "max_instances") want = want | field::max_instances;
          if (s == "default") want = want | field::default_ci;
        }
        CHECK(static_cast<int>(ci.prov.inferred) == static_cast<int>(want));
        CHECK((ci.prov.inferred != field::none) == c.at("inferred").get<bool>());
        ++rows;
      }
      if (!cis.empty()) {
        const int d = default_ci(gi);
        REQUIRE(d >= 0);
        CHECK(gi.ci_profiles[static_cast<std::size_t>(d)].compute_slices == gi.compute_slices);
      }
    }
  }
  CHECK(rows == 25);
}

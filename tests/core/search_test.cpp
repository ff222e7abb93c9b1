// SPDX-License-Identifier: Apache-2.0
// The search on the design-notes cases, every reason code, ordering and the
// "totals fit implies a layout" property.

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <limits>
#include <migplan/catalog.hpp>
#include <migplan/explain.hpp>
#include <migplan/search.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "support.hpp"

namespace {

using migplan::test::each_multiset;
using migplan::test::index_of;
using migplan::test::model;
using migplan::test::request;

using migplan::gpu_model;
using migplan::instance;
using migplan::item;
using migplan::reason_code;

// A layout as "name@start ..." in start order.
std::string show(const gpu_model& gpu, const migplan::layout& l) {
  std::string out;
  for (const instance& in : l) {
    if (!out.empty()) out += ' ';
    out += gpu.profiles[static_cast<std::size_t>(in.profile)].name;
    out += "@" + std::to_string(in.start);
  }
  return out;
}

std::vector<std::string> shown(const gpu_model& gpu, const migplan::solution& s) {
  std::vector<std::string> out;
  for (const auto& sl : s.layouts) out.push_back(show(gpu, sl.where));
  return out;
}

std::string describe(const gpu_model& gpu, const std::vector<int>& n) {
  std::string out;
  for (std::size_t p = 0; p < n.size(); ++p) {
    if (n[p] == 0) continue;
    if (!out.empty()) out += ' ';
    if (n[p] > 1) out += std::to_string(n[p]) + "x";
    out += gpu.profiles[p].name;
  }
  return out.empty() ? "(empty)" : out;
}

}  // namespace

// --- the design-notes cases ---------------------------------------------------------------

TEST_CASE("4g.20gb 2g.10gb 1g.5gb has exactly one layout and leaves unit 7 free", "[search]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto s = migplan::solve(gpu, request(gpu, "4g.20gb 2g.10gb 1g.5gb"));
  REQUIRE(s.feasible());
  CHECK(s.why.code == reason_code::none);
  CHECK(s.layout_count == 1);
  CHECK(shown(gpu, s) == std::vector<std::string>{"4g.20gb@0 2g.10gb@4 1g.5gb@6"});
  CHECK(s.layouts[0].left.free_mask == 0x80u);
}

TEST_CASE("3g.20gb 2g.10gb 2x1g.5gb has exactly two layouts, both with the 3g.20gb at unit 4",
          "[search]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto s = migplan::solve(gpu, request(gpu, "3g.20gb 2g.10gb 2x1g.5gb"));
  REQUIRE(s.feasible());
  CHECK(s.layout_count == 2);
  REQUIRE(s.layouts.size() == 2);
  const int g3 = index_of(gpu, "3g.20gb");
  for (const auto& sl : s.layouts) {
    INFO(show(gpu, sl.where));
    CHECK(std::count(sl.where.begin(), sl.where.end(), instance{g3, 4}) == 1);
  }
  auto got = shown(gpu, s);
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<std::string>{"1g.5gb@0 1g.5gb@1 2g.10gb@2 3g.20gb@4",
                                        "2g.10gb@0 1g.5gb@2 1g.5gb@3 3g.20gb@4"});
}

TEST_CASE("4x1g.10gb has one layout, at starts 0, 2, 4 and 6", "[search]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto s = migplan::solve(gpu, request(gpu, "4x1g.10gb"));
  CHECK(s.layout_count == 1);
  CHECK(shown(gpu, s) == std::vector<std::string>{"1g.10gb@0 1g.10gb@2 1g.10gb@4 1g.10gb@6"});
}

TEST_CASE("7x1g.5gb 3g.20gb needs more memory units than the GPU has", "[search][reason]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto s = migplan::solve(gpu, request(gpu, "7x1g.5gb 3g.20gb"));
  CHECK_FALSE(s.feasible());
  CHECK(s.layouts.empty());
  CHECK(s.why.code == reason_code::memory_units);
  CHECK(s.why.needed == 11);
  CHECK(s.why.available == 8);
  CHECK(s.why.profiles == std::vector<int>{index_of(gpu, "1g.5gb"), index_of(gpu, "3g.20gb")});
}

TEST_CASE("two 3g.40gb fit on an H100 80GB and a third exceeds the instance cap",
          "[search][reason]") {
  const gpu_model& gpu = model("h100-80gb");
  const int g3 = index_of(gpu, "3g.40gb");
  const auto two = migplan::solve(gpu, request(gpu, "2x3g.40gb"));
  CHECK(two.feasible());
  CHECK(two.layout_count == 1);
  CHECK(shown(gpu, two) == std::vector<std::string>{"3g.40gb@0 3g.40gb@4"});
  const auto three = migplan::solve(gpu, request(gpu, "3x3g.40gb"));
  CHECK_FALSE(three.feasible());
  CHECK(three.why.code == reason_code::instance_cap);
  CHECK(three.why.profiles == std::vector<int>{g3});
  CHECK(three.why.needed == 3);
  CHECK(three.why.available == 2);
}

// --- the rules ------------------------------------------------------------------------------

namespace {
constexpr int huge = std::numeric_limits<int>::max();

// A hand-made model with absurd values, to push totals past the range of long long.
struct huge_model {
  std::array<migplan::profile, 3> profiles{};
  gpu_model gpu{};
  huge_model() {
    for (migplan::profile& p : profiles) {
      p.compute_slices = huge;
      p.size = huge;
      p.max_instances = huge;
    }
    profiles[0].engines = {255, 255, 255, 255, 255};
    gpu.slug = "huge";
    gpu.units = 8;
    gpu.compute_slices = 7;
    gpu.profiles = profiles;
  }
  huge_model(const huge_model&) = delete;
};
}  // namespace

TEST_CASE("totals of huge counts clamp instead of wrapping and still break the rules",
          "[search][rules]") {
  const huge_model m;
  migplan::profile_counts c;
  for (int p = 0; p < 3; ++p) c[p] = huge;
  const migplan::totals t = migplan::totals_of(m.gpu, c);
  // Each term is exact ((2^31 - 1)^2 < 2^63); three of them are not.
  CHECK(t.units == std::numeric_limits<long long>::max());
  CHECK(t.compute == std::numeric_limits<long long>::max());
  CHECK(t.engines[0] == static_cast<long long>(huge) * 255);
  const migplan::rules r(m.gpu);
  CHECK(migplan::rules::within_cap(m.profiles[0], huge));
  CHECK_FALSE(migplan::rules::within_cap(m.profiles[0], static_cast<long long>(huge) + 1));
  const migplan::breach b = r.first_breach(t);
  CHECK(b.rule == migplan::aggregate::units);
  CHECK(b.needed == std::numeric_limits<long long>::max());
  CHECK(b.available == 8);
}

TEST_CASE("first_breach checks units, then compute, then engines in kind order",
          "[search][rules]") {
  const gpu_model& gpu = model("a30");
  const migplan::rules r(gpu);
  REQUIRE(r.budgets[static_cast<std::size_t>(migplan::engine::jpg)] == 1);
  migplan::totals t;
  CHECK(r.first_breach(t).rule == migplan::aggregate::none);
  t.engines[static_cast<std::size_t>(migplan::engine::ofa)] = 2;
  t.engines[static_cast<std::size_t>(migplan::engine::jpg)] = 2;
  CHECK(r.first_breach(t).rule == migplan::aggregate::engines);
  CHECK(r.first_breach(t).engine == static_cast<int>(migplan::engine::jpg));
  CHECK(r.first_breach(t).needed == 2);
  CHECK(r.first_breach(t).available == 1);
  t.compute = 5;
  CHECK(r.first_breach(t).rule == migplan::aggregate::compute);
  CHECK(r.first_breach(t).available == 4);
  t.units = 5;
  CHECK(r.first_breach(t).rule == migplan::aggregate::units);
  CHECK(r.first_breach(t).available == 4);
}

// --- every reason code ----------------------------------------------------------------------

TEST_CASE("an eighth 1g.5gb exceeds the instance cap", "[search][reason]") {
  const gpu_model& gpu = model("a100-40gb");
  CHECK(migplan::solve(gpu, request(gpu, "7x1g.5gb")).feasible());
  const auto s = migplan::solve(gpu, request(gpu, "8x1g.5gb"));
  CHECK(s.why.code == reason_code::instance_cap);
  CHECK(s.why.needed == 8);
  CHECK(s.why.available == 7);
}

TEST_CASE("a 1g.5gb pinned at unit 7 is a bad start", "[search][reason]") {
  const gpu_model& gpu = model("a100-40gb");
  const int g1 = index_of(gpu, "1g.5gb");
  const auto s = migplan::solve(gpu, request(gpu, "1g.5gb@7"));
  CHECK_FALSE(s.feasible());
  CHECK(s.why.code == reason_code::bad_start);
  CHECK(s.why.profiles == std::vector<int>{g1});
  CHECK(s.why.conflict == std::vector<item>{{g1, 7}});
  // The allowed neighbour is fine.
  CHECK(migplan::solve(gpu, request(gpu, "1g.5gb@6")).feasible());
}

TEST_CASE("4g.20gb 2x2g.10gb fits the units but needs eight compute slices of seven",
          "[search][reason]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto s = migplan::solve(gpu, request(gpu, "4g.20gb 2x2g.10gb"));
  CHECK_FALSE(s.feasible());
  CHECK(s.why.code == reason_code::compute_slices);
  CHECK(s.why.needed == 8);
  CHECK(s.why.available == 7);
  CHECK(s.why.profiles == std::vector<int>{index_of(gpu, "2g.10gb"), index_of(gpu, "4g.20gb")});
}

TEST_CASE("an A30 1g.6gb+me and 2g.12gb+me together need two JPG engines of one",
          "[search][reason][engines]") {
  const gpu_model& gpu = model("a30");
  const auto s = migplan::solve(gpu, request(gpu, "1g.6gb+me 2g.12gb+me"));
  CHECK_FALSE(s.feasible());
  CHECK(s.why.code == reason_code::engines);
  CHECK(s.why.engine == static_cast<int>(migplan::engine::jpg));
  CHECK(s.why.needed == 2);
  CHECK(s.why.available == 1);
  CHECK(s.why.profiles ==
        std::vector<int>{index_of(gpu, "1g.6gb+me"), index_of(gpu, "2g.12gb+me")});
  // Either alone fits.
  CHECK(migplan::solve(gpu, request(gpu, "1g.6gb+me 2g.12gb")).feasible());
  CHECK(migplan::solve(gpu, request(gpu, "1g.6gb 2g.12gb+me")).feasible());
}

TEST_CASE("an RTX PRO 6000 1g.24gb+me.all leaves no decoder for another 1g.24gb",
          "[search][reason][engines]") {
  const gpu_model& gpu = model("rtx-pro-6000");
  const auto s = migplan::solve(gpu, request(gpu, "1g.24gb+me.all 1g.24gb"));
  CHECK_FALSE(s.feasible());
  CHECK(s.why.code == reason_code::engines);
  CHECK(s.why.engine == static_cast<int>(migplan::engine::dec));
  CHECK(s.why.needed == 5);
  CHECK(s.why.available == 4);
  // nvml.h: ALL_ME prevents all but _NO_ME profiles next to it.
  CHECK(migplan::solve(gpu, request(gpu, "1g.24gb+me.all 3x1g.24gb-me")).feasible());
}

TEST_CASE("3g.20gb pinned at 0 and 4g.20gb cannot be placed, and both are the conflict",
          "[search][reason][explain]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto items = request(gpu, "3g.20gb@0 4g.20gb");
  const auto s = migplan::solve(gpu, items);
  CHECK_FALSE(s.feasible());
  CHECK(s.layout_count == 0);
  CHECK(s.why.code == reason_code::placement);
  const auto why = migplan::explain(gpu, items, s.why);
  CHECK(why.code == reason_code::placement);
  auto conflict = why.conflict;
  std::sort(conflict.begin(), conflict.end());
  auto all = items;
  std::sort(all.begin(), all.end());
  CHECK(conflict == all);
  CHECK(why.profiles == std::vector<int>{index_of(gpu, "3g.20gb"), index_of(gpu, "4g.20gb")});
  // Unpinned, the 3g.20gb moves to 4 and the pair fits.
  CHECK(migplan::solve(gpu, request(gpu, "3g.20gb 4g.20gb")).layout_count == 1);
}

// --- ordering ------------------------------------------------------------------------------

TEST_CASE("solving the same request twice gives identical output", "[search][order]") {
  for (const auto& [slug, text] : std::vector<std::pair<std::string_view, std::string_view>>{
           {"a100-40gb", "3x1g.5gb 2g.10gb"},
           {"a100-40gb", "1g.10gb 1g.5gb 1g.5gb+me"},
           {"h100-80gb", "3g.40gb 2x1g.10gb"},
           {"rtx-pro-6000", "2x1g.24gb"}}) {
    const gpu_model& gpu = model(slug);
    INFO(slug << ": " << text);
    const auto a = migplan::solve(gpu, request(gpu, text));
    const auto b = migplan::solve(gpu, request(gpu, text));
    REQUIRE(a.layouts.size() == b.layouts.size());
    CHECK(a.layout_count == b.layout_count);
    CHECK(a.layouts.size() > 1);
    for (std::size_t i = 0; i < a.layouts.size(); ++i) {
      CHECK(a.layouts[i].where == b.layouts[i].where);
      CHECK(a.layouts[i].rank == b.layouts[i].rank);
      CHECK(a.layouts[i].left.reachable_mask == b.layouts[i].left.reachable_mask);
    }
  }
}

TEST_CASE("the preferred layout comes first and layouts are ordered by score, then canonically",
          "[search][order]") {
  for (const gpu_model& gpu : migplan::catalog()) {
    DYNAMIC_SECTION("model " << gpu.slug) {
      each_multiset(gpu, [&](const std::vector<item>& items, const std::vector<int>& n) {
        int units = 0;
        for (const item& it : items)
          units += gpu.profiles[static_cast<std::size_t>(it.profile)].size;
        if (units > gpu.units) return;  // nothing to order
        const auto s = migplan::solve(gpu, items);
        if (s.layouts.size() < 2) return;
        INFO(describe(gpu, n));
        bool ordered = true;
        for (std::size_t i = 0; i < s.layouts.size(); ++i) {
          const auto& sl = s.layouts[i];
          if (!(migplan::score_of(migplan::room_of(gpu, sl.where)) == sl.rank)) ordered = false;
          if (!(s.layouts.front().rank >= sl.rank)) ordered = false;
          if (i > 0) {
            const auto& prev = s.layouts[i - 1];
            if (prev.rank < sl.rank) ordered = false;
            if (prev.rank == sl.rank && !(prev.where < sl.where)) ordered = false;
          }
        }
        CHECK(ordered);
      });
    }
  }
}

TEST_CASE("without ranking, layouts come in canonical order with empty scores", "[search][order]") {
  const gpu_model& gpu = model("a100-40gb");
  migplan::solve_options plain;
  plain.rank = false;
  const auto s = migplan::solve(gpu, request(gpu, "3x1g.5gb 2g.10gb"), plain);
  REQUIRE(s.layouts.size() > 1);
  CHECK(s.layout_count == s.layouts.size());
  for (std::size_t i = 1; i < s.layouts.size(); ++i)
    CHECK(s.layouts[i - 1].where < s.layouts[i].where);
  for (const auto& sl : s.layouts) CHECK(sl.rank == migplan::score{});
}

TEST_CASE("max_layouts truncates the layouts but keeps the layout count", "[search][order]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto items = request(gpu, "3x1g.5gb 2g.10gb");
  const auto all = migplan::solve(gpu, items);
  REQUIRE(all.layouts.size() > 2);
  for (std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{2}}) {
    migplan::solve_options opt;
    opt.max_layouts = k;
    const auto some = migplan::solve(gpu, items, opt);
    INFO("max_layouts " << k);
    CHECK(some.layout_count == all.layout_count);
    CHECK(some.feasible());
    REQUIRE(some.layouts.size() == k);
    for (std::size_t i = 0; i < k; ++i) CHECK(some.layouts[i].where == all.layouts[i].where);
  }
}

// --- the property -------------------------------------------------------------------------

TEST_CASE(
    "on the catalog GPUs a request whose totals fit always has a layout unless starts are "
    "pinned",
    "[search][property][exhaustive]") {
  for (const gpu_model& gpu : migplan::catalog()) {
    DYNAMIC_SECTION("model " << gpu.slug) {
      const migplan::rules r(gpu);
      std::size_t totals_fit = 0;
      each_multiset(gpu, [&](const std::vector<item>& items, const std::vector<int>& n) {
        const auto totals = migplan::check_totals(r, items);
        const bool fits = migplan::fits(r, items);
        migplan::solve_options count_only;
        count_only.rank = false;
        const auto s = migplan::solve(gpu, items, count_only);
        if (fits != s.feasible()) FAIL_CHECK("fits() and solve() disagree on " << describe(gpu, n));
        if (totals.code != reason_code::none) return;
        ++totals_fit;
        if (!s.feasible()) FAIL_CHECK("totals fit but no layout: " << describe(gpu, n));
      });
      CHECK(totals_fit > 1);
    }
  }
}

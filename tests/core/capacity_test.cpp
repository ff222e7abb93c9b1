// SPDX-License-Identifier: Apache-2.0
// Room, stranded capacity and addable profiles: exact cases, then every layout
// of every catalog model against a brute-force extension search built on the oracle.

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <migplan/capacity.hpp>
#include <migplan/catalog.hpp>
#include <migplan/search.hpp>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "oracle.hpp"
#include "support.hpp"

namespace {

using migplan::test::model;

using migplan::gpu_model;
using migplan::item;

std::vector<item> repeat(const gpu_model& gpu, std::string_view name, int count) {
  const int p = migplan::find_profile(gpu, name);
  REQUIRE(p >= 0);
  return std::vector<item>(static_cast<std::size_t>(count), item{p});
}

std::vector<item> join(std::vector<item> a, const std::vector<item>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The only (or preferred) layout of a request.
migplan::layout first_layout(const gpu_model& gpu, const std::vector<item>& items) {
  const auto s = migplan::solve(gpu, items);
  REQUIRE(s.feasible());
  return s.layouts.front().where;
}

// What the brute force knows about one layout L: everything reachable from it.
struct expected_room {
  std::uint64_t extensions = 0;
  int reachable_units = 0;
  int reachable_compute = 0;
  migplan::unit_mask reachable_mask = 0;
  std::vector<migplan::unit_mask> starts;  // per profile: starts where one more fits now
  std::vector<int> max_more;               // per profile: most further instances of it alone
};

// Brute force over the oracle's layouts. Every rule is monotone (a subset of a
// valid layout is valid), so the further instance sets E that can join L are
// exactly the sets M \ L over valid layouts M that contain L. Walking every
// subset L of every valid layout M therefore visits each (L, E) pair once.
std::map<oracle::layout_set, expected_room> brute_force(const gpu_model& gpu) {
  const std::size_t np = gpu.profiles.size();
  std::map<oracle::layout_set, expected_room> out;
  for (const auto& [n, layouts] : oracle::all_layouts(gpu)) {
    for (const oracle::layout_set& m : layouts) {
      const std::size_t k = m.size();
      for (std::uint32_t keep = 0; keep < (1u << k); ++keep) {
        oracle::layout_set l;
        int e_units = 0, e_compute = 0, e_profile = -1;
        bool one_profile = true;
        migplan::unit_mask e_mask = 0;
        for (std::size_t i = 0; i < k; ++i) {
          if ((keep >> i) & 1u) {
            l.push_back(m[i]);
            continue;
          }
          const auto& [start, p] = m[i];
          const migplan::profile& pr = gpu.profiles[static_cast<std::size_t>(p)];
          e_units += pr.size;
          e_compute += pr.compute_slices;
          for (int u = start; u < start + pr.size; ++u) e_mask |= migplan::unit_mask{1} << u;
          if (e_profile >= 0 && e_profile != p) one_profile = false;
          e_profile = p;
        }
        expected_room& r = out[l];
        if (r.starts.empty()) {
          r.starts.assign(np, 0);
          r.max_more.assign(np, 0);
        }
        if (keep + 1 != (1u << k)) ++r.extensions;  // a non-empty extension
        r.reachable_units = std::max(r.reachable_units, e_units);
        r.reachable_compute = std::max(r.reachable_compute, e_compute);
        r.reachable_mask |= e_mask;
        const int added = static_cast<int>(k - l.size());
        if (added > 0 && one_profile) {
          auto& mm = r.max_more[static_cast<std::size_t>(e_profile)];
          mm = std::max(mm, added);
        }
        if (added == 1) {
          for (std::size_t i = 0; i < k; ++i)
            if (((keep >> i) & 1u) == 0)
              r.starts[static_cast<std::size_t>(m[i].second)] |= migplan::unit_mask{1}
                                                                 << m[i].first;
        }
      }
    }
  }
  return out;
}

migplan::layout to_layout(const oracle::layout_set& l) {
  migplan::layout out;
  for (const auto& [start, p] : l) out.add({p, start});
  return out;
}

}  // namespace

TEST_CASE("4g.20gb 2g.10gb 1g.5gb on an A100 40GB strands unit 7 and no compute", "[capacity]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto l = first_layout(gpu, join(join(repeat(gpu, "4g.20gb", 1), repeat(gpu, "2g.10gb", 1)),
                                        repeat(gpu, "1g.5gb", 1)));
  const migplan::room rm = migplan::room_of(gpu, l);
  CHECK(rm.free_units == 1);
  CHECK(rm.free_mask == 0x80u);
  CHECK(rm.free_compute == 0);
  CHECK(rm.reachable_units == 0);
  CHECK(rm.reachable_compute == 0);
  CHECK(rm.extensions == 0);  // nothing can be added
  const migplan::stranded s = migplan::stranded_of(gpu, rm);
  CHECK(s.units == 1);
  CHECK(s.compute_slices == 0);
  // One eighth of the 7g.40gb's 39.25 GiB, rounded to the nearest hundredth.
  REQUIRE(s.memory_gib_x100.has_value());
  CHECK(*s.memory_gib_x100 == 491);
  CHECK(migplan::addable_to(gpu, migplan::rules(gpu), l).empty());
}

TEST_CASE("4x1g.10gb on an A100 40GB strands 3 of the 7 compute slices", "[capacity]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto l = first_layout(gpu, repeat(gpu, "1g.10gb", 4));
  const migplan::stranded s = migplan::stranded_of(gpu, migplan::room_of(gpu, l));
  CHECK(s.units == 0);
  CHECK(s.compute_slices == 3);
  CHECK(s.memory_gib_x100 == 0);
}

TEST_CASE("2x3g.40gb on an H100 80GB strands one compute slice", "[capacity]") {
  const gpu_model& gpu = model("h100-80gb");
  const auto l = first_layout(gpu, repeat(gpu, "3g.40gb", 2));
  const migplan::room rm = migplan::room_of(gpu, l);
  CHECK(rm.free_units == 0);
  CHECK(rm.free_compute == 1);
  const migplan::stranded s = migplan::stranded_of(gpu, rm);
  CHECK(s.units == 0);
  CHECK(s.compute_slices == 1);
}

TEST_CASE("stranded memory is the full-GPU profile's memory per unit on every model, as before",
          "[capacity]") {
  // The rule stranded_of() used before full_profile() became the one
  // definition: the first profile that spans every unit and has a known
  // memory figure. Both must pick the same memory on every catalog model.
  auto before = [](const gpu_model& gpu) -> std::optional<int> {
    for (const migplan::profile& p : gpu.profiles)
      if (p.size == gpu.units && p.memory_gib_x100) return p.memory_gib_x100;
    return std::nullopt;
  };
  for (const gpu_model& gpu : migplan::catalog()) {
    INFO(gpu.slug);
    const std::optional<int> full = before(gpu);
    for (int units = 0; units <= gpu.units; ++units) {
      INFO(units << " stranded units");
      migplan::room rm;
      rm.free_units = units;
      const migplan::stranded s = migplan::stranded_of(gpu, rm);
      CHECK(s.units == units);
      if (!full) {
        CHECK_FALSE(s.memory_gib_x100.has_value());
        continue;
      }
      REQUIRE(s.memory_gib_x100.has_value());
      CHECK(*s.memory_gib_x100 == (*full * units + gpu.units / 2) / gpu.units);
    }
  }
  // Spot checks against the -lgip figures: one A30 unit of 4g.24gb's 23.44 GiB,
  // one RTX PRO 6000 unit of 4g.96gb's 95.12 GiB.
  migplan::room one;
  one.free_units = 1;
  CHECK(migplan::stranded_of(model("a30"), one).memory_gib_x100 == 586);
  CHECK(migplan::stranded_of(model("rtx-pro-6000"), one).memory_gib_x100 == 793);
}

TEST_CASE("an empty GPU can reach everything and grow into every layout", "[capacity]") {
  for (std::string_view slug : {"a100-40gb", "a30", "rtx-pro-6000"}) {
    const gpu_model& gpu = model(slug);
    INFO(slug);
    const migplan::room rm = migplan::room_of(gpu, migplan::layout{});
    CHECK(rm.free_units == gpu.units);
    CHECK(rm.reachable_units == gpu.units);
    CHECK(rm.reachable_compute == gpu.compute_slices);
    CHECK(rm.reachable_mask == gpu.all_units());
    std::uint64_t layouts = 0;
    for (const auto& [n, count] : oracle::all_geometries(gpu)) layouts += count;
    CHECK(rm.extensions + 1 == layouts);  // every layout but the empty one
    CHECK(migplan::stranded_of(gpu, rm).units == 0);
  }
}

TEST_CASE("for_each_extension visits every layout once, placements in increasing order",
          "[capacity][oracle]") {
  for (std::string_view slug : {"a100-40gb", "a30", "rtx-pro-6000"}) {
    const gpu_model& gpu = model(slug);
    INFO(slug);
    std::set<oracle::layout_set> want;
    for (const auto& [n, layouts] : oracle::all_layouts(gpu))
      want.insert(layouts.begin(), layouts.end());
    const auto places = migplan::all_placements(gpu);
    std::set<oracle::layout_set> got;
    std::size_t visits = 0;
    bool increasing = true, same_usage = true;
    migplan::for_each_extension(
        migplan::rules(gpu), places, migplan::usage{},
        [&](const migplan::usage& u, std::span<const std::size_t> chosen) {
          ++visits;
          increasing = increasing && std::is_sorted(chosen.begin(), chosen.end()) &&
                       std::adjacent_find(chosen.begin(), chosen.end()) == chosen.end();
          oracle::layout_set l;
          migplan::usage again;
          for (const std::size_t i : chosen) {
            l.emplace_back(places[i].start, places[i].profile);
            again.add(gpu.profiles[static_cast<std::size_t>(places[i].profile)], places[i].profile,
                      places[i].start);
          }
          same_usage = same_usage && u.counts == again.counts && u.units == again.units &&
                       u.sums.compute == again.sums.compute && u.sums.engines == again.sums.engines;
          std::sort(l.begin(), l.end());
          got.insert(std::move(l));
        });
    CHECK(increasing);
    CHECK(same_usage);
    CHECK(visits == got.size());  // no layout twice
    CHECK(got == want);
  }
}

TEST_CASE("room_of and addable_to match a brute-force extension search on every layout",
          "[capacity][oracle][exhaustive]") {
  for (const gpu_model& gpu : migplan::catalog()) {
    DYNAMIC_SECTION("model " << gpu.slug) {
      const auto want_all = brute_force(gpu);
      const migplan::rules r(gpu);
      const auto places = migplan::all_placements(gpu);
      REQUIRE(want_all.size() > 1);
      for (const auto& [ls, want] : want_all) {
        const migplan::layout l = to_layout(ls);
        const migplan::room got = migplan::room_of(gpu, r, places, l);
        const auto adds = migplan::addable_to(gpu, r, l);

        int used_units = 0, used_compute = 0;
        migplan::unit_mask used = 0;
        for (const auto& [start, p] : ls) {
          const migplan::profile& pr = gpu.profiles[static_cast<std::size_t>(p)];
          used_units += pr.size;
          used_compute += pr.compute_slices;
          for (int u = start; u < start + pr.size; ++u) used |= migplan::unit_mask{1} << u;
        }
        std::vector<migplan::unit_mask> got_starts(gpu.profiles.size(), 0);
        std::vector<int> got_more(gpu.profiles.size(), 0);
        bool listed_ok = true;
        for (const migplan::addable& a : adds) {
          if (a.starts == 0 || a.max_more == 0) listed_ok = false;
          got_starts[static_cast<std::size_t>(a.profile)] = a.starts;
          got_more[static_cast<std::size_t>(a.profile)] = a.max_more;
        }
        const bool same = got.free_units == gpu.units - used_units &&
                          got.free_compute == gpu.compute_slices - used_compute &&
                          got.free_mask == (gpu.all_units() & ~used) &&
                          got.reachable_units == want.reachable_units &&
                          got.reachable_compute == want.reachable_compute &&
                          got.reachable_mask == want.reachable_mask &&
                          got.extensions == want.extensions && listed_ok &&
                          got_starts == want.starts && got_more == want.max_more;
        if (same) continue;
        INFO("layout " << oracle::describe(gpu, ls));
        CHECK(got.free_units == gpu.units - used_units);
        CHECK(got.free_compute == gpu.compute_slices - used_compute);
        CHECK(got.free_mask == (gpu.all_units() & ~used));
        CHECK(got.reachable_units == want.reachable_units);
        CHECK(got.reachable_compute == want.reachable_compute);
        CHECK(got.reachable_mask == want.reachable_mask);
        CHECK(got.extensions == want.extensions);
        CHECK(listed_ok);
        CHECK(got_starts == want.starts);
        CHECK(got_more == want.max_more);
      }
      SUCCEED("checked " << want_all.size() << " layouts");
    }
  }
}

TEST_CASE("room_memo answers exactly as room_of on every layout of every model",
          "[capacity][memo][exhaustive]") {
  for (const gpu_model& gpu : migplan::catalog()) {
    INFO(gpu.slug);
    migplan::room_memo memo(gpu);
    for (const auto& [counts, layouts] : oracle::all_layouts(gpu)) {
      for (const oracle::layout_set& set : layouts) {
        migplan::layout l;
        for (const auto& [start, p] : set) l.add({p, start});
        const migplan::room want = migplan::room_of(gpu, l);
        const migplan::room& got = memo.get(l);
        const bool same =
            got.free_units == want.free_units && got.free_compute == want.free_compute &&
            got.reachable_units == want.reachable_units &&
            got.reachable_compute == want.reachable_compute && got.extensions == want.extensions &&
            got.free_mask == want.free_mask && got.reachable_mask == want.reachable_mask;
        if (!same) FAIL_CHECK("room_memo differs on a layout of " << gpu.slug);
        CHECK(memo.get(l).extensions == want.extensions);  // a second lookup hits the memo
      }
    }
  }
}

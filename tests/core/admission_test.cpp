// SPDX-License-Identifier: Apache-2.0
// compare_admission() (migplan/counters.hpp): whether a set of counters
// admits exactly the sets of devices the rules allow. counters_of() must
// agree on every catalog model; counters that leave a rule out, or draw too
// much, must be caught, with the smallest sets that show it.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <migplan/catalog.hpp>
#include <migplan/counters.hpp>
#include <random>
#include <vector>

#include "support.hpp"

namespace {

using migplan::compare_admission;
using migplan::counter_kind;
using migplan::counter_model;
using migplan::gpu_model;
using migplan::test::index_of;
using migplan::test::model;

// `m` without the counters of kind `k`, the draws renumbered.
counter_model without(const counter_model& m, counter_kind k) {
  counter_model out;
  std::vector<int> index_of_counter(m.counters.size(), -1);
  for (std::size_t c = 0; c < m.counters.size(); ++c) {
    if (m.counters[c].kind == k) continue;
    index_of_counter[c] = static_cast<int>(out.counters.size());
    out.counters.push_back(m.counters[c]);
  }
  for (const migplan::counter_device& d : m.devices) {
    migplan::counter_device e{d.where, {}};
    for (const migplan::draw& x : d.draws)
      if (const int c = index_of_counter[static_cast<std::size_t>(x.counter)]; c >= 0)
        e.draws.push_back({c, x.amount});
    out.devices.push_back(std::move(e));
  }
  return out;
}

int counter_of(const counter_model& m, counter_kind k, int index) {
  for (std::size_t c = 0; c < m.counters.size(); ++c)
    if (m.counters[c].kind == k && m.counters[c].index == index) return static_cast<int>(c);
  FAIL("no such counter");
  return -1;
}

}  // namespace

TEST_CASE("migplan's counters admit exactly the legal sets on every catalog model", "[admission]") {
  std::uint64_t most = 0;
  for (const gpu_model& g : migplan::catalog()) {
    INFO(g.slug);
    const auto report = compare_admission(g, migplan::counters_of(g));
    CHECK(report.complete);
    CHECK(report.admitted_illegal == 0);
    CHECK(report.legal_refused == 0);
    CHECK(report.exact());
    most = std::max(most, report.states);
  }
  // The budget is far above what any catalog model needs.
  CHECK(most * 100 < migplan::default_admission_budget);
}

TEST_CASE("naive counters without placement units admit overlapping instances", "[admission]") {
  // Compute, engines and caps alone miss where an instance sits: the
  // placement asymmetry (two instances that fit by their sums but overlap).
  const gpu_model& g = model("a100-40gb");
  const counter_model naive = without(migplan::counters_of(g), counter_kind::unit);
  const auto report = compare_admission(g, naive);
  CHECK(report.complete);
  CHECK_FALSE(report.exact());
  CHECK(report.legal_refused == 0);
  REQUIRE(report.admitted_illegal > 0);
  REQUIRE(report.admitted_illegal_examples.size() == 3);
  // Every example is a smallest one: two placements that share a unit.
  for (const auto& set : report.admitted_illegal_examples) {
    REQUIRE(set.size() == 2);
    CHECK(set[0] < set[1]);
    const auto& a = naive.devices[set[0]].where;
    const auto& b = naive.devices[set[1]].where;
    const auto& pa = g.profiles[static_cast<std::size_t>(a.profile)];
    const auto& pb = g.profiles[static_cast<std::size_t>(b.profile)];
    CHECK((pa.mask_at(a.start) & pb.mask_at(b.start)) != 0);
  }
}

TEST_CASE("a compute counter one short refuses the full GPU", "[admission]") {
  const gpu_model& g = model("h100-80gb");
  counter_model m = migplan::counters_of(g);
  const int compute = counter_of(m, counter_kind::compute, 0);
  --m.counters[static_cast<std::size_t>(compute)].capacity;
  const auto report = compare_admission(g, m, migplan::default_admission_budget, 100);
  CHECK(report.complete);
  CHECK(report.admitted_illegal == 0);
  REQUIRE(report.legal_refused > 0);
  const int full = index_of(g, "7g.80gb");
  bool full_alone = false;
  for (const auto& set : report.legal_refused_examples)
    if (set.size() == 1 && m.devices[set[0]].where.profile == full) full_alone = true;
  CHECK(full_alone);
}

TEST_CASE("a device may draw from counters of two sets and stay exact", "[admission]") {
  // The emitter's two-set split (units and compute, then engines and caps),
  // as one flat list: every device draws from both halves.
  const gpu_model& g = model("a30");
  const counter_model m = migplan::counters_of(g);
  bool both = false;
  for (const auto& d : m.devices) {
    bool first = false, second = false;
    for (const auto& x : d.draws) {
      const auto k = m.counters[static_cast<std::size_t>(x.counter)].kind;
      (k == counter_kind::unit || k == counter_kind::compute ? first : second) = true;
    }
    both = both || (first && second);
  }
  CHECK(both);
  CHECK(compare_admission(g, m).exact());
  // Without the second half, the cap no longer binds: not exact.
  CHECK_FALSE(
      compare_admission(g, without(without(m, counter_kind::cap), counter_kind::engine)).exact());
}

TEST_CASE("two devices at one placement are exact when a unit counter parts them", "[admission]") {
  const gpu_model& g = model("a100-40gb");
  counter_model m = migplan::counters_of(g);
  m.devices.push_back(m.devices.front());
  CHECK(compare_admission(g, m).exact());
  // With no draws, the copy is admitted beside the original: illegal.
  m.devices.back().draws.clear();
  const auto report = compare_admission(g, m);
  CHECK(report.admitted_illegal > 0);
  REQUIRE(!report.admitted_illegal_examples.empty());
  CHECK(report.admitted_illegal_examples.front().back() == m.devices.size() - 1);
}

TEST_CASE("a device at a start its profile does not allow is admitted but illegal", "[admission]") {
  const gpu_model& g = model("a100-40gb");
  counter_model m = migplan::counters_of(g);
  migplan::counter_device bad{{index_of(g, "4g.20gb"), 1}, {}};
  m.devices.push_back(bad);
  const auto report = compare_admission(g, m);
  CHECK(report.admitted_illegal == 1);
  REQUIRE(report.admitted_illegal_examples.size() == 1);
  CHECK(report.admitted_illegal_examples[0] == std::vector<std::size_t>{m.devices.size() - 1});
}

TEST_CASE("past its budget the walk says incomplete, never exact", "[admission]") {
  const gpu_model& g = model("h100-80gb");
  const auto report = compare_admission(g, migplan::counters_of(g), 10);
  CHECK_FALSE(report.complete);
  CHECK(report.states == 10);
  CHECK_FALSE(report.exact());
}

TEST_CASE("many devices that draw nothing stop at the budget, not the stack", "[admission]") {
  // The rules bound the depth; with every placement legal alone and nothing
  // drawn, each differing pair is found and the walk stays within budget.
  const gpu_model& g = model("a100-40gb");
  counter_model m;
  for (int i = 0; i < 5000; ++i) m.devices.push_back({{index_of(g, "1g.5gb"), i % 7}, {}});
  const auto report = compare_admission(g, m, 100'000);
  CHECK_FALSE(report.complete);
  CHECK(report.states == 100'000);
  CHECK_FALSE(report.exact());
  // A difference seen before the budget ran out still shows, shrunk to a
  // smallest one: two devices at one start.
  REQUIRE(report.admitted_illegal_examples.size() >= 1);
  const auto& pair = report.admitted_illegal_examples.front();
  REQUIRE(pair.size() == 2);
  CHECK(m.devices[pair[0]].where.start == m.devices[pair[1]].where.start);
}

TEST_CASE("the walk counts exactly the smallest differing sets a brute force finds",
          "[admission][exhaustive]") {
  // Random small slices: the catalog's counters with capacities moved by
  // one, devices at random placements (a start may be one the profile does
  // not allow, two may share a placement) with draws dropped or raised.
  // Every subset is judged from scratch, both sides; the smallest sets the
  // two differ on (every subset one device smaller agreed on) are counted by
  // kind and must be what the walk counts, its examples among them.
  std::mt19937 rng(52);
  const auto below = [&rng](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  int differing_models = 0;
  for (const char* slug : {"a30", "a100-40gb", "h100-80gb"}) {
    const gpu_model& g = model(slug);
    const counter_model base = migplan::counters_of(g);
    const migplan::rules r(g);
    for (int round = 0; round < 120; ++round) {
      counter_model m;
      m.counters = base.counters;
      for (auto& c : m.counters)
        if (below(4) == 0) c.capacity = std::max(0, c.capacity + below(3) - 1);
      const int n = 2 + below(9);
      for (int i = 0; i < n; ++i) {
        migplan::counter_device d =
            base.devices[static_cast<std::size_t>(below(static_cast<int>(base.devices.size())))];
        if (below(8) == 0) d.where.start = below(g.units);
        std::vector<migplan::draw> kept;
        for (migplan::draw x : d.draws) {
          if (below(6) == 0) continue;
          if (below(8) == 0) ++x.amount;
          kept.push_back(x);
        }
        d.draws = kept;
        m.devices.push_back(d);
      }
      const auto legal = [&](std::uint32_t set) {
        migplan::usage u;
        for (int i = 0; i < n; ++i) {
          if ((set >> i & 1u) == 0) continue;
          const migplan::instance& w = m.devices[static_cast<std::size_t>(i)].where;
          if (!r.can_add(u, w.profile, w.start)) return false;
          u.add(g.profiles[static_cast<std::size_t>(w.profile)], w.profile, w.start);
        }
        return true;
      };
      const auto admitted = [&](std::uint32_t set) {
        std::vector<std::size_t> chosen;
        for (int i = 0; i < n; ++i)
          if (set >> i & 1u) chosen.push_back(static_cast<std::size_t>(i));
        return migplan::allocatable(m, chosen);
      };
      const std::uint32_t all = 1u << n;
      std::vector<int> side(all);  // bit 0: admitted, bit 1: legal
      for (std::uint32_t s = 0; s < all; ++s) side[s] = (admitted(s) ? 1 : 0) | (legal(s) ? 2 : 0);
      std::uint64_t admitted_illegal = 0, legal_refused = 0;
      std::vector<std::vector<std::size_t>> smallest;
      for (std::uint32_t s = 1; s < all; ++s) {
        if (side[s] == 0 || side[s] == 3) continue;
        bool least = true;
        for (int i = 0; i < n && least; ++i)
          if ((s >> i & 1u) != 0 && side[s & ~(1u << i)] != 0 && side[s & ~(1u << i)] != 3)
            least = false;
        if (!least) continue;
        (side[s] == 1 ? admitted_illegal : legal_refused) += 1;
        std::vector<std::size_t> v;
        for (int i = 0; i < n; ++i)
          if (s >> i & 1u) v.push_back(static_cast<std::size_t>(i));
        smallest.push_back(v);
      }
      const auto report = compare_admission(g, m);
      INFO(slug << " round " << round);
      REQUIRE(report.complete);
      CHECK(report.admitted_illegal == admitted_illegal);
      CHECK(report.legal_refused == legal_refused);
      for (const auto* examples :
           {&report.admitted_illegal_examples, &report.legal_refused_examples})
        for (const auto& e : *examples)
          CHECK(std::find(smallest.begin(), smallest.end(), e) != smallest.end());
      if (admitted_illegal + legal_refused > 0) ++differing_models;
    }
  }
  // The random slices are not all exact: the test saw differences to count.
  CHECK(differing_models > 60);
}

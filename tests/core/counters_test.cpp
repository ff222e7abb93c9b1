// SPDX-License-Identifier: Apache-2.0
// The counter model (migplan/counters.hpp) against the rules, exhaustively:
// on every catalog model, every set of placements that the counters allow or
// the rules allow is allowed by both. Two references decide "legal": the
// core's rules (rules::can_add) and the naive oracle, which shares no code
// with the core. doc/dra.md states the proof; this is its check.
//
// Sets of placements that share a unit fail both sides (the pair test below),
// and both sides are monotone (a set that fails has only failing supersets:
// counters only add up, and every rule is monotone), so it is enough to walk
// the sets whose placements are pairwise unit-disjoint.

#include <array>
#include <catch2/catch.hpp>
#include <cstddef>
#include <functional>
#include <migplan/capacity.hpp>
#include <migplan/catalog.hpp>
#include <migplan/counters.hpp>
#include <migplan/rules.hpp>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "oracle.hpp"

namespace {

using migplan::catalog;
using migplan::counter;
using migplan::counter_kind;
using migplan::counter_model;
using migplan::gpu_model;
using migplan::instance;
using migplan::unit_mask;

unit_mask mask_of(const gpu_model& g, const instance& pl) {
  return g.profiles[static_cast<std::size_t>(pl.profile)].mask_at(pl.start);
}

// Calls f(chosen) for every set of pairwise unit-disjoint devices of `m`,
// the empty set included, each once (indices in increasing order).
void for_each_disjoint(const gpu_model& g, const counter_model& m,
                       const std::function<void(std::span<const std::size_t>)>& f) {
  std::vector<std::size_t> chosen;
  std::function<void(std::size_t, unit_mask)> walk = [&](std::size_t from, unit_mask used) {
    f(chosen);
    for (std::size_t i = from; i < m.devices.size(); ++i) {
      const unit_mask mask = mask_of(g, m.devices[i].where);
      if ((mask & used) != 0) continue;
      chosen.push_back(i);
      walk(i + 1, used | mask);
      chosen.pop_back();
    }
  };
  walk(0, 0);
}

// The core's verdict: the placements added one by one, each checked by
// rules::can_add against those before it. Every rule is monotone, so this
// accepts the set exactly when the set keeps every rule.
bool legal_by_rules(const gpu_model& g, const counter_model& m,
                    std::span<const std::size_t> chosen) {
  const migplan::rules r(g);
  migplan::usage u;
  for (const std::size_t i : chosen) {
    const instance pl = m.devices[i].where;
    if (!r.can_add(u, pl.profile, pl.start)) return false;
    u.add(g.profiles[static_cast<std::size_t>(pl.profile)], pl.profile, pl.start);
  }
  return true;
}

// The oracle's verdict: the placements as pinned instances.
bool legal_by_oracle(const gpu_model& g, const counter_model& m,
                     std::span<const std::size_t> chosen) {
  std::vector<oracle::pin> pins;
  for (const std::size_t i : chosen)
    pins.push_back({m.devices[i].where.profile, m.devices[i].where.start});
  return oracle::solve(g, oracle::counts(g.profiles.size(), 0), pins).feasible();
}

std::string describe(const gpu_model& g, const counter_model& m,
                     std::span<const std::size_t> chosen) {
  std::ostringstream out;
  for (const std::size_t i : chosen)
    out << g.profiles[static_cast<std::size_t>(m.devices[i].where.profile)].name << '@'
        << m.devices[i].where.start << ' ';
  return chosen.empty() ? "(empty)" : out.str();
}

// Sets where the counters and the rules disagree, over every unit-disjoint set
// and every pair of overlapping placements of `g`; the first one in `first`.
long long disagreements(const gpu_model& g, const counter_model& m, std::string* first = nullptr) {
  long long n = 0;
  const auto check = [&](std::span<const std::size_t> chosen) {
    if (migplan::allocatable(m, chosen) == legal_by_rules(g, m, chosen)) return;
    if (n++ == 0 && first != nullptr) *first = describe(g, m, chosen);
  };
  for_each_disjoint(g, m, check);
  for (std::size_t i = 0; i < m.devices.size(); ++i)
    for (std::size_t j = i + 1; j < m.devices.size(); ++j)
      if ((mask_of(g, m.devices[i].where) & mask_of(g, m.devices[j].where)) != 0) {
        const std::array<std::size_t, 2> pair{i, j};
        check(pair);
      }
  return n;
}

// `m` without the counters `drop` selects: what a slice missing them would allow.
counter_model without(counter_model m, const std::function<bool(const counter&)>& drop) {
  for (counter& c : m.counters)
    if (drop(c)) c.capacity = 1 << 30;
  return m;
}

bool has_counter(const counter_model& m, const std::function<bool(const counter&)>& pick) {
  for (const counter& c : m.counters)
    if (pick(c)) return true;
  return false;
}

}  // namespace

TEST_CASE("each device draws its units, compute slices, enforced engines and profile cap",
          "[counters]") {
  for (const gpu_model& g : catalog()) {
    INFO("model " << g.slug);
    const counter_model m = migplan::counters_of(g);
    const migplan::engine_limits budgets = migplan::engine_budgets(g);
    REQUIRE(m.devices.size() == migplan::all_placements(g).size());
    for (const migplan::counter_device& d : m.devices) {
      const migplan::profile& p = g.profiles[static_cast<std::size_t>(d.where.profile)];
      INFO(p.name << '@' << d.where.start);
      unit_mask units = 0;
      int compute = 0, caps = 0;
      std::array<int, migplan::engine_kinds> engines{};
      for (const migplan::draw& x : d.draws) {
        const counter& c = m.counters[static_cast<std::size_t>(x.counter)];
        CHECK(x.amount > 0);
        switch (c.kind) {
          case counter_kind::unit:
            CHECK(c.capacity == 1);
            CHECK(x.amount == 1);
            units |= unit_mask{1} << c.index;
            break;
          case counter_kind::compute:
            CHECK(c.capacity == g.compute_slices);
            compute += x.amount;
            break;
          case counter_kind::engine:
            CHECK(c.capacity == budgets[static_cast<std::size_t>(c.index)]);
            engines[static_cast<std::size_t>(c.index)] += x.amount;
            break;
          case counter_kind::cap:
            CHECK(c.index == d.where.profile);
            CHECK(c.capacity == p.max_instances);
            CHECK(x.amount == 1);
            ++caps;
            break;
        }
      }
      CHECK(units == mask_of(g, d.where));
      CHECK(compute == p.compute_slices);
      CHECK(caps == 1);
      for (std::size_t e = 0; e < migplan::engine_kinds; ++e)
        CHECK(engines[e] == (budgets[e] ? p.engines[e].value_or(0) : 0));
    }
  }
}

TEST_CASE("every counter is drawn by some device, and each appears once", "[counters]") {
  for (const gpu_model& g : catalog()) {
    INFO("model " << g.slug);
    const counter_model m = migplan::counters_of(g);
    std::vector<int> drawn(m.counters.size(), 0);
    for (const migplan::counter_device& d : m.devices)
      for (const migplan::draw& x : d.draws) ++drawn[static_cast<std::size_t>(x.counter)];
    for (std::size_t c = 0; c < m.counters.size(); ++c) {
      CHECK(drawn[c] > 0);
      for (std::size_t k = c + 1; k < m.counters.size(); ++k)
        CHECK_FALSE((m.counters[c].kind == m.counters[k].kind &&
                     m.counters[c].index == m.counters[k].index));
    }
  }
}

TEST_CASE("placements sharing a unit overdraw the counter of each unit they share", "[counters]") {
  for (const gpu_model& g : catalog()) {
    INFO("model " << g.slug);
    const counter_model m = migplan::counters_of(g);
    for (std::size_t i = 0; i < m.devices.size(); ++i)
      for (std::size_t j = i + 1; j < m.devices.size(); ++j) {
        const unit_mask shared = mask_of(g, m.devices[i].where) & mask_of(g, m.devices[j].where);
        if (shared == 0) continue;
        const std::array<std::size_t, 2> pair{i, j};
        INFO(describe(g, m, pair));
        CHECK_FALSE(legal_by_rules(g, m, pair));
        CHECK_FALSE(legal_by_oracle(g, m, pair));
        // Other counters may be overdrawn too (two +me instances are over
        // their cap as well); the units alone already reject the pair.
        unit_mask over = 0;
        for (const int c : migplan::overdrawn(m, pair)) {
          const counter& k = m.counters[static_cast<std::size_t>(c)];
          if (k.kind == counter_kind::unit) over |= unit_mask{1} << k.index;
        }
        CHECK(over == shared);
      }
  }
}

TEST_CASE(
    "on every catalog model, the counters allow a set of placements exactly when the rules do",
    "[counters]") {
  long long sets = 0, legal = 0;
  for (const gpu_model& g : catalog()) {
    INFO("model " << g.slug);
    const counter_model m = migplan::counters_of(g);
    long long model_legal = 0, wrong = 0;
    std::string first;
    for_each_disjoint(g, m, [&](std::span<const std::size_t> chosen) {
      ++sets;
      const bool by_counters = migplan::allocatable(m, chosen);
      const bool by_rules = legal_by_rules(g, m, chosen);
      const bool by_oracle = legal_by_oracle(g, m, chosen);
      if (by_rules) ++model_legal;
      if (by_counters == by_rules && by_rules == by_oracle) return;
      if (wrong++ == 0)
        first = describe(g, m, chosen) + (by_counters ? "allocatable" : "not allocatable") +
                (by_rules ? ", legal by the rules" : ", illegal by the rules") +
                (by_oracle ? ", legal by the oracle" : ", illegal by the oracle");
    });
    INFO("first disagreement: " << first);
    CHECK(wrong == 0);
    // The legal sets are the layouts the core enumerates, the empty one included.
    long long layouts = 0;
    migplan::for_each_extension(
        migplan::rules(g), migplan::all_placements(g), migplan::usage{},
        [&](const migplan::usage&, std::span<const std::size_t>) { ++layouts; });
    CHECK(model_legal == layouts);
    legal += model_legal;
  }
  // Every model was walked: 16 models, most of them 5536 disjoint sets.
  CHECK(sets > 60000);
  CHECK(legal > 25000);
}

TEST_CASE("the unit, cap and engine counters each decide sets on the catalog", "[counters]") {
  // Without a kind of counter the slice would allow illegal sets somewhere:
  // the agreement above depends on each of these.
  const auto count = [](const std::function<bool(const counter&)>& drop) {
    long long n = 0;
    for (const gpu_model& g : catalog()) {
      const counter_model m = migplan::counters_of(g);
      if (has_counter(m, drop)) n += disagreements(g, without(m, drop));
    }
    return n;
  };
  CHECK(count([](const counter& c) { return c.kind == counter_kind::unit; }) > 0);
  CHECK(count([](const counter& c) { return c.kind == counter_kind::cap; }) > 0);
  CHECK(count([](const counter& c) { return c.kind == counter_kind::engine; }) > 0);
}

TEST_CASE("on the catalog, the compute counter and each single engine kind never bind alone",
          "[counters][exhaustive]") {
  // doc/dra.md says so: the placements keep compute within the GPU's on every
  // catalog model, and engine kinds over budget always come in twos (JPG with
  // OFA) or with a cap. The counters stay, for models where they do bind (the
  // next tests); if a new model makes one bind here, update doc/dra.md.
  for (const gpu_model& g : catalog()) {
    INFO("model " << g.slug);
    const counter_model m = migplan::counters_of(g);
    CHECK(disagreements(g, without(m, [](const counter& c) {
                          return c.kind == counter_kind::compute;
                        })) == 0);
    for (int e = 0; e < static_cast<int>(migplan::engine_kinds); ++e) {
      INFO("engine " << migplan::engine_names[static_cast<std::size_t>(e)]);
      CHECK(disagreements(g, without(m, [e](const counter& c) {
                            return c.kind == counter_kind::engine && c.index == e;
                          })) == 0);
    }
  }
}

namespace {

// Hand-made models where one counter alone decides: what a model file could hold.
using migplan::engine_counts;
using migplan::profile;

constexpr profile make_profile(std::string_view name, int id, int compute, int size,
                               unit_mask starts, int cap, engine_counts engines = {}) {
  profile p{};
  p.name = name;
  p.id = id;
  p.compute_slices = compute;
  p.size = size;
  p.starts = starts;
  p.max_instances = cap;
  p.engines = engines;
  return p;
}

constexpr gpu_model make_model(std::string_view slug, int units, int compute,
                               std::span<const profile> profiles) {
  gpu_model m{};
  m.slug = slug;
  m.units = units;
  m.compute_slices = compute;
  m.profiles = profiles;
  return m;
}

// 4 units, 2 compute slices: three 1-unit instances fit the units, not the compute.
constexpr profile thin_profiles[] = {make_profile("1g.1gb", 1, 1, 1, 0xF, 4)};
constexpr gpu_model thin = make_model("thin", 4, 2, thin_profiles);

// Two 1-unit profiles with a decoder each, under a full profile with one.
constexpr engine_counts one_dec{0, 1, 0, 0, 0};
constexpr profile dec_profiles[] = {make_profile("2g.2gb", 0, 2, 2, 0x1, 1, one_dec),
                                    make_profile("1g.1gb+a", 1, 1, 1, 0x3, 1, one_dec),
                                    make_profile("1g.1gb+b", 2, 1, 1, 0x3, 1, one_dec)};
constexpr gpu_model dec = make_model("dec", 2, 2, dec_profiles);

}  // namespace

TEST_CASE("the compute counter decides on a model whose placements do not bound compute",
          "[counters]") {
  const counter_model m = migplan::counters_of(thin);
  CHECK(disagreements(thin, m) == 0);
  const auto compute = [](const counter& c) { return c.kind == counter_kind::compute; };
  std::string first;
  CHECK(disagreements(thin, without(m, compute), &first) > 0);
  CHECK(first == "1g.1gb@0 1g.1gb@1 1g.1gb@2 ");
}

TEST_CASE("a single engine counter decides on a model where only it is over budget", "[counters]") {
  const counter_model m = migplan::counters_of(dec);
  CHECK(disagreements(dec, m) == 0);
  const auto decoders = [](const counter& c) {
    return c.kind == counter_kind::engine && c.index == static_cast<int>(migplan::engine::dec);
  };
  REQUIRE(has_counter(m, decoders));
  std::string first;
  CHECK(disagreements(dec, without(m, decoders), &first) > 0);
  CHECK(first == "1g.1gb+a@0 1g.1gb+b@1 ");
}

TEST_CASE("a placement past the last unit is no device", "[counters]") {
  // 3 units; a 2-unit profile allowed at 0 and 2 (a model file's mistake).
  static constexpr profile profiles[] = {make_profile("2g.2gb", 0, 2, 2, 0x5, 2)};
  static constexpr gpu_model odd = make_model("odd", 3, 3, profiles);
  const counter_model m = migplan::counters_of(odd);
  REQUIRE(m.devices.size() == 1);
  CHECK(m.devices[0].where.start == 0);
  CHECK(disagreements(odd, m) == 0);
}

// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file counters.hpp
/// The rules of rules.hpp as shared counters: capacities that devices draw
/// from, with a set of devices allowed exactly when no counter is overdrawn.
/// This is the form Kubernetes' partitionable devices take (KEP-4815: a
/// ResourceSlice's counter sets, consumed by its devices; doc/dra.md), and
/// every rule fits it, because every rule is linear in the instances:
///  1. a counter per placement unit, capacity 1, drawn 1 by each placement
///     that occupies the unit: no two instances share a unit;
///  2. a device exists only at an allowed start (no counter needed);
///  3. a counter per profile, capacity max_instances, drawn 1 by each of the
///     profile's placements;
///  4. a counter of compute slices, capacity gpu.compute_slices;
///  5. a counter per engine kind that engine_budgets() enforces, capacity the
///     budget, drawn by each placement's count of that engine.
/// A counter that no device draws is left out: it can bind nothing (an
/// enforced engine kind that no profile has, such as NVENC on A100).
/// tests/core/counters_test.cpp checks, on every set of placements of every
/// catalog model, that allocatable() agrees with the rules.

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <migplan/capacity.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/rules.hpp>
#include <span>
#include <vector>

namespace migplan {
inline namespace v1 {

/// Which rule a counter stands for.
enum class counter_kind : std::uint8_t {
  unit,     ///< one placement unit (rule 1)
  compute,  ///< the compute slices (rule 4)
  engine,   ///< one enforced engine kind (rule 5)
  cap,      ///< one profile's instance cap (rule 3)
};

/// A shared counter: a capacity that devices draw from.
struct counter {
  counter_kind kind = counter_kind::unit;  ///< the rule it stands for
  int index = 0;     ///< the unit, the engine kind or the profile index; 0 for compute
  int capacity = 0;  ///< what all allocated devices together may draw
};

/// What one device draws from one counter.
struct draw {
  int counter = 0;  ///< index into counter_model::counters
  int amount = 0;   ///< always above 0
};

/// A device: one placement and what it draws.
struct counter_device {
  instance where;           ///< the placement (profile index, start)
  std::vector<draw> draws;  ///< in increasing counter order
};

/// A model's rules as counters, and one device per placement.
struct counter_model {
  /// Units, then compute, then engine kinds in `engine` order, then one cap per profile.
  std::vector<counter> counters;
  /// One per placement, in all_placements() order.
  std::vector<counter_device> devices;
};

/// The counter model of `gpu` (see the file comment).
inline counter_model counters_of(const gpu_model& gpu) {
  const engine_limits budgets = engine_budgets(gpu);
  // A placement running past the last unit cannot be created (rules::can_add
  // refuses it), so it is no device; no catalog model has one.
  std::vector<instance> places;
  for (const instance& pl : all_placements(gpu))
    if ((gpu.profiles[static_cast<std::size_t>(pl.profile)].mask_at(pl.start) & ~gpu.all_units()) ==
        0)
      places.push_back(pl);

  // What each placement would draw from each candidate counter, before the
  // counters nobody draws are dropped.
  std::vector<counter> all;
  for (int u = 0; u < gpu.units; ++u) all.push_back({counter_kind::unit, u, 1});
  all.push_back({counter_kind::compute, 0, gpu.compute_slices});
  for (std::size_t e = 0; e < engine_kinds; ++e)
    if (budgets[e]) all.push_back({counter_kind::engine, static_cast<int>(e), *budgets[e]});
  for (std::size_t p = 0; p < gpu.profiles.size(); ++p)
    all.push_back({counter_kind::cap, static_cast<int>(p), gpu.profiles[p].max_instances});

  const auto amount = [&](const counter& c, const instance& pl) -> int {
    const profile& p = gpu.profiles[static_cast<std::size_t>(pl.profile)];
    switch (c.kind) {
      case counter_kind::unit:
        return static_cast<int>((p.mask_at(pl.start) >> c.index) & 1u);
      case counter_kind::compute:
        return p.compute_slices;
      case counter_kind::engine:
        // Enforced kinds have every profile's count (engine_budgets()).
        return p.engines[static_cast<std::size_t>(c.index)].value_or(0);
      case counter_kind::cap:
        return c.index == pl.profile ? 1 : 0;
    }
    return 0;
  };

  counter_model out;
  std::vector<int> index_of(all.size(), -1);
  for (std::size_t c = 0; c < all.size(); ++c) {
    bool drawn = false;
    for (const instance& pl : places)
      if (amount(all[c], pl) > 0) drawn = true;
    if (!drawn) continue;
    index_of[c] = static_cast<int>(out.counters.size());
    out.counters.push_back(all[c]);
  }
  for (const instance& pl : places) {
    counter_device d{pl, {}};
    for (std::size_t c = 0; c < all.size(); ++c)
      if (const int a = amount(all[c], pl); a > 0) {
        assert(index_of[c] >= 0);
        d.draws.push_back({index_of[c], a});
      }
    out.devices.push_back(std::move(d));
  }
  return out;
}

/// The counters that the devices `chosen` (indices into m.devices, each at
/// most once) overdraw together, in increasing order; empty when they can all
/// be allocated at once.
inline std::vector<int> overdrawn(const counter_model& m, std::span<const std::size_t> chosen) {
  std::vector<long long> drawn(m.counters.size(), 0);
  for (const std::size_t d : chosen) {
    assert(d < m.devices.size());
    for (const draw& x : m.devices[d].draws) drawn[static_cast<std::size_t>(x.counter)] += x.amount;
  }
  std::vector<int> out;
  for (std::size_t c = 0; c < drawn.size(); ++c)
    if (drawn[c] > m.counters[c].capacity) out.push_back(static_cast<int>(c));
  return out;
}

/// True when the devices `chosen` can be allocated together: the scheduler's
/// test, each counter's capacity at least the sum of what they draw from it.
inline bool allocatable(const counter_model& m, std::span<const std::size_t> chosen) {
  return overdrawn(m, chosen).empty();
}

/// What compare_admission() found: whether the counters of a counter_model
/// admit exactly the sets of devices the rules allow.
struct admission_report {
  /// False when the walk stopped at its budget before it saw every set: then
  /// agreement is unknown, not assumed (a difference found is still real).
  bool complete = true;
  /// Sets looked at: the empty set and each extension tried (what the budget counts).
  std::uint64_t states = 0;
  /// True when some set was found on which the two sides differ.
  bool differs = false;
  /// Smallest differing sets found: allocatable by the counters, illegal by the rules.
  std::uint64_t admitted_illegal = 0;
  /// Smallest differing sets found: legal by the rules, refused by the counters.
  std::uint64_t legal_refused = 0;
  /// Up to `examples` of each, the fewest devices first (the smallest of
  /// those found), as device indices in increasing order.
  std::vector<std::vector<std::size_t>> admitted_illegal_examples;
  std::vector<std::vector<std::size_t>> legal_refused_examples;  ///< as above
  /// True when the counters and the rules agree on every set of devices.
  bool exact() const noexcept { return complete && !differs; }
};

/// The default budget of compare_admission(): sets looked at. Every catalog
/// model needs well under 1% of it (tests/core/admission_test.cpp), and a
/// walk of the whole budget takes well under a second.
inline constexpr std::uint64_t default_admission_budget = 4'000'000;

/// Compares, on every set of devices of `m` (each device at most once),
/// "the counters admit it" (allocatable()) with "the rules allow it" (each
/// device's placement added in turn with rules::can_add on `gpu`), and
/// returns the smallest sets on which they differ (up to `examples` of each
/// kind). Devices may be anything a ResourceSlice says: two at one
/// placement, a start the profile does not allow, draws from any counters
/// (amounts of 0 or more). Each device's profile must be an index of `gpu`.
///
/// Both sides are monotone (a superset of a refused set is refused: draws
/// only add up, and every rule is monotone), so if the two families of sets
/// differ, a smallest differing set T has every proper subset allowed by
/// both; T minus its last device is then a set both allow. The walk
/// therefore visits only the sets both allow, depth first in increasing
/// index order (each once), and tries each one's extensions by one later
/// device: an extension both allow is walked, one neither allows is pruned,
/// and one only one side allows differs; it is counted (and may be an
/// example) when it is a smallest one, each subset one device smaller
/// allowed by both. At most `budget` sets
/// are looked at (each extension tried counts, so the time is bounded even
/// for thousands of devices); past it the report says incomplete.
inline admission_report compare_admission(const gpu_model& gpu, const counter_model& m,
                                          std::uint64_t budget = default_admission_budget,
                                          std::size_t examples = 3) {
  const rules r(gpu);
  admission_report out;
  std::vector<long long> drawn(m.counters.size(), 0);
  std::vector<std::size_t> chosen;
  usage u;

  const auto admits = [&](const counter_device& d) {
    for (const draw& x : d.draws)
      if (drawn[static_cast<std::size_t>(x.counter)] + x.amount >
          m.counters[static_cast<std::size_t>(x.counter)].capacity)
        return false;
    return true;
  };
  const auto legal = [&](const counter_device& d) {
    const instance& w = d.where;
    assert(w.profile >= 0 && static_cast<std::size_t>(w.profile) < gpu.profiles.size());
    // can_add() shifts by the start: keep it within the mask's width.
    if (w.start < 0 || w.start >= max_units) return false;
    return r.can_add(u, w.profile, w.start);
  };
  // Each side on a whole set, from scratch (for the minimality test).
  const auto legal_set = [&](std::span<const std::size_t> set) {
    usage fresh;
    for (const std::size_t i : set) {
      const instance& w = m.devices[i].where;
      if (w.start < 0 || w.start >= max_units || !r.can_add(fresh, w.profile, w.start))
        return false;
      fresh.add(gpu.profiles[static_cast<std::size_t>(w.profile)], w.profile, w.start);
    }
    return true;
  };
  const auto differs = [&](std::span<const std::size_t> set) {
    return allocatable(m, set) != legal_set(set);
  };
  // Whether the sides differ on T less chosen[k]. That set is chosen less
  // chosen[k] (allowed by both, a subset of chosen) plus `last`, so they
  // differ on it exactly when they differ on adding `last` there: asked of
  // the running totals with chosen[k] taken out and put back, not of the
  // set from scratch (a set of 64 devices has 64 such subsets).
  const auto differs_without = [&](std::size_t k, const counter_device& last) {
    const counter_device& d = m.devices[chosen[k]];
    const profile& p = gpu.profiles[static_cast<std::size_t>(d.where.profile)];
    for (const draw& x : d.draws) drawn[static_cast<std::size_t>(x.counter)] -= x.amount;
    u.remove(p, d.where.profile, d.where.start);
    const bool differ = admits(last) != legal(last);
    for (const draw& x : d.draws) drawn[static_cast<std::size_t>(x.counter)] += x.amount;
    u.add(p, d.where.profile, d.where.start);
    return differ;
  };
  // Records T = chosen + {last}, a set the sides differ on whose subset less
  // `last` both allow. T is counted when it is a smallest one (each subset
  // one device smaller allowed by both; every differing set holds a smallest
  // one, whose own walk counts it). When a kind has no example yet, one is
  // made of T by dropping devices while the sides still differ (a smallest
  // set too, by monotony), so that a walk the budget stops still shows one.
  std::vector<std::size_t> set;
  const auto record = [&](std::uint64_t& count, std::vector<std::vector<std::size_t>>& list,
                          std::size_t last) {
    out.differs = true;
    set = chosen;
    set.push_back(last);
    bool smallest = true;
    for (std::size_t k = 0; k < chosen.size() && smallest; ++k)
      if (differs_without(k, m.devices[last])) smallest = false;
    if (!smallest) {
      if (!list.empty()) return;
      std::vector<std::size_t> less;
      for (std::size_t k = set.size(); k-- > 0;) {
        less = set;
        less.erase(less.begin() + static_cast<std::ptrdiff_t>(k));
        if (differs(less)) set = less;
      }
      list.push_back(set);
      return;
    }
    ++count;
    if (std::find(list.begin(), list.end(), set) != list.end()) return;
    // Keep the smallest examples: the fewest devices show a defect best.
    const auto larger = [](const auto& a, const auto& b) { return a.size() < b.size(); };
    if (list.size() < examples) {
      list.push_back(set);
    } else if (examples > 0) {
      auto largest = std::max_element(list.begin(), list.end(), larger);
      if (set.size() >= largest->size()) return;
      *largest = set;
    }
    std::stable_sort(list.begin(), list.end(), larger);
  };

  // An explicit stack instead of recursion: a hostile slice may hold
  // thousands of devices that draw nothing, which the rules still bound to
  // max_units deep, but the counters alone would not.
  struct frame {
    std::size_t next;
  };
  std::vector<frame> stack{{0}};
  out.states = 1;
  while (!stack.empty()) {
    frame& f = stack.back();
    if (f.next >= m.devices.size()) {
      stack.pop_back();
      if (chosen.empty()) break;
      const counter_device& d = m.devices[chosen.back()];
      for (const draw& x : d.draws) drawn[static_cast<std::size_t>(x.counter)] -= x.amount;
      const profile& p = gpu.profiles[static_cast<std::size_t>(d.where.profile)];
      u.remove(p, d.where.profile, d.where.start);
      chosen.pop_back();
      continue;
    }
    if (out.states >= budget) {
      out.complete = false;
      break;
    }
    ++out.states;
    const std::size_t i = f.next++;
    const counter_device& d = m.devices[i];
    const bool a = admits(d), l = legal(d);
    if (a && !l) record(out.admitted_illegal, out.admitted_illegal_examples, i);
    if (l && !a) record(out.legal_refused, out.legal_refused_examples, i);
    if (!a || !l) continue;
    for (const draw& x : d.draws) drawn[static_cast<std::size_t>(x.counter)] += x.amount;
    u.add(gpu.profiles[static_cast<std::size_t>(d.where.profile)], d.where.profile, d.where.start);
    chosen.push_back(i);
    stack.push_back({i + 1});
  }
  // An example made by dropping devices may not have been counted yet.
  out.admitted_illegal =
      std::max<std::uint64_t>(out.admitted_illegal, out.admitted_illegal_examples.size());
  out.legal_refused = std::max<std::uint64_t>(out.legal_refused, out.legal_refused_examples.size());
  return out;
}

}  // namespace v1
}  // namespace migplan

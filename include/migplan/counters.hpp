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

}  // namespace v1
}  // namespace migplan

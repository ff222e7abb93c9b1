// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file driver_order.hpp
/// Creating a planned layout on a GPU: the order that creates instances at
/// explicit placements, and a model of where the driver puts an instance
/// created without one (`nvidia-smi mig -cgi ID`, nvmlDeviceCreateGpuInstance),
/// with the creation orders that make the driver's own choices land on a
/// planned layout.
///
/// No NVIDIA document says how the driver picks a placement. The model is
/// fitted to every observation known (driver_observations, generated from
/// data/captures/): among the free allowed starts of the profile, the driver
/// takes the one whose instance would overlap the fewest placements of the
/// GPU, ties to the lowest start. Two readings of "placements" fit every
/// observation alike (driver_rule); a creation order is claimed only where
/// both land on the layout. doc/driver-placement.md has the derivation, the
/// observation that contradicts it, and what is and is not backed.

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/lookup.hpp>
#include <span>
#include <string_view>
#include <vector>

namespace migplan {
inline namespace v1 {

/// Creation order with explicit placements (`-cgi ID:START`,
/// nvmlDeviceCreateGpuInstanceWithPlacement): largest instance first (most
/// units, then most compute slices), then by start. The rules are monotone,
/// so every prefix of a valid layout is valid and any order creates it; this
/// one follows the MIG user guide's known issue, where a 3g.20gb created after
/// smaller instances is refused ("the profile ID 9 or 3g.20gb must be
/// specified first").
inline std::vector<instance> placement_order(const gpu_model& gpu,
                                             std::span<const instance> instances) {
  std::vector<instance> out(instances.begin(), instances.end());
  std::stable_sort(out.begin(), out.end(), [&](const instance& a, const instance& b) {
    const profile& pa = gpu.profiles[static_cast<std::size_t>(a.profile)];
    const profile& pb = gpu.profiles[static_cast<std::size_t>(b.profile)];
    if (pa.size != pb.size) return pa.size > pb.size;
    if (pa.compute_slices != pb.compute_slices) return pa.compute_slices > pb.compute_slices;
    return a.start < b.start;
  });
  return out;
}

/// Two readings of the model's rule; both reproduce every observation.
enum class driver_rule : std::uint8_t {
  /// Count the placements whose units are all still free: the start that
  /// takes away the fewest possibilities that remain.
  fewest_free_overlapped,
  /// Count the placements of the empty GPU: a fixed preference list per
  /// profile (for a 1g on an 8-unit board: 6, 4, 5, 0, 1, 2, 3).
  fewest_overlapped,
};

/// Both rules, in the order the tests and find_creation_order() try them.
inline constexpr std::array<driver_rule, 2> driver_rules{driver_rule::fewest_free_overlapped,
                                                         driver_rule::fewest_overlapped};

/// True when profile `p` can start at `start` with `used` occupied: an
/// allowed start, inside the GPU, on free units.
constexpr bool free_at(const gpu_model& gpu, unit_mask used, int p, int start) noexcept {
  const profile& pr = gpu.profiles[static_cast<std::size_t>(p)];
  return pr.allows_start(start) && start + pr.size <= gpu.units && (used & pr.mask_at(start)) == 0;
}

/// Number of starts where profile `p` can be created with `used` occupied.
constexpr int free_starts(const gpu_model& gpu, unit_mask used, int p) noexcept {
  int n = 0;
  for (int s = 0; s < gpu.units; ++s)
    if (free_at(gpu, used, p, s)) ++n;
  return n;
}

namespace detail {
// Placements (profile, start) of `gpu` that overlap the units `m`; under
// fewest_free_overlapped only those whose units are all free in `used`.
constexpr int overlapped(const gpu_model& gpu, unit_mask used, unit_mask m,
                         driver_rule rule) noexcept {
  int n = 0;
  for (const profile& q : gpu.profiles) {
    for (int t = 0; t + q.size <= gpu.units; ++t) {
      if (!q.allows_start(t)) continue;
      const unit_mask qm = q.mask_at(t);
      if (rule == driver_rule::fewest_free_overlapped && (used & qm) != 0) continue;
      if ((qm & m) != 0) ++n;
    }
  }
  return n;
}
}  // namespace detail

/// The start the model says the driver gives profile `p` created without a
/// placement while `used` is occupied, or -1 when no allowed start is free.
constexpr int driver_start(const gpu_model& gpu, unit_mask used, int p, driver_rule rule) noexcept {
  const profile& pr = gpu.profiles[static_cast<std::size_t>(p)];
  int best = -1;
  int best_cost = 0;
  for (int s = 0; s < gpu.units; ++s) {
    if (!free_at(gpu, used, p, s)) continue;
    const int cost = detail::overlapped(gpu, used, pr.mask_at(s), rule);
    if (best < 0 || cost < best_cost) {
      best = s;
      best_cost = cost;
    }
  }
  return best;
}

/// One creation sequence observed on a real GPU, as a capture shows it.
struct driver_observation {
  static constexpr int failed = -1;   ///< the driver refused the instance
  static constexpr int unknown = -2;  ///< created, but the source does not show where
  static constexpr int most_steps = 8;
  std::string_view gpu;     ///< catalog slug of the GPU it was seen on
  std::string_view driver;  ///< driver version as the source gives it; empty when not given
  int steps = 0;            ///< instances created, in order
  std::array<int, most_steps> profile_ids{};  ///< -lgip profile ID of each, in creation order
  std::array<int, most_steps> starts{};       ///< where each landed (or failed, unknown)
  /// False for an observation the model does not reproduce: kept, tested as
  /// a disagreement, and reported wherever an order relies on the same choice.
  bool reproduced = true;
  std::string_view source;  ///< the data/captures files it is read from
  std::string_view note;    ///< what was run, and what it showed
};

/// Every observation of the driver's own placement found so far
/// (reference mig-profiles.md, section 5), generated by data/gen_catalog.py:
/// data/models.json lists each one's GPU, captures, note and whether the
/// model reproduces it, and the generator reads the rest from the captures
/// (creation order from the "Successfully created GPU instance ID N" lines,
/// each start from the -lgi placement of that instance ID).
/// tests/cli/driver_evidence_test.cpp reads each back from the captures with
/// io/smi's reader.
inline constexpr std::array driver_observations = std::to_array<driver_observation>({
#include <migplan/detail/driver_observations.inc>
});

/// True when two models have the same placement structure: as many units, and
/// the same set of profile shapes (units per instance and allowed starts). The
/// model assumes the driver's choice depends on nothing else, so an
/// observation on one backs the other.
constexpr bool same_structure(const gpu_model& a, const gpu_model& b) noexcept {
  if (a.units != b.units) return false;
  const auto covered = [](const gpu_model& x, const gpu_model& y) {
    for (const profile& p : x.profiles) {
      bool found = false;
      for (const profile& q : y.profiles)
        if (q.size == p.size && q.starts == p.starts) found = true;
      if (!found) return false;
    }
    return true;
  };
  return covered(a, b) && covered(b, a);
}

/// How far the observations back a creation order without placements.
enum class order_support : std::uint8_t {
  /// Every step where the driver has a choice makes a choice the model was
  /// observed making, for an instance of the same shape, on a model of the
  /// same placement structure (steps with one free start need no model).
  observed,
  /// It lands under the model, but an observation disagrees with a choice it
  /// relies on (see creation_order::contradicting).
  contradicted,
  /// It lands under the model, but a choice it relies on was never observed
  /// on this placement structure (see creation_order::unobserved).
  unobserved,
  /// No order lands on the layout under both rules, or there are too many
  /// orders to try (creation_order::searched).
  none,
};

/// A creation order without placements for a set of instances, and what backs it.
struct creation_order {
  order_support support = order_support::none;
  std::vector<instance> steps;       ///< in creation order, each at the start the model predicts
  int choices = 0;                   ///< steps with more than one free start
  std::vector<int> unobserved;       ///< profiles whose choice no observation shows
  std::vector<std::size_t> backing;  ///< driver_observations indices behind its choices
  std::vector<std::size_t> contradicting;  ///< driver_observations indices that disagree
  bool searched = true;                    ///< false when the instances have too many orders to try
};

/// Most distinct orders find_creation_order() tries (8!: any 8 distinct profiles).
inline constexpr std::size_t max_creation_orders = 40320;

namespace detail {

// A shape whose placement choice an observation shows: the observation, the
// instance's size and allowed starts, and whether the model reproduced it.
struct observed_choice {
  std::size_t observation;
  int size;
  unit_mask starts;
  bool agrees;
};

// Replays the observations made on models of `gpu`'s placement structure
// (each observation's model looked up by slug in `observed_on`) and records
// every step where the driver had more than one free start. A step whose
// start the source does not show ends the replay (the state after it is
// unknown).
template <class Models>
std::vector<observed_choice> observed_choices(const gpu_model& gpu, const Models& observed_on) {
  std::vector<observed_choice> out;
  for (std::size_t k = 0; k < driver_observations.size(); ++k) {
    const driver_observation& o = driver_observations[k];
    const gpu_model* m = first_model(observed_on, slug_is(o.gpu));
    if (m == nullptr || !same_structure(*m, gpu)) continue;
    unit_mask used = 0;
    for (int i = 0; i < o.steps; ++i) {
      const int p = find_profile_by_id(*m, o.profile_ids[static_cast<std::size_t>(i)]);
      if (p < 0) break;
      const profile& pr = m->profiles[static_cast<std::size_t>(p)];
      const int seen = o.starts[static_cast<std::size_t>(i)];
      if (seen < 0) break;
      if (free_starts(*m, used, p) > 1) {
        bool agrees = true;
        for (driver_rule r : driver_rules)
          if (driver_start(*m, used, p, r) != seen) agrees = false;
        out.push_back({k, pr.size, pr.starts, agrees});
      }
      used |= pr.mask_at(seen);
    }
  }
  return out;
}

inline std::size_t multinomial_orders(std::vector<int> profiles) {
  std::sort(profiles.begin(), profiles.end());
  std::size_t n = 1;
  std::size_t run = 0;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    run = (i > 0 && profiles[i] == profiles[i - 1]) ? run + 1 : 1;
    // n * (i + 1) / run stays exact: n is a multinomial coefficient, and so
    // is the result; stop once past the limit.
    n = n * (i + 1) / run;
    if (n > max_creation_orders) return n;
  }
  return n;
}

template <class Models>
creation_order find_creation_order_in(const gpu_model& gpu, unit_mask occupied,
                                      std::span<const instance> targets,
                                      const Models& observed_on) {
  creation_order best;
  std::vector<int> order;
  for (const instance& in : targets) order.push_back(in.profile);
  if (multinomial_orders(order) > max_creation_orders) {
    best.searched = false;
    return best;
  }
  std::vector<instance> wanted(targets.begin(), targets.end());
  std::sort(wanted.begin(), wanted.end());
  const std::vector<detail::observed_choice> seen = observed_choices(gpu, observed_on);
  // Larger first: most units, then most compute slices, then profile index.
  const auto before = [&](int a, int b) {
    const profile& pa = gpu.profiles[static_cast<std::size_t>(a)];
    const profile& pb = gpu.profiles[static_cast<std::size_t>(b)];
    if (pa.size != pb.size) return pa.size > pb.size;
    if (pa.compute_slices != pb.compute_slices) return pa.compute_slices > pb.compute_slices;
    return a < b;
  };
  std::sort(order.begin(), order.end(), before);
  bool found = false;
  std::array<int, 3> best_rank{};  // contradicted, unobserved, choices
  do {
    creation_order c;
    unit_mask used = occupied;
    bool lands = true;
    std::array<int, 3> rank{};
    std::vector<instance> left = wanted;  // targets not created yet, sorted
    for (int p : order) {
      const int s = driver_start(gpu, used, p, driver_rules[0]);
      // A step that misses every target of its profile ends the order: the
      // instance would sit where none is planned.
      const auto hit = std::lower_bound(left.begin(), left.end(), instance{p, s});
      if (s < 0 || hit == left.end() || *hit != instance{p, s} ||
          driver_start(gpu, used, p, driver_rules[1]) != s) {
        lands = false;
        break;
      }
      left.erase(hit);
      const profile& pr = gpu.profiles[static_cast<std::size_t>(p)];
      if (free_starts(gpu, used, p) > 1) {
        ++c.choices;
        bool backed = false, contradicted = false;
        for (const detail::observed_choice& o : seen) {
          if (o.size != pr.size || o.starts != pr.starts) continue;
          if (o.agrees) {
            backed = true;
            c.backing.push_back(o.observation);
          } else {
            contradicted = true;
            c.contradicting.push_back(o.observation);
          }
        }
        if (contradicted) ++rank[0];
        if (!backed && !contradicted) {
          ++rank[1];
          c.unobserved.push_back(p);
        }
      }
      c.steps.push_back({p, s});
      used |= pr.mask_at(s);
    }
    if (!lands) continue;
    rank[2] = c.choices;
    if (found && rank >= best_rank) continue;  // first found wins ties: larger first
    found = true;
    best_rank = rank;
    for (auto* v : {&c.backing, &c.contradicting}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    std::sort(c.unobserved.begin(), c.unobserved.end());
    c.unobserved.erase(std::unique(c.unobserved.begin(), c.unobserved.end()), c.unobserved.end());
    c.support = rank[0] > 0   ? order_support::contradicted
                : rank[1] > 0 ? order_support::unobserved
                              : order_support::observed;
    best = std::move(c);
  } while (std::next_permutation(order.begin(), order.end(), before));
  return best;
}
}  // namespace detail

/// The creation order without placements that makes the driver, as modelled,
/// put `targets` exactly where they are, with `occupied` units already taken
/// (instances that exist and stay). Every distinct order of the targets'
/// profiles is simulated under both rules; an order lands when both rules
/// predict the same start at every step and the starts are the targets'. Of
/// the orders that land, the one chosen has the fewest contradicted choices,
/// then the fewest unobserved ones, then the fewest choices at all, then puts
/// larger instances first. The observations (driver_observations) are
/// looked up by slug in `observed_on`: the catalog (`catalog()`, catalog.hpp)
/// or a list that holds its models; one missing there backs nothing.
inline creation_order find_creation_order(const gpu_model& gpu, unit_mask occupied,
                                          std::span<const instance> targets,
                                          model_list observed_on) {
  return detail::find_creation_order_in(gpu, occupied, targets, observed_on);
}

/// find_creation_order() with the observations looked up in a table of models
/// (`catalog()`).
inline creation_order find_creation_order(const gpu_model& gpu, unit_mask occupied,
                                          std::span<const instance> targets,
                                          std::span<const gpu_model> observed_on) {
  return detail::find_creation_order_in(gpu, occupied, targets, observed_on);
}

}  // namespace v1
}  // namespace migplan

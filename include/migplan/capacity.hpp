// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file capacity.hpp
/// What a layout leaves: free, reachable and stranded capacity, and what can
/// still be added. "Reachable" is exact: the most that any further set of
/// instances, placed under all the rules, could claim from here.

#include <algorithm>
#include <array>
#include <cassert>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/rules.hpp>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace migplan {
inline namespace v1 {

/// Room left by a layout.
struct room {
  int free_units = 0;            ///< units no instance occupies
  int free_compute = 0;          ///< compute slices no instance uses
  int reachable_units = 0;       ///< most extra units any further instances can occupy
  int reachable_compute = 0;     ///< most extra compute slices any further instances can use
  std::uint64_t extensions = 0;  ///< distinct non-empty sets of further instances
  unit_mask free_mask = 0;       ///< the free units
  unit_mask reachable_mask = 0;  ///< units some further instance can occupy
};

/// Capacity a layout strands: free but unreachable.
struct stranded {
  int units = 0;           ///< free units no further instance can use
  int compute_slices = 0;  ///< free compute slices no further instance can use
  /// The stranded units' memory in GiB x 100, from the full-GPU profile's
  /// memory split evenly over the units; empty when that is unknown.
  std::optional<int> memory_gib_x100;
};

/// A profile that can still be created next to a layout.
struct addable {
  int profile = 0;       ///< index into gpu_model::profiles
  unit_mask starts = 0;  ///< starts where one more instance fits now
  int max_more = 0;      ///< most further instances of this profile alone
};

/// All placements (profile, start) of a model, in profile then start order.
inline std::vector<instance> all_placements(const gpu_model& gpu) {
  std::vector<instance> out;
  out.reserve(placement_count(gpu));
  for (std::size_t p = 0; p < gpu.profiles.size(); ++p)
    for (int s = 0; s < gpu.units; ++s)
      if (gpu.profiles[p].allows_start(s)) out.push_back({static_cast<int>(p), s});
  return out;
}

/// Usage of a layout.
constexpr usage usage_of(const gpu_model& gpu, const layout& l) noexcept {
  usage u;
  for (const instance& in : l) {
    assert(in.profile >= 0 && static_cast<std::size_t>(in.profile) < gpu.profiles.size());
    u.add(gpu.profiles[static_cast<std::size_t>(in.profile)], in.profile, in.start);
  }
  return u;
}

/// Exact room left by `l` on `gpu`, by exhaustive search over the sets of
/// further instances: the reference that room_memo must agree with.
inline room room_of(const gpu_model& gpu, const rules& r, const std::vector<instance>& places,
                    const layout& l) {
  assert(r.gpu == &gpu);
  const usage base = usage_of(gpu, l);
  room out;
  out.free_mask = gpu.all_units() & ~base.units;
  out.free_units = unit_count(out.free_mask);
  // Compute sums are bounded by the model's compute slices once the rules hold.
  out.free_compute = gpu.compute_slices - static_cast<int>(base.sums.compute);
  for_each_extension(r, places, base, [&](const usage& u, std::span<const std::size_t> chosen) {
    if (chosen.empty()) return;  // the layout itself is no extension
    ++out.extensions;
    const unit_mask added = u.units & ~base.units;
    out.reachable_mask |= added;
    out.reachable_units = std::max(out.reachable_units, unit_count(added));
    out.reachable_compute =
        std::max(out.reachable_compute, static_cast<int>(u.sums.compute - base.sums.compute));
  });
  return out;
}

/// Exact room left by `l` on `gpu`.
inline room room_of(const gpu_model& gpu, const layout& l) {
  return room_of(gpu, rules(gpu), all_placements(gpu), l);
}

/// Answers room_of() for one model from a table of all its layouts, and
/// remembers each answer. Every rule is monotone (a subset of a valid layout
/// is valid), so the further instance sets that can join a layout L are
/// exactly M \ L for the valid layouts M that contain L: one pass over the
/// model's layouts (2318 on an 8-unit board) replaces the exhaustive
/// extension search, and answers are kept per state (occupied units and
/// instance counts, which fix compute and engines). Build one per model and
/// reuse it across requests. Not thread-safe: one per thread.
class room_memo {
 public:
  /// A memo for `gpu`; enumerates its layouts once.
  explicit room_memo(const gpu_model& gpu) : gpu_(&gpu), places_(all_placements(gpu)) {
    // Catalog models are checked at compile time (catalog.hpp); this is for hand-made ones.
    assert(gpu.profiles.size() <= static_cast<std::size_t>(max_profiles));
    assert(places_.size() <= max_placements && "a place_set holds 64 placements");
    for (auto& row : index_) row.fill(-1);
    for (std::size_t i = 0; i < places_.size(); ++i)
      index_[static_cast<std::size_t>(places_[i].profile)]
            [static_cast<std::size_t>(places_[i].start)] = static_cast<int>(i);
    for_each_extension(rules(gpu), places_, usage{},
                       [&](const usage& u, std::span<const std::size_t> chosen) {
                         place_set set = 0;
                         for (const std::size_t i : chosen) set |= place_set{1} << i;
                         // Compute sums are bounded by the model's once the rules hold.
                         all_.push_back({set, u.units, static_cast<int>(u.sums.compute)});
                         geometries_.insert(u.counts);
                       });
  }
  /// The model the memo answers for.
  const gpu_model& gpu() const noexcept { return *gpu_; }
  /// True when a geometry (counts, no pinned starts) has a layout: a lookup
  /// in the geometries seen while enumerating the layouts.
  bool feasible(const profile_counts& counts) const { return geometries_.count(counts) != 0; }
  /// Same as room_of(gpu, l).
  const room& get(const layout& l) {
    const key k{l.used(*gpu_), l.counts()};
    auto it = map_.find(k);
    if (it == map_.end()) it = map_.emplace(k, compute(l, k.units)).first;
    return it->second;
  }

 private:
  using place_set = std::uint64_t;  // bit i = places_[i]
  static_assert(sizeof(place_set) * CHAR_BIT >= max_placements);
  struct entry {
    place_set places;
    unit_mask units;
    int compute;
  };
  struct key {
    unit_mask units = 0;
    profile_counts counts;
    bool operator==(const key&) const = default;
  };
  struct key_hash {
    std::size_t operator()(const key& k) const noexcept {
      std::size_t h = k.units;
      for (int c : k.counts.n) h = h * 1000003u + static_cast<std::size_t>(c);
      return h;
    }
  };

  room compute(const layout& l, unit_mask used) const {
    place_set mine = 0;
    int compute0 = 0;
    for (const instance& in : l) {
      assert(in.start >= 0 && in.start < max_units);
      const int i =
          index_[static_cast<std::size_t>(in.profile)][static_cast<std::size_t>(in.start)];
      assert(i >= 0 && "an instance that is no placement of the model");
      mine |= place_set{1} << i;
      compute0 += gpu_->profiles[static_cast<std::size_t>(in.profile)].compute_slices;
    }
    room out;
    out.free_mask = gpu_->all_units() & ~used;
    out.free_units = unit_count(out.free_mask);
    out.free_compute = gpu_->compute_slices - compute0;
    for (const entry& e : all_) {
      if ((e.places & mine) != mine || e.places == mine) continue;
      ++out.extensions;
      const unit_mask added = e.units & ~used;
      out.reachable_mask |= added;
      out.reachable_units = std::max(out.reachable_units, unit_count(added));
      out.reachable_compute = std::max(out.reachable_compute, e.compute - compute0);
    }
    return out;
  }

  const gpu_model* gpu_;
  std::vector<instance> places_;
  std::array<std::array<int, max_units>, max_profiles> index_{};
  std::vector<entry> all_;
  struct counts_hash {
    std::size_t operator()(const profile_counts& c) const noexcept {
      std::size_t h = 0;
      for (int v : c.n) h = h * 1000003u + static_cast<std::size_t>(v);
      return h;
    }
  };
  std::unordered_map<key, room, key_hash> map_;
  std::unordered_set<profile_counts, counts_hash> geometries_;
};

/// Stranded capacity: free minus reachable.
inline stranded stranded_of(const gpu_model& gpu, const room& rm) {
  stranded s;
  s.units = rm.free_units - rm.reachable_units;
  s.compute_slices = rm.free_compute - rm.reachable_compute;
  if (const int full = full_profile(gpu); full >= 0) {
    if (const auto& memory = gpu.profiles[static_cast<std::size_t>(full)].memory_gib_x100)
      s.memory_gib_x100 = (*memory * s.units + gpu.units / 2) / gpu.units;
  }
  return s;
}

/// Every profile that can still be created next to `l`, with its starts and
/// how many more of it alone fit. Greedy leftmost placement is exact for
/// max_more: instances of one profile all have the same size, so taking the
/// earliest free start never blocks more than it frees (interval scheduling),
/// and rules 3 to 5 depend only on the count.
inline std::vector<addable> addable_to(const gpu_model& gpu, const rules& r, const layout& l) {
  const usage base = usage_of(gpu, l);
  std::vector<addable> out;
  for (std::size_t pi = 0; pi < gpu.profiles.size(); ++pi) {
    const int p = static_cast<int>(pi);
    addable a{p, 0, 0};
    for (int s = 0; s < gpu.units; ++s)
      if (r.can_add(base, p, s)) a.starts |= unit_mask{1} << s;
    if (a.starts == 0) continue;
    usage u = base;
    for (int s = 0; s < gpu.units; ++s)
      if (r.can_add(u, p, s)) {
        u.add(gpu.profiles[pi], p, s);
        ++a.max_more;
      }
    out.push_back(a);
  }
  return out;
}

/// The preference score of a layout: more reachable units, then more
/// reachable compute, then more distinct ways to grow. Higher is better.
struct score {
  int reachable_units = 0;       ///< see room
  int reachable_compute = 0;     ///< see room
  std::uint64_t extensions = 0;  ///< see room
  friend constexpr auto operator<=>(const score&, const score&) = default;
};

/// The score of a room.
constexpr score score_of(const room& r) noexcept {
  return {r.reachable_units, r.reachable_compute, r.extensions};
}

}  // namespace v1
}  // namespace migplan

// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file replay_state.hpp
/// What a replay knows of one GPU model, built as it meets GPU states: each
/// state's fits, first-fit and best-fit starts and transitions
/// (detail::state_space), kept per model in replay_tables; and the bit tree
/// the engine indexes nodes with. See replay.hpp's "Speed".

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <migplan/capacity.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/rules.hpp>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace migplan {
inline namespace v1 {

namespace detail {

/// A set of bits over [0, n) with O(log64 n) set, reset and lowest set bit.
class bit_tree {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);  ///< none
  explicit bit_tree(std::size_t n = 0) {
    std::size_t m = n;
    do {
      m = (m + 63) / 64;
      levels_.emplace_back(std::max<std::size_t>(m, 1), 0);
    } while (m > 1);
  }
  void set(std::size_t i) noexcept {
    for (auto& level : levels_) {
      std::uint64_t& w = level[i / 64];
      const bool had = w != 0;
      w |= std::uint64_t{1} << (i % 64);
      if (had) return;
      i /= 64;
    }
  }
  void reset(std::size_t i) noexcept {
    for (auto& level : levels_) {
      std::uint64_t& w = level[i / 64];
      w &= ~(std::uint64_t{1} << (i % 64));
      if (w != 0) return;
      i /= 64;
    }
  }
  std::size_t first() const noexcept {
    if (levels_.back()[0] == 0) return npos;
    std::size_t i = 0;
    for (std::size_t k = levels_.size(); k-- > 0;)
      i = i * 64 + static_cast<std::size_t>(std::countr_zero(levels_[k][i]));
    return i;
  }

 private:
  std::vector<std::vector<std::uint64_t>> levels_;
};

using place_set = std::uint64_t;  // bit i = placement i of the model
static_assert(max_placements <= 64);

/// What one GPU state (its busy placements) allows, computed once per state.
struct gpu_state {
  place_set busy = 0;
  usage use{};
  std::uint32_t fit = 0;                              // profiles with a start
  std::array<std::int8_t, max_profiles> first{};      // first-fit placement per profile, -1
  std::array<std::int8_t, max_profiles> more{};       // most more instances of the profile alone
  std::array<std::int8_t, max_profiles> hami{};       // HAMi's placement per profile, -1 (dynamic)
  int stranded = 0;                                   // free compute slices nothing can use
  bool ranked = false;                                // best/after below are filled
  room rm{};                                          // room of the state (dynamic, when ranked)
  std::array<std::int8_t, max_profiles> best{};       // best-fit placement per profile, -1
  std::array<room, max_profiles> after{};             // room after the best placement
  std::array<std::int32_t, max_placements> add{};     // state after adding placement i, -1
  std::array<std::int32_t, max_placements> remove{};  // state after removing placement i, -1
};

/// The states of one model under one mode: dynamic, or one static geometry.
class state_space {
 public:
  /// Dynamic: any placement the rules allow, rooms from `memo`. Static: only
  /// `geometry`'s (no room is asked: nothing is ranked, and what strands is fixed).
  state_space(const gpu_model& gpu, room_memo* memo, std::optional<layout> geometry)
      : gpu_(&gpu), rules_(gpu), places_(all_placements(gpu)), memo_(memo) {
    if (geometry) {
      static_ = true;
      for (const instance& in : *geometry) allowed_ |= place_set{1} << index_of(in);
      for (const instance& in : *geometry)
        fixed_compute_ += gpu.profiles[static_cast<std::size_t>(in.profile)].compute_slices;
    } else {
      allowed_ = places_.size() == 64 ? ~place_set{0} : (place_set{1} << places_.size()) - 1;
    }
    for (const instance& in : places_)
      slice_count_ = std::max(slice_count_,
                              in.start + gpu.profiles[static_cast<std::size_t>(in.profile)].size);
    intern(0);
  }
  const gpu_state& at(int s) const noexcept { return states_[static_cast<std::size_t>(s)]; }
  const instance& place(int i) const noexcept { return places_[static_cast<std::size_t>(i)]; }
  const gpu_model& gpu() const noexcept { return *gpu_; }
  /// The number of placements of the model.
  int placements() const noexcept { return static_cast<int>(places_.size()); }
  /// The index of placement `in`, or -1 when it is none of the model's.
  int find(const instance& in) const noexcept {
    for (std::size_t i = 0; i < places_.size(); ++i)
      if (places_[i] == in) return static_cast<int>(i);
    return -1;
  }
  /// True when state s can take placement i.
  bool can_take(int s, int i) const {
    return can_add(states_[static_cast<std::size_t>(s)], static_cast<std::size_t>(i));
  }
  int add(int s, int i) {
    std::int32_t& to = states_[static_cast<std::size_t>(s)].add[static_cast<std::size_t>(i)];
    if (to < 0) {
      const int t = intern(states_[static_cast<std::size_t>(s)].busy | place_set{1} << i);
      states_[static_cast<std::size_t>(s)].add[static_cast<std::size_t>(i)] = t;
      return t;
    }
    return to;
  }
  int remove(int s, int i) {
    std::int32_t& to = states_[static_cast<std::size_t>(s)].remove[static_cast<std::size_t>(i)];
    if (to < 0) {
      const int t = intern(states_[static_cast<std::size_t>(s)].busy & ~(place_set{1} << i));
      states_[static_cast<std::size_t>(s)].remove[static_cast<std::size_t>(i)] = t;
      return t;
    }
    return to;
  }
  /// HAMi's score of adding placement i to the placements `busy` (larger is better): the
  /// longest run of units no instance covers, then how many placements of
  /// every profile overlap no instance. Units only, as HAMi's
  /// pkg/device/nvidia/mig_topology.go counts them (its own placement table,
  /// no compute or count rule): it ranks the starts the rules allow.
  std::pair<int, int> hami_score(place_set busy, int i) const {
    const unit_mask used = mask_of(busy | place_set{1} << i);
    int longest = 0;
    int run = 0;
    for (int u = 0; u < slice_count_; ++u) {
      run = ((used >> u) & 1u) != 0 ? 0 : run + 1;
      longest = std::max(longest, run);
    }
    int free = 0;
    for (const instance& in : places_)
      if ((mask_at(in) & used) == 0) ++free;
    return {longest, free};
  }
  /// Fills the best-fit fields of state s (dynamic only).
  void rank(int s) {
    if (states_[static_cast<std::size_t>(s)].ranked) return;
    gpu_state copy = states_[static_cast<std::size_t>(s)];
    copy.rm = room_of_state(copy.busy);
    for (std::size_t p = 0; p < gpu_->profiles.size(); ++p) {
      copy.best[p] = -1;
      std::optional<score> top;
      for (std::size_t i = 0; i < places_.size(); ++i) {
        if (places_[i].profile != static_cast<int>(p) || !can_add(copy, i)) continue;
        const room r = room_of_state(copy.busy | place_set{1} << i);
        if (!top || score_of(r) > *top) {
          top = score_of(r);
          copy.best[p] = static_cast<std::int8_t>(i);
          copy.after[p] = r;
        }
      }
    }
    copy.ranked = true;
    states_[static_cast<std::size_t>(s)] = copy;
  }

 private:
  int index_of(const instance& in) const {
    const int i = find(in);
    assert(i >= 0 && "an instance that is no placement of the model");
    return i;
  }
  bool can_add(const gpu_state& st, std::size_t i) const {
    const place_set bit = place_set{1} << i;
    if ((allowed_ & bit) == 0 || (st.busy & bit) != 0) return false;
    if (static_) return true;  // a subset of a valid geometry is valid
    return rules_.can_add(st.use, places_[i].profile, places_[i].start);
  }
  unit_mask mask_at(const instance& in) const {
    return gpu_->profiles[static_cast<std::size_t>(in.profile)].mask_at(in.start);
  }
  unit_mask mask_of(place_set busy) const {
    unit_mask m = 0;
    for (; busy != 0; busy &= busy - 1)
      m |= mask_at(places_[static_cast<std::size_t>(std::countr_zero(busy))]);
    return m;
  }
  layout layout_of(place_set busy) const {
    layout l;
    for (; busy != 0; busy &= busy - 1)
      l.add(places_[static_cast<std::size_t>(std::countr_zero(busy))]);
    return l;
  }
  room room_of_state(place_set busy) const { return memo_->get(layout_of(busy)); }
  int intern(place_set busy) {
    if (const auto it = ids_.find(busy); it != ids_.end()) return it->second;
    gpu_state st;
    st.busy = busy;
    for (place_set b = busy; b != 0; b &= b - 1) {
      const instance& in = places_[static_cast<std::size_t>(std::countr_zero(b))];
      st.use.add(gpu_->profiles[static_cast<std::size_t>(in.profile)], in.profile, in.start);
    }
    st.first.fill(-1);
    st.hami.fill(-1);
    st.best.fill(-1);
    st.add.fill(-1);
    st.remove.fill(-1);
    for (std::size_t i = 0; i < places_.size(); ++i) {
      const auto p = static_cast<std::size_t>(places_[i].profile);
      if (st.first[p] < 0 && can_add(st, i)) {
        st.first[p] = static_cast<std::int8_t>(i);
        st.fit |= std::uint32_t{1} << p;
      }
    }
    for (std::size_t p = 0; p < gpu_->profiles.size(); ++p) {
      if (st.first[p] < 0) continue;
      // Leftmost greedy is exact for one profile alone (see addable_to()).
      gpu_state g = st;
      int n = 0;
      for (std::size_t i = 0; i < places_.size(); ++i) {
        if (places_[i].profile != static_cast<int>(p) || !can_add(g, i)) continue;
        g.busy |= place_set{1} << i;
        g.use.add(gpu_->profiles[p], places_[i].profile, places_[i].start);
        ++n;
      }
      st.more[p] = static_cast<std::int8_t>(n);
    }
    const int id = static_cast<int>(states_.size());
    if (!static_) {
      // HAMi's choice per profile: the best score, the lowest start on a tie
      // (a profile's placements are by start).
      for (std::size_t i = 0; i < places_.size(); ++i) {
        if (!can_add(st, i)) continue;
        std::int8_t& h = st.hami[static_cast<std::size_t>(places_[i].profile)];
        if (h < 0 || hami_score(busy, static_cast<int>(i)) > hami_score(busy, h))
          h = static_cast<std::int8_t>(i);
      }
    }
    const int used = static_cast<int>(st.use.sums.compute);
    if (static_) {
      st.stranded = gpu_->compute_slices - fixed_compute_;
    } else {
      const room r = room_of_state(busy);
      st.stranded = gpu_->compute_slices - used - r.reachable_compute;
    }
    states_.push_back(st);
    ids_.emplace(busy, id);
    return id;
  }

  const gpu_model* gpu_;
  rules rules_;
  std::vector<instance> places_;
  room_memo* memo_;
  bool static_ = false;
  place_set allowed_ = 0;
  int fixed_compute_ = 0;
  int slice_count_ = 0;  // the furthest unit a placement reaches (HAMi's slice count)
  std::vector<gpu_state> states_;
  std::unordered_map<place_set, int> ids_;
};

}  // namespace detail

/// The per-model tables a replay builds as it meets GPU states (rooms, fits,
/// transitions): pure functions of the model and, for a static policy, the
/// geometry. Keep one across replays of the same models (sizing replays one
/// trace many times) to build them once. Not thread-safe: one per thread.
/// Tables are found by the model's address: every model replayed must
/// outlive the tables, and keep its table unchanged while they live.
class replay_tables {
 public:
  /// The state space of `gpu`: dynamic without a geometry, else that static geometry.
  detail::state_space& space(const gpu_model& gpu, const std::optional<layout>& geometry) {
    for (auto& s : spaces_)
      if (s.gpu == &gpu && s.geometry == geometry) return *s.space;
    spaces_.push_back(
        {&gpu, geometry,
         std::make_unique<detail::state_space>(gpu, geometry ? nullptr : &memo(gpu), geometry)});
    return *spaces_.back().space;
  }

 private:
  room_memo& memo(const gpu_model& gpu) {
    for (auto& m : memos_)
      if (&m->gpu() == &gpu) return *m;
    memos_.push_back(std::make_unique<room_memo>(gpu));
    return *memos_.back();
  }
  struct entry {
    const gpu_model* gpu;
    std::optional<layout> geometry;
    std::unique_ptr<detail::state_space> space;
  };
  std::vector<std::unique_ptr<room_memo>> memos_;
  std::vector<entry> spaces_;
};

}  // namespace v1
}  // namespace migplan

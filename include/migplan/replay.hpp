// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file replay.hpp
/// Demand over time: replays a trace of pods arriving and leaving on a fleet
/// of GPUs under a placement policy, and measures what the policy served.
///
/// A pod asks for `count` instances of one profile, all on one node, all or
/// nothing (whole GPUs are `count` instances of the full-GPU profile). Events
/// at one time: departures first, then arrivals in pod order.
///
/// What happens to a pod that does not fit when it arrives (replay_policy's
/// `pending`):
///  - reject (the default): it is rejected and counted, and never runs.
///  - fifo: it waits in one queue, in order of arrival (time, then pod
///    order), as Kubernetes leaves a pod pending. At one time the departures
///    all go first, then the queue is retried once; then each arrival joins
///    the queue's tail and the queue is retried again. A retry starts the
///    head while it fits and stops at the first that does not.
///  - backfill: as fifo, but a retry scans the whole queue in order and
///    starts every pod that fits; once a pod does not fit, the later pods
///    of the same item are not tried in that scan (they ask for the same
///    room, and a scan only fills the fleet).
///  A queued pod runs for its trace duration (end - start) from the time it
///  starts. A pod that even the empty fleet cannot hold under the policy is
///  refused on arrival (counted as rejected) and never queued. The replay
///  stops at the trace's last time: pods still queued then are pending, and
///  pods running then never depart.
///
/// Policies:
///  - static: every GPU keeps the geometry it is given for the whole trace; a
///    pod takes free instances of its profile (first free instance: lowest GPU
///    of the node, lowest start).
///  - dynamic: instances are created on arrival and destroyed on departure.
///    Node choice `spread` prefers the least allocated node, `pack` the most
///    allocated, by the kube-scheduler's integer scores over the node's compute
///    slices (LeastAllocated: (capacity - used) * 100 / capacity; MostAllocated:
///    used * 100 / capacity), ties to the lowest node. On the node `first_fit`
///    takes the lowest GPU and the lowest start that fit (as the DRA allocator
///    takes devices); `best_fit` takes a partly used GPU before an empty
///    one, then the GPU and start that lose the least room (score(),
///    capacity.hpp: reachable units, then reachable compute), then the
///    fullest GPU (least reachable units before), then the most ways to grow
///    after, then the lowest GPU and start.
///    Node choice `first` gives no score (the scheduler's DRA plugin scores
///    no device): the lowest eligible node. On the node `name_order` is the
///    Kubernetes DRA allocator's first fit over migplan's ResourceSlices
///    (render/dra.cpp): each GPU a pool "<node>-gpu-<index>", pools tried in
///    name order ("gpu-10" before "gpu-2", dra_name_less()), a pool's devices
///    in the order listed (lowest start first).
///  A node is eligible when its GPUs can each hold, alone, enough more
///  instances of the profile to sum to `count` (max_more of addable_to()).
///
/// Speed: a GPU's state is the set of placements it holds; the states reached
/// on one model are few (2318 layouts on an 8-unit board), so each state
/// carries, once computed, its fit per profile, first-fit and best-fit starts
/// and its transitions. Nodes are indexed per pod kind in one bit tree over
/// (preference level, node), so an event costs O(kinds x (GPUs per node +
/// log64 nodes)), never a scan of the fleet.

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <limits>
#include <memory>
#include <migplan/capacity.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/rules.hpp>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace migplan {
inline namespace v1 {

/// One node of a replay fleet: `gpus` GPUs of one model.
struct replay_node {
  int model = 0;  ///< index into replay_fleet::models
  int gpus = 0;   ///< GPUs on the node
};

/// A fleet to replay on. GPUs are numbered node by node from 0.
struct replay_fleet {
  std::vector<const gpu_model*> models;  ///< the models its nodes use
  std::vector<replay_node> nodes;        ///< the nodes, in order
  /// Total number of GPUs.
  int gpu_count() const noexcept {
    int n = 0;
    for (const replay_node& node : nodes) n += node.gpus;
    return n;
  }
};

/// What one pod asks for: `count` instances of one profile on one node.
struct replay_item {
  /// Per fleet model: the profile index that serves it there, or -1 when that
  /// model cannot serve it.
  std::vector<int> profile;
  int count = 1;  ///< instances, all on one node, all or nothing (> 0)
};

/// One pod of a trace. Times are in any unit (the CLI uses seconds).
struct replay_pod {
  std::int64_t start = 0;  ///< arrival
  std::int64_t end = 0;    ///< departure; <= start departs as soon as it arrived
  int item = 0;            ///< index into the items
};

/// How the fleet's GPUs are used.
enum class replay_mode : std::uint8_t {
  static_geometry,  ///< one fixed geometry per GPU
  dynamic,          ///< instances created on arrival, destroyed on departure
};
/// Which node a pod goes to.
enum class node_choice : std::uint8_t {
  spread,  ///< least allocated first (kube-scheduler LeastAllocated)
  pack,    ///< most allocated first (MostAllocated)
  first,   ///< no score: every node ties, the lowest eligible node
};
/// Where on the node.
enum class gpu_choice : std::uint8_t {
  first_fit,   ///< lowest GPU, lowest start
  best_fit,    ///< a partly used GPU first, then the GPU and start that keep the most room
  name_order,  ///< the DRA allocator's first fit: GPUs by name (dra_name_less()), then start
};

/// True when decimal `a` sorts before decimal `b` as strings do: "10" before
/// "2", "1" before "10". The DRA allocator tries pools in name order, and
/// each GPU is a pool "<node>-gpu-<index>" (render/dra.cpp).
constexpr bool dra_name_less(int a, int b) noexcept {
  assert(a >= 0 && b >= 0);
  std::array<char, 12> da{};
  std::array<char, 12> db{};
  int na = 0;
  int nb = 0;
  do da[static_cast<std::size_t>(na++)] = static_cast<char>('0' + a % 10);
  while ((a /= 10) != 0);
  do db[static_cast<std::size_t>(nb++)] = static_cast<char>('0' + b % 10);
  while ((b /= 10) != 0);
  for (int i = 0; i < na && i < nb; ++i) {
    const char x = da[static_cast<std::size_t>(na - 1 - i)];
    const char y = db[static_cast<std::size_t>(nb - 1 - i)];
    if (x != y) return x < y;
  }
  return na < nb;
}

/// What a pod that does not fit on arrival does (see the file's comment).
enum class pending_rule : std::uint8_t {
  reject,    ///< rejected, never runs
  fifo,      ///< waits in a FIFO queue; only its head may start
  backfill,  ///< waits in a FIFO queue; any queued pod that fits may start
};

/// A placement policy.
struct replay_policy {
  replay_mode mode = replay_mode::dynamic;       ///< static or dynamic
  node_choice nodes = node_choice::spread;       ///< node choice
  gpu_choice placement = gpu_choice::first_fit;  ///< on-node choice (dynamic only)
  pending_rule pending = pending_rule::reject;   ///< a pod that does not fit on arrival
  friend constexpr bool operator==(const replay_policy&, const replay_policy&) = default;
};

/// Percentiles of the pods' waits in a queued replay (replay_waits_of()).
struct replay_waits {
  std::int64_t p50 = 0;  ///< median
  std::int64_t p95 = 0;  ///< 95th percentile
  std::int64_t p99 = 0;  ///< 99th percentile
  std::int64_t max = 0;  ///< longest
  friend bool operator==(const replay_waits&, const replay_waits&) = default;
};

/// What a replay served. Areas are in instance (GPU, slice) x time units.
struct replay_metrics {
  std::int64_t pods_accepted = 0;               ///< pods placed (queued: started)
  std::int64_t pods_rejected = 0;               ///< pods that found no room (queued: refused)
  std::int64_t pods_pending = 0;                ///< queued: pods still waiting at the end
  std::int64_t instances_accepted = 0;          ///< instances of the placed pods
  std::int64_t instances_rejected = 0;          ///< instances of the rejected pods
  std::int64_t instance_time = 0;               ///< sum over placed pods of count x duration
  std::int64_t gpu_time = 0;                    ///< integral of the GPUs holding >= 1 busy instance
  std::int64_t stranded_slice_time = 0;         ///< integral of the fleet's stranded compute slices
  int peak_gpus_in_use = 0;                     ///< most GPUs holding a busy instance at once
  std::int64_t creations = 0;                   ///< instances created (dynamic)
  std::int64_t destructions = 0;                ///< instances destroyed (dynamic)
  std::optional<std::int64_t> first_rejection;  ///< time of the first rejected pod
  std::int64_t start = 0;                       ///< the trace's first time
  std::int64_t end = 0;                         ///< the trace's last time
  std::int64_t queue_peak = 0;                  ///< queued: most pods waiting between events
  std::int64_t queue_time = 0;                  ///< queued: integral of the pods waiting
  /// Queued: the waits (start - arrival) of the started pods and, as the
  /// least they wait, of the pending ones (end - arrival).
  replay_waits waits{};
  friend bool operator==(const replay_metrics&, const replay_metrics&) = default;
};

/// The p-th percentile (0 < p <= 100) of `values` by the nearest-rank rule:
/// of n values sorted ascending, the ceil(p x n / 100)-th (1-based); 0 when
/// there are none. Reorders `values`.
inline std::int64_t nearest_rank(std::span<std::int64_t> values, int p) {
  if (values.empty()) return 0;
  const std::size_t n = values.size();
  const std::size_t rank = std::max<std::size_t>((static_cast<std::size_t>(p) * n + 99) / 100, 1);
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(rank - 1);
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

/// p50, p95, p99 and the most of `waits` (nearest_rank()); reorders them.
inline replay_waits replay_waits_of(std::span<std::int64_t> waits) {
  replay_waits w;
  w.p50 = nearest_rank(waits, 50);
  w.p95 = nearest_rank(waits, 95);
  w.p99 = nearest_rank(waits, 99);
  w.max = nearest_rank(waits, 100);
  return w;
}

/// One place a single arriving instance can go under a dynamic policy, with
/// the scores the policy ranks it by (rank_placements()).
struct place_option {
  int node = 0;        ///< index into replay_fleet::nodes
  int gpu = 0;         ///< GPU of the fleet (numbered node by node from 0)
  int placement = 0;   ///< index into all_placements() of the GPU's model
  instance where{};    ///< profile and start on the GPU's model
  int node_score = 0;  ///< the node's kube-scheduler score under the policy, 0..100
  room before{};       ///< the GPU's room before the instance
  room after{};        ///< the GPU's room with it
  bool opens = false;  ///< the GPU holds no instance before it
};

/// Every place one instance can go, and each GPU's room as it is.
struct place_ranking {
  std::vector<place_option> options;  ///< most preferred first; empty when nothing fits
  std::vector<room> rooms;            ///< per GPU of the fleet: its room now
};

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
    const int used = static_cast<int>(st.use.sums.compute);
    if (static_) {
      st.stranded = gpu_->compute_slices - fixed_compute_;
    } else {
      const room r = room_of_state(busy);
      st.stranded = gpu_->compute_slices - used - r.reachable_compute;
    }
    const int id = static_cast<int>(states_.size());
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

namespace detail {

/// The replay itself: fleet state, node index and metrics, one event at a time.
class replay_engine {
 public:
  replay_engine(const replay_fleet& fleet, std::span<const replay_item> items,
                const replay_policy& policy, std::span<const layout> geometry,
                replay_tables& tables)
      : fleet_(&fleet), items_(items), policy_(policy) {
    const bool is_static = policy.mode == replay_mode::static_geometry;
    assert(!is_static || geometry.size() == static_cast<std::size_t>(fleet.gpu_count()));
    for (std::size_t n = 0; n < fleet.nodes.size(); ++n) {
      const replay_node& node = fleet.nodes[n];
      const gpu_model& gpu = *fleet.models[static_cast<std::size_t>(node.model)];
      node_first_.push_back(static_cast<int>(gpus_.size()));
      for (int g = 0; g < node.gpus; ++g) {
        std::optional<layout> geo;
        if (is_static) geo = geometry[gpus_.size()];
        state_space* sp = &tables.space(gpu, geo);
        int space =
            static_cast<int>(std::find(spaces_.begin(), spaces_.end(), sp) - spaces_.begin());
        if (space == static_cast<int>(spaces_.size())) spaces_.push_back(sp);
        gpus_.push_back({static_cast<int>(n), space, 0});
      }
    }
    node_first_.push_back(static_cast<int>(gpus_.size()));
    // The order choose() tries a node's GPUs in: by index, or under name
    // order by the index as text, as the DRA allocator sorts the GPUs' pools
    // ("<node>-gpu-10" before "<node>-gpu-2").
    order_.resize(gpus_.size());
    gpu_pos_.resize(gpus_.size());
    for (std::size_t n = 0; n + 1 < node_first_.size(); ++n) {
      const int lo = node_first_[n];
      const auto first = order_.begin() + lo;
      const auto last = order_.begin() + node_first_[n + 1];
      for (auto it = first; it != last; ++it) *it = static_cast<int>(it - order_.begin());
      if (policy.placement == gpu_choice::name_order)
        std::sort(first, last, [&](int a, int b) { return dra_name_less(a - lo, b - lo); });
      for (auto it = first; it != last; ++it)
        gpu_pos_[static_cast<std::size_t>(*it)] = static_cast<int>(it - order_.begin());
    }
    const std::size_t nodes = fleet.nodes.size();
    node_level_.assign(nodes, -1);
    node_used_.assign(nodes, 0);
    node_cap_.assign(nodes, 0);
    for (std::size_t n = 0; n < nodes; ++n)
      node_cap_[n] = fleet.nodes[n].gpus *
                     fleet.models[static_cast<std::size_t>(fleet.nodes[n].model)]->compute_slices;
    eligible_.assign(items.size() * nodes, 0);
    index_.assign(items.size(), bit_tree(levels * nodes));
    for (const gpu_ref& g : gpus_) stranded_ += space_of(g).at(0).stranded;
    for (std::size_t n = 0; n < nodes; ++n) refresh(static_cast<int>(n));
  }

  /// Places `count` instances of item `item` for pod `pod`; false when rejected.
  /// The placements are appended to `out` as (GPU, placement) pairs.
  bool arrive(int item, std::vector<std::pair<int, int>>& out) {
    const std::size_t node_pos = index_[static_cast<std::size_t>(item)].first();
    if (node_pos == bit_tree::npos) return false;
    const int node = static_cast<int>(node_pos % fleet_->nodes.size());
    const replay_item& it = items_[static_cast<std::size_t>(item)];
    const int p =
        it.profile[static_cast<std::size_t>(fleet_->nodes[static_cast<std::size_t>(node)].model)];
    const std::size_t mark = out.size();
    for (int k = 0; k < it.count; ++k) {
      const auto [g, i] = choose(node, p);
      if (g < 0) {  // the greedy ran out short of max_more: undo, reject
        for (std::size_t j = mark; j < out.size(); ++j) release(out[j].first, out[j].second);
        out.resize(mark);
        refresh(node);
        return false;
      }
      gpu_ref& ref = gpus_[static_cast<std::size_t>(g)];
      set_state(ref, space_of(ref).add(ref.state, i));
      out.emplace_back(g, i);
    }
    refresh(node);
    return true;
  }
  /// Frees the placements of a departing pod.
  void depart(std::span<const std::pair<int, int>> held) {
    for (const auto& [g, i] : held) release(g, i);
    int last = -1;
    for (const auto& [g, i] : held) {
      const int node = gpus_[static_cast<std::size_t>(g)].node;
      if (node != last) refresh(node);
      last = node;
    }
  }
  /// Puts an existing instance on GPU g; false when its state cannot take it.
  bool hold(int g, const instance& in) {
    gpu_ref& ref = gpus_[static_cast<std::size_t>(g)];
    state_space& sp = space_of(ref);
    const int i = sp.find(in);
    if (i < 0 || !sp.can_take(ref.state, i)) return false;
    set_state(ref, sp.add(ref.state, i));
    refresh(ref.node);
    return true;
  }
  /// Every place one instance of item `item` can go (dynamic policy), most
  /// preferred first: by node score, then node, then (best-fit) a partly
  /// used GPU before an empty one and the room the placement loses, as
  /// choose() weighs them, then GPU and placement. Its
  /// first is the place arrive() takes. Also each GPU's room now.
  place_ranking rank(int item) {
    assert(policy_.mode == replay_mode::dynamic);
    place_ranking out;
    const replay_item& it = items_[static_cast<std::size_t>(item)];
    for (std::size_t n = 0; n < fleet_->nodes.size(); ++n) {
      const int p = it.profile[static_cast<std::size_t>(fleet_->nodes[n].model)];
      for (int g = node_first_[n]; g < node_first_[n + 1]; ++g) {
        const gpu_ref ref = gpus_[static_cast<std::size_t>(g)];
        state_space& sp = *spaces_[static_cast<std::size_t>(ref.space)];
        sp.rank(ref.state);
        out.rooms.push_back(sp.at(ref.state).rm);
        if (p < 0 || sp.at(ref.state).first[static_cast<std::size_t>(p)] < 0) continue;
        for (int i = 0; i < sp.placements(); ++i) {
          if (sp.place(i).profile != p || !sp.can_take(ref.state, i)) continue;
          const int to = sp.add(ref.state, i);
          sp.rank(to);  // may grow the state table: read both rooms after it
          out.options.push_back({static_cast<int>(n), g, i, sp.place(i), 100 - node_level_[n],
                                 sp.at(ref.state).rm, sp.at(to).rm, sp.at(ref.state).busy == 0});
        }
      }
    }
    const bool best_fit = policy_.placement == gpu_choice::best_fit;
    std::stable_sort(
        out.options.begin(), out.options.end(), [&](const place_option& a, const place_option& b) {
          if (a.node_score != b.node_score) return a.node_score > b.node_score;
          if (a.node != b.node) return a.node < b.node;
          if (best_fit && better(a.opens, a.before, a.after, b.opens, b.before, b.after))
            return true;
          if (best_fit && better(b.opens, b.before, b.after, a.opens, a.before, a.after))
            return false;
          if (a.gpu != b.gpu)
            return gpu_pos_[static_cast<std::size_t>(a.gpu)] <
                   gpu_pos_[static_cast<std::size_t>(b.gpu)];
          return a.placement < b.placement;
        });
    return out;
  }
  int gpus_in_use() const noexcept { return in_use_; }
  std::int64_t stranded() const noexcept { return stranded_; }
  int slices_in_use() const noexcept { return used_; }

 private:
  static constexpr std::size_t levels = 101;  // kube-scheduler scores 0..100
  struct gpu_ref {
    int node;
    int space;
    int state;
  };
  state_space& space_of(const gpu_ref& g) { return *spaces_[static_cast<std::size_t>(g.space)]; }

  void release(int g, int i) {
    gpu_ref& ref = gpus_[static_cast<std::size_t>(g)];
    set_state(ref, space_of(ref).remove(ref.state, i));
  }
  void set_state(gpu_ref& ref, int to) {
    const state_space& sp = space_of(ref);
    const gpu_state& a = sp.at(ref.state);
    const gpu_state& b = sp.at(to);
    in_use_ += (b.busy != 0) - (a.busy != 0);
    stranded_ += b.stranded - a.stranded;
    const auto delta = static_cast<int>(b.use.sums.compute - a.use.sums.compute);
    node_used_[static_cast<std::size_t>(ref.node)] += delta;
    used_ += delta;
    ref.state = to;
  }
  // The (GPU, placement) the on-node choice takes for profile p, or {-1, -1}.
  std::pair<int, int> choose(int node, int p) {
    const auto pp = static_cast<std::size_t>(p);
    const int lo = node_first_[static_cast<std::size_t>(node)];
    const int hi = node_first_[static_cast<std::size_t>(node) + 1];
    if (policy_.mode == replay_mode::static_geometry || policy_.placement != gpu_choice::best_fit) {
      for (int k = lo; k < hi; ++k) {
        const int g = order_[static_cast<std::size_t>(k)];
        const gpu_ref& ref = gpus_[static_cast<std::size_t>(g)];
        const int i = spaces_[static_cast<std::size_t>(ref.space)]->at(ref.state).first[pp];
        if (i >= 0) return {g, i};
      }
      return {-1, -1};
    }
    std::pair<int, int> best{-1, -1};
    bool best_opens = false;
    const room* best_before = nullptr;
    const room* best_after = nullptr;
    for (int g = lo; g < hi; ++g) {
      const gpu_ref& ref = gpus_[static_cast<std::size_t>(g)];
      state_space& sp = *spaces_[static_cast<std::size_t>(ref.space)];
      if (sp.at(ref.state).first[pp] < 0) continue;
      sp.rank(ref.state);
      const gpu_state& st = sp.at(ref.state);
      const bool opens = st.busy == 0;
      if (best.first < 0 ||
          better(opens, st.rm, st.after[pp], best_opens, *best_before, *best_after)) {
        best = {g, st.best[pp]};
        best_opens = opens;
        best_before = &st.rm;
        best_after = &st.after[pp];
      }
    }
    return best;
  }
  // True when placing on GPU 1 (empty when `opens1`) from room b1 to a1
  // beats placing on GPU 2 from b2 to a2 (strictly). A partly used GPU comes
  // before an empty one: comparing losses alone would open an empty GPU
  // whenever its spare unit (unit 7 of an 8-unit board has no compute slice)
  // makes a start there lose a slice fewer than the partly used GPU's best.
  // Then the least loss of reachable units and compute slices, the fullest
  // GPU, the most ways left to grow.
  static bool better(bool opens1, const room& b1, const room& a1, bool opens2, const room& b2,
                     const room& a2) {
    if (opens1 != opens2) return opens2;
    const int lu1 = b1.reachable_units - a1.reachable_units;
    const int lu2 = b2.reachable_units - a2.reachable_units;
    if (lu1 != lu2) return lu1 < lu2;
    const int lc1 = b1.reachable_compute - a1.reachable_compute;
    const int lc2 = b2.reachable_compute - a2.reachable_compute;
    if (lc1 != lc2) return lc1 < lc2;
    if (b1.reachable_units != b2.reachable_units) return b1.reachable_units < b2.reachable_units;
    return a1.extensions > a2.extensions;
  }
  // Recomputes a node's level and eligibility, and moves it in the index.
  void refresh(int node) {
    const auto n = static_cast<std::size_t>(node);
    const std::size_t nodes = fleet_->nodes.size();
    const int used = node_used_[n];
    const int cap = node_cap_[n];
    const int score = policy_.nodes == node_choice::spread ? (cap - used) * 100 / cap
                      : policy_.nodes == node_choice::pack ? used * 100 / cap
                                                           : 0;
    const int level = 100 - score;  // the index takes the lowest position first
    const int old_level = node_level_[n];
    node_level_[n] = level;
    const int lo = node_first_[n];
    const int hi = node_first_[n + 1];
    const auto model = static_cast<std::size_t>(fleet_->nodes[n].model);
    std::uint32_t fit = 0;
    for (int g = lo; g < hi; ++g) {
      const gpu_ref& ref = gpus_[static_cast<std::size_t>(g)];
      fit |= spaces_[static_cast<std::size_t>(ref.space)]->at(ref.state).fit;
    }
    for (std::size_t it = 0; it < items_.size(); ++it) {
      const replay_item& item = items_[it];
      const int p = item.profile[model];
      bool ok = p >= 0 && ((fit >> p) & 1u) != 0;
      if (ok && item.count > 1) {
        int total = 0;
        for (int g = lo; g < hi; ++g) {
          const gpu_ref& ref = gpus_[static_cast<std::size_t>(g)];
          total += spaces_[static_cast<std::size_t>(ref.space)]
                       ->at(ref.state)
                       .more[static_cast<std::size_t>(p)];
        }
        ok = total >= item.count;
      }
      std::uint8_t& was = eligible_[it * nodes + n];
      if (was && (!ok || level != old_level))
        index_[it].reset(static_cast<std::size_t>(old_level) * nodes + n);
      if (ok && (!was || level != old_level))
        index_[it].set(static_cast<std::size_t>(level) * nodes + n);
      was = ok ? 1 : 0;
    }
  }

  const replay_fleet* fleet_;
  std::span<const replay_item> items_;
  replay_policy policy_;
  std::vector<state_space*> spaces_;
  std::vector<gpu_ref> gpus_;
  std::vector<int> node_first_;
  std::vector<int> order_;    // GPUs node by node, each node's in the order choose() tries them
  std::vector<int> gpu_pos_;  // per GPU: its position in order_
  std::vector<int> node_level_;
  std::vector<int> node_used_;
  std::vector<int> node_cap_;
  std::vector<std::uint8_t> eligible_;  // item x node
  std::vector<bit_tree> index_;         // per item: (level, node) of eligible nodes
  int in_use_ = 0;
  int used_ = 0;  // compute slices of the busy instances, fleet-wide
  std::int64_t stranded_ = 0;
};

}  // namespace detail

/// What replay() tells a watcher as it goes, and the watcher that listens to
/// nothing. A watcher of one's own (replay_series, a progress line) has the
/// same members; replay() calls them inline, so this one costs nothing.
struct replay_watch {
  /// Before the first event: the span of the trace (see replay_metrics).
  void begin(std::int64_t /*start*/, std::int64_t /*end*/) noexcept {}
  /// After each change of the fleet at `time`: compute slices and GPUs held
  /// by busy instances. A pod of no duration is seen placed, then gone.
  void step(std::int64_t /*time*/, int /*slices*/, int /*gpus*/) noexcept {}
  /// A pod rejected (queued: refused) at `time`.
  void reject(std::int64_t /*time*/) noexcept {}
  /// Pod `pod` (index into the trace), which arrived at `arrival`, started
  /// at `time` (after the step() that placed it).
  void started(std::uint32_t /*pod*/, std::int64_t /*arrival*/, std::int64_t /*time*/) noexcept {}
  /// After the last event.
  void finish() noexcept {}
};

/// A replay's use of the fleet over time, small enough to plot: the trace's
/// span cut into at most `most` equal spans (buckets), each with the lowest,
/// highest and last compute slices and GPUs in use in it and the pods
/// rejected in it. Its size is bounded by `most` however many events the
/// trace has, and, as each bucket keeps its highest value, its highest is the
/// replay's peak however coarse the cut. A replay watcher (replay_watch).
class replay_series {
 public:
  /// Lowest, highest and last value of one quantity within a bucket.
  struct level {
    int low = 0;   ///< lowest
    int high = 0;  ///< highest
    int last = 0;  ///< at the bucket's end
    friend bool operator==(const level&, const level&) = default;
  };
  /// One span of the trace.
  struct bucket {
    level slices;               ///< compute slices in use
    level gpus;                 ///< GPUs holding a busy instance
    std::int64_t rejected = 0;  ///< pods rejected in the span
  };
  /// At most `most` (>= 1) buckets.
  explicit replay_series(std::size_t most = 2000) : most_(std::max<std::size_t>(most, 1)) {}

  /// The trace's first time.
  std::int64_t start() const noexcept { return start_; }
  /// The trace's last time.
  std::int64_t end() const noexcept { return end_; }
  /// Time units per bucket: bucket i spans [start + i * width, start + (i + 1) * width).
  std::int64_t width() const noexcept { return width_; }
  /// The buckets, covering start to end.
  std::span<const bucket> buckets() const noexcept { return buckets_; }

  /// replay_watch's members.
  void begin(std::int64_t start, std::int64_t end) {
    start_ = start;
    end_ = end;
    const auto span = static_cast<std::uint64_t>(end - start) + 1;
    width_ = static_cast<std::int64_t>((span + most_ - 1) / most_);
    buckets_.assign(static_cast<std::size_t>((end - start) / width_) + 1, bucket{});
    at_ = 0;
  }
  void step(std::int64_t time, int slices, int gpus) noexcept {
    bucket& b = reach(time);
    mark(b.slices, slices);
    mark(b.gpus, gpus);
  }
  void reject(std::int64_t time) noexcept { ++reach(time).rejected; }
  void started(std::uint32_t /*pod*/, std::int64_t /*arrival*/, std::int64_t /*time*/) noexcept {}
  void finish() noexcept { reach(end_); }

 private:
  static void mark(level& l, int v) noexcept {
    l.low = std::min(l.low, v);
    l.high = std::max(l.high, v);
    l.last = v;
  }
  // The bucket of `time`, the buckets before it (from the last one reached)
  // holding the last values throughout.
  bucket& reach(std::int64_t time) noexcept {
    const auto i = static_cast<std::size_t>((time - start_) / width_);
    assert(i < buckets_.size() && i >= at_);
    for (; at_ < i; ++at_) {
      const bucket& from = buckets_[at_];
      bucket& to = buckets_[at_ + 1];
      to.slices = {from.slices.last, from.slices.last, from.slices.last};
      to.gpus = {from.gpus.last, from.gpus.last, from.gpus.last};
    }
    return buckets_[i];
  }

  std::size_t most_;
  std::int64_t start_ = 0;
  std::int64_t end_ = 0;
  std::int64_t width_ = 1;
  std::vector<bucket> buckets_;
  std::size_t at_ = 0;  // the last bucket reached
};

namespace detail {

/// replay() under a queue (pending_rule fifo or backfill); `pods` is not empty.
template <class Watch>
replay_metrics replay_queued(const replay_fleet& fleet, std::span<const replay_item> items,
                             std::span<const replay_pod> pods, const replay_policy& policy,
                             std::span<const layout> geometry, replay_tables& tables,
                             Watch& watch) {
  replay_metrics out;
  replay_engine engine(fleet, items, policy, geometry, tables);
  const bool dynamic = policy.mode == replay_mode::dynamic;
  const bool backfill = policy.pending == pending_rule::backfill;
  std::vector<std::pair<int, int>> held;  // placements of all started pods
  // Which items the empty fleet holds: a pod of any other would wait forever.
  std::vector<std::uint8_t> holdable(items.size(), 0);
  for (std::size_t it = 0; it < items.size(); ++it) {
    if (!engine.arrive(static_cast<int>(it), held)) continue;
    holdable[it] = 1;
    engine.depart(held);
    held.clear();
  }
  // Arrivals in (time, pod) order; a pod's position in it is its place in
  // the queue, so each item's waiting pods are a FIFO of positions.
  std::vector<std::uint32_t> order(pods.size());
  out.start = pods[0].start;
  out.end = pods[0].start;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    order[i] = static_cast<std::uint32_t>(i);
    out.start = std::min(out.start, pods[i].start);
    out.end = std::max({out.end, pods[i].start, pods[i].end});
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return pods[a].start < pods[b].start; });
  struct leave {
    std::int64_t time;
    std::uint32_t pod;
  };
  // A min-heap of departures: earliest first, then pod order.
  const auto later = [](const leave& a, const leave& b) {
    return a.time != b.time ? a.time > b.time : a.pod > b.pod;
  };
  std::vector<leave> leaves;
  std::vector<std::vector<std::uint32_t>> waiting(items.size());  // per item: positions
  std::vector<std::size_t> head(items.size(), 0);                 // per item: first still waiting
  std::vector<std::uint8_t> failed(items.size(), 0);
  std::vector<std::uint32_t> first(pods.size(), 0);
  std::vector<std::uint32_t> last(pods.size(), 0);
  std::vector<std::int64_t> waits;
  waits.reserve(pods.size());
  std::int64_t queued = 0;
  const auto depart = [&](std::uint32_t pod, std::int64_t t) {
    engine.depart(std::span(held).subspan(first[pod], last[pod] - first[pod]));
    out.destructions +=
        dynamic ? items[static_cast<std::size_t>(pods[pod].item)].count : std::int64_t{0};
    watch.step(t, engine.slices_in_use(), engine.gpus_in_use());
  };
  const auto start = [&](std::uint32_t pod, std::int64_t t) {
    const replay_pod& p = pods[pod];
    const replay_item& item = items[static_cast<std::size_t>(p.item)];
    first[pod] = static_cast<std::uint32_t>(held.size());
    if (!engine.arrive(p.item, held)) return false;
    last[pod] = static_cast<std::uint32_t>(held.size());
    ++out.pods_accepted;
    out.instances_accepted += item.count;
    out.peak_gpus_in_use = std::max(out.peak_gpus_in_use, engine.gpus_in_use());
    if (dynamic) out.creations += item.count;
    watch.step(t, engine.slices_in_use(), engine.gpus_in_use());
    watch.started(pod, p.start, t);
    waits.push_back(t - p.start);
    if (p.end > p.start) {
      out.instance_time += item.count * (p.end - p.start);
      leaves.push_back({t + (p.end - p.start), pod});
      std::push_heap(leaves.begin(), leaves.end(), later);
    } else {
      depart(pod, t);
    }
    return true;
  };
  // One retry of the queue: the earliest waiting pod of an item not failed
  // in this retry, until none is left (fifo: until one does not fit).
  const auto retry = [&](std::int64_t t) {
    if (queued == 0) return;
    std::fill(failed.begin(), failed.end(), std::uint8_t{0});
    for (;;) {
      std::size_t kind = items.size();
      std::uint32_t at = std::numeric_limits<std::uint32_t>::max();
      for (std::size_t k = 0; k < items.size(); ++k)
        if (failed[k] == 0 && head[k] < waiting[k].size() && waiting[k][head[k]] < at) {
          kind = k;
          at = waiting[k][head[k]];
        }
      if (kind == items.size()) return;
      if (!start(order[at], t)) {
        if (!backfill) return;
        failed[kind] = 1;
        continue;
      }
      ++head[kind];
      --queued;
    }
  };
  std::size_t next = 0;  // the next arrival, in `order`
  std::int64_t now = out.start;
  watch.begin(out.start, out.end);
  for (;;) {
    const bool arrival = next < order.size();
    const bool departure = !leaves.empty() && leaves.front().time <= out.end;
    if (!arrival && !departure) break;
    const std::int64_t t = !departure ? pods[order[next]].start
                           : !arrival ? leaves.front().time
                                      : std::min(pods[order[next]].start, leaves.front().time);
    out.gpu_time += engine.gpus_in_use() * (t - now);
    out.stranded_slice_time += engine.stranded() * (t - now);
    out.queue_time += queued * (t - now);
    now = t;
    bool departed = false;
    while (!leaves.empty() && leaves.front().time == t) {
      std::pop_heap(leaves.begin(), leaves.end(), later);
      depart(leaves.back().pod, t);
      leaves.pop_back();
      departed = true;
    }
    if (departed) retry(t);
    for (; next < order.size() && pods[order[next]].start == t; ++next) {
      const replay_pod& p = pods[order[next]];
      const auto kind = static_cast<std::size_t>(p.item);
      if (holdable[kind] == 0) {
        ++out.pods_rejected;
        out.instances_rejected += items[kind].count;
        if (!out.first_rejection) out.first_rejection = t;
        watch.reject(t);
        continue;
      }
      waiting[kind].push_back(static_cast<std::uint32_t>(next));
      ++queued;
      retry(t);
    }
    out.queue_peak = std::max(out.queue_peak, queued);
  }
  out.gpu_time += engine.gpus_in_use() * (out.end - now);
  out.stranded_slice_time += engine.stranded() * (out.end - now);
  out.queue_time += queued * (out.end - now);
  out.pods_pending = queued;
  for (std::size_t k = 0; k < items.size(); ++k)
    for (std::size_t i = head[k]; i < waiting[k].size(); ++i)
      waits.push_back(out.end - pods[order[waiting[k][i]]].start);
  out.waits = replay_waits_of(waits);
  watch.finish();
  return out;
}

}  // namespace detail

/// Replays `pods` (in file order) on `fleet` under `policy`. Each item must
/// name a profile index (or -1) per fleet model and a count > 0; a static
/// policy needs one geometry per GPU of the fleet, in GPU order. The trace
/// spans from its earliest start to its latest start or end. `tables` may be
/// shared by replays of the same models. `watch` hears every change of the
/// fleet, every start and every rejection (replay_watch); it is not called
/// for an empty trace. Under a queue (policy.pending) see the file's comment.
template <class Watch>
replay_metrics replay(const replay_fleet& fleet, std::span<const replay_item> items,
                      std::span<const replay_pod> pods, const replay_policy& policy,
                      std::span<const layout> geometry, replay_tables& tables, Watch& watch) {
  replay_metrics out;
  if (pods.empty()) return out;
  if (policy.pending != pending_rule::reject)
    return detail::replay_queued(fleet, items, pods, policy, geometry, tables, watch);
  detail::replay_engine engine(fleet, items, policy, geometry, tables);
  // Events: (time, departure 0 / arrival 1, pod), sorted; a pod that ends
  // when or before it starts leaves right after its arrival instead.
  struct event {
    std::int64_t time;
    std::uint32_t arrival;
    std::uint32_t pod;
  };
  std::vector<event> events;
  events.reserve(pods.size() * 2);
  out.start = pods[0].start;
  out.end = pods[0].start;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const replay_pod& p = pods[i];
    out.start = std::min(out.start, p.start);
    out.end = std::max({out.end, p.start, p.end});
    events.push_back({p.start, 1, static_cast<std::uint32_t>(i)});
    if (p.end > p.start) events.push_back({p.end, 0, static_cast<std::uint32_t>(i)});
  }
  std::sort(events.begin(), events.end(), [](const event& a, const event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.arrival != b.arrival) return a.arrival < b.arrival;
    return a.pod < b.pod;
  });
  std::vector<std::pair<int, int>> held;  // placements of all placed pods
  std::vector<std::uint32_t> first(pods.size() + 1, 0);
  std::vector<std::uint32_t> last(pods.size(), 0);
  std::int64_t now = out.start;
  watch.begin(out.start, out.end);
  for (const event& e : events) {
    out.gpu_time += engine.gpus_in_use() * (e.time - now);
    out.stranded_slice_time += engine.stranded() * (e.time - now);
    now = e.time;
    const replay_pod& pod = pods[e.pod];
    const replay_item& item = items[static_cast<std::size_t>(pod.item)];
    if (e.arrival == 0) {
      if (last[e.pod] > first[e.pod]) {
        engine.depart(std::span(held).subspan(first[e.pod], last[e.pod] - first[e.pod]));
        out.destructions += policy.mode == replay_mode::dynamic ? item.count : 0;
        watch.step(e.time, engine.slices_in_use(), engine.gpus_in_use());
      }
      continue;
    }
    first[e.pod] = static_cast<std::uint32_t>(held.size());
    const bool placed = engine.arrive(pod.item, held);
    last[e.pod] = static_cast<std::uint32_t>(held.size());
    if (!placed) {
      ++out.pods_rejected;
      out.instances_rejected += item.count;
      if (!out.first_rejection) out.first_rejection = e.time;
      watch.reject(e.time);
      continue;
    }
    ++out.pods_accepted;
    out.instances_accepted += item.count;
    out.peak_gpus_in_use = std::max(out.peak_gpus_in_use, engine.gpus_in_use());
    watch.step(e.time, engine.slices_in_use(), engine.gpus_in_use());
    watch.started(e.pod, e.time, e.time);
    if (policy.mode == replay_mode::dynamic) out.creations += item.count;
    if (pod.end > pod.start) {
      out.instance_time += item.count * (pod.end - pod.start);
    } else {
      engine.depart(std::span(held).subspan(first[e.pod], last[e.pod] - first[e.pod]));
      last[e.pod] = first[e.pod];
      out.destructions += policy.mode == replay_mode::dynamic ? item.count : 0;
      watch.step(e.time, engine.slices_in_use(), engine.gpus_in_use());
    }
  }
  out.gpu_time += engine.gpus_in_use() * (out.end - now);
  out.stranded_slice_time += engine.stranded() * (out.end - now);
  watch.finish();
  return out;
}

/// replay() with no watcher.
inline replay_metrics replay(const replay_fleet& fleet, std::span<const replay_item> items,
                             std::span<const replay_pod> pods, const replay_policy& policy,
                             std::span<const layout> geometry, replay_tables& tables) {
  replay_watch none;
  return replay(fleet, items, pods, policy, geometry, tables, none);
}

/// The most instances of each profile of fleet model `model` that run at once
/// in `pods`, in replay()'s order of events: at one time departures first,
/// then arrivals in pod order, a pod of no duration (end <= start) leaving
/// right after its own arrival, so it adds its instances to those running
/// then (and to nothing after). What a static geometry must hold to reject
/// nothing. Indexed by profile; items that the model cannot serve are left out.
inline std::vector<std::int64_t> concurrent_peaks(std::span<const replay_item> items,
                                                  std::span<const replay_pod> pods,
                                                  std::size_t model, std::size_t profiles) {
  struct step {
    std::int64_t time;
    std::uint32_t arrival;  // departures (0) sort before arrivals (1)
    std::uint32_t pod;      // arrivals at one time in pod order
  };
  std::vector<step> steps;
  steps.reserve(pods.size() * 2);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const replay_pod& p = pods[i];
    if (items[static_cast<std::size_t>(p.item)].profile[model] < 0) continue;
    steps.push_back({p.start, 1, static_cast<std::uint32_t>(i)});
    if (p.end > p.start) steps.push_back({p.end, 0, static_cast<std::uint32_t>(i)});
  }
  std::sort(steps.begin(), steps.end(), [](const step& a, const step& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.arrival != b.arrival) return a.arrival < b.arrival;
    return a.pod < b.pod;
  });
  std::vector<std::int64_t> now(profiles, 0), peak(profiles, 0);
  for (const step& s : steps) {
    const replay_pod& pod = pods[s.pod];
    const replay_item& it = items[static_cast<std::size_t>(pod.item)];
    const auto p = static_cast<std::size_t>(it.profile[model]);
    if (s.arrival == 0) {
      now[p] -= it.count;
      continue;
    }
    now[p] += it.count;
    peak[p] = std::max(peak[p], now[p]);
    if (pod.end <= pod.start) now[p] -= it.count;  // leaves right after it arrived
  }
  return peak;
}

/// The fewest GPUs g in [1, most] for which `meets(g)` holds, found by
/// doubling and then bisection over exact replays; none when even `most`
/// does not. Rejections need not fall monotonically with the fleet's size
/// (a larger fleet can spread pods into a worse packing), so the answer is a
/// count where `meets` holds with one fewer where it does not, both replayed.
template <class Meets>
std::optional<int> fewest_gpus(Meets&& meets, int most) {
  if (most < 1) return std::nullopt;
  int lo = 0;  // the largest count known to fail (none: 0)
  int hi = 1;
  while (!meets(hi)) {
    lo = hi;
    if (hi == most) return std::nullopt;
    hi = hi > most / 2 ? most : hi * 2;
  }
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (meets(mid))
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

/// Ranks every place one instance of `item` can go on `fleet` under the
/// dynamic `policy`, the fleet's GPUs holding `held` (one layout per GPU, in
/// GPU order, each valid on its model; they stay where they are), most
/// preferred first: the first is where replay() would put a pod of one
/// instance of `item` arriving now. `item.count` must be 1.
inline place_ranking rank_placements(const replay_fleet& fleet, const replay_item& item,
                                     std::span<const layout> held, const replay_policy& policy,
                                     replay_tables& tables) {
  assert(policy.mode == replay_mode::dynamic && item.count == 1);
  assert(held.size() == static_cast<std::size_t>(fleet.gpu_count()));
  detail::replay_engine engine(fleet, std::span(&item, 1), policy, {}, tables);
  for (std::size_t g = 0; g < held.size(); ++g) {
    // The rules are monotone: every subset of a valid layout is valid, so
    // any order of adding its instances succeeds.
    for (const instance& in : held[g]) {
      [[maybe_unused]] const bool ok = engine.hold(static_cast<int>(g), in);
      assert(ok && "a held layout the rules refuse");
    }
  }
  return engine.rank(0);
}

/// replay() with tables of its own.
inline replay_metrics replay(const replay_fleet& fleet, std::span<const replay_item> items,
                             std::span<const replay_pod> pods, const replay_policy& policy,
                             std::span<const layout> geometry = {}) {
  replay_tables tables;
  return replay(fleet, items, pods, policy, geometry, tables);
}

}  // namespace v1
}  // namespace migplan

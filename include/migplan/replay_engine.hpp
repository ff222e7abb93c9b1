// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file replay_engine.hpp
/// The replay engine: a fleet's state, its node index and one event at a
/// time (detail::replay_engine), on the tables of replay_state.hpp, and the
/// per-model figures both replays keep. replay() and rank_placements()
/// (replay.hpp) and the queued replay (replay_queue.hpp) drive it.

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <migplan/capacity.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/replay_state.hpp>
#include <migplan/replay_types.hpp>
#include <migplan/rules.hpp>
#include <optional>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

namespace migplan {
inline namespace v1 {

namespace detail {

/// The replay itself: fleet state, node index and metrics, one event at a time.
class replay_engine {
 public:
  replay_engine(const replay_fleet& fleet, std::span<const replay_item> items,
                const replay_policy& policy, std::span<const layout> geometry,
                replay_tables& tables)
      : fleet_(&fleet), items_(items), policy_(policy), multi_(fleet.models.size() > 1) {
    if (multi_) {
      model_in_use_.assign(fleet.models.size(), 0);
      model_stranded_.assign(fleet.models.size(), 0);
      model_used_.assign(fleet.models.size(), 0);
    }
    const bool is_static = policy.mode == replay_mode::static_geometry;
    assert(!is_static || geometry.size() == static_cast<std::size_t>(fleet.gpu_count()));
    for (std::size_t n = 0; n < fleet.nodes.size(); ++n) {
      const replay_node& node = fleet.nodes[n];
      const gpu_model& gpu = *fleet.models[static_cast<std::size_t>(node.model)];
      node_first_.push_back(static_cast<int>(gpus_.size()));
      for (int g = 0; g < node.gpus; ++g) {
        std::optional<layout> geo;
        if (is_static) geo = geometry[gpus_.size()];
        gpus_.push_back({static_cast<int>(n), space_index(&tables.space(gpu, geo), node.model), 0});
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
    for (const gpu_ref& g : gpus_) add_stranded(g, space_of(g).at(0).stranded);
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
  /// Puts placement `i` of GPU g's model on it; false when its state
  /// cannot take it.
  bool take(int g, int i) {
    gpu_ref& ref = gpus_[static_cast<std::size_t>(g)];
    if (!space_of(ref).can_take(ref.state, i)) return false;
    set_state(ref, space_of(ref).add(ref.state, i));
    refresh(ref.node);
    return true;
  }
  /// Frees placement `i` of GPU g, which holds it.
  void drop(int g, int i) {
    release(g, i);
    refresh(gpus_[static_cast<std::size_t>(g)].node);
  }
  /// The placement of GPU g's model that `in` is; -1 when none.
  int find(int g, const instance& in) {
    return space_of(gpus_[static_cast<std::size_t>(g)]).find(in);
  }
  /// The instance placement `i` of GPU g's model is.
  const instance& placement(int g, int i) {
    return space_of(gpus_[static_cast<std::size_t>(g)]).place(i);
  }
  /// Every place one instance of item `item` can go (dynamic policy), most
  /// preferred first: by node score, then node, then (best-fit) a partly
  /// used GPU before an empty one and the room the placement loses, or
  /// (hami) the least used GPU and HAMi's score, as choose() weighs them,
  /// then GPU and placement. Its
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
    const bool hami = policy_.placement == gpu_choice::hami;
    // HAMi's keys: the GPU's compute slices in use, the GPU, the start's score.
    const auto hami_key = [&](const place_option& o) {
      const gpu_ref ref = gpus_[static_cast<std::size_t>(o.gpu)];
      const state_space& sp = *spaces_[static_cast<std::size_t>(ref.space)];
      const std::pair<int, int> sc = sp.hami_score(sp.at(ref.state).busy, o.placement);
      return std::make_tuple(sp.at(ref.state).use.sums.compute, o.gpu, -sc.first, -sc.second);
    };
    std::stable_sort(
        out.options.begin(), out.options.end(), [&](const place_option& a, const place_option& b) {
          if (a.node_score != b.node_score) return a.node_score > b.node_score;
          if (a.node != b.node) return a.node < b.node;
          if (hami && hami_key(a) != hami_key(b)) return hami_key(a) < hami_key(b);
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
  /// Takes GPU g, which must hold nothing, out of service to take static
  /// `geometry`: it fits nothing and strands nothing until up(g).
  void down(int g, const layout& geometry, replay_tables& tables) {
    gpu_ref& ref = gpus_[static_cast<std::size_t>(g)];
    assert(space_of(ref).at(ref.state).busy == 0);
    const gpu_model& gpu = space_of(ref).gpu();
    if (next_space_.empty()) next_space_.assign(gpus_.size(), -1);
    int& next = next_space_[static_cast<std::size_t>(g)];
    if (next < 0) add_stranded(ref, -space_of(ref).at(ref.state).stranded);  // it was in service
    const int model = space_model_[static_cast<std::size_t>(ref.space)];
    next = space_index(&tables.space(gpu, geometry), model);
    // The empty static geometry fits nothing: the GPU is skipped wherever
    // fits are looked up, at no cost to the events that never reconfigure.
    ref.space = space_index(&tables.space(gpu, layout{}), model);
    ref.state = 0;
    refresh(ref.node);
  }
  /// Puts GPU g, taken out by down(), back in service with its new geometry.
  void up(int g) {
    gpu_ref& ref = gpus_[static_cast<std::size_t>(g)];
    int& next = next_space_[static_cast<std::size_t>(g)];
    assert(next >= 0);
    ref.space = next;
    ref.state = 0;
    next = -1;
    add_stranded(ref, space_of(ref).at(0).stranded);
    refresh(ref.node);
  }
  int gpus_in_use() const noexcept { return in_use_; }
  std::int64_t stranded() const noexcept { return stranded_; }
  int slices_in_use() const noexcept { return used_; }
  /// The fleet model of GPU g (index into replay_fleet::models).
  int model_of(int g) const noexcept {
    return fleet_->nodes[static_cast<std::size_t>(gpus_[static_cast<std::size_t>(g)].node)].model;
  }
  /// gpus_in_use() on the GPUs of fleet model m.
  int gpus_in_use(std::size_t m) const noexcept { return multi_ ? model_in_use_[m] : in_use_; }
  /// slices_in_use() on the GPUs of fleet model m.
  int slices_in_use(std::size_t m) const noexcept { return multi_ ? model_used_[m] : used_; }
  /// stranded() on the GPUs of fleet model m.
  std::int64_t stranded(std::size_t m) const noexcept {
    return multi_ ? model_stranded_[m] : stranded_;
  }

 private:
  static constexpr std::size_t levels = 101;  // kube-scheduler scores 0..100
  struct gpu_ref {
    int node;
    int space;
    int state;
  };
  state_space& space_of(const gpu_ref& g) { return *spaces_[static_cast<std::size_t>(g.space)]; }
  // The index of `sp` on fleet model `model` in spaces_, added when new.
  int space_index(state_space* sp, int model) {
    for (std::size_t i = 0; i < spaces_.size(); ++i)
      if (spaces_[i] == sp && space_model_[i] == model) return static_cast<int>(i);
    spaces_.push_back(sp);
    space_model_.push_back(model);
    return static_cast<int>(spaces_.size()) - 1;
  }
  // Adds `d` stranded compute slices on GPU `g`, to the fleet and its model.
  void add_stranded(const gpu_ref& g, std::int64_t d) {
    stranded_ += d;
    if (multi_)
      model_stranded_[static_cast<std::size_t>(space_model_[static_cast<std::size_t>(g.space)])] +=
          d;
  }

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
    // Per model only on a fleet of several: one model's figures are the fleet's.
    if (multi_) {
      const auto m = static_cast<std::size_t>(space_model_[static_cast<std::size_t>(ref.space)]);
      model_in_use_[m] += (b.busy != 0) - (a.busy != 0);
      model_stranded_[m] += b.stranded - a.stranded;
      model_used_[m] += static_cast<int>(b.use.sums.compute - a.use.sums.compute);
    }
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
    if (policy_.mode == replay_mode::dynamic && policy_.placement == gpu_choice::hami) {
      // The least used GPU that can take it (HAMi's default GPU policy,
      // spread), HAMi's start there.
      std::pair<int, int> pick{-1, -1};
      long long least = 0;
      for (int g = lo; g < hi; ++g) {
        const gpu_ref& ref = gpus_[static_cast<std::size_t>(g)];
        const gpu_state& st = spaces_[static_cast<std::size_t>(ref.space)]->at(ref.state);
        if (st.hami[pp] < 0 || (pick.first >= 0 && st.use.sums.compute >= least)) continue;
        pick = {g, st.hami[pp]};
        least = st.use.sums.compute;
      }
      return pick;
    }
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
    // A node without GPUs (place leaves out those with MIG off) holds
    // nothing: no score, and no item is eligible on it below.
    const int score = cap == 0                               ? 0
                      : policy_.nodes == node_choice::spread ? (cap - used) * 100 / cap
                      : policy_.nodes == node_choice::pack   ? used * 100 / cap
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
  bool multi_;  // the fleet has several models: keep the per-model figures
  std::vector<state_space*> spaces_;
  std::vector<int> space_model_;  // per space: the fleet model of its GPUs
  std::vector<gpu_ref> gpus_;
  std::vector<int> node_first_;
  std::vector<int> order_;       // GPUs node by node, each node's in the order choose() tries them
  std::vector<int> gpu_pos_;     // per GPU: its position in order_
  std::vector<int> next_space_;  // per GPU taken down: the space it comes up in (-1: in service)
  std::vector<int> node_level_;
  std::vector<int> node_used_;
  std::vector<int> node_cap_;
  std::vector<std::uint8_t> eligible_;  // item x node
  std::vector<bit_tree> index_;         // per item: (level, node) of eligible nodes
  int in_use_ = 0;
  int used_ = 0;  // compute slices of the busy instances, fleet-wide
  std::int64_t stranded_ = 0;
  std::vector<int> model_in_use_;             // multi_: per model, GPUs holding a busy instance
  std::vector<std::int64_t> model_stranded_;  // multi_: per model, stranded compute slices
  std::vector<int> model_used_;               // multi_: per model, compute slices of busy instances
};

/// Per fleet model (several): `dt` more of the GPUs in use and stranded slices.
inline void add_model_areas(std::vector<replay_model_metrics>& models, const replay_engine& e,
                            std::int64_t dt) {
  for (std::size_t m = 0; m < models.size(); ++m) {
    models[m].gpu_time += e.gpus_in_use(m) * dt;
    models[m].stranded_slice_time += e.stranded(m) * dt;
  }
}

/// A pod of `item` running `duration` started on fleet model `model` (`m`
/// its figures), `e` with it placed (several models).
inline void add_model_start(replay_model_metrics& m, const replay_engine& e, std::size_t model,
                            const replay_item& item, std::int64_t duration) {
  ++m.pods_accepted;
  m.instances_accepted += item.count;
  m.instance_time += item.count * duration;
  m.peak_gpus_in_use = std::max(m.peak_gpus_in_use, e.gpus_in_use(model));
}

/// Per fleet model (several), what `watch` hears after a step() at `time`:
/// the model's compute slices and GPUs in use (replay_watch::model_step()).
/// A watcher without model_step() hears nothing more.
template <class Watch>
void model_steps(Watch& watch, const replay_engine& e, std::size_t models, std::int64_t time) {
  if constexpr (requires { watch.model_step(time, models, 0, 0); })
    for (std::size_t m = 0; m < models; ++m)
      watch.model_step(time, m, e.slices_in_use(m), e.gpus_in_use(m));
}

/// One model's figures are the fleet's: set at the end, not kept per event.
inline void set_one_model(replay_metrics& out) {
  if (out.models.size() != 1) return;
  out.models[0] = {out.pods_accepted, out.instances_accepted,  out.instance_time,
                   out.gpu_time,      out.stranded_slice_time, out.peak_gpus_in_use};
}

}  // namespace detail

}  // namespace v1
}  // namespace migplan

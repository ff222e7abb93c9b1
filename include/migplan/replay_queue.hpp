// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file replay_queue.hpp
/// The queued replay (detail::queued_replay): replay() under a pending
/// queue (fifo or backfill), a re-plan, or instances with a cost or a life
/// (creation time, keeping idle instances), and defragmentation. What it
/// does is replay.hpp's comment; replay() calls it (replay_queued()).

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <migplan/layout.hpp>
#include <migplan/moves.hpp>
#include <migplan/replay_demand.hpp>
#include <migplan/replay_engine.hpp>
#include <migplan/replay_state.hpp>
#include <migplan/replay_types.hpp>
#include <optional>
#include <set>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

namespace migplan {
inline namespace v1 {

namespace detail {

/// replay() under a queue (pending_rule fifo or backfill), or under a
/// re-plan (`replan`, either pending rule), or with instances with a cost
/// or a life; `pods` is not empty. One replay, run() once: its state is
/// the members, each concern a member function.
template <class Watch>
class queued_replay {
 public:
  queued_replay(const replay_fleet& fleet, std::span<const replay_item> items,
                std::span<const replay_pod> pods, const replay_policy& policy,
                std::span<const layout> geometry, replay_tables& tables, Watch& watch,
                const replay_replan* replan)
      : fleet_(fleet),
        items_(items),
        pods_(pods),
        policy_(policy),
        tables_(tables),
        watch_(watch),
        replan_(replan),
        per_model_(fleet.models.size() > 1),
        dynamic_(policy.mode == replay_mode::dynamic),
        backfill_(policy.pending == pending_rule::backfill),
        queue_(policy.pending != pending_rule::reject),
        keep_(dynamic_ && policy.keep_idle >= 0),
        create_milli_(dynamic_ ? policy.create_milli : 0),
        defrag_(policy.defrag),
        engine_(fleet, items, policy, geometry, tables) {
    out_.models.assign(fleet.models.size(), {});
    assert(defrag_ == 0 || (dynamic_ && queue_ && !keep_));
    assert(queue_ || replan_ || keep_ || create_milli_ > 0);
    assert(!replan_ || !dynamic_);
    assert(create_milli_ >= 0);
    if (keep_) busy_.emplace(fleet, items, policy, geometry, tables);
    seen_ = keep_ ? &*busy_ : &engine_;
    holdable_.assign(items.size(), 0);
    holdable_on(engine_);
    set_up_queue();
    set_up_nodes();
    if (replan_) set_up_replan(geometry);
  }
  queued_replay(const queued_replay&) = delete;
  queued_replay& operator=(const queued_replay&) = delete;

  /// Replays the trace: what it measured.
  replay_metrics run() {
    watch_.begin(out_.start, out_.end);
    for (;;) {
      const std::optional<std::int64_t> t = next_time();
      if (!t) break;
      advance(*t);
      if (changes_at(*t)) retry(*t);
      arrivals_at(*t);
      out_.queue_peak = std::max(out_.queue_peak, queued_);
    }
    finish();
    return std::move(out_);
  }

 private:
  using placement_ref = std::pair<int, int>;  // (GPU, placement)
  struct leave {
    std::int64_t time;
    std::uint32_t pod;
  };
  // Orders a min-heap of departures: earliest first, then pod order.
  struct later {
    bool operator()(const leave& a, const leave& b) const {
      return a.time != b.time ? a.time > b.time : a.pod > b.pod;
    }
  };
  // Orders a min-heap of (time, id) pairs: idle instances' expiries, GPUs'
  // returns to service.
  struct sooner {
    template <class Pair>
    bool operator()(const Pair& a, const Pair& b) const {
      return a > b;
    }
  };
  struct idle_instance {
    int gpu;
    int placement;
    int profile;
    int start;
    bool alive;
  };

  // Set-up: which items the empty `empty` holds (a pod of any other would
  // wait forever). Under a re-plan, the empty fleet with the geometries of
  // the time (again after each re-plan that changes them).
  void holdable_on(replay_engine& empty) {
    std::vector<placement_ref> placed;
    for (std::size_t it = 0; it < items_.size(); ++it) {
      holdable_[it] = 0;
      if (!empty.arrive(static_cast<int>(it), placed)) continue;
      holdable_[it] = 1;
      empty.depart(placed);
      placed.clear();
    }
  }

  // Set-up: arrivals in (time, pod) order (a pod's position in it is its
  // place in the queue, so each item's waiting pods are a FIFO of
  // positions), the trace's span, and the queue's state.
  void set_up_queue() {
    order_.resize(pods_.size());
    out_.start = pods_[0].start;
    out_.end = pods_[0].start;
    for (std::size_t i = 0; i < pods_.size(); ++i) {
      order_[i] = static_cast<std::uint32_t>(i);
      out_.start = std::min(out_.start, pods_[i].start);
      out_.end = std::max({out_.end, pods_[i].start, pods_[i].end});
    }
    std::stable_sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
      return pods_[a].start < pods_[b].start;
    });
    waiting_.resize(items_.size());
    head_.assign(items_.size(), 0);
    failed_.assign(items_.size(), 0);
    first_.assign(pods_.size(), 0);
    last_.assign(pods_.size(), 0);
    waits_.reserve(pods_.size());
    if (replan_) {
      wait_at_.resize(pods_.size());
      run_ends_.assign(pods_.size(), none);
      evicted_once_.assign(pods_.size(), 0);
    }
    out_.pods = static_cast<std::int64_t>(pods_.size());
    now_ = out_.start;
  }

  // Set-up: the nodes' GPUs (keep, defrag), the idle instances' indexes
  // (keep) and the running instances per GPU (defrag).
  void set_up_nodes() {
    if (keep_ || defrag_ > 0)
      for (std::size_t n = 0; n < fleet_.nodes.size(); ++n) {
        for (int g = 0; g < fleet_.nodes[n].gpus; ++g) node_of_.push_back(static_cast<int>(n));
        node_first_.push_back(node_first_.back() + fleet_.nodes[n].gpus);
      }
    if (keep_) {
      for (std::size_t n = 0; n < fleet_.nodes.size(); ++n) {
        key_of_.push_back(idle_count_.size());
        const gpu_model& gpu = *fleet_.models[static_cast<std::size_t>(fleet_.nodes[n].model)];
        idle_count_.resize(idle_count_.size() + gpu.profiles.size(), 0);
      }
      idle_on_.assign(node_of_.size(), {});
      for (const gpu_model* m : fleet_.models) idle_nodes_.emplace_back(m->profiles.size());
    }
    if (defrag_ > 0) {
      on_gpu_.resize(node_of_.size());
      version_.assign(fleet_.nodes.size(), 0);
      no_room_.assign(fleet_.nodes.size(), {-1, 0});
      moved_.assign(pods_.size(), 0);
    }
  }

  // Set-up (re-plan): each GPU's geometry, none down, the first re-plan
  // and each pod's position in the order of arrivals.
  void set_up_replan(std::span<const layout> geometry) {
    outage_of_.assign(geometry.size(), 0);
    assert(replan_->period > 0 && replan_->reconfigure >= 0);
    current_.assign(geometry.begin(), geometry.end());
    until_.assign(current_.size(), -1);
    next_replan_ = out_.start + replan_->period;
    position_.resize(pods_.size());
    for (std::size_t i = 0; i < order_.size(); ++i)
      position_[order_[i]] = static_cast<std::uint32_t>(i);
  }

  std::size_t node_model(int node) const {
    return static_cast<std::size_t>(fleet_.nodes[static_cast<std::size_t>(node)].model);
  }
  std::int64_t& count_at(int node, int profile) {
    return idle_count_[key_of_[static_cast<std::size_t>(node)] + static_cast<std::size_t>(profile)];
  }
  // The watcher hears the fleet's use at `t` (and each model's, several).
  void step(std::int64_t t) {
    watch_.step(t, seen_->slices_in_use(), seen_->gpus_in_use());
    if (per_model_) model_steps(watch_, *seen_, fleet_.models.size(), t);
  }

  // The time of the next event, within the trace's span; none when no
  // event is left.
  std::optional<std::int64_t> next_time() const {
    const bool arrival = next_ < order_.size();
    const bool departure = !leaves_.empty() && leaves_.front().time <= out_.end;
    // Re-plan: a GPU back in service, or a re-plan, within the trace's span.
    const bool up = !ups_.empty() && ups_.front().first <= out_.end;
    const bool replans = next_replan_ < out_.end;
    const bool expiry = !expiries_.empty() && expiries_.front().first <= out_.end;
    if (!arrival && !departure && !up && !replans && !expiry) return std::nullopt;
    std::int64_t t = std::numeric_limits<std::int64_t>::max();
    if (arrival) t = pods_[order_[next_]].start;
    if (departure) t = std::min(t, leaves_.front().time);
    if (up) t = std::min(t, ups_.front().first);
    if (replans) t = std::min(t, next_replan_);
    if (expiry) t = std::min(t, expiries_.front().first);
    return t;
  }

  // The areas under the curves from the last event to `t`.
  void advance(std::int64_t t) {
    const std::int64_t dt = t - now_;
    out_.gpu_time += seen_->gpus_in_use() * dt;
    out_.stranded_slice_time += seen_->stranded() * dt;
    out_.queue_time += queued_ * dt;
    out_.unavailable_time += down_ * dt;
    out_.idle_instance_time += idle_alive_ * dt;
    if (per_model_) add_model_areas(out_.models, *seen_, dt);
    now_ = t;
  }

  // At `t`, before the arrivals: the departures, the idle instances whose
  // time is up, then (re-plan) GPUs back in service, the re-plan and those
  // back at once. True when any of these changed the fleet.
  bool changes_at(std::int64_t t) {
    bool departed = false;
    while (!leaves_.empty() && leaves_.front().time == t) {
      std::pop_heap(leaves_.begin(), leaves_.end(), later{});
      depart(leaves_.back().pod, t);
      leaves_.pop_back();
      departed = true;
    }
    if (keep_) departed = expire(t) || departed;
    if (replan_) {
      departed = bring_up(t) || departed;
      if (next_replan_ < out_.end && t == next_replan_) {
        departed = replan_at(t) || departed;
        next_replan_ += replan_->period;
      }
      departed = bring_up(t) || departed;
    }
    return departed;
  }

  // The arrivals at `t`, in pod order: refused when the empty fleet cannot
  // hold them; rejecting, started or rejected; else queued and the queue
  // retried.
  void arrivals_at(std::int64_t t) {
    for (; next_ < order_.size() && pods_[order_[next_]].start == t; ++next_) {
      const replay_pod& p = pods_[order_[next_]];
      const auto kind = static_cast<std::size_t>(p.item);
      if (holdable_[kind] == 0 || (!queue_ && !start(order_[next_], t))) {
        ++out_.pods_rejected;
        out_.instances_rejected += items_[kind].count;
        if (!out_.first_rejection) out_.first_rejection = t;
        watch_.reject(t);
        continue;
      }
      if (!queue_) continue;  // started
      waiting_[kind].push_back(static_cast<std::uint32_t>(next_));
      ++queued_;
      retry(t);
    }
  }

  // Pod `pod` leaves at `t`: its instances freed, or kept idle.
  void depart(std::uint32_t pod, std::int64_t t) {
    const auto span = std::span(held_).subspan(first_[pod], last_[pod] - first_[pod]);
    if (defrag_ > 0)
      for (const auto& [g, i] : span) {
        std::erase(on_gpu_[static_cast<std::size_t>(g)], std::make_pair(i, pod));
        ++version_[static_cast<std::size_t>(node_of_[static_cast<std::size_t>(g)])];
      }
    if (keep_) busy_->depart(span);
    if (keep_ && policy_.keep_idle > 0) {
      keep_idle(span, t);
    } else {
      engine_.depart(span);
      out_.destructions +=
          dynamic_ ? items_[static_cast<std::size_t>(pods_[pod].item)].count : std::int64_t{0};
    }
    step(t);
  }

  // Keep: the instances `span` of a pod that left at `t` stay idle until
  // t + keep_idle.
  void keep_idle(std::span<const placement_ref> span, std::int64_t t) {
    for (const auto& [g, i] : span) {
      const instance& in = engine_.placement(g, i);
      const auto id = static_cast<std::uint32_t>(idles_.size());
      idles_.push_back({g, i, in.profile, in.start, true});
      idle_on_[static_cast<std::size_t>(g)].push_back(id);
      const int node = node_of_[static_cast<std::size_t>(g)];
      if (count_at(node, in.profile)++ == 0)
        idle_nodes_[node_model(node)][static_cast<std::size_t>(in.profile)].insert(node);
      ++idle_alive_;
      expiries_.emplace_back(t + policy_.keep_idle, id);
      std::push_heap(expiries_.begin(), expiries_.end(), sooner{});
    }
  }

  // Keep: idle instance `id` is no longer idle (reused or destroyed).
  void unidle(std::uint32_t id) {
    idle_instance& in = idles_[id];
    in.alive = false;
    std::vector<std::uint32_t>& on = idle_on_[static_cast<std::size_t>(in.gpu)];
    std::erase(on, id);
    const int node = node_of_[static_cast<std::size_t>(in.gpu)];
    if (--count_at(node, in.profile) == 0)
      idle_nodes_[node_model(node)][static_cast<std::size_t>(in.profile)].erase(node);
    --idle_alive_;
  }

  // Keep: the idle instances whose time is up by `t` are destroyed; true
  // when any were.
  bool expire(std::int64_t t) {
    bool any = false;
    while (!expiries_.empty() && expiries_.front().first <= t) {
      const std::uint32_t id = expiries_.front().second;
      std::pop_heap(expiries_.begin(), expiries_.end(), sooner{});
      expiries_.pop_back();
      if (!idles_[id].alive) continue;
      engine_.drop(idles_[id].gpu, idles_[id].placement);
      unidle(id);
      ++out_.destructions;
      any = true;
    }
    return any;
  }

  // Keep: a pod of item `kind` takes idle instances of its profile, all
  // from the lowest node that has enough, there by GPU and start; false
  // when no node has.
  bool reuse(int kind) {
    const replay_item& item = items_[static_cast<std::size_t>(kind)];
    int node = -1;
    for (std::size_t m = 0; m < fleet_.models.size(); ++m) {
      const int p = item.profile[m];
      if (p < 0) continue;
      for (const int n : idle_nodes_[m][static_cast<std::size_t>(p)]) {
        if (node >= 0 && n >= node) break;
        if (count_at(n, p) >= item.count) {
          node = n;
          break;
        }
      }
    }
    if (node < 0) return false;
    const int p = item.profile[node_model(node)];
    std::vector<std::tuple<int, int, std::uint32_t>> mine;  // (GPU, start, id)
    for (int g = node_first_[static_cast<std::size_t>(node)];
         g < node_first_[static_cast<std::size_t>(node) + 1]; ++g)
      for (const std::uint32_t id : idle_on_[static_cast<std::size_t>(g)])
        if (idles_[id].profile == p) mine.emplace_back(g, idles_[id].start, id);
    std::sort(mine.begin(), mine.end());
    for (int k = 0; k < item.count; ++k) {
      const std::uint32_t id = std::get<2>(mine[static_cast<std::size_t>(k)]);
      [[maybe_unused]] const bool ok = busy_->take(idles_[id].gpu, idles_[id].placement);
      assert(ok);
      held_.emplace_back(idles_[id].gpu, idles_[id].placement);
      unidle(id);
    }
    return true;
  }

  // Keep: a pod of item `kind` that fits nowhere with the idle instances
  // goes where it fits without them (the busy engine's choice), and on
  // each GPU it takes, the idle instances it overlaps are destroyed: all
  // are lifted, the pod's placed, and each put back, by start, while the
  // GPU can take it. False when it fits not even so.
  bool reclaim(int kind) {
    const std::size_t mark = held_.size();
    if (idle_alive_ == 0 || !busy_->arrive(kind, held_)) return false;
    std::vector<int> touched;
    for (std::size_t k = mark; k < held_.size(); ++k) touched.push_back(held_[k].first);
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    std::vector<std::tuple<int, int, std::uint32_t>> lifted;  // (GPU, start, id)
    for (const int g : touched)
      for (const std::uint32_t id : idle_on_[static_cast<std::size_t>(g)]) {
        engine_.drop(g, idles_[id].placement);
        lifted.emplace_back(g, idles_[id].start, id);
      }
    std::sort(lifted.begin(), lifted.end());
    for (std::size_t k = mark; k < held_.size(); ++k) {
      [[maybe_unused]] const bool ok = engine_.take(held_[k].first, held_[k].second);
      assert(ok);
    }
    for (const auto& [g, s, id] : lifted) {
      if (engine_.take(g, idles_[id].placement)) continue;
      unidle(id);
      ++out_.reclaims;
      ++out_.destructions;
    }
    return true;
  }

  // Places pod `pod` (where a defrag made room, on idle instances, by the
  // policy, or reclaiming idle ones), its placements appended to held_,
  // and sets `created` to the instances created; false when it fits not.
  bool place(std::uint32_t pod, std::int64_t& created) {
    const int kind = pods_[pod].item;
    created = items_[static_cast<std::size_t>(kind)].count;
    if (forced_) {
      [[maybe_unused]] const bool ok = engine_.take(forced_->first, forced_->second);
      assert(ok);
      held_.push_back(*forced_);
      forced_.reset();
    } else if (keep_ && reuse(kind)) {
      created = 0;
    } else if (engine_.arrive(kind, held_)) {
      for (std::size_t k = first_[pod]; keep_ && k < held_.size(); ++k) {
        [[maybe_unused]] const bool ok = busy_->take(held_[k].first, held_[k].second);
        assert(ok);
      }
    } else if (!keep_ || !reclaim(kind)) {
      return false;
    }
    return true;
  }

  // Starts pod `pod` at `t` if it fits: placed, counted, and its departure
  // set (at once, for a pod of no duration and no delay); false when it
  // fits not.
  bool start(std::uint32_t pod, std::int64_t t) {
    const replay_pod& p = pods_[pod];
    const replay_item& item = items_[static_cast<std::size_t>(p.item)];
    first_[pod] = static_cast<std::uint32_t>(held_.size());
    std::int64_t created = 0;
    if (!place(pod, created)) return false;
    last_[pod] = static_cast<std::uint32_t>(held_.size());
    for (std::size_t k = first_[pod]; defrag_ > 0 && k < held_.size(); ++k) {
      on_gpu_[static_cast<std::size_t>(held_[k].first)].emplace_back(held_[k].second, pod);
      ++version_[static_cast<std::size_t>(node_of_[static_cast<std::size_t>(held_[k].first)])];
    }
    ++out_.pods_accepted;
    out_.instances_accepted += item.count;
    out_.peak_gpus_in_use = std::max(out_.peak_gpus_in_use, seen_->gpus_in_use());
    if (dynamic_) out_.creations += created;
    if (keep_) out_.reuses += item.count - created;
    // The pod runs once its instances are created.
    const std::int64_t delay = (created * create_milli_ + 999) / 1000;
    const std::int64_t runs = t + delay;
    out_.create_time += delay;
    step(t);
    watch_.started(pod, p.start, runs);
    if (replan_) wait_at_[pod] = waits_.size();
    waits_.push_back(runs - p.start);
    const std::int64_t duration = std::max<std::int64_t>(p.end - p.start, 0);
    if (per_model_) {
      const auto m = static_cast<std::size_t>(seen_->model_of(held_[first_[pod]].first));
      add_model_start(out_.models[m], *seen_, m, item, duration);
    }
    if (replan_)
      run_ends_[pod] = runs + duration;
    else
      run_end_ = std::max(run_end_, runs + duration);
    if (duration > 0 || delay > 0) {
      out_.instance_time += item.count * duration;
      leaves_.push_back({runs + duration, pod});
      std::push_heap(leaves_.begin(), leaves_.end(), later{});
    } else {
      depart(pod, t);
    }
    return true;
  }

  // Defrag: the node where a pod of item `kind` (one instance) fits after
  // the fewest moves (at most defrag_; of all nodes the fewest, then the
  // lowest), its moves in `best`; -1 when no node has room so.
  int fewest_moves_node(int kind, moves_plan& best) {
    const replay_item& item = items_[static_cast<std::size_t>(kind)];
    int node = -1;
    std::vector<moves_gpu> gpus;
    for (std::size_t n = 0; n < fleet_.nodes.size(); ++n) {
      const int p = item.profile[node_model(static_cast<int>(n))];
      if (p < 0 || no_room_[n] == std::make_pair(kind, version_[n])) continue;
      gpus.clear();
      for (int g = node_first_[n]; g < node_first_[n + 1]; ++g) {
        layout l;
        for (const auto& [i, q] : on_gpu_[static_cast<std::size_t>(g)])
          l.add(engine_.placement(g, i));
        gpus.push_back({fleet_.models[node_model(static_cast<int>(n))], p, l});
      }
      const int most = node < 0 ? defrag_ : static_cast<int>(best.steps.size()) - 1;
      if (most < 0) break;
      moves_plan plan = fewest_moves(gpus, most);
      if (!plan.found) {
        if (most == defrag_) no_room_[n] = {kind, version_[n]};
        continue;
      }
      node = static_cast<int>(n);
      best = std::move(plan);
    }
    return node;
  }

  // Defrag: makes move `m` on node `node`, its first GPU `base`: the
  // instance re-created at its new place, and its pod, `pause` later.
  void make_move(const move_step& m, int base, std::int64_t pause) {
    const int from = base + m.from;
    const int to = base + m.to;
    const int i = engine_.find(from, m.what);
    const int j = engine_.find(to, {m.what.profile, m.to_start});
    auto& src = on_gpu_[static_cast<std::size_t>(from)];
    const auto it =
        std::find_if(src.begin(), src.end(), [&](const auto& e) { return e.first == i; });
    assert(it != src.end() && j >= 0);
    const std::uint32_t q = it->second;
    src.erase(it);
    engine_.drop(from, i);
    [[maybe_unused]] const bool ok = engine_.take(to, j);
    assert(ok);
    on_gpu_[static_cast<std::size_t>(to)].emplace_back(j, q);
    *std::find(held_.begin() + first_[q], held_.begin() + last_[q], std::make_pair(from, i)) = {to,
                                                                                                j};
    ++out_.moves;
    ++out_.creations;
    ++out_.destructions;
    if (moved_[q] == 0) ++out_.pods_moved;
    moved_[q] = 1;
    if (pause > 0)
      for (leave& l : leaves_)
        if (l.pod == q) {
          l.time += pause;
          run_end_ = std::max(run_end_, l.time);
        }
  }

  // Defrag: the fewest moves after which pod `pod`, of one instance, fits
  // (fewest_moves_node()); made at `t`, and where it goes left in forced_.
  // Each moved instance's pod runs that much later (its instance is created
  // again). False when no node has room within defrag_ moves.
  bool make_room(std::uint32_t pod, std::int64_t t) {
    const int kind = pods_[pod].item;
    if (items_[static_cast<std::size_t>(kind)].count != 1) return false;
    moves_plan best;
    const int node = fewest_moves_node(kind, best);
    if (node < 0) return false;
    const int base = node_first_[static_cast<std::size_t>(node)];
    const std::int64_t pause = (create_milli_ + 999) / 1000;
    for (const move_step& m : best.steps) make_move(m, base, pause);
    if (pause > 0) std::make_heap(leaves_.begin(), leaves_.end(), later{});
    ++version_[static_cast<std::size_t>(node)];
    forced_ = {base + best.gpu, engine_.find(base + best.gpu, best.where)};
    step(t);
    return true;
  }

  // One retry of the queue at `t`: the earliest waiting pod of an item not
  // failed in this retry, until none is left (fifo: until one does not
  // fit). With defrag, the queue's head that does not fit first makes room
  // by moves.
  void retry(std::int64_t t) {
    if (queued_ == 0) return;
    std::fill(failed_.begin(), failed_.end(), std::uint8_t{0});
    bool any_failed = false;
    for (;;) {
      std::size_t kind = items_.size();
      std::uint32_t at = std::numeric_limits<std::uint32_t>::max();
      for (std::size_t k = 0; k < items_.size(); ++k)
        if (failed_[k] == 0 && head_[k] < waiting_[k].size() && waiting_[k][head_[k]] < at) {
          kind = k;
          at = waiting_[k][head_[k]];
        }
      if (kind == items_.size()) return;
      if (!start(order_[at], t)) {
        if (defrag_ > 0 && !any_failed && make_room(order_[at], t)) {
          [[maybe_unused]] const bool ok = start(order_[at], t);
          assert(ok);
          ++out_.defrag_starts;
          ++head_[kind];
          --queued_;
          continue;
        }
        if (!backfill_) return;
        failed_[kind] = 1;
        any_failed = true;
        continue;
      }
      ++head_[kind];
      --queued_;
    }
  }

  // Re-plan: the GPUs whose reconfiguration ends by `t` come back; true
  // when any did.
  bool bring_up(std::int64_t t) {
    bool any = false;
    while (!ups_.empty() && ups_.front().first <= t) {
      const auto [when, g] = ups_.front();
      std::pop_heap(ups_.begin(), ups_.end(), sooner{});
      ups_.pop_back();
      if (until_[static_cast<std::size_t>(g)] != when) continue;  // taken down again since
      until_[static_cast<std::size_t>(g)] = -1;
      engine_.up(g);
      --down_;
      any = true;
    }
    return any;
  }

  // Re-plan: what a re-plan at `t` is given (but the geometries).
  replan_window window_at(std::int64_t t) const {
    replan_window w;
    w.time = t;
    w.from = replan_->next_window ? t : t - replan_->period;
    w.to = w.from + replan_->period;
    for (std::size_t m = 0; m < fleet_.models.size(); ++m) {
      const std::size_t profiles = fleet_.models[m]->profiles.size();
      w.peaks.push_back(window_peaks(items_, pods_, m, profiles, w.from, w.to));
      // Per profile, the largest pod waiting now (before this time's retry).
      std::vector<std::int64_t> pending(profiles, 0);
      for (std::size_t k = 0; k < items_.size(); ++k) {
        const int p = items_[k].profile[m];
        if (p >= 0 && head_[k] < waiting_[k].size())
          pending[static_cast<std::size_t>(p)] =
              std::max(pending[static_cast<std::size_t>(p)], std::int64_t{items_[k].count});
      }
      w.demand.push_back(replan_demand(w.peaks.back(), pending));
      w.pending.push_back(std::move(pending));
    }
    // The items waiting, by their first waiting pod's place in the queue.
    for (std::size_t k = 0; k < items_.size(); ++k)
      if (head_[k] < waiting_[k].size())
        w.waiting.push_back({static_cast<int>(k), items_[k].count,
                             static_cast<std::int64_t>(waiting_[k].size() - head_[k])});
    std::sort(w.waiting.begin(), w.waiting.end(),
              [&](const replan_waiting& a, const replan_waiting& b) {
                const auto x = static_cast<std::size_t>(a.item);
                const auto y = static_cast<std::size_t>(b.item);
                return waiting_[x][head_[x]] < waiting_[y][head_[y]];
              });
    return w;
  }

  // Re-plan: the running pods holding an instance on a GPU `changed` are
  // evicted at `t`, in pod order; under a queue each goes back to it at
  // its place by arrival, its wait taken again when it restarts.
  void evict(const std::vector<std::uint8_t>& changed, std::int64_t t) {
    std::vector<leave> evicted;
    std::erase_if(leaves_, [&](const leave& l) {
      for (std::uint32_t k = first_[l.pod]; k < last_[l.pod]; ++k)
        if (changed[static_cast<std::size_t>(held_[k].first)] != 0) {
          evicted.push_back(l);
          return true;
        }
      return false;
    });
    std::make_heap(leaves_.begin(), leaves_.end(), later{});
    std::sort(evicted.begin(), evicted.end(),
              [](const leave& a, const leave& b) { return a.pod < b.pod; });
    for (const leave& l : evicted) {
      const replay_item& item = items_[static_cast<std::size_t>(pods_[l.pod].item)];
      depart(l.pod, t);
      ++out_.pods_evicted;
      if (evicted_once_[l.pod] == 0) ++out_.pods_evicted_once;
      evicted_once_[l.pod] = 1;
      run_ends_[l.pod] = t;                             // the run ends here
      out_.instance_time -= item.count * (l.time - t);  // what it would still have run
      replay_model_metrics* on = nullptr;
      if (per_model_) {
        on = &out_.models[static_cast<std::size_t>(seen_->model_of(held_[first_[l.pod]].first))];
        on->instance_time -= item.count * (l.time - t);
      }
      if (!queue_) continue;  // rejecting: the pod is lost
      --out_.pods_accepted;
      out_.instances_accepted -= item.count;
      if (on) {
        --on->pods_accepted;
        on->instances_accepted -= item.count;
      }
      requeue(l.pod);
    }
  }

  // Re-plan: evicted pod `pod` back in the queue at its place by arrival.
  void requeue(std::uint32_t pod) {
    waits_[wait_at_[pod]] = -1;
    const auto kind = static_cast<std::size_t>(pods_[pod].item);
    std::vector<std::uint32_t>& w = waiting_[kind];
    const auto from = w.begin() + static_cast<std::ptrdiff_t>(head_[kind]);
    w.insert(std::upper_bound(from, w.end(), position_[pod]), position_[pod]);
    ++queued_;
  }

  // Re-plan: the GPUs `changed` taken down at `t` for their new geometry
  // in `chosen`, back at t + reconfigure.
  void reconfigure(const std::vector<layout>& chosen, const std::vector<std::uint8_t>& changed,
                   std::int64_t t) {
    for (std::size_t g = 0; g < current_.size(); ++g) {
      if (changed[g] == 0) continue;
      engine_.down(static_cast<int>(g), chosen[g], tables_);
      current_[g] = chosen[g];
      ++out_.reconfigurations;
      if (until_[g] < 0) {
        ++down_;
        outage_of_[g] = outages_.size();
        outages_.emplace_back(t, t);
      }
      until_[g] = t + replan_->reconfigure;
      outages_[outage_of_[g]].second = until_[g];
      ups_.emplace_back(until_[g], static_cast<int>(g));
      std::push_heap(ups_.begin(), ups_.end(), sooner{});
    }
  }

  // A re-plan at `t`; true when it changed a GPU.
  bool replan_at(std::int64_t t) {
    ++out_.replans;
    replan_window w = window_at(t);
    w.geometry = current_;
    const std::vector<layout> chosen = replan_->choose(w);
    assert(chosen.size() == current_.size());
    std::vector<std::uint8_t> changed(current_.size(), 0);
    bool any = false;
    for (std::size_t g = 0; g < current_.size(); ++g) {
      changed[g] = chosen[g] == current_[g] ? 0 : 1;
      any = any || changed[g] != 0;
    }
    if (!any) return false;
    evict(changed, t);
    reconfigure(chosen, changed, t);
    replay_engine empty(fleet_, items_, policy_, current_, tables_);
    holdable_on(empty);
    return true;
  }

  // After the last event: the areas to the trace's end, the waits of the
  // pods still pending, the makespan and the outages within it.
  void finish() {
    advance(out_.end);
    set_one_model(out_);
    out_.pods_pending = queued_;
    for (std::size_t k = 0; k < items_.size(); ++k)
      for (std::size_t i = head_[k]; i < waiting_[k].size(); ++i)
        waits_.push_back(out_.end - pods_[order_[waiting_[k][i]]].start);
    if (replan_) std::erase(waits_, std::int64_t{-1});  // the waits of evicted runs
    for (const std::int64_t e : run_ends_) run_end_ = std::max(run_end_, e);
    out_.makespan = run_end_ == none ? 0 : run_end_ - out_.start;
    // The outages clipped to the makespan (they may run past the trace's end).
    for (const auto& [from, to] : outages_)
      out_.unavailable_makespan_time += std::max<std::int64_t>(
          std::min(to, out_.start + out_.makespan) - std::max(from, out_.start), 0);
    out_.waits = replay_waits_of(waits_);
    watch_.finish();
  }

  // No run end yet.
  static constexpr std::int64_t none = std::numeric_limits<std::int64_t>::min();

  const replay_fleet& fleet_;
  std::span<const replay_item> items_;
  std::span<const replay_pod> pods_;
  const replay_policy& policy_;
  replay_tables& tables_;
  Watch& watch_;
  const replay_replan* replan_;
  const bool per_model_;
  const bool dynamic_;
  const bool backfill_;
  const bool queue_;  // else a re-plan, or instances with a cost or a life, that reject
  const bool keep_;
  const std::int64_t create_milli_;
  const int defrag_;
  replay_metrics out_;
  // Keeping idle instances, engine_ holds the busy and the idle ones (where
  // a pod is placed) and busy_ the busy ones alone (what is measured, and
  // where a pod goes when only idle instances are in its way); seen_ is
  // the one measured.
  replay_engine engine_;
  std::optional<replay_engine> busy_;
  replay_engine* seen_ = nullptr;
  std::vector<placement_ref> held_;                  // placements of all started pods
  std::vector<std::uint8_t> holdable_;               // per item: the empty fleet holds it
  std::vector<std::uint32_t> order_;                 // the pods by arrival
  std::size_t next_ = 0;                             // the next arrival, in order_
  std::int64_t now_ = 0;                             // the last event's time
  std::vector<leave> leaves_;                        // a min-heap of departures (later)
  std::vector<std::vector<std::uint32_t>> waiting_;  // per item: positions
  std::vector<std::size_t> head_;                    // per item: first still waiting
  std::vector<std::uint8_t> failed_;                 // per item: failed in this retry
  std::vector<std::uint32_t> first_;                 // per pod: its placements in held_
  std::vector<std::uint32_t> last_;
  std::vector<std::int64_t> waits_;
  std::vector<std::size_t> wait_at_;  // re-plan: each pod's in waits_
  std::int64_t queued_ = 0;
  // The latest end of a started run. Under a re-plan an eviction ends a run
  // early, so each pod's last run end is kept (`none` until it starts) and
  // the latest taken at the end; else the latest is taken as runs start.
  std::int64_t run_end_ = none;
  std::vector<std::int64_t> run_ends_;
  std::vector<std::uint8_t> evicted_once_;
  // Idle instances (keep): each a placement of a GPU, its profile there,
  // and when it is destroyed; per GPU the live ones, per node and profile
  // of its model how many, per model and profile the nodes with any, and a
  // min-heap of (expiry, id) (entries of instances reused or reclaimed
  // since are skipped).
  std::vector<idle_instance> idles_;
  std::vector<std::vector<std::uint32_t>> idle_on_;
  std::vector<int> node_of_;         // per GPU (keep, defrag)
  std::vector<int> node_first_{0};   // per node: its first GPU; then the GPU count (keep, defrag)
  std::vector<std::size_t> key_of_;  // per node: its first (node, profile) key
  std::vector<std::int64_t> idle_count_;                // per (node, profile)
  std::vector<std::vector<std::set<int>>> idle_nodes_;  // per model, profile: nodes with any
  std::vector<std::pair<std::int64_t, std::uint32_t>> expiries_;
  std::int64_t idle_alive_ = 0;
  // Defrag: per GPU its running instances, each (placement, pod); per node
  // a version, bumped by every change of its GPUs, and the (item, version)
  // of its last search that found no room within defrag_ moves.
  std::vector<std::vector<std::pair<int, std::uint32_t>>> on_gpu_;
  std::vector<std::uint64_t> version_;
  std::vector<std::pair<int, std::uint64_t>> no_room_;
  std::vector<std::uint8_t> moved_;
  std::optional<placement_ref> forced_;  // defrag: where the next start goes
  // Re-plan: each GPU's geometry now, when one taken down comes back (-1:
  // in service), a min-heap of those times (stale entries skipped), the
  // GPUs down, the next re-plan, and each pod's position in order_.
  std::vector<layout> current_;
  std::vector<std::int64_t> until_;
  std::vector<std::pair<std::int64_t, int>> ups_;
  std::int64_t down_ = 0;
  std::int64_t next_replan_ = std::numeric_limits<std::int64_t>::max();
  std::vector<std::uint32_t> position_;
  // Per GPU being reconfigured: its interval of unavailability in outages_
  // (an interval grows when the GPU is changed again before it is back).
  std::vector<std::pair<std::int64_t, std::int64_t>> outages_;
  std::vector<std::size_t> outage_of_;
};

/// replay() under a queue, a re-plan, or instances with a cost or a life
/// (queued_replay); `pods` is not empty.
template <class Watch>
replay_metrics replay_queued(const replay_fleet& fleet, std::span<const replay_item> items,
                             std::span<const replay_pod> pods, const replay_policy& policy,
                             std::span<const layout> geometry, replay_tables& tables, Watch& watch,
                             const replay_replan* replan = nullptr) {
  queued_replay<Watch> queued(fleet, items, pods, policy, geometry, tables, watch, replan);
  return queued.run();
}

}  // namespace detail

}  // namespace v1
}  // namespace migplan

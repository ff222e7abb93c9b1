// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file replay_queue.hpp
/// The queued replay (detail::replay_queued): replay() under a pending
/// queue (fifo or backfill), a re-plan, or instances with a cost or a life
/// (creation time, keeping idle instances), and defragmentation. What it
/// does is replay.hpp's comment; replay() calls it.

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
/// re-plan (`replan`, either pending rule); `pods` is not empty.
template <class Watch>
replay_metrics replay_queued(const replay_fleet& fleet, std::span<const replay_item> items,
                             std::span<const replay_pod> pods, const replay_policy& policy,
                             std::span<const layout> geometry, replay_tables& tables, Watch& watch,
                             const replay_replan* replan = nullptr) {
  replay_metrics out;
  out.models.assign(fleet.models.size(), {});
  const bool per_model = fleet.models.size() > 1;
  replay_engine engine(fleet, items, policy, geometry, tables);
  const bool dynamic = policy.mode == replay_mode::dynamic;
  const bool backfill = policy.pending == pending_rule::backfill;
  // Else a re-plan, or instances with a cost or a life, that reject.
  const bool queue = policy.pending != pending_rule::reject;
  const bool keep = dynamic && policy.keep_idle >= 0;
  const std::int64_t create_milli = dynamic ? policy.create_milli : 0;
  const int defrag = policy.defrag;
  assert(defrag == 0 || (dynamic && queue && !keep));
  assert(queue || replan || keep || create_milli > 0);
  assert(!replan || !dynamic);
  assert(create_milli >= 0);
  // Keeping idle instances, `engine` holds the busy and the idle ones (where
  // a pod is placed) and `busy` the busy ones alone (what is measured, and
  // where a pod goes when only idle instances are in its way).
  std::optional<replay_engine> busy;
  if (keep) busy.emplace(fleet, items, policy, geometry, tables);
  replay_engine& seen = keep ? *busy : engine;
  std::vector<std::pair<int, int>> held;  // placements of all started pods
  // Which items the empty fleet holds: a pod of any other would wait forever.
  // Under a re-plan, the empty fleet with the geometries of the time
  // (holdable_on() again after each re-plan that changes them).
  std::vector<std::uint8_t> holdable(items.size(), 0);
  const auto holdable_on = [&](replay_engine& empty) {
    std::vector<std::pair<int, int>> placed;
    for (std::size_t it = 0; it < items.size(); ++it) {
      holdable[it] = 0;
      if (!empty.arrive(static_cast<int>(it), placed)) continue;
      holdable[it] = 1;
      empty.depart(placed);
      placed.clear();
    }
  };
  holdable_on(engine);
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
  std::vector<std::size_t> wait_at(replan ? pods.size() : 0);  // re-plan: each pod's in waits
  std::int64_t queued = 0;
  out.pods = static_cast<std::int64_t>(pods.size());
  // The latest end of a started run. Under a re-plan an eviction ends a run
  // early, so each pod's last run end is kept (`none` until it starts) and
  // the latest taken at the end; else the latest is taken as runs start.
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::min();
  std::int64_t run_end = none;
  std::vector<std::int64_t> run_ends(replan ? pods.size() : 0, none);
  std::vector<std::uint8_t> evicted_once(replan ? pods.size() : 0, 0);
  // Idle instances (keep): each a placement of a GPU, its profile there,
  // and when it is destroyed; per GPU the live ones, per node and profile
  // of its model how many, per model and profile the nodes with any, and a
  // min-heap of (expiry, id) (entries of instances reused or reclaimed
  // since are skipped).
  struct idle_instance {
    int gpu;
    int placement;
    int profile;
    int start;
    bool alive;
  };
  std::vector<idle_instance> idles;
  std::vector<std::vector<std::uint32_t>> idle_on;
  std::vector<int> node_of;         // per GPU (keep, defrag)
  std::vector<int> node_first{0};   // per node: its first GPU; then the GPU count (keep, defrag)
  std::vector<std::size_t> key_of;  // per node: its first (node, profile) key
  std::vector<std::int64_t> idle_count;                // per (node, profile)
  std::vector<std::vector<std::set<int>>> idle_nodes;  // per model, profile: nodes with any
  std::vector<std::pair<std::int64_t, std::uint32_t>> expiries;
  std::int64_t idle_alive = 0;
  if (keep || defrag > 0)
    for (std::size_t n = 0; n < fleet.nodes.size(); ++n) {
      for (int g = 0; g < fleet.nodes[n].gpus; ++g) node_of.push_back(static_cast<int>(n));
      node_first.push_back(node_first.back() + fleet.nodes[n].gpus);
    }
  if (keep) {
    for (std::size_t n = 0; n < fleet.nodes.size(); ++n) {
      key_of.push_back(idle_count.size());
      const gpu_model& gpu = *fleet.models[static_cast<std::size_t>(fleet.nodes[n].model)];
      idle_count.resize(idle_count.size() + gpu.profiles.size(), 0);
    }
    idle_on.assign(node_of.size(), {});
    for (const gpu_model* m : fleet.models) idle_nodes.emplace_back(m->profiles.size());
  }
  // Defrag: per GPU its running instances, each (placement, pod); per node
  // a version, bumped by every change of its GPUs, and the (item, version)
  // of its last search that found no room within `defrag` moves.
  std::vector<std::vector<std::pair<int, std::uint32_t>>> on_gpu(defrag > 0 ? node_of.size() : 0);
  std::vector<std::uint64_t> version(defrag > 0 ? fleet.nodes.size() : 0, 0);
  std::vector<std::pair<int, std::uint64_t>> no_room(defrag > 0 ? fleet.nodes.size() : 0, {-1, 0});
  std::vector<std::uint8_t> moved(defrag > 0 ? pods.size() : 0, 0);
  std::optional<std::pair<int, int>> forced;  // defrag: where the next start goes
  const auto node_model = [&](int node) {
    return static_cast<std::size_t>(fleet.nodes[static_cast<std::size_t>(node)].model);
  };
  const auto count_at = [&](int node, int profile) -> std::int64_t& {
    return idle_count[key_of[static_cast<std::size_t>(node)] + static_cast<std::size_t>(profile)];
  };
  const auto soonest = [](const std::pair<std::int64_t, std::uint32_t>& a,
                          const std::pair<std::int64_t, std::uint32_t>& b) { return a > b; };
  // An idle instance is no longer idle (reused or destroyed).
  const auto unidle = [&](std::uint32_t id) {
    idle_instance& in = idles[id];
    in.alive = false;
    std::vector<std::uint32_t>& on = idle_on[static_cast<std::size_t>(in.gpu)];
    std::erase(on, id);
    const int node = node_of[static_cast<std::size_t>(in.gpu)];
    if (--count_at(node, in.profile) == 0)
      idle_nodes[node_model(node)][static_cast<std::size_t>(in.profile)].erase(node);
    --idle_alive;
  };
  const auto depart = [&](std::uint32_t pod, std::int64_t t) {
    const auto span = std::span(held).subspan(first[pod], last[pod] - first[pod]);
    if (defrag > 0)
      for (const auto& [g, i] : span) {
        std::erase(on_gpu[static_cast<std::size_t>(g)], std::make_pair(i, pod));
        ++version[static_cast<std::size_t>(node_of[static_cast<std::size_t>(g)])];
      }
    if (keep) busy->depart(span);
    if (keep && policy.keep_idle > 0) {
      for (const auto& [g, i] : span) {
        const instance& in = engine.placement(g, i);
        const auto id = static_cast<std::uint32_t>(idles.size());
        idles.push_back({g, i, in.profile, in.start, true});
        idle_on[static_cast<std::size_t>(g)].push_back(id);
        const int node = node_of[static_cast<std::size_t>(g)];
        if (count_at(node, in.profile)++ == 0)
          idle_nodes[node_model(node)][static_cast<std::size_t>(in.profile)].insert(node);
        ++idle_alive;
        expiries.emplace_back(t + policy.keep_idle, id);
        std::push_heap(expiries.begin(), expiries.end(), soonest);
      }
    } else {
      engine.depart(span);
      out.destructions +=
          dynamic ? items[static_cast<std::size_t>(pods[pod].item)].count : std::int64_t{0};
    }
    watch.step(t, seen.slices_in_use(), seen.gpus_in_use());
  };
  // Idle instances whose time is up by `t` are destroyed; true when any were.
  const auto expire = [&](std::int64_t t) {
    bool any = false;
    while (!expiries.empty() && expiries.front().first <= t) {
      const std::uint32_t id = expiries.front().second;
      std::pop_heap(expiries.begin(), expiries.end(), soonest);
      expiries.pop_back();
      if (!idles[id].alive) continue;
      engine.drop(idles[id].gpu, idles[id].placement);
      unidle(id);
      ++out.destructions;
      any = true;
    }
    return any;
  };
  // Keep: a pod of item `kind` takes idle instances of its profile, all
  // from the lowest node that has enough, there by GPU and start; false
  // when no node has.
  const auto reuse = [&](int kind) {
    const replay_item& item = items[static_cast<std::size_t>(kind)];
    int node = -1;
    for (std::size_t m = 0; m < fleet.models.size(); ++m) {
      const int p = item.profile[m];
      if (p < 0) continue;
      for (const int n : idle_nodes[m][static_cast<std::size_t>(p)]) {
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
    for (int g = node_first[static_cast<std::size_t>(node)];
         g < node_first[static_cast<std::size_t>(node) + 1]; ++g)
      for (const std::uint32_t id : idle_on[static_cast<std::size_t>(g)])
        if (idles[id].profile == p) mine.emplace_back(g, idles[id].start, id);
    std::sort(mine.begin(), mine.end());
    for (int k = 0; k < item.count; ++k) {
      const std::uint32_t id = std::get<2>(mine[static_cast<std::size_t>(k)]);
      [[maybe_unused]] const bool ok = busy->take(idles[id].gpu, idles[id].placement);
      assert(ok);
      held.emplace_back(idles[id].gpu, idles[id].placement);
      unidle(id);
    }
    return true;
  };
  // Keep: a pod of item `kind` that fits nowhere with the idle instances
  // goes where it fits without them (the busy engine's choice), and on
  // each GPU it takes, the idle instances it overlaps are destroyed: all
  // are lifted, the pod's placed, and each put back, by start, while the
  // GPU can take it. False when it fits not even so.
  const auto reclaim = [&](int kind) {
    const std::size_t mark = held.size();
    if (idle_alive == 0 || !busy->arrive(kind, held)) return false;
    std::vector<int> touched;
    for (std::size_t k = mark; k < held.size(); ++k) touched.push_back(held[k].first);
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    std::vector<std::tuple<int, int, std::uint32_t>> lifted;  // (GPU, start, id)
    for (const int g : touched)
      for (const std::uint32_t id : idle_on[static_cast<std::size_t>(g)]) {
        engine.drop(g, idles[id].placement);
        lifted.emplace_back(g, idles[id].start, id);
      }
    std::sort(lifted.begin(), lifted.end());
    for (std::size_t k = mark; k < held.size(); ++k) {
      [[maybe_unused]] const bool ok = engine.take(held[k].first, held[k].second);
      assert(ok);
    }
    for (const auto& [g, s, id] : lifted) {
      if (engine.take(g, idles[id].placement)) continue;
      unidle(id);
      ++out.reclaims;
      ++out.destructions;
    }
    return true;
  };
  const auto start = [&](std::uint32_t pod, std::int64_t t) {
    const replay_pod& p = pods[pod];
    const replay_item& item = items[static_cast<std::size_t>(p.item)];
    first[pod] = static_cast<std::uint32_t>(held.size());
    std::int64_t created = item.count;
    if (forced) {
      [[maybe_unused]] const bool ok = engine.take(forced->first, forced->second);
      assert(ok);
      held.push_back(*forced);
      forced.reset();
    } else if (keep && reuse(p.item)) {
      created = 0;
    } else if (engine.arrive(p.item, held)) {
      for (std::size_t k = first[pod]; keep && k < held.size(); ++k) {
        [[maybe_unused]] const bool ok = busy->take(held[k].first, held[k].second);
        assert(ok);
      }
    } else if (!keep || !reclaim(p.item)) {
      return false;
    }
    last[pod] = static_cast<std::uint32_t>(held.size());
    for (std::size_t k = first[pod]; defrag > 0 && k < held.size(); ++k) {
      on_gpu[static_cast<std::size_t>(held[k].first)].emplace_back(held[k].second, pod);
      ++version[static_cast<std::size_t>(node_of[static_cast<std::size_t>(held[k].first)])];
    }
    ++out.pods_accepted;
    out.instances_accepted += item.count;
    out.peak_gpus_in_use = std::max(out.peak_gpus_in_use, seen.gpus_in_use());
    if (dynamic) out.creations += created;
    if (keep) out.reuses += item.count - created;
    // The pod runs once its instances are created.
    const std::int64_t delay = (created * create_milli + 999) / 1000;
    const std::int64_t runs = t + delay;
    out.create_time += delay;
    watch.step(t, seen.slices_in_use(), seen.gpus_in_use());
    watch.started(pod, p.start, runs);
    if (replan) wait_at[pod] = waits.size();
    waits.push_back(runs - p.start);
    const std::int64_t duration = std::max<std::int64_t>(p.end - p.start, 0);
    if (per_model) {
      const auto m = static_cast<std::size_t>(seen.model_of(held[first[pod]].first));
      add_model_start(out.models[m], seen, m, item, duration);
    }
    if (replan)
      run_ends[pod] = runs + duration;
    else
      run_end = std::max(run_end, runs + duration);
    if (duration > 0 || delay > 0) {
      out.instance_time += item.count * duration;
      leaves.push_back({runs + duration, pod});
      std::push_heap(leaves.begin(), leaves.end(), later);
    } else {
      depart(pod, t);
    }
    return true;
  };
  // Defrag: the fewest moves (at most `defrag`, within one node: of all
  // nodes the fewest, then the lowest) after which pod `pod`, of one
  // instance, fits; made, and where it goes left in `forced`. Each moved
  // instance's pod runs that much later (its instance is created again).
  // False when no node has room within `defrag` moves.
  const auto make_room = [&](std::uint32_t pod, std::int64_t t) {
    const int kind = pods[pod].item;
    const replay_item& item = items[static_cast<std::size_t>(kind)];
    if (item.count != 1) return false;
    int node = -1;
    moves_plan best;
    std::vector<moves_gpu> gpus;
    for (std::size_t n = 0; n < fleet.nodes.size(); ++n) {
      const int p = item.profile[node_model(static_cast<int>(n))];
      if (p < 0 || no_room[n] == std::make_pair(kind, version[n])) continue;
      gpus.clear();
      for (int g = node_first[n]; g < node_first[n + 1]; ++g) {
        layout l;
        for (const auto& [i, q] : on_gpu[static_cast<std::size_t>(g)])
          l.add(engine.placement(g, i));
        gpus.push_back({fleet.models[node_model(static_cast<int>(n))], p, l});
      }
      const int most = node < 0 ? defrag : static_cast<int>(best.steps.size()) - 1;
      if (most < 0) break;
      moves_plan plan = fewest_moves(gpus, most);
      if (!plan.found) {
        if (most == defrag) no_room[n] = {kind, version[n]};
        continue;
      }
      node = static_cast<int>(n);
      best = std::move(plan);
    }
    if (node < 0) return false;
    const int base = node_first[static_cast<std::size_t>(node)];
    const std::int64_t pause = (create_milli + 999) / 1000;
    for (const move_step& m : best.steps) {
      const int from = base + m.from;
      const int to = base + m.to;
      const int i = engine.find(from, m.what);
      const int j = engine.find(to, {m.what.profile, m.to_start});
      auto& src = on_gpu[static_cast<std::size_t>(from)];
      const auto it =
          std::find_if(src.begin(), src.end(), [&](const auto& e) { return e.first == i; });
      assert(it != src.end() && j >= 0);
      const std::uint32_t q = it->second;
      src.erase(it);
      engine.drop(from, i);
      [[maybe_unused]] const bool ok = engine.take(to, j);
      assert(ok);
      on_gpu[static_cast<std::size_t>(to)].emplace_back(j, q);
      *std::find(held.begin() + first[q], held.begin() + last[q], std::make_pair(from, i)) = {to,
                                                                                              j};
      ++out.moves;
      ++out.creations;
      ++out.destructions;
      if (moved[q] == 0) ++out.pods_moved;
      moved[q] = 1;
      if (pause > 0)
        for (leave& l : leaves)
          if (l.pod == q) {
            l.time += pause;
            run_end = std::max(run_end, l.time);
          }
    }
    if (pause > 0) std::make_heap(leaves.begin(), leaves.end(), later);
    ++version[static_cast<std::size_t>(node)];
    forced = {base + best.gpu, engine.find(base + best.gpu, best.where)};
    watch.step(t, seen.slices_in_use(), seen.gpus_in_use());
    return true;
  };
  // One retry of the queue: the earliest waiting pod of an item not failed
  // in this retry, until none is left (fifo: until one does not fit). With
  // defrag, the queue's head that does not fit first makes room by moves.
  const auto retry = [&](std::int64_t t) {
    if (queued == 0) return;
    std::fill(failed.begin(), failed.end(), std::uint8_t{0});
    bool any_failed = false;
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
        if (defrag > 0 && !any_failed && make_room(order[at], t)) {
          [[maybe_unused]] const bool ok = start(order[at], t);
          assert(ok);
          ++out.defrag_starts;
          ++head[kind];
          --queued;
          continue;
        }
        if (!backfill) return;
        failed[kind] = 1;
        any_failed = true;
        continue;
      }
      ++head[kind];
      --queued;
    }
  };
  // Re-plan: each GPU's geometry now, when one taken down comes back (-1:
  // in service), a min-heap of those times (stale entries skipped), the GPUs
  // down, and the next re-plan.
  std::vector<layout> current;
  std::vector<std::int64_t> until;
  std::vector<std::pair<std::int64_t, int>> ups;
  std::int64_t down = 0;
  std::int64_t next_replan = std::numeric_limits<std::int64_t>::max();
  std::vector<std::uint32_t> position;  // per pod: its position in `order`
  // Per GPU being reconfigured: its interval of unavailability in `outages`
  // (an interval grows when the GPU is changed again before it is back).
  std::vector<std::pair<std::int64_t, std::int64_t>> outages;
  std::vector<std::size_t> outage_of;
  if (replan) {
    outage_of.assign(geometry.size(), 0);
    assert(replan->period > 0 && replan->reconfigure >= 0);
    current.assign(geometry.begin(), geometry.end());
    until.assign(current.size(), -1);
    next_replan = out.start + replan->period;
    position.resize(pods.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      position[order[i]] = static_cast<std::uint32_t>(i);
  }
  const auto sooner = [](const std::pair<std::int64_t, int>& a,
                         const std::pair<std::int64_t, int>& b) { return a > b; };
  // GPUs whose reconfiguration ends by `t` come back; true when any did.
  const auto bring_up = [&](std::int64_t t) {
    bool any = false;
    while (!ups.empty() && ups.front().first <= t) {
      const auto [when, g] = ups.front();
      std::pop_heap(ups.begin(), ups.end(), sooner);
      ups.pop_back();
      if (until[static_cast<std::size_t>(g)] != when) continue;  // taken down again since
      until[static_cast<std::size_t>(g)] = -1;
      engine.up(g);
      --down;
      any = true;
    }
    return any;
  };
  // A re-plan at `t`; true when it changed a GPU.
  const auto replan_at = [&](std::int64_t t) {
    ++out.replans;
    replan_window w;
    w.time = t;
    w.from = replan->next_window ? t : t - replan->period;
    w.to = w.from + replan->period;
    for (std::size_t m = 0; m < fleet.models.size(); ++m) {
      const std::size_t profiles = fleet.models[m]->profiles.size();
      w.peaks.push_back(window_peaks(items, pods, m, profiles, w.from, w.to));
      // Per profile, the largest pod waiting now (before this time's retry).
      std::vector<std::int64_t> pending(profiles, 0);
      for (std::size_t k = 0; k < items.size(); ++k) {
        const int p = items[k].profile[m];
        if (p >= 0 && head[k] < waiting[k].size())
          pending[static_cast<std::size_t>(p)] =
              std::max(pending[static_cast<std::size_t>(p)], std::int64_t{items[k].count});
      }
      w.demand.push_back(replan_demand(w.peaks.back(), pending));
      w.pending.push_back(std::move(pending));
    }
    w.geometry = current;
    // The items waiting, by their first waiting pod's place in the queue.
    for (std::size_t k = 0; k < items.size(); ++k)
      if (head[k] < waiting[k].size())
        w.waiting.push_back({static_cast<int>(k), items[k].count,
                             static_cast<std::int64_t>(waiting[k].size() - head[k])});
    std::sort(w.waiting.begin(), w.waiting.end(),
              [&](const replan_waiting& a, const replan_waiting& b) {
                const auto x = static_cast<std::size_t>(a.item);
                const auto y = static_cast<std::size_t>(b.item);
                return waiting[x][head[x]] < waiting[y][head[y]];
              });
    const std::vector<layout> chosen = replan->choose(w);
    assert(chosen.size() == current.size());
    std::vector<std::uint8_t> changed(current.size(), 0);
    bool any = false;
    for (std::size_t g = 0; g < current.size(); ++g) {
      changed[g] = chosen[g] == current[g] ? 0 : 1;
      any = any || changed[g] != 0;
    }
    if (!any) return false;
    // The running pods holding an instance on a changed GPU are evicted,
    // in pod order.
    std::vector<leave> evicted;
    std::erase_if(leaves, [&](const leave& l) {
      for (std::uint32_t k = first[l.pod]; k < last[l.pod]; ++k)
        if (changed[static_cast<std::size_t>(held[k].first)] != 0) {
          evicted.push_back(l);
          return true;
        }
      return false;
    });
    std::make_heap(leaves.begin(), leaves.end(), later);
    std::sort(evicted.begin(), evicted.end(),
              [](const leave& a, const leave& b) { return a.pod < b.pod; });
    for (const leave& l : evicted) {
      const replay_item& item = items[static_cast<std::size_t>(pods[l.pod].item)];
      depart(l.pod, t);
      ++out.pods_evicted;
      if (evicted_once[l.pod] == 0) ++out.pods_evicted_once;
      evicted_once[l.pod] = 1;
      run_ends[l.pod] = t;                             // the run ends here
      out.instance_time -= item.count * (l.time - t);  // what it would still have run
      replay_model_metrics* on = nullptr;
      if (per_model) {
        on = &out.models[static_cast<std::size_t>(seen.model_of(held[first[l.pod]].first))];
        on->instance_time -= item.count * (l.time - t);
      }
      if (!queue) continue;  // rejecting: the pod is lost
      // Back to the queue at its place by arrival; its wait is taken again
      // when it restarts.
      --out.pods_accepted;
      out.instances_accepted -= item.count;
      if (on) {
        --on->pods_accepted;
        on->instances_accepted -= item.count;
      }
      waits[wait_at[l.pod]] = -1;
      std::vector<std::uint32_t>& w_kind = waiting[static_cast<std::size_t>(pods[l.pod].item)];
      const auto from = w_kind.begin() + static_cast<std::ptrdiff_t>(
                                             head[static_cast<std::size_t>(pods[l.pod].item)]);
      w_kind.insert(std::upper_bound(from, w_kind.end(), position[l.pod]), position[l.pod]);
      ++queued;
    }
    for (std::size_t g = 0; g < current.size(); ++g) {
      if (changed[g] == 0) continue;
      engine.down(static_cast<int>(g), chosen[g], tables);
      current[g] = chosen[g];
      ++out.reconfigurations;
      if (until[g] < 0) {
        ++down;
        outage_of[g] = outages.size();
        outages.emplace_back(t, t);
      }
      until[g] = t + replan->reconfigure;
      outages[outage_of[g]].second = until[g];
      ups.emplace_back(until[g], static_cast<int>(g));
      std::push_heap(ups.begin(), ups.end(), sooner);
    }
    replay_engine empty(fleet, items, policy, current, tables);
    holdable_on(empty);
    return true;
  };
  std::size_t next = 0;  // the next arrival, in `order`
  std::int64_t now = out.start;
  watch.begin(out.start, out.end);
  for (;;) {
    const bool arrival = next < order.size();
    const bool departure = !leaves.empty() && leaves.front().time <= out.end;
    // Re-plan: a GPU back in service, or a re-plan, within the trace's span.
    const bool up = !ups.empty() && ups.front().first <= out.end;
    const bool replans = next_replan < out.end;
    const bool expiry = !expiries.empty() && expiries.front().first <= out.end;
    if (!arrival && !departure && !up && !replans && !expiry) break;
    std::int64_t t = std::numeric_limits<std::int64_t>::max();
    if (arrival) t = pods[order[next]].start;
    if (departure) t = std::min(t, leaves.front().time);
    if (up) t = std::min(t, ups.front().first);
    if (replans) t = std::min(t, next_replan);
    if (expiry) t = std::min(t, expiries.front().first);
    out.gpu_time += seen.gpus_in_use() * (t - now);
    out.stranded_slice_time += seen.stranded() * (t - now);
    out.queue_time += queued * (t - now);
    out.unavailable_time += down * (t - now);
    out.idle_instance_time += idle_alive * (t - now);
    if (per_model) add_model_areas(out.models, seen, t - now);
    now = t;
    bool departed = false;
    while (!leaves.empty() && leaves.front().time == t) {
      std::pop_heap(leaves.begin(), leaves.end(), later);
      depart(leaves.back().pod, t);
      leaves.pop_back();
      departed = true;
    }
    if (keep) departed = expire(t) || departed;
    if (replan) {
      // Then GPUs back in service, the re-plan, and those back at once.
      departed = bring_up(t) || departed;
      if (replans && t == next_replan) {
        departed = replan_at(t) || departed;
        next_replan += replan->period;
      }
      departed = bring_up(t) || departed;
    }
    if (departed) retry(t);
    for (; next < order.size() && pods[order[next]].start == t; ++next) {
      const replay_pod& p = pods[order[next]];
      const auto kind = static_cast<std::size_t>(p.item);
      if (holdable[kind] == 0 || (!queue && !start(order[next], t))) {
        ++out.pods_rejected;
        out.instances_rejected += items[kind].count;
        if (!out.first_rejection) out.first_rejection = t;
        watch.reject(t);
        continue;
      }
      if (!queue) continue;  // started
      waiting[kind].push_back(static_cast<std::uint32_t>(next));
      ++queued;
      retry(t);
    }
    out.queue_peak = std::max(out.queue_peak, queued);
  }
  out.gpu_time += seen.gpus_in_use() * (out.end - now);
  out.stranded_slice_time += seen.stranded() * (out.end - now);
  out.queue_time += queued * (out.end - now);
  out.unavailable_time += down * (out.end - now);
  out.idle_instance_time += idle_alive * (out.end - now);
  if (per_model) add_model_areas(out.models, seen, out.end - now);
  set_one_model(out);
  out.pods_pending = queued;
  for (std::size_t k = 0; k < items.size(); ++k)
    for (std::size_t i = head[k]; i < waiting[k].size(); ++i)
      waits.push_back(out.end - pods[order[waiting[k][i]]].start);
  if (replan) std::erase(waits, std::int64_t{-1});  // the waits of evicted runs
  for (const std::int64_t e : run_ends) run_end = std::max(run_end, e);
  out.makespan = run_end == none ? 0 : run_end - out.start;
  // The outages clipped to the makespan (they may run past the trace's end).
  for (const auto& [from, to] : outages)
    out.unavailable_makespan_time += std::max<std::int64_t>(
        std::min(to, out.start + out.makespan) - std::max(from, out.start), 0);
  out.waits = replay_waits_of(waits);
  watch.finish();
  return out;
}

}  // namespace detail

}  // namespace v1
}  // namespace migplan

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
/// Re-plan (replay_replan, static policies only): at every `period` after
/// the trace's first time (before its last), `choose` is given the demand of
/// a window (window_peaks() of the last period, or of the next one; under a
/// queue, each profile raised to its largest pod waiting then:
/// replan_demand()), each GPU's geometry now and the items waiting then
/// (replan_window::waiting), and returns the geometries from then on. Per
/// profile a demand cannot say that a pod's instances go on one node: a
/// `choose` that spreads them leaves such a pod, at a FIFO head, holding the
/// queue. A GPU whose
/// geometry changes is reconfigured: the pods running on it (any of their
/// instances) are evicted, it fits no pod for `reconfigure`, and then takes
/// its new geometry. At one time: departures, GPUs whose reconfiguration
/// ends, the re-plan, GPUs back at once (reconfigure 0), one queue retry when
/// any of these changed the fleet, then arrivals. An evicted pod loses its
/// run (instance_time keeps what it ran): under a queue it goes back to the
/// queue at its place by arrival, no longer counted as started, and runs its
/// whole duration when it starts again (its wait is then taken); rejecting,
/// it is lost and stays counted as accepted. A pod is refused on arrival
/// when the empty fleet with the geometries then in force cannot hold it.
///
/// Instances with a cost and a life (dynamic policies only; replay_policy's
/// create_milli and keep_idle): a pod whose instances are created runs
/// ceil(created x create_milli / 1000) after its placement (its wait and
/// its departure move with it; its instances are held from the placement).
/// Keeping idle instances (keep_idle >= 0), an instance whose pod ends
/// stays idle, and a pod first takes idle instances of its profile, all
/// from the lowest node with enough, by GPU and start (no creation, no
/// delay); else it is placed by the policy with the idle instances in its
/// way; else, when it fits with them gone, it goes where it fits without
/// them (the policy's choice on the busy instances alone), and on each GPU
/// it takes the idle instances are lifted and put back by start while the
/// GPU can take them: the rest are destroyed (reclaims). An idle instance
/// is destroyed when it has been idle keep_idle (0: at once, as without
/// keeping); at one time, after the departures and before the rest. What
/// is measured (GPUs in use, slices, stranded) counts the busy instances.
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
///
/// Headers: replay_types.hpp (the types), replay_state.hpp (the per-model
/// tables), replay_engine.hpp (the engine: one fleet's state, one event at
/// a time), replay_demand.hpp (the demand over time: concurrent_peaks(),
/// window_peaks(), replan_demand()), replay_queue.hpp (the queued replay:
/// the queue, re-plans, instances with a cost or a life, defragmentation),
/// this one (replay(), sizing's search and rank_placements()). A series of
/// the use over time for a plot is the CLI's (src/model/replay_series.hpp),
/// a watcher like any other.

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <migplan/layout.hpp>
#include <migplan/replay_demand.hpp>
#include <migplan/replay_engine.hpp>
#include <migplan/replay_queue.hpp>
#include <migplan/replay_state.hpp>
#include <migplan/replay_types.hpp>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace migplan {
inline namespace v1 {

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
                      std::span<const layout> geometry, replay_tables& tables, Watch& watch,
                      const replay_replan* replan = nullptr) {
  replay_metrics out;
  out.models.assign(fleet.models.size(), {});
  if (pods.empty()) return out;
  const bool lifecycle =
      policy.mode == replay_mode::dynamic && (policy.keep_idle >= 0 || policy.create_milli > 0);
  if (policy.pending != pending_rule::reject || replan || lifecycle)
    return detail::replay_queued(fleet, items, pods, policy, geometry, tables, watch, replan);
  detail::replay_engine engine(fleet, items, policy, geometry, tables);
  const bool per_model = fleet.models.size() > 1;
  // A pod that ends when or before it starts leaves right after its arrival.
  const auto events = detail::replay_events(pods, [](const replay_pod&) { return true; });
  out.start = pods[0].start;
  out.end = pods[0].start;
  for (const replay_pod& p : pods) {
    out.start = std::min(out.start, p.start);
    out.end = std::max({out.end, p.start, p.end});
  }
  std::vector<std::pair<int, int>> held;  // placements of all placed pods
  std::vector<std::uint32_t> first(pods.size() + 1, 0);
  std::vector<std::uint32_t> last(pods.size(), 0);
  std::int64_t now = out.start;
  out.pods = static_cast<std::int64_t>(pods.size());
  std::optional<std::int64_t> run_end;  // the latest end of a placed pod's run
  watch.begin(out.start, out.end);
  for (const detail::replay_event& e : events) {
    out.gpu_time += engine.gpus_in_use() * (e.time - now);
    out.stranded_slice_time += engine.stranded() * (e.time - now);
    if (per_model) detail::add_model_areas(out.models, engine, e.time - now);
    now = e.time;
    const replay_pod& pod = pods[e.pod];
    const replay_item& item = items[static_cast<std::size_t>(pod.item)];
    if (e.arrival == 0) {
      if (last[e.pod] > first[e.pod]) {
        engine.depart(std::span(held).subspan(first[e.pod], last[e.pod] - first[e.pod]));
        out.destructions += policy.mode == replay_mode::dynamic ? item.count : 0;
        watch.step(e.time, engine.slices_in_use(), engine.gpus_in_use());
        if (per_model) detail::model_steps(watch, engine, fleet.models.size(), e.time);
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
    run_end = std::max(run_end.value_or(pod.start), std::max(pod.start, pod.end));
    watch.step(e.time, engine.slices_in_use(), engine.gpus_in_use());
    if (per_model) detail::model_steps(watch, engine, fleet.models.size(), e.time);
    watch.started(e.pod, e.time, e.time);
    if (policy.mode == replay_mode::dynamic) out.creations += item.count;
    if (per_model) {
      const auto m = static_cast<std::size_t>(engine.model_of(held[first[e.pod]].first));
      detail::add_model_start(out.models[m], engine, m, item,
                              std::max<std::int64_t>(pod.end - pod.start, 0));
    }
    if (pod.end > pod.start) {
      out.instance_time += item.count * (pod.end - pod.start);
    } else {
      engine.depart(std::span(held).subspan(first[e.pod], last[e.pod] - first[e.pod]));
      last[e.pod] = first[e.pod];
      out.destructions += policy.mode == replay_mode::dynamic ? item.count : 0;
      watch.step(e.time, engine.slices_in_use(), engine.gpus_in_use());
      if (per_model) detail::model_steps(watch, engine, fleet.models.size(), e.time);
    }
  }
  out.gpu_time += engine.gpus_in_use() * (out.end - now);
  out.stranded_slice_time += engine.stranded() * (out.end - now);
  if (per_model) detail::add_model_areas(out.models, engine, out.end - now);
  detail::set_one_model(out);
  out.makespan = run_end ? *run_end - out.start : 0;
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

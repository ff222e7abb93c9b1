// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file replay_types.hpp
/// The vocabulary of replay.hpp: fleets, items, pods, policies, what a
/// replay measures (replay_metrics), what it tells a watcher as it goes
/// (replay_watch) and the ranking of places rank_placements() returns. The
/// rules a replay follows are in replay.hpp's comment.

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <migplan/capacity.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <optional>
#include <span>
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
  /// HAMi's dynamic MIG: the least used GPU (compute slices; ties to the
  /// lowest), and there the start HAMi's score ranks first: the longest run
  /// of free units left, then the most placements of every profile left
  /// free of overlap, then the lowest start (hami_score(), replay_state.hpp).
  hami,
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
  /// Dynamic only: what creating one instance costs, in thousandths of a
  /// time unit. A pod whose instances are created runs from its placement
  /// plus ceil(instances created x create_milli / 1000); its instances are
  /// held from its placement. 0: at once.
  std::int64_t create_milli = 0;
  /// Dynamic only: an instance whose pod ended stays idle this long for a
  /// pod of its profile to reuse (no creation), and is destroyed then, or
  /// earlier when it blocks a pod that fits nowhere else (replay.hpp's
  /// comment). Negative: destroyed when its pod ends.
  std::int64_t keep_idle = -1;
  /// Dynamic, queued, not keeping idle instances: when the queue's head
  /// asks for one instance and fits nowhere, the fewest moves of running
  /// instances (at most this many, within one node) that make room for it
  /// (replay.hpp's comment). 0: none.
  int defrag = 0;
  friend constexpr bool operator==(const replay_policy&, const replay_policy&) = default;
};

/// An item with pods waiting in the queue at a re-plan (replan_window::waiting).
struct replan_waiting {
  int item = 0;           ///< index into the items
  int count = 0;          ///< instances each of its pods asks for, all on one node
  std::int64_t pods = 0;  ///< how many of its pods wait
  friend constexpr bool operator==(const replan_waiting&, const replan_waiting&) = default;
};

/// What a re-plan sees (replay_replan::choose).
struct replan_window {
  std::int64_t time = 0;  ///< when the re-plan happens
  std::int64_t from = 0;  ///< the window whose demand it sees, [from, to)
  std::int64_t to = 0;    ///< (see from)
  /// Per fleet model, per profile: the most instances the trace's pods hold
  /// at once within the window (window_peaks()).
  std::vector<std::vector<std::int64_t>> peaks;
  /// Per fleet model, per profile: the instances the largest pod of the
  /// profile waiting in the queue at the re-plan asks for (0 when none).
  std::vector<std::vector<std::int64_t>> pending;
  /// Per fleet model, per profile: the demand to re-plan for, the larger of
  /// peaks and pending (replan_demand()).
  std::vector<std::vector<std::int64_t>> demand;
  std::span<const layout> geometry;  ///< per GPU: its geometry now
  /// The items with pods waiting in the queue at the re-plan (before the
  /// queue's retry), each once, in the order of its first waiting pod: the
  /// FIFO head's item first. A pod of one asks for `count` instances on one
  /// node, which per-profile demand does not say: `choose` should leave, for
  /// each, a node whose GPUs hold that many (replay.hpp's comment). Empty
  /// when nothing waits (always, rejecting).
  std::vector<replan_waiting> waiting;
};

/// A static geometry re-planned every `period` as the trace goes (replay(),
/// and replay.hpp's comment for the rules).
struct replay_replan {
  std::int64_t period = 1;       ///< time between re-plans, from the trace's start (> 0)
  std::int64_t reconfigure = 0;  ///< a GPU whose geometry changes takes no pod for this long
  /// The window a re-plan sees: the next period's (a bound no scheduler can
  /// reach) instead of the last.
  bool next_window = false;
  /// The geometries from now on, one per GPU in GPU order, each valid on
  /// its model: the GPUs whose geometry differs from window.geometry change.
  std::function<std::vector<layout>(const replan_window&)> choose;
};

/// Percentiles of the pods' waits in a queued replay (replay_waits_of()).
struct replay_waits {
  std::int64_t p50 = 0;  ///< median
  std::int64_t p95 = 0;  ///< 95th percentile
  std::int64_t p99 = 0;  ///< 99th percentile
  std::int64_t max = 0;  ///< longest
  friend bool operator==(const replay_waits&, const replay_waits&) = default;
};

/// What a replay served on the GPUs of one fleet model (replay_metrics::models).
/// A pod counts to the model of the node it started on.
struct replay_model_metrics {
  std::int64_t pods_accepted = 0;        ///< pods placed on the model's GPUs (queued: started)
  std::int64_t instances_accepted = 0;   ///< their instances
  std::int64_t instance_time = 0;        ///< sum over them of count x duration
  std::int64_t gpu_time = 0;             ///< integral of its GPUs holding >= 1 busy instance
  std::int64_t stranded_slice_time = 0;  ///< integral of its GPUs' stranded compute slices
  int peak_gpus_in_use = 0;              ///< most of its GPUs holding a busy instance at once
  friend bool operator==(const replay_model_metrics&, const replay_model_metrics&) = default;
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
  std::int64_t replans = 0;           ///< re-plan: re-plans made (replay_replan)
  std::int64_t reconfigurations = 0;  ///< re-plan: GPUs whose geometry a re-plan changed, summed
  std::int64_t pods_evicted = 0;      ///< re-plan: evictions (a pod evicted twice counts twice)
  std::int64_t unavailable_time = 0;  ///< re-plan: integral of the GPUs being reconfigured
  std::int64_t pods = 0;              ///< pods in the trace
  /// From the trace's first arrival to the latest end of a run of a started
  /// pod (its start plus its duration, past the trace's last time where the
  /// replay stops, or when it was evicted); 0 when no pod started.
  std::int64_t makespan = 0;
  std::int64_t pods_evicted_once = 0;  ///< re-plan: pods evicted at least once
  /// Re-plan: the integral of the GPUs being reconfigured within the
  /// makespan, [start, start + makespan) (past the trace's last time too).
  std::int64_t unavailable_makespan_time = 0;
  /// Dynamic, keep_idle: instances a pod took from those left idle (each a
  /// creation saved; not counted in creations).
  std::int64_t reuses = 0;
  /// Dynamic, keep_idle: idle instances destroyed because they blocked a
  /// pod (the rest of the destroyed idle ones ran out their time).
  std::int64_t reclaims = 0;
  /// Dynamic, keep_idle: integral of the idle instances kept.
  std::int64_t idle_instance_time = 0;
  /// Dynamic, create_milli: sum over started pods of the time from their
  /// placement to their run (their instances' creation).
  std::int64_t create_time = 0;
  /// Dynamic, defrag: running instances moved to make room for a queue's
  /// head (each destroyed and created again: counted in destructions and
  /// creations).
  std::int64_t moves = 0;
  std::int64_t pods_moved = 0;     ///< Dynamic, defrag: pods with an instance moved at least once
  std::int64_t defrag_starts = 0;  ///< Dynamic, defrag: queue heads started by moves
  /// Per fleet model (replay_fleet::models): what its GPUs served. The
  /// counts and areas above are the sums of these (peak_gpus_in_use is at
  /// least each model's peak and at most their sum).
  std::vector<replay_model_metrics> models;
  friend bool operator==(const replay_metrics&, const replay_metrics&) = default;
};

/// The rates the papers on GPU scheduling report, from a replay's metrics
/// (replay_rates_of()). Fractions in [0, 1]; 0 where the whole is 0.
struct replay_rates {
  /// pods_accepted / pods: placed (queued: started, and not evicted since)
  /// out of every pod of the trace.
  double acceptance = 0;
  /// gpu_time over the trace's span: the time-weighted mean of the GPUs
  /// holding at least one busy instance (the peak is peak_gpus_in_use).
  double mean_gpus_active = 0;
  double mean_queue = 0;  ///< queued: queue_time over the trace's span
  double evicted = 0;     ///< re-plan: pods_evicted_once / pods
  /// Re-plan: unavailable_makespan_time / (fleet GPUs x makespan): the share
  /// of the fleet's GPU-time over the makespan lost to reconfiguration.
  double reconfiguration_overhead = 0;
};

/// The rates of `m`, a replay on a fleet of `gpus` GPUs.
inline replay_rates replay_rates_of(const replay_metrics& m, int gpus) {
  const auto share = [](std::int64_t part, std::int64_t whole) {
    return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
  };
  replay_rates r;
  r.acceptance = share(m.pods_accepted, m.pods);
  r.mean_gpus_active = share(m.gpu_time, m.end - m.start);
  r.mean_queue = share(m.queue_time, m.end - m.start);
  r.evicted = share(m.pods_evicted_once, m.pods);
  r.reconfiguration_overhead = share(m.unavailable_makespan_time, gpus * m.makespan);
  return r;
}

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

/// What replay() tells a watcher as it goes, and the watcher that listens to
/// nothing. A watcher of one's own (replay_series, a progress line) has the
/// same members; replay() calls them inline, so this one costs nothing.
struct replay_watch {
  /// Before the first event: the span of the trace (see replay_metrics).
  void begin(std::int64_t /*start*/, std::int64_t /*end*/) noexcept {}
  /// After each change of the fleet at `time`: compute slices and GPUs held
  /// by busy instances. A pod of no duration is seen placed, then gone.
  void step(std::int64_t /*time*/, int /*slices*/, int /*gpus*/) noexcept {}
  /// On a fleet of several models, after each step(), once per fleet model
  /// `model` (index into replay_fleet::models): the compute slices and GPUs
  /// held by busy instances on its GPUs (they sum to step()'s). Not called
  /// on a fleet of one model, where they are step()'s.
  void model_step(std::int64_t /*time*/, std::size_t /*model*/, int /*slices*/,
                  int /*gpus*/) noexcept {}
  /// A pod rejected (queued: refused) at `time`.
  void reject(std::int64_t /*time*/) noexcept {}
  /// Pod `pod` (index into the trace), which arrived at `arrival`, started
  /// at `time` (after the step() that placed it).
  void started(std::uint32_t /*pod*/, std::int64_t /*arrival*/, std::int64_t /*time*/) noexcept {}
  /// After the last event.
  void finish() noexcept {}
};

}  // namespace v1
}  // namespace migplan

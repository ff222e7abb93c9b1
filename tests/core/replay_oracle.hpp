// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file replay_oracle.hpp
/// A deliberately naive replay for differential tests of replay.hpp. It shares
/// no code with the engine: a GPU is a list of (start, profile) pairs, an
/// instance fits when the grown list is one of the oracle's layouts
/// (oracle::all_layouts), room is a loop over every layout that contains the
/// GPU's, and every event loops over every node, GPU and start. It fills the
/// engine's plain result types only.

#include <cstdint>
#include <migplan/replay.hpp>
#include <span>
#include <utility>
#include <vector>

namespace oracle {

/// Replays `pods` like migplan::replay, the slow way.
migplan::replay_metrics replay(const migplan::replay_fleet& fleet,
                               std::span<const migplan::replay_item> items,
                               std::span<const migplan::replay_pod> pods,
                               const migplan::replay_policy& policy,
                               std::span<const migplan::layout> geometry = {});

/// One GPU's new static geometry at a time (a re-plan's change).
struct reconfiguration {
  std::int64_t time = 0;
  int gpu = 0;
  migplan::layout geometry;
};

/// Where the re-plans fall and which window they see: every `period` from
/// the trace's first time, before its last; the next period's window when
/// `next_window`, else the last one's.
struct replan_times {
  std::int64_t period = 1;
  bool next_window = false;
};

/// The demand each re-plan sees: per re-plan, per fleet model, per profile.
using replan_demands = std::vector<std::vector<std::vector<std::int64_t>>>;

/// The items waiting at each re-plan (replan_window::waiting): per re-plan.
using replan_queues = std::vector<std::vector<migplan::replan_waiting>>;

/// Replays `pods` under a static `policy` (either pending rule) starting
/// from `geometry`, each GPU of `schedule` taking its new geometry at its
/// time as replay.hpp's re-plan rules say: its pods evicted, out of service
/// for `reconfigure`. `replans` is left 0 (the schedule does not say how
/// many re-plans changed nothing). Given `replans` and `demands`, records
/// at each re-plan time the demand a re-plan sees (replay.hpp): per model,
/// per profile, the most instances the trace's pods hold at once within
/// the window, raised to the largest pod of the profile waiting then.
/// Given `queues` too, records what waits then: each item with a pod in
/// the queue, once, in the queue's order of their first pods, with its
/// pods' instances and how many of its pods wait.
migplan::replay_metrics replay(const migplan::replay_fleet& fleet,
                               std::span<const migplan::replay_item> items,
                               std::span<const migplan::replay_pod> pods,
                               const migplan::replay_policy& policy,
                               std::span<const migplan::layout> geometry,
                               const std::vector<reconfiguration>& schedule,
                               std::int64_t reconfigure, const replan_times* replans = nullptr,
                               replan_demands* demands = nullptr, replan_queues* queues = nullptr);

/// Where migplan::rank_placements' first place is, the slow way: the
/// (GPU, start) one instance of `item` (count 1) takes on `fleet` holding
/// `held` (one layout per GPU) under a dynamic policy; (-1, -1) when none.
std::pair<int, int> place(const migplan::replay_fleet& fleet, const migplan::replay_item& item,
                          std::span<const migplan::layout> held,
                          const migplan::replay_policy& policy);

}  // namespace oracle

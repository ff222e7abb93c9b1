// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file replay_demand.hpp
/// The demand of a trace over time, per profile of a fleet model: what a
/// static geometry must hold (concurrent_peaks()), within a window
/// (window_peaks()), and what a re-plan plans for (replan_demand()).
/// replay.hpp's replays and re-plans use them.

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <migplan/replay_types.hpp>
#include <span>
#include <vector>

namespace migplan {
inline namespace v1 {

namespace detail {

/// One event of a replay: a pod's arrival or departure.
struct replay_event {
  std::int64_t time;
  std::uint32_t arrival;  ///< departures (0) sort before arrivals (1)
  std::uint32_t pod;      ///< index in the pods; arrivals at one time in pod order
};

/// The events of the pods `take` accepts, in replay()'s order: by time, at
/// one time departures first, then arrivals in pod order. A pod of no
/// duration (end <= start) has no departure: it leaves right after its own
/// arrival, which its reader handles.
template <class Take>
std::vector<replay_event> replay_events(std::span<const replay_pod> pods, Take take) {
  std::vector<replay_event> events;
  events.reserve(pods.size() * 2);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const replay_pod& p = pods[i];
    if (!take(p)) continue;
    events.push_back({p.start, 1, static_cast<std::uint32_t>(i)});
    if (p.end > p.start) events.push_back({p.end, 0, static_cast<std::uint32_t>(i)});
  }
  std::sort(events.begin(), events.end(), [](const replay_event& a, const replay_event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.arrival != b.arrival) return a.arrival < b.arrival;
    return a.pod < b.pod;
  });
  return events;
}

}  // namespace detail

/// The most instances of each profile of fleet model `model` that run at once
/// in `pods`, in replay()'s order of events (detail::replay_events()), a pod
/// of no duration adding its instances to those running when it arrives
/// (and to nothing after). What a static geometry must hold to reject
/// nothing. Indexed by profile; items that the model cannot serve are left out.
inline std::vector<std::int64_t> concurrent_peaks(std::span<const replay_item> items,
                                                  std::span<const replay_pod> pods,
                                                  std::size_t model, std::size_t profiles) {
  const auto steps = detail::replay_events(pods, [&](const replay_pod& p) {
    return items[static_cast<std::size_t>(p.item)].profile[model] >= 0;
  });
  std::vector<std::int64_t> now(profiles, 0), peak(profiles, 0);
  for (const detail::replay_event& s : steps) {
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

/// concurrent_peaks() within the window [from, to): the most instances of
/// each profile of fleet model `model` that `pods` hold at once at a time in
/// it. A pod that arrived before `from` and leaves after it counts from
/// `from` on (as if it arrived then, in pod order among the pods arriving
/// at `from`); one leaving at `from` or earlier, or arriving at `to` or
/// later, counts not.
inline std::vector<std::int64_t> window_peaks(std::span<const replay_item> items,
                                              std::span<const replay_pod> pods, std::size_t model,
                                              std::size_t profiles, std::int64_t from,
                                              std::int64_t to) {
  std::vector<replay_pod> in;
  for (const replay_pod& p : pods) {
    if (p.start >= to) continue;
    if (p.start >= from)
      in.push_back(p);
    else if (p.end > from)
      in.push_back({from, p.end, p.item});
  }
  return concurrent_peaks(items, in, model, profiles);
}

/// What a re-plan plans for, per profile: the window's peak, raised to the
/// instances of the largest pod of that profile waiting in the queue. The
/// peak alone is the window's arrivals: a pod that arrived before the window
/// and still waits is not in it, and a re-plan that drops its profile would
/// leave a FIFO head of it waiting for good. The largest waiting pod, not
/// the whole backlog: planning a long queue as if it all ran at once hands
/// the geometry to the profiles in proportion to their backlog and starves
/// the multi-GPU pods. Rejecting, nothing waits and the peak is the demand.
inline std::vector<std::int64_t> replan_demand(std::span<const std::int64_t> peaks,
                                               std::span<const std::int64_t> pending) {
  assert(peaks.size() == pending.size());
  std::vector<std::int64_t> out(peaks.begin(), peaks.end());
  for (std::size_t p = 0; p < out.size(); ++p) out[p] = std::max(out[p], pending[p]);
  return out;
}

}  // namespace v1
}  // namespace migplan

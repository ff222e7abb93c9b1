// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the replay engine (include/migplan/replay.hpp) on a small
// fleet, trace and policy drawn from the bytes, differential against the
// brute-force replay (tests/core/replay_oracle.cpp), under every pending
// rule, with the instances of a dynamic policy created with a cost, kept
// idle or moved to make room (+defrag). Beside the equal metrics it checks
// what a queue promises: no pod starts before it arrives or twice, a FIFO
// queue starts pods in arrival order, and started + pending + refused =
// pods.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <migplan/catalog.hpp>
#include <migplan/layout.hpp>
#include <migplan/lookup.hpp>
#include <migplan/replay.hpp>
#include <migplan/rules.hpp>
#include <span>
#include <vector>

#include "core/replay_oracle.hpp"

namespace {

using namespace migplan;

void require(bool ok) {
  if (!ok) std::abort();
}

// The bytes, read front to back; 0 once they run out.
class bytes {
 public:
  bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  unsigned next() noexcept { return at_ < size_ ? data_[at_++] : 0u; }
  std::size_t left() const noexcept { return size_ - at_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

// A valid layout of `gpu` grown from the bytes: each byte names a placement
// to try, kept when the rules allow it.
layout geometry_of(const gpu_model& gpu, bytes& in) {
  const std::vector<instance> places = all_placements(gpu);
  const rules r(gpu);
  layout l;
  usage use{};
  const unsigned tries = in.next() % 8;
  for (unsigned k = 0; k < tries; ++k) {
    const instance& p = places[in.next() % places.size()];
    const profile& pr = gpu.profiles[static_cast<std::size_t>(p.profile)];
    if (!r.can_add(use, p.profile, p.start)) continue;
    use.add(pr, p.profile, p.start);
    l.add(p);
  }
  return l;
}

// Hears the starts: each pod starts once, never before it arrives, and
// under FIFO in arrival order (time, then trace order).
struct starts {
  std::span<const replay_pod> pods;
  bool fifo = false;
  std::vector<std::uint8_t> seen = std::vector<std::uint8_t>(pods.size(), 0);
  std::int64_t last_arrival = -1;
  std::int64_t last_pod = -1;
  std::int64_t count = 0;

  void begin(std::int64_t, std::int64_t) noexcept {}
  void step(std::int64_t, int, int) noexcept {}
  void reject(std::int64_t) noexcept {}
  void started(std::uint32_t pod, std::int64_t arrival, std::int64_t time) {
    require(pod < pods.size() && seen[pod] == 0);
    seen[pod] = 1;
    ++count;
    require(arrival == pods[pod].start && time >= arrival);
    if (fifo) {
      const bool after = arrival > last_arrival ||
                         (arrival == last_arrival && static_cast<std::int64_t>(pod) > last_pod);
      require(after);
      last_arrival = arrival;
      last_pod = pod;
    }
  }
  void finish() noexcept {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<const gpu_model*> models{find_model("a100-40gb"),
                                                    find_model("h100-80gb"), find_model("a30")};
  bytes in(data, size);

  replay_fleet fleet{models, {}};
  const unsigned nodes = 1 + in.next() % 3;
  for (unsigned n = 0; n < nodes; ++n)
    fleet.nodes.push_back({static_cast<int>(in.next() % 3), static_cast<int>(1 + in.next() % 3)});
  std::vector<layout> geometry;
  for (const replay_node& node : fleet.nodes)
    for (int g = 0; g < node.gpus; ++g)
      geometry.push_back(geometry_of(*models[static_cast<std::size_t>(node.model)], in));

  // The policies simulate offers: static by spread or pack, dynamic by
  // spread or pack with first or best fit, the DRA allocator's and HAMi's.
  static constexpr replay_policy policies[] = {
      {replay_mode::static_geometry, node_choice::spread, gpu_choice::first_fit},
      {replay_mode::static_geometry, node_choice::pack, gpu_choice::first_fit},
      {replay_mode::dynamic, node_choice::spread, gpu_choice::first_fit},
      {replay_mode::dynamic, node_choice::spread, gpu_choice::best_fit},
      {replay_mode::dynamic, node_choice::pack, gpu_choice::first_fit},
      {replay_mode::dynamic, node_choice::pack, gpu_choice::best_fit},
      {replay_mode::dynamic, node_choice::first, gpu_choice::name_order},
      {replay_mode::dynamic, node_choice::pack, gpu_choice::hami}};
  const unsigned how = in.next();
  replay_policy policy = policies[how % std::size(policies)];
  policy.pending = static_cast<pending_rule>(how / std::size(policies) % 3);
  // A dynamic policy's instances: a creation time (odd), kept idle 5 or 0,
  // or, queued, room made by 1 or 2 moves.
  if (const unsigned life = how / (std::size(policies) * 3); policy.mode == replay_mode::dynamic) {
    policy.create_milli = (life & 1U) != 0 ? 1500 : 0;
    const unsigned what = life >> 1U;
    if (what == 2) policy.keep_idle = 5;
    if (what == 3) policy.keep_idle = 0;
    if (what >= 4 && policy.pending != pending_rule::reject)
      policy.defrag = static_cast<int>(what - 3);
  }

  std::vector<replay_item> items(1 + in.next() % 4);
  for (replay_item& it : items) {
    for (const gpu_model* m : models) {
      const std::size_t p = in.next() % (m->profiles.size() + 1);  // the last: none
      it.profile.push_back(p == m->profiles.size() ? -1 : static_cast<int>(p));
    }
    it.count = static_cast<int>(1 + in.next() % 3);
  }
  std::vector<replay_pod> pods;
  while (in.left() >= 3 && pods.size() < 64) {
    const auto start = static_cast<std::int64_t>(in.next());
    const auto length = static_cast<std::int64_t>(in.next() % 48);  // 0: no duration
    pods.push_back({start, start + length, static_cast<int>(in.next() % items.size())});
  }

  replay_tables tables;
  starts seen{pods, policy.pending == pending_rule::fifo};
  const replay_metrics fast = replay(fleet, items, pods, policy, geometry, tables, seen);
  const replay_metrics slow = oracle::replay(fleet, items, pods, policy, geometry);
  require(fast == slow);
  const auto n = static_cast<std::int64_t>(pods.size());
  require(seen.count == fast.pods_accepted);
  require(fast.pods_accepted + fast.pods_rejected + fast.pods_pending == n);
  if (policy.pending == pending_rule::reject) require(fast.pods_pending == 0);
  return 0;
}

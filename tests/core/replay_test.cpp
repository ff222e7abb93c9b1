// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>
#include <migplan/capacity.hpp>
#include <migplan/replay.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "replay_oracle.hpp"
#include "support.hpp"

using namespace migplan;
using migplan::test::index_of;
using migplan::test::model;

namespace {

replay_item item_on(const gpu_model& gpu, std::string_view profile, int count = 1) {
  return {{index_of(gpu, profile)}, count};
}

replay_fleet one_model(const gpu_model& gpu, int nodes, int per_node) {
  replay_fleet f{{&gpu}, {}};
  for (int n = 0; n < nodes; ++n) f.nodes.push_back({0, per_node});
  return f;
}

const replay_policy dynamic_spread_first{replay_mode::dynamic, node_choice::spread,
                                         gpu_choice::first_fit};
const replay_policy dynamic_pack_best{replay_mode::dynamic, node_choice::pack,
                                      gpu_choice::best_fit};
const replay_policy static_spread{replay_mode::static_geometry, node_choice::spread,
                                  gpu_choice::first_fit};
const replay_policy dra_first_fit{replay_mode::dynamic, node_choice::first, gpu_choice::name_order};
const replay_policy hami{replay_mode::dynamic, node_choice::pack, gpu_choice::hami};

std::string describe(const replay_metrics& m) {
  std::ostringstream o;
  o << "accepted " << m.pods_accepted << "/" << m.instances_accepted << " rejected "
    << m.pods_rejected << "/" << m.instances_rejected << " instance_time " << m.instance_time
    << " gpu_time " << m.gpu_time << " stranded " << m.stranded_slice_time << " peak "
    << m.peak_gpus_in_use << " created " << m.creations << " destroyed " << m.destructions
    << " first_rejection " << (m.first_rejection ? std::to_string(*m.first_rejection) : "-")
    << " span " << m.start << ".." << m.end << " pods " << m.pods << " makespan " << m.makespan;
  for (std::size_t k = 0; k < m.models.size(); ++k) {
    const replay_model_metrics& x = m.models[k];
    o << " | model " << k << ": accepted " << x.pods_accepted << "/" << x.instances_accepted
      << " instance_time " << x.instance_time << " gpu_time " << x.gpu_time << " stranded "
      << x.stranded_slice_time << " peak " << x.peak_gpus_in_use;
  }
  return o.str();
}

// The fleet's figures are the sums of its models'; its peak lies between
// the largest model's and their sum.
void require_model_sums(const replay_metrics& m, std::size_t models) {
  REQUIRE(m.models.size() == models);
  replay_model_metrics sum;
  int most = 0;
  for (const replay_model_metrics& x : m.models) {
    sum.pods_accepted += x.pods_accepted;
    sum.instances_accepted += x.instances_accepted;
    sum.instance_time += x.instance_time;
    sum.gpu_time += x.gpu_time;
    sum.stranded_slice_time += x.stranded_slice_time;
    sum.peak_gpus_in_use += x.peak_gpus_in_use;
    most = std::max(most, x.peak_gpus_in_use);
  }
  REQUIRE(sum.pods_accepted == m.pods_accepted);
  REQUIRE(sum.instances_accepted == m.instances_accepted);
  REQUIRE(sum.instance_time == m.instance_time);
  REQUIRE(sum.gpu_time == m.gpu_time);
  REQUIRE(sum.stranded_slice_time == m.stranded_slice_time);
  REQUIRE(most <= m.peak_gpus_in_use);
  REQUIRE(m.peak_gpus_in_use <= sum.peak_gpus_in_use);
}

}  // namespace

TEST_CASE("a replay counts accepted and rejected pods and integrates GPU time", "[replay]") {
  const gpu_model& a100 = model("a100-40gb");
  const replay_fleet fleet = one_model(a100, 1, 1);
  const std::vector<replay_item> items{item_on(a100, "4g.20gb"), item_on(a100, "3g.20gb")};
  // 4g at [0,10), 3g at [5,20), a second 4g at [6,8) finds no room.
  const std::vector<replay_pod> pods{{0, 10, 0}, {5, 20, 1}, {6, 8, 0}};
  const replay_metrics m = replay(fleet, items, pods, dynamic_spread_first);
  CHECK(m.pods_accepted == 2);
  CHECK(m.pods_rejected == 1);
  CHECK(m.first_rejection == 6);
  CHECK(m.instance_time == 10 + 15);
  CHECK(m.gpu_time == 20);
  CHECK(m.peak_gpus_in_use == 1);
  CHECK(m.creations == 2);
  CHECK(m.destructions == 2);
  CHECK(m.start == 0);
  CHECK(m.end == 20);
  // The rates: acceptance counts the placed pods; the makespan ends with the
  // latest run of a placed pod, the rejected pod's end not: where the
  // rejected pod would end last (30), the makespan stays 20.
  std::vector<replay_pod> late = pods;
  late[2].end = 30;
  const replay_metrics n = replay(fleet, items, late, dynamic_spread_first);
  CHECK(n.pods == 3);
  CHECK(n.end == 30);
  CHECK(n.makespan == 20);
  const replay_rates rates = replay_rates_of(n, 1);
  CHECK(rates.acceptance == Approx(2.0 / 3.0));
  CHECK(rates.mean_gpus_active == Approx(20.0 / 30.0));
  CHECK(rates.evicted == 0);
  CHECK(rates.reconfiguration_overhead == 0);
  CHECK(n == oracle::replay(fleet, items, late, dynamic_spread_first));
}

TEST_CASE("departures at a time are processed before the arrivals at that time", "[replay]") {
  const gpu_model& a100 = model("a100-40gb");
  const replay_fleet fleet = one_model(a100, 1, 1);
  const std::vector<replay_item> items{item_on(a100, "7g.40gb")};
  const std::vector<replay_pod> pods{{0, 10, 0}, {10, 20, 0}};
  const replay_metrics m = replay(fleet, items, pods, dynamic_spread_first);
  CHECK(m.pods_accepted == 2);
  CHECK(m.pods_rejected == 0);
}

TEST_CASE("spread puts the second pod on the other node and pack on the same", "[replay]") {
  const gpu_model& a100 = model("a100-40gb");
  const replay_fleet fleet = one_model(a100, 2, 1);
  const std::vector<replay_item> items{item_on(a100, "1g.5gb")};
  const std::vector<replay_pod> pods{{0, 10, 0}, {1, 10, 0}};
  CHECK(replay(fleet, items, pods, dynamic_spread_first).peak_gpus_in_use == 2);
  CHECK(replay(fleet, items, pods, dynamic_pack_best).peak_gpus_in_use == 1);
}

TEST_CASE("whole GPUs are placed on one node all or nothing", "[replay]") {
  const gpu_model& a100 = model("a100-40gb");
  const replay_fleet fleet = one_model(a100, 2, 2);
  const std::vector<replay_item> items{item_on(a100, "1g.5gb"), item_on(a100, "7g.40gb", 2)};
  // A 1g on each node leaves one free GPU per node: two whole GPUs do not fit.
  const std::vector<replay_pod> pods{{0, 10, 0}, {0, 10, 0}, {1, 10, 1}};
  const replay_metrics m = replay(fleet, items, pods, dynamic_spread_first);
  CHECK(m.pods_rejected == 1);
  CHECK(m.instances_rejected == 2);
  // Packed, both 1g share a node and the other node takes the two GPUs.
  const replay_metrics packed = replay(fleet, items, pods, dynamic_pack_best);
  CHECK(packed.pods_rejected == 0);
  CHECK(packed.peak_gpus_in_use == 3);
}

TEST_CASE("best-fit keeps the room first-fit strands", "[replay]") {
  const gpu_model& a100 = model("a100-40gb");
  const replay_fleet fleet = one_model(a100, 1, 1);
  const std::vector<replay_item> items{item_on(a100, "1g.10gb"), item_on(a100, "4g.20gb")};
  // First-fit puts the 1g.10gb at unit 0, the only start of 4g.20gb; best-fit
  // puts it where the 4g.20gb stays reachable.
  const std::vector<replay_pod> pods{{0, 10, 0}, {1, 10, 1}};
  const replay_metrics first = replay(fleet, items, pods, dynamic_spread_first);
  const replay_metrics best =
      replay(fleet, items, pods, {replay_mode::dynamic, node_choice::spread, gpu_choice::best_fit});
  CHECK(first.pods_rejected == 1);
  CHECK(best.pods_rejected == 0);
  CHECK(best == oracle::replay(fleet, items, pods,
                               {replay_mode::dynamic, node_choice::spread, gpu_choice::best_fit}));
}

TEST_CASE("best-fit fills a partly used GPU before it opens an empty one", "[replay]") {
  // On an empty h100-80gb a 1g.20gb at start 6 loses 2 units but 1 compute
  // slice (unit 7 has none); on a GPU holding one at 6, every start loses 2
  // slices. Comparing losses first put the second 1g.20gb on the empty GPU,
  // and the whole GPU that came next found none.
  const gpu_model& h100 = model("h100-80gb");
  const replay_fleet fleet = one_model(h100, 1, 2);
  const std::vector<replay_item> items{item_on(h100, "1g.20gb", 2), item_on(h100, "7g.80gb")};
  const std::vector<replay_pod> pods{{0, 10, 0}, {1, 10, 1}};
  for (const node_choice nodes : {node_choice::spread, node_choice::pack}) {
    const replay_policy best{replay_mode::dynamic, nodes, gpu_choice::best_fit};
    const replay_metrics m = replay(fleet, items, pods, best);
    CHECK(m.pods_rejected == 0);
    CHECK(m.peak_gpus_in_use == 2);
    CHECK(m == oracle::replay(fleet, items, pods, best));
    // One instance at a time: a 1g.20gb goes to the GPU holding one at 6.
    layout g0;
    g0.add({index_of(h100, "1g.20gb"), 6});
    const std::vector<layout> held{layout{}, g0};
    replay_tables tables;
    const place_ranking next = rank_placements(fleet, item_on(h100, "1g.20gb"), held, best, tables);
    REQUIRE_FALSE(next.options.empty());
    CHECK(next.options.front().gpu == 1);
    CHECK(oracle::place(fleet, item_on(h100, "1g.20gb"), held, best).first == 1);
  }
}

TEST_CASE("a static GPU serves only the instances of its geometry", "[replay]") {
  const gpu_model& a100 = model("a100-40gb");
  const replay_fleet fleet = one_model(a100, 1, 1);
  layout geo;
  geo.add({index_of(a100, "4g.20gb"), 0});
  geo.add({index_of(a100, "2g.10gb"), 4});
  geo.add({index_of(a100, "1g.5gb"), 6});
  const std::vector<layout> geometry{geo};
  const std::vector<replay_item> items{item_on(a100, "1g.5gb"), item_on(a100, "3g.20gb")};
  const std::vector<replay_pod> pods{{0, 10, 0}, {0, 10, 0}, {0, 10, 1}};
  const replay_metrics m = replay(fleet, items, pods, static_spread, geometry);
  CHECK(m.pods_accepted == 1);
  CHECK(m.pods_rejected == 2);
  CHECK(m.creations == 0);
  // The geometry uses all seven compute slices: none is stranded.
  CHECK(m.stranded_slice_time == 0);
}

namespace {

// A random valid geometry of `gpu`: placements added in random order while they fit.
layout random_geometry(const gpu_model& gpu, std::mt19937& rng) {
  const rules r(gpu);
  std::vector<instance> places = all_placements(gpu);
  std::shuffle(places.begin(), places.end(), rng);
  layout l;
  usage u;
  const std::size_t keep = std::uniform_int_distribution<std::size_t>(0, places.size())(rng);
  for (std::size_t i = 0; i < keep; ++i) {
    if (!r.can_add(u, places[i].profile, places[i].start)) continue;
    u.add(gpu.profiles[static_cast<std::size_t>(places[i].profile)], places[i].profile,
          places[i].start);
    l.add(places[i]);
  }
  return l;
}

// 1 to 3 nodes of 1 to 3 GPUs, each node of a random model of `models`.
// A random fleet of 1 to 3 nodes of `least` to `most` GPUs each.
replay_fleet random_fleet(const std::vector<const gpu_model*>& models, std::mt19937& rng,
                          int least = 1, int most = 3) {
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  replay_fleet fleet{models, {}};
  const int nodes = pick(1, 3);
  for (int n = 0; n < nodes; ++n)
    fleet.nodes.push_back({pick(0, static_cast<int>(models.size()) - 1), pick(least, most)});
  return fleet;
}

// A random valid layout per GPU of `fleet`, in GPU order.
std::vector<layout> random_layouts(const replay_fleet& fleet, std::mt19937& rng) {
  std::vector<layout> out;
  for (const replay_node& node : fleet.nodes)
    for (int g = 0; g < node.gpus; ++g)
      out.push_back(random_geometry(*fleet.models[static_cast<std::size_t>(node.model)], rng));
  return out;
}

// A random trace on a random fleet, with a random geometry per GPU.
struct random_trace {
  replay_fleet fleet;
  std::vector<replay_item> items;
  std::vector<replay_pod> pods;
  std::vector<layout> geometry;
};

random_trace draw_trace(const std::vector<const gpu_model*>& models, std::mt19937& rng,
                        int least_gpus = 1, int most_gpus = 3) {
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const replay_fleet fleet = random_fleet(models, rng, least_gpus, most_gpus);
  std::vector<replay_item> items;
  const int kinds = pick(1, 5);
  for (int k = 0; k < kinds; ++k) {
    replay_item it;
    const bool whole = pick(0, 5) == 0;
    for (const gpu_model* m : models) {
      const int full = full_profile(*m);
      if (whole)
        it.profile.push_back(full);
      else
        it.profile.push_back(pick(0, 6) == 0 ? -1
                                             : pick(0, static_cast<int>(m->profiles.size()) - 1));
    }
    it.count = whole ? pick(1, 3) : (pick(0, 6) == 0 ? 2 : 1);
    items.push_back(it);
  }
  std::vector<replay_pod> pods;
  const int n_pods = pick(5, 30);
  for (int i = 0; i < n_pods; ++i) {
    const int start = pick(0, 40);
    const int len = pick(0, 6) == 0 ? 0 : pick(1, 25);
    pods.push_back({start, start + len, pick(0, kinds - 1)});
  }
  std::vector<layout> geometry = random_layouts(fleet, rng);
  return {fleet, std::move(items), std::move(pods), std::move(geometry)};
}

// The policies replay() knows, under `pending`.
std::vector<replay_policy> every_policy(pending_rule pending) {
  std::vector<replay_policy> out{
      static_spread,
      replay_policy{replay_mode::static_geometry, node_choice::pack, gpu_choice::first_fit},
      dynamic_spread_first,
      dynamic_pack_best,
      replay_policy{replay_mode::dynamic, node_choice::spread, gpu_choice::best_fit},
      replay_policy{replay_mode::dynamic, node_choice::pack, gpu_choice::first_fit},
      dra_first_fit,
      hami};
  for (replay_policy& p : out) p.pending = pending;
  return out;
}

void compare_on_random_traces(const std::vector<const gpu_model*>& models, int traces,
                              std::uint32_t seed, int least_gpus = 1, int most_gpus = 3) {
  std::mt19937 rng(seed);
  replay_tables dynamic_tables;  // shared across traces, as sizing shares them
  for (int t = 0; t < traces; ++t) {
    const auto [fleet, items, pods, geometry] = draw_trace(models, rng, least_gpus, most_gpus);
    for (const replay_policy& policy : every_policy(pending_rule::reject)) {
      replay_tables static_tables;
      const replay_metrics fast =
          replay(fleet, items, pods, policy, geometry,
                 policy.mode == replay_mode::dynamic ? dynamic_tables : static_tables);
      const replay_metrics slow = oracle::replay(fleet, items, pods, policy, geometry);
      INFO("trace " << t << " seed " << seed << " mode " << static_cast<int>(policy.mode)
                    << " nodes " << static_cast<int>(policy.nodes) << " placement "
                    << static_cast<int>(policy.placement));
      INFO("engine " << describe(fast));
      INFO("brute  " << describe(slow));
      REQUIRE(fast == slow);
      require_model_sums(fast, models.size());
    }
  }
}

}  // namespace

TEST_CASE("the replay engine agrees with a brute force replay on A100 traces",
          "[replay][brute force][exhaustive]") {
  compare_on_random_traces({&model("a100-40gb")}, 1200, 21);
}

TEST_CASE("the replay engine agrees with a brute force replay on H100 and A30 fleets",
          "[replay][brute force][exhaustive]") {
  compare_on_random_traces({&model("h100-80gb"), &model("a30")}, 800, 2121);
}

// Nodes of 11 to 13 GPUs, where name order ("gpu-10" before "gpu-2") and
// index order part.
TEST_CASE("the replay engine agrees with a brute force replay on nodes of over ten GPUs",
          "[replay][brute force][dra][exhaustive]") {
  compare_on_random_traces({&model("a100-40gb"), &model("h100-80gb")}, 150, 1011, 11, 13);
}

// Three models, where a pod's item may be served on one, two or all three,
// each with its own profile index: the per-model figures too.
TEST_CASE("the replay engine agrees with a brute force replay on fleets of three models",
          "[replay][brute force][models][exhaustive]") {
  compare_on_random_traces({&model("a100-40gb"), &model("h100-80gb"), &model("a30")}, 400, 3303);
}

namespace {

// Hears each start of a replay: (pod, arrival, time), in the order they come.
struct start_log {
  std::vector<std::tuple<std::uint32_t, std::int64_t, std::int64_t>> starts;
  void begin(std::int64_t, std::int64_t) noexcept {}
  void step(std::int64_t, int, int) noexcept {}
  void reject(std::int64_t) noexcept {}
  void started(std::uint32_t pod, std::int64_t arrival, std::int64_t time) {
    starts.emplace_back(pod, arrival, time);
  }
  void finish() noexcept {}
};

std::string describe_queue(const replay_metrics& m) {
  std::ostringstream o;
  o << describe(m) << " pending " << m.pods_pending << " queue peak " << m.queue_peak
    << " queue time " << m.queue_time << " waits " << m.waits.p50 << "/" << m.waits.p95 << "/"
    << m.waits.p99 << "/" << m.waits.max;
  return o.str();
}

// Every policy under a queue, with and without backfill, against the brute
// force, and the queue's invariants on the engine's own starts.
void compare_queued_on_random_traces(const std::vector<const gpu_model*>& models, int traces,
                                     std::uint32_t seed, int least_gpus = 1, int most_gpus = 3) {
  std::mt19937 rng(seed);
  replay_tables dynamic_tables;
  int past_end = 0;  // the traces must exercise runs that end past the trace's end
  for (int t = 0; t < traces; ++t) {
    const auto [fleet, items, pods, geometry] = draw_trace(models, rng, least_gpus, most_gpus);
    for (const pending_rule pending : {pending_rule::fifo, pending_rule::backfill}) {
      for (const replay_policy& policy : every_policy(pending)) {
        replay_tables static_tables;
        start_log log;
        const replay_metrics fast =
            replay(fleet, items, pods, policy, geometry,
                   policy.mode == replay_mode::dynamic ? dynamic_tables : static_tables, log);
        const replay_metrics slow = oracle::replay(fleet, items, pods, policy, geometry);
        INFO("trace " << t << " seed " << seed << " mode " << static_cast<int>(policy.mode)
                      << " nodes " << static_cast<int>(policy.nodes) << " placement "
                      << static_cast<int>(policy.placement) << " pending "
                      << static_cast<int>(pending));
        INFO("engine " << describe_queue(fast));
        INFO("brute  " << describe_queue(slow));
        REQUIRE(fast == slow);
        require_model_sums(fast, models.size());
        past_end += fast.makespan > fast.end - fast.start ? 1 : 0;
        // Nothing lost: every pod started, pending or refused, each once.
        REQUIRE(fast.pods_accepted + fast.pods_pending + fast.pods_rejected ==
                static_cast<std::int64_t>(pods.size()));
        REQUIRE(log.starts.size() == static_cast<std::size_t>(fast.pods_accepted));
        std::set<std::uint32_t> seen;
        for (const auto& [pod, arrival, time] : log.starts) {
          REQUIRE(seen.insert(pod).second);
          REQUIRE(arrival == pods[pod].start);
          REQUIRE(time >= arrival);  // no pod starts before it arrives
          REQUIRE(time <= fast.end);
        }
        // Without backfill pods start in the order they arrived (time, then pod).
        if (pending == pending_rule::fifo)
          for (std::size_t k = 1; k < log.starts.size(); ++k) {
            const auto& [pa, aa, ta] = log.starts[k - 1];
            const auto& [pb, ab, tb] = log.starts[k];
            REQUIRE(std::pair(aa, pa) < std::pair(ab, pb));
          }
      }
    }
  }
  CHECK(past_end > traces / 10);
}

const replay_policy fifo_spread_first{replay_mode::dynamic, node_choice::spread,
                                      gpu_choice::first_fit, pending_rule::fifo};

}  // namespace

TEST_CASE("a queued replay agrees with a brute force queue on A100 traces",
          "[replay][queue][brute force][exhaustive]") {
  compare_queued_on_random_traces({&model("a100-40gb")}, 500, 39);
}

TEST_CASE("a queued replay agrees with a brute force queue on H100 and A30 fleets",
          "[replay][queue][brute force][exhaustive]") {
  compare_queued_on_random_traces({&model("h100-80gb"), &model("a30")}, 300, 3939);
}

TEST_CASE("a queued replay agrees with a brute force queue on nodes of over ten GPUs",
          "[replay][queue][brute force][dra][exhaustive]") {
  compare_queued_on_random_traces({&model("a100-40gb"), &model("h100-80gb")}, 80, 1110, 11, 13);
}

TEST_CASE("a queued replay agrees with a brute force queue on fleets of three models",
          "[replay][queue][brute force][models][exhaustive]") {
  compare_queued_on_random_traces({&model("a100-40gb"), &model("h100-80gb"), &model("a30")}, 200,
                                  3939);
}

namespace {

std::string describe_lifecycle(const replay_metrics& m) {
  std::ostringstream o;
  o << describe_queue(m) << " reuses " << m.reuses << " reclaims " << m.reclaims << " idle time "
    << m.idle_instance_time << " create time " << m.create_time;
  return o.str();
}

// Every dynamic policy, under every pending rule, with instances that cost
// time to create and live on idle, against the brute force; and the
// lifecycle's own invariants.
void compare_lifecycle_on_random_traces(const std::vector<const gpu_model*>& models, int traces,
                                        std::uint32_t seed) {
  std::mt19937 rng(seed);
  replay_tables tables;
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::int64_t reuses = 0;
  std::int64_t reclaims = 0;
  std::int64_t delayed = 0;
  for (int t = 0; t < traces; ++t) {
    const auto [fleet, items, pods, geometry] = draw_trace(models, rng);
    const std::int64_t create =
        std::array<std::int64_t, 4>{0, 400, 1500, 3000}[static_cast<std::size_t>(pick(0, 3))];
    const std::int64_t ttl =
        std::array<std::int64_t, 4>{-1, 0, 4, 30}[static_cast<std::size_t>(pick(0, 3))];
    for (const pending_rule pending :
         {pending_rule::reject, pending_rule::fifo, pending_rule::backfill}) {
      for (replay_policy policy : every_policy(pending)) {
        if (policy.mode != replay_mode::dynamic) continue;
        policy.create_milli = create;
        policy.keep_idle = ttl;
        start_log log;
        const replay_metrics fast = replay(fleet, items, pods, policy, geometry, tables, log);
        const replay_metrics slow = oracle::replay(fleet, items, pods, policy, geometry);
        INFO("trace " << t << " seed " << seed << " create " << create << " keep " << ttl
                      << " nodes " << static_cast<int>(policy.nodes) << " placement "
                      << static_cast<int>(policy.placement) << " pending "
                      << static_cast<int>(pending));
        INFO("engine " << describe_lifecycle(fast));
        INFO("brute  " << describe_lifecycle(slow));
        REQUIRE(fast == slow);
        require_model_sums(fast, models.size());
        REQUIRE(fast.pods_accepted + fast.pods_pending + fast.pods_rejected ==
                static_cast<std::int64_t>(pods.size()));
        // Every instance a pod took was created or reused, and no more were
        // destroyed than created.
        REQUIRE(fast.creations + fast.reuses == fast.instances_accepted);
        REQUIRE(fast.destructions <= fast.creations);
        REQUIRE(fast.reclaims <= fast.destructions);
        if (ttl < 0) REQUIRE((fast.reuses == 0 && fast.idle_instance_time == 0));
        // No pod runs before its instances are created.
        REQUIRE(fast.create_time >= (create > 0 ? (fast.creations > 0 ? 1 : 0) : 0));
        for (const auto& [pod, arrival, time] : log.starts) REQUIRE(time >= arrival);
        reuses += fast.reuses;
        reclaims += fast.reclaims;
        delayed += fast.create_time;
      }
    }
  }
  // The traces exercise reuse, reclaiming and creation delays.
  CHECK(reuses > 0);
  CHECK(reclaims > 0);
  CHECK(delayed > 0);
}

}  // namespace

TEST_CASE("instances with a creation cost and an idle life agree with a brute force on A100s",
          "[replay][lifecycle][brute force][exhaustive]") {
  compare_lifecycle_on_random_traces({&model("a100-40gb")}, 400, 77);
}

TEST_CASE("instances with a creation cost and an idle life agree with a brute force on H100+A30",
          "[replay][lifecycle][brute force][exhaustive]") {
  compare_lifecycle_on_random_traces({&model("h100-80gb"), &model("a30")}, 250, 7777);
}

TEST_CASE("keeping idle instances for no time is not keeping them", "[replay][lifecycle]") {
  std::mt19937 rng(5);
  replay_tables tables;
  for (int t = 0; t < 200; ++t) {
    const auto [fleet, items, pods, geometry] = draw_trace({&model("a100-40gb")}, rng);
    for (const pending_rule pending : {pending_rule::reject, pending_rule::fifo}) {
      for (replay_policy policy : every_policy(pending)) {
        if (policy.mode != replay_mode::dynamic) continue;
        const replay_metrics gone = replay(fleet, items, pods, policy, geometry, tables);
        policy.keep_idle = 0;
        const replay_metrics kept = replay(fleet, items, pods, policy, geometry, tables);
        INFO("trace " << t);
        REQUIRE(kept == gone);
      }
    }
  }
}

TEST_CASE("a pod waits for its instances to be created, rounded up to the time unit",
          "[replay][lifecycle]") {
  const gpu_model& a100 = model("a100-40gb");
  const replay_fleet fleet = one_model(a100, 1, 1);
  const std::vector<replay_item> items{item_on(a100, "1g.5gb"), item_on(a100, "1g.5gb", 3)};
  // Two 1g pods, then a pod of three: at 1.5 units an instance, the first
  // runs from 2 (ceil 1.5), the pod of three from 10 + ceil(4.5) = 15.
  const std::vector<replay_pod> pods{{0, 10, 0}, {10, 20, 1}};
  replay_policy policy = fifo_spread_first;
  policy.create_milli = 1500;
  const replay_metrics m = replay(fleet, items, pods, policy);
  CHECK(m.create_time == 2 + 5);
  CHECK(m.waits.max == 5);
  CHECK(m.waits.p50 == 2);
  CHECK(m.makespan == 25);  // 15 + its 10
  CHECK(m.instance_time == 10 + 30);
  CHECK(m == oracle::replay(fleet, items, pods, policy));
}

TEST_CASE("an idle instance is reused by its profile and reclaimed by another",
          "[replay][lifecycle]") {
  const gpu_model& a100 = model("a100-40gb");
  const replay_fleet fleet = one_model(a100, 1, 1);
  const std::vector<replay_item> items{item_on(a100, "3g.20gb"), item_on(a100, "7g.40gb")};
  // A 3g pod runs 1..11 (a unit to create); a 3g pod at 12 reuses its
  // instance (no creation) and leaves at 20; the whole-GPU pod at 25 finds
  // the idle 3g in its way and reclaims it. Kept for 3, the idle 3g of 20
  // is gone at 23 and the whole GPU is created on an empty GPU.
  const std::vector<replay_pod> pods{{0, 10, 0}, {12, 20, 0}, {25, 30, 1}};
  replay_policy policy = dynamic_spread_first;
  policy.create_milli = 1000;
  policy.keep_idle = 100;
  const replay_metrics m = replay(fleet, items, pods, policy);
  CHECK(m.pods_accepted == 3);
  CHECK(m.reuses == 1);
  CHECK(m.creations == 2);
  CHECK(m.reclaims == 1);
  CHECK(m.create_time == 1 + 1);         // the reused pod runs at once
  CHECK(m.idle_instance_time == 1 + 5);  // idle 11..12 (the first ran 1..11) and 20..25
  CHECK(m == oracle::replay(fleet, items, pods, policy));
  policy.keep_idle = 3;
  const replay_metrics short_keep = replay(fleet, items, pods, policy);
  CHECK(short_keep.reuses == 1);    // 12 is within 3 of 11
  CHECK(short_keep.reclaims == 0);  // 20 + 3 = 23, before 25
  CHECK(short_keep.destructions == 1);
  CHECK(short_keep == oracle::replay(fleet, items, pods, policy));
}

TEST_CASE("dra first fit takes GPUs in name order: gpu-10 before gpu-2", "[replay][dra]") {
  CHECK(dra_name_less(1, 10));
  CHECK(dra_name_less(10, 2));
  CHECK(dra_name_less(19, 2));
  CHECK_FALSE(dra_name_less(2, 10));
  CHECK_FALSE(dra_name_less(3, 3));
  // Twelve A100s on one node, whole-GPU pods: they fill GPUs 0, 1, 10, 11, 2, ...
  const gpu_model& gpu = model("a100-40gb");
  const replay_fleet fleet = one_model(gpu, 1, 12);
  const replay_item whole = item_on(gpu, "7g.40gb");
  std::vector<layout> held(12);
  layout full;
  full.add({index_of(gpu, "7g.40gb"), 0});
  std::vector<int> order;
  replay_tables tables;
  for (int k = 0; k < 12; ++k) {
    const place_ranking r = rank_placements(fleet, whole, held, dra_first_fit, tables);
    REQUIRE_FALSE(r.options.empty());
    order.push_back(r.options.front().gpu);
    held[static_cast<std::size_t>(r.options.front().gpu)] = full;
  }
  CHECK(order == std::vector<int>{0, 1, 10, 11, 2, 3, 4, 5, 6, 7, 8, 9});
}

TEST_CASE("dra first fit gives nodes no score: the lowest node that fits", "[replay][dra]") {
  // Two nodes of two A100s; spread would put the second pod on node 1.
  const gpu_model& gpu = model("a100-40gb");
  const replay_fleet fleet = one_model(gpu, 2, 2);
  const std::vector<replay_item> items{item_on(gpu, "1g.5gb")};
  const std::vector<replay_pod> pods{{0, 10, 0}, {1, 10, 0}};
  replay_tables tables;
  const replay_metrics m = replay(fleet, items, pods, dra_first_fit, {}, tables);
  CHECK(m.peak_gpus_in_use == 1);  // both on GPU 0 of node 0
  const replay_metrics spread = replay(fleet, items, pods, dynamic_spread_first, {}, tables);
  CHECK(spread.peak_gpus_in_use == 2);
}

TEST_CASE("a pod that does not fit waits for a departure and starts then", "[replay][queue]") {
  const gpu_model& a100 = model("a100-40gb");
  const replay_fleet fleet = one_model(a100, 1, 1);
  const std::vector<replay_item> items{item_on(a100, "7g.40gb")};
  // The second whole GPU arrives at 5, starts at 10 when the first leaves,
  // and runs its 10 past the trace's end (15).
  const std::vector<replay_pod> pods{{0, 10, 0}, {5, 15, 0}};
  const replay_metrics m = replay(fleet, items, pods, fifo_spread_first);
  CHECK(m.pods_accepted == 2);
  CHECK(m.pods_rejected == 0);
  CHECK(m.pods_pending == 0);
  CHECK(m.end == 15);
  CHECK(m.queue_peak == 1);
  CHECK(m.queue_time == 5);
  CHECK(m.waits == replay_waits{0, 5, 5, 5});
  CHECK(m.gpu_time == 15);
  CHECK(m.destructions == 1);  // the second is still running at the end
  // Its run ends at 20, past the trace's end: the makespan counts to it.
  CHECK(m.makespan == 20);
  CHECK(replay_rates_of(m, 1).acceptance == 1.0);
  CHECK(replay_rates_of(m, 1).mean_queue == Approx(5.0 / 15.0));
  CHECK(m == oracle::replay(fleet, items, pods, fifo_spread_first));
  // Rejecting, the same trace loses the second pod.
  CHECK(replay(fleet, items, pods, dynamic_spread_first).pods_rejected == 1);
}

TEST_CASE("at one time the queue retries after the departures, before the arrivals",
          "[replay][queue]") {
  const gpu_model& a100 = model("a100-40gb");
  const replay_fleet fleet = one_model(a100, 1, 1);
  const std::vector<replay_item> items{item_on(a100, "7g.40gb")};
  // Pod 1 waits from 2; at 10 pod 0 leaves and pod 2 arrives: pod 1 starts.
  const std::vector<replay_pod> pods{{0, 10, 0}, {2, 20, 0}, {10, 12, 0}};
  start_log log;
  replay_tables tables;
  const replay_metrics m = replay(fleet, items, pods, fifo_spread_first, {}, tables, log);
  REQUIRE(log.starts.size() == 2);
  CHECK(std::get<0>(log.starts[1]) == 1);
  CHECK(std::get<2>(log.starts[1]) == 10);
  CHECK(m.pods_pending == 1);
  // Waits: 0 and 8 started, 10 - 10 = 0 pending at the end (the trace ends at 20).
  CHECK(m.end == 20);
  CHECK(m.waits.max == 10);
}

TEST_CASE("backfill starts a later pod that fits while the head waits", "[replay][queue]") {
  const gpu_model& a100 = model("a100-40gb");
  const replay_fleet fleet = one_model(a100, 1, 1);
  const std::vector<replay_item> items{item_on(a100, "4g.20gb"), item_on(a100, "7g.40gb"),
                                       item_on(a100, "1g.5gb")};
  const std::vector<replay_pod> pods{{0, 10, 0}, {1, 11, 1}, {2, 5, 2}};
  const replay_metrics fifo = replay(fleet, items, pods, fifo_spread_first);
  replay_policy backfill = fifo_spread_first;
  backfill.pending = pending_rule::backfill;
  const replay_metrics filled = replay(fleet, items, pods, backfill);
  // FIFO: the 1g waits behind the whole GPU, which starts at 10; the 1g
  // then waits for it (until 20, past the end at 11).
  CHECK(fifo.pods_accepted == 2);
  CHECK(fifo.pods_pending == 1);
  // Backfill: the 1g runs at once, from 2 to 5.
  CHECK(filled.pods_accepted == 3);
  CHECK(filled.pods_pending == 0);
  CHECK(filled.waits.max == 9);
}

TEST_CASE("a pod the empty fleet cannot hold is refused, never queued", "[replay][queue]") {
  const gpu_model& a100 = model("a100-40gb");
  const replay_fleet fleet = one_model(a100, 2, 1);  // two nodes of one GPU
  const std::vector<replay_item> items{item_on(a100, "7g.40gb", 2), item_on(a100, "7g.40gb")};
  const std::vector<replay_pod> pods{{0, 10, 1}, {1, 5, 0}, {2, 6, 1}};
  for (const pending_rule pending : {pending_rule::fifo, pending_rule::backfill}) {
    replay_policy policy = fifo_spread_first;
    policy.pending = pending;
    const replay_metrics m = replay(fleet, items, pods, policy);
    CHECK(m.pods_rejected == 1);
    CHECK(m.instances_rejected == 2);
    CHECK(m.first_rejection == 1);
    CHECK(m.pods_accepted == 2);
    CHECK(m.pods_pending == 0);
    CHECK(m.queue_peak == 0);
  }
}

TEST_CASE("nearest rank takes the ceil(p n / 100)-th smallest value", "[replay][queue]") {
  std::vector<std::int64_t> ten{10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  CHECK(nearest_rank(ten, 50) == 5);
  CHECK(nearest_rank(ten, 95) == 10);
  CHECK(nearest_rank(ten, 10) == 1);
  CHECK(nearest_rank(ten, 11) == 2);
  CHECK(nearest_rank(ten, 100) == 10);
  std::vector<std::int64_t> none;
  CHECK(nearest_rank(none, 99) == 0);
  std::vector<std::int64_t> hundred(100);
  for (std::size_t i = 0; i < hundred.size(); ++i) hundred[i] = static_cast<std::int64_t>(i + 1);
  CHECK(replay_waits_of(hundred) == replay_waits{50, 95, 99, 100});
}

TEST_CASE("concurrent peaks count a profile's instances running at once", "[replay]") {
  const gpu_model& a100 = model("a100-40gb");
  const std::vector<replay_item> items{item_on(a100, "1g.5gb"), item_on(a100, "1g.5gb", 2),
                                       item_on(a100, "3g.20gb")};
  // 1g: [0,10) x1, [5,15) x2, [10,20) x1 (the first has left: departures first),
  // a 3g of no duration still counts once.
  const std::vector<replay_pod> pods{{0, 10, 0}, {5, 15, 1}, {10, 20, 0}, {7, 7, 2}};
  const std::vector<std::int64_t> peaks = concurrent_peaks(items, pods, 0, a100.profiles.size());
  CHECK(peaks[static_cast<std::size_t>(index_of(a100, "1g.5gb"))] == 3);
  CHECK(peaks[static_cast<std::size_t>(index_of(a100, "3g.20gb"))] == 1);
  CHECK(peaks[static_cast<std::size_t>(index_of(a100, "7g.40gb"))] == 0);
}

TEST_CASE("a pod of no duration adds to the instances running when it arrives", "[replay]") {
  const gpu_model& h100 = model("h100-80gb");
  const std::vector<replay_item> items{item_on(h100, "1g.10gb", 7), item_on(h100, "1g.10gb")};
  const auto p = static_cast<std::size_t>(index_of(h100, "1g.10gb"));
  // After the seven at time 0 it meets them: eight at once, two GPUs' worth.
  const std::vector<replay_pod> after{{0, 10, 0}, {0, 0, 1}};
  CHECK(concurrent_peaks(items, after, 0, h100.profiles.size())[p] == 8);
  // Before them in pod order it has left when they arrive, as replay() orders it.
  const std::vector<replay_pod> before{{0, 0, 1}, {0, 10, 0}};
  CHECK(concurrent_peaks(items, before, 0, h100.profiles.size())[p] == 7);
  // And so does a one-GPU replay: the eighth is rejected only in the first order.
  const replay_fleet one = one_model(h100, 1, 1);
  CHECK(replay(one, items, after, dynamic_spread_first).pods_rejected == 1);
  CHECK(replay(one, items, before, dynamic_spread_first).pods_rejected == 0);
}

TEST_CASE("concurrent peaks equal a count of the pods present at each arrival",
          "[replay][brute force]") {
  const gpu_model& a100 = model("a100-40gb");
  std::mt19937 rng(3838);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int t = 0; t < 300; ++t) {
    std::vector<replay_item> items;
    for (int k = 0; k < 3; ++k)
      items.push_back({{pick(0, 5) == 0 ? -1 : pick(0, static_cast<int>(a100.profiles.size()) - 1)},
                       pick(1, 3)});
    std::vector<replay_pod> pods;
    for (int i = pick(1, 25); i > 0; --i) {
      const int start = pick(0, 12);
      pods.push_back({start, start + (pick(0, 3) == 0 ? -pick(0, 2) : pick(1, 6)), pick(0, 2)});
    }
    // Present when pod i arrives: pods arrived before it (earlier, or at its
    // time earlier in the list) that have not left (left: ended by then, or of
    // no duration), and pod i itself.
    std::vector<std::int64_t> expected(a100.profiles.size(), 0);
    for (std::size_t i = 0; i < pods.size(); ++i) {
      const int p = items[static_cast<std::size_t>(pods[i].item)].profile[0];
      if (p < 0) continue;
      std::int64_t n = 0;
      for (std::size_t j = 0; j < pods.size(); ++j) {
        const replay_item& it = items[static_cast<std::size_t>(pods[j].item)];
        if (it.profile[0] != p) continue;
        const bool arrived =
            pods[j].start < pods[i].start || (pods[j].start == pods[i].start && j <= i);
        const bool left = j != i && (pods[j].end <= pods[i].start || pods[j].end <= pods[j].start);
        if (arrived && !left) n += it.count;
      }
      expected[static_cast<std::size_t>(p)] = std::max(expected[static_cast<std::size_t>(p)], n);
    }
    INFO("trace " << t);
    CHECK(concurrent_peaks(items, pods, 0, a100.profiles.size()) == expected);
  }
}

TEST_CASE("fewest_gpus returns a count that meets with one fewer that does not", "[replay]") {
  int calls = 0;
  const auto at_least = [&](int need) {
    return [&calls, need](int n) {
      ++calls;
      return n >= need;
    };
  };
  CHECK(fewest_gpus(at_least(1), 100) == 1);
  CHECK(fewest_gpus(at_least(37), 100) == 37);
  CHECK(fewest_gpus(at_least(100), 100) == 100);
  CHECK_FALSE(fewest_gpus(at_least(101), 100).has_value());
  calls = 0;
  CHECK(fewest_gpus(at_least(5000), 100000) == 5000);
  CHECK(calls < 40);  // doubling and bisection: logarithmic
  // Not monotone: meets at 3 and from 8 on; the answer still has a failing n - 1.
  const auto bumpy = [](int n) { return n == 3 || n >= 8; };
  const std::optional<int> n = fewest_gpus(bumpy, 64);
  REQUIRE(n.has_value());
  CHECK(bumpy(*n));
  CHECK_FALSE(bumpy(*n - 1));
}

namespace {

const replay_policy dynamic_policies[] = {
    {replay_mode::dynamic, node_choice::spread, gpu_choice::first_fit},
    {replay_mode::dynamic, node_choice::spread, gpu_choice::best_fit},
    {replay_mode::dynamic, node_choice::pack, gpu_choice::first_fit},
    {replay_mode::dynamic, node_choice::pack, gpu_choice::best_fit},
    {replay_mode::dynamic, node_choice::pack, gpu_choice::hami}};

// Random fleets holding random layouts, one random instance arriving: the
// ranking's first place is the brute force's, every place it lists is one
// the brute force's GPU can take, and it lists every such place.
void compare_placements(const std::vector<const gpu_model*>& models, int states,
                        std::uint32_t seed) {
  std::mt19937 rng(seed);
  replay_tables tables;
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int placed = 0;
  for (int t = 0; t < states; ++t) {
    const replay_fleet fleet = random_fleet(models, rng);
    const std::vector<layout> held = random_layouts(fleet, rng);
    replay_item item;
    for (const gpu_model* m : models)
      item.profile.push_back(pick(0, 8) == 0 ? -1
                                             : pick(0, static_cast<int>(m->profiles.size()) - 1));
    for (const replay_policy& policy : dynamic_policies) {
      const place_ranking r = rank_placements(fleet, item, held, policy, tables);
      const auto [g, s] = oracle::place(fleet, item, held, policy);
      INFO("state " << t << " seed " << seed << " nodes " << static_cast<int>(policy.nodes)
                    << " placement " << static_cast<int>(policy.placement));
      REQUIRE(r.rooms.size() == held.size());
      if (g < 0) {
        REQUIRE(r.options.empty());
        continue;
      }
      ++placed;
      REQUIRE_FALSE(r.options.empty());
      CHECK(r.options.front().gpu == g);
      CHECK(r.options.front().where.start == s);
      // Every free start of the profile on every GPU, each once.
      std::size_t expected = 0;
      for (std::size_t k = 0; k < held.size(); ++k) {
        int node = 0;
        for (int first = 0;
             first + fleet.nodes[static_cast<std::size_t>(node)].gpus <= static_cast<int>(k);
             ++node)
          first += fleet.nodes[static_cast<std::size_t>(node)].gpus;
        const gpu_model& gpu =
            *models[static_cast<std::size_t>(fleet.nodes[static_cast<std::size_t>(node)].model)];
        const int p = item.profile[static_cast<std::size_t>(
            fleet.nodes[static_cast<std::size_t>(node)].model)];
        if (p < 0) continue;
        const rules rl(gpu);
        usage u;
        for (const instance& in : held[k])
          u.add(gpu.profiles[static_cast<std::size_t>(in.profile)], in.profile, in.start);
        for (int st = 0; st < gpu.units; ++st)
          if (rl.can_add(u, p, st)) ++expected;
      }
      CHECK(r.options.size() == expected);
    }
  }
  CHECK(placed > states);  // most draws place somewhere
}

}  // namespace

TEST_CASE("rank_placements' first place is the brute force's on A100 fleets",
          "[place][exhaustive]") {
  compare_placements({&model("a100-40gb")}, 600, 2026);
}

TEST_CASE("rank_placements' first place is the brute force's on H100 and A30 fleets",
          "[place][exhaustive]") {
  compare_placements({&model("h100-80gb"), &model("a30")}, 400, 1201);
}

TEST_CASE("rank_placements' first place is where a replay puts the next pod", "[place]") {
  // Two A100s on one node; a 3g.20gb there already on GPU 0 at start 4.
  const gpu_model& gpu = model("a100-40gb");
  const replay_fleet fleet = one_model(gpu, 1, 2);
  layout g0;
  g0.add({index_of(gpu, "3g.20gb"), 4});
  const std::vector<layout> held{g0, layout{}};
  const replay_item one = item_on(gpu, "3g.20gb");
  replay_tables tables;
  const place_ranking first =
      rank_placements(fleet, one, held, dynamic_policies[0], tables);  // spread first-fit
  REQUIRE(first.options.size() == 3);  // GPU 0 at 0, GPU 1 at 0 and 4
  CHECK(first.options[0].gpu == 0);
  CHECK(first.options[0].where.start == 0);
  CHECK(first.options[1].gpu == 1);
  CHECK(first.options[1].where.start == 0);
  // best-fit on one node: the places on the partly used GPU first, then by
  // the room they lose, least first.
  const place_ranking best = rank_placements(fleet, one, held, dynamic_policies[1], tables);
  REQUIRE(best.options.size() == 3);
  const auto key = [](const place_option& o) {
    return std::tuple{o.opens, o.before.reachable_units - o.after.reachable_units,
                      o.before.reachable_compute - o.after.reachable_compute};
  };
  for (std::size_t k = 1; k < best.options.size(); ++k)
    CHECK(key(best.options[k - 1]) <= key(best.options[k]));
  CHECK(best.options[0].gpu == 0);  // the partly used GPU first
  // A full fleet: nothing to rank, the rooms still told.
  layout full;
  full.add({index_of(gpu, "7g.40gb"), 0});
  const std::vector<layout> both_full{full, full};
  const place_ranking none = rank_placements(fleet, one, both_full, dynamic_policies[3], tables);
  CHECK(none.options.empty());
  REQUIRE(none.rooms.size() == 2);
  CHECK(none.rooms[0].reachable_units == 0);
}

// HAMi's score by hand on an A100-40GB (units 0-7; placements of 1g.5gb and
// 1g.5gb+me at 0-6, 1g.10gb at 0 2 4 6, 2g.10gb at 0 2 4, 3g.20gb at 0 4,
// 4g.20gb and 7g.40gb at 0). A 3g.20gb at 0 or 4 leaves a free run of 4
// either way; at 4 it leaves 14 placements free (the lower half's 4 + 4 + 2
// + 2 + 1 + 1), at 0 only 10 (the 4g.20gb and a 2g.10gb are lost): 4. A
// 2g.10gb then ties at 0 and 2 (run 2, 6 placements each): the lower, 0. A
// 1g.5gb then ties at 2 and 3 (run 1, 2 placements): 2.
TEST_CASE("hami takes the start that keeps the longest free run, then the most placements",
          "[replay][hami]") {
  const gpu_model& gpu = model("a100-40gb");
  const replay_fleet fleet = one_model(gpu, 1, 1);
  replay_tables tables;
  layout held;
  for (const auto& [name, start] : {std::pair{"3g.20gb", 4}, std::pair{"2g.10gb", 0},
                                    std::pair{"1g.5gb", 2}, std::pair{"1g.5gb", 3}}) {
    const std::vector<layout> now{held};
    const place_ranking r = rank_placements(fleet, item_on(gpu, name), now, hami, tables);
    INFO(name);
    REQUIRE_FALSE(r.options.empty());
    CHECK(r.options.front().where.start == start);
    held.add(r.options.front().where);
  }
}

TEST_CASE("hami takes the least used GPU of the node, the lowest on a tie", "[replay][hami]") {
  const gpu_model& gpu = model("a100-40gb");
  const replay_fleet fleet = one_model(gpu, 1, 3);
  layout g0;
  g0.add({index_of(gpu, "2g.10gb"), 0});
  layout g1;
  g1.add({index_of(gpu, "1g.5gb"), 0});
  replay_tables tables;
  // GPU 2 is empty: it takes the pod though GPUs 0 and 1 have room.
  const std::vector<layout> one_empty{g0, g1, layout{}};
  const place_ranking r = rank_placements(fleet, item_on(gpu, "1g.5gb"), one_empty, hami, tables);
  REQUIRE_FALSE(r.options.empty());
  CHECK(r.options.front().gpu == 2);
  // With GPU 2 as used as GPU 1, GPU 1 (the lower) takes it.
  const std::vector<layout> tied{g0, g1, g1};
  const place_ranking tie = rank_placements(fleet, item_on(gpu, "1g.5gb"), tied, hami, tables);
  REQUIRE_FALSE(tie.options.empty());
  CHECK(tie.options.front().gpu == 1);
}

namespace {

std::string describe_replan(const replay_metrics& m) {
  std::ostringstream o;
  o << describe_queue(m) << " replans " << m.replans << " reconfigurations " << m.reconfigurations
    << " evicted " << m.pods_evicted << " (" << m.pods_evicted_once << " pods) unavailable "
    << m.unavailable_time << " (" << m.unavailable_makespan_time << " in the makespan)";
  return o.str();
}

// The static policies under each pending rule, re-planned every 3 to 15
// time units with reconfigurations of 0 to 8, each re-plan changing a random
// third of the GPUs to random geometries, against the brute force given the
// same schedule; and the queue's invariants.
void compare_replanned_on_random_traces(const std::vector<const gpu_model*>& models, int traces,
                                        std::uint32_t seed) {
  std::mt19937 rng(seed);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::int64_t evicted = 0;  // the traces must exercise evictions and reconfigurations
  std::int64_t unavailable = 0;
  std::int64_t evicted_again = 0;  // pods evicted twice or more
  std::int64_t clipped = 0;        // outages the makespan cuts short
  std::int64_t raised = 0;         // re-plans whose queue raised the demand over the peaks
  std::int64_t waited = 0;         // re-plans with pods of two items or more waiting
  for (int t = 0; t < traces; ++t) {
    const random_trace tr = draw_trace(models, rng);
    const replay_fleet& fleet = tr.fleet;  // a lambda cannot capture a structured binding
    const std::vector<replay_item>& items = tr.items;
    const std::vector<replay_pod>& pods = tr.pods;
    const std::vector<layout>& geometry = tr.geometry;
    const std::int64_t period = pick(3, 15);
    const std::int64_t reconfigure = pick(0, 8);
    const auto choice_seed = static_cast<std::uint32_t>(rng());
    for (const pending_rule pending :
         {pending_rule::reject, pending_rule::fifo, pending_rule::backfill}) {
      for (const node_choice nodes : {node_choice::spread, node_choice::pack}) {
        const replay_policy policy{replay_mode::static_geometry, nodes, gpu_choice::first_fit,
                                   pending};
        std::vector<oracle::reconfiguration> schedule;
        std::int64_t calls = 0;
        replay_replan replan;
        replan.period = period;
        replan.reconfigure = reconfigure;
        replan.next_window = (t % 2) == 1;
        oracle::replan_demands seen;       // the demand each re-plan saw
        oracle::replan_queues seen_queue;  // and the items waiting
        replan.choose = [&](const replan_window& w) {
          ++calls;
          seen.push_back(w.demand);
          seen_queue.push_back(w.waiting);
          if (pending == pending_rule::reject) CHECK(w.demand == w.peaks);
          if (pending == pending_rule::reject) CHECK(w.waiting.empty());
          waited += w.waiting.size() > 1 ? 1 : 0;
          raised += w.demand == w.peaks ? 0 : 1;
          CHECK(w.to - w.from == period);
          CHECK(w.from == (replan.next_window ? w.time : w.time - period));
          std::mt19937 draw(choice_seed + static_cast<std::uint32_t>(w.time));
          std::vector<layout> next(w.geometry.begin(), w.geometry.end());
          const std::vector<layout> fresh = random_layouts(tr.fleet, draw);
          for (std::size_t g = 0; g < next.size(); ++g) {
            if (std::uniform_int_distribution<int>(0, 2)(draw) == 0) next[g] = fresh[g];
            if (!(next[g] == w.geometry[g]))
              schedule.push_back({w.time, static_cast<int>(g), next[g]});
          }
          return next;
        };
        replay_tables tables;
        start_log log;
        const replay_metrics fast =
            replay(fleet, items, pods, policy, geometry, tables, log, &replan);
        oracle::replan_demands demands;
        oracle::replan_queues queues;
        const oracle::replan_times times{period, replan.next_window};
        replay_metrics slow = oracle::replay(fleet, items, pods, policy, geometry, schedule,
                                             reconfigure, &times, &demands, &queues);
        slow.replans = calls;
        INFO("trace " << t << " seed " << seed << " nodes " << static_cast<int>(nodes)
                      << " pending " << static_cast<int>(pending) << " period " << period
                      << " reconfigure " << reconfigure << " changes " << schedule.size());
        INFO("engine " << describe_replan(fast));
        INFO("brute  " << describe_replan(slow));
        REQUIRE(fast == slow);
        require_model_sums(fast, models.size());
        // Each re-plan saw the demand the brute force finds at its time.
        REQUIRE(seen == demands);
        // And the items waiting then, the head's first.
        REQUIRE(seen_queue == queues);
        // A re-plan every period from the first time, before the last.
        REQUIRE(calls == (fast.end - fast.start - 1) / period);
        REQUIRE(fast.pods_accepted + fast.pods_pending + fast.pods_rejected ==
                static_cast<std::int64_t>(pods.size()));
        for (const auto& [pod, arrival, time] : log.starts) {
          REQUIRE(arrival == pods[pod].start);
          REQUIRE(time >= arrival);
        }
        if (pending == pending_rule::reject) REQUIRE(fast.pods_pending == 0);
        evicted += fast.pods_evicted;
        unavailable += fast.unavailable_time;
        evicted_again += fast.pods_evicted - fast.pods_evicted_once;
        clipped += fast.unavailable_makespan_time < fast.unavailable_time ? 1 : 0;
      }
    }
  }
  CHECK(evicted > traces);
  CHECK(unavailable > traces);
  CHECK(evicted_again > 0);
  CHECK(clipped > 0);
  CHECK(raised > 0);
  CHECK(waited > 0);
}

}  // namespace

TEST_CASE("a re-planned replay agrees with a brute force replay of its schedule on A100 traces",
          "[replay][replan][brute force][exhaustive]") {
  compare_replanned_on_random_traces({&model("a100-40gb")}, 300, 3906);
}

TEST_CASE("a re-planned replay agrees with a brute force replay on H100 and A30 fleets",
          "[replay][replan][brute force][exhaustive]") {
  compare_replanned_on_random_traces({&model("h100-80gb"), &model("a30")}, 200, 390639);
}

namespace {

// One A100, whole at first and changed to seven 1g.5gb at 10 by re-plans
// every 10: a whole-GPU pod runs [0, 100); 1g.5gb pods arrive at 12 and 20.
struct whole_to_sevenths {
  const gpu_model& a100 = model("a100-40gb");
  const replay_fleet fleet = one_model(a100, 1, 1);
  const std::vector<replay_item> items{item_on(a100, "7g.40gb"), item_on(a100, "1g.5gb")};
  const std::vector<replay_pod> pods{{0, 100, 0}, {12, 22, 1}, {20, 30, 1}};
  layout whole;
  layout sevenths;
  std::vector<std::vector<std::int64_t>> seen;  // the peaks each re-plan saw

  whole_to_sevenths() {
    whole.add({index_of(a100, "7g.40gb"), 0});
    for (int s = 0; s < 7; ++s) sevenths.add({index_of(a100, "1g.5gb"), s});
  }
  replay_metrics run(const replay_policy& policy, std::int64_t reconfigure) {
    replay_replan replan;
    replan.period = 10;
    replan.reconfigure = reconfigure;
    replan.choose = [&](const replan_window& w) {
      seen.push_back(w.peaks.front());
      return std::vector<layout>{w.time == 10 ? sevenths : w.geometry.front()};
    };
    replay_tables tables;
    replay_watch none;
    const std::vector<layout> geometry{whole};
    return replay(fleet, items, pods, policy, geometry, tables, none, &replan);
  }
};

}  // namespace

TEST_CASE("a re-plan evicts the pods on a changed GPU and keeps it out of service",
          "[replay][replan]") {
  whole_to_sevenths fx;
  const gpu_model& a100 = fx.a100;
  replay_policy policy = static_spread;
  policy.pending = pending_rule::backfill;  // the evicted pod at the head blocks no one
  const replay_metrics m = fx.run(policy, 4);
  const std::vector<std::vector<std::int64_t>>& seen = fx.seen;
  // Re-plans at 10, 20, ..., 90; the one at 10 changes the GPU: the whole-GPU
  // pod is evicted and waits forever (no geometry after holds it), the GPU
  // is out until 14, the first 1g.5gb pod (which the new geometry holds: it
  // waits) starts then, the second at 20.
  CHECK(m.replans == 9);
  CHECK(m.reconfigurations == 1);
  CHECK(m.pods_evicted == 1);
  CHECK(m.unavailable_time == 4);
  CHECK(m.pods_accepted == 2);
  CHECK(m.pods_pending == 1);
  CHECK(m.instance_time == 10 + 10 + 10);  // 10 of the evicted run, 10 each
  CHECK(m.waits.max == 100);               // the evicted pod, from 0 to the end
  // The rates: runs end at 10 (evicted), 24 and 30; the GPU is out [10, 14).
  CHECK(m.pods == 3);
  CHECK(m.pods_evicted_once == 1);
  CHECK(m.makespan == 30);
  CHECK(m.unavailable_makespan_time == 4);
  const replay_rates rates = replay_rates_of(m, 1);
  CHECK(rates.acceptance == Approx(2.0 / 3.0));
  CHECK(rates.evicted == Approx(1.0 / 3.0));
  CHECK(rates.reconfiguration_overhead == Approx(4.0 / 30.0));
  CHECK(rates.mean_gpus_active == Approx(static_cast<double>(m.gpu_time) / 100.0));
  // The windows: the trace's demand, whatever the replay did with it.
  REQUIRE(seen.size() == 9);
  CHECK(seen[0][static_cast<std::size_t>(index_of(a100, "7g.40gb"))] == 1);  // [0, 10)
  CHECK(seen[0][static_cast<std::size_t>(index_of(a100, "1g.5gb"))] == 0);
  CHECK(seen[1][static_cast<std::size_t>(index_of(a100, "1g.5gb"))] == 1);  // [10, 20)
  CHECK(seen[2][static_cast<std::size_t>(index_of(a100, "1g.5gb"))] == 2);  // [20, 30)
  CHECK(seen[3][static_cast<std::size_t>(index_of(a100, "1g.5gb"))] == 0);  // [30, 40)
}

TEST_CASE("a re-plan under a queue keeps room for the pods waiting, so its FIFO head drains",
          "[replay][replan]") {
  // One A100 as 4g.20gb and 3g.20gb, re-planned every 10 by a toy planner:
  // that geometry while the demand has a 3g.20gb, else the 4g.20gb alone.
  // A 4g.20gb pod runs [0, 25); another arrives at 1 and waits for it (the
  // FIFO head); a 3g.20gb pod arrives at 2 and waits behind it. Neither is
  // in the window [10, 20) of the re-plan at 20 (their trace ends are 3 and
  // 4): counting only the window's peaks drops the 3g.20gb, evicts the long
  // pod and leaves both waiting pods pending for good; counting the largest
  // waiting pod of each profile keeps the geometry, and both start at 25.
  const gpu_model& a100 = model("a100-40gb");
  const int four = index_of(a100, "4g.20gb");
  const int three = index_of(a100, "3g.20gb");
  const replay_fleet fleet = one_model(a100, 1, 1);
  const std::vector<replay_item> items{item_on(a100, "4g.20gb"), item_on(a100, "3g.20gb")};
  const std::vector<replay_pod> pods{{0, 25, 0}, {1, 3, 0}, {2, 4, 1}};
  layout mixed;
  mixed.add({four, 0});
  mixed.add({three, 4});
  layout alone;
  alone.add({four, 0});
  replay_policy policy = static_spread;
  policy.pending = pending_rule::fifo;
  const auto run = [&](bool peaks_only, std::vector<replan_window>& seen) {
    replay_replan replan;
    replan.period = 10;
    replan.choose = [&](const replan_window& w) {
      seen.push_back({w.time, w.from, w.to, w.peaks, w.pending, w.demand, {}, w.waiting});
      const std::vector<std::int64_t>& d = peaks_only ? w.peaks.front() : w.demand.front();
      return std::vector<layout>{d[static_cast<std::size_t>(three)] > 0 ? mixed : alone};
    };
    replay_tables tables;
    replay_watch none;
    const std::vector<layout> geometry{mixed};
    return replay(fleet, items, pods, policy, geometry, tables, none, &replan);
  };
  std::vector<replan_window> seen;
  const replay_metrics m = run(false, seen);
  REQUIRE(seen.size() == 2);  // at 10 and 20
  const auto at = [](const std::vector<std::vector<std::int64_t>>& v, int p) {
    return v.front()[static_cast<std::size_t>(p)];
  };
  // At 20: the window holds the long pod only; the queue a pod of each.
  CHECK(at(seen[1].peaks, four) == 1);
  CHECK(at(seen[1].peaks, three) == 0);
  CHECK(at(seen[1].pending, four) == 1);
  CHECK(at(seen[1].pending, three) == 1);
  CHECK(at(seen[1].demand, three) == 1);
  // The items waiting: the 4g.20gb pod, the head, then the 3g.20gb one.
  CHECK(seen[1].waiting == std::vector<replan_waiting>{{0, 1, 1}, {1, 1, 1}});
  CHECK(m.reconfigurations == 0);
  CHECK(m.pods_accepted == 3);
  CHECK(m.pods_pending == 0);
  CHECK(m.waits.max == 25 - 1);
  // The old rule, the window's peaks alone, strands both.
  std::vector<replan_window> old_seen;
  const replay_metrics old = run(true, old_seen);
  CHECK(old.reconfigurations == 1);
  CHECK(old.pods_evicted == 1);
  CHECK(old.pods_accepted == 1);
  CHECK(old.pods_pending == 2);
  // The brute force finds the same demand and, given the same (empty)
  // schedule, the same replay.
  oracle::replan_demands demands;
  const oracle::replan_times times{10, false};
  replay_metrics slow = oracle::replay(fleet, items, pods, policy, std::vector<layout>{mixed}, {},
                                       0, &times, &demands);
  slow.replans = m.replans;
  CHECK(slow == m);
  REQUIRE(demands.size() == 2);
  CHECK(demands[0] == seen[0].demand);
  CHECK(demands[1] == seen[1].demand);
}

TEST_CASE("an outage counts to the overhead only within the makespan", "[replay][rates]") {
  // Rejecting: the whole-GPU pod is evicted (lost) at 10, the GPU is out
  // [10, 60), and the 1g.5gb pods arriving meanwhile are rejected. The last
  // run ends at 10: the makespan is 10 and the outage lies past it.
  whole_to_sevenths fx;
  const replay_metrics m = fx.run(static_spread, 50);
  CHECK(m.pods_accepted == 1);  // evicted, lost, still counted
  CHECK(m.pods_rejected == 2);
  CHECK(m.pods_evicted_once == 1);
  CHECK(m.makespan == 10);
  CHECK(m.unavailable_time == 50);
  CHECK(m.unavailable_makespan_time == 0);
  CHECK(replay_rates_of(m, 1).reconfiguration_overhead == 0);
  CHECK(replay_rates_of(m, 1).acceptance == Approx(1.0 / 3.0));
  const std::vector<oracle::reconfiguration> schedule{{10, 0, fx.sevenths}};
  const std::vector<layout> geometry{fx.whole};
  replay_metrics slow =
      oracle::replay(fx.fleet, fx.items, fx.pods, static_spread, geometry, schedule, 50);
  slow.replans = m.replans;
  CHECK(m == slow);
}

namespace {

// Every dynamic policy, queued, with room made for the queue's head by at
// most 1 to 3 moves, against the brute force; and defragmentation's own
// invariants.
void compare_defrag_on_random_traces(const std::vector<const gpu_model*>& models, int traces,
                                     std::uint32_t seed) {
  std::mt19937 rng(seed);
  replay_tables tables;
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::int64_t moves = 0;
  std::int64_t paused = 0;
  for (int t = 0; t < traces; ++t) {
    const auto [fleet, items, pods, geometry] = draw_trace(models, rng, 1, 4);
    const int most = pick(1, 3);
    const std::int64_t create = pick(0, 1) * 1500;
    for (const pending_rule pending : {pending_rule::fifo, pending_rule::backfill}) {
      for (replay_policy policy : every_policy(pending)) {
        if (policy.mode != replay_mode::dynamic) continue;
        policy.create_milli = create;
        replay_policy plain = policy;
        policy.defrag = most;
        start_log log;
        const replay_metrics fast = replay(fleet, items, pods, policy, geometry, tables, log);
        const replay_metrics slow = oracle::replay(fleet, items, pods, policy, geometry);
        INFO("trace " << t << " seed " << seed << " defrag " << most << " create " << create
                      << " nodes " << static_cast<int>(policy.nodes) << " placement "
                      << static_cast<int>(policy.placement) << " pending "
                      << static_cast<int>(pending));
        INFO("engine " << describe_lifecycle(fast) << " moves " << fast.moves << " moved "
                       << fast.pods_moved << " starts " << fast.defrag_starts);
        INFO("brute  " << describe_lifecycle(slow) << " moves " << slow.moves << " moved "
                       << slow.pods_moved << " starts " << slow.defrag_starts);
        REQUIRE(fast == slow);
        REQUIRE(fast.pods_accepted + fast.pods_pending + fast.pods_rejected ==
                static_cast<std::int64_t>(pods.size()));
        // A move destroys and creates one instance; each start by moves took
        // at least one and at most `most`.
        REQUIRE(fast.creations == fast.instances_accepted + fast.moves);
        REQUIRE(fast.moves >= fast.defrag_starts);
        REQUIRE(fast.moves <= most * fast.defrag_starts);
        REQUIRE(fast.pods_moved <= fast.moves);
        for (const auto& [pod, arrival, time] : log.starts) REQUIRE(time >= arrival);
        if (pending == pending_rule::fifo)
          for (std::size_t k = 1; k < log.starts.size(); ++k)
            REQUIRE(std::pair(std::get<1>(log.starts[k - 1]), std::get<0>(log.starts[k - 1])) <
                    std::pair(std::get<1>(log.starts[k]), std::get<0>(log.starts[k])));
        // Without a move the replay is the plain one.
        if (fast.moves == 0) {
          replay_metrics without = replay(fleet, items, pods, plain, geometry, tables);
          REQUIRE(fast == without);
        }
        moves += fast.moves;
        if (create > 0 && fast.moves > 0) ++paused;
      }
    }
  }
  CHECK(moves > 0);
  CHECK(paused > 0);
}

}  // namespace

TEST_CASE("room made by moves for the queue's head agrees with a brute force on A100s",
          "[replay][defrag][brute force][exhaustive]") {
  compare_defrag_on_random_traces({&model("a100-40gb")}, 250, 4040);
}

TEST_CASE("room made by moves for the queue's head agrees with a brute force on H100+A30",
          "[replay][defrag][brute force][exhaustive]") {
  compare_defrag_on_random_traces({&model("h100-80gb"), &model("a30")}, 150, 404);
}

// SPDX-License-Identifier: Apache-2.0
// The replay engine (replay.hpp) on seeded generated traces: Poisson
// arrivals, heavy-tailed (Pareto) durations, a mix of MIG profiles and whole
// GPUs (one, two, four or eight per pod) on nodes of eight h100-80gb, the
// arrival rate set so the offered load is about 90 % of the fleet's compute
// slices. Each policy replays the same trace; time at N and 4N pods (and
// GPUs) shows the scaling.
//
//   replay_bench [--benchmark_filter=...]
//
// replay/POLICY/PODS/GPUS/PENDING: one replay (the tables are built once
// outside the timing, as `migplan simulate` builds them once for all its
// replays); PENDING 0 rejects (the default), 1 queues (`--queue`), 2
// backfills (`--backfill`). Counters: rejected_pct (queued: refused),
// peak (GPUs in use), pods_per_s; queued also pending, queue_peak and
// wait_p99_s.
// lifecycle/POLICY/PODS/GPUS/KEEP: queued (`--queue`), each instance taking
// 1.5 s to create (`--create-seconds`, the queue's default); KEEP 0 destroys
// an instance when its pod ends, 1 keeps it idle 600 s (`--keep-idle 10m`).
// Counters as replay's, and reuses and creations.
// defrag/POLICY/PODS/GPUS/K: queued, 1.5 s per instance, and room made for
// the queue's head by at most K instance moves (`POLICY+defrag:K`).
// Counters: moves, defrag_starts, wait_p99_s, pods_per_s.
// size/POLICY/PODS/GPUS: the fewest GPUs rejecting no pod (the trace
// generated for GPUS), by doubling and bisection over whole replays.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <migplan/catalog.hpp>
#include <migplan/replay.hpp>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace migplan;

struct trace {
  replay_fleet fleet;
  std::vector<replay_item> items;
  std::vector<replay_pod> pods;
};

// A trace of `pods` pods on `gpus` h100-80gb GPUs, nodes of eight.
trace generate(std::int64_t pods, int gpus, std::uint32_t seed) {
  const gpu_model& gpu = *find_model("h100-80gb");
  trace t;
  t.fleet.models = {&gpu};
  for (int left = gpus; left > 0; left -= 8) t.fleet.nodes.push_back({0, std::min(8, left)});
  // Profiles with their weights (sharing-heavy), then whole GPUs.
  const std::vector<std::pair<std::string, double>> mix{
      {"1g.10gb", 30}, {"1g.20gb", 10}, {"2g.20gb", 20}, {"3g.40gb", 15}, {"4g.40gb", 5}};
  std::vector<double> weights;
  for (const auto& [name, w] : mix) {
    t.items.push_back({{find_profile(gpu, name)}, 1});
    weights.push_back(w);
  }
  for (const int n : {1, 2, 4, 8}) {
    t.items.push_back({{full_profile(gpu)}, n});
    weights.push_back(n == 1 ? 12 : n == 2 ? 5 : n == 4 ? 2 : 1);
  }
  double mean_slices = 0;
  double total_w = 0;
  for (std::size_t i = 0; i < t.items.size(); ++i) {
    const profile& p = gpu.profiles[static_cast<std::size_t>(t.items[i].profile[0])];
    mean_slices += weights[i] * p.compute_slices * t.items[i].count;
    total_w += weights[i];
  }
  mean_slices /= total_w;
  // Pareto durations, shape 1.5 (heavy tail, finite mean), minimum 60 s:
  // mean = 1.5 * 60 / 0.5 = 180 s.
  const double shape = 1.5;
  const double min_s = 60;
  const double mean_duration = shape * min_s / (shape - 1);
  const double rate = 0.9 * gpus * gpu.compute_slices / (mean_slices * mean_duration);
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(rate);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::discrete_distribution<int> kind(weights.begin(), weights.end());
  double now = 0;
  t.pods.reserve(static_cast<std::size_t>(pods));
  for (std::int64_t i = 0; i < pods; ++i) {
    now += gap(rng);
    const double d = min_s / std::pow(1.0 - u(rng), 1.0 / shape);
    const auto start = static_cast<std::int64_t>(now);
    t.pods.push_back({start, start + static_cast<std::int64_t>(std::min(d, 1e7)), kind(rng)});
  }
  return t;
}

const replay_policy policies[] = {
    {replay_mode::static_geometry, node_choice::spread, gpu_choice::first_fit},
    {replay_mode::dynamic, node_choice::spread, gpu_choice::first_fit},
    {replay_mode::dynamic, node_choice::pack, gpu_choice::best_fit},
    {replay_mode::dynamic, node_choice::first, gpu_choice::name_order},
};
const char* const policy_names[] = {"static", "spread-first-fit", "pack-best-fit", "dra-first-fit"};
const pending_rule pending_rules[] = {pending_rule::reject, pending_rule::fifo,
                                      pending_rule::backfill};
const char* const pending_names[] = {"", " --queue", " --backfill"};

// A static geometry for every GPU: the mix's share of the fleet, one all-1g,
// all-2g, ... geometry per GPU in proportion, and full GPUs for the rest.
std::vector<layout> static_geometry(const trace& t) {
  const gpu_model& gpu = *t.fleet.models[0];
  std::vector<layout> out;
  const int gpus = t.fleet.gpu_count();
  const std::vector<std::pair<std::string, int>> shares{
      {"1g.10gb", 15}, {"1g.20gb", 8}, {"2g.20gb", 20}, {"3g.40gb", 22}, {"4g.40gb", 8}};
  for (const auto& [name, percent] : shares) {
    const int p = find_profile(gpu, name);
    layout l;
    const profile& pr = gpu.profiles[static_cast<std::size_t>(p)];
    int compute = 0;
    for (int s = 0; s < gpu.units && l.size() < pr.max_instances; ++s)
      if (pr.allows_start(s) && (l.used(gpu) & pr.mask_at(s)) == 0 &&
          compute + pr.compute_slices <= gpu.compute_slices) {
        l.add({p, s});
        compute += pr.compute_slices;
      }
    for (int k = 0; k < gpus * percent / 100; ++k) out.push_back(l);
  }
  layout full;
  full.add({full_profile(gpu), 0});
  while (static_cast<int>(out.size()) < gpus) out.push_back(full);
  return out;
}

// The replay of `t` under `chosen`, timed: the tables are built by one
// replay outside the timing, as `migplan simulate` builds them once.
replay_metrics timed_replay(benchmark::State& state, const trace& t, const replay_policy& chosen,
                            std::span<const layout> geometry) {
  replay_tables tables;
  replay_metrics m = replay(t.fleet, t.items, t.pods, chosen, geometry, tables);
  for (auto _ : state) {
    m = replay(t.fleet, t.items, t.pods, chosen, geometry, tables);
    benchmark::DoNotOptimize(m);
  }
  return m;
}

void bm_replay(benchmark::State& state) {
  const auto policy = static_cast<std::size_t>(state.range(0));
  const trace t = generate(state.range(1), static_cast<int>(state.range(2)), 2121);
  const std::vector<layout> geometry = static_geometry(t);
  const auto pending = static_cast<std::size_t>(state.range(3));
  replay_policy chosen = policies[policy];
  chosen.pending = pending_rules[pending];
  const replay_metrics m = timed_replay(state, t, chosen, geometry);
  state.SetLabel(std::string(policy_names[policy]) + pending_names[pending]);
  if (pending != 0) {
    state.counters["pending"] = static_cast<double>(m.pods_pending);
    state.counters["queue_peak"] = static_cast<double>(m.queue_peak);
    state.counters["wait_p99_s"] = static_cast<double>(m.waits.p99);
  }
  state.counters["rejected_pct"] =
      100.0 * static_cast<double>(m.pods_rejected) / static_cast<double>(t.pods.size());
  state.counters["peak"] = m.peak_gpus_in_use;
  state.counters["pods_per_s"] = benchmark::Counter(static_cast<double>(t.pods.size()),
                                                    benchmark::Counter::kIsIterationInvariantRate);
}

// POLICY queued on the trace of PODS and GPUS, each instance taking 1.5 s
// to create, with `more` of the policy set; timed.
replay_metrics timed_on_demand(benchmark::State& state, std::string label,
                               const std::function<void(replay_policy&)>& more) {
  const auto policy = static_cast<std::size_t>(state.range(0));
  const trace t = generate(state.range(1), static_cast<int>(state.range(2)), 2121);
  replay_policy chosen = policies[policy];
  chosen.pending = pending_rule::fifo;
  chosen.create_milli = 1500;
  more(chosen);
  const replay_metrics m = timed_replay(state, t, chosen, static_geometry(t));
  state.SetLabel(policy_names[policy] + std::move(label));
  state.counters["wait_p99_s"] = static_cast<double>(m.waits.p99);
  state.counters["pods_per_s"] = benchmark::Counter(static_cast<double>(t.pods.size()),
                                                    benchmark::Counter::kIsIterationInvariantRate);
  return m;
}

void bm_lifecycle(benchmark::State& state) {
  const bool keep = state.range(3) != 0;
  const replay_metrics m = timed_on_demand(
      state, std::string(" --queue --create-seconds 1.5") + (keep ? " --keep-idle 10m" : ""),
      [&](replay_policy& p) { p.keep_idle = keep ? 600 : -1; });
  state.counters["pending"] = static_cast<double>(m.pods_pending);
  state.counters["creations"] = static_cast<double>(m.creations);
  state.counters["reuses"] = static_cast<double>(m.reuses);
}

// Queued, 1.5 s per instance, and room made for the queue's head by at
// most K moves (`POLICY+defrag:K`).
void bm_defrag(benchmark::State& state) {
  const int k = static_cast<int>(state.range(3));
  const replay_metrics m =
      timed_on_demand(state, "+defrag:" + std::to_string(k) + " --queue --create-seconds 1.5",
                      [&](replay_policy& p) { p.defrag = k; });
  state.counters["moves"] = static_cast<double>(m.moves);
  state.counters["defrag_starts"] = static_cast<double>(m.defrag_starts);
}

void defrag_args(benchmark::internal::Benchmark* b) {
  for (int k = 1; k <= 3; ++k)
    for (int policy = 1; policy < 4; ++policy) b->Args({policy, 250'000, 2'500, k});
}

void lifecycle_args(benchmark::internal::Benchmark* b) {
  for (int keep = 0; keep < 2; ++keep)
    for (int policy = 1; policy < 4; ++policy) {
      b->Args({policy, 250'000, 2'500, keep});
      b->Args({policy, 1'000'000, 10'000, keep});
    }
}

void replay_args(benchmark::internal::Benchmark* b) {
  for (int pending = 0; pending < 3; ++pending)
    for (int policy = 0; policy < 4; ++policy) {
      b->Args({policy, 250'000, 2'500, pending});
      b->Args({policy, 1'000'000, 10'000, pending});
    }
}

// Sizing: the fewest GPUs at which the policy rejects no pod, by doubling and
// bisection over exact replays of the whole trace (as `simulate --size`).
void bm_size(benchmark::State& state) {
  const auto policy = static_cast<std::size_t>(state.range(0));
  const trace t = generate(state.range(1), static_cast<int>(state.range(2)), 2121);
  const std::vector<layout> planned = static_geometry(t);
  replay_tables tables;
  std::optional<int> n;
  int replays = 0;
  for (auto _ : state) {
    replays = 0;
    n = fewest_gpus(
        [&](int gpus) {
          ++replays;
          trace sized = t;
          sized.fleet.nodes.clear();
          for (int left = gpus; left > 0; left -= 8)
            sized.fleet.nodes.push_back({0, std::min(8, left)});
          std::vector<layout> geometry;
          for (int i = 0; i < gpus; ++i)
            geometry.push_back(planned[static_cast<std::size_t>(i) % planned.size()]);
          return replay(sized.fleet, t.items, t.pods, policies[policy], geometry, tables)
                     .pods_rejected == 0;
        },
        100'000);
    benchmark::DoNotOptimize(n);
  }
  state.SetLabel(policy_names[policy]);
  state.counters["gpus"] = n.value_or(-1);
  state.counters["replays"] = replays;
}

void size_args(benchmark::internal::Benchmark* b) {
  for (int policy = 0; policy < 3; ++policy) b->Args({policy, 100'000, 1'000});
}

}  // namespace

BENCHMARK(bm_size)->Name("size")->Apply(size_args)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(bm_replay)
    ->Name("replay")
    ->Apply(replay_args)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(bm_defrag)
    ->Name("defrag")
    ->Apply(defrag_args)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(bm_lifecycle)
    ->Name("lifecycle")
    ->Apply(lifecycle_args)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

BENCHMARK_MAIN();

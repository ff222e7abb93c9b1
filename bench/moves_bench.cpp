// SPDX-License-Identifier: Apache-2.0
// `place --allow-moves`'s search (moves.hpp) on a fragmented fleet of 1,000
// H100-80GB GPUs (125 nodes of 8): each GPU filled by random arrivals of small
// instances at random allowed starts, as churn leaves a fleet, until a
// 3g.40gb fits nowhere. The fleet is fixed by the seed, so runs compare.
//
//   moves_bench [--benchmark_...]

#include <benchmark/benchmark.h>

#include <cstdint>
#include <migplan/catalog.hpp>
#include <migplan/lookup.hpp>
#include <migplan/moves.hpp>
#include <random>
#include <string_view>
#include <vector>

namespace {

using migplan::gpu_model;

constexpr std::uint32_t seed = 20261205;
constexpr int fleet_gpus = 1000;

// One GPU: small profiles at random allowed starts, 60 tries, each kept when
// the rules allow it; then 1g instances at the lowest free starts until
// `blocked` (the profile index) fits nowhere.
migplan::layout fragmented(const gpu_model& gpu, int blocked, std::mt19937& rng) {
  const migplan::rules r(gpu);
  const std::vector<std::string_view> small{"1g.10gb", "1g.20gb", "2g.20gb"};
  migplan::usage u;
  migplan::layout l;
  const auto add = [&](int p, int s) {
    if (!r.can_add(u, p, s)) return false;
    u.add(r.profile_at(p), p, s);
    l.add({p, s});
    return true;
  };
  for (int t = 0; t < 60; ++t) {
    const int p = migplan::find_profile(gpu, small[rng() % small.size()]);
    add(p, static_cast<int>(rng() % static_cast<unsigned>(gpu.units)));
    if (rng() % 4 == 0) break;
  }
  const int one = migplan::find_profile(gpu, "1g.10gb");
  for (int s = 0; s < gpu.units; ++s) {
    bool fits = false;
    for (int b = 0; b < gpu.units; ++b) fits = fits || r.can_add(u, blocked, b);
    if (!fits) break;
    add(one, s);
  }
  return l;
}

std::vector<migplan::moves_gpu> fleet(std::string_view arrival) {
  const gpu_model& gpu = *migplan::find_model("h100-80gb");
  const int p = migplan::find_profile(gpu, arrival);
  const int blocked = migplan::find_profile(gpu, "3g.40gb");
  std::mt19937 rng(seed);
  std::vector<migplan::moves_gpu> out;
  for (int g = 0; g < fleet_gpus; ++g) out.push_back({&gpu, p, fragmented(gpu, blocked, rng)});
  return out;
}

void run(benchmark::State& state, std::string_view arrival) {
  const std::vector<migplan::moves_gpu> f = fleet(arrival);
  const int most = static_cast<int>(state.range(0));
  migplan::moves_plan plan;
  for (auto _ : state) {
    plan = migplan::fewest_moves(f, most);
    benchmark::DoNotOptimize(plan);
  }
  state.counters["moves"] = plan.found ? static_cast<double>(plan.steps.size()) : -1.0;
}

// The arrival the fleet was fragmented against.
void fragmented_3g(benchmark::State& state) { run(state, "3g.40gb"); }
// A whole GPU: every instance of some GPU has to go.
void fragmented_7g(benchmark::State& state) { run(state, "7g.80gb"); }

}  // namespace

BENCHMARK(fragmented_3g)->Arg(3)->Unit(benchmark::kMillisecond);
BENCHMARK(fragmented_7g)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();

// SPDX-License-Identifier: Apache-2.0
// compare_admission() (counters.hpp), the walk `check` runs over a GPU's
// ResourceSlice devices: on the catalog's own counters (exact, every legal
// layout walked) and on a hostile slice, the same A100-40GB placements over
// and over, drawing nothing, where most extensions differ and each found
// difference is tested for being a smallest one.
//
//   admission_bench [--benchmark_...]

#include <benchmark/benchmark.h>

#include <cstddef>
#include <migplan/catalog.hpp>
#include <migplan/counters.hpp>
#include <migplan/lookup.hpp>
#include <string_view>

namespace {

using migplan::gpu_model;

// Every catalog placement of the model, with the counters that make them
// exact: the walk visits each legal layout once.
void catalog_counters(benchmark::State& state, std::string_view slug) {
  const gpu_model& gpu = *migplan::find_model(slug);
  const migplan::counter_model m = migplan::counters_of(gpu);
  migplan::admission_report r;
  for (auto _ : state) {
    r = migplan::compare_admission(gpu, m);
    benchmark::DoNotOptimize(r);
  }
  state.counters["sets"] = static_cast<double>(r.states);
}

// state.range(0) devices cycling through the A100-40GB's placements, with
// no draws: every set of two overlapping ones is admitted but illegal.
void drawing_nothing(benchmark::State& state) {
  const gpu_model& gpu = *migplan::find_model("a100-40gb");
  const migplan::counter_model base = migplan::counters_of(gpu);
  migplan::counter_model m;
  for (std::size_t i = 0; i < static_cast<std::size_t>(state.range(0)); ++i)
    m.devices.push_back({base.devices[i % base.devices.size()].where, {}});
  migplan::admission_report r;
  for (auto _ : state) {
    r = migplan::compare_admission(gpu, m);
    benchmark::DoNotOptimize(r);
  }
  state.counters["sets"] = static_cast<double>(r.states);
  state.counters["smallest"] = static_cast<double>(r.admitted_illegal);
}

void a100(benchmark::State& state) { catalog_counters(state, "a100-40gb"); }
void h100(benchmark::State& state) { catalog_counters(state, "h100-80gb"); }

}  // namespace

BENCHMARK(a100)->Unit(benchmark::kMillisecond);
BENCHMARK(h100)->Unit(benchmark::kMillisecond);
BENCHMARK(drawing_nothing)->Arg(16)->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();

// SPDX-License-Identifier: Apache-2.0
// Microbenchmarks of the core on seed-generated random requests: pack queries
// per second (solve with and without ranking), what `migplan pack` adds for a
// request that does not fit (explain, closest fits, other models), and
// enumerate() per model. The request sets are fixed by the seed, so runs are
// comparable; the machines are shared, so compare ratios within one run.
//
//   migplan_bench [--requests=FILE [--requests-gpu=SLUG]] [--benchmark_...]
//
// --requests adds "file/..." cases on the requests in FILE (one per line,
// migplan's ITEM syntax, as bench/gen_requests.py writes them), to set the
// in-process figure beside the Python seed solver's on the same requests.

#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <migplan/catalog.hpp>
#include <migplan/enumerate.hpp>
#include <migplan/explain.hpp>
#include <migplan/search.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

using migplan::gpu_model;
using migplan::item;

using request = std::vector<item>;

/// A fixed set of requests for one model, split by whether they fit.
struct request_set {
  const gpu_model* gpu = nullptr;
  std::vector<request> all;
  std::vector<request> feasible;
  std::vector<request> infeasible;
};

// The models benchmarked: the common 8-unit ones, the 12-unit RTX PRO 6000
// (most profiles, widest search) and the 4-unit A30.
constexpr std::array<std::string_view, 4> bench_models{"a100-40gb", "h100-80gb", "rtx-pro-6000",
                                                       "a30"};
constexpr std::uint32_t base_seed = 20240611;
constexpr std::size_t requests_per_model = 500;
constexpr int max_request_size = 7;

void classify(request_set& s) {
  const migplan::rules r(*s.gpu);
  for (const request& q : s.all) (migplan::fits(r, q) ? s.feasible : s.infeasible).push_back(q);
}

// Random multisets of 1 to 7 profiles, each drawn uniformly from the model's
// profiles. Plain `rng() % n` rather than std::uniform_int_distribution: the
// engine's output is fixed by the standard, the distribution's is not, so the
// set is the same under libstdc++ and libc++ (the modulo bias is irrelevant).
request_set random_requests(const gpu_model& gpu, std::uint32_t seed, std::size_t n) {
  std::mt19937 rng(seed);
  request_set s;
  s.gpu = &gpu;
  const auto profiles = static_cast<std::uint32_t>(gpu.profiles.size());
  for (std::size_t i = 0; i < n; ++i) {
    const int size = 1 + static_cast<int>(rng() % max_request_size);
    request q;
    for (int j = 0; j < size; ++j)
      q.push_back({static_cast<int>(rng() % profiles), item::any_start});
    s.all.push_back(std::move(q));
  }
  classify(s);
  return s;
}

// Reads requests in migplan's ITEM syntax ([Nx]PROFILE[@START], '#' comments).
// Returns false with a message on stderr for a line it cannot read.
bool read_requests(const std::string& path, const gpu_model& gpu, request_set& s) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "migplan_bench: cannot read %s\n", path.c_str());
    return false;
  }
  s.gpu = &gpu;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    line = line.substr(0, line.find('#'));
    for (char& c : line)
      if (c == ',' || c == '\t') c = ' ';
    request q;
    std::size_t pos = 0;
    while (pos < line.size()) {
      const std::size_t end = std::min(line.find(' ', pos), line.size());
      std::string_view word = std::string_view(line).substr(pos, end - pos);
      pos = end + 1;
      if (word.empty()) continue;
      long count = 1;
      if (const std::size_t x = word.find('x');
          x != std::string_view::npos && x > 0 &&
          word.substr(0, x).find_first_not_of("0123456789") == std::string_view::npos) {
        count = std::stol(std::string(word.substr(0, x)));
        word.remove_prefix(x + 1);
      }
      int start = item::any_start;
      if (const std::size_t at = word.find('@'); at != std::string_view::npos) {
        start = std::stoi(std::string(word.substr(at + 1)));
        word = word.substr(0, at);
      }
      const int p = migplan::find_profile(gpu, word);
      if (p < 0) {
        std::fprintf(stderr, "%s:%d: no profile '%.*s' on %.*s\n", path.c_str(), number,
                     static_cast<int>(word.size()), word.data(), static_cast<int>(gpu.slug.size()),
                     gpu.slug.data());
        return false;
      }
      for (long k = 0; k < count; ++k) q.push_back({p, start});
    }
    if (!q.empty()) s.all.push_back(std::move(q));
  }
  classify(s);
  return true;
}

void set_counters(benchmark::State& st, const request_set& s, const std::vector<request>& ran) {
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(ran.size()));
  st.counters["requests"] = static_cast<double>(ran.size());
  st.counters["feasible_pct"] =
      100.0 * static_cast<double>(s.feasible.size()) / static_cast<double>(s.all.size());
}

// solve() on every request of the set, with or without ranking.
void bm_solve(benchmark::State& st, const request_set& s, bool rank, bool memo = false) {
  migplan::solve_options opt;
  opt.rank = rank;
  // With `memo`, one room_memo serves every request, as `pack --batch` uses it.
  migplan::room_memo rooms(*s.gpu);
  if (memo) opt.memo = &rooms;
  for (auto _ : st) {
    for (const request& q : s.all) {
      migplan::solution sol = migplan::solve(*s.gpu, q, opt);
      benchmark::DoNotOptimize(sol.layout_count);
      benchmark::DoNotOptimize(sol.layouts.data());
    }
  }
  set_counters(st, s, s.all);
}

// closest_fits() on every request of the set that does not fit.
void bm_closest(benchmark::State& st, const request_set& s) {
  migplan::room_memo rooms(*s.gpu);
  for (auto _ : st) {
    for (const request& q : s.infeasible) {
      auto c = migplan::closest_fits(*s.gpu, q, 3, &rooms);
      benchmark::DoNotOptimize(c.data());
    }
  }
  set_counters(st, s, s.infeasible);
}

// The core work of `migplan pack --gpu G` per request, without parsing and
// JSON: solve (ranked), and for a request that does not fit explain(),
// closest_fits() and fits_elsewhere(), as src/commands/pack.cpp calls them.
void bm_pack_core(benchmark::State& st, const request_set& s) {
  migplan::room_memo rooms(*s.gpu);
  migplan::solve_options opt;
  opt.memo = &rooms;
  for (auto _ : st) {
    for (const request& q : s.all) {
      migplan::solution sol = migplan::solve(*s.gpu, q, opt);
      if (!sol.feasible()) {
        sol.why = migplan::explain(*s.gpu, q, sol.why);
        auto c = migplan::closest_fits(*s.gpu, q, 3, &rooms);
        auto e = migplan::fits_elsewhere(*s.gpu, q, migplan::catalog());
        benchmark::DoNotOptimize(c.data());
        benchmark::DoNotOptimize(e.data());
      }
      benchmark::DoNotOptimize(sol.layouts.data());
    }
  }
  set_counters(st, s, s.all);
}

void bm_enumerate(benchmark::State& st, const gpu_model& gpu) {
  std::size_t geometries = 0;
  for (auto _ : st) {
    migplan::geometry_set g = migplan::enumerate(gpu);
    geometries = g.geometries.size();
    benchmark::DoNotOptimize(g.geometries.data());
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()));
  st.counters["geometries"] = static_cast<double>(geometries);
}

// Registers the solve/closest/pack_core cases of one request set under `prefix`.
void register_set(const std::string& prefix, std::shared_ptr<const request_set> s) {
  using benchmark::kMicrosecond;
  benchmark::RegisterBenchmark((prefix + "solve_ranked").c_str(), [s](benchmark::State& st) {
    bm_solve(st, *s, true);
  })->Unit(kMicrosecond);
  benchmark::RegisterBenchmark((prefix + "solve_ranked_memo").c_str(), [s](benchmark::State& st) {
    bm_solve(st, *s, true, true);
  })->Unit(kMicrosecond);
  benchmark::RegisterBenchmark((prefix + "solve_unranked").c_str(), [s](benchmark::State& st) {
    bm_solve(st, *s, false);
  })->Unit(kMicrosecond);
  if (!s->infeasible.empty())
    benchmark::RegisterBenchmark((prefix + "closest_fits").c_str(), [s](benchmark::State& st) {
      bm_closest(st, *s);
    })->Unit(kMicrosecond);
  benchmark::RegisterBenchmark((prefix + "pack_core").c_str(), [s](benchmark::State& st) {
    bm_pack_core(st, *s);
  })->Unit(kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
  std::string requests_path;
  std::string requests_gpu = "a100-40gb";
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i > 0 && a.starts_with("--requests="))
      requests_path = std::string(a.substr(11));
    else if (i > 0 && a.starts_with("--requests-gpu="))
      requests_gpu = std::string(a.substr(15));
    else
      rest.push_back(argv[i]);
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 2;

  std::uint32_t seed = base_seed;
  for (std::string_view slug : bench_models) {
    const gpu_model* gpu = migplan::find_model(slug);
    if (gpu == nullptr) {
      std::fprintf(stderr, "migplan_bench: no model %.*s in the catalog\n",
                   static_cast<int>(slug.size()), slug.data());
      return 2;
    }
    auto s = std::make_shared<const request_set>(random_requests(*gpu, seed++, requests_per_model));
    register_set(std::string(slug) + "/", s);
    benchmark::RegisterBenchmark(("enumerate/" + std::string(slug)).c_str(),
                                 [gpu](benchmark::State& st) { bm_enumerate(st, *gpu); })
        ->Unit(benchmark::kMicrosecond);
  }
  if (!requests_path.empty()) {
    const gpu_model* gpu = migplan::find_model(requests_gpu);
    if (gpu == nullptr) {
      std::fprintf(stderr, "migplan_bench: no model %s in the catalog\n", requests_gpu.c_str());
      return 2;
    }
    auto s = std::make_shared<request_set>();
    if (!read_requests(requests_path, *gpu, *s)) return 2;
    if (s->all.empty()) {
      std::fprintf(stderr, "migplan_bench: no requests in %s\n", requests_path.c_str());
      return 2;
    }
    register_set("file/" + requests_gpu + "/", s);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// `migplan plan`'s solver on generated demand mixes, against what today's
// tools would use, and re-plans against planning from scratch.
//
//   plan_bench [--benchmark_filter=...]
//
// Time: the whole solve (all four stages); t_opt_ms: until the cost stage
// (re-plan: changes) is proven, which includes the LP relaxation.
//
// fresh/MODEL/MIX/N: a demand sized for about N GPUs of MODEL (MIX uniform:
// every profile the same share of the units; skewed: profile k, smallest
// first, gets twice the share of profile k + 1; both with two memory-sized
// items, 12 GiB and 35 GiB, taking a fifth of the units). Counters: gpus and
// the proven lower bound (lb) of the plan, the LP relaxation (lp), optimal
// (1 = proven), and the GPUs that first-fit (ff) and uniform mig-parted
// labels (uniform) use, with their ratios to the plan's. uniform: the best
// single geometry on every GPU where one holds every profile demanded, else
// (and if fewer) one all-PROFILE label per profile, `all-1g.10gb` style.
//
// first-fit: the instances in a fixed random arrival order, each on the
// first GPU (in order of opening) where it fits at its leftmost legal start
// under the core's rules, else on a new GPU.
//
// replan/SHIFT: 1250 nodes of 8 h100-80gb planned for a uniform mix (about
// 9500 GPUs' worth); the demand then shifts by SHIFT % (every other item
// loses SHIFT % of its instances, the others gain as many units) and is
// re-planned from that state (no instance in use). Counters: GPUs the re-plan
// changes (changed), and GPUs a plan from scratch would change: at the same
// node positions (scratch), and at best, matching GPUs by geometry
// (scratch_min).
//
// churn/N: N h100-80gb GPUs (nodes of 8) after weeks of churn, re-planned
// for 12000x1g.10gb 3000x3g.40gb 800x7g.80gb 1500x2g.20gb (issue 19). Each
// GPU's layout is drawn at random (churned_fleet(): profiles added at random
// legal starts until a draw fails), each instance in use with probability
// 0.3, with a fixed seed, so GPUs rarely share a layout. Counters as for
// replan/ (changed, changes_lb, optimal, unmet), plus the classes of
// identical GPUs (gpu_classes).
//
//   plan_bench --write-fleet=N,FILE
//
// writes that state (N GPUs) as a state file for `migplan plan --current
// FILE 12000x1g.10gb ...` (whole-process figures) and exits.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <migplan/catalog.hpp>
#include <migplan/enumerate.hpp>
#include <migplan/rules.hpp>
#include <migplan/sizing.hpp>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/plan.hpp"
#include "plan/solver.hpp"

namespace {

using namespace migplan;
using namespace migplan::cli;

// The model's profiles without the +me/+gfx variants, smallest first.
std::vector<int> plain_profiles(const gpu_model& g) {
  std::vector<int> out;
  for (std::size_t p = 0; p < g.profiles.size(); ++p)
    if (g.profiles[p].name.find('+') == std::string_view::npos) out.push_back(static_cast<int>(p));
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
    return g.profiles[static_cast<std::size_t>(a)].size <
           g.profiles[static_cast<std::size_t>(b)].size;
  });
  return out;
}

std::vector<demand_item> make_demand(const gpu_model& g, bool skewed, double gpus) {
  const std::vector<int> ps = plain_profiles(g);
  std::vector<double> w(ps.size());
  for (std::size_t k = 0; k < ps.size(); ++k)
    w[k] = skewed ? std::pow(0.5, static_cast<double>(k)) : 1.0;
  double sum = 0;
  for (double x : w) sum += x;
  const double units = gpus * g.units;
  std::vector<demand_item> out;
  for (std::size_t k = 0; k < ps.size(); ++k) {
    const profile& p = g.profiles[static_cast<std::size_t>(ps[k])];
    demand_item d;
    d.name = std::string(p.name);
    d.profile = d.name;
    d.count = std::max<long long>(1, std::llround(units * 0.8 * w[k] / sum / p.size));
    out.push_back(d);
  }
  for (const std::int64_t gib : {12, 35}) {
    const int p = size_for(g, need{gib * 1024, std::nullopt, 1}).profile;
    if (p < 0) continue;
    demand_item d;
    d.name = "mem-" + std::to_string(gib) + "GiB";
    d.memory_mib = gib * 1024;
    d.count = std::max<long long>(
        1, std::llround(units * 0.1 / g.profiles[static_cast<std::size_t>(p)].size));
    out.push_back(d);
  }
  return out;
}

int profile_on(const gpu_model& g, const demand_item& d) {
  if (!d.profile.empty()) return find_profile(g, d.profile);
  return size_for(g, need{*d.memory_mib, d.sms, 1}).profile;
}

long long first_fit(const gpu_model& g, const std::vector<demand_item>& demand) {
  std::vector<int> arrivals;
  for (const demand_item& d : demand) {
    const int p = profile_on(g, d);
    for (long long k = 0; k < d.count; ++k) arrivals.push_back(p);
  }
  // Fisher-Yates with the engine's raw output (fixed by the standard).
  std::mt19937_64 rng(20261201);
  for (std::size_t i = arrivals.size(); i > 1; --i) std::swap(arrivals[i - 1], arrivals[rng() % i]);
  const rules r(g);
  std::vector<usage> gpus;
  // A GPU that once refused profile p refuses it for good (it only fills),
  // so each profile's search starts at its first GPU that might take it.
  std::vector<std::size_t> from(g.profiles.size(), 0);
  for (const int p : arrivals) {
    std::size_t j = from[static_cast<std::size_t>(p)];
    for (;; ++j) {
      if (j == gpus.size()) gpus.emplace_back();
      int s = 0;
      while (s < g.units && !r.can_add(gpus[j], p, s)) ++s;
      if (s < g.units) {
        gpus[j].add(g.profiles[static_cast<std::size_t>(p)], p, s);
        break;
      }
    }
    from[static_cast<std::size_t>(p)] = j;
  }
  return static_cast<long long>(gpus.size());
}

long long best_uniform(const gpu_model& g, const std::vector<demand_item>& demand) {
  std::map<int, long long> want;
  for (const demand_item& d : demand) want[profile_on(g, d)] += d.count;
  long long best = -1;
  for (const geometry& geo : enumerate(g).geometries) {
    long long n = 0;
    bool ok = true;
    for (const auto& [p, c] : want) {
      if (geo.counts[p] == 0) {
        ok = false;
        break;
      }
      n = std::max(n, (c + geo.counts[p] - 1) / geo.counts[p]);
    }
    if (ok && (best < 0 || n < best)) best = n;
  }
  // No one geometry holds every profile: one all-PROFILE label per profile
  // (all-1g.10gb style), each GPU holding the most of its profile alone.
  long long per_profile = 0;
  for (const auto& [p, c] : want) {
    int most = 0;
    for (const geometry& geo : enumerate(g).geometries)
      if (geo.counts.total() == geo.counts[p]) most = std::max(most, geo.counts[p]);
    per_profile += (c + most - 1) / most;
  }
  return best < 0 ? per_profile : std::min(best, per_profile);
}

void fresh(benchmark::State& state, const gpu_model* g, bool skewed, double n) {
  plan_request req;
  req.models.push_back({g, std::nullopt, 1.0});
  req.demand = make_demand(*g, skewed, n);
  plan_result res;
  plan::solver planner;  // builds each model's geometries once, not per iteration
  for (auto _ : state) {
    res = planner.solve(req);
    benchmark::DoNotOptimize(res.gpu_count);
  }
  const auto ff = static_cast<double>(first_fit(*g, req.demand));
  const auto uni = static_cast<double>(best_uniform(*g, req.demand));
  const auto gpus = static_cast<double>(res.gpu_count);
  state.counters["gpus"] = gpus;
  state.counters["t_opt_ms"] = res.stage1_seconds * 1e3;
  state.counters["lb"] = res.lower_bound;
  state.counters["lp"] = res.lp_bound;
  state.counters["optimal"] = res.optimal ? 1 : 0;
  state.counters["later_opt"] = res.later_optimal ? 1 : 0;
  state.counters["ff"] = ff;
  state.counters["uniform"] = uni;
  state.counters["ff/gpus"] = ff / gpus;
  state.counters["uniform/gpus"] = uni / gpus;
}

std::vector<current_node> state_of(const plan_result& res, const gpu_model* g) {
  std::vector<current_node> out;
  for (const auto& np : res.nodes) {
    current_node n;
    n.name = np.name;
    n.gpu = g;
    for (const auto& pg : np.gpus) {
      current_gpu cg;
      cg.index = pg.index;
      if (pg.group >= 0) {
        const plan_group& grp = res.groups[static_cast<std::size_t>(pg.group)];
        for (const planned_instance& in : grp.instances)
          cg.instances.push_back(current_instance::at(in.where.profile, in.where.start));
      }
      n.gpus.push_back(cg);
    }
    out.push_back(n);
  }
  return out;
}

// Instance counts of each node GPU under a plan (empty when unused).
std::vector<profile_counts> geometries(const plan_result& res) {
  std::vector<profile_counts> out;
  for (const auto& np : res.nodes)
    for (const auto& g : np.gpus) {
      profile_counts c;
      if (g.group >= 0)
        for (const planned_instance& in : res.groups[static_cast<std::size_t>(g.group)].instances)
          ++c[in.where.profile];
      out.push_back(c);
    }
  return out;
}

void replan(benchmark::State& state, int shift_pct) {
  const gpu_model* g = find_model("h100-80gb");
  plan_request base;
  base.models.push_back({g, std::nullopt, 1.0});
  for (int i = 0; i < 1250; ++i) base.nodes.push_back({"node-" + std::to_string(i), g, 8, ""});
  base.demand = make_demand(*g, false, 9500);
  const plan_result before = plan::solve(base);
  for (auto& n : base.demand) n.where.clear();
  // The shifted demand: even items lose shift %, odd ones gain as many units.
  plan_request after = base;
  long long moved_units = 0;
  for (std::size_t i = 0; i < after.demand.size(); i += 2) {
    demand_item& d = after.demand[i];
    const long long cut = d.count * shift_pct / 100;
    d.count -= cut;
    moved_units += cut * g->profiles[static_cast<std::size_t>(profile_on(*g, d))].size;
  }
  std::size_t odd = 0;
  for (std::size_t i = 1; i < after.demand.size(); i += 2) ++odd;
  for (std::size_t i = 1; i < after.demand.size(); i += 2) {
    demand_item& d = after.demand[i];
    const int size = g->profiles[static_cast<std::size_t>(profile_on(*g, d))].size;
    d.count += moved_units / static_cast<long long>(odd) / size;
  }
  plan_request re = after;
  re.nodes.clear();
  re.current = state_of(before, g);
  plan_result res;
  plan::solver planner;  // builds each model's geometries once, not per iteration
  for (auto _ : state) {
    res = planner.solve(re);
    benchmark::DoNotOptimize(res.gpu_count);
  }
  const plan_result scratch = plan::solve(after);
  const auto a = geometries(before), b = geometries(scratch);
  long long positional = 0;
  std::map<profile_counts, long long> old_n, new_n;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    positional += a[i] == b[i] ? 0 : 1;
    ++old_n[a[i]];
    ++new_n[b[i]];
  }
  long long same = 0;
  for (const auto& [c, n] : old_n)
    if (auto it = new_n.find(c); it != new_n.end()) same += std::min(n, it->second);
  state.counters["t_opt_ms"] = res.stage1_seconds * 1e3;
  state.counters["changed"] = static_cast<double>(res.changes.size());
  state.counters["changes_lb"] = static_cast<double>(res.changes_lower_bound);
  state.counters["optimal"] = res.status == plan_status::optimal ? 1 : 0;
  state.counters["unmet"] = res.feasible ? 0 : 1;
  state.counters["scratch"] = static_cast<double>(positional);
  state.counters["scratch_min"] = static_cast<double>(static_cast<long long>(a.size()) - same);
  state.counters["gpus_before"] = static_cast<double>(before.gpu_count);
  state.counters["gpus"] = static_cast<double>(res.gpu_count);
  state.counters["gpus_scratch"] = static_cast<double>(scratch.gpu_count);
}

// A fleet after churn: `gpus` GPUs of `g` in nodes of 8, each with a random
// legal layout (random plain profiles at random allowed starts, until a draw
// does not fit or one in eight draws stops early), each instance in use with
// probability `in_use`. std::mt19937_64's raw output only, so the fleet is
// the same on every platform.
std::vector<current_node> churned_fleet(const gpu_model& g, int gpus, double in_use,
                                        std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const rules r(g);
  const std::vector<int> ps = plain_profiles(g);
  const auto below = [&](std::uint64_t n) { return rng() % n; };
  std::vector<current_node> out;
  for (int k = 0; k < gpus; ++k) {
    if (k % 8 == 0) {
      current_node n;
      n.name = "churn-" + std::to_string(k / 8);
      n.gpu = &g;
      out.push_back(std::move(n));
    }
    current_gpu cg;
    cg.index = k % 8;
    usage u;
    for (int failures = 0; failures < 4;) {
      if (below(8) == 0) break;
      const int p = ps[static_cast<std::size_t>(below(ps.size()))];
      std::vector<int> starts;
      for (int s = 0; s < g.units; ++s)
        if (r.can_add(u, p, s)) starts.push_back(s);
      if (starts.empty()) {
        ++failures;
        continue;
      }
      const int s = starts[static_cast<std::size_t>(below(starts.size()))];
      u.add(g.profiles[static_cast<std::size_t>(p)], p, s);
      const bool busy = static_cast<double>(rng() >> 11) * 0x1.0p-53 < in_use;
      cg.instances.push_back(current_instance::at(p, s, busy));
    }
    out.back().gpus.push_back(std::move(cg));
  }
  return out;
}

// The demand of issue 19's churned re-plan, on h100-80gb.
std::vector<demand_item> churn_demand() {
  std::vector<demand_item> out;
  for (const auto& [count, name] : std::vector<std::pair<long long, const char*>>{
           {12000, "1g.10gb"}, {3000, "3g.40gb"}, {800, "7g.80gb"}, {1500, "2g.20gb"}}) {
    demand_item d;
    d.name = name;
    d.profile = name;
    d.count = count;
    out.push_back(d);
  }
  return out;
}

constexpr std::uint64_t churn_seed = 20261219;

void churn(benchmark::State& state, int gpus) {
  const gpu_model* g = find_model("h100-80gb");
  plan_request req;
  req.models.push_back({g, std::nullopt, 1.0});
  req.demand = churn_demand();
  req.current = churned_fleet(*g, gpus, 0.3, churn_seed);
  plan_result res;
  plan::solver planner;  // builds each model's geometries once, not per iteration
  for (auto _ : state) {
    res = planner.solve(req);
    benchmark::DoNotOptimize(res.gpu_count);
  }
  std::set<std::vector<std::tuple<int, int, bool>>> layouts;
  long long instances = 0, busy = 0;
  for (const current_node& n : *req.current)
    for (const current_gpu& cg : n.gpus) {
      std::vector<std::tuple<int, int, bool>> key;
      for (const current_instance& x : cg.instances) {
        key.emplace_back(x.profile, x.start, x.in_use);
        ++instances;
        busy += x.in_use ? 1 : 0;
      }
      std::sort(key.begin(), key.end());
      layouts.insert(key);
    }
  state.counters["t_opt_ms"] = res.stage1_seconds * 1e3;
  state.counters["changed"] = static_cast<double>(res.changes.size());
  state.counters["changes_lb"] = static_cast<double>(res.changes_lower_bound);
  state.counters["lp"] = res.lp_bound;
  state.counters["optimal"] = res.status == plan_status::optimal ? 1 : 0;
  state.counters["later_opt"] = res.later_optimal ? 1 : 0;
  state.counters["unmet"] = res.feasible ? 0 : 1;
  state.counters["gpu_classes"] = static_cast<double>(layouts.size());
  state.counters["in_use_pct"] =
      instances > 0 ? 100.0 * static_cast<double>(busy) / static_cast<double>(instances) : 0;
}

void churn_5000(benchmark::State& state) { churn(state, 5000); }
void churn_10000(benchmark::State& state) { churn(state, 10000); }

// --write-fleet=N,FILE: the churned fleet of N GPUs as a state file (JSON).
int write_fleet(std::string_view arg) {
  const auto comma = arg.find(',');
  if (comma == std::string_view::npos) {
    std::cerr << "plan_bench: --write-fleet=N,FILE\n";
    return 2;
  }
  const int n = std::stoi(std::string(arg.substr(0, comma)));
  const std::string file(arg.substr(comma + 1));
  const gpu_model* g = find_model("h100-80gb");
  std::ofstream out(file);
  out << "{\"version\": 1, \"nodes\": [\n";
  const std::vector<current_node> fleet = churned_fleet(*g, n, 0.3, churn_seed);
  for (std::size_t i = 0; i < fleet.size(); ++i) {
    out << "  {\"name\": \"" << fleet[i].name << "\", \"gpu\": \"h100-80gb\", \"gpus\": [";
    for (std::size_t k = 0; k < fleet[i].gpus.size(); ++k) {
      const current_gpu& cg = fleet[i].gpus[k];
      out << (k > 0 ? ", " : "") << "\n    {\"index\": " << cg.index << ", \"instances\": [";
      for (std::size_t j = 0; j < cg.instances.size(); ++j) {
        const current_instance& x = cg.instances[j];
        out << (j > 0 ? ", " : "") << "{\"profile\": \""
            << g->profiles[static_cast<std::size_t>(x.profile)].name << "\", \"start\": " << x.start
            << (x.in_use ? ", \"in_use\": true" : "") << "}";
      }
      out << "]}";
    }
    out << "]}" << (i + 1 < fleet.size() ? "," : "") << "\n";
  }
  out << "]}\n";
  return out ? 0 : 1;
}

// large/N/MIX: the documented top of the count range (issue 19), N
// instances per item on h100-80gb: MIX one is N x 1g.10gb; three is N x
// 1g.10gb, N x 3g.40gb and N x mem=5GiB. Counters: gpus, the lower bound
// proven in integers (lb) and exact, the fewest GPUs computed by hand (one:
// ceil(N / 7) on 7x1g.10gb; three: N / 2 GPUs of 4x1g.10gb+3g.40gb and
// N / 4 of 2x3g.40gb, 3N / 4 with N divisible by 4, which the LP relaxation
// proves least), and optimal.
void large_counts(benchmark::State& state, long long n, bool three) {
  const gpu_model* g = find_model("h100-80gb");
  plan_request req;
  req.models.push_back({g, std::nullopt, 1.0});
  demand_item d;
  d.name = d.profile = "1g.10gb";
  d.count = n;
  req.demand.push_back(d);
  if (three) {
    d.name = d.profile = "3g.40gb";
    req.demand.push_back(d);
    demand_item m;
    m.name = "mem=5GiB";
    m.memory_mib = 5 * 1024;
    m.count = n;
    req.demand.push_back(m);
  }
  plan_result res;
  plan::solver planner;  // builds each model's geometries once, not per iteration
  for (auto _ : state) {
    res = planner.solve(req);
    benchmark::DoNotOptimize(res.gpu_count);
  }
  const long long exact = three ? (3 * n + 3) / 4 : (n + 6) / 7;
  state.counters["gpus"] = static_cast<double>(res.gpu_count);
  state.counters["exact"] = static_cast<double>(exact);
  state.counters["lb"] = res.lower_bound;
  state.counters["optimal"] = res.optimal ? 1 : 0;
  state.counters["t_opt_ms"] = res.stage1_seconds * 1e3;
}

const bool large_counts_registered = [] {
  for (const bool three : {false, true})
    for (const long long n : {1'000'000LL, 7'000'000LL, 10'000'000LL})
      benchmark::RegisterBenchmark(
          (std::string("large/") + std::to_string(n) + (three ? "/three" : "/one")).c_str(),
          large_counts, n, three)
          ->Unit(benchmark::kMillisecond)
          ->Iterations(1);
  return true;
}();

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (const std::string_view a = argv[i]; a.starts_with("--write-fleet="))
      return write_fleet(a.substr(std::string_view("--write-fleet=").size()));
  for (const char* slug : {"h100-80gb", "a100-40gb", "a30"}) {
    const gpu_model* g = find_model(slug);
    for (const bool skewed : {false, true})
      for (const double n : {10.0, 100.0, 1000.0, 10000.0, 100000.0}) {
        const std::string name = std::string("fresh/") + slug +
                                 (skewed ? "/skewed/" : "/uniform/") +
                                 std::to_string(static_cast<long long>(n));
        benchmark::RegisterBenchmark(name.c_str(), fresh, g, skewed, n)
            ->Unit(benchmark::kMillisecond)
            ->Iterations(n >= 10000 ? 1 : 3);
      }
  }
  for (const int shift : {5, 20, 50})
    benchmark::RegisterBenchmark(("replan/" + std::to_string(shift)).c_str(), replan, shift)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
  benchmark::RegisterBenchmark("churn/5000", churn_5000)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1);
  benchmark::RegisterBenchmark("churn/10000", churn_10000)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

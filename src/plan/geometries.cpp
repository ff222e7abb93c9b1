// SPDX-License-Identifier: Apache-2.0
// The planner's view of a model (geometries.hpp): its geometries, the
// profile serving an item, a GI's compute-instance patterns.
#include "plan/geometries.hpp"

#include <migplan/capacity.hpp>
#include <migplan/compute.hpp>
#include <migplan/enumerate.hpp>
#include <migplan/lookup.hpp>
#include <migplan/search.hpp>
#include <migplan/sizing.hpp>
#include <span>
#include <tuple>

#include "plan/solver.hpp"

namespace migplan::cli::plan::detail {

std::string structure_key(const gpu_model& gpu) {
  std::string key(gpu.slug);
  const auto add = [&](long long v) { key += ':' + std::to_string(v); };
  add(gpu.units);
  add(gpu.compute_slices);
  for (const profile& p : gpu.profiles) {
    key += '|';
    key += p.name;
    add(p.size);
    add(p.compute_slices);
    add(static_cast<long long>(p.starts));
    add(p.max_instances);
    for (const auto& e : p.engines) add(e ? int{*e} : -1);
  }
  return key;
}

const model_configs& geometry_cache::of(const gpu_model& gpu) {
  auto& slot = by_structure_[structure_key(gpu)];
  if (slot) return *slot;
  auto out = std::make_unique<model_configs>();
  room_memo memo(gpu);
  {
    config empty;
    empty.room = room_value(gpu, memo.get(layout{}));
    out->configs.push_back(empty);
  }
  const geometry_set set = enumerate(gpu);
  solve_options one;
  one.max_layouts = 1;
  one.memo = &memo;
  for (const geometry& g : set.geometries) {
    std::vector<item> items;
    for (int p = 0; p < static_cast<int>(gpu.profiles.size()); ++p)
      for (int k = 0; k < g.counts[p]; ++k) items.push_back({p, item::any_start});
    const solution s = migplan::solve(gpu, items, one);
    if (s.layouts.empty()) continue;
    config c;
    c.counts = g.counts;
    c.where = s.layouts.front().where;
    c.room = room_value(gpu, s.layouts.front().left);
    out->configs.push_back(c);
  }
  for (std::size_t i = 0; i < out->configs.size(); ++i)
    out->index[out->configs[i].counts] = static_cast<int>(i);
  slot = std::move(out);
  return *slot;
}

int serving_profile(const gpu_model& gpu, const demand_item& d) {
  if (!d.resolved.empty()) {
    for (const auto& [model, profile] : d.resolved)
      if (model == &gpu) return profile;
    return -1;
  }
  if (!d.profile.empty()) return find_profile(gpu, d.profile);
  if (!d.memory_mib) return -1;
  const need n{*d.memory_mib, d.sms, 1};
  if (!d.compute_slices) return size_for(gpu, n).profile;
  // size_for's order (fewest units, then compute slices, then most per GPU),
  // restricted to profiles with enough compute slices.
  const rules r(gpu);
  int best = -1;
  std::tuple<int, int, int> best_key{};
  for (std::size_t i = 0; i < gpu.profiles.size(); ++i) {
    const profile& p = gpu.profiles[i];
    if (!meets(p, n) || p.compute_slices < *d.compute_slices) continue;
    const int pi = static_cast<int>(i);
    const std::vector<item> alone(static_cast<std::size_t>(p.max_instances), item{pi});
    int k = p.max_instances;
    while (k > 0 && !fits(r, std::span<const item>(alone.data(), static_cast<std::size_t>(k)))) --k;
    if (k == 0) continue;
    const std::tuple<int, int, int> key{p.size, p.compute_slices, -k};
    if (best < 0 || key < best_key) {
      best = pi;
      best_key = key;
    }
  }
  return best;
}

std::pair<int, int> serving_ci(const gpu_model& gpu, const demand_item& d) {
  if (d.profile.empty() || find_profile(gpu, d.profile) >= 0) return {-1, -1};
  for (std::size_t p = 0; p < gpu.profiles.size(); ++p)
    if (const int q = find_ci(gpu.profiles[p], d.profile); q >= 0) return {static_cast<int>(p), q};
  return {-1, -1};
}

std::vector<ci_pattern> ci_patterns(const profile& gi) {
  std::vector<ci_pattern> out;
  std::vector<int> counts(gi.ci_profiles.size(), 0);
  auto visit = [&](auto&& self, std::size_t q) -> void {
    if (q == counts.size()) {
      std::vector<int> cis;
      for (std::size_t k = 0; k < counts.size(); ++k)
        for (int n = 0; n < counts[k]; ++n) cis.push_back(static_cast<int>(k));
      if (cis.empty()) return;
      const ci_solution s = solve_cis(gi, cis);
      if (s.feasible()) out.push_back({counts, s.where});
      return;
    }
    for (int n = 0; n <= gi.ci_profiles[q].max_instances; ++n) {
      counts[q] = n;
      self(self, q + 1);
    }
    counts[q] = 0;
  };
  visit(visit, 0);
  return out;
}

}  // namespace migplan::cli::plan::detail

// SPDX-License-Identifier: Apache-2.0
#include "oracle.hpp"

#include <algorithm>
#include <cstddef>

namespace oracle {
namespace {

using migplan::gpu_model;
using migplan::profile;

// One instance to place and the starts it may take.
struct todo {
  int profile = 0;
  std::vector<int> starts;
};

const profile& prof(const gpu_model& gpu, int p) {
  return gpu.profiles[static_cast<std::size_t>(p)];
}

// Every start whose bit is set in the profile's start mask.
std::vector<int> allowed_starts(const profile& p) {
  std::vector<int> out;
  for (int s = 0; s < 32; ++s)
    if ((p.starts >> s) & 1u) out.push_back(s);
  return out;
}

bool is_allowed(const profile& p, int start) {
  return start >= 0 && start < 32 && ((p.starts >> start) & 1u) != 0;
}

// Tries every start for instance i, then the next instance; each complete
// assignment is recorded as a sorted list, so permutations of identical
// instances collapse into one layout.
void assign(const gpu_model& gpu, const std::vector<todo>& all, std::size_t i,
            std::vector<bool>& busy, std::vector<placed>& now, std::set<layout_set>& out) {
  if (i == all.size()) {
    layout_set l = now;
    std::sort(l.begin(), l.end());
    out.insert(l);
    return;
  }
  const profile& p = prof(gpu, all[i].profile);
  for (int s : all[i].starts) {
    if (s + p.size > gpu.units) continue;
    bool clash = false;
    for (int u = s; u < s + p.size; ++u)
      if (busy[static_cast<std::size_t>(u)]) clash = true;
    if (clash) continue;
    for (int u = s; u < s + p.size; ++u) busy[static_cast<std::size_t>(u)] = true;
    now.push_back({s, all[i].profile});
    assign(gpu, all, i + 1, busy, now, out);
    now.pop_back();
    for (int u = s; u < s + p.size; ++u) busy[static_cast<std::size_t>(u)] = false;
  }
}

}  // namespace

std::vector<int> engine_budgets(const gpu_model& gpu) {
  std::vector<int> out(migplan::engine_kinds, -1);
  const profile* full = nullptr;
  for (const profile& p : gpu.profiles) {
    if (p.size == gpu.units && p.compute_slices == gpu.compute_slices) {
      full = &p;
      break;
    }
  }
  if (full == nullptr) return out;
  for (std::size_t e = 0; e < migplan::engine_kinds; ++e) {
    if (!full->engines[e].has_value()) continue;
    const int budget = *full->engines[e];
    bool enforced = true;
    for (const profile& p : gpu.profiles) {
      if (!p.engines[e].has_value())
        enforced = false;
      else if (p.max_instances * static_cast<int>(*p.engines[e]) > budget)
        enforced = false;
    }
    if (enforced) out[e] = budget;
  }
  return out;
}

verdict solve(const gpu_model& gpu, const counts& n, const std::vector<pin>& pins) {
  verdict v;
  const std::size_t np = gpu.profiles.size();
  // Instances per profile, free and pinned together (long long: counts may be huge).
  std::vector<long long> total(np, 0);
  for (std::size_t p = 0; p < np && p < n.size(); ++p) total[p] += n[p];
  for (const pin& x : pins) total[static_cast<std::size_t>(x.profile)] += 1;

  long long units = 0, compute = 0;
  std::vector<long long> engines(migplan::engine_kinds, 0);
  for (std::size_t p = 0; p < np; ++p) {
    const profile& pr = gpu.profiles[p];
    if (total[p] > pr.max_instances) v.over_cap = true;
    units += total[p] * pr.size;
    compute += total[p] * pr.compute_slices;
    for (std::size_t e = 0; e < migplan::engine_kinds; ++e)
      engines[e] += total[p] * pr.engines[e].value_or(0);
  }
  for (const pin& x : pins)
    if (!is_allowed(prof(gpu, x.profile), x.start)) v.bad_pin = true;
  v.over_units = units > gpu.units;
  v.over_compute = compute > gpu.compute_slices;
  const std::vector<int> budget = engine_budgets(gpu);
  for (std::size_t e = 0; e < migplan::engine_kinds; ++e) {
    if (budget[e] >= 0 && engines[e] > budget[e]) {
      v.over_engines = true;
      if (v.over_engine_kind < 0) v.over_engine_kind = static_cast<int>(e);
    }
  }
  // Enumerating is pointless when a total already fails (and would be huge for
  // counts far over a cap); too many units is a valid shortcut too, since no
  // assignment can fit more units than the GPU has.
  if (v.over_cap || v.over_compute || v.over_engines || v.over_units) return v;

  std::vector<todo> all;
  for (const pin& x : pins) {
    todo t{x.profile, {}};
    if (is_allowed(prof(gpu, x.profile), x.start)) t.starts.push_back(x.start);
    all.push_back(t);
  }
  for (std::size_t p = 0; p < np && p < n.size(); ++p)
    for (int k = 0; k < n[p]; ++k)
      all.push_back({static_cast<int>(p), allowed_starts(gpu.profiles[p])});
  std::vector<bool> busy(static_cast<std::size_t>(gpu.units), false);
  std::vector<placed> now;
  assign(gpu, all, 0, busy, now, v.layouts);
  return v;
}

std::map<counts, std::set<layout_set>> all_layouts(const gpu_model& gpu) {
  std::map<counts, std::set<layout_set>> out;
  const std::size_t np = gpu.profiles.size();
  counts n(np, 0);
  // An odometer over every count vector up to the caps.
  while (true) {
    int units = 0;
    for (std::size_t p = 0; p < np; ++p) units += n[p] * gpu.profiles[p].size;
    if (units <= gpu.units) {
      verdict v = solve(gpu, n);
      if (v.feasible()) out.emplace(n, std::move(v.layouts));
    }
    std::size_t p = 0;
    while (p < np && n[p] == gpu.profiles[p].max_instances) n[p++] = 0;
    if (p == np) break;
    ++n[p];
  }
  return out;
}

std::map<counts, std::uint64_t> all_geometries(const gpu_model& gpu) {
  std::map<counts, std::uint64_t> out;
  for (const auto& [n, ls] : all_layouts(gpu)) out.emplace(n, ls.size());
  return out;
}

std::string describe(const gpu_model& gpu, const counts& n, const std::vector<pin>& pins) {
  std::string out;
  auto sep = [&] {
    if (!out.empty()) out += ' ';
  };
  for (std::size_t p = 0; p < n.size() && p < gpu.profiles.size(); ++p) {
    if (n[p] == 0) continue;
    sep();
    if (n[p] > 1) out += std::to_string(n[p]) + "x";
    out += gpu.profiles[p].name;
  }
  for (const pin& x : pins) {
    sep();
    out += prof(gpu, x.profile).name;
    out += "@" + std::to_string(x.start);
  }
  return out.empty() ? "(empty)" : out;
}

std::string describe(const gpu_model& gpu, const layout_set& l) {
  std::string out;
  for (const auto& [start, p] : l) {
    if (!out.empty()) out += ' ';
    out += prof(gpu, p).name;
    out += "@" + std::to_string(start);
  }
  return out.empty() ? "(empty)" : out;
}

}  // namespace oracle

// SPDX-License-Identifier: Apache-2.0
#include "moves_oracle.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace oracle {
namespace {

// Every legal layout of a model, computed once per model.
const std::set<layout_set>& layouts_of(const migplan::gpu_model& gpu) {
  static std::map<const migplan::gpu_model*, std::set<layout_set>> cache;
  auto it = cache.find(&gpu);
  if (it == cache.end()) {
    std::set<layout_set> all;
    for (const auto& [n, ls] : all_layouts(gpu)) all.insert(ls.begin(), ls.end());
    it = cache.emplace(&gpu, std::move(all)).first;
  }
  return it->second;
}

}  // namespace

bool legal(const migplan::gpu_model& gpu, layout_set l) {
  std::sort(l.begin(), l.end());
  return layouts_of(gpu).count(l) != 0;
}

bool arrival_fits(const std::vector<fleet_gpu>& fleet) {
  for (const fleet_gpu& g : fleet) {
    if (g.arrival < 0) continue;
    for (int s = 0; s < g.model->units; ++s) {
      layout_set l = g.held;
      l.emplace_back(s, g.arrival);
      if (legal(*g.model, l)) return true;
    }
  }
  return false;
}

int fewest_moves(const std::vector<fleet_gpu>& fleet, int most) {
  using state = std::vector<layout_set>;
  const auto sorted = [](state s) {
    for (layout_set& l : s) std::sort(l.begin(), l.end());
    return s;
  };
  std::vector<state> level{sorted([&] {
    state s;
    for (const fleet_gpu& g : fleet) s.push_back(g.held);
    return s;
  }())};
  std::set<state> seen(level.begin(), level.end());
  for (int k = 0; k <= most; ++k) {
    std::vector<state> next;
    for (const state& s : level) {
      std::vector<fleet_gpu> f = fleet;
      for (std::size_t g = 0; g < f.size(); ++g) f[g].held = s[g];
      if (arrival_fits(f)) return k;
      if (k == most) continue;
      for (std::size_t from = 0; from < s.size(); ++from)
        for (std::size_t i = 0; i < s[from].size(); ++i) {
          const placed moved = s[from][i];
          state without = s;
          without[from].erase(without[from].begin() + static_cast<long>(i));
          for (std::size_t to = 0; to < s.size(); ++to) {
            if (fleet[to].model != fleet[from].model) continue;
            for (int start = 0; start < fleet[to].model->units; ++start) {
              state t = without;
              t[to].emplace_back(start, moved.second);
              if (!legal(*fleet[to].model, t[to])) continue;
              t = sorted(std::move(t));
              if (seen.insert(t).second) next.push_back(std::move(t));
            }
          }
        }
    }
    level = std::move(next);
  }
  return -1;
}

}  // namespace oracle

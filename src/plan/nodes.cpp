// SPDX-License-Identifier: Apache-2.0
// The plan's GPUs on the fleet's nodes: a fresh plan's groups laid out on
// whole nodes where the counts allow; a re-plan's GPUs of each class kept or
// changed, and the changes each makes.
#include <algorithm>
#include <map>
#include <numeric>
#include <utility>
#include <vector>

#include "plan/program.hpp"

namespace migplan::cli::plan::detail {

// Fresh plan on nodes: per model, whole nodes of one geometry where the counts allow.
void problem::assign_nodes() {
  // Per model: whole nodes of one geometry where the counts allow.
  for (const fleet_node& n : req.nodes) {
    plan_result::node_plan np;
    np.name = n.name;
    for (int i = 0; i < n.gpu_count; ++i) np.gpus.push_back({i, -1});
    res.nodes.push_back(std::move(np));
  }
  for (std::size_t m = 0; m < n_models; ++m) {
    // Geometry classes: groups of one layout, and how many GPUs are left of each group.
    std::map<std::vector<instance>, std::vector<int>> by_layout;
    std::vector<long long> left(res.groups.size(), 0);
    for (std::size_t g = 0; g < res.groups.size(); ++g) {
      if (res.groups[g].gpu != models[m].gpu) continue;
      std::vector<instance> key;
      for (const planned_instance& in : res.groups[g].instances) key.push_back(in.where);
      by_layout[key].push_back(static_cast<int>(g));
      left[g] = res.groups[g].count;
    }
    std::vector<std::vector<int>> geos;
    for (auto& [key, gs] : by_layout) geos.push_back(gs);
    auto remaining = [&](const std::vector<int>& gs) {
      long long s = 0;
      for (int g : gs) s += left[static_cast<std::size_t>(g)];
      return s;
    };
    for (std::size_t ni = 0; ni < req.nodes.size(); ++ni) {
      if (req.nodes[ni].gpu != models[m].gpu) continue;
      int slot = 0;
      const int size = req.nodes[ni].gpu_count;
      while (slot < size) {
        const long long need_here = size - slot;
        int pick = -1;
        for (std::size_t k = 0; k < geos.size(); ++k) {
          const long long r = remaining(geos[k]);
          if (r <= 0) continue;
          const long long pr = pick < 0 ? 0 : remaining(geos[static_cast<std::size_t>(pick)]);
          const bool fits_r = r >= need_here, fits_p = pick >= 0 && pr >= need_here;
          if (pick < 0 || (fits_r && (!fits_p || r < pr)) || (!fits_r && !fits_p && r > pr))
            pick = static_cast<int>(k);
        }
        if (pick < 0) break;
        for (int g : geos[static_cast<std::size_t>(pick)]) {
          while (slot < size && left[static_cast<std::size_t>(g)] > 0) {
            res.nodes[ni].gpus[static_cast<std::size_t>(slot++)].group = g;
            --left[static_cast<std::size_t>(g)];
          }
        }
      }
    }
  }
}

// Re-plan: each class's GPUs, kept ones first, and the change each moved GPU makes.
void problem::assign_changes(const solution_blocks& sb) {
  const std::vector<block>& blocks = sb.blocks;
  const std::vector<std::vector<std::pair<int, long long>>>& block_groups = sb.block_groups;
  // The GPUs of each class: kept ones first, in node order, then the moved ones.
  const auto& cur = *req.current;
  for (const current_node& n : cur) {
    plan_result::node_plan np;
    np.name = n.name;
    for (const current_gpu& g : n.gpus) np.gpus.push_back({g.index, -1});
    res.nodes.push_back(std::move(np));
  }
  std::vector<std::pair<int, int>> change_at;        // (node, gpu position) of each change
  std::vector<std::size_t> next(classes.size(), 0);  // next GPU of the class to hand out
  // Kept blocks first so that each class keeps its first GPUs.
  std::vector<std::size_t> order_b(blocks.size());
  std::iota(order_b.begin(), order_b.end(), std::size_t{0});
  std::stable_sort(order_b.begin(), order_b.end(), [&](std::size_t a, std::size_t b) {
    return sb.cols[static_cast<std::size_t>(blocks[a].column)].keep &&
           !sb.cols[static_cast<std::size_t>(blocks[b].column)].keep;
  });
  // The group a class's current geometry is in, when one is kept.
  std::vector<int> kept_group(classes.size(), -1);
  for (std::size_t b : order_b) {
    const column& c = sb.cols[static_cast<std::size_t>(blocks[b].column)];
    if (c.keep && !block_groups[b].empty())
      kept_group[static_cast<std::size_t>(c.cls)] = block_groups[b].front().first;
  }
  for (std::size_t b : order_b) {
    const column& c = sb.cols[static_cast<std::size_t>(blocks[b].column)];
    const gpu_class& cl = classes[static_cast<std::size_t>(c.cls)];
    for (const auto& [g, n] : block_groups[b]) {
      for (long long k = 0; k < n; ++k) {
        const auto [ni, gi] = cl.gpus[next[static_cast<std::size_t>(c.cls)]++];
        res.nodes[static_cast<std::size_t>(ni)].gpus[static_cast<std::size_t>(gi)].group = g;
        if (c.keep) continue;
        plan_change ch;
        ch.node = cur[static_cast<std::size_t>(ni)].name;
        ch.index = cur[static_cast<std::size_t>(ni)].gpus[static_cast<std::size_t>(gi)].index;
        ch.from_group = kept_group[static_cast<std::size_t>(c.cls)];
        ch.to_group = g;
        // Lost: per profile, the excess of the current count over the new one,
        // idle instances first.
        profile_counts keep_n = c.counts;
        std::vector<current_instance> ins = cl.instances;
        std::stable_sort(ins.begin(), ins.end(),
                         [](const current_instance& a, const current_instance& b2) {
                           return a.in_use && !b2.in_use;  // in-use first: they are kept first
                         });
        for (const current_instance& x : ins) {
          if (keep_n[x.profile] > 0) {
            --keep_n[x.profile];
            continue;
          }
          ch.destroyed.push_back(x);
          if (x.in_use) ch.evicted.push_back(x);
        }
        std::sort(ch.destroyed.begin(), ch.destroyed.end(), gi_less);
        std::sort(ch.evicted.begin(), ch.evicted.end(), gi_less);
        change_at.push_back({ni, gi});
        res.changes.push_back(std::move(ch));
      }
    }
  }
  std::vector<std::size_t> perm(res.changes.size());
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  std::sort(perm.begin(), perm.end(),
            [&](std::size_t a, std::size_t b) { return change_at[a] < change_at[b]; });
  std::vector<plan_change> sorted;
  for (std::size_t k : perm) sorted.push_back(std::move(res.changes[k]));
  res.changes = std::move(sorted);
}

}  // namespace migplan::cli::plan::detail

// SPDX-License-Identifier: Apache-2.0
#include "replay_oracle.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "oracle.hpp"

namespace oracle {
namespace {

using migplan::gpu_model;

// Every layout of a model, as the oracle enumerates them.
struct model_layouts {
  std::set<layout_set> valid;
  std::vector<layout_set> all;
};

const model_layouts& layouts_of(const gpu_model& gpu) {
  static std::map<const gpu_model*, model_layouts> cache;
  auto it = cache.find(&gpu);
  if (it != cache.end()) return it->second;
  model_layouts ml;
  for (const auto& [n, sets] : all_layouts(gpu))
    for (const layout_set& l : sets) {
      ml.valid.insert(l);
      ml.all.push_back(l);
    }
  return cache.emplace(&gpu, std::move(ml)).first->second;
}

struct room3 {
  int units = 0;    // reachable units
  int compute = 0;  // reachable compute
  std::uint64_t extensions = 0;
};

int compute_of(const gpu_model& gpu, const layout_set& l) {
  int c = 0;
  for (const auto& [s, p] : l) c += gpu.profiles[static_cast<std::size_t>(p)].compute_slices;
  return c;
}

room3 room_of(const gpu_model& gpu, const layout_set& l) {
  static std::map<std::pair<const gpu_model*, layout_set>, room3> memo;
  const auto key = std::make_pair(&gpu, l);
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  room3 r;
  for (const layout_set& m : layouts_of(gpu).all) {
    if (m.size() <= l.size() || !std::includes(m.begin(), m.end(), l.begin(), l.end())) continue;
    ++r.extensions;
    int units = 0;
    int compute = 0;
    for (const auto& [s, p] : m) {
      if (std::binary_search(l.begin(), l.end(), std::make_pair(s, p))) continue;
      units += gpu.profiles[static_cast<std::size_t>(p)].size;
      compute += gpu.profiles[static_cast<std::size_t>(p)].compute_slices;
    }
    r.units = std::max(r.units, units);
    r.compute = std::max(r.compute, compute);
  }
  memo.emplace(key, r);
  return r;
}

layout_set with(layout_set l, int start, int profile) {
  l.emplace_back(start, profile);
  std::sort(l.begin(), l.end());
  return l;
}

// One GPU: dynamic (its instances) or static (its geometry and busy flags).
struct gpu_box {
  const gpu_model* gpu = nullptr;
  bool fixed = false;
  layout_set held;         // dynamic: the instances
  layout_set geometry;     // static: the instances of the geometry
  std::vector<bool> busy;  // static: per geometry instance

  bool can_add(int p, int s) const {
    if (fixed) {
      for (std::size_t i = 0; i < geometry.size(); ++i)
        if (!busy[i] && geometry[i] == std::make_pair(s, p)) return true;
      return false;
    }
    return layouts_of(*gpu).valid.count(with(held, s, p)) != 0;
  }
  void add(int p, int s) {
    if (fixed) {
      for (std::size_t i = 0; i < geometry.size(); ++i)
        if (!busy[i] && geometry[i] == std::make_pair(s, p)) {
          busy[i] = true;
          return;
        }
    }
    held = with(held, s, p);
  }
  void remove(int p, int s) {
    if (fixed) {
      for (std::size_t i = 0; i < geometry.size(); ++i)
        if (busy[i] && geometry[i] == std::make_pair(s, p)) {
          busy[i] = false;
          return;
        }
    }
    held.erase(std::find(held.begin(), held.end(), std::make_pair(s, p)));
  }
  bool in_use() const {
    if (fixed) return std::find(busy.begin(), busy.end(), true) != busy.end();
    return !held.empty();
  }
  int used_compute() const {
    if (!fixed) return compute_of(*gpu, held);
    int c = 0;
    for (std::size_t i = 0; i < geometry.size(); ++i)
      if (busy[i]) c += gpu->profiles[static_cast<std::size_t>(geometry[i].second)].compute_slices;
    return c;
  }
  int stranded() const {
    if (fixed) return gpu->compute_slices - compute_of(*gpu, geometry);
    return gpu->compute_slices - compute_of(*gpu, held) - room_of(*gpu, held).compute;
  }
  // Most more instances of p alone: the largest set of further p instances.
  int more(int p) const {
    if (fixed) {
      int n = 0;
      for (std::size_t i = 0; i < geometry.size(); ++i)
        if (!busy[i] && geometry[i].second == p) ++n;
      return n;
    }
    static std::map<std::tuple<const gpu_model*, layout_set, int>, int> memo;
    const auto key = std::make_tuple(gpu, held, p);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    int best = 0;
    for (const layout_set& m : layouts_of(*gpu).all) {
      if (m.size() <= held.size() || !std::includes(m.begin(), m.end(), held.begin(), held.end()))
        continue;
      bool only_p = true;
      for (const auto& [s, q] : m)
        if (q != p && !std::binary_search(held.begin(), held.end(), std::make_pair(s, q)))
          only_p = false;
      if (only_p) best = std::max(best, static_cast<int>(m.size() - held.size()));
    }
    memo.emplace(key, best);
    return best;
  }
};

// The fleet's GPUs, node by node, and the node of each: static ones keep
// `layouts` as their geometries, dynamic ones hold `layouts` (when given).
void fill_boxes(const migplan::replay_fleet& fleet, bool fixed,
                std::span<const migplan::layout> layouts, std::vector<gpu_box>& gpus,
                std::vector<int>& node_of) {
  for (std::size_t n = 0; n < fleet.nodes.size(); ++n)
    for (int g = 0; g < fleet.nodes[n].gpus; ++g) {
      gpu_box b;
      b.gpu = fleet.models[static_cast<std::size_t>(fleet.nodes[n].model)];
      b.fixed = fixed;
      if (!layouts.empty()) {
        for (const migplan::instance& in : layouts[gpus.size()]) {
          if (fixed)
            b.geometry.emplace_back(in.start, in.profile);
          else
            b.add(in.profile, in.start);
        }
        std::sort(b.geometry.begin(), b.geometry.end());
        b.busy.assign(b.geometry.size(), false);
      }
      gpus.push_back(b);
      node_of.push_back(static_cast<int>(n));
    }
}

// The node a pod of `item` goes to: eligible, best scheduler score, lowest
// index; -1 when none.
int choose_node(const migplan::replay_fleet& fleet, const std::vector<gpu_box>& gpus,
                const std::vector<int>& node_of, const migplan::replay_item& item,
                const migplan::replay_policy& policy) {
  int chosen = -1;
  int chosen_score = -1;
  for (std::size_t n = 0; n < fleet.nodes.size(); ++n) {
    const int p = item.profile[static_cast<std::size_t>(fleet.nodes[n].model)];
    if (p < 0) continue;
    int total = 0;
    int used = 0;
    int cap = 0;
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      if (node_of[g] != static_cast<int>(n)) continue;
      total += gpus[g].more(p);
      used += gpus[g].used_compute();
      cap += gpus[g].gpu->compute_slices;
    }
    if (total < item.count) continue;
    const int score =
        policy.nodes == migplan::node_choice::spread ? (cap - used) * 100 / cap : used * 100 / cap;
    if (score > chosen_score) {
      chosen = static_cast<int>(n);
      chosen_score = score;
    }
  }
  return chosen;
}

// The (GPU, start) one instance of profile p takes on node `chosen`, every
// GPU and start tried; (-1, -1) when none.
std::pair<int, int> choose_on_node(const std::vector<gpu_box>& gpus,
                                   const std::vector<int>& node_of, int chosen, int p,
                                   const migplan::replay_policy& policy) {
  const bool fixed = policy.mode == migplan::replay_mode::static_geometry;
  int best_g = -1;
  int best_s = -1;
  room3 bb;
  room3 ba;
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    if (node_of[g] != chosen) continue;
    const gpu_box& b = gpus[g];
    for (int s = 0; s < b.gpu->units; ++s) {
      if (!b.can_add(p, s)) continue;
      if (fixed || policy.placement == migplan::gpu_choice::first_fit) {
        if (best_g < 0) {
          best_g = static_cast<int>(g);
          best_s = s;
        }
        continue;
      }
      const room3 before = room_of(*b.gpu, b.held);
      const room3 after = room_of(*b.gpu, with(b.held, s, p));
      bool wins = best_g < 0;
      if (!wins) {
        // key: (the GPU is empty, loss of reachable units, loss of reachable
        // compute, reachable units before, -extensions after), smallest
        // wins: a partly used GPU first, then the start that loses least
        const auto key = [](bool empty, const room3& x, const room3& y) {
          return std::make_tuple(empty ? 1 : 0, x.units - y.units, x.compute - y.compute, x.units,
                                 -static_cast<long double>(y.extensions));
        };
        wins = key(b.held.empty(), before, after) <
               key(gpus[static_cast<std::size_t>(best_g)].held.empty(), bb, ba);
      }
      if (wins) {
        best_g = static_cast<int>(g);
        best_s = s;
        bb = before;
        ba = after;
      }
    }
  }
  return {best_g, best_s};
}

}  // namespace

migplan::replay_metrics replay(const migplan::replay_fleet& fleet,
                               std::span<const migplan::replay_item> items,
                               std::span<const migplan::replay_pod> pods,
                               const migplan::replay_policy& policy,
                               std::span<const migplan::layout> geometry) {
  migplan::replay_metrics out;
  if (pods.empty()) return out;
  const bool fixed = policy.mode == migplan::replay_mode::static_geometry;
  const bool dynamic = !fixed;
  std::vector<gpu_box> gpus;
  std::vector<int> node_of;
  fill_boxes(fleet, fixed, fixed ? geometry : std::span<const migplan::layout>(), gpus, node_of);
  std::set<std::int64_t> times;
  out.start = pods[0].start;
  out.end = pods[0].start;
  for (const migplan::replay_pod& p : pods) {
    times.insert(p.start);
    times.insert(p.end);
    out.start = std::min(out.start, p.start);
    out.end = std::max({out.end, p.start, p.end});
  }
  // held[pod] = (gpu, start, profile) of each of its instances
  std::vector<std::vector<std::pair<int, std::pair<int, int>>>> held(pods.size());
  auto count_in_use = [&] {
    int n = 0;
    for (const gpu_box& b : gpus) n += b.in_use() ? 1 : 0;
    return n;
  };
  auto count_stranded = [&] {
    std::int64_t n = 0;
    for (const gpu_box& b : gpus) n += b.stranded();
    return n;
  };
  auto leave = [&](std::size_t i) {
    for (const auto& [g, sp] : held[i])
      gpus[static_cast<std::size_t>(g)].remove(sp.second, sp.first);
    if (dynamic) out.destructions += static_cast<std::int64_t>(held[i].size());
    held[i].clear();
  };
  std::int64_t now = out.start;
  for (const std::int64_t t : times) {
    if (t < out.start) continue;
    out.gpu_time += count_in_use() * (t - now);
    out.stranded_slice_time += count_stranded() * (t - now);
    now = t;
    for (std::size_t i = 0; i < pods.size(); ++i)
      if (pods[i].end == t && pods[i].end > pods[i].start && !held[i].empty()) leave(i);
    for (std::size_t i = 0; i < pods.size(); ++i) {
      if (pods[i].start != t) continue;
      const migplan::replay_item& item = items[static_cast<std::size_t>(pods[i].item)];
      const int chosen = choose_node(fleet, gpus, node_of, item, policy);
      bool ok = chosen >= 0;
      if (ok) {
        const int p = item.profile[static_cast<std::size_t>(
            fleet.nodes[static_cast<std::size_t>(chosen)].model)];
        for (int k = 0; k < item.count && ok; ++k) {
          const auto [best_g, best_s] = choose_on_node(gpus, node_of, chosen, p, policy);
          if (best_g < 0) {
            ok = false;
            break;
          }
          gpus[static_cast<std::size_t>(best_g)].add(p, best_s);
          held[i].push_back({best_g, {best_s, p}});
        }
        if (!ok) {
          for (const auto& [g, sp] : held[i])
            gpus[static_cast<std::size_t>(g)].remove(sp.second, sp.first);
          held[i].clear();
        }
      }
      if (!ok) {
        ++out.pods_rejected;
        out.instances_rejected += item.count;
        if (!out.first_rejection) out.first_rejection = t;
        continue;
      }
      ++out.pods_accepted;
      out.instances_accepted += item.count;
      out.peak_gpus_in_use = std::max(out.peak_gpus_in_use, count_in_use());
      if (dynamic) out.creations += item.count;
      if (pods[i].end > pods[i].start)
        out.instance_time += item.count * (pods[i].end - pods[i].start);
      else
        leave(i);
    }
  }
  out.gpu_time += count_in_use() * (out.end - now);
  out.stranded_slice_time += count_stranded() * (out.end - now);
  return out;
}

std::pair<int, int> place(const migplan::replay_fleet& fleet, const migplan::replay_item& item,
                          std::span<const migplan::layout> held,
                          const migplan::replay_policy& policy) {
  std::vector<gpu_box> gpus;
  std::vector<int> node_of;
  fill_boxes(fleet, false, held, gpus, node_of);
  const int chosen = choose_node(fleet, gpus, node_of, item, policy);
  if (chosen < 0) return {-1, -1};
  const int p =
      item.profile[static_cast<std::size_t>(fleet.nodes[static_cast<std::size_t>(chosen)].model)];
  return choose_on_node(gpus, node_of, chosen, p, policy);
}

}  // namespace oracle

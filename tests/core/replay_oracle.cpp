// SPDX-License-Identifier: Apache-2.0
#include "replay_oracle.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <map>
#include <migplan/moves.hpp>
#include <optional>
#include <set>
#include <string>
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
  bool out = false;        // being reconfigured: fits, holds and strands nothing

  bool can_add(int p, int s) const {
    if (out) return false;
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
    if (out) return 0;
    if (fixed) return gpu->compute_slices - compute_of(*gpu, geometry);
    return gpu->compute_slices - compute_of(*gpu, held) - room_of(*gpu, held).compute;
  }
  // Most more instances of p alone: the largest set of further p instances.
  int more(int p) const {
    if (out) return 0;
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

// HAMi's score of `held` plus profile p at start s, written from its
// description (doc/simulate.md): (longest run of free units, placements of
// every profile that overlap nothing), units alone, larger first.
std::pair<int, int> hami_score(const migplan::gpu_model& gpu, const layout_set& held, int p,
                               int s) {
  const layout_set after = with(held, s, p);
  int slices = 0;
  for (const migplan::profile& pr : gpu.profiles)
    for (int start = 0; start < gpu.units; ++start)
      if (pr.allows_start(start)) slices = std::max(slices, start + pr.size);
  std::vector<bool> used(static_cast<std::size_t>(slices), false);
  for (const auto& [start, profile] : after)
    for (int u = start; u < start + gpu.profiles[static_cast<std::size_t>(profile)].size; ++u)
      used[static_cast<std::size_t>(u)] = true;
  int longest = 0;
  for (int a = 0; a < slices; ++a)
    for (int b = a; b < slices && !used[static_cast<std::size_t>(b)]; ++b)
      longest = std::max(longest, b - a + 1);
  int free = 0;
  for (const migplan::profile& pr : gpu.profiles)
    for (int start = 0; start < gpu.units; ++start) {
      if (!pr.allows_start(start)) continue;
      bool clear = true;
      for (int u = start; u < start + pr.size; ++u)
        clear = clear && !used[static_cast<std::size_t>(u)];
      free += clear ? 1 : 0;
    }
  return {longest, free};
}

// HAMi on node `chosen`: the GPU with the fewest compute slices in use that
// can take it (lowest first on a tie), and there the start of the best
// score, the lowest on a tie.
std::pair<int, int> hami_on_node(const std::vector<gpu_box>& gpus, const std::vector<int>& node_of,
                                 int chosen, int p) {
  int best_g = -1;
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    if (node_of[g] != chosen) continue;
    bool any = false;
    for (int s = 0; s < gpus[g].gpu->units; ++s) any = any || gpus[g].can_add(p, s);
    if (any && (best_g < 0 ||
                gpus[g].used_compute() < gpus[static_cast<std::size_t>(best_g)].used_compute()))
      best_g = static_cast<int>(g);
  }
  if (best_g < 0) return {-1, -1};
  const gpu_box& b = gpus[static_cast<std::size_t>(best_g)];
  int best_s = -1;
  std::pair<int, int> top{-1, -1};
  for (int s = 0; s < b.gpu->units; ++s) {
    if (!b.can_add(p, s)) continue;
    const std::pair<int, int> sc = hami_score(*b.gpu, b.held, p, s);
    if (sc > top) {
      top = sc;
      best_s = s;
    }
  }
  return {best_g, best_s};
}

// The (GPU, start) one instance of profile p takes on node `chosen`, every
// GPU and start tried; (-1, -1) when none.
std::pair<int, int> choose_on_node(const std::vector<gpu_box>& gpus,
                                   const std::vector<int>& node_of, int chosen, int p,
                                   const migplan::replay_policy& policy) {
  const bool fixed = policy.mode == migplan::replay_mode::static_geometry;
  if (!fixed && policy.placement == migplan::gpu_choice::hami)
    return hami_on_node(gpus, node_of, chosen, p);
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

int count_in_use(const std::vector<gpu_box>& gpus) {
  int n = 0;
  for (const gpu_box& b : gpus) n += b.in_use() ? 1 : 0;
  return n;
}

std::int64_t count_stranded(const std::vector<gpu_box>& gpus) {
  std::int64_t n = 0;
  for (const gpu_box& b : gpus) n += b.stranded();
  return n;
}

using held_list = std::vector<std::pair<int, std::pair<int, int>>>;  // (gpu, (start, profile))

// Per fleet model, a replay's figures: each GPU counted to its node's model
// (of every GPU, not only of fleets of several models).
struct per_model {
  const migplan::replay_fleet* fleet;
  const std::vector<int>* node_of;
  std::vector<migplan::replay_model_metrics> models;

  per_model(const migplan::replay_fleet& f, const std::vector<int>& nodes)
      : fleet(&f), node_of(&nodes), models(f.models.size()) {}
  std::size_t model(int gpu) const {
    return static_cast<std::size_t>(
        fleet->nodes[static_cast<std::size_t>((*node_of)[static_cast<std::size_t>(gpu)])].model);
  }
  // `dt` more of each GPU in use and its stranded slices.
  void areas(const std::vector<gpu_box>& gpus, std::int64_t dt) {
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      migplan::replay_model_metrics& m = models[model(static_cast<int>(g))];
      m.gpu_time += gpus[g].in_use() ? dt : 0;
      m.stranded_slice_time += gpus[g].stranded() * dt;
    }
  }
  // A pod holding `held` (its first GPU's model is the pod's) started, of
  // `count` instances for `duration`; `gpus` with it.
  void start(const held_list& held, int count, std::int64_t duration,
             const std::vector<gpu_box>& gpus) {
    const std::size_t at = model(held.front().first);
    migplan::replay_model_metrics& m = models[at];
    ++m.pods_accepted;
    m.instances_accepted += count;
    m.instance_time += count * duration;
    int used = 0;
    for (std::size_t g = 0; g < gpus.size(); ++g)
      used += model(static_cast<int>(g)) == at && gpus[g].in_use() ? 1 : 0;
    m.peak_gpus_in_use = std::max(m.peak_gpus_in_use, used);
  }
};

// One device of a node as migplan's ResourceSlices publish it: the pool of
// its GPU and where it is.
struct dra_device {
  std::string pool;
  int gpu = 0;  // GPU of the fleet
  int start = 0;
};

// The Kubernetes DRA allocator on one node, literally: each GPU a pool named
// "node-gpu-<index on node>", pools sorted by name as strings, within a pool
// the devices in the order listed (by start); the first `count` devices that
// fit together, trying each in order and backtracking when the rest cannot
// follow.
bool dra_allocate(std::vector<gpu_box>& gpus, const std::vector<int>& node_of, int node, int p,
                  int count, held_list& held) {
  if (count == 0) return true;
  std::vector<dra_device> devices;
  int index = 0;
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    if (node_of[g] != node) continue;
    for (int s = 0; s < gpus[g].gpu->units; ++s)
      if (gpus[g].can_add(p, s))
        devices.push_back({"node-gpu-" + std::to_string(index), static_cast<int>(g), s});
    ++index;
  }
  std::stable_sort(devices.begin(), devices.end(),
                   [](const dra_device& a, const dra_device& b) { return a.pool < b.pool; });
  for (const dra_device& d : devices) {
    gpu_box& b = gpus[static_cast<std::size_t>(d.gpu)];
    if (!b.can_add(p, d.start)) continue;
    b.add(p, d.start);
    held.push_back({d.gpu, {d.start, p}});
    if (dra_allocate(gpus, node_of, node, p, count - 1, held)) return true;
    held.pop_back();
    b.remove(p, d.start);
  }
  return false;
}

// The DRA first fit: the scheduler gives DRA devices no score, so every
// node that can allocate ties and the lowest such node takes the pod.
bool dra_place_pod(const migplan::replay_fleet& fleet, std::vector<gpu_box>& gpus,
                   const std::vector<int>& node_of, const migplan::replay_item& item,
                   held_list& held) {
  for (std::size_t n = 0; n < fleet.nodes.size(); ++n) {
    const int p = item.profile[static_cast<std::size_t>(fleet.nodes[n].model)];
    if (p < 0) continue;
    held.clear();
    if (dra_allocate(gpus, node_of, static_cast<int>(n), p, item.count, held)) return true;
  }
  held.clear();
  return false;
}

// Places a pod of `item` all or nothing; its instances go to `held`. False
// (the fleet unchanged) when it does not fit.
bool place_pod(const migplan::replay_fleet& fleet, std::vector<gpu_box>& gpus,
               const std::vector<int>& node_of, const migplan::replay_item& item,
               const migplan::replay_policy& policy, held_list& held) {
  if (policy.placement == migplan::gpu_choice::name_order)
    return dra_place_pod(fleet, gpus, node_of, item, held);
  const int chosen = choose_node(fleet, gpus, node_of, item, policy);
  if (chosen < 0) return false;
  const int p =
      item.profile[static_cast<std::size_t>(fleet.nodes[static_cast<std::size_t>(chosen)].model)];
  for (int k = 0; k < item.count; ++k) {
    const auto [best_g, best_s] = choose_on_node(gpus, node_of, chosen, p, policy);
    if (best_g < 0) {
      for (const auto& [g, sp] : held)
        gpus[static_cast<std::size_t>(g)].remove(sp.second, sp.first);
      held.clear();
      return false;
    }
    gpus[static_cast<std::size_t>(best_g)].add(p, best_s);
    held.push_back({best_g, {best_s, p}});
  }
  return true;
}

// The p-th percentile by nearest rank, the slow way: the least value v such
// that at least p% of the values are <= v.
std::int64_t percentile(const std::vector<std::int64_t>& values, int p) {
  if (values.empty()) return 0;
  std::vector<std::int64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  for (const std::int64_t v : sorted) {
    const auto at_most =
        std::count_if(sorted.begin(), sorted.end(), [&](std::int64_t x) { return x <= v; });
    if (at_most * 100 >= static_cast<std::int64_t>(sorted.size()) * p) return v;
  }
  return sorted.back();
}

// replay() under a queue, or with a schedule of reconfigurations (either
// pending rule): every time point found by scanning every pod and every
// reconfiguration, the queue a list of pods in arrival order.
migplan::replay_metrics replay_queued(
    const migplan::replay_fleet& fleet, std::span<const migplan::replay_item> items,
    std::span<const migplan::replay_pod> pods, const migplan::replay_policy& policy,
    std::span<const migplan::layout> geometry,
    const std::vector<reconfiguration>* schedule = nullptr, std::int64_t reconfigure_time = 0,
    const replan_times* replans = nullptr,
    std::vector<std::vector<std::vector<std::int64_t>>>* demands = nullptr,
    replan_queues* queues = nullptr) {
  migplan::replay_metrics out;
  const bool fixed = policy.mode == migplan::replay_mode::static_geometry;
  const bool backfill = policy.pending == migplan::pending_rule::backfill;
  const bool rejecting = policy.pending == migplan::pending_rule::reject;
  std::vector<gpu_box> gpus;
  std::vector<int> node_of;
  fill_boxes(fleet, fixed, fixed ? geometry : std::span<const migplan::layout>(), gpus, node_of);
  const std::vector<gpu_box> empty = gpus;
  per_model by_model(fleet, node_of);
  std::vector<std::int64_t> back_at(gpus.size(), -1);  // a GPU being reconfigured: until
  out.start = pods[0].start;
  out.end = pods[0].start;
  for (const migplan::replay_pod& p : pods) {
    out.start = std::min(out.start, p.start);
    out.end = std::max({out.end, p.start, p.end});
  }
  std::vector<held_list> held(pods.size());
  std::vector<std::int64_t> started_at(pods.size(), -1);
  std::vector<bool> running(pods.size(), false);
  std::vector<std::size_t> queue;  // pods waiting, in arrival order
  std::vector<std::int64_t> waits;
  std::vector<std::int64_t> run_ends;  // when each run that ended ended
  std::set<std::size_t> evicted;       // the pods evicted at least once
  // Instances with a cost and a life (dynamic): the idle instances kept,
  // each (GPU, start, profile, expiry), still in their GPU's box.
  const bool keep = !fixed && policy.keep_idle >= 0;
  const std::int64_t create_milli = fixed ? 0 : policy.create_milli;
  struct idle_one {
    int gpu;
    int start;
    int profile;
    std::int64_t expires;
  };
  std::vector<idle_one> idle;
  // The boxes with only their busy instances.
  const auto busy_only = [&] {
    std::vector<gpu_box> b = gpus;
    for (const idle_one& x : idle) b[static_cast<std::size_t>(x.gpu)].remove(x.profile, x.start);
    return b;
  };
  const auto duration = [&](std::size_t i) {
    return std::max<std::int64_t>(pods[i].end - pods[i].start, 0);
  };
  auto leave = [&](std::size_t i, std::int64_t t) {
    if (keep && policy.keep_idle > 0) {
      for (const auto& [g, sp] : held[i])
        idle.push_back({g, sp.first, sp.second, t + policy.keep_idle});
    } else {
      for (const auto& [g, sp] : held[i])
        gpus[static_cast<std::size_t>(g)].remove(sp.second, sp.first);
      if (!fixed) out.destructions += static_cast<std::int64_t>(held[i].size());
    }
    held[i].clear();
    running[i] = false;
  };
  // Keep: the idle instances of `item`'s profile, all from the lowest node
  // with enough, by GPU and start.
  const auto take_idle = [&](const migplan::replay_item& item, held_list& into) {
    for (std::size_t n = 0; n < fleet.nodes.size(); ++n) {
      const int p = item.profile[static_cast<std::size_t>(fleet.nodes[n].model)];
      if (p < 0) continue;
      std::vector<std::size_t> here;
      for (std::size_t k = 0; k < idle.size(); ++k)
        if (node_of[static_cast<std::size_t>(idle[k].gpu)] == static_cast<int>(n) &&
            idle[k].profile == p)
          here.push_back(k);
      if (static_cast<int>(here.size()) < item.count) continue;
      std::sort(here.begin(), here.end(), [&](std::size_t a, std::size_t b) {
        return std::make_pair(idle[a].gpu, idle[a].start) <
               std::make_pair(idle[b].gpu, idle[b].start);
      });
      here.resize(static_cast<std::size_t>(item.count));
      for (const std::size_t k : here) into.push_back({idle[k].gpu, {idle[k].start, p}});
      std::sort(here.rbegin(), here.rend());
      for (const std::size_t k : here) idle.erase(idle.begin() + static_cast<std::ptrdiff_t>(k));
      return true;
    }
    return false;
  };
  // Keep: placed as if no instance were idle; on each GPU it takes, every
  // idle instance lifted, the pod added, and each put back by start while
  // the GPU takes it, the others destroyed.
  const auto reclaim_for = [&](const migplan::replay_item& item, held_list& into) {
    if (idle.empty()) return false;
    std::vector<gpu_box> view = busy_only();
    if (!place_pod(fleet, view, node_of, item, policy, into)) return false;
    std::set<int> touched;
    for (const auto& [g, sp] : into) touched.insert(g);
    std::vector<idle_one> lifted;
    std::vector<idle_one> stay;
    for (const idle_one& x : idle) (touched.count(x.gpu) != 0 ? lifted : stay).push_back(x);
    for (const idle_one& x : lifted)
      gpus[static_cast<std::size_t>(x.gpu)].remove(x.profile, x.start);
    for (const auto& [g, sp] : into) gpus[static_cast<std::size_t>(g)].add(sp.second, sp.first);
    std::sort(lifted.begin(), lifted.end(), [](const idle_one& a, const idle_one& b) {
      return std::make_pair(a.gpu, a.start) < std::make_pair(b.gpu, b.start);
    });
    for (const idle_one& x : lifted) {
      gpu_box& b = gpus[static_cast<std::size_t>(x.gpu)];
      if (b.can_add(x.profile, x.start)) {
        b.add(x.profile, x.start);
        stay.push_back(x);
      } else {
        ++out.reclaims;
        ++out.destructions;
      }
    }
    idle = stay;
    return true;
  };
  // Defrag: where the head goes after the moves, (GPU, (start, profile)).
  std::optional<std::pair<int, std::pair<int, int>>> forced;
  auto try_start = [&](std::size_t i, std::int64_t t) {
    const migplan::replay_item& item = items[static_cast<std::size_t>(pods[i].item)];
    std::int64_t created = item.count;
    if (forced) {
      gpus[static_cast<std::size_t>(forced->first)].add(forced->second.second,
                                                        forced->second.first);
      held[i].push_back(*forced);
      forced.reset();
    } else if (keep && take_idle(item, held[i]))
      created = 0;
    else if (!place_pod(fleet, gpus, node_of, item, policy, held[i]) &&
             !(keep && reclaim_for(item, held[i])))
      return false;
    ++out.pods_accepted;
    out.instances_accepted += item.count;
    out.peak_gpus_in_use = std::max(out.peak_gpus_in_use, count_in_use(busy_only()));
    by_model.start(held[i], item.count, duration(i), busy_only());
    if (!fixed) out.creations += created;
    if (keep) out.reuses += item.count - created;
    const std::int64_t delay = (created * create_milli + 999) / 1000;
    out.create_time += delay;
    started_at[i] = t + delay;
    waits.push_back(t + delay - pods[i].start);
    running[i] = true;
    if (duration(i) > 0 || delay > 0) {
      out.instance_time += item.count * duration(i);
    } else {
      leave(i, t);
      run_ends.push_back(t);
    }
    return true;
  };
  // Defrag: on every node, the fewest moves of at most policy.defrag that
  // let a pod of `item` (one instance) fit there (migplan::fewest_moves,
  // which tests/core/moves_test.cpp checks against a search of every move
  // set); the node with the fewest, the lowest of those; each move's pod
  // runs later by one creation.
  std::set<std::size_t> moved;
  const auto make_room = [&](const migplan::replay_item& item) {
    if (item.count != 1) return false;
    int node = -1;
    migplan::moves_plan best;
    std::vector<int> best_gpus;
    for (std::size_t n = 0; n < fleet.nodes.size(); ++n) {
      const int p = item.profile[static_cast<std::size_t>(fleet.nodes[n].model)];
      if (p < 0) continue;
      std::vector<migplan::moves_gpu> here;
      std::vector<int> index;
      for (std::size_t g = 0; g < gpus.size(); ++g) {
        if (node_of[g] != static_cast<int>(n)) continue;
        migplan::layout l;
        for (const auto& [s, q] : gpus[g].held) l.add({q, s});
        here.push_back({gpus[g].gpu, p, l});
        index.push_back(static_cast<int>(g));
      }
      migplan::moves_plan plan = migplan::fewest_moves(here, policy.defrag);
      if (plan.found && (node < 0 || plan.steps.size() < best.steps.size())) {
        node = static_cast<int>(n);
        best = plan;
        best_gpus = index;
      }
    }
    if (node < 0) return false;
    const std::int64_t pause = (create_milli + 999) / 1000;
    for (const migplan::move_step& m : best.steps) {
      const int from = best_gpus[static_cast<std::size_t>(m.from)];
      const int to = best_gpus[static_cast<std::size_t>(m.to)];
      const std::pair<int, std::pair<int, int>> was{from, {m.what.start, m.what.profile}};
      std::size_t owner = pods.size();
      for (std::size_t i = 0; i < pods.size(); ++i)
        if (running[i] && std::find(held[i].begin(), held[i].end(), was) != held[i].end())
          owner = i;
      assert(owner < pods.size());
      gpus[static_cast<std::size_t>(from)].remove(m.what.profile, m.what.start);
      gpus[static_cast<std::size_t>(to)].add(m.what.profile, m.to_start);
      *std::find(held[owner].begin(), held[owner].end(), was) = {to, {m.to_start, m.what.profile}};
      started_at[owner] += pause;
      moved.insert(owner);
      ++out.moves;
      ++out.creations;
      ++out.destructions;
    }
    const int g = best_gpus[static_cast<std::size_t>(best.gpu)];
    forced = {g, {best.where.start, best.where.profile}};
    return true;
  };
  auto retry = [&](std::int64_t t) {
    std::set<int> failed_items;
    for (std::size_t q = 0; q < queue.size();) {
      const std::size_t i = queue[q];
      if (failed_items.count(pods[i].item) != 0) {
        ++q;
        continue;
      }
      if (try_start(i, t)) {
        queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(q));
        continue;
      }
      // The head of the queue (nothing before it waits) makes room.
      if (policy.defrag > 0 && q == 0 && make_room(items[static_cast<std::size_t>(pods[i].item)])) {
        [[maybe_unused]] const bool ok = try_start(i, t);
        assert(ok);
        ++out.defrag_starts;
        queue.erase(queue.begin());
        continue;
      }
      if (!backfill) return;
      failed_items.insert(pods[i].item);
      ++q;
    }
  };
  // Arrival order: by time, then pod.
  std::vector<std::size_t> arrivals(pods.size());
  for (std::size_t i = 0; i < pods.size(); ++i) arrivals[i] = i;
  std::stable_sort(arrivals.begin(), arrivals.end(),
                   [&](std::size_t a, std::size_t b) { return pods[a].start < pods[b].start; });
  std::vector<std::size_t> rank(pods.size());  // place in arrival order
  for (std::size_t k = 0; k < arrivals.size(); ++k) rank[arrivals[k]] = k;
  const auto count_out = [&] {
    std::int64_t n = 0;
    for (const gpu_box& b : gpus) n += b.out ? 1 : 0;
    return n;
  };
  // GPUs whose reconfiguration has ended by t come back; true when any did.
  const auto back = [&](std::int64_t t) {
    bool any = false;
    for (std::size_t g = 0; g < gpus.size(); ++g)
      if (gpus[g].out && back_at[g] <= t) {
        gpus[g].out = false;
        any = true;
      }
    return any;
  };
  // The scheduled reconfigurations at t: evict, take the GPUs out.
  const auto reconfigure = [&](std::int64_t t) {
    bool any = false;
    for (const reconfiguration& r : *schedule) {
      if (r.time != t) continue;
      any = true;
      const auto g = static_cast<std::size_t>(r.gpu);
      for (std::size_t i = 0; i < pods.size(); ++i) {
        if (!running[i]) continue;
        bool on = false;
        for (const auto& [hg, sp] : held[i]) on = on || hg == r.gpu;
        if (!on) continue;
        const migplan::replay_item& item = items[static_cast<std::size_t>(pods[i].item)];
        leave(i, t);
        run_ends.push_back(t);
        evicted.insert(i);
        ++out.pods_evicted;
        const std::int64_t lost = item.count * (started_at[i] + (pods[i].end - pods[i].start) - t);
        out.instance_time -= lost;
        migplan::replay_model_metrics& its = by_model.models[by_model.model(r.gpu)];
        its.instance_time -= lost;
        if (rejecting) continue;
        --out.pods_accepted;
        out.instances_accepted -= item.count;
        --its.pods_accepted;
        its.instances_accepted -= item.count;
        waits.erase(std::find(waits.begin(), waits.end(), started_at[i] - pods[i].start));
        auto at = queue.begin();
        while (at != queue.end() && rank[*at] < rank[i]) ++at;
        queue.insert(at, i);
      }
      gpus[g].geometry.clear();
      for (const migplan::instance& in : r.geometry)
        gpus[g].geometry.emplace_back(in.start, in.profile);
      std::sort(gpus[g].geometry.begin(), gpus[g].geometry.end());
      gpus[g].busy.assign(gpus[g].geometry.size(), false);
      gpus[g].out = true;
      back_at[g] = t + reconfigure_time;
      ++out.reconfigurations;
    }
    return any;
  };
  // The demand a re-plan at t sees, per model, per profile. The window's
  // peak: at every time of the window, after the departures, the pods
  // running from before plus each prefix of those arriving then in pod
  // order (a pod of no duration counts only in its own prefix); a pod
  // running into the window arrives at its start. Then the largest pod
  // of the profile in the queue.
  const auto demand_at = [&](std::int64_t t) {
    const std::int64_t from = replans->next_window ? t : t - replans->period;
    const std::int64_t to = from + replans->period;
    std::vector<std::vector<std::int64_t>> per_model;
    for (std::size_t m = 0; m < fleet.models.size(); ++m) {
      std::vector<std::int64_t> d(fleet.models[m]->profiles.size(), 0);
      const auto profile_of = [&](std::size_t i) {
        return items[static_cast<std::size_t>(pods[i].item)].profile[m];
      };
      const auto count_of = [&](std::size_t i) {
        return std::int64_t{items[static_cast<std::size_t>(pods[i].item)].count};
      };
      for (std::int64_t at = from; at < to; ++at)
        for (std::size_t p = 0; p < d.size(); ++p) {
          std::int64_t base = 0;
          for (std::size_t i = 0; i < pods.size(); ++i)
            if (profile_of(i) == static_cast<int>(p) && std::max(pods[i].start, from) < at &&
                pods[i].end > at)
              base += count_of(i);
          d[p] = std::max(d[p], base);
          for (std::size_t i = 0; i < pods.size(); ++i) {
            if (profile_of(i) != static_cast<int>(p) || std::max(pods[i].start, from) != at ||
                (pods[i].start < from && pods[i].end <= from))
              continue;
            d[p] = std::max(d[p], base + count_of(i));
            if (pods[i].end > pods[i].start) base += count_of(i);
          }
        }
      for (const std::size_t i : queue)
        if (profile_of(i) >= 0)
          d[static_cast<std::size_t>(profile_of(i))] =
              std::max(d[static_cast<std::size_t>(profile_of(i))], count_of(i));
      per_model.push_back(std::move(d));
    }
    return per_model;
  };
  std::int64_t now = out.start;
  std::size_t peak = 0;
  for (std::int64_t t = out.start;;) {
    out.gpu_time += count_in_use(busy_only()) * (t - now);
    out.stranded_slice_time += count_stranded(busy_only()) * (t - now);
    out.queue_time += static_cast<std::int64_t>(queue.size()) * (t - now);
    out.unavailable_time += count_out() * (t - now);
    out.idle_instance_time += static_cast<std::int64_t>(idle.size()) * (t - now);
    by_model.areas(busy_only(), t - now);
    now = t;
    bool departed = false;
    for (std::size_t i = 0; i < pods.size(); ++i)
      if (running[i] && started_at[i] + duration(i) == t) {
        leave(i, t);
        run_ends.push_back(t);
        departed = true;
      }
    // Idle instances whose time is up.
    for (std::size_t k = idle.size(); k-- > 0;)
      if (idle[k].expires <= t) {
        gpus[static_cast<std::size_t>(idle[k].gpu)].remove(idle[k].profile, idle[k].start);
        idle.erase(idle.begin() + static_cast<std::ptrdiff_t>(k));
        ++out.destructions;
        departed = true;
      }
    if (schedule) {
      departed = back(t) || departed;
      if (replans && t > out.start && t < out.end && (t - out.start) % replans->period == 0) {
        demands->push_back(demand_at(t));
        if (queues) {
          // The queue's items by first pod: a pod of an item not yet listed
          // lists it, one of a listed item counts to it.
          std::vector<migplan::replan_waiting> seen;
          for (const std::size_t i : queue) {
            bool listed = false;
            for (migplan::replan_waiting& w : seen)
              if (w.item == pods[i].item) {
                ++w.pods;
                listed = true;
              }
            if (!listed)
              seen.push_back(
                  {pods[i].item, items[static_cast<std::size_t>(pods[i].item)].count, 1});
          }
          queues->push_back(std::move(seen));
        }
      }
      departed = reconfigure(t) || departed;
      departed = back(t) || departed;
    }
    if (departed) retry(t);
    for (const std::size_t i : arrivals) {
      if (pods[i].start != t) continue;
      // The fleet a pod must fit empty to wait: under a schedule, with the
      // geometries of the time.
      std::vector<gpu_box> trial = empty;
      if (schedule) {
        trial = gpus;
        for (gpu_box& b : trial) {
          b.busy.assign(b.geometry.size(), false);
          b.out = false;
        }
      }
      held_list scratch;
      if (!place_pod(fleet, trial, node_of, items[static_cast<std::size_t>(pods[i].item)], policy,
                     scratch) ||
          (rejecting && !try_start(i, t))) {
        ++out.pods_rejected;
        out.instances_rejected += items[static_cast<std::size_t>(pods[i].item)].count;
        if (!out.first_rejection) out.first_rejection = t;
        continue;
      }
      if (rejecting) continue;
      queue.push_back(i);
      retry(t);
    }
    peak = std::max(peak, queue.size());
    // The next time anything happens within the trace's span.
    std::int64_t next = out.end + 1;
    for (std::size_t i = 0; i < pods.size(); ++i) {
      if (pods[i].start > t) next = std::min(next, pods[i].start);
      if (running[i]) next = std::min(next, started_at[i] + duration(i));
    }
    for (const idle_one& x : idle) next = std::min(next, x.expires);
    if (schedule) {
      for (const reconfiguration& r : *schedule)
        if (r.time > t) next = std::min(next, r.time);
      for (std::size_t g = 0; g < gpus.size(); ++g)
        if (gpus[g].out) next = std::min(next, back_at[g]);
    }
    if (replans) next = std::min(next, t + replans->period - (t - out.start) % replans->period);
    if (next > out.end) break;
    t = next;
  }
  out.gpu_time += count_in_use(busy_only()) * (out.end - now);
  out.stranded_slice_time += count_stranded(busy_only()) * (out.end - now);
  out.queue_time += static_cast<std::int64_t>(queue.size()) * (out.end - now);
  out.unavailable_time += count_out() * (out.end - now);
  out.idle_instance_time += static_cast<std::int64_t>(idle.size()) * (out.end - now);
  by_model.areas(busy_only(), out.end - now);
  out.models = by_model.models;
  out.queue_peak = static_cast<std::int64_t>(peak);
  out.pods_pending = static_cast<std::int64_t>(queue.size());
  out.pods = static_cast<std::int64_t>(pods.size());
  out.pods_evicted_once = static_cast<std::int64_t>(evicted.size());
  out.pods_moved = static_cast<std::int64_t>(moved.size());
  // The runs still going when the replay stops end when their pods would.
  for (std::size_t i = 0; i < pods.size(); ++i)
    if (running[i]) run_ends.push_back(started_at[i] + duration(i));
  if (!run_ends.empty())
    out.makespan = *std::max_element(run_ends.begin(), run_ends.end()) - out.start;
  // Unit by unit of the makespan, the GPUs out of service: a GPU is out in
  // [u, u + 1) when a change of it at or before u has not yet run its time.
  if (schedule)
    for (std::size_t g = 0; g < gpus.size(); ++g)
      for (std::int64_t u = out.start; u < out.start + out.makespan; ++u) {
        bool gone = false;
        for (const reconfiguration& r : *schedule)
          gone = gone ||
                 (r.gpu == static_cast<int>(g) && r.time <= u && u < r.time + reconfigure_time);
        out.unavailable_makespan_time += gone ? 1 : 0;
      }
  for (const std::size_t i : queue) waits.push_back(out.end - pods[i].start);
  out.waits = {percentile(waits, 50), percentile(waits, 95), percentile(waits, 99),
               waits.empty() ? 0 : *std::max_element(waits.begin(), waits.end())};
  return out;
}

}  // namespace

migplan::replay_metrics replay(const migplan::replay_fleet& fleet,
                               std::span<const migplan::replay_item> items,
                               std::span<const migplan::replay_pod> pods,
                               const migplan::replay_policy& policy,
                               std::span<const migplan::layout> geometry) {
  migplan::replay_metrics out;
  out.models.assign(fleet.models.size(), {});
  if (pods.empty()) return out;
  const bool lifecycle = policy.mode == migplan::replay_mode::dynamic &&
                         (policy.keep_idle >= 0 || policy.create_milli > 0);
  if (policy.pending != migplan::pending_rule::reject || lifecycle)
    return replay_queued(fleet, items, pods, policy, geometry);
  const bool fixed = policy.mode == migplan::replay_mode::static_geometry;
  const bool dynamic = !fixed;
  std::vector<gpu_box> gpus;
  std::vector<int> node_of;
  fill_boxes(fleet, fixed, fixed ? geometry : std::span<const migplan::layout>(), gpus, node_of);
  per_model by_model(fleet, node_of);
  std::set<std::int64_t> times;
  out.start = pods[0].start;
  out.end = pods[0].start;
  for (const migplan::replay_pod& p : pods) {
    times.insert(p.start);
    times.insert(p.end);
    out.start = std::min(out.start, p.start);
    out.end = std::max({out.end, p.start, p.end});
  }
  std::vector<held_list> held(pods.size());  // per pod: its instances
  std::optional<std::int64_t> last_end;      // when the latest run ended
  auto leave = [&](std::size_t i, std::int64_t t) {
    for (const auto& [g, sp] : held[i])
      gpus[static_cast<std::size_t>(g)].remove(sp.second, sp.first);
    if (dynamic) out.destructions += static_cast<std::int64_t>(held[i].size());
    held[i].clear();
    last_end = t;  // time only goes forward
  };
  std::int64_t now = out.start;
  for (const std::int64_t t : times) {
    if (t < out.start) continue;
    out.gpu_time += count_in_use(gpus) * (t - now);
    out.stranded_slice_time += count_stranded(gpus) * (t - now);
    by_model.areas(gpus, t - now);
    now = t;
    for (std::size_t i = 0; i < pods.size(); ++i)
      if (pods[i].end == t && pods[i].end > pods[i].start && !held[i].empty()) leave(i, t);
    for (std::size_t i = 0; i < pods.size(); ++i) {
      if (pods[i].start != t) continue;
      const migplan::replay_item& item = items[static_cast<std::size_t>(pods[i].item)];
      if (!place_pod(fleet, gpus, node_of, item, policy, held[i])) {
        ++out.pods_rejected;
        out.instances_rejected += item.count;
        if (!out.first_rejection) out.first_rejection = t;
        continue;
      }
      ++out.pods_accepted;
      out.instances_accepted += item.count;
      out.peak_gpus_in_use = std::max(out.peak_gpus_in_use, count_in_use(gpus));
      by_model.start(held[i], item.count, std::max<std::int64_t>(pods[i].end - pods[i].start, 0),
                     gpus);
      if (dynamic) out.creations += item.count;
      if (pods[i].end > pods[i].start)
        out.instance_time += item.count * (pods[i].end - pods[i].start);
      else
        leave(i, t);
    }
  }
  out.gpu_time += count_in_use(gpus) * (out.end - now);
  out.stranded_slice_time += count_stranded(gpus) * (out.end - now);
  by_model.areas(gpus, out.end - now);
  out.models = by_model.models;
  out.pods = static_cast<std::int64_t>(pods.size());
  if (last_end) out.makespan = *last_end - out.start;
  return out;
}

migplan::replay_metrics replay(const migplan::replay_fleet& fleet,
                               std::span<const migplan::replay_item> items,
                               std::span<const migplan::replay_pod> pods,
                               const migplan::replay_policy& policy,
                               std::span<const migplan::layout> geometry,
                               const std::vector<reconfiguration>& schedule,
                               std::int64_t reconfigure, const replan_times* replans,
                               replan_demands* demands, replan_queues* queues) {
  migplan::replay_metrics out;
  out.models.assign(fleet.models.size(), {});
  if (pods.empty()) return out;
  assert((replans == nullptr) == (demands == nullptr));
  assert(queues == nullptr || demands != nullptr);
  return replay_queued(fleet, items, pods, policy, geometry, &schedule, reconfigure, replans,
                       demands, queues);
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

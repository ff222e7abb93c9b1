// SPDX-License-Identifier: Apache-2.0
// `migplan plan`'s solver: the integer program of doc/plan.md ("How plan
// solves"), built over the core's geometries and solved with CBC (mip.hpp).
#include "plan/solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <migplan/capacity.hpp>
#include <migplan/catalog.hpp>
#include <migplan/compute.hpp>
#include <migplan/enumerate.hpp>
#include <migplan/search.hpp>
#include <migplan/sizing.hpp>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "model/plan_cost.hpp"
#include "plan/certify.hpp"
#include "plan/mip.hpp"

namespace migplan::cli::plan {

namespace {

using clock_type = std::chrono::steady_clock;

// Stage 3 tightens x <= U z by an LP per column only when U is above this.
constexpr double probe_above = 4;

// A column the LP relaxation puts more than this many GPUs on is fixed at
// that many minus this many before CBC sees the program (the bulk; doc/plan.md
// "Large counts"): CBC then decides only a residual of at most this many GPUs
// per column, where its tolerances cannot round a count.
constexpr long long bulk_margin = 1000;
// ... but only a column the LP puts more than this many GPUs on: below it
// CBC's tolerances cannot round a count (a relative 1e-6 of 20,000 is 0.02),
// and fixing a bulk would leave the room and fewest-geometries stages to a
// residual (a 7,000-item mix of 7,409 GPUs took 38 s and two geometries more
// with a bulk fixed, 0.3 s without).
constexpr long long bulk_above = 20000;

// One geometry of a model: its counts, its preferred layout and its room value.
struct config {
  profile_counts counts;
  layout where;      // the search's first (best-scored) layout
  long long room{};  // room_value of that layout
};

// Every geometry of a model, the empty one first. Built once per model and kept.
struct model_configs {
  std::vector<config> configs;
  std::map<profile_counts, int> index;  // counts -> index into configs
};

}  // namespace

long long room_value(const gpu_model& gpu, const room& rm) {
  return static_cast<long long>(rm.reachable_units) * (gpu.compute_slices + 1) +
         rm.reachable_compute;
}

namespace {

// What a model's geometries depend on: its units and compute slices, and
// each profile's name, size, slices, starts, cap and engines (the search's
// rules read nothing else). configs_of keys its cache by this, not by the
// model's address: a model read from a file and freed can leave its address
// to another model with another table, which must not get the first's
// geometries.
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

const model_configs& configs_of(const gpu_model& gpu) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<model_configs>> cache;
  const std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[structure_key(gpu)];
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

// The profile of `gpu` that serves `d`: the named one, or the smallest meeting
// the need as `migplan fit` sizes it; -1 when none.
int serving_profile(const gpu_model& gpu, const demand_item& d) {
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

// For an item named by a compute-instance profile ("1c.3g.20gb"): the GI
// profile of `gpu` whose CIs include it and the CI's index there; {-1, -1}
// when none. A name that is a GI profile is never a CI item.
std::pair<int, int> serving_ci(const gpu_model& gpu, const demand_item& d) {
  if (d.profile.empty() || find_profile(gpu, d.profile) >= 0) return {-1, -1};
  for (std::size_t p = 0; p < gpu.profiles.size(); ++p)
    if (const int q = find_ci(gpu.profiles[p], d.profile); q >= 0) return {static_cast<int>(p), q};
  return {-1, -1};
}

// The CI patterns of a GI profile: every non-empty multiset of its CI
// profiles that fits one GI, with the preferred CI layout of each.
struct ci_pattern {
  std::vector<int> counts;  // per CI profile of the GI
  std::vector<ci_instance> where;
};

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

// A kind of GPU the program chooses how many of: a model's configuration
// (fresh plan), or for a re-plan a class of current GPUs kept as they are or
// moved to a configuration.
struct column {
  int model = 0;          // index into the solver's models
  int config = -1;        // index into configs_of(model); -1 = a kept geometry outside them
  layout where;           // the layout its GPUs get
  profile_counts counts;  // = where.counts()
  long long room = 0;
  double stage1 = 0;  // coefficient of the first objective (cost, or 1 for a change)
  int cls = -1;       // re-plan: the class of current GPUs it draws from
  int pool = -1;      // re-plan: the pool of moved GPUs it draws from (move_pool)
  bool keep = false;  // re-plan: the class's GPUs left unchanged
  int var = -1;
};

// A class of current GPUs: same model and same instances (profile, start, in use).
struct gpu_class {
  int model = 0;
  std::vector<current_gi> instances;  // sorted
  profile_counts counts, in_use;
  std::vector<std::pair<int, int>> gpus;  // (node, gpu position in the node)
};

bool gi_less(const current_gi& a, const current_gi& b) {
  return std::tie(a.profile, a.start, a.in_use) < std::tie(b.profile, b.start, b.in_use);
}

bool covers(const profile_counts& big, const profile_counts& small) {
  for (int p = 0; p < max_profiles; ++p)
    if (big[p] < small[p]) return false;
  return true;
}

// Re-plan: GPUs that may move to the same configurations. Where a changed
// GPU may go depends on its class only through the in-use instances the new
// geometry must keep (none with allow_evict), so the moves of all classes of
// one model and in-use counts are one pool: a variable per pool and
// configuration, not per class and configuration. On a churned fleet, where
// nearly every GPU is a class of its own, that is a few thousand columns
// instead of a million, and the same optimum: a solution's moves are handed
// back to classes after the solve (split_moves).
struct move_pool {
  int model = 0;
  profile_counts in_use;     // what every configuration of the pool must cover
  std::vector<int> classes;  // indices into the classes
  long long gpus = 0;        // over its classes
};

std::vector<move_pool> pool_classes(const std::vector<gpu_class>& classes, bool allow_evict,
                                    std::vector<int>& pool_of) {
  std::vector<move_pool> out;
  std::map<std::pair<int, profile_counts>, int> index;
  pool_of.assign(classes.size(), -1);
  for (std::size_t k = 0; k < classes.size(); ++k) {
    const profile_counts key = allow_evict ? profile_counts{} : classes[k].in_use;
    auto [it, fresh] = index.try_emplace({classes[k].model, key}, static_cast<int>(out.size()));
    if (fresh) out.push_back({classes[k].model, key, {}, 0});
    move_pool& pl = out[static_cast<std::size_t>(it->second)];
    pl.classes.push_back(static_cast<int>(k));
    pl.gpus += static_cast<long long>(classes[k].gpus.size());
    pool_of[k] = it->second;
  }
  return out;
}

// Re-plan: a starting plan for CBC, the obvious greedy: every GPU kept,
// then one GPU at a time the change that most reduces the demand still
// missing, counted in placement units (a missing 7g.80gb weighs as seven
// 1g.10gb), until no change reduces it. `want` is the instances wanted per
// model and profile. Returns GPUs per column. Only the demanded profiles
// decide a change's gain, so GPUs and configurations are compared on those.
std::vector<long long> greedy_moves(const std::vector<column>& cols,
                                    const std::vector<gpu_class>& classes, std::size_t n_pools,
                                    const std::vector<const gpu_model*>& gpus,
                                    const std::vector<std::vector<long long>>& want) {
  std::vector<long long> n(cols.size(), 0);
  std::vector<std::vector<long long>> have(want.size());
  std::vector<std::vector<int>> wanted(want.size());  // per model: the demanded profiles
  for (std::size_t m = 0; m < want.size(); ++m) {
    have[m].assign(want[m].size(), 0);
    for (std::size_t p = 0; p < want[m].size(); ++p)
      if (want[m][p] > 0) wanted[m].push_back(static_cast<int>(p));
  }
  auto project = [&](const column& c) {
    std::vector<int> out;
    for (const int p : wanted[static_cast<std::size_t>(c.model)]) out.push_back(c.counts[p]);
    return out;
  };
  // Kept GPUs that may change, per pool and counts on the demanded profiles.
  struct giver {
    int pool = 0, model = 0;
    std::vector<int> counts;
    std::vector<std::size_t> keep_cols;
    long long left = 0;
  };
  std::map<std::pair<int, std::vector<int>>, giver> givers;
  // Per pool: one move column per distinct counts on the demanded profiles.
  std::vector<std::map<std::vector<int>, std::size_t>> moves(n_pools);
  for (std::size_t j = 0; j < cols.size(); ++j) {
    const column& c = cols[j];
    const auto m = static_cast<std::size_t>(c.model);
    if (!c.keep) {
      moves[static_cast<std::size_t>(c.pool)].try_emplace(project(c), j);
      continue;
    }
    n[j] = static_cast<long long>(classes[static_cast<std::size_t>(c.cls)].gpus.size());
    for (std::size_t p = 0; p < have[m].size(); ++p)
      have[m][p] += n[j] * c.counts[static_cast<int>(p)];
    giver& g = givers[{c.pool, project(c)}];
    g.pool = c.pool;
    g.model = c.model;
    g.counts = project(c);
    g.keep_cols.push_back(j);
    g.left += n[j];
  }
  for (;;) {
    long long best_gain = 0;
    giver* from = nullptr;
    std::size_t to = 0;
    for (auto& [key, g] : givers) {
      if (g.left == 0) continue;
      const auto m = static_cast<std::size_t>(g.model);
      for (const auto& [counts, j] : moves[static_cast<std::size_t>(g.pool)]) {
        long long gain = 0;
        for (std::size_t q = 0; q < counts.size(); ++q) {
          const auto p = static_cast<std::size_t>(wanted[m][q]);
          const long long size = gpus[m]->profiles[p].size;
          const long long h = have[m][p], after = h - g.counts[q] + counts[q];
          gain += size * (std::max(0LL, want[m][p] - h) - std::max(0LL, want[m][p] - after));
        }
        if (gain > best_gain) {
          best_gain = gain;
          from = &g;
          to = j;
        }
      }
    }
    if (from == nullptr) break;
    // The same change, repeated while each repeat gains as much (no
    // deficit it fills runs out, no surplus it takes from does).
    const auto m = static_cast<std::size_t>(from->model);
    const std::vector<int> target = project(cols[to]);
    long long reps = from->left;
    for (std::size_t q = 0; q < target.size(); ++q) {
      const auto p = static_cast<std::size_t>(wanted[m][q]);
      const long long delta = target[q] - from->counts[q], gap = want[m][p] - have[m][p];
      if (delta > 0 && gap > 0) reps = std::min(reps, std::max(1LL, gap / delta));
      if (delta < 0 && gap < 0) reps = std::min(reps, std::max(1LL, -gap / -delta));
    }
    for (const std::size_t k : from->keep_cols)
      for (; reps > 0 && n[k] > 0; --reps) {
        --n[k];
        --from->left;
        ++n[to];
        for (std::size_t p = 0; p < have[m].size(); ++p)
          have[m][p] += cols[to].counts[static_cast<int>(p)] - cols[k].counts[static_cast<int>(p)];
      }
  }
  return n;
}

// Re-plan: hands each pool's moved GPUs (its classes' GPUs not kept) to the
// pool's chosen configurations, so that no GPU "moves" to the counts it has
// (that would be no change). `cols` and `n` are the solution's columns and
// values; returns them with every move column split into one per class.
// A GPU can take any configuration of its pool but the one with its own
// counts, so a split exists exactly when, for every counts x, the moved GPUs
// with counts x plus the moves to x are at most the pool's moves; handing out
// one move at a time from the counts where that sum is largest keeps it so.
// Where it fails (a plan not proven to change the fewest GPUs can move a GPU
// to its own counts), the GPU is kept instead: the same instances, one change
// fewer.
std::pair<std::vector<column>, std::vector<long long>> split_moves(
    const std::vector<column>& cols, const std::vector<long long>& n,
    const std::vector<gpu_class>& classes, const std::vector<move_pool>& pools) {
  std::vector<column> out_cols;
  std::vector<long long> out_n;
  std::vector<std::size_t> keep_col(classes.size(), 0);
  std::vector<long long> moved(classes.size(), 0);  // per class: GPUs not kept
  for (std::size_t j = 0; j < cols.size(); ++j)
    if (cols[j].keep) {
      const auto k = static_cast<std::size_t>(cols[j].cls);
      keep_col[k] = out_cols.size();
      moved[k] = static_cast<long long>(classes[k].gpus.size()) - n[j];
      out_cols.push_back(cols[j]);
      out_n.push_back(n[j]);
    }
  for (std::size_t s = 0; s < pools.size(); ++s) {
    // Per counts: the pool's classes with moved GPUs, and the move columns to them.
    struct side {
      std::vector<int> classes;
      long long gpus = 0;  // moved GPUs of those classes
      std::vector<std::size_t> targets;
      long long moves = 0;  // moves to these counts
    };
    std::map<profile_counts, side> by;
    for (const int k : pools[s].classes)
      if (moved[static_cast<std::size_t>(k)] > 0) {
        side& sd = by[classes[static_cast<std::size_t>(k)].counts];
        sd.classes.push_back(k);
        sd.gpus += moved[static_cast<std::size_t>(k)];
      }
    std::vector<long long> left(cols.size(), 0);
    for (std::size_t j = 0; j < cols.size(); ++j)
      if (!cols[j].keep && cols[j].pool == static_cast<int>(s) && n[j] > 0) {
        side& sd = by[cols[j].counts];
        sd.targets.push_back(j);
        sd.moves += n[j];
        left[j] = n[j];
      }
    std::map<std::pair<int, std::size_t>, std::size_t> split;  // (class, move column) -> out
    auto take_gpu = [&](side& sd) {
      for (const int k : sd.classes)
        if (moved[static_cast<std::size_t>(k)] > 0) {
          --moved[static_cast<std::size_t>(k)];
          --sd.gpus;
          return k;
        }
      return -1;
    };
    auto take_target = [&](side& sd) {
      for (const std::size_t j : sd.targets)
        if (left[j] > 0) {
          --left[j];
          --sd.moves;
          return j;
        }
      return cols.size();
    };
    auto assign = [&](int k, std::size_t j) {
      auto [it, fresh] = split.try_emplace({k, j}, out_cols.size());
      if (fresh) {
        column c = cols[j];
        c.cls = k;
        out_cols.push_back(c);
        out_n.push_back(0);
      }
      ++out_n[it->second];
    };
    for (;;) {
      auto most = by.end();
      for (auto it = by.begin(); it != by.end(); ++it)
        if (most == by.end() ||
            it->second.gpus + it->second.moves > most->second.gpus + most->second.moves)
          most = it;
      if (most == by.end() || most->second.gpus + most->second.moves == 0) break;
      // The other side: the counts with the most of what `most` needs.
      const bool give_target = most->second.moves > 0;
      auto other = by.end();
      for (auto it = by.begin(); it != by.end(); ++it) {
        if (it == most) continue;
        const long long have = give_target ? it->second.gpus : it->second.moves;
        if (have > 0 &&
            (other == by.end() || have > (give_target ? other->second.gpus : other->second.moves)))
          other = it;
      }
      if (other == by.end()) {
        // Only GPUs with these counts are left to move to them: keep one.
        const int k = take_gpu(most->second);
        const std::size_t j = take_target(most->second);
        if (k < 0 || j == cols.size()) break;  // unreachable: both sides were non-empty
        ++out_n[keep_col[static_cast<std::size_t>(k)]];
        continue;
      }
      side& gpus_from = give_target ? other->second : most->second;
      side& moves_to = give_target ? most->second : other->second;
      const int k = take_gpu(gpus_from);
      const std::size_t j = take_target(moves_to);
      assign(k, j);
    }
  }
  return {std::move(out_cols), std::move(out_n)};
}

// A block of GPUs of one layout handed out to demand, and where they came from.
struct block {
  int model = 0;
  layout where;
  long long count = 0;
  int column = -1;
};

// A block's GPUs after serving: consecutive runs with one `serves` per instance.
struct served_run {
  int model = 0;
  layout where;
  std::vector<int> serves;
  long long count = 0;
};

// Hands the instances of `blocks` (one model) to the items' served counts,
// per profile in item order; GPUs in a run serve alike, so a run ends where
// an item's count does.
std::vector<std::vector<served_run>> distribute(
    const std::vector<block>& blocks, std::vector<std::vector<std::pair<int, long long>>> queues) {
  std::vector<std::vector<served_run>> out(blocks.size());
  std::vector<std::size_t> head(queues.size(), 0);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    long long left = blocks[b].count;
    while (left > 0) {
      // One GPU's assignment, and how many GPUs in a row can repeat it.
      std::vector<int> serves;
      long long reps = left;
      std::map<std::pair<int, std::size_t>, long long> taken;  // (profile, queue pos) -> per GPU
      std::vector<std::size_t> pos = head;
      for (const instance& in : blocks[b].where) {
        auto& q = queues[static_cast<std::size_t>(in.profile)];
        std::size_t& h = pos[static_cast<std::size_t>(in.profile)];
        while (h < q.size() && q[h].second - taken[{in.profile, h}] == 0) ++h;
        if (h >= q.size()) {
          serves.push_back(-1);
          continue;
        }
        ++taken[{in.profile, h}];
        serves.push_back(q[h].first);
      }
      for (const auto& [key, t] : taken)
        if (t > 0)
          reps = std::min(reps, queues[static_cast<std::size_t>(key.first)][key.second].second / t);
      reps = std::max<long long>(reps, 1);
      for (const auto& [key, t] : taken)
        queues[static_cast<std::size_t>(key.first)][key.second].second -= t * reps;
      for (std::size_t p = 0; p < queues.size(); ++p)
        while (head[p] < queues[p].size() && queues[p][head[p]].second == 0) ++head[p];
      out[b].push_back({blocks[b].model, blocks[b].where, serves, reps});
      left -= reps;
    }
  }
  return out;
}

struct stage_budget {
  std::optional<double> total;
  clock_type::time_point start = clock_type::now();
  // The time a stage may take: `share` of what is left.
  std::optional<double> take(double share) const {
    if (!total) return std::nullopt;
    const double used = std::chrono::duration<double>(clock_type::now() - start).count();
    return std::max(0.01, (*total - used) * share);
  }
  // True when under a time limit and less than `fraction` of it is left.
  bool short_of(double fraction) const {
    if (!total) return false;
    const double used = std::chrono::duration<double>(clock_type::now() - start).count();
    return *total - used < *total * fraction;
  }
};

// Rounds a solution's integer variables (CBC returns them within its tolerance).
long long as_count(double v) { return std::llround(v); }

// The least cost any plan leaving at most `unmet` instances unmet can have,
// from what each instance takes of a GPU: a GI takes `size` of its model's
// memory units and its compute slices, and no two GIs of a GPU share either.
// Per instance the cheapest model's share (weight * size / units, or by
// compute slices); the dearest `unmet` instances left out. Items of compute
// instances count nothing (GIs are shared between them).
long long capacity_bound(const plan_request& req, const std::vector<std::vector<int>>& serve,
                         const std::vector<std::vector<int>>& ci,
                         const std::vector<fleet_model>& models,
                         const std::vector<long long>& weight, long long unmet) {
  long long common = 1;  // shares are counted in 1 / common of a unit of cost
  for (const fleet_model& fm : models)
    if (fm.gpu->units <= 0 || fm.gpu->compute_slices <= 0) return 0;
  for (const fleet_model& fm : models)
    common = std::lcm(std::lcm(common, static_cast<long long>(fm.gpu->units)),
                      static_cast<long long>(fm.gpu->compute_slices));
  long long best = 0;
  for (const bool memory : {true, false}) {
    std::vector<std::pair<long long, long long>> shares;  // (share, instances)
    long long allow = unmet;
    for (std::size_t i = 0; i < req.demand.size(); ++i) {
      long long share = -1;
      bool split = false;
      for (std::size_t m = 0; m < models.size(); ++m) {
        const int p = serve[i][m];
        if (p < 0) continue;
        split = split || ci[i][m] >= 0;
        const gpu_model& g = *models[m].gpu;
        const profile& pr = g.profiles[static_cast<std::size_t>(p)];
        const long long s = weight[m] * (memory ? pr.size * (common / g.units)
                                                : pr.compute_slices * (common / g.compute_slices));
        share = share < 0 ? s : std::min(share, s);
      }
      if (share < 0) {
        allow -= req.demand[i].count;  // no model serves it: it is unmet in any plan
        continue;
      }
      if (!split) shares.push_back({share, req.demand[i].count});
    }
    std::sort(shares.begin(), shares.end(), std::greater<>());
    wide total = 0;
    for (auto [share, n] : shares) {
      const long long drop = std::clamp(allow, 0LL, n);
      allow -= drop;
      total += static_cast<wide>(share) * (n - drop);
    }
    const auto b = static_cast<long long>((total + common - 1) / common);
    best = std::max(best, b);
  }
  return best;
}

// A time limit that would likely find a plan meeting the demand, after
// `limit` found none: four times as long (the stages take shares of what is
// left, and a cut search most often needs a few times more), at least 10 s,
// at most the hour --time-limit allows.
double suggest_time_limit(std::optional<double> limit) {
  return std::min(3600.0, std::max(10.0, 4 * limit.value_or(60)));
}

}  // namespace

plan_result solve(const plan_request& req) {
  const auto t0 = clock_type::now();
  plan_result res;
  const bool replan = req.current.has_value();

  // The models: the request's, and for a re-plan those of the current nodes.
  std::vector<fleet_model> models = req.models;
  auto model_of = [&](const gpu_model* g) {
    for (std::size_t i = 0; i < models.size(); ++i)
      if (models[i].gpu == g) return static_cast<int>(i);
    models.push_back({g, std::nullopt, 1.0});
    return static_cast<int>(models.size()) - 1;
  };
  std::vector<std::optional<long long>> available(models.size());
  for (std::size_t m = 0; m < models.size(); ++m) available[m] = models[m].available;
  if (!req.nodes.empty() && !replan) {
    std::vector<long long> on_nodes(models.size(), 0);
    for (const fleet_node& n : req.nodes) {
      const auto m = static_cast<std::size_t>(model_of(n.gpu));
      on_nodes.resize(models.size(), 0);
      available.resize(models.size());
      on_nodes[m] += n.gpu_count;
    }
    for (std::size_t m = 0; m < models.size(); ++m)
      available[m] = available[m] ? std::min(*available[m], on_nodes[m]) : on_nodes[m];
  }
  std::vector<gpu_class> classes;
  std::vector<move_pool> pools;
  std::vector<int> pool_of;  // per class
  if (replan) {
    std::map<std::pair<int, std::vector<std::tuple<int, int, bool>>>, std::size_t> class_index;
    for (std::size_t ni = 0; ni < req.current->size(); ++ni) {
      const current_node& node = (*req.current)[ni];
      const int m = model_of(node.gpu);
      for (std::size_t gi = 0; gi < node.gpus.size(); ++gi) {
        std::vector<current_gi> ins = node.gpus[gi].instances;
        std::sort(ins.begin(), ins.end(), gi_less);
        std::vector<std::tuple<int, int, bool>> key;
        for (const current_gi& g : ins) key.emplace_back(g.profile, g.start, g.in_use);
        const auto [found, fresh] = class_index.try_emplace({m, std::move(key)}, classes.size());
        auto it = classes.begin() + static_cast<std::ptrdiff_t>(found->second);
        if (fresh) {
          gpu_class c;
          c.model = m;
          c.instances = ins;
          for (const current_gi& g : ins) {
            ++c.counts[g.profile];
            if (g.in_use) ++c.in_use[g.profile];
          }
          classes.push_back(std::move(c));
          it = classes.end() - 1;
        }
        it->gpus.push_back({static_cast<int>(ni), static_cast<int>(gi)});
      }
    }
    pools = pool_classes(classes, req.allow_evict, pool_of);
    // The fleet is exactly the current GPUs.
    available.assign(models.size(), 0);
  }
  available.resize(models.size());

  bool exact_costs = false;
  // Costs as whole units of one common unit (model/plan_cost.hpp): the
  // command refuses costs too fine for that; a request built otherwise gets
  // its costs rounded to millionths of the largest.
  {
    std::vector<double> raw;
    for (const fleet_model& fm : models) raw.push_back(fm.cost);
    if (auto sc = scale_costs(raw)) {
      res.costs = std::move(*sc);
      exact_costs = true;
    } else {
      const double top = *std::max_element(raw.begin(), raw.end());
      for (double c : raw) res.costs.units.push_back(std::max(1LL, std::llround(c / top * 1e6)));
    }
  }
  const std::vector<long long>& weight = res.costs.units;

  const std::size_t n_items = req.demand.size();
  const std::size_t n_models = models.size();
  std::vector<const model_configs*> mc(n_models);
  for (std::size_t m = 0; m < n_models; ++m) mc[m] = &configs_of(*models[m].gpu);
  // serve[i][m]: the profile serving item i on model m, or -1.
  std::vector<std::vector<int>> serve(n_items, std::vector<int>(n_models, -1));
  // ci[i][m]: for a CI item, its CI profile inside GI profile serve[i][m]; else -1.
  std::vector<std::vector<int>> ci(n_items, std::vector<int>(n_models, -1));
  bool all_servable = true;
  for (std::size_t i = 0; i < n_items; ++i) {
    bool any = false;
    for (std::size_t m = 0; m < n_models; ++m) {
      serve[i][m] = serving_profile(*models[m].gpu, req.demand[i]);
      if (serve[i][m] < 0)
        std::tie(serve[i][m], ci[i][m]) = serving_ci(*models[m].gpu, req.demand[i]);
      // A profile no geometry holds (none should exist) serves nothing.
      if (serve[i][m] >= 0 && mc[m]->configs.size() <= 1) serve[i][m] = -1;
      any = any || serve[i][m] >= 0;
    }
    all_servable = all_servable && any;
  }
  bool limited = replan;
  for (std::size_t m = 0; m < n_models; ++m) limited = limited || available[m].has_value();
  const bool need_unmet = limited || !all_servable;
  // Items every model serves alike (the same profile, or CI profile, on each)
  // are one class to the program: it sees their summed count, and the class's
  // instances are shared out to its items, in item order, once it is solved.
  // Ten thousand items of six profiles are then six variables per model, not
  // ten thousand interchangeable ones that branch and bound would explore.
  std::vector<std::size_t> rep(n_items);           // the first item of each item's class
  std::vector<long long> class_count(n_items, 0);  // per representative: the summed count
  {
    std::map<std::pair<std::vector<int>, std::vector<int>>, std::size_t> first;
    for (std::size_t i = 0; i < n_items; ++i) {
      rep[i] = first.try_emplace({serve[i], ci[i]}, i).first->second;
      class_count[rep[i]] += req.demand[i].count;
    }
  }
  const auto is_rep = [&](std::size_t i) { return rep[i] == i; };

  // Columns.
  std::vector<column> cols;
  if (!replan) {
    for (std::size_t m = 0; m < n_models; ++m) {
      if (available[m] && *available[m] <= 0) continue;
      const auto& cs = mc[m]->configs;
      for (std::size_t c = 1; c < cs.size(); ++c) {
        column col;
        col.model = static_cast<int>(m);
        col.config = static_cast<int>(c);
        col.where = cs[c].where;
        col.counts = cs[c].counts;
        col.room = cs[c].room;
        col.stage1 = static_cast<double>(weight[m]);
        cols.push_back(col);
      }
    }
  } else {
    std::vector<std::unique_ptr<room_memo>> memos(n_models);
    for (std::size_t k = 0; k < classes.size(); ++k) {
      const gpu_class& cl = classes[k];
      const auto m = static_cast<std::size_t>(cl.model);
      const auto& cs = mc[m]->configs;
      if (!memos[m]) memos[m] = std::make_unique<room_memo>(*models[m].gpu);
      room_memo* memo = memos[m].get();
      column keep;
      keep.model = cl.model;
      keep.cls = static_cast<int>(k);
      keep.pool = pool_of[k];
      keep.keep = true;
      keep.counts = cl.counts;
      const auto found = mc[m]->index.find(cl.counts);
      keep.config = found == mc[m]->index.end() ? -1 : found->second;
      bool starts_known = !cl.instances.empty();
      for (const current_gi& g : cl.instances) starts_known = starts_known && g.start >= 0;
      if (starts_known) {
        for (const current_gi& g : cl.instances) keep.where.add({g.profile, g.start});
        keep.room = room_value(*models[m].gpu, memo->get(keep.where));
      } else if (keep.config >= 0) {
        keep.where = cs[static_cast<std::size_t>(keep.config)].where;
        keep.room = cs[static_cast<std::size_t>(keep.config)].room;
      } else {
        // Counts no layout holds: keep it, but as a geometry of its own that serves nothing.
        keep.counts = profile_counts{};
        keep.room = 0;
      }
      cols.push_back(keep);
    }
    // Moves, per pool: every configuration holding the pool's in-use
    // instances, its own classes' counts included (split_moves hands those
    // to other classes; moving a GPU to its own counts never pays).
    for (std::size_t s = 0; s < pools.size(); ++s) {
      const auto& cs = mc[static_cast<std::size_t>(pools[s].model)]->configs;
      for (std::size_t c = 0; c < cs.size(); ++c) {
        if (!covers(cs[c].counts, pools[s].in_use)) continue;
        column col;
        col.model = pools[s].model;
        col.config = static_cast<int>(c);
        col.where = cs[c].where;
        col.counts = cs[c].counts;
        col.room = cs[c].room;
        col.stage1 = 1;
        col.pool = static_cast<int>(s);
        cols.push_back(col);
      }
    }
  }

  mip prog;
  constexpr double inf = 1e30;
  for (column& c : cols) {
    double ub = inf;
    if (replan && c.keep)
      ub = static_cast<double>(classes[static_cast<std::size_t>(c.cls)].gpus.size());
    else if (replan)
      ub = static_cast<double>(pools[static_cast<std::size_t>(c.pool)].gpus);
    else if (available[static_cast<std::size_t>(c.model)])
      ub = static_cast<double>(*available[static_cast<std::size_t>(c.model)]);
    c.var = prog.add_var(0, ub, true);
  }
  std::vector<std::vector<int>> yvar(n_items, std::vector<int>(n_models, -1));
  std::vector<int> uvar(n_items, -1);
  std::vector<int> demand_row(n_items, -1);
  std::map<std::pair<std::size_t, std::size_t>, int> capacity_row;  // (model, profile) -> row
  for (std::size_t i = 0; i < n_items; ++i) {
    if (!is_rep(i)) continue;
    const auto count = static_cast<double>(class_count[i]);
    std::vector<std::pair<int, double>> row;
    for (std::size_t m = 0; m < n_models; ++m) {
      if (serve[i][m] < 0) continue;
      yvar[i][m] = prog.add_var(0, count, true);
      row.push_back({yvar[i][m], 1.0});
    }
    if (need_unmet) {
      uvar[i] = prog.add_var(0, count, true);
      row.push_back({uvar[i], 1.0});
    }
    demand_row[i] = prog.add_row(row, count, count);
  }
  // Capacity per (model, profile).
  struct pattern_use {
    int model = 0, gi = 0;
    ci_pattern pattern;
    int var = -1;
  };
  std::vector<pattern_use> patterns;
  for (std::size_t m = 0; m < n_models; ++m) {
    const std::size_t np = models[m].gpu->profiles.size();
    for (std::size_t p = 0; p < np; ++p) {
      std::vector<std::pair<int, double>> row;
      for (std::size_t i = 0; i < n_items; ++i)
        if (is_rep(i) && serve[i][m] == static_cast<int>(p) && ci[i][m] < 0)
          row.push_back({yvar[i][m], 1.0});
      // GIs of p holding CIs: w[m][p][pattern], and a row per CI profile.
      bool has_ci = false;
      for (std::size_t i = 0; i < n_items; ++i)
        has_ci = has_ci || (serve[i][m] == static_cast<int>(p) && ci[i][m] >= 0);
      if (has_ci) {
        const profile& gi = models[m].gpu->profiles[p];
        for (ci_pattern& pat : ci_patterns(gi)) {
          pattern_use u;
          u.model = static_cast<int>(m);
          u.gi = static_cast<int>(p);
          u.pattern = std::move(pat);
          u.var = prog.add_var(0, inf, true);
          row.push_back({u.var, 1.0});
          patterns.push_back(std::move(u));
        }
        for (std::size_t q = 0; q < gi.ci_profiles.size(); ++q) {
          std::vector<std::pair<int, double>> cirow;
          for (std::size_t i = 0; i < n_items; ++i)
            if (is_rep(i) && serve[i][m] == static_cast<int>(p) && ci[i][m] == static_cast<int>(q))
              cirow.push_back({yvar[i][m], 1.0});
          if (cirow.empty()) continue;
          for (const pattern_use& u : patterns)
            if (u.model == static_cast<int>(m) && u.gi == static_cast<int>(p) &&
                u.pattern.counts[q] > 0)
              cirow.push_back({u.var, -static_cast<double>(u.pattern.counts[q])});
          prog.add_row(cirow, -inf, 0);
        }
      }
      if (row.empty()) continue;
      for (const column& c : cols)
        if (c.model == static_cast<int>(m) && c.counts[static_cast<int>(p)] > 0)
          row.push_back({c.var, -static_cast<double>(c.counts[static_cast<int>(p)])});
      capacity_row[{m, p}] = prog.add_row(row, -inf, 0);
    }
  }
  // GPUs per model, or per class of current GPUs.
  if (!replan) {
    for (std::size_t m = 0; m < n_models; ++m) {
      if (!available[m]) continue;
      std::vector<std::pair<int, double>> row;
      for (const column& c : cols)
        if (c.model == static_cast<int>(m)) row.push_back({c.var, 1.0});
      if (!row.empty()) prog.add_row(row, -inf, static_cast<double>(*available[m]));
    }
  } else {
    // Per pool: its classes' kept GPUs and its moves are its GPUs.
    std::vector<std::vector<std::pair<int, double>>> rows(pools.size());
    for (const column& c : cols) rows[static_cast<std::size_t>(c.pool)].push_back({c.var, 1.0});
    for (std::size_t s = 0; s < pools.size(); ++s) {
      const auto n = static_cast<double>(pools[s].gpus);
      prog.add_row(rows[s], n, n);
    }
  }

  // Large counts (doc/plan.md "Large counts"): each column's bulk, what the
  // LP relaxation puts on it less bulk_margin GPUs, is fixed before CBC sees
  // the program, with the demand its instances serve; CBC then decides a
  // residual whose counts its tolerances cannot round. offset[var] is what
  // the bulk adds to a variable. Only where no model is limited, so that the
  // bulk never takes GPUs a limit needs elsewhere.
  std::vector<long long> offset(static_cast<std::size_t>(prog.var_count()), 0);
  const auto ix = [](int var) { return static_cast<std::size_t>(var); };
  mip full = prog;                        // the whole program, for the certificates
  std::optional<mip::lp_answer> cost_lp;  // stage 1's LP relaxation of `full`
  bool bulk = false;
  if (!replan && !need_unmet && patterns.empty()) {
    full.clear_objective();
    for (const column& c : cols) full.set_obj(c.var, c.stage1);
    full.set_maximize(false);
    cost_lp = full.solve_lp();
    if (cost_lp->optimal)
      for (const column& c : cols) {
        const auto lp = static_cast<long long>(std::floor(cost_lp->values[ix(c.var)] + 1e-6));
        if (lp <= bulk_above) continue;
        const long long fixed = lp - bulk_margin;
        offset[ix(c.var)] = fixed;
        bulk = true;
      }
  }
  if (bulk) {
    std::vector<long long> assigned(n_items, 0);
    for (const auto& [mp, r] : capacity_row) {
      const auto [m, p] = mp;
      long long cap = 0;
      for (const column& c : cols)
        if (c.model == static_cast<int>(m))
          cap += offset[ix(c.var)] * c.counts[static_cast<int>(p)];
      for (std::size_t i = 0; i < n_items; ++i) {
        if (!is_rep(i) || serve[i][m] != static_cast<int>(p) || ci[i][m] >= 0) continue;
        const auto in_lp =
            static_cast<long long>(std::floor(cost_lp->values[ix(yvar[i][m])] + 1e-6));
        const long long take = std::max(0LL, std::min({cap, in_lp, class_count[i] - assigned[i]}));
        offset[ix(yvar[i][m])] = take;
        assigned[i] += take;
        cap -= take;
      }
      prog.set_row_bounds(r, -inf, static_cast<double>(cap));
    }
    for (std::size_t i = 0; i < n_items; ++i) {
      if (!is_rep(i)) continue;
      const auto left = static_cast<double>(class_count[i] - assigned[i]);
      prog.set_row_bounds(demand_row[i], left, left);
      for (std::size_t m = 0; m < n_models; ++m)
        if (yvar[i][m] >= 0) prog.set_bounds(yvar[i][m], 0, left);
    }
  }

  // A starting solution: fresh, one pure geometry per (model, profile) on the
  // cheapest model per instance; re-plan, greedy_moves(). Demand then goes
  // greedily onto what is there, the rest unmet.
  std::vector<double> start(static_cast<std::size_t>(prog.var_count()), 0.0);
  {
    std::vector<std::vector<long long>> cap(n_models);
    for (std::size_t m = 0; m < n_models; ++m) cap[m].assign(models[m].gpu->profiles.size(), 0);
    if (replan) {
      // Each item on the first model that serves it.
      std::vector<std::vector<long long>> want(n_models);
      std::vector<const gpu_model*> gpus(n_models);
      for (std::size_t m = 0; m < n_models; ++m) {
        want[m].assign(models[m].gpu->profiles.size(), 0);
        gpus[m] = models[m].gpu;
      }
      for (std::size_t i = 0; i < n_items; ++i) {
        if (!is_rep(i)) continue;
        for (std::size_t m = 0; m < n_models; ++m)
          if (serve[i][m] >= 0) {
            if (ci[i][m] < 0) want[m][static_cast<std::size_t>(serve[i][m])] += class_count[i];
            break;
          }
      }
      const std::vector<long long> n = greedy_moves(cols, classes, pools.size(), gpus, want);
      for (std::size_t j = 0; j < cols.size(); ++j) {
        const column& c = cols[j];
        start[static_cast<std::size_t>(c.var)] = static_cast<double>(n[j]);
        for (std::size_t p = 0; p < cap[static_cast<std::size_t>(c.model)].size(); ++p)
          cap[static_cast<std::size_t>(c.model)][p] += n[j] * c.counts[static_cast<int>(p)];
      }
    } else {
      // Pure geometry: the configuration holding the most of profile p alone.
      std::vector<long long> used(n_models, 0);
      std::map<std::pair<std::size_t, int>, long long> want;  // (model, profile) -> instances
      for (std::size_t i = 0; i < n_items; ++i) {
        int best = -1;
        double best_per = 0;
        for (std::size_t m = 0; m < n_models; ++m) {
          if (serve[i][m] < 0 || (available[m] && *available[m] <= 0)) continue;
          int most = 0;
          for (const config& c : mc[m]->configs)
            if (c.counts.total() == c.counts[serve[i][m]]) most = std::max(most, c.counts.total());
          const double per = models[m].cost / std::max(most, 1);
          if (best < 0 || per < best_per) {
            best = static_cast<int>(m);
            best_per = per;
          }
        }
        if (best >= 0)
          want[{static_cast<std::size_t>(best), serve[i][static_cast<std::size_t>(best)]}] +=
              req.demand[i].count;
      }
      for (const auto& [key, n] : want) {
        const auto [m, p] = key;
        const column* pure = nullptr;
        for (const column& c : cols)
          if (c.model == static_cast<int>(m) && c.counts.total() == c.counts[p] &&
              (pure == nullptr || c.counts[p] > pure->counts[p]))
            pure = &c;
        if (pure == nullptr) continue;
        long long gpus = (n + pure->counts[p] - 1) / pure->counts[p];
        if (available[m]) gpus = std::min(gpus, *available[m] - used[m]);
        if (gpus <= 0) continue;
        used[m] += gpus;
        start[static_cast<std::size_t>(pure->var)] += static_cast<double>(gpus);
        cap[m][static_cast<std::size_t>(p)] += gpus * pure->counts[p];
      }
    }
    bool complete = true;
    for (std::size_t i = 0; i < n_items; ++i) {
      if (!is_rep(i)) continue;
      long long left = class_count[i];
      for (std::size_t m = 0; m < n_models && left > 0; ++m) {
        if (serve[i][m] < 0) continue;
        long long& c = cap[m][static_cast<std::size_t>(serve[i][m])];
        const long long take = std::min(left, c);
        c -= take;
        left -= take;
        start[static_cast<std::size_t>(yvar[i][m])] = static_cast<double>(take);
      }
      if (left > 0 && uvar[i] < 0) complete = false;
      if (uvar[i] >= 0) start[static_cast<std::size_t>(uvar[i])] = static_cast<double>(left);
    }
    if (!complete || !patterns.empty() || bulk) start.clear();
  }

  stage_budget budget{req.time_limit_s};
  std::optional<mip::answer> best;  // the latest stage's solution
  auto run_stage = [&](double share) {
    if (best) {
      std::vector<double> s = best->values;
      s.resize(static_cast<std::size_t>(prog.var_count()), 0.0);
      prog.set_start(std::move(s));
    } else {
      prog.set_start(start);
    }
    return prog.solve(budget.take(share));
  };
  // No plan at all within the time: every instance unmet, and not proven so.
  const auto none_in_time = [&] {
    for (std::size_t i = 0; i < n_items; ++i)
      res.unmet.push_back({static_cast<int>(i), req.demand[i].count});
    res.status = plan_status::timed_out;
    res.suggested_time_limit_s = suggest_time_limit(req.time_limit_s);
    res.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
    return res;
  };
  // Stage 0's proof that no plan leaves less unmet: CBC's, or (checked in
  // integers) the LP relaxation's dual.
  bool unmet_proven = !need_unmet;
  long long unmet_bound = 0;

  // Stage 0: the least unmet demand.
  if (need_unmet) {
    prog.clear_objective();
    for (int u : uvar)
      if (u >= 0) prog.set_obj(u, 1.0);
    prog.set_maximize(false);
    if (const mip::lp_answer lp = prog.solve_lp(); lp.optimal)
      unmet_bound = std::max(0LL, integer_bound(prog, lp.duals).value_or(0));
    mip::answer a = run_stage(0.25);
    if (!a.has_solution()) return none_in_time();
    unmet_proven = a.state == mip::status::optimal && !a.time_limit;
    std::vector<std::pair<int, double>> row;
    for (int u : uvar)
      if (u >= 0) row.push_back({u, 1.0});
    prog.add_row(row, -inf, std::floor(a.objective + 0.5) + 0.5);
    best = std::move(a);
  }

  // Stage 1: the least cost (fresh) or the fewest GPUs changed (re-plan).
  prog.clear_objective();
  for (const column& c : cols) prog.set_obj(c.var, c.stage1);
  prog.set_maximize(false);
  // Its LP relaxation over the whole program (with stage 0's row), whose
  // duals prove the bound once the plan is read (certify.hpp).
  if (!cost_lp) {
    full = prog;
    cost_lp = full.solve_lp();
  }
  // In the costs' own unit for a fresh plan (the program counts whole units).
  if (cost_lp && cost_lp->optimal)
    res.lp_bound =
        cost_lp->objective * (replan || !exact_costs ? 1.0 : std::stod(cost_decimal(1, res.costs)));
  {
    // A re-plan starts from the greedy plan where it leaves no more unmet
    // than stage 0 proved necessary and changes fewer GPUs than stage 0's.
    if (replan && best && !start.empty() && need_unmet) {
      double unmet_greedy = 0, changes_greedy = 0, changes_best = 0;
      for (int u : uvar)
        if (u >= 0) unmet_greedy += start[static_cast<std::size_t>(u)];
      for (const column& c : cols) {
        changes_greedy += c.stage1 * start[static_cast<std::size_t>(c.var)];
        changes_best += c.stage1 * std::round(best->values[static_cast<std::size_t>(c.var)]);
      }
      if (unmet_greedy <= std::round(best->objective) + 0.5 && changes_greedy < changes_best)
        best->values = start;
    }
    mip::answer a = run_stage(0.6);
    if (a.has_solution()) {
      std::vector<std::pair<int, double>> row;
      for (const column& c : cols)
        if (c.stage1 != 0) row.push_back({c.var, c.stage1});
      // The costs are whole units, so the optimum is a whole number.
      if (!row.empty()) prog.add_row(row, -inf, std::round(a.objective) + 0.5);
      best = std::move(a);
    }
  }
  res.stage1_seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
  if (!best) return none_in_time();

  // Stage 2: the most room kept.
  bool later = true;
  prog.clear_objective();
  for (const column& c : cols) prog.set_obj(c.var, static_cast<double>(c.room));
  prog.set_maximize(true);
  {
    mip::answer a = run_stage(0.5);
    if (a.has_solution()) {
      later = later && a.state == mip::status::optimal;
      std::vector<std::pair<int, double>> row;
      for (const column& c : cols)
        if (c.room != 0) row.push_back({c.var, static_cast<double>(c.room)});
      if (!row.empty()) prog.add_row(row, std::floor(a.objective + 0.5) - 0.5, inf);
      best = std::move(a);
    } else {
      later = false;
    }
  }

  // Stage 3: the fewest distinct geometries (non-empty), z[geometry] >= x / U.
  {
    // One row per geometry over all its columns: a fresh plan has one column
    // per geometry, a re-plan a kept column per class and a move column per
    // pool with the same counts; one row per geometry probes one LP per
    // geometry, not one per column (thousands on a churned fleet).
    //
    // A re-plan keeps the GPUs stage 2 kept: the stage only picks the new
    // geometries of the GPUs that change, and a geometry a kept GPU has
    // costs nothing more. Which GPUs stay was decided by the changes and
    // the room; choosing among equally good kept sets for fewer geometries
    // was a search over every kept GPU (minutes on a churned fleet of
    // 5,000) for a cosmetic objective.
    std::set<std::pair<int, profile_counts>> kept;  // geometries kept GPUs have
    double cost_total = 0;
    for (const column& c : cols) {
      const double now = std::round(best->values[static_cast<std::size_t>(c.var)]);
      cost_total += c.stage1 * now;
      if (!c.keep) continue;
      prog.set_bounds(c.var, now, now);
      if (now > 0 && c.counts.total() > 0) kept.insert({c.model, c.counts});
    }
    // (column vars, z var) per geometry, in the order of the columns.
    std::vector<std::pair<std::vector<int>, int>> links;
    {
      std::map<std::pair<int, profile_counts>, std::size_t> index;
      for (const column& c : cols) {
        if (c.keep || c.counts.total() == 0 || kept.contains({c.model, c.counts})) continue;
        const auto [it, fresh] = index.try_emplace({c.model, c.counts}, links.size());
        if (fresh) links.push_back({{}, -1});
        links[it->second].first.push_back(c.var);
      }
      for (auto& [xs, z] : links) z = prog.add_var(0, 1, true);
    }
    std::map<int, std::size_t> col_of_var;
    for (std::size_t j = 0; j < cols.size(); ++j) col_of_var[cols[j].var] = j;
    // sum x <= U z, with U the most the sum can be in the LP relaxation under
    // the held stages: the tighter U, the stronger the relaxation; a geometry
    // the held stages rule out even in the LP is fixed at 0. Probing costs an
    // LP per geometry, which only pays where the plain bound is large: the
    // columns' upper bounds, and for the columns the first objective charges
    // (all of a fresh plan's, a re-plan's moves) the most the held cost allows.
    for (const auto& [xs, z] : links) {
      double free_ub = 0, charged_ub = 0, now = 0;
      double least_charge = inf;
      for (const int x : xs) {
        const column& c = cols[col_of_var.at(x)];
        now += std::round(best->values[static_cast<std::size_t>(x)]);
        if (c.stage1 > 0) {
          charged_ub += prog.upper(x);
          least_charge = std::min(least_charge, c.stage1);
        } else {
          free_ub += prog.upper(x);
        }
      }
      if (least_charge < inf)
        charged_ub = std::min(charged_ub, std::floor((cost_total + 1e-6) / least_charge));
      double ub = free_ub + charged_ub;
      if (ub > probe_above && !budget.short_of(0.15)) {
        mip probe = prog;
        probe.clear_objective();
        for (const int x : xs) probe.set_obj(x, 1.0);
        probe.set_maximize(true);
        const mip::answer lp = probe.solve(std::nullopt, true);
        if (lp.has_solution()) ub = std::min(ub, std::floor(lp.objective + 1e-6));
      }
      ub = std::max(ub, now);  // never below the solution in hand (LP round-off)
      if (ub < 0.5) {
        for (const int x : xs) prog.set_bounds(x, 0, 0);
        continue;
      }
      std::vector<std::pair<int, double>> row;
      for (const int x : xs) row.push_back({x, 1.0});
      row.push_back({z, -ub});
      prog.add_row(row, -inf, 0);
    }
    if (links.size() > 1) {
      prog.clear_objective();
      for (const auto& [xs, z] : links) prog.set_obj(z, 1.0);
      prog.set_maximize(false);
      std::vector<double> s = best->values;
      s.resize(static_cast<std::size_t>(prog.var_count()), 0.0);
      for (const auto& [xs, z] : links)
        for (const int x : xs)
          if (std::round(s[static_cast<std::size_t>(x)]) > 0) s[static_cast<std::size_t>(z)] = 1;
      prog.set_start(s);
      mip::answer a = prog.solve(budget.take(1.0));
      if (a.has_solution()) {
        later = later && a.state == mip::status::optimal;
        best = std::move(a);
      } else {
        later = false;
      }
    }
  }
  // With a bulk fixed, the later objectives were optimised over the residual only.
  res.later_optimal = later && !bulk;

  // Read the solution.
  const std::vector<double>& v = best->values;
  auto val = [&](int var) {
    if (var < 0) return 0LL;
    return (ix(var) < offset.size() ? offset[ix(var)] : 0) + as_count(v[ix(var)]);
  };
  // Per item: its class's instances on each model, shared out in item order
  // (each item takes from the models in order), and what is left unmet.
  std::vector<std::vector<long long>> item_y(n_items, std::vector<long long>(n_models, 0));
  std::vector<long long> item_u(n_items, 0);
  {
    std::vector<std::vector<long long>> left(n_items);
    for (std::size_t i = 0; i < n_items; ++i)
      if (is_rep(i))
        for (std::size_t m = 0; m < n_models; ++m) left[i].push_back(val(yvar[i][m]));
    for (std::size_t i = 0; i < n_items; ++i) {
      long long need = req.demand[i].count;
      std::vector<long long>& pool = left[rep[i]];
      for (std::size_t m = 0; m < n_models && need > 0; ++m) {
        const long long take = std::min(need, pool[m]);
        item_y[i][m] = take;
        pool[m] -= take;
        need -= take;
      }
      item_u[i] = need;
    }
  }
  for (std::size_t i = 0; i < n_items; ++i)
    if (item_u[i] > 0) res.unmet.push_back({static_cast<int>(i), item_u[i]});
  res.feasible = res.unmet.empty();

  // GPUs per column; a re-plan's pooled moves handed to classes.
  std::vector<long long> col_n(cols.size());
  for (std::size_t j = 0; j < cols.size(); ++j) col_n[j] = val(cols[j].var);
  // The program's own columns, for the certificates below (split_moves makes
  // several columns of one pooled variable).
  const std::vector<column> prog_cols = cols;
  if (replan) std::tie(cols, col_n) = split_moves(cols, col_n, classes, pools);
  // Blocks per model: kept classes first (re-plan), then configurations in order.
  std::vector<block> blocks;
  for (std::size_t j = 0; j < cols.size(); ++j) {
    const long long n = col_n[j];
    if (n > 0) blocks.push_back({cols[j].model, cols[j].where, n, static_cast<int>(j)});
  }
  std::stable_sort(blocks.begin(), blocks.end(), [&](const block& a, const block& b) {
    if (a.model != b.model) return a.model < b.model;
    if (a.count != b.count) return a.count > b.count;
    return a.where < b.where;
  });
  // Distribute demand per model, then merge runs into groups.
  struct filling {
    std::vector<ci_instance> where;
    std::vector<int> serves;
  };
  std::vector<filling> fillings;
  std::vector<std::vector<served_run>> runs(blocks.size());
  for (std::size_t m = 0; m < n_models; ++m) {
    std::vector<block> mine;
    std::vector<std::size_t> at;
    for (std::size_t b = 0; b < blocks.size(); ++b)
      if (blocks[b].model == static_cast<int>(m)) {
        mine.push_back(blocks[b]);
        at.push_back(b);
      }
    if (mine.empty()) continue;
    std::vector<std::vector<std::pair<int, long long>>> queues(models[m].gpu->profiles.size());
    for (std::size_t i = 0; i < n_items; ++i) {
      const long long y = item_y[i][m];
      if (y > 0 && ci[i][m] < 0)
        queues[static_cast<std::size_t>(serve[i][m])].push_back({static_cast<int>(i), y});
    }
    // GIs holding CIs: each pattern's GIs take the CI items in item order,
    // in runs that serve alike (fillings), queued after the whole-GI items
    // under ids from n_items up.
    for (std::size_t p = 0; p < queues.size(); ++p) {
      std::vector<std::vector<std::pair<int, long long>>> ciq(
          models[m].gpu->profiles[p].ci_profiles.size());
      for (std::size_t i = 0; i < n_items; ++i) {
        const long long y = item_y[i][m];
        if (y > 0 && ci[i][m] >= 0 && serve[i][m] == static_cast<int>(p))
          ciq[static_cast<std::size_t>(ci[i][m])].push_back({static_cast<int>(i), y});
      }
      for (const pattern_use& u : patterns) {
        if (u.model != static_cast<int>(m) || u.gi != static_cast<int>(p)) continue;
        long long left = val(u.var);
        while (left > 0) {
          filling f;
          f.where = u.pattern.where;
          std::map<std::pair<int, std::size_t>, long long> taken;
          std::vector<std::size_t> pos(ciq.size(), 0);
          for (const ci_instance& c : f.where) {
            auto& q = ciq[static_cast<std::size_t>(c.ci)];
            std::size_t& h = pos[static_cast<std::size_t>(c.ci)];
            while (h < q.size() && q[h].second - taken[{c.ci, h}] <= 0) ++h;
            if (h >= q.size()) {
              f.serves.push_back(-1);
              continue;
            }
            ++taken[{c.ci, h}];
            f.serves.push_back(q[h].first);
          }
          long long reps = left;
          for (const auto& [key, t] : taken)
            if (t > 0)
              reps =
                  std::min(reps, ciq[static_cast<std::size_t>(key.first)][key.second].second / t);
          reps = std::max<long long>(reps, 1);
          for (const auto& [key, t] : taken)
            ciq[static_cast<std::size_t>(key.first)][key.second].second -= t * reps;
          for (auto& q : ciq)
            q.erase(std::remove_if(q.begin(), q.end(), [](const auto& e) { return e.second <= 0; }),
                    q.end());
          queues[p].push_back({static_cast<int>(n_items + fillings.size()), reps});
          fillings.push_back(std::move(f));
          left -= reps;
        }
      }
    }
    auto r = distribute(mine, std::move(queues));
    for (std::size_t k = 0; k < at.size(); ++k) runs[at[k]] = std::move(r[k]);
  }
  struct group_key {
    int model;
    layout where;
    std::vector<int> serves;
    bool operator<(const group_key& o) const {
      if (model != o.model) return model < o.model;
      if (where < o.where) return true;
      if (o.where < where) return false;
      return serves < o.serves;
    }
  };
  std::map<group_key, long long> merged;
  for (const auto& rs : runs)
    for (const served_run& r : rs) merged[{r.model, r.where, r.serves}] += r.count;
  std::vector<std::pair<group_key, long long>> order(merged.begin(), merged.end());
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (a.first.model != b.first.model) return a.first.model < b.first.model;
    return a.second > b.second;
  });
  std::map<group_key, int> group_index;
  for (const auto& [key, n] : order) {
    plan_group g;
    g.gpu = models[static_cast<std::size_t>(key.model)].gpu;
    g.count = n;
    for (int j = 0; j < key.where.size(); ++j) {
      const int sv = key.serves[static_cast<std::size_t>(j)];
      planned_instance in{key.where[j], sv, {}, {}};
      if (sv >= static_cast<int>(n_items)) {
        const filling& f = fillings[static_cast<std::size_t>(sv) - n_items];
        in.serves = -1;
        // A CI that serves nothing is not created: its slices stay free (fewer
        // CIs in a GI always still fit), and a GI left with none is a spare.
        for (std::size_t c = 0; c < f.where.size(); ++c)
          if (f.serves[c] >= 0) {
            in.cis.push_back(f.where[c]);
            in.ci_serves.push_back(f.serves[c]);
          }
      }
      g.instances.push_back(std::move(in));
    }
    group_index[key] = static_cast<int>(res.groups.size());
    res.groups.push_back(std::move(g));
  }
  // What the plan is, counted in integers from its groups (not from the
  // solver's values): the instances each item gets, the GPUs and the cost.
  {
    std::vector<long long> served(n_items, 0);
    for (const plan_group& g : res.groups)
      for (const planned_instance& in : g.instances) {
        if (in.serves >= 0 && static_cast<std::size_t>(in.serves) < n_items)
          served[static_cast<std::size_t>(in.serves)] += g.count;
        for (int sv : in.ci_serves)
          if (sv >= 0 && static_cast<std::size_t>(sv) < n_items)
            served[static_cast<std::size_t>(sv)] += g.count;
      }
    res.unmet.clear();
    for (std::size_t i = 0; i < n_items; ++i)
      if (served[i] < req.demand[i].count)
        res.unmet.push_back({static_cast<int>(i), req.demand[i].count - served[i]});
    res.feasible = res.unmet.empty();
  }
  res.gpu_count = 0;
  res.cost_units = 0;
  for (const plan_group& g : res.groups) {
    bool serves_any = false;
    for (const planned_instance& in : g.instances)
      serves_any = serves_any || in.serves >= 0 || !in.cis.empty();
    if (g.instances.empty() || (replan && !serves_any)) continue;
    res.gpu_count += g.count;
    for (std::size_t m = 0; m < n_models; ++m)
      if (models[m].gpu == g.gpu) {
        res.cost_units += weight[m] * g.count;
        auto it = std::find_if(res.gpus_per_model.begin(), res.gpus_per_model.end(),
                               [&](const auto& e) { return e.first == g.gpu; });
        if (it == res.gpus_per_model.end())
          res.gpus_per_model.push_back({g.gpu, g.count});
        else
          it->second += g.count;
      }
  }
  long long unmet_total = 0;
  for (const plan_unmet& u : res.unmet) unmet_total += u.missing;
  // The lower bound on the cost, proven in integers (doc/plan.md "What is
  // proven"): the LP relaxation's dual over the whole program (a fresh
  // plan), and what the instances need of each GPU's memory and compute
  // (both); never above the plan's own cost.
  long long bound = capacity_bound(req, serve, ci, models, weight, unmet_total);
  // Upper bounds for the certificate: a fresh plan cheaper than this one has
  // at most cost / weight GPUs of each column (a re-plan: a kept column its
  // class's GPUs, a move its pool's), and a CI pattern at most as many GIs as
  // those GPUs hold.
  std::vector<double> upper(static_cast<std::size_t>(full.var_count()), inf);
  {
    std::map<std::pair<int, int>, double> gis;
    for (const column& c : prog_cols) {
      upper[ix(c.var)] =
          !replan  ? std::floor(static_cast<double>(res.cost_units) / c.stage1)
          : c.keep ? static_cast<double>(classes[static_cast<std::size_t>(c.cls)].gpus.size())
                   : static_cast<double>(pools[static_cast<std::size_t>(c.pool)].gpus);
      for (int p = 0; p < max_profiles; ++p) gis[{c.model, p}] += upper[ix(c.var)] * c.counts[p];
    }
    for (const pattern_use& u : patterns) upper[ix(u.var)] = gis[{u.model, u.gi}];
  }
  if (!replan && cost_lp && cost_lp->optimal)
    if (const auto b = integer_bound(full, cost_lp->duals, upper)) bound = std::max(bound, *b);
  res.lower_bound_units = std::min(bound, res.cost_units);
  res.optimal = res.lower_bound_units == res.cost_units;
  res.gap = res.cost_units > 0 ? static_cast<double>(res.cost_units - res.lower_bound_units) /
                                     static_cast<double>(res.cost_units)
                               : 0;
  if (exact_costs) {
    res.cost = std::stod(cost_decimal(res.cost_units, res.costs));
    res.lower_bound = std::stod(cost_decimal(res.lower_bound_units, res.costs));
  } else {
    for (const plan_group& g : res.groups)
      for (std::size_t m = 0; m < n_models; ++m)
        if (models[m].gpu == g.gpu) res.cost += models[m].cost * static_cast<double>(g.count);
    res.lower_bound = res.cost * (1 - res.gap);
  }
  // The first objective's status: the cost (fresh), or the changes (re-plan),
  // whose bound is the LP relaxation's dual over the whole program.
  bool first_proven = res.optimal;
  if (replan) {
    long long changed = 0;
    // Counted on the columns handed to classes (split_moves): several of
    // them share one pooled variable.
    for (std::size_t j = 0; j < cols.size(); ++j)
      if (!cols[j].keep) changed += col_n[j];
    long long changes_bound = 0;
    if (cost_lp && cost_lp->optimal)
      changes_bound = std::max(0LL, integer_bound(full, cost_lp->duals, upper).value_or(0));
    res.changes_lower_bound = std::min(changes_bound, changed);
    first_proven = res.changes_lower_bound == changed;
  }
  if (res.feasible)
    res.status = first_proven ? plan_status::optimal : plan_status::feasible;
  else if (unmet_proven || unmet_bound > 0)
    res.status = plan_status::unmet;
  else {
    res.status = plan_status::timed_out;
    res.suggested_time_limit_s = suggest_time_limit(req.time_limit_s);
  }

  // Each block's GPUs, in order, as group indices.
  std::vector<std::vector<std::pair<int, long long>>> block_groups(blocks.size());
  for (std::size_t b = 0; b < blocks.size(); ++b)
    for (const served_run& r : runs[b])
      block_groups[b].push_back({group_index[{r.model, r.where, r.serves}], r.count});

  if (!replan && !req.nodes.empty()) {
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

  if (replan) {
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
      return cols[static_cast<std::size_t>(blocks[a].column)].keep &&
             !cols[static_cast<std::size_t>(blocks[b].column)].keep;
    });
    // The group a class's current geometry is in, when one is kept.
    std::vector<int> kept_group(classes.size(), -1);
    for (std::size_t b : order_b) {
      const column& c = cols[static_cast<std::size_t>(blocks[b].column)];
      if (c.keep && !block_groups[b].empty())
        kept_group[static_cast<std::size_t>(c.cls)] = block_groups[b].front().first;
    }
    for (std::size_t b : order_b) {
      const column& c = cols[static_cast<std::size_t>(blocks[b].column)];
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
          std::vector<current_gi> ins = cl.instances;
          std::stable_sort(ins.begin(), ins.end(), [](const current_gi& a, const current_gi& b2) {
            return a.in_use && !b2.in_use;  // in-use first: they are kept first
          });
          for (const current_gi& x : ins) {
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
  res.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
  return res;
}

}  // namespace migplan::cli::plan

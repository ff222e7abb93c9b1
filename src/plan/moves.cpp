// SPDX-License-Identifier: Apache-2.0
// A re-plan's current GPUs as the program sees them: classes pooled by where
// their GPUs may move, a greedy starting plan, and the solution's pooled
// moves handed back to classes.
#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "plan/program.hpp"

namespace migplan::cli::plan::detail {

bool gi_less(const current_instance& a, const current_instance& b) {
  return std::tie(a.profile, a.start, a.in_use) < std::tie(b.profile, b.start, b.in_use);
}

bool covers(const profile_counts& big, const profile_counts& small) {
  for (int p = 0; p < max_profiles; ++p)
    if (big[p] < small[p]) return false;
  return true;
}

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

}  // namespace migplan::cli::plan::detail

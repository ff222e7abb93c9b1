// SPDX-License-Identifier: Apache-2.0
// The integer program of doc/plan.md ("How plan solves"): its columns (GPUs
// of one geometry), its rows (demand, capacity, GPUs per model or pool), the
// bulk fixed before CBC sees large counts, and a starting plan.
#include "plan/program.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <migplan/capacity.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "plan/solver.hpp"

namespace migplan::cli::plan::detail {

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

// The columns: a fresh plan's configurations of each model; a re-plan's
// classes kept, and its pools' moves.
void problem::build_columns() {
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
      for (const current_instance& g : cl.instances) starts_known = starts_known && g.start >= 0;
      if (starts_known) {
        for (const current_instance& g : cl.instances) keep.where.add({g.profile, g.start});
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
}

// The variables and rows: GPUs per column, instances served and unmet per
// item class, CI patterns, capacity per (model, profile), GPUs per model or pool.
void problem::build_program() {
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
  yvar.assign(n_items, std::vector<int>(n_models, -1));
  uvar.assign(n_items, -1);
  demand_row.assign(n_items, -1);
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
}

void problem::fix_bulk() {
  // Large counts (doc/plan.md "Large counts"): each column's bulk, what the
  // LP relaxation puts on it less bulk_margin GPUs, is fixed before CBC sees
  // the program, with the demand its instances serve; CBC then decides a
  // residual whose counts its tolerances cannot round. offset[var] is what
  // the bulk adds to a variable. Only where no model is limited, so that the
  // bulk never takes GPUs a limit needs elsewhere.
  offset.assign(static_cast<std::size_t>(prog.var_count()), 0);
  const auto ix = [](int var) { return static_cast<std::size_t>(var); };
  full = prog;
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
}

void problem::starting_plan() {
  // A starting solution: fresh, one pure geometry per (model, profile) on the
  // cheapest model per instance; re-plan, greedy_moves(). Demand then goes
  // greedily onto what is there, the rest unmet.
  start.assign(static_cast<std::size_t>(prog.var_count()), 0.0);
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
      int cheapest = -1;
      double cheapest_per = 0;
      for (std::size_t m = 0; m < n_models; ++m) {
        if (serve[i][m] < 0 || (available[m] && *available[m] <= 0)) continue;
        int most = 0;
        for (const config& c : mc[m]->configs)
          if (c.counts.total() == c.counts[serve[i][m]]) most = std::max(most, c.counts.total());
        const double per = models[m].cost / std::max(most, 1);
        if (cheapest < 0 || per < cheapest_per) {
          cheapest = static_cast<int>(m);
          cheapest_per = per;
        }
      }
      if (cheapest >= 0)
        want[{static_cast<std::size_t>(cheapest), serve[i][static_cast<std::size_t>(cheapest)]}] +=
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

}  // namespace migplan::cli::plan::detail

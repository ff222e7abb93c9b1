// SPDX-License-Identifier: Apache-2.0
// The objectives of doc/plan.md ("How plan solves"), one function each,
// solved in order, each held by a row once solved: (0) the least unmet
// demand, (1) the least cost or the fewest GPUs changed, (2) the most room
// kept, (3) the fewest distinct geometries.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <migplan/lookup.hpp>
#include <migplan/sizing.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/plan_cost.hpp"
#include "plan/certify.hpp"
#include "plan/program.hpp"

namespace migplan::cli::plan::detail {

namespace {

// Stage 3 tightens x <= U z by an LP per column only when U is above this.
constexpr double probe_above = 4;

}  // namespace

// Solves the program with `share` of the time left, from the latest stage's
// solution (or the starting plan before the first).
mip::answer problem::run_stage(double share) {
  if (best) {
    std::vector<double> s = best->values;
    s.resize(static_cast<std::size_t>(prog.var_count()), 0.0);
    prog.set_start(std::move(s));
  } else {
    prog.set_start(start);
  }
  return solve_in_time(budget.take(share));
}

// A search with `limit` seconds; past plan_request::searches_in_time, one
// that the time limit stopped before it found anything.
mip::answer problem::solve_in_time(std::optional<double> limit) {
  if (req.searches_in_time >= 0 && searches_++ >= req.searches_in_time) {
    mip::answer cut;
    cut.time_limit = true;
    return cut;
  }
  return prog.solve(limit);
}

// A time limit that would likely find a plan meeting the demand, after
// `limit` found none: four times as long (the stages take shares of what is
// left, and a cut search most often needs a few times more), at least 10 s,
// at most the hour --time-limit allows.
double suggest_time_limit(std::optional<double> limit) {
  return std::min(3600.0, std::max(10.0, 4 * limit.value_or(60)));
}

namespace {

// Why `g` does not serve the item named `name`: it lacks the profile, or,
// for a compute-instance profile ("1c.3g.40gb"), looked for by its GPU
// instance, the GI's compute instances are unknown or hold no such one.
model_refusal refusal_of(const gpu_model& g, const std::string& name) {
  const std::size_t dot = name.find('.');
  const bool is_ci = dot != std::string::npos && dot > 1 && name[dot - 1] == 'c';
  model_refusal r;
  r.gpu = &g;
  r.gi_profile = is_ci ? name.substr(dot + 1) : name;
  const int gi = find_profile(g, r.gi_profile);
  if (gi < 0)
    r.why = model_refusal::kind::no_profile;
  else if (g.profiles[static_cast<std::size_t>(gi)].ci_profiles.empty())
    r.why = model_refusal::kind::ci_unknown;
  else
    r.why = model_refusal::kind::no_ci_profile;
  return r;
}

}  // namespace

// Marks the unmet items no model of the fleet serves, and says why per model.
void problem::mark_no_model() {
  for (plan_unmet& u : res.unmet) {
    const std::vector<int>& on = serve[static_cast<std::size_t>(u.item)];
    u.no_model = std::none_of(on.begin(), on.end(), [](int p) { return p >= 0; });
    const demand_item& d = req.demand[static_cast<std::size_t>(u.item)];
    if (!u.no_model) continue;
    if (d.profile.empty()) {
      // Sized by memory: a profile whose values are unknown was not
      // considered, and may be large enough (as fit says).
      if (!d.memory_mib || !d.resolved.empty()) continue;
      for (const fleet_model& fm : req.models) {
        model_refusal r;
        r.gpu = fm.gpu;
        r.why = model_refusal::kind::values_unknown;
        for (const int p : size_for(*fm.gpu, need{*d.memory_mib, d.sms, 1}).unknown) {
          const profile& q = fm.gpu->profiles[static_cast<std::size_t>(p)];
          if (!d.compute_slices || q.compute_slices >= *d.compute_slices)
            r.unknown.emplace_back(q.name);
        }
        if (!r.unknown.empty()) u.refusals.push_back(std::move(r));
      }
      continue;
    }
    for (const fleet_model& fm : req.models) u.refusals.push_back(refusal_of(*fm.gpu, d.profile));
  }
}

// No plan at all within the time: every instance unmet, and not proven so.
plan_result problem::none_in_time() {
  for (std::size_t i = 0; i < n_items; ++i)
    res.unmet.push_back({static_cast<int>(i), req.demand[i].count});
  mark_no_model();
  res.first_cut_short = true;
  res.status = plan_status::timed_out;
  res.suggested_time_limit_s = suggest_time_limit(req.time_limit_s);
  res.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
  return res;
}

// Stage 0: the least unmet demand; false when no plan was found in time.
// Its proof that no plan leaves less unmet: CBC's, or (checked in integers)
// the LP relaxation's dual.
bool problem::stage_unmet() {
  unmet_proven = !need_unmet;
  if (!need_unmet) return true;
  prog.clear_objective();
  for (int u : uvar)
    if (u >= 0) prog.set_obj(u, 1.0);
  prog.set_maximize(false);
  if (const mip::lp_answer lp = prog.solve_lp(); lp.optimal)
    unmet_bound = std::max(0LL, integer_bound(prog, lp.duals).value_or(0));
  mip::answer a = run_stage(0.25);
  if (!a.has_solution()) return false;
  unmet_proven = a.state == mip::status::optimal && !a.time_limit;
  std::vector<std::pair<int, double>> row;
  for (int u : uvar)
    if (u >= 0) row.push_back({u, 1.0});
  prog.add_row(row, -inf, std::round(a.objective));
  best = std::move(a);
  return true;
}

// Stage 1: the least cost (fresh) or the fewest GPUs changed (re-plan).
void problem::stage_first() {
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
  // Every cost (or change) is at least 0, so the relaxation is too: CLP's
  // tolerances can give -1e-12 where a re-plan needs no change.
  if (cost_lp && cost_lp->optimal)
    res.lp_bound =
        std::max(0.0, cost_lp->objective *
                          (replan || !exact_costs ? 1.0 : std::stod(cost_decimal(1, res.costs))));
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
  res.first_cut_short = a.time_limit || !a.has_solution();
  if (a.has_solution()) {
    std::vector<std::pair<int, double>> row;
    for (const column& c : cols)
      if (c.stage1 != 0) row.push_back({c.var, c.stage1});
    // The costs are whole units, so the optimum is a whole number.
    if (!row.empty()) prog.add_row(row, -inf, std::round(a.objective));
    best = std::move(a);
  }
}

// Stage 2: the most room kept.
void problem::stage_room() {
  prog.clear_objective();
  for (const column& c : cols) prog.set_obj(c.var, static_cast<double>(c.room));
  prog.set_maximize(true);
  mip::answer a = run_stage(0.5);
  if (a.has_solution()) {
    later = later && a.state == mip::status::optimal;
    std::vector<std::pair<int, double>> row;
    for (const column& c : cols)
      if (c.room != 0) row.push_back({c.var, static_cast<double>(c.room)});
    if (!row.empty()) prog.add_row(row, std::round(a.objective), inf);
    best = std::move(a);
  } else {
    later = false;
  }
}

// Stage 3: the fewest distinct geometries (non-empty), z[geometry] >= x / U.
void problem::stage_geometries() {
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
    mip::answer a = solve_in_time(budget.take(1.0));
    if (a.has_solution()) {
      later = later && a.state == mip::status::optimal;
      best = std::move(a);
    } else {
      later = false;
    }
  }
}

}  // namespace migplan::cli::plan::detail

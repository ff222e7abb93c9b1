// SPDX-License-Identifier: Apache-2.0
// `migplan plan`'s solver: the integer program of doc/plan.md ("How plan
// solves"), built over the core's geometries and solved with CBC (mip.hpp).
// This file runs the steps of program.hpp in order and reads the request's
// models and demand; the steps live in files of their own.
#include "plan/solver.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "model/plan_cost.hpp"
#include "plan/labels.hpp"
#include "plan/program.hpp"

namespace migplan::cli::plan {

long long room_value(const gpu_model& gpu, const room& rm) {
  return static_cast<long long>(rm.reachable_units) * (gpu.compute_slices + 1) +
         rm.reachable_compute;
}

plan_result solver::solve(const plan_request& req) {
  detail::problem pb(req);
  pb.gather_models();
  pb.scale_weights();
  pb.match_demand(geometries_);
  pb.build_columns();
  pb.build_program();
  pb.fix_bulk();
  pb.starting_plan();

  pb.budget = detail::stage_budget{req.time_limit_s};
  if (!pb.stage_unmet()) return pb.none_in_time();
  pb.stage_first();
  pb.res.stage1_seconds = std::chrono::duration<double>(detail::clock_type::now() - pb.t0).count();
  if (!pb.best) return pb.none_in_time();
  pb.stage_room();
  pb.stage_geometries();
  // With a bulk fixed, the later objectives were optimised over the residual only.
  pb.res.later_optimal = pb.later && !pb.bulk;

  const detail::solution_blocks sb = pb.read_groups();
  pb.count_and_prove(sb);
  if (!pb.replan && !req.nodes.empty()) pb.assign_nodes();
  if (pb.replan) pb.assign_changes(sb);
  add_layouts(req, pb.res);
  pb.res.seconds = std::chrono::duration<double>(detail::clock_type::now() - pb.t0).count();
  return std::move(pb.res);
}

plan_result solve(const plan_request& req) { return solver{}.solve(req); }

namespace detail {

// The models: the request's, and for a re-plan those of the current nodes,
// with how many GPUs of each the plan may use; a re-plan's current GPUs in
// classes and pools.
void problem::gather_models() {
  models = req.models;
  auto model_of = [&](const gpu_model* g) {
    for (std::size_t i = 0; i < models.size(); ++i)
      if (models[i].gpu == g) return static_cast<int>(i);
    models.push_back({g, std::nullopt, 1.0});
    return static_cast<int>(models.size()) - 1;
  };
  available.resize(models.size());
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
  if (replan) {
    std::map<std::pair<int, std::vector<std::tuple<int, int, bool>>>, std::size_t> class_index;
    for (std::size_t ni = 0; ni < req.current->size(); ++ni) {
      const current_node& node = (*req.current)[ni];
      const int m = model_of(node.gpu);
      for (std::size_t gi = 0; gi < node.gpus.size(); ++gi) {
        std::vector<current_instance> ins = node.gpus[gi].instances;
        std::sort(ins.begin(), ins.end(), gi_less);
        std::vector<std::tuple<int, int, bool>> key;
        for (const current_instance& g : ins) key.emplace_back(g.profile, g.start, g.in_use);
        const auto [found, fresh] = class_index.try_emplace({m, std::move(key)}, classes.size());
        auto it = classes.begin() + static_cast<std::ptrdiff_t>(found->second);
        if (fresh) {
          gpu_class c;
          c.model = m;
          c.instances = ins;
          for (const current_instance& g : ins) {
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
}

// Costs as whole units of one common unit (model/plan_cost.hpp): the
// command refuses costs too fine for that; a request built otherwise gets
// its costs rounded to millionths of the largest.
void problem::scale_weights() {
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

// The profile serving each item on each model, whether demand may go unmet,
// and the items' classes.
void problem::match_demand(geometry_cache& geometries) {
  n_items = req.demand.size();
  n_models = models.size();
  mc.assign(n_models, nullptr);
  for (std::size_t m = 0; m < n_models; ++m) mc[m] = &geometries.of(*models[m].gpu);
  serve.assign(n_items, std::vector<int>(n_models, -1));
  ci.assign(n_items, std::vector<int>(n_models, -1));
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
  need_unmet = limited || !all_servable;
  // Items every model serves alike (the same profile, or CI profile, on each)
  // are one class to the program: it sees their summed count, and the class's
  // instances are shared out to its items, in item order, once it is solved.
  // Ten thousand items of six profiles are then six variables per model, not
  // ten thousand interchangeable ones that branch and bound would explore.
  rep.assign(n_items, 0);
  class_count.assign(n_items, 0);
  std::map<std::pair<std::vector<int>, std::vector<int>>, std::size_t> first;
  for (std::size_t i = 0; i < n_items; ++i) {
    rep[i] = first.try_emplace({serve[i], ci[i]}, i).first->second;
    class_count[rep[i]] += req.demand[i].count;
  }
}

}  // namespace detail

}  // namespace migplan::cli::plan

// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan plan`'s text report (render/plan_report.cpp), its JSON
// document (render/plan.cpp) and its picture (render/plan_svg.cpp) show: the
// plan's distinct geometries with their GPUs in node order, what each group
// leaves and strands, which items its instances serve, and its nodes folded.
// Internal to those files.

#include <map>
#include <migplan/capacity.hpp>
#include <migplan/compute.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/plan.hpp"

namespace migplan::cli::render::plan_detail {

/// A stranded amount scaled by a GPU count.
struct stranded_sum {
  long long units = 0;
  long long compute_slices = 0;
  long long memory_gib_x100 = 0;
  bool memory_known = true;
  void add(const stranded& s, long long times) {
    units += s.units * times;
    compute_slices += s.compute_slices * times;
    if (s.memory_gib_x100)
      memory_gib_x100 += static_cast<long long>(*s.memory_gib_x100) * times;
    else if (s.units > 0)
      memory_known = false;
  }
};

/// A run of a geometry's GPUs that serve alike: the solver's group they are
/// in, and which of its instances (bit k) serve nothing but are kept because
/// they are in use (a re-plan's GPUs).
struct geometry_run {
  int group = 0;
  unsigned in_use = 0;
  long long gpus = 0;
};

/// One distinct geometry of the report: the solver's groups of one model and
/// one shape (instances at their starts, and their CI splits), which differ
/// only in the items they serve. Its GPUs are its runs in order: in node order
/// (node, then index) where nodes are known, then any left in group order.
struct geometry {
  int first = 0;  // its first group: the shape, the room
  long long count = 0;
  std::vector<geometry_run> runs;
};

struct plan_view {
  std::vector<geometry> geometries;
  std::vector<int> of_group;  // per group of the result: its geometry
  // The geometry's number in the report ("geometry 2"), or -1, of a group index.
  int number(int group) const {
    return group >= 0 && static_cast<std::size_t>(group) < of_group.size()
               ? of_group[static_cast<std::size_t>(group)] + 1
               : -1;
  }
};

/// Nodes alike in a plan: each GPU index gets the same geometry on each.
struct node_fold {
  std::vector<std::size_t> nodes;  ///< indexes into plan_result::nodes, in order
  /// Per geometry number (plan_view::number; -1: none), its GPU indexes
  /// ascending; ordered by their lowest index.
  std::vector<std::pair<int, std::vector<long long>>> parts;
};

/// The plan's nodes folded, in order of each fold's first node: the text
/// report's node lines and --plot's rows, so that both fold alike.
std::vector<node_fold> fold_nodes(const plan_result& res, const plan_view& view);

/// "1g.10gb x7, 3g.40gb": instances of profiles `profiles` of `g` by count, in
/// profile order; "MIG off" for none.
std::string counts_text(const gpu_model& g, const std::vector<int>& profiles);

/// A group's instances by count (counts_text).
std::string group_counts(const plan_group& g);

/// "plan: 2 gpus (h100-80gb x2)": the report's first line but its cost, and
/// --plot's title ("partial plan", "incomplete plan" where the demand is not met).
/// A re-plan adds how many of the fleet's GPUs serve: "serves the demand, of 8
/// in the fleet" (the fleet keeps them all).
std::string headline(const plan_request& req, const plan_result& res);

/// A group's instances as a layout.
layout layout_of(const plan_group& g);

/// What the whole plan strands: each group's strands times its GPUs.
stranded_sum total_stranded(const plan_result& res);

/// The plan's distinct geometries, by model and then most GPUs first.
plan_view view_of(const plan_request& req, const plan_result& res);

/// Per demand item, how many instances (GPU or compute instances) the
/// geometry's GPUs serve, in item order.
std::map<int, long long> serves_of(const plan_result& res, const geometry& geo);

/// The CI profile of a planned GI's compute instance.
const ci_profile& ci_of(const gpu_model& gpu, const planned_instance& pi, const ci_instance& ci);

/// The item the k-th compute instance of `pi` serves, or -1.
int ci_serves_of(const planned_instance& pi, std::size_t k);

/// An LP bound as JSON gives it: nine significant digits, so the LP's
/// 2.0000000000000004 is 2 and a bound of 1.43e-8 (at costs of 1e-9) stays.
double bound_value(double v);

/// An LP bound as text, in fixed notation: at least two decimals and at least
/// three significant digits, trailing zeros dropped ("2", "2.33",
/// "0.0000000143"), so a bound at tiny costs is never printed as 0.
std::string bound_text(double v);

/// The name of demand item `i`, or "?".
std::string item_name(const plan_request& req, int i);

/// Per model of the plan's groups (in their order), the profiles of its
/// instances with values inferred (render/inferred.hpp); models with none
/// are left out.
std::vector<std::pair<const gpu_model*, std::vector<int>>> inferred_of(const plan_result& res);

}  // namespace migplan::cli::render::plan_detail

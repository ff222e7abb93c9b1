// SPDX-License-Identifier: Apache-2.0
// `migplan plan`'s view of a plan (plan_view.hpp) and its JSON document;
// the text report is render/plan_report.cpp.
#include "render/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <migplan/capacity.hpp>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "messages.hpp"
#include "render/diagram.hpp"
#include "render/inferred.hpp"
#include "render/json.hpp"
#include "render/plan_view.hpp"
#include "render/ranges.hpp"
#include "render/style.hpp"
#include "text.hpp"

namespace migplan::cli::render {
namespace plan_detail {
namespace {

// The shape of a group, as a key: per instance its profile, start and CIs.
std::vector<int> shape_key(const plan_group& g) {
  std::vector<int> key;
  for (const planned_instance& pi : g.instances) {
    key.insert(key.end(), {pi.where.profile, pi.where.start, static_cast<int>(pi.cis.size())});
    for (const ci_instance& c : pi.cis) key.insert(key.end(), {c.ci, c.start});
  }
  return key;
}

// Of a re-plan's GPU in group `g`: the instances that serve nothing and stay
// because a workload runs on them (its in-use instances not evicted). An
// in-use instance with a known start is the planned one at that start; the
// others, per profile, are taken to be among those the demand leaves.
unsigned in_use_kept(const plan_group& g, const current_gpu& now, const plan_change* change) {
  std::vector<current_instance> in_use;
  for (const current_instance& gi : now.instances)
    if (gi.in_use) in_use.push_back(gi);
  if (change != nullptr)
    for (const current_instance& gone : change->evicted)
      if (auto it = std::find_if(in_use.begin(), in_use.end(),
                                 [&](const current_instance& x) {
                                   return x.profile == gone.profile && x.start == gone.start;
                                 });
          it != in_use.end())
        in_use.erase(it);
  unsigned mask = 0, matched = 0;
  std::map<int, int> unplaced;
  for (const current_instance& gi : in_use) {
    std::size_t k = 0;
    while (k < g.instances.size() &&
           (gi.start == item::any_start || ((matched >> k) & 1u) != 0 ||
            g.instances[k].where.profile != gi.profile || g.instances[k].where.start != gi.start))
      ++k;
    if (k == g.instances.size()) {
      ++unplaced[gi.profile];
      continue;
    }
    matched |= 1u << k;
    const planned_instance& pi = g.instances[k];
    if (pi.serves < 0 && pi.cis.empty()) mask |= 1u << k;
  }
  for (std::size_t k = 0; k < g.instances.size(); ++k) {
    const planned_instance& pi = g.instances[k];
    if (((matched >> k) & 1u) != 0 || pi.serves >= 0 || !pi.cis.empty() ||
        unplaced[pi.where.profile] <= 0)
      continue;
    --unplaced[pi.where.profile];
    mask |= 1u << k;
  }
  return mask;
}

}  // namespace

layout layout_of(const plan_group& g) {
  layout l;
  for (const planned_instance& pi : g.instances) l.add(pi.where);
  return l;
}

stranded_sum total_stranded(const plan_result& res) {
  stranded_sum sum;
  for (const plan_group& g : res.groups) sum.add(g.strands, g.count);
  return sum;
}

plan_view view_of(const plan_request& req, const plan_result& res) {
  plan_view v;
  std::map<std::pair<const gpu_model*, std::vector<int>>, int> index;
  std::vector<int> model_order;  // per geometry: its model's first appearance
  std::map<const gpu_model*, int> model_at;
  for (std::size_t i = 0; i < res.groups.size(); ++i) {
    const plan_group& g = res.groups[i];
    auto [it, fresh] =
        index.try_emplace({g.gpu, shape_key(g)}, static_cast<int>(v.geometries.size()));
    if (fresh) {
      v.geometries.push_back({static_cast<int>(i), 0, {}});
      model_order.push_back(
          model_at.try_emplace(g.gpu, static_cast<int>(model_at.size())).first->second);
    }
    v.of_group.push_back(it->second);
    v.geometries[static_cast<std::size_t>(it->second)].count += g.count;
  }
  // By model (as the groups come), then the most GPUs first.
  std::vector<int> order(v.geometries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (model_order[ua] != model_order[ub]) return model_order[ua] < model_order[ub];
    return v.geometries[ua].count > v.geometries[ub].count;
  });
  std::vector<int> renumber(order.size());
  std::vector<geometry> sorted;
  for (std::size_t k = 0; k < order.size(); ++k) {
    renumber[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
    sorted.push_back(v.geometries[static_cast<std::size_t>(order[k])]);
  }
  v.geometries = std::move(sorted);
  for (int& g : v.of_group) g = renumber[static_cast<std::size_t>(g)];

  const auto add = [&](int group, unsigned in_use, long long n) {
    auto& runs =
        v.geometries[static_cast<std::size_t>(v.of_group[static_cast<std::size_t>(group)])].runs;
    if (!runs.empty() && runs.back().group == group && runs.back().in_use == in_use)
      runs.back().gpus += n;
    else
      runs.push_back({group, in_use, n});
  };
  // A re-plan's GPUs as they are now, and their changes.
  std::map<std::pair<std::string_view, int>, const current_gpu*> now;
  if (req.current)
    for (const current_node& n : *req.current)
      for (const current_gpu& cg : n.gpus) now[{n.name, cg.index}] = &cg;
  std::map<std::pair<std::string_view, int>, const plan_change*> change_of;
  for (const plan_change& c : res.changes) change_of[{c.node, c.index}] = &c;
  std::vector<long long> placed(res.groups.size(), 0);
  for (const plan_result::node_plan& n : res.nodes)
    for (const plan_result::node_gpu& ng : n.gpus) {
      if (ng.group < 0 || static_cast<std::size_t>(ng.group) >= res.groups.size()) continue;
      const plan_group& g = res.groups[static_cast<std::size_t>(ng.group)];
      if (placed[static_cast<std::size_t>(ng.group)] >= g.count) continue;
      unsigned in_use = 0;
      if (const auto it = now.find({n.name, ng.index}); it != now.end()) {
        const auto c = change_of.find({n.name, ng.index});
        in_use = in_use_kept(g, *it->second, c == change_of.end() ? nullptr : c->second);
      }
      add(ng.group, in_use, 1);
      ++placed[static_cast<std::size_t>(ng.group)];
    }
  for (std::size_t i = 0; i < res.groups.size(); ++i)
    if (placed[i] < res.groups[i].count)
      add(static_cast<int>(i), 0, res.groups[i].count - placed[i]);
  return v;
}

// "1g.10gb x7, 3g.40gb": a geometry by its counts, in profile order.
std::string counts_text(const gpu_model& g, const std::vector<int>& profiles) {
  if (profiles.empty()) return "MIG off";
  std::map<int, int> n;
  for (int p : profiles) ++n[p];
  std::string out;
  for (const auto& [p, c] : n)
    out += fmt::format("{}{}{}", out.empty() ? "" : ", ", c == 1 ? "" : fmt::format("{}x", c),
                       prof(g, p).name);
  return out;
}

std::string group_counts(const plan_group& g) {
  std::vector<int> ps;
  for (const planned_instance& pi : g.instances) ps.push_back(pi.where.profile);
  return counts_text(*g.gpu, ps);
}

std::string headline(const plan_request& req, const plan_result& res) {
  std::string models;
  for (const auto& [gpu, n] : res.gpus_per_model)
    models += fmt::format("{}{} x{}", models.empty() ? "" : ", ", gpu->slug, n);
  const char* what = res.status == plan_status::timed_out ? "incomplete plan"
                     : res.feasible                       ? "plan"
                                                          : "partial plan";
  // A re-plan keeps the whole fleet: say how many of its GPUs the demand
  // needs, of how many, or the geometries' counts below seem to disagree.
  std::string fleet;
  if (req.current) {
    std::size_t gpus = 0;
    for (const current_node& n : *req.current) gpus += n.gpus.size();
    fleet =
        fmt::format(" serve{} the demand, of {} in the fleet", res.gpu_count == 1 ? "s" : "", gpus);
  }
  return fmt::format("{}: {} gpu{}{}{}", what, res.gpu_count, plural(res.gpu_count),
                     models.empty() ? "" : " (" + models + ")", fleet);
}

std::vector<node_fold> fold_nodes(const plan_result& res, const plan_view& view) {
  std::vector<node_fold> folds;
  std::map<std::vector<std::pair<int, std::vector<long long>>>, std::size_t> at;
  for (std::size_t k = 0; k < res.nodes.size(); ++k) {
    std::vector<std::pair<int, std::vector<long long>>> parts;
    for (const plan_result::node_gpu& ng : res.nodes[k].gpus) {
      const int number = ng.group >= 0 ? view.number(ng.group) : -1;
      auto it = std::find_if(parts.begin(), parts.end(),
                             [&](const auto& e) { return e.first == number; });
      if (it == parts.end()) it = parts.insert(parts.end(), {number, {}});
      it->second.push_back(ng.index);
    }
    for (auto& [number, idx] : parts) {
      std::sort(idx.begin(), idx.end());
      idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
    }
    std::sort(parts.begin(), parts.end(),
              [](const auto& a, const auto& b) { return a.second.front() < b.second.front(); });
    const auto [it, fresh] = at.try_emplace(parts, folds.size());
    if (fresh) folds.push_back({{}, std::move(parts)});
    folds[it->second].nodes.push_back(k);
  }
  return folds;
}

// Per demand item, how many instances (GPU or compute instances) the
// geometry's GPUs serve, in item order.
std::vector<std::pair<const gpu_model*, std::vector<int>>> inferred_of(const plan_result& res) {
  std::vector<std::pair<const gpu_model*, std::vector<int>>> used;
  for (const plan_group& g : res.groups) {
    auto it =
        std::find_if(used.begin(), used.end(), [&](const auto& e) { return e.first == g.gpu; });
    if (it == used.end()) it = used.insert(used.end(), {g.gpu, {}});
    for (const planned_instance& pi : g.instances) it->second.push_back(pi.where.profile);
  }
  std::vector<std::pair<const gpu_model*, std::vector<int>>> out;
  for (auto& [gpu, profiles] : used) {
    std::vector<int> inferred = inferred_among(*gpu, profiles);
    if (!inferred.empty()) out.emplace_back(gpu, std::move(inferred));
  }
  return out;
}

std::map<int, long long> serves_of(const plan_result& res, const geometry& geo) {
  std::map<int, long long> out;
  for (const geometry_run& r : geo.runs)
    for (const planned_instance& pi : res.groups[static_cast<std::size_t>(r.group)].instances) {
      if (pi.serves >= 0) out[pi.serves] += r.gpus;
      for (int item_index : pi.ci_serves)
        if (item_index >= 0) out[item_index] += r.gpus;
    }
  return out;
}

// The CI profile of a planned GI's compute instance.
const ci_profile& ci_of(const gpu_model& gpu, const planned_instance& pi, const ci_instance& ci) {
  return prof(gpu, pi.where.profile).ci_profiles[static_cast<std::size_t>(ci.ci)];
}

// The item the k-th compute instance of `pi` serves, or -1.
int ci_serves_of(const planned_instance& pi, std::size_t k) {
  return k < pi.ci_serves.size() ? pi.ci_serves[k] : -1;
}

std::string item_name(const plan_request& req, int i) {
  if (i < 0 || static_cast<std::size_t>(i) >= req.demand.size()) return "?";
  return req.demand[static_cast<std::size_t>(i)].name;
}

double bound_value(double v) {
  if (!std::isfinite(v) || v == 0) return v;
  return std::stod(fmt::format("{:.9g}", v));
}

std::string bound_text(double v) {
  v = bound_value(v);
  if (!std::isfinite(v) || v == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::abs(v))));
  const int decimals = std::clamp(2 - magnitude, 2, 20);
  std::string s = fmt::format("{:.{}f}", v, decimals);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

namespace {

std::string_view status_name(plan_status s) {
  switch (s) {
    case plan_status::optimal:
      return "optimal";
    case plan_status::feasible:
      return "feasible";
    case plan_status::unmet:
      return "unmet";
    case plan_status::timed_out:
      break;
  }
  return "timed_out";
}

void write_item_instance(json_writer& w, const gpu_model& g, int p, int start) {
  const profile& pr = prof(g, p);
  w.key("profile").value(pr.name).key("profile_id").value(pr.id);
  w.key("start");
  if (start == item::any_start)
    w.null();
  else
    w.value(start);
  w.key("size").value(pr.size);
}

void write_stranded_sum(json_writer& w, const stranded_sum& s) {
  w.begin_object().key("units").value(s.units).key("compute_slices").value(s.compute_slices);
  w.key("memory_gib");
  if (s.memory_known)
    w.hundredths(static_cast<int>(std::min<long long>(s.memory_gib_x100, 2'000'000'000)));
  else
    w.null();
  w.end_object();
}

}  // namespace
}  // namespace plan_detail

void plan_json(std::ostream& os, const plan_request& req, const plan_result& res) {
  using namespace plan_detail;
  write_document(os, plan_schema_version, [&](json_writer& w) {
    w.key("status").value(status_name(res.status));
    if (res.suggested_time_limit_s)
      w.key("suggested_time_limit").number(*res.suggested_time_limit_s);
    w.key("feasible").value(res.feasible);
    w.key("gpu_count").value(res.gpu_count);
    w.key("cost").number(res.cost);
    w.key("lower_bound").number(res.lower_bound);
    w.key("lp_bound").number(bound_value(res.lp_bound));
    w.key("optimal").value(res.optimal);
    w.key("later_objectives_optimal").value(res.later_optimal);
    w.key("time_limit_hit").value(res.first_cut_short);
    w.key("gap").number(res.gap);
    w.key("seconds").number(res.seconds);
    w.key("demand").begin_array();
    for (const demand_item& d : req.demand) {
      w.begin_object().key("name").value(d.name).key("count").value(d.count);
      if (!d.profile.empty()) {
        w.key("profile").value(d.profile);
      } else {
        w.key("memory_mib").value(d.memory_mib.value_or(0));
        if (d.compute_slices) w.key("compute_slices").value(*d.compute_slices);
        if (d.sms) w.key("sms").value(*d.sms);
      }
      w.end_object();
    }
    w.end_array();
    const plan_view view = view_of(req, res);
    w.key("groups").begin_array();
    for (const geometry& geo : view.geometries) {
      const plan_group& g = res.groups[static_cast<std::size_t>(geo.first)];
      w.begin_object().key("gpu");
      write_gpu(w, *g.gpu);
      w.key("count").value(geo.count);
      w.key("instances").begin_array();
      for (const planned_instance& pi : g.instances) {
        w.begin_object();
        write_item_instance(w, *g.gpu, pi.where.profile, pi.where.start);
        // The CIs it is split into when it serves CI items; null: its default CI.
        w.key("compute_instances");
        if (pi.cis.empty()) {
          w.null();
        } else {
          w.begin_array();
          for (const ci_instance& c : pi.cis) {
            const ci_profile& cp = ci_of(*g.gpu, pi, c);
            w.begin_object().key("profile").value(cp.name).key("profile_id").value(cp.id);
            w.key("start").value(c.start).key("size").value(cp.compute_slices).end_object();
          }
          w.end_array();
        }
        w.end_object();
      }
      w.end_array();
      w.key("serves").flat().begin_array();
      for (const auto& [item_index, n] : serves_of(res, geo))
        w.begin_object().key("item").value(item_index).key("instances").value(n).end_object();
      w.end_array();
      // Exactly which instance of which GPU serves which item: the GPUs in
      // runs that serve alike, per instance an item, null, or per CI.
      w.key("assignment").flat().begin_array();
      for (const geometry_run& r : geo.runs) {
        w.begin_object().key("gpus").value(r.gpus).key("serves").begin_array();
        for (const planned_instance& pi : res.groups[static_cast<std::size_t>(r.group)].instances) {
          if (!pi.cis.empty()) {
            w.begin_array();
            for (std::size_t c = 0; c < pi.cis.size(); ++c)
              if (const int serves = ci_serves_of(pi, c); serves >= 0)
                w.value(serves);
              else
                w.null();
            w.end_array();
          } else if (pi.serves >= 0) {
            w.value(pi.serves);
          } else {
            w.null();
          }
        }
        w.end_array().end_object();
      }
      w.end_array();
      w.key("stranded_per_gpu");
      write_stranded(w, res.groups[static_cast<std::size_t>(geo.first)].strands);
      w.end_object();
    }
    w.end_array();
    w.key("stranded");
    write_stranded_sum(w, total_stranded(res));
    if (!res.nodes.empty()) {
      w.key("nodes").begin_array();
      for (const plan_result::node_plan& n : res.nodes) {
        w.begin_object().key("name").value(n.name).key("gpus").flat().begin_array();
        for (const plan_result::node_gpu& ng : n.gpus) {
          w.begin_object().key("index").value(ng.index).key("group");
          if (ng.group >= 0)
            w.value(view.number(ng.group) - 1);
          else
            w.null();
          w.end_object();
        }
        w.end_array().end_object();
      }
      w.end_array();
    }
    if (req.current) {
      std::map<std::string, const gpu_model*> model_of;
      for (const current_node& cn : *req.current) model_of[cn.name] = cn.gpu;
      const auto write_gis = [&](const gpu_model* g, const std::vector<current_instance>& gis) {
        w.begin_array();
        for (const current_instance& gi : gis) {
          w.begin_object();
          if (g != nullptr) write_item_instance(w, *g, gi.profile, gi.start);
          w.key("in_use").value(gi.in_use).end_object();
        }
        w.end_array();
      };
      w.key("changes").begin_array();
      for (const plan_change& c : res.changes) {
        const gpu_model* g = model_of.count(c.node) ? model_of[c.node] : nullptr;
        w.flat().begin_object().key("node").value(c.node).key("index").value(c.index);
        w.key("from_group");
        if (c.from_group >= 0)
          w.value(view.number(c.from_group) - 1);
        else
          w.null();
        w.key("to_group");
        if (c.to_group >= 0)
          w.value(view.number(c.to_group) - 1);
        else
          w.null();
        w.key("destroyed");
        write_gis(g, c.destroyed);
        w.key("evicted");
        write_gis(g, c.evicted);
        w.end_object();
      }
      w.end_array();
      w.key("changes_lower_bound").value(res.changes_lower_bound);
    }
    w.key("inferred").begin_array();
    for (const auto& [gpu, inferred] : plan_detail::inferred_of(res))
      write_inferred(w, *gpu, inferred, true);
    w.end_array();
    w.key("unmet").begin_array();
    for (const plan_unmet& u : res.unmet)
      w.begin_object()
          .key("item")
          .value(u.item)
          .key("name")
          .value(item_name(req, u.item))
          .key("missing")
          .value(u.missing)
          .key("no_model")
          .value(u.no_model)
          .end_object();
    w.end_array();
  });
}

}  // namespace migplan::cli::render

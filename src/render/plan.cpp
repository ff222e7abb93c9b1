// SPDX-License-Identifier: Apache-2.0
#include "render/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <migplan/capacity.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "render/diagram.hpp"
#include "render/json.hpp"
#include "render/messages.hpp"
#include "render/style.hpp"

namespace migplan::cli::render {
namespace {

const profile& prof(const gpu_model& g, int p) { return g.profiles[static_cast<std::size_t>(p)]; }

std::string_view plural(long long n) { return n == 1 ? "" : "s"; }

layout layout_of(const plan_group& g) {
  layout l;
  for (const planned_instance& pi : g.instances) l.add(pi.where);
  return l;
}

// Costs are shown only when some model's cost is not the default 1.
bool has_costs(const plan_request& req) {
  return std::any_of(req.models.begin(), req.models.end(),
                     [](const fleet_model& m) { return m.cost != 1.0; });
}

// "2.5", "3": a cost or bound without trailing zeros.
std::string number_text(double v) {
  if (std::abs(v - std::round(v)) < 1e-6)
    return fmt::format("{}", static_cast<long long>(std::round(v)));
  // Two decimals, trailing zeros dropped: 102.5, 219603.75, 2.33.
  std::string s = fmt::format("{:.2f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

// A stranded amount scaled by a GPU count.
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

// What each group leaves and strands, per GPU: the core's exact room.
struct group_room {
  room left;
  stranded strands;
};

std::vector<group_room> rooms_of(const plan_result& res) {
  std::map<const gpu_model*, std::unique_ptr<room_memo>> memos;
  std::vector<group_room> out;
  for (const plan_group& g : res.groups) {
    auto& memo = memos[g.gpu];
    if (!memo) memo = std::make_unique<room_memo>(*g.gpu);
    const room rm = memo->get(layout_of(g));
    out.push_back({rm, stranded_of(*g.gpu, rm)});
  }
  return out;
}

stranded_sum total_stranded(const plan_result& res, const std::vector<group_room>& rooms) {
  stranded_sum sum;
  for (std::size_t i = 0; i < res.groups.size(); ++i)
    sum.add(rooms[i].strands, res.groups[i].count);
  return sum;
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

// "0-3, 6": GPU indices as ranges.
std::string ranges_text(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    out += fmt::format("{}{}", out.empty() ? "" : ", ",
                       j == i ? fmt::format("{}", v[i]) : fmt::format("{}-{}", v[i], v[j]));
    i = j + 1;
  }
  return out;
}

// Per demand item, how many instances (GPU or compute instances) a GPU of the
// group serves.
std::map<int, int> serves_of(const plan_group& g) {
  std::map<int, int> out;
  for (const planned_instance& pi : g.instances) {
    if (pi.serves >= 0) ++out[pi.serves];
    for (int item_index : pi.ci_serves)
      if (item_index >= 0) ++out[item_index];
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

std::string stranded_text(long long units, long long slices, std::optional<long long> gib_x100) {
  return fmt::format("{} unit{} ({}), {} compute slice{}", units, plural(units),
                     gib_x100
                         ? gib_text(static_cast<int>(std::min<long long>(*gib_x100, 2'000'000'000)))
                         : std::string("memory unknown"),
                     slices, plural(slices));
}

// A cost in whole units as the costs were typed: 75597.3.
std::string cost_text(const plan_result& res, long long units, double fallback) {
  return res.costs.units.empty() || res.costs.unit_digits <= 0 ? number_text(fallback)
                                                               : cost_decimal(units, res.costs);
}

// "1.0%", and a gap too small for one decimal with two significant digits
// ("0.0001%"), never "0.0%" beside "not proven".
std::string gap_text(double gap) {
  const double pct = gap * 100;
  if (pct == 0) return "0%";
  if (pct >= 0.1) return fmt::format("{:.1f}%", pct);
  // Two significant digits in fixed notation, trailing zeros dropped.
  const int decimals = 1 - static_cast<int>(std::floor(std::log10(pct)));
  std::string out = fmt::format("{:.{}f}", pct, decimals);
  while (out.back() == '0') out.pop_back();
  return out + "%";
}

void bound_line(std::ostream& os, const plan_request& req, const plan_result& res, bool costs) {
  const std::string bound = costs ? "cost " + cost_text(res, res.lower_bound_units, res.lower_bound)
                                  : fmt::format("{} gpu{}", number_text(res.lower_bound),
                                                res.lower_bound == 1 ? "" : "s");
  if (res.optimal)
    os << fmt::format("lower bound {}: proven optimal (LP relaxation {})\n", bound,
                      number_text(res.lp_bound));
  else
    os << fmt::format("lower bound {}: not proven optimal{}, gap {} (LP relaxation {})\n", bound,
                      req.time_limit_s ? " within the time limit" : "", gap_text(res.gap),
                      number_text(res.lp_bound));
  if (res.optimal && !res.later_optimal)
    os << "room kept and fewest geometries: the best found, not proven\n";
}

void changes_text(std::ostream& os, const plan_request& req, const plan_result& res) {
  std::vector<std::string> nodes;
  for (const plan_change& c : res.changes)
    if (std::find(nodes.begin(), nodes.end(), c.node) == nodes.end()) nodes.push_back(c.node);
  const auto n = static_cast<long long>(res.changes.size());
  os << fmt::format("\nchanges: {} gpu{} on {} node{}\n", n, plural(n), nodes.size(),
                    plural(static_cast<long long>(nodes.size())));
  if (n == 0 && res.changes_lower_bound == 0)
    os << "  no gpu needs to change\n";
  else if (n == res.changes_lower_bound)
    os << fmt::format("  no plan that meets {} changes fewer than {} gpu{}\n",
                      res.feasible ? "the demand" : "as much of the demand",
                      res.changes_lower_bound, plural(res.changes_lower_bound));
  else
    os << fmt::format("  at least {} gpu{} must change; this plan is not proven minimal\n",
                      res.changes_lower_bound, plural(res.changes_lower_bound));
  // The node's model, for the instance names of what it loses.
  std::map<std::string, const gpu_model*> model_of;
  if (req.current)
    for (const current_node& cn : *req.current) model_of[cn.name] = cn.gpu;
  for (const plan_change& c : res.changes) {
    const gpu_model* g = model_of.count(c.node) ? model_of[c.node] : nullptr;
    std::vector<int> lost;
    for (const current_gi& gi : c.destroyed) lost.push_back(gi.profile);
    const std::string from = c.from_group >= 0 ? fmt::format("geometry {}", c.from_group + 1)
                             : g != nullptr    ? counts_text(*g, lost)
                                               : std::string("?");
    const std::string to =
        c.to_group >= 0 ? fmt::format("geometry {}", c.to_group + 1) : std::string("MIG off");
    os << fmt::format("  {} gpu {}: {} -> {}", c.node, c.index, from, to);
    if (!c.destroyed.empty())
      os << fmt::format("; destroys {} instance{}", c.destroyed.size(),
                        plural(static_cast<long long>(c.destroyed.size())));
    if (!c.evicted.empty()) os << fmt::format(", evicts {} in use", c.evicted.size());
    os << "\n";
  }
}

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

void plan_text(std::ostream& os, const plan_request& req, const plan_result& res, bool color) {
  const bool costs = has_costs(req);
  const std::vector<group_room> rooms = rooms_of(res);
  // Headline: GPUs per model (those gpu_count counts), cost, bound.
  std::string models;
  for (const auto& [gpu, n] : res.gpus_per_model)
    models += fmt::format("{}{} x{}", models.empty() ? "" : ", ", gpu->slug, n);
  const char* what = res.status == plan_status::timed_out ? "incomplete plan"
                     : res.feasible                       ? "plan"
                                                          : "partial plan";
  os << fmt::format("{}: {} gpu{}{}{}\n", what, res.gpu_count, plural(res.gpu_count),
                    models.empty() ? "" : " (" + models + ")",
                    costs ? ", cost " + cost_text(res, res.cost_units, res.cost) : "");
  if (!req.current) bound_line(os, req, res, costs);
  os << fmt::format("solved in {:.3f} s\n", res.seconds);

  for (std::size_t i = 0; i < res.groups.size(); ++i) {
    const plan_group& g = res.groups[i];
    const layout l = layout_of(g);
    os << fmt::format("\ngeometry {}: {} on {} gpu{}: {}\n", i + 1, g.gpu->slug, g.count,
                      plural(g.count), group_counts(g));
    os << diagram(*g.gpu, l, rooms[i].left, color);
    for (int k = 0; k < static_cast<int>(g.instances.size()); ++k) {
      const planned_instance& pi = g.instances[static_cast<std::size_t>(k)];
      const profile& p = prof(*g.gpu, pi.where.profile);
      os << fmt::format("  {} {:<14} start {:<2} {}\n",
                        paint(color, tone::instance, std::string(1, instance_letter(k)), k), p.name,
                        pi.where.start,
                        pi.serves >= 0
                            ? "serves " + item_name(req, pi.serves)
                            : (pi.cis.empty() ? "spare" : "split into compute instances:"));
      // Its compute instances, when it serves CI items: which slices each owns.
      for (std::size_t c = 0; c < pi.cis.size(); ++c) {
        const ci_profile& cp = ci_of(*g.gpu, pi, pi.cis[c]);
        const int serves = ci_serves_of(pi, c);
        os << fmt::format(
            "      {:<16} slice{} {:<5} {}\n", cp.name, cp.compute_slices > 1 ? "s" : " ",
            cp.compute_slices > 1
                ? fmt::format("{}-{}", pi.cis[c].start, pi.cis[c].start + cp.compute_slices - 1)
                : fmt::format("{}", pi.cis[c].start),
            serves >= 0 ? "serves " + item_name(req, serves) : "spare");
      }
    }
    std::string serves;
    for (const auto& [item_index, n] : serves_of(g))
      serves += fmt::format("{}{} x{}", serves.empty() ? "" : ", ", item_name(req, item_index),
                            static_cast<long long>(n) * g.count);
    os << fmt::format("  {:<10}{}\n", "serves", serves.empty() ? "nothing" : serves);
    const stranded& st = rooms[i].strands;
    stranded_sum all;
    all.add(st, g.count);
    os << fmt::format(
        "  {:<10}{} per gpu; {} in all\n", "stranded",
        stranded_text(
            st.units, st.compute_slices,
            st.memory_gib_x100 ? std::optional<long long>(*st.memory_gib_x100) : std::nullopt),
        stranded_text(
            all.units, all.compute_slices,
            all.memory_known ? std::optional<long long>(all.memory_gib_x100) : std::nullopt));
  }

  if (!res.nodes.empty()) {
    os << "\nnodes:\n";
    for (const plan_result::node_plan& n : res.nodes) {
      std::map<int, std::vector<int>> by_group;
      for (const plan_result::node_gpu& ng : n.gpus) by_group[ng.group].push_back(ng.index);
      std::string parts;
      for (const auto& [grp, idx] : by_group)
        parts += fmt::format("{}gpu {}: {}", parts.empty() ? "" : "; ", ranges_text(idx),
                             grp >= 0 ? fmt::format("geometry {}", grp + 1)
                                      : std::string(req.current ? "unchanged" : "unused"));
      os << fmt::format("  {}  {}\n", n.name, parts.empty() ? "no gpus" : parts);
    }
  }

  const stranded_sum total = total_stranded(res, rooms);
  os << fmt::format(
      "\nstranded in total: {}\n",
      stranded_text(
          total.units, total.compute_slices,
          total.memory_known ? std::optional<long long>(total.memory_gib_x100) : std::nullopt));
  if (req.current) changes_text(os, req, res);
  if (!res.unmet.empty()) {
    const bool cut = res.status == plan_status::timed_out;
    os << (cut ? "\nnot met within the time limit:\n" : "\nunmet demand:\n");
    for (const plan_unmet& u : res.unmet) {
      const long long want = u.item >= 0 && static_cast<std::size_t>(u.item) < req.demand.size()
                                 ? req.demand[static_cast<std::size_t>(u.item)].count
                                 : 0;
      os << fmt::format("  {}: {} of {} instance{} {}\n", item_name(req, u.item), u.missing, want,
                        plural(want), cut ? "not placed yet" : "missing");
    }
    if (cut)
      os << fmt::format(
          "no plan meeting the demand was found within the {} s time limit, and none is proven "
          "impossible; more time would likely find one: try --time-limit {}\n",
          number_text(req.time_limit_s.value_or(0)),
          number_text(res.suggested_time_limit_s.value_or(0)));
  }
}

void plan_json(std::ostream& os, const plan_request& req, const plan_result& res) {
  const std::vector<group_room> rooms = rooms_of(res);
  write_document(os, [&](json_writer& w) {
    w.key("status").value(status_name(res.status));
    if (res.suggested_time_limit_s)
      w.key("suggested_time_limit").number(*res.suggested_time_limit_s);
    w.key("feasible").value(res.feasible);
    w.key("gpu_count").value(res.gpu_count);
    w.key("cost").number(res.cost);
    w.key("lower_bound").number(res.lower_bound);
    // To a millionth: the LP's floating point says 2.0000000000000004 for 2.
    w.key("lp_bound").number(std::round(res.lp_bound * 1e6) / 1e6);
    w.key("optimal").value(res.optimal);
    w.key("later_objectives_optimal").value(res.later_optimal);
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
    w.key("groups").begin_array();
    for (std::size_t i = 0; i < res.groups.size(); ++i) {
      const plan_group& g = res.groups[i];
      w.begin_object().key("gpu");
      write_gpu(w, *g.gpu);
      w.key("count").value(g.count);
      w.key("instances").begin_array();
      for (const planned_instance& pi : g.instances) {
        w.begin_object();
        write_item_instance(w, *g.gpu, pi.where.profile, pi.where.start);
        w.key("serves");
        if (pi.serves >= 0)
          w.value(pi.serves);
        else
          w.null();
        // The CIs it is split into when it serves CI items; null: its default CI.
        w.key("compute_instances");
        if (pi.cis.empty()) {
          w.null();
        } else {
          w.begin_array();
          for (std::size_t c = 0; c < pi.cis.size(); ++c) {
            const ci_profile& cp = ci_of(*g.gpu, pi, pi.cis[c]);
            w.begin_object().key("profile").value(cp.name).key("profile_id").value(cp.id);
            w.key("start").value(pi.cis[c].start).key("size").value(cp.compute_slices);
            w.key("serves");
            if (const int serves = ci_serves_of(pi, c); serves >= 0)
              w.value(serves);
            else
              w.null();
            w.end_object();
          }
          w.end_array();
        }
        w.end_object();
      }
      w.end_array();
      w.key("serves").begin_array();
      for (const auto& [item_index, n] : serves_of(g))
        w.begin_object()
            .key("item")
            .value(item_index)
            .key("name")
            .value(item_name(req, item_index))
            .key("per_gpu")
            .value(n)
            .end_object();
      w.end_array();
      w.key("stranded_per_gpu");
      write_stranded(w, rooms[i].strands);
      w.end_object();
    }
    w.end_array();
    w.key("stranded");
    write_stranded_sum(w, total_stranded(res, rooms));
    if (!res.nodes.empty()) {
      w.key("nodes").begin_array();
      for (const plan_result::node_plan& n : res.nodes) {
        w.begin_object().key("name").value(n.name).key("gpus").begin_array();
        for (const plan_result::node_gpu& ng : n.gpus) {
          w.begin_object().key("index").value(ng.index).key("group");
          if (ng.group >= 0)
            w.value(ng.group);
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
      const auto write_gis = [&](const gpu_model* g, const std::vector<current_gi>& gis) {
        w.begin_array();
        for (const current_gi& gi : gis) {
          w.begin_object();
          if (g != nullptr) write_item_instance(w, *g, gi.profile, gi.start);
          w.key("in_use").value(gi.in_use).end_object();
        }
        w.end_array();
      };
      w.key("changes").begin_array();
      for (const plan_change& c : res.changes) {
        const gpu_model* g = model_of.count(c.node) ? model_of[c.node] : nullptr;
        w.begin_object().key("node").value(c.node).key("index").value(c.index);
        w.key("from_group");
        if (c.from_group >= 0)
          w.value(c.from_group);
        else
          w.null();
        w.key("to_group");
        if (c.to_group >= 0)
          w.value(c.to_group);
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
    w.key("unmet").begin_array();
    for (const plan_unmet& u : res.unmet)
      w.begin_object()
          .key("item")
          .value(u.item)
          .key("name")
          .value(item_name(req, u.item))
          .key("missing")
          .value(u.missing)
          .end_object();
    w.end_array();
  });
}

}  // namespace migplan::cli::render

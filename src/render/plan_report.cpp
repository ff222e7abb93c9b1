// SPDX-License-Identifier: Apache-2.0
// `migplan plan`'s text report: the GPU count and cost, the bound, each
// geometry with what it serves and where its GPUs are, a re-plan's changes
// and unmet demand. The JSON document and the view both share are
// render/plan.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <migplan/capacity.hpp>
#include <migplan/compute.hpp>
#include <migplan/lookup.hpp>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "messages.hpp"
#include "render/diagram.hpp"
#include "render/inferred.hpp"
#include "render/json.hpp"
#include "render/plan.hpp"
#include "render/plan_view.hpp"
#include "render/ranges.hpp"
#include "render/style.hpp"
#include "text.hpp"

namespace migplan::cli::render {
namespace plan_detail {
namespace {

// Why no model of the fleet serves item `d`, model by model (the refusals
// the solver found, for an item named by its profile).
std::string no_model_text(const plan_request& req, const demand_item& d, const plan_unmet& u) {
  std::vector<std::string> clauses, slugs;
  for (const fleet_model& fm : req.models) slugs.push_back(std::string(fm.gpu->slug));
  if (slugs.empty()) return "no model of the fleet serves it";
  if (d.profile.empty()) {
    std::string need = d.memory_mib && *d.memory_mib % 1024 == 0
                           ? fmt::format("{} GiB", *d.memory_mib / 1024)
                           : fmt::format("{} MiB", d.memory_mib.value_or(0));
    if (d.sms) need += fmt::format(" with {} SMs", *d.sms);
    if (d.compute_slices) need += fmt::format(" and {} compute slices", *d.compute_slices);
    std::string models = slugs.back();  // "a, b or c"
    for (std::size_t k = slugs.size() - 1; k-- > 0;)
      models = slugs[k] + (k + 2 == slugs.size() ? " or " : ", ") + models;
    const bool unknown = std::any_of(u.refusals.begin(), u.refusals.end(), [](const auto& r) {
      return r.why == model_refusal::kind::values_unknown;
    });
    clauses.push_back(
        fmt::format("no profile of {} {} {}", models, unknown ? "known to have" : "has", need));
  }
  for (const model_refusal& r : u.refusals) {
    switch (r.why) {
      case model_refusal::kind::no_profile:
        clauses.push_back(fmt::format("{} has no {}", r.gpu->slug, r.gi_profile));
        break;
      case model_refusal::kind::ci_unknown:
        clauses.push_back(
            fmt::format("CI profiles unknown for {} on {} (no capture or document lists them)",
                        r.gi_profile, r.gpu->slug));
        break;
      case model_refusal::kind::no_ci_profile:
        clauses.push_back(
            fmt::format("{} on {} offers no {}", r.gi_profile, r.gpu->slug, d.profile));
        break;
      case model_refusal::kind::values_unknown:
        clauses.push_back(fmt::format("{}'s {} may ({} unknown, not considered)", r.gpu->slug,
                                      join_and(r.unknown), d.sms ? "memory or SMs" : "memory"));
        break;
    }
  }
  return fmt::format("no model of the fleet serves it: {}", fmt::join(clauses, "; "));
}

// Why an item some model serves is unmet: the fleet's limits, as used. In a
// re-plan, kept in-use instances are named too when eviction is off.
std::string limits_text(const plan_request& req, const plan_result& res) {
  if (req.current) {
    long long gpus = 0;
    bool in_use = false;
    for (const current_node& n : *req.current) {
      gpus += static_cast<long long>(n.gpus.size());
      for (const current_gpu& g : n.gpus)
        for (const current_instance& x : g.instances) in_use = in_use || x.in_use;
    }
    return fmt::format(": more than the fleet's {} GPU{} hold{}{}", gpus, plural(gpus),
                       gpus == 1 ? "s" : "",
                       in_use && !req.allow_evict
                           ? "; instances in use stay where they are (--allow-evict lets the "
                             "plan move them)"
                           : "");
  }
  std::vector<std::string> used;
  for (const fleet_model& fm : req.models) {
    if (!fm.available) continue;
    long long n = 0;
    for (const auto& [gpu, count] : res.gpus_per_model)
      if (gpu == fm.gpu) n = count;
    used.push_back(fmt::format("{} {} of {}", fm.gpu->slug, n, *fm.available));
  }
  if (used.empty()) return {};
  return fmt::format(": more than the fleet holds (GPUs used of those allowed: {})",
                     fmt::join(used, ", "));
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

// The report lists at most this many demand items per geometry, and this many
// lines of nodes and of changes, unless --full.
constexpr std::size_t items_shown = 10;

constexpr std::size_t lines_shown = 20;

// What one instance (or compute instance) of a geometry does over its GPUs:
// the items it serves there, and on how many GPUs it is spare or kept in use.
struct instance_use {
  std::map<int, long long> items;  // item -> GPUs
  long long spare = 0;
  long long in_use = 0;
  void add(int item_index, bool kept, long long gpus) {
    if (item_index >= 0)
      items[item_index] += gpus;
    else
      (kept ? in_use : spare) += gpus;
  }
};

// "serves chat", "serves 12 items on 70 gpus; spare on 2 gpus", "in use, kept".
std::string use_text(const plan_request& req, const instance_use& u) {
  const int kinds = (u.items.empty() ? 0 : 1) + (u.spare > 0 ? 1 : 0) + (u.in_use > 0 ? 1 : 0);
  const auto on = [&](long long gpus) {
    return kinds > 1 ? fmt::format(" on {} gpu{}", gpus, plural(gpus)) : std::string();
  };
  std::vector<std::string> parts;
  if (!u.items.empty()) {
    long long gpus = 0;
    for (const auto& [item_index, n] : u.items) gpus += n;
    parts.push_back((u.items.size() == 1 ? "serves " + item_name(req, u.items.begin()->first)
                                         : fmt::format("serves {} items", u.items.size())) +
                    on(gpus));
  }
  // The demand names no item for it, but a workload runs on it: it stays.
  if (u.in_use > 0) parts.push_back("in use, kept" + on(u.in_use));
  if (u.spare > 0 || parts.empty()) parts.push_back("spare" + on(u.spare));
  return fmt::format("{}", fmt::join(parts, "; "));
}

// Appends `parts` joined by ", " after `head`, wrapped before column 100 with
// continuation lines indented by `indent` spaces.
std::string wrapped(std::string head, const std::vector<std::string>& parts, std::size_t indent) {
  constexpr std::size_t width = 100;
  std::size_t line_start = head.rfind('\n') == std::string::npos ? 0 : head.rfind('\n') + 1;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string piece = parts[i] + (i + 1 < parts.size() ? "," : "");
    const bool first_on_line = head.size() - line_start <= indent;
    if (!first_on_line && head.size() - line_start + 1 + piece.size() > width) {
      head += "\n" + std::string(indent, ' ');
      line_start = head.size() - indent;
    } else if (!first_on_line) {
      head += ' ';
    }
    head += piece;
  }
  return head;
}

// The items a geometry serves with their instance counts, the first
// `items_shown` of them unless `full`.
std::string serves_text(const plan_request& req, const std::map<int, long long>& serves,
                        bool full) {
  if (serves.empty()) return fmt::format("  {:<10}nothing", "serves");
  std::vector<std::string> parts;
  for (const auto& [item_index, n] : serves) {
    if (!full && parts.size() == items_shown) break;
    parts.push_back(fmt::format("{} x{}", item_name(req, item_index), n));
  }
  const std::size_t more = serves.size() - parts.size();
  std::string head = fmt::format("  {:<10}", "serves");
  if (serves.size() > items_shown) {
    long long instances = 0;
    for (const auto& [item_index, n] : serves) instances += n;
    head += fmt::format("{} items, {} instances:", serves.size(), instances);
  }
  if (more > 0) parts.push_back(fmt::format("and {} more (--full lists them)", more));
  return wrapped(head, parts, 12);
}

// Lines in order, the first `lines_shown` of them unless `full`; `what` names
// what the rest are ("nodes", "changes").
void shortened(std::ostream& os, const std::vector<std::string>& lines, bool full,
               std::string_view what) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!full && i == lines_shown) {
      os << fmt::format("  ... {} more lines of {} (--full lists them)\n", lines.size() - i, what);
      return;
    }
    os << lines[i] << "\n";
  }
}

// Lines of "NODES gpu INDEXES: TEXT": per text, in order of first appearance,
// nodes with the same GPUs on one line, their names as a host list.
// `suffix` adds to a line's text, given how many GPUs the line names.
std::vector<std::string> node_lines(
    const std::vector<std::tuple<std::string, long long, std::string>>& entries,
    const std::function<std::string(const std::string&, std::size_t)>& suffix = {}) {
  std::vector<std::string> texts;
  std::map<std::string, std::vector<std::pair<std::string, std::vector<long long>>>> by_text;
  for (const auto& [node, index, text] : entries) {
    auto& nodes = by_text[text];
    if (nodes.empty()) texts.push_back(text);
    if (nodes.empty() || nodes.back().first != node) nodes.push_back({node, {}});
    nodes.back().second.push_back(index);
  }
  std::vector<std::string> out;
  for (const std::string& text : texts) {
    std::vector<std::string> sets;
    std::map<std::string, std::vector<std::string>> names;
    std::map<std::string, std::size_t> gpus;
    for (const auto& [node, idx] : by_text[text]) {
      const std::string r = number_ranges(idx);
      if (names[r].empty()) sets.push_back(r);
      names[r].push_back(node);
      gpus[r] += idx.size();
    }
    for (const std::string& r : sets)
      out.push_back(fmt::format("  {} gpu {}: {}{}", name_ranges(names[r]), r, text,
                                suffix ? suffix(text, gpus[r]) : std::string()));
  }
  return out;
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

void bound_line(std::ostream& os, const plan_result& res, bool costs) {
  const std::string bound =
      costs ? "cost " + cost_text(res, res.lower_bound_units, res.lower_bound)
            : fmt::format("{} gpu{}", number_text(res.lower_bound), plural(res.lower_bound));
  if (res.optimal)
    os << fmt::format("lower bound {}: proven optimal (LP relaxation {})\n", bound,
                      bound_text(res.lp_bound));
  else
    os << fmt::format("lower bound {}: not proven optimal{}, gap {} (LP relaxation {})\n", bound,
                      res.first_cut_short ? " within the time limit" : " in integer arithmetic",
                      gap_text(res.gap), bound_text(res.lp_bound));
  if (res.optimal && !res.later_optimal)
    os << "room kept and fewest geometries: the best found, not proven\n";
}

void changes_text(std::ostream& os, const plan_request& req, const plan_result& res,
                  const plan_view& view, bool full) {
  std::vector<std::string> nodes;
  for (const plan_change& c : res.changes)
    if (std::find(nodes.begin(), nodes.end(), c.node) == nodes.end()) nodes.push_back(c.node);
  const auto n = static_cast<long long>(res.changes.size());
  os << fmt::format("\nchanges: {} gpu{} on {} node{}\n", n, plural(n), nodes.size(),
                    plural(nodes.size()));
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
  std::vector<std::tuple<std::string, long long, std::string>> entries;
  for (const plan_change& c : res.changes) {
    const gpu_model* g = model_of.count(c.node) ? model_of[c.node] : nullptr;
    std::vector<int> lost;
    for (const current_instance& gi : c.destroyed) lost.push_back(gi.profile);
    const std::string from = c.from_group >= 0
                                 ? fmt::format("geometry {}", view.number(c.from_group))
                             : g != nullptr ? counts_text(*g, lost)
                                            : std::string("?");
    const std::string to = c.to_group >= 0 ? fmt::format("geometry {}", view.number(c.to_group))
                                           : std::string("MIG off");
    std::string text = fmt::format("{} -> {}", from, to);
    if (!c.destroyed.empty())
      text +=
          fmt::format("; destroys {} instance{}", c.destroyed.size(), plural(c.destroyed.size()));
    if (!c.evicted.empty()) text += fmt::format(", evicts {} in use", c.evicted.size());
    entries.emplace_back(c.node, c.index, std::move(text));
  }
  // A line of several GPUs says what each loses.
  const auto each = [](const std::string& text, std::size_t gpus) {
    return gpus > 1 && text.find("; destroys") != std::string::npos ? std::string(" each")
                                                                    : std::string();
  };
  shortened(os, node_lines(entries, each), full, "changes");
}

}  // namespace
}  // namespace plan_detail

void plan_text(std::ostream& os, const plan_request& req, const plan_result& res, bool color,
               bool full) {
  using namespace plan_detail;
  const bool costs = has_costs(req);
  // Headline: GPUs per model (those gpu_count counts), cost, bound.
  os << headline(req, res) << (costs ? ", cost " + cost_text(res, res.cost_units, res.cost) : "")
     << "\n";
  if (!req.current) bound_line(os, res, costs);
  os << fmt::format("solved in {:.3f} s\n", res.seconds);

  const plan_view view = view_of(req, res);
  for (std::size_t i = 0; i < view.geometries.size(); ++i) {
    const geometry& geo = view.geometries[i];
    const plan_group& g = res.groups[static_cast<std::size_t>(geo.first)];
    const layout l = layout_of(g);
    os << fmt::format("\ngeometry {}: {} on {} gpu{}: {}\n", i + 1, g.gpu->slug, geo.count,
                      plural(geo.count), group_counts(g));
    os << diagram(*g.gpu, l, res.groups[static_cast<std::size_t>(geo.first)].left, color);
    for (int k = 0; k < static_cast<int>(g.instances.size()); ++k) {
      const planned_instance& pi = g.instances[static_cast<std::size_t>(k)];
      const profile& p = prof(*g.gpu, pi.where.profile);
      instance_use use;
      std::vector<instance_use> ci_use(pi.cis.size());
      for (const geometry_run& r : geo.runs) {
        const planned_instance& ri =
            res.groups[static_cast<std::size_t>(r.group)].instances[static_cast<std::size_t>(k)];
        use.add(ri.serves, ((r.in_use >> k) & 1u) != 0, r.gpus);
        for (std::size_t c = 0; c < ci_use.size(); ++c)
          ci_use[c].add(ci_serves_of(ri, c), false, r.gpus);
      }
      os << fmt::format("  {} {:<14} start {:<2} {}\n",
                        paint(color, tone::instance, std::string(1, instance_letter(k)), k), p.name,
                        pi.where.start,
                        pi.cis.empty() ? use_text(req, use) : "split into compute instances:");
      // Its compute instances, when it serves CI items: which slices each owns.
      for (std::size_t c = 0; c < pi.cis.size(); ++c) {
        const ci_profile& cp = ci_of(*g.gpu, pi, pi.cis[c]);
        os << fmt::format(
            "      {:<16} slice{} {:<5} {}\n", cp.name, cp.compute_slices > 1 ? "s" : " ",
            cp.compute_slices > 1
                ? fmt::format("{}-{}", pi.cis[c].start, pi.cis[c].start + cp.compute_slices - 1)
                : fmt::format("{}", pi.cis[c].start),
            use_text(req, ci_use[c]));
      }
    }
    os << serves_text(req, serves_of(res, geo), full) << "\n";
    const stranded& st = res.groups[static_cast<std::size_t>(geo.first)].strands;
    stranded_sum all;
    all.add(st, geo.count);
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
    // Per node, which GPUs get which geometry; nodes alike on one line.
    std::vector<std::string> lines;
    for (const node_fold& f : fold_nodes(res, view)) {
      std::string parts;
      for (const auto& [number, idx] : f.parts)
        parts += fmt::format("{}gpu {}: {}", parts.empty() ? "" : "; ", number_ranges(idx),
                             number >= 0 ? fmt::format("geometry {}", number)
                                         : std::string(req.current ? "unchanged" : "unused"));
      if (parts.empty()) parts = "no gpus";
      std::vector<std::string> names;
      for (std::size_t k : f.nodes) names.push_back(res.nodes[k].name);
      lines.push_back(fmt::format("  {}  {}", name_ranges(names), parts));
    }
    shortened(os, lines, full, "nodes");
  }

  const stranded_sum total = total_stranded(res);
  os << fmt::format(
      "\nstranded in total: {}\n",
      stranded_text(
          total.units, total.compute_slices,
          total.memory_known ? std::optional<long long>(total.memory_gib_x100) : std::nullopt));
  if (req.current) changes_text(os, req, res, view, full);
  if (!res.unmet.empty()) {
    const bool cut = res.status == plan_status::timed_out;
    os << (cut ? "\nnot met within the time limit:\n" : "\nunmet demand:\n");
    for (const plan_unmet& u : res.unmet) {
      const long long want = u.item >= 0 && static_cast<std::size_t>(u.item) < req.demand.size()
                                 ? req.demand[static_cast<std::size_t>(u.item)].count
                                 : 0;
      os << fmt::format(
          "  {}: {} of {} instance{} {}{}\n", item_name(req, u.item), u.missing, want, plural(want),
          cut ? "not placed yet" : "missing",
          u.no_model ? ": " + no_model_text(req, req.demand[static_cast<std::size_t>(u.item)], u)
          : cut      ? ""
                     : limits_text(req, res));
    }
    if (cut)
      os << fmt::format(
          "no plan meeting the demand was found within the {} s time limit, and none is proven "
          "impossible; more time would likely find one: try --time-limit {}\n",
          number_text(req.time_limit_s.value_or(0)),
          number_text(res.suggested_time_limit_s.value_or(0)));
  }
  // Inferred values are shown, never hidden.
  for (const auto& [gpu, inferred] : inferred_of(res)) os << inferred_note(*gpu, inferred);
}

}  // namespace migplan::cli::render

// SPDX-License-Identifier: Apache-2.0
#include "render/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <migplan/capacity.hpp>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "messages.hpp"
#include "render/diagram.hpp"
#include "render/json.hpp"
#include "render/ranges.hpp"
#include "render/style.hpp"
#include "text.hpp"

namespace migplan::cli::render {
namespace {

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

// The report lists at most this many demand items per geometry, and this many
// lines of nodes and of changes, unless --full.
constexpr std::size_t items_shown = 10;
constexpr std::size_t lines_shown = 20;

// A run of a geometry's GPUs that serve alike: the solver's group they are
// in, and which of its instances (bit k) serve nothing but are kept because
// they are in use (a re-plan's GPUs).
struct geometry_run {
  int group = 0;
  unsigned in_use = 0;
  long long gpus = 0;
};

// One distinct geometry of the report: the solver's groups of one model and
// one shape (instances at their starts, and their CI splits), which differ
// only in the items they serve. Its GPUs are its runs in order: in node order
// (node, then index) where nodes are known, then any left in group order.
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
  std::vector<current_gi> in_use;
  for (const current_gi& gi : now.instances)
    if (gi.in_use) in_use.push_back(gi);
  if (change != nullptr)
    for (const current_gi& gone : change->evicted)
      if (auto it = std::find_if(in_use.begin(), in_use.end(),
                                 [&](const current_gi& x) {
                                   return x.profile == gone.profile && x.start == gone.start;
                                 });
          it != in_use.end())
        in_use.erase(it);
  unsigned mask = 0, matched = 0;
  std::map<int, int> unplaced;
  for (const current_gi& gi : in_use) {
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

// Per demand item, how many instances (GPU or compute instances) the
// geometry's GPUs serve, in item order.
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

void changes_text(std::ostream& os, const plan_request& req, const plan_result& res,
                  const plan_view& view, bool full) {
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
  std::vector<std::tuple<std::string, long long, std::string>> entries;
  for (const plan_change& c : res.changes) {
    const gpu_model* g = model_of.count(c.node) ? model_of[c.node] : nullptr;
    std::vector<int> lost;
    for (const current_gi& gi : c.destroyed) lost.push_back(gi.profile);
    const std::string from = c.from_group >= 0
                                 ? fmt::format("geometry {}", view.number(c.from_group))
                             : g != nullptr ? counts_text(*g, lost)
                                            : std::string("?");
    const std::string to = c.to_group >= 0 ? fmt::format("geometry {}", view.number(c.to_group))
                                           : std::string("MIG off");
    std::string text = fmt::format("{} -> {}", from, to);
    if (!c.destroyed.empty())
      text += fmt::format("; destroys {} instance{}", c.destroyed.size(),
                          plural(static_cast<long long>(c.destroyed.size())));
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

void plan_text(std::ostream& os, const plan_request& req, const plan_result& res, bool color,
               bool full) {
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

  const plan_view view = view_of(req, res);
  for (std::size_t i = 0; i < view.geometries.size(); ++i) {
    const geometry& geo = view.geometries[i];
    const plan_group& g = res.groups[static_cast<std::size_t>(geo.first)];
    const layout l = layout_of(g);
    os << fmt::format("\ngeometry {}: {} on {} gpu{}: {}\n", i + 1, g.gpu->slug, geo.count,
                      plural(geo.count), group_counts(g));
    os << diagram(*g.gpu, l, rooms[static_cast<std::size_t>(geo.first)].left, color);
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
    const stranded& st = rooms[static_cast<std::size_t>(geo.first)].strands;
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
    std::vector<std::string> texts;
    std::map<std::string, std::vector<std::string>> nodes_of;
    for (const plan_result::node_plan& n : res.nodes) {
      // By the first GPU of each geometry.
      std::vector<std::pair<int, std::vector<long long>>> by_geometry;
      for (const plan_result::node_gpu& ng : n.gpus) {
        const int number = ng.group >= 0 ? view.number(ng.group) : -1;
        auto it = std::find_if(by_geometry.begin(), by_geometry.end(),
                               [&](const auto& e) { return e.first == number; });
        if (it == by_geometry.end()) it = by_geometry.insert(by_geometry.end(), {number, {}});
        it->second.push_back(ng.index);
      }
      std::sort(by_geometry.begin(), by_geometry.end(), [](const auto& a, const auto& b) {
        return *std::min_element(a.second.begin(), a.second.end()) <
               *std::min_element(b.second.begin(), b.second.end());
      });
      std::string parts;
      for (const auto& [number, idx] : by_geometry)
        parts += fmt::format("{}gpu {}: {}", parts.empty() ? "" : "; ", number_ranges(idx),
                             number >= 0 ? fmt::format("geometry {}", number)
                                         : std::string(req.current ? "unchanged" : "unused"));
      if (parts.empty()) parts = "no gpus";
      auto& names = nodes_of[parts];
      if (names.empty()) texts.push_back(parts);
      names.push_back(n.name);
    }
    std::vector<std::string> lines;
    for (const std::string& text : texts)
      lines.push_back(fmt::format("  {}  {}", name_ranges(nodes_of[text]), text));
    shortened(os, lines, full, "nodes");
  }

  const stranded_sum total = total_stranded(res, rooms);
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
  write_document(os, plan_schema_version, [&](json_writer& w) {
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
      write_stranded(w, rooms[static_cast<std::size_t>(geo.first)].strands);
      w.end_object();
    }
    w.end_array();
    w.key("stranded");
    write_stranded_sum(w, total_stranded(res, rooms));
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

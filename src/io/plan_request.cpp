// SPDX-License-Identifier: Apache-2.0
// `migplan plan`'s request from its options (plan_request.hpp): the files
// read (plan_input.hpp), the command line's items and models resolved, and
// every value checked, each error one whole message.
#include "io/plan_request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/names.hpp"
#include "io/plan_input.hpp"
#include "io/size.hpp"
#include "model/plan_cost.hpp"
#include "quote.hpp"

namespace migplan::cli {
namespace {

// The time limit without --time-limit: a plan is proven in milliseconds on
// every mix measured (bench/README.md), but proving the later objectives
// (room, fewest geometries) of a large, irregular mix can take far longer,
// and a command must not run unbounded. The answer says what was proven.
constexpr double default_time_limit_s = 60;

// "MODEL=VALUE" split at its last '='; the error names the option and the form.
result<std::pair<std::string, std::string>> split_assignment(std::string_view option,
                                                             std::string_view text,
                                                             std::string_view form) {
  const std::size_t eq = text.rfind('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
    return error{fmt::format("{} {} is not {}", option, quote_token(text), form)};
  return std::pair{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

// The fleet model `name` resolves to, among the candidates; the error names them.
result<fleet_model*> candidate(model_list models, std::string_view option, std::string_view name,
                               std::vector<fleet_model>& fleet) {
  auto g = resolve_gpu(models, name);
  if (!g) return error{fmt::format("{}: {}", option, g.error().message)};
  for (fleet_model& m : fleet)
    if (m.gpu == *g) return &m;
  std::vector<std::string> slugs;
  for (const fleet_model& m : fleet) slugs.emplace_back(m.gpu->slug);
  return error{fmt::format("{} names {}, which is not a model of the fleet ({})", option,
                           (*g)->slug, fmt::join(slugs, ", "))};
}

}  // namespace

result<plan_request> plan_request_of(model_list models, const plan_request_options& o,
                                     std::istream& in, std::vector<std::string>& notes) {
  plan_request req;
  const int sources =
      (o.gpus.empty() ? 0 : 1) + (o.fleet.empty() ? 0 : 1) + (o.current.empty() ? 0 : 1);
  if (sources > 1)
    return error{"give the fleet one way: --gpu MODEL..., --fleet FILE or --current FILE"};
  if (!o.mig_config.empty() && o.current.empty())
    return error{"--mig-config needs --current (kubectl's nodes)"};
  if (o.allow_evict && o.current.empty()) return error{"--allow-evict needs --current"};
  if (o.demand == "-" && (o.fleet == "-" || o.current == "-" || o.mig_config == "-"))
    return error{"only one file can be read from standard input ('-')"};
  if (o.fleet == "-" && (o.current == "-" || o.mig_config == "-"))
    return error{"only one file can be read from standard input ('-')"};

  // Demand: the file's items, then the command line's. With --gpu the
  // fleet's models are known before the fleet is read, and a misspelt
  // profile is suggested among theirs (a name --gpu misspells is refused below).
  std::vector<const gpu_model*> named;
  for (const std::string& name : o.gpus)
    if (auto g = resolve_gpu(models, name)) named.push_back(*g);
  if (!o.demand.empty()) {
    auto d = read_demand(models, o.demand, in, named);
    if (!d) return d.error();
    req.demand = std::move(*d);
  }
  for (const std::string& w : o.items) {
    auto d = parse_demand_word(models, w, named);
    if (!d) return d.error();
    for (const demand_item& e : req.demand)
      if (e.name == d->name)
        return error{fmt::format(
            "demand item {} is given twice{}; add up the counts, or name them apart in a file",
            quote_token(d->name), e.where.empty() ? "" : " (also at " + e.where + ")")};
    req.demand.push_back(std::move(*d));
  }
  if (req.demand.size() > max_demand_items)
    return error{
        fmt::format("{} demand items; the most is {}", req.demand.size(), max_demand_items)};

  // Fleet.
  if (!o.gpus.empty()) {
    for (const std::string& name : o.gpus) {
      auto g = resolve_gpu(models, name);
      if (!g) return error{g.error().message};
      if (std::any_of(req.models.begin(), req.models.end(),
                      [&](const fleet_model& m) { return m.gpu == *g; }))
        return error{fmt::format("--gpu {} is given twice", (*g)->slug)};
      req.models.push_back({*g, std::nullopt, 1.0});
    }
  } else if (!o.fleet.empty()) {
    auto f = read_fleet(models, o.fleet, in, "plan");
    if (!f) return f.error();
    req.models = std::move(f->models);
    req.nodes = std::move(f->nodes);
  } else if (!o.current.empty()) {
    auto s = read_current_state(models, o.current, o.mig_config, in, "plan");
    if (!s) return s.error();
    notes.insert(notes.end(), s->notes.begin(), s->notes.end());
    for (const current_node& n : s->nodes)
      if (std::none_of(req.models.begin(), req.models.end(),
                       [&](const fleet_model& m) { return m.gpu == n.gpu; }))
        req.models.push_back({n.gpu, std::nullopt, 1.0});
    req.current = std::move(s->nodes);
  } else {
    return error{
        "no fleet: give --gpu MODEL (repeatable), --fleet FILE or --current FILE; try 'migplan "
        "plan --gpu h100-80gb 300x1g.10gb 80x3g.40gb'"};
  }
  if (req.demand.empty())
    return error{"no demand: give ITEMs (300x1g.10gb, 20xmem=30GiB) or --demand FILE"};

  // A model given twice would keep its last value unseen: refused, as --gpu
  // twice is.
  std::set<const fleet_model*> with_available, with_cost;
  // A re-plan's fleet is every current GPU (the program has no limit row
  // for it): a limit would be ignored, so it is refused.
  if (!o.current.empty() && !o.available.empty())
    return error{fmt::format(
        "--available {} does not apply to --current: a re-plan's fleet is every GPU of the "
        "current nodes",
        o.available.front())};
  for (const std::string& a : o.available) {
    auto kv = split_assignment("--available", a, "MODEL=N (h100-80gb=16)");
    if (!kv) return kv.error();
    auto m = candidate(models, "--available", kv->first, req.models);
    if (!m) return m.error();
    if (!with_available.insert(*m).second)
      return error{fmt::format("--available {} is given twice", (*m)->gpu->slug)};
    auto n = parse_whole_number(fmt::format("--available {}", (*m)->gpu->slug), kv->second, 0,
                                max_model_available);
    if (!n) return n.error();
    (*m)->available = *n;
  }
  for (const std::string& c : o.costs) {
    auto kv = split_assignment("--cost", c, "MODEL=X (h100-80gb=2.5)");
    if (!kv) return kv.error();
    auto m = candidate(models, "--cost", kv->first, req.models);
    if (!m) return m.error();
    if (!with_cost.insert(*m).second)
      return error{fmt::format("--cost {} is given twice", (*m)->gpu->slug)};
    auto v = parse_positive(fmt::format("--cost {}", (*m)->gpu->slug), kv->second, max_model_cost);
    if (!v) return v.error();
    (*m)->cost = *v;
  }
  req.allow_evict = o.allow_evict;
  // Costs are worked on as whole units of one unit (model/plan_cost.hpp).
  {
    std::vector<double> raw;
    std::string listed;
    for (const fleet_model& m : req.models) {
      raw.push_back(m.cost);
      listed += fmt::format("{}{}={}", listed.empty() ? "" : ", ", m.gpu->slug, m.cost);
    }
    if (!scale_costs(raw))
      return error{fmt::format(
          "the costs {} need more than {} digits together: as whole multiples of one unit "
          "the largest would be more than {} units; give them to fewer digits",
          listed, 6, max_cost_units)};
  }
  if (o.time_limit) {
    auto t = parse_positive("--time-limit", *o.time_limit, max_time_limit_s);
    if (!t) return t.error();
    req.time_limit_s = *t;
  } else {
    req.time_limit_s = default_time_limit_s;
  }
  return req;
}

}  // namespace migplan::cli

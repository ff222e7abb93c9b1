// SPDX-License-Identifier: Apache-2.0
// The fleet as it is, checked and laid out (pack/current_fit.hpp).
#include "pack/current_fit.hpp"

#include <fmt/format.h>

#include <map>
#include <migplan/compute.hpp>
#include <migplan/search.hpp>
#include <span>
#include <string>
#include <utility>

#include "diagnostic.hpp"
#include "messages.hpp"
#include "quote.hpp"

namespace migplan::cli::pack {
namespace {

// Why GPU `index` of node `node` (model `g`) cannot hold `items` read at
// `origin`, in the words of the reader that read them.
error misfit_error(const instances_origin& origin, std::string_view node, int index,
                   const gpu_model& g, std::span<const item> items) {
  switch (origin.from) {
    case instances_origin::kind::state_file:
      return error{located(origin.file, origin.line,
                           fmt::format("the instances of gpu {} of node {} do not fit on {}: {}",
                                       index, quote_token(node), g.slug, why_not_fits(g, items)))};
    case instances_origin::kind::mig_parted:
      return error{located(
          origin.file, origin.line,
          fmt::format("label {} gives gpu {} of node {} a geometry that does not fit on {}: {}",
                      quote_token(origin.label), index, quote_token(node), g.slug,
                      why_not_fits(g, items)))};
    case instances_origin::kind::listing:
      break;
  }
  return error{located(origin.file, origin.line,
                       fmt::format("node {} GPU {}: its GPU instances do not fit together on {}",
                                   node, index, g.slug))};
}

// Whether `items` fit together on `g`, asked once per model and multiset: a
// label's geometry is shared by every node that carries it.
class fit_memo {
 public:
  bool fits_on(const gpu_model& g, const std::vector<item>& items) {
    std::vector<std::pair<int, int>> key;
    for (const item& it : items) key.emplace_back(it.profile, it.start);
    const auto [at, fresh] = known_.try_emplace({&g, std::move(key)}, false);
    if (fresh) at->second = fits(rules(g), items);
    return at->second;
  }

 private:
  std::map<std::pair<const gpu_model*, std::vector<std::pair<int, int>>>, bool> known_;
};

// The GI profile of each GI that mig-parted makes of `lone` on `g`.
std::vector<int> shared_out(const gpu_model& g, const std::vector<lone_cis>& lone) {
  std::vector<int> out;
  for (const lone_cis& l : lone) {
    const ci_grouping shared = group_cis(g.profiles[static_cast<std::size_t>(l.profile)], l.cis);
    out.insert(out.end(), shared.gis.size(), l.profile);
  }
  return out;
}

}  // namespace

std::optional<error> settle(std::vector<current_node>& nodes) {
  fit_memo memo;
  for (current_node& n : nodes)
    for (current_gpu& g : n.gpus) {
      for (const int p : shared_out(*n.gpu, g.lone))
        g.instances.push_back(current_instance::at(p, item::any_start));
      g.lone.clear();
      std::vector<item> items;
      for (const current_instance& gi : g.instances) items.push_back({gi.profile, gi.start});
      if (!items.empty() && !memo.fits_on(*n.gpu, items))
        return misfit_error(g.origin, n.name, g.index, *n.gpu, items);
    }
  return std::nullopt;
}

std::optional<error> lay_out(fleet_now& f) {
  fit_memo memo;
  solve_options one;
  one.max_layouts = 1;
  for (fleet_now_gpu& g : f.gpus) {
    const fleet_now_node& n = f.nodes[static_cast<std::size_t>(g.node)];
    for (const int p : shared_out(*n.gpu, g.lone)) g.given.push_back({p, item::any_start});
    g.lone.clear();
    if (g.given.empty()) continue;
    if (!memo.fits_on(*n.gpu, g.given))
      return misfit_error(g.origin, n.name, g.index, *n.gpu, g.given);
    const solution s = solve(*n.gpu, g.given, one);
    if (!s.feasible()) return misfit_error(g.origin, n.name, g.index, *n.gpu, g.given);
    g.held = s.layouts.front().where;
  }
  return std::nullopt;
}

}  // namespace migplan::cli::pack

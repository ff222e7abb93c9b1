// SPDX-License-Identifier: Apache-2.0
#include "io/fleet_now.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <istream>
#include <optional>
#include <vector>

#include "io/current.hpp"
#include "io/import.hpp"
#include "io/names.hpp"
#include "io/plan_input.hpp"
#include "io/plan_input_util.hpp"
#include "io/source.hpp"
#include "quote.hpp"

namespace migplan::cli {
namespace {

// The nodes an nvidia-smi listing of `src.gpu` describes: one, named
// listing_node.
result<std::vector<current_node>> listing_nodes(model_list models, const fleet_now_source& src,
                                                std::istream& in, std::vector<std::string>& notes) {
  if (!src.mig_config.empty())
    return error{"--mig-config is for kubectl's nodes; --gpu reads an nvidia-smi listing"};
  auto g = resolve_gpu(models, src.gpu);
  if (!g) return error{"--gpu: " + g.error().message};
  const std::string shown = plan_io::shown_path(src.current);
  auto read = read_listing_file(models, src.current, in, *g, std::nullopt, src.command);
  if (!read) return read.error();
  notes = std::move(read->notes);
  const current_listing* listing = &read->listing;
  current_node n;
  n.name = std::string(listing_node);
  n.gpu = listing->gpu;
  n.where = shown;
  int next = 0;
  for (const current_listing_gpu& lg : listing->gpus) {
    current_gpu cg;
    cg.index = lg.index.value_or(next);
    next = cg.index + 1;
    for (const current_instance& c : lg.instances)
      cg.instances.push_back(current_instance::at(c.profile, c.start));
    n.gpus.push_back(std::move(cg));
  }
  return std::vector<current_node>{std::move(n)};
}

// "NODE GPU INDEX".
std::string gpu_shown(const fleet_now& f, const fleet_now_gpu& g) {
  return fmt::format("{} GPU {}", f.nodes[static_cast<std::size_t>(g.node)].name, g.index);
}

}  // namespace

result<listing_read> read_listing_file(model_list models, const std::string& path, std::istream& in,
                                       const gpu_model* gpu, std::optional<int> index,
                                       std::string_view command) {
  const std::string shown = plan_io::shown_path(path);
  bool too_large = false;
  auto text = read_source_bounded(path, in, max_current_bytes, too_large);
  if (!text)
    return error{too_large ? fmt::format("{}: {}, the most {} reads of a --current file", shown,
                                         text.error().message, command)
                           : fmt::format("cannot read {}: {}", quote_token(shown, 200),
                                         text.error().message)};
  auto listing = read_current(models, *text, shown, gpu, index);
  if (!listing) return listing.error();
  listing_read out{std::move(*listing), {}};
  if (const std::string driver = capture_driver(*text); !driver.empty()) {
    std::vector<int> profiles;
    for (const current_listing_gpu& g : out.listing.gpus)
      for (const current_instance& c : g.instances) profiles.push_back(c.profile);
    out.notes = listing_floor_warnings(*out.listing.gpu, driver, profiles, shown);
  }
  return out;
}

std::vector<std::string> mig_off_gpus(const fleet_now& f) {
  std::vector<std::string> out;
  for (const fleet_now_gpu& g : f.gpus)
    if (!g.mig_enabled) out.push_back(gpu_shown(f, g));
  return out;
}

result<fleet_now> read_fleet_now(model_list models, const fleet_now_source& src, std::istream& in) {
  fleet_now res;
  std::vector<current_node> nodes;
  if (!src.gpu.empty()) {
    auto l = listing_nodes(models, src, in, res.notes);
    if (!l) return l.error();
    nodes = std::move(*l);
  } else {
    auto s = read_current_state(models, src.current, src.mig_config, in, src.command);
    if (!s) return s.error();
    res.notes = std::move(s->notes);
    nodes = std::move(s->nodes);
  }
  for (const current_node& n : nodes) {
    if (n.gpus.empty()) {
      res.notes.push_back(fmt::format("node {} has no GPU: left out", n.name));
      continue;
    }
    const int node = static_cast<int>(res.nodes.size());
    res.nodes.push_back({n.name, n.gpu});
    // By index, however the file lists them: "the lowest GPU" of a policy
    // is the lowest index (a state file may list GPU 1 before GPU 0).
    std::vector<const current_gpu*> by_index;
    for (const current_gpu& cg : n.gpus) by_index.push_back(&cg);
    std::stable_sort(
        by_index.begin(), by_index.end(),
        [](const current_gpu* x, const current_gpu* y) { return x->index < y->index; });
    for (const current_gpu* at : by_index) {
      const current_gpu& cg = *at;
      fleet_now_gpu g;
      g.node = node;
      g.index = cg.index;
      g.mig_enabled = cg.mig_enabled;
      g.origin = cg.origin;
      if (g.origin.from == instances_origin::kind::listing) g.origin.file = n.where;
      for (const current_instance& gi : cg.instances) {
        g.given.push_back({gi.profile, gi.start});
        g.starts_assumed = g.starts_assumed || gi.start == item::any_start;
      }
      // Their GIs are made where the driver puts them.
      g.lone = cg.lone;
      g.starts_assumed = g.starts_assumed || !g.lone.empty();
      res.gpus.push_back(std::move(g));
    }
  }
  if (res.gpus.empty())
    return error{fmt::format("{} has no GPU", plan_io::shown_path(src.current))};
  std::vector<std::string> assumed;
  for (const fleet_now_gpu& g : res.gpus)
    if (g.starts_assumed) assumed.push_back(gpu_shown(res, g));
  if (!assumed.empty())
    res.notes.push_back(fmt::format(
        "the starts of the instances on {} are not known; taken as the layout of them that "
        "keeps the most room",
        fmt::join(assumed, ", ")));
  return res;
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
// Fleet files and state files for `migplan plan` (plan_input.hpp): the
// fleet's models and nodes, and the fleet as it is now. Each is a schema
// walked over the document layer's tree; the demand and the files
// themselves are plan_input.cpp's.
#include <fmt/format.h>

#include <algorithm>
#include <istream>
#include <map>
#include <migplan/lookup.hpp>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>

#include "io/document.hpp"
#include "io/names.hpp"
#include "io/plan_input.hpp"
#include "io/plan_input_util.hpp"
#include "io/schema.hpp"
#include "io/size.hpp"

namespace migplan::cli {
namespace {

using doc::find;
using doc::node;
using doc::value_text;
using plan_io::first_error;
using plan_io::plan_budget;
using plan_io::q;
using plan_io::shown_path;
using plan_io::stop;
using plan_io::suggest;

// ---------------------------------------------------------------------------
// Fleet files.

constexpr std::string_view fleet_top_keys[] = {"version", "models", "nodes", "comment"};
constexpr std::string_view fleet_model_keys[] = {"gpu", "available", "cost", "comment"};
constexpr std::string_view fleet_node_keys[] = {"name", "gpu", "gpus", "comment"};

// The model a `gpu` key names; nullptr (and a diagnostic) when `f` is
// missing or names none.
const gpu_model* model_of(doc::walker& r, model_list models, const doc::field* f) {
  if (f == nullptr) return nullptr;
  const auto text = r.text(*f, "gpu");
  if (!text) return nullptr;
  auto g = resolve_gpu(models, *text);
  if (g) return *g;
  r.fail(f->at(), g.error().message);
  return nullptr;
}

double cost_of(doc::walker& r, const doc::field& f) {
  const node& n = *f.value;
  const auto v = n.is_scalar() && !n.quoted ? parse_decimal(n.text) : std::nullopt;
  if (!v)
    r.fail(f.at(), fmt::format("cost must be a number, not {}", value_text(n)));
  else if (!(*v > 0) || *v > max_model_cost)
    r.fail(f.at(),
           fmt::format("cost {} must be more than 0 and at most {}", n.text, max_model_cost));
  return v.value_or(0);
}

constexpr std::string_view gpu_why = "(a slug, nvidia-smi name or PCI device ID)";

// A node of a fleet or state file: its fields (checked against `keys`) and
// the 'name' and 'gpu' every node has; nothing when it is no mapping (then
// a diagnostic is in `r`; a missing or wrong name or gpu leaves one too).
struct node_head {
  std::vector<doc::field> fields;
  std::string name;
  const gpu_model* gpu = nullptr;
};
std::optional<node_head> read_node_head(doc::walker& r, model_list models, const node& n, int line,
                                        std::span<const std::string_view> keys) {
  if (!plan_io::mapping(r, n, line, "each node must be a mapping with 'name', 'gpu' and 'gpus'"))
    return std::nullopt;
  node_head h;
  h.fields = r.fields(n, keys, "a node");
  if (const doc::field* f = r.need(h.fields, "name", line, "(the node's name)"))
    h.name = r.name(*f, "node name", max_plan_name_length).value_or("");
  h.gpu = model_of(r, models, r.need(h.fields, "gpu", line, gpu_why));
  return h;
}

// Whether node `name` (at `line`) is listed for the first time in `names`
// (each name's first line); a diagnostic in `r` when it is not.
bool first_listing(doc::walker& r, std::unordered_map<std::string, int>& names,
                   const std::string& name, int line) {
  auto [it, fresh] = names.try_emplace(name, line);
  if (!fresh)
    r.fail(line, fmt::format("node {} is listed twice (first at line {})", q(name), it->second));
  return fresh;
}

}  // namespace

result<plan_fleet> parse_fleet(model_list models, std::string_view text, std::string_view shown,
                               bool json) {
  doc::walker r(shown);
  const auto root =
      doc::read_document(text, shown, json, plan_budget("nodes", max_plan_nodes, "nodes"));
  if (!root) return error{root.error()};
  if (!r.top_mapping(*root, "fleet file", "'version: 1' and 'nodes' or 'models'"))
    return first_error(r);
  const auto top = r.fields(*root, fleet_top_keys, "the top level");
  if (!r.ok() || !r.version(top, "fleet files")) return first_error(r);
  const doc::field* model_entries = find(top, "models");
  const doc::field* nodes = find(top, "nodes");
  if (model_entries == nullptr && nodes == nullptr)
    return stop(r, 1,
                "a fleet file needs 'nodes' (name, gpu, gpus) or 'models' (gpu, available, cost)");
  plan_fleet out;
  struct model_line {
    int line;
    bool has_nodes;
  };
  std::map<const gpu_model*, model_line> model_at;
  if (model_entries != nullptr) {
    const node* list =
        r.list(*model_entries, "a list of models (gpu, available, cost)", models.size(), "models");
    if (list == nullptr) return first_error(r);
    if (list->size() == 0)
      return stop(r, model_entries->at(), "'models' is empty: list at least one model");
    for (const node& m : list->kids) {
      const int line = m.line_or(model_entries->line());
      if (!plan_io::mapping(r, m, line,
                            "each model must be a mapping with 'gpu' (and 'available', 'cost')"))
        return first_error(r);
      const auto fs = r.fields(m, fleet_model_keys, "a model");
      fleet_model fm;
      fm.gpu = model_of(r, models, r.need(fs, "gpu", line, gpu_why));
      if (const doc::field* f = find(fs, "available"))
        fm.available = r.whole(*f, "available", 0, max_model_available);
      if (const doc::field* f = find(fs, "cost")) fm.cost = cost_of(r, *f);
      if (!r.ok()) return first_error(r);
      auto [it, fresh] = model_at.try_emplace(fm.gpu, model_line{line, false});
      if (!fresh)
        return stop(r, line,
                    fmt::format("model {} is listed twice (first at line {})", fm.gpu->slug,
                                it->second.line));
      out.models.push_back(fm);
    }
  }
  if (nodes != nullptr) {
    const node* list = r.list(*nodes, "a list of nodes (name, gpu, gpus)");
    if (list == nullptr) return first_error(r);
    if (list->size() == 0) return stop(r, nodes->at(), "'nodes' is empty: list at least one node");
    std::unordered_map<std::string, int> names;
    std::vector<fleet_model> from_nodes;
    for (const node& n : list->kids) {
      const int line = n.line_or(nodes->line());
      auto head = read_node_head(r, models, n, line, fleet_node_keys);
      if (!head) return first_error(r);
      fleet_node fn;
      fn.name = std::move(head->name);
      fn.gpu = head->gpu;
      if (const doc::field* f = r.need(head->fields, "gpus", line, "(how many GPUs it has)"))
        fn.gpu_count = static_cast<int>(r.whole(*f, "gpus", 1, max_node_gpus).value_or(0));
      if (!r.ok()) return first_error(r);
      fn.where = position_text(shown, line);
      if (!first_listing(r, names, fn.name, line)) return first_error(r);
      auto m = model_at.find(fn.gpu);
      if (m == model_at.end()) {
        model_at.emplace(fn.gpu, model_line{line, true});
        from_nodes.push_back({fn.gpu, std::nullopt, 1.0});
      } else if (!m->second.has_nodes) {
        m->second.has_nodes = true;
        from_nodes.push_back(*std::find_if(out.models.begin(), out.models.end(),
                                           [&](const fleet_model& x) { return x.gpu == fn.gpu; }));
      }
      out.nodes.push_back(std::move(fn));
    }
    // With nodes the fleet is theirs: a model no node has cannot be used.
    for (const fleet_model& fm : out.models)
      if (!model_at[fm.gpu].has_nodes)
        return stop(
            r, model_at[fm.gpu].line,
            fmt::format("model {} is listed under 'models' but no node has it", fm.gpu->slug));
    out.models = std::move(from_nodes);
  }
  return out;
}

namespace {

std::string starts_text(const profile& p, int units) {
  std::string out;
  for (int s = 0; s < units; ++s)
    if (p.allows_start(s)) out += fmt::format("{}{}", out.empty() ? "" : ", ", s);
  return out;
}

// ---------------------------------------------------------------------------
// migplan's state file.

constexpr std::string_view state_top_keys[] = {"version", "nodes", "comment"};
constexpr std::string_view state_node_keys[] = {"name", "gpu", "label", "gpus", "comment"};
constexpr std::string_view state_gpu_keys[] = {"index", "label", "instances", "comment"};
constexpr std::string_view state_instance_keys[] = {"profile", "start", "in_use", "comment"};

// One instance of a GPU of model `g`; nothing (and a diagnostic) when it is
// not one.
std::optional<current_instance> state_instance(doc::walker& r, model_list models, const node& i,
                                               int line, const gpu_model& g) {
  if (!plan_io::mapping(r, i, line,
                        "each instance must be a mapping with 'profile' (and 'start', 'in_use')"))
    return std::nullopt;
  const auto fs = r.fields(i, state_instance_keys, "an instance");
  const doc::field* pf = r.need(fs, "profile", line, "(a profile name such as 1g.10gb)");
  const auto name = pf ? r.text(*pf, "profile") : std::nullopt;
  if (!name) return std::nullopt;
  auto p = resolve_profile(models, g, *name);
  if (!p) {
    r.fail(pf->at(), p.error().message);
    return std::nullopt;
  }
  current_instance gi;
  gi.profile = *p;
  const profile& pr = g.profiles[static_cast<std::size_t>(gi.profile)];
  if (const doc::field* f = find(fs, "start")) {
    const auto start = r.whole(*f, "start", 0, g.units - 1);
    if (!start) return std::nullopt;
    gi.start = static_cast<int>(*start);
    if (!pr.allows_start(gi.start)) {
      r.fail(f->at(), fmt::format("{} cannot start at {} on {} (its starts are {})", pr.name,
                                  gi.start, g.slug, starts_text(pr, g.units)));
      return std::nullopt;
    }
  }
  if (const doc::field* f = find(fs, "in_use")) gi.in_use = r.flag(*f, "in_use").value_or(false);
  if (!r.ok()) return std::nullopt;
  return gi;
}

std::optional<current_gpu> state_gpu(doc::walker& r, model_list models, const node& gn,
                                     int fallback, const current_node& owner) {
  const gpu_model& g = *owner.gpu;
  const int line = gn.line_or(fallback);
  if (!plan_io::mapping(r, gn, line, "each gpu must be a mapping with 'index' and 'instances'"))
    return std::nullopt;
  const auto fs = r.fields(gn, state_gpu_keys, "a gpu");
  current_gpu out;
  if (const doc::field* f = r.need(fs, "index", line, "(the GPU's index on its node)"))
    out.index = static_cast<int>(r.whole(*f, "index", 0, max_node_gpus - 1).value_or(0));
  if (const doc::field* f = find(fs, "label"))
    out.label = r.name(*f, "label", max_plan_name_length).value_or("");
  const doc::field* inst = r.need(fs, "instances", line, "(a list, empty for none)");
  const node* list = inst ? r.list(*inst, "a list of instances (profile, start, in_use)") : nullptr;
  if (list == nullptr || !r.ok()) return std::nullopt;
  if (list->size() > static_cast<std::size_t>(max_units)) {
    r.fail(inst->at(),
           fmt::format("gpu {} of node {} lists {} instances; no GPU holds more than {}", out.index,
                       q(owner.name), list->size(), max_units));
    return std::nullopt;
  }
  for (const node& i : list->kids) {
    auto gi = state_instance(r, models, i, i.line_or(inst->line()), g);
    if (!gi) return std::nullopt;
    out.instances.push_back(*gi);
  }
  out.origin = {instances_origin::kind::state_file, std::string(r.file()), inst->line(), {}};
  return out;
}

}  // namespace

result<std::vector<current_node>> parse_state(model_list models, std::string_view text,
                                              std::string_view shown, bool json) {
  doc::walker r(shown);
  const auto root =
      doc::read_document(text, shown, json, plan_budget("nodes", max_plan_nodes, "nodes"));
  if (!root) return error{root.error()};
  if (!r.top_mapping(*root, "state file", "'version: 1' and 'nodes'")) return first_error(r);
  const auto top = r.fields(*root, state_top_keys, "the top level");
  if (!r.ok() || !r.version(top, "state files")) return first_error(r);
  const doc::field* nodes = r.need(top, "nodes", 1, "(a list of nodes with name, gpu and gpus)");
  const node* list = nodes ? r.list(*nodes, "a list of nodes (name, gpu, gpus)") : nullptr;
  if (list == nullptr) return first_error(r);
  if (list->size() == 0) return stop(r, nodes->at(), "'nodes' is empty: list at least one node");
  std::vector<current_node> out;
  std::unordered_map<std::string, int> names;
  for (const node& n : list->kids) {
    const int line = n.line_or(nodes->line());
    auto head = read_node_head(r, models, n, line, state_node_keys);
    if (!head) return first_error(r);
    const auto& fs = head->fields;
    current_node cn;
    cn.name = std::move(head->name);
    cn.gpu = head->gpu;
    if (const doc::field* f = find(fs, "label"))
      cn.label = r.name(*f, "label", max_plan_name_length).value_or("");
    if (!r.ok()) return first_error(r);
    cn.where = position_text(shown, line);
    if (!first_listing(r, names, cn.name, line)) return first_error(r);
    const doc::field* gf =
        r.need(fs, "gpus", line, "(a list of its GPUs with index and instances)");
    const node* gpus = gf ? r.list(*gf, "a list of GPUs (index, instances)") : nullptr;
    if (gpus == nullptr) return first_error(r);
    if (gpus->size() == 0)
      return stop(r, gf->at(), fmt::format("node {} lists no gpus", q(cn.name)));
    if (gpus->size() > static_cast<std::size_t>(max_node_gpus)) {
      r.fail(gf->at(), fmt::format("node {} lists {} gpus; the most a node may have is {}",
                                   q(cn.name), gpus->size(), max_node_gpus));
      return first_error(r);
    }
    std::map<int, int> index_line;
    for (const node& gn : gpus->kids) {
      auto g = state_gpu(r, models, gn, gf->line(), cn);
      if (!g) return first_error(r);
      const int gline = gn.line_or(gf->line());
      auto [at_index, new_index] = index_line.try_emplace(g->index, gline);
      if (!new_index)
        return stop(r, gline,
                    fmt::format("gpu {} of node {} is listed twice (first at line {})", g->index,
                                q(cn.name), at_index->second));
      if (g->label.empty()) g->label = cn.label;
      cn.gpus.push_back(std::move(*g));
    }
    out.push_back(std::move(cn));
  }
  return out;
}

result<plan_fleet> read_fleet(model_list models, const std::string& path, std::istream& in,
                              std::string_view command) {
  auto text = read_plan_file(path, in, command);
  if (!text) return text.error();
  const plan_file_format format = plan_format_of(path, *text);
  if (auto e = wrong_kind(*text, format, shown_path(path), {yaml_kind::fleet, yaml_kind::nodes},
                          "--fleet takes a fleet file (version: 1, models: or nodes: ...)"))
    return *e;
  return parse_fleet(models, *text, shown_path(path), format == plan_file_format::json);
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
// The plan's node layouts and mig-parted labels (plan/labels.hpp).
#include "plan/labels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "k8s_names.hpp"
#include "quote.hpp"
#include "slurm_names.hpp"

namespace migplan::cli::plan {
namespace {

// A model as a device-filter can name it: null when it has no PCI ID, so
// that its entries match every GPU.
const gpu_model* filtered(const gpu_model* g) {
  return g != nullptr && !g->pci_ids.empty() ? g : nullptr;
}

emitted_geometry group_geometry(const plan_group& grp) {
  emitted_geometry out{true, {}};
  std::map<int, int> n;
  std::map<std::pair<int, int>, int> cis;
  for (const planned_instance& p : grp.instances) {
    if (p.cis.empty())
      ++n[p.where.profile];
    else
      for (const ci_instance& c : p.cis) ++cis[{p.where.profile, c.ci}];
  }
  out.counts.assign(n.begin(), n.end());
  out.ci_counts.assign(cis.begin(), cis.end());
  return out;
}

emitted_geometry current_geometry(const current_gpu& gpu) {
  emitted_geometry out{!gpu.instances.empty(), {}};
  std::map<int, int> n;
  for (const current_instance& gi : gpu.instances) ++n[gi.profile];
  out.counts.assign(n.begin(), n.end());
  return out;
}

// The entries of a node's label: one `devices: all` entry when its GPUs
// share one geometry, else one entry per geometry listing its GPUs.
std::vector<emitted_entry> entries_of(const gpu_model* g,
                                      const std::vector<emitted_geometry>& per_gpu) {
  std::vector<emitted_entry> out;
  for (std::size_t i = 0; i < per_gpu.size(); ++i) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const emitted_entry& e) { return e.geometry == per_gpu[i]; });
    if (it == out.end()) {
      out.push_back({g, false, {}, per_gpu[i]});
      it = out.end() - 1;
    }
    it->devices.push_back(static_cast<int>(i));
  }
  if (out.size() == 1) {
    out.front().all_devices = true;
    out.front().devices.clear();
  }
  return out;
}

bool all_disabled(const std::vector<emitted_geometry>& per_gpu) {
  return std::all_of(per_gpu.begin(), per_gpu.end(),
                     [](const emitted_geometry& g) { return !g.mig_enabled; });
}

std::vector<emitted_entry> disabled_entries() { return {{nullptr, true, {}, {false, {}}}}; }

// The text a label's name is derived from: everything mig-parted sees.
std::string canonical(const std::vector<emitted_entry>& entries) {
  std::string out;
  for (const emitted_entry& e : entries) {
    out += e.gpu != nullptr ? std::string(e.gpu->slug) : std::string("*");
    out += '|';
    if (e.all_devices) {
      out += "all";
    } else {
      for (int d : e.devices) out += fmt::format("{},", d);
    }
    out += e.geometry.mig_enabled ? "|on|" : "|off|";
    for (const auto& [p, n] : e.geometry.counts)
      out += fmt::format("{}={},",
                         e.gpu != nullptr ? e.gpu->profiles[static_cast<std::size_t>(p)].name
                                          : std::string_view("?"),
                         n);
    for (const auto& [gi_ci, n] : e.geometry.ci_counts)
      out += fmt::format("{}={},", e.gpu != nullptr ? ci_name(*e.gpu, gi_ci) : "?", n);
    out += ';';
  }
  return out;
}

// FNV-1a, 64 bits: a stable hash (std::hash may differ between builds).
std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

// Room left for label_table::place's "-2" ... "-99" after a name, in a
// label value (the node label nvidia.com/mig.config carries the name).
constexpr std::size_t max_base_name = k8s::max_label_value - 3;
using k8s::label_value;

// An entry's geometry as words, largest profile first as pack names its
// layouts: "3g.40gb-2g.20gb-2x1g.10gb", "disabled" with MIG off, "empty".
std::string geometry_words(const gpu_model& g, const emitted_geometry& geo) {
  if (!geo.mig_enabled) return "disabled";
  struct word {
    const profile* gi;
    int ci_slices;  // -1: the whole GPU instance
    std::string text;
  };
  const auto counted = [](int n, std::string_view name) {
    return fmt::format("{}{}", n == 1 ? "" : fmt::format("{}x", n), k8s::label_word(name));
  };
  std::vector<word> words;
  for (const auto& [p, n] : geo.counts) {
    const profile& gi = g.profiles[static_cast<std::size_t>(p)];
    words.push_back({&gi, -1, counted(n, gi.name)});
  }
  for (const auto& [gi_ci, n] : geo.ci_counts) {
    const profile& gi = g.profiles[static_cast<std::size_t>(gi_ci.first)];
    words.push_back({&gi, gi.ci_profiles[static_cast<std::size_t>(gi_ci.second)].compute_slices,
                     counted(n, ci_name(g, gi_ci))});
  }
  if (words.empty()) return "empty";
  std::stable_sort(words.begin(), words.end(), [](const word& a, const word& b) {
    if (a.gi->size != b.gi->size) return a.gi->size > b.gi->size;
    if (a.gi->compute_slices != b.gi->compute_slices)
      return a.gi->compute_slices > b.gi->compute_slices;
    if ((a.ci_slices < 0) != (b.ci_slices < 0)) return a.ci_slices < 0;
    return a.ci_slices > b.ci_slices;
  });
  std::string out;
  for (const word& w : words) out += (out.empty() ? "" : "-") + w.text;
  return out;
}

// A label's name, from the layout alone, so that a re-plan renames only the
// nodes whose layout changes: "migplan-MODEL-" and the geometry, as pack
// --emit names its layouts ("migplan-h100-80gb-3g.40gb-2g.20gb-2x1g.10gb").
// Where a node's GPUs differ, each entry's geometry (apart by "_") and a hash
// of what mig-parted sees, since the words leave out which GPUs take which.
// Where that is too long for a label value (or is none), "migplan-MODEL-"
// and the hash alone.
std::string derived_name(const gpu_model* g, const std::vector<emitted_entry>& entries) {
  const std::string_view slug = g != nullptr ? g->slug : std::string_view("any");
  const std::string hash =
      fmt::format("{:08x}", static_cast<std::uint32_t>(fnv1a(canonical(entries)) >> 32));
  std::string readable = fmt::format("migplan-{}", slug);
  for (std::size_t i = 0; i < entries.size() && !readable.empty(); ++i) {
    const emitted_entry& e = entries[i];
    if (e.gpu == nullptr)
      readable.clear();  // no model to name the profiles by
    else
      readable += (i == 0 ? "-" : "_") + geometry_words(*e.gpu, e.geometry);
  }
  if (entries.size() > 1 && !readable.empty()) readable += "-" + hash;
  if (!readable.empty() && readable.size() <= max_base_name && label_value(readable))
    return readable;
  return fmt::format("migplan-{}-{}", slug, hash);
}

// The labels being built: each a set of entries per device-filter model.
class label_table {
 public:
  label_table() { add_entries(std::string(disabled_label), nullptr, disabled_entries()); }

  // Adds `entries` (for model `g`) to label `name`; false when the label
  // already holds other entries that would apply to the same GPUs.
  bool add_entries(const std::string& name, const gpu_model* g,
                   const std::vector<emitted_entry>& entries) {
    auto it = index_.find(name);
    if (it == index_.end()) {
      index_.emplace(name, labels_.size());
      labels_.push_back({name, {}, {}, 0});
      parts_.emplace_back();
      it = index_.find(name);
    }
    auto& parts = parts_[it->second];
    const gpu_model* key = filtered(g);
    for (const auto& [k, es] : parts) {
      if (k == key) return es == entries;
      // An unfiltered part applies to every model: it cannot share a label.
      if (k == nullptr || key == nullptr) return false;
    }
    parts.emplace_back(key, entries);
    for (const emitted_entry& e : entries) labels_[it->second].entries.push_back(e);
    return true;
  }

  bool fits(const std::string& name, const gpu_model* g,
            const std::vector<emitted_entry>& entries) const {
    const auto it = index_.find(name);
    if (it == index_.end()) return true;
    const gpu_model* key = filtered(g);
    for (const auto& [k, es] : parts_[it->second]) {
      if (k == key) return es == entries;
      if (k == nullptr || key == nullptr) return false;
    }
    return true;
  }

  // A name for entries of model `g`: `base`, or base-2, base-3, ... when a
  // label of that name holds something else.
  std::string place(const std::string& base, const gpu_model* g,
                    const std::vector<emitted_entry>& entries) {
    std::string name = base;
    for (int n = 2; !add_entries(name, g, entries); ++n) name = fmt::format("{}-{}", base, n);
    return name;
  }

  emitted_label& at(const std::string& name) { return labels_[index_.at(name)]; }
  std::vector<emitted_label> take() { return std::move(labels_); }

 private:
  std::vector<emitted_label> labels_;
  std::vector<std::vector<std::pair<const gpu_model*, std::vector<emitted_entry>>>> parts_;
  std::unordered_map<std::string, std::size_t> index_;
};

// The geometry each GPU of `pn` gets: its group's, else (in a re-plan) its
// current one, else MIG off.
std::vector<emitted_geometry> per_gpu_of(const plan_request& req, const plan_result& res,
                                         const planned_node& pn) {
  std::vector<emitted_geometry> out(pn.groups.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (pn.groups[i] >= 0)
      out[i] = group_geometry(res.groups[static_cast<std::size_t>(pn.groups[i])]);
    else if (pn.current[i] >= 0)
      out[i] = current_geometry((*req.current)[static_cast<std::size_t>(pn.now)]
                                    .gpus[static_cast<std::size_t>(pn.current[i])]);
  }
  return out;
}

}  // namespace

std::vector<planned_node> planned_nodes(const plan_request& req, const plan_result& res) {
  std::unordered_map<std::string, const fleet_node*> fleet;
  for (const fleet_node& n : req.nodes) fleet.emplace(n.name, &n);
  std::unordered_map<std::string, int> current;
  if (req.current)
    for (std::size_t k = 0; k < req.current->size(); ++k)
      current.emplace((*req.current)[k].name, static_cast<int>(k));
  std::vector<planned_node> out;
  for (const plan_result::node_plan& np : res.nodes) {
    planned_node pn{np.name, nullptr, -1, {}, {}};
    const auto f = fleet.find(np.name);
    const auto c = current.find(np.name);
    pn.now = c != current.end() ? c->second : -1;
    const current_node* now =
        pn.now >= 0 ? &(*req.current)[static_cast<std::size_t>(pn.now)] : nullptr;
    int count = 0;
    if (f != fleet.end()) {
      pn.gpu = f->second->gpu;
      count = f->second->gpu_count;
    } else if (now != nullptr) {
      pn.gpu = now->gpu;
      for (const current_gpu& g : now->gpus) count = std::max(count, g.index + 1);
    }
    for (const plan_result::node_gpu& g : np.gpus) {
      count = std::max(count, g.index + 1);
      if (pn.gpu == nullptr && g.group >= 0)
        pn.gpu = res.groups[static_cast<std::size_t>(g.group)].gpu;
    }
    pn.groups.assign(static_cast<std::size_t>(count), -1);
    pn.current.assign(static_cast<std::size_t>(count), -1);
    for (const plan_result::node_gpu& g : np.gpus)
      if (g.group >= 0 && g.index >= 0) {
        assert(res.groups[static_cast<std::size_t>(g.group)].gpu == pn.gpu);
        pn.groups[static_cast<std::size_t>(g.index)] = g.group;
      }
    if (now != nullptr)
      for (std::size_t k = 0; k < now->gpus.size(); ++k) {
        const int index = now->gpus[k].index;
        if (index >= 0 && index < count)
          pn.current[static_cast<std::size_t>(index)] = static_cast<int>(k);
      }
    out.push_back(std::move(pn));
  }
  return out;
}

emitted_labels plan_labels(const plan_request& req, const plan_result& res) {
  emitted_labels out;
  label_table table;
  if (res.nodes.empty()) {
    // GPUs without nodes: one label per distinct geometry.
    for (const plan_group& grp : res.groups) {
      const std::vector<emitted_entry> entries = entries_of(grp.gpu, {group_geometry(grp)});
      const std::string name = table.place(derived_name(grp.gpu, entries), grp.gpu, entries);
      table.at(name).gpus += grp.count;
    }
    out.labels = table.take();
    return out;
  }
  std::set<std::string> changed;
  for (const plan_change& c : res.changes) changed.insert(c.node);

  struct node_layout {
    const gpu_model* gpu = nullptr;
    std::vector<emitted_entry> entries;
    bool disabled = false;
    long long gpus = 0;
    const current_node* now = nullptr;
    bool keeps = false;  // unchanged in a re-plan, with a current label
  };
  std::vector<node_layout> layouts;
  for (const planned_node& pn : planned_nodes(req, res)) {
    node_layout nl;
    nl.gpu = pn.gpu;
    nl.now = pn.now >= 0 ? &(*req.current)[static_cast<std::size_t>(pn.now)] : nullptr;
    const std::vector<emitted_geometry> per_gpu = per_gpu_of(req, res, pn);
    nl.gpus = static_cast<long long>(per_gpu.size());
    nl.disabled = all_disabled(per_gpu);
    nl.entries = nl.disabled ? disabled_entries() : entries_of(nl.gpu, per_gpu);
    nl.keeps = nl.now != nullptr && !nl.now->label.empty() && changed.count(pn.name) == 0;
    layouts.push_back(std::move(nl));
  }
  // A current label is kept only where every unchanged node that carries it
  // fits it: one layout per model (all-disabled keeps its standard meaning).
  std::map<std::string, bool> keepable;
  {
    label_table trial;
    for (const node_layout& nl : layouts) {
      if (!nl.keeps) continue;
      const std::string& l = nl.now->label;
      const gpu_model* g = nl.disabled ? nullptr : nl.gpu;
      auto [it, fresh] = keepable.try_emplace(l, true);
      if (!trial.add_entries(l, g, nl.entries)) it->second = false;
    }
  }
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const node_layout& nl = layouts[i];
    const gpu_model* g = nl.disabled ? nullptr : nl.gpu;
    std::string name;
    if (nl.keeps && keepable[nl.now->label] && table.fits(nl.now->label, g, nl.entries)) {
      name = nl.now->label;
      table.add_entries(name, g, nl.entries);
    } else {
      const std::string base =
          nl.disabled ? std::string(disabled_label) : derived_name(nl.gpu, nl.entries);
      name = table.place(base, g, nl.entries);
    }
    emitted_label& l = table.at(name);
    l.nodes.push_back(res.nodes[i].name);
    l.gpus += nl.gpus;
    out.nodes.push_back({res.nodes[i].name, name, nl.now == nullptr || nl.now->label != name});
  }
  out.labels = table.take();
  return out;
}

void add_layouts(const plan_request& req, plan_result& res) {
  res.layouts = planned_nodes(req, res);
  res.labels = plan_labels(req, res);
}

std::string emit_problem(const plan_result& res) {
  if (res.feasible) return {};
  // Nothing reaches stdout, so the message says what the report would show.
  if (res.status == plan_status::timed_out)
    return fmt::format(
        "no plan that meets the demand was found within the time limit (try --time-limit {}; "
        "without --emit the report shows the best plan found)",
        res.suggested_time_limit_s.value_or(0));
  const std::size_t n = res.unmet.size();
  return fmt::format(
      "the plan does not meet the demand: {} item{} of it {} short (without --emit the report "
      "says which, and why)",
      n, n == 1 ? "" : "s", n == 1 ? "falls" : "fall");
}

namespace {

std::string needs_nodes(std::string_view kind, const plan_result& res) {
  if (res.nodes.empty())
    return fmt::format("--emit {} needs nodes: give a fleet file with nodes, or --current", kind);
  return {};
}

}  // namespace

std::string labels_problem(const plan_request&, const plan_result& res) {
  return needs_nodes("labels", res);
}

std::string slurm_problem(const plan_request& req, const plan_result& res) {
  if (std::string why = needs_nodes("slurm", res); !why.empty()) return why;
  for (const planned_node& n : planned_nodes(req, res)) {
    if (!slurm::node_name(n.name))
      return fmt::format(
          "--emit slurm: node {} is no Slurm node name (letters, digits, '-', '_' and '.')",
          quote_token(n.name));
    // A GPU that gets no group and has no instance now is one device, typed
    // by the model's short name.
    bool whole = false;
    for (std::size_t i = 0; i < n.groups.size() && !whole; ++i)
      whole =
          n.groups[i] < 0 && (n.current[i] < 0 || (*req.current)[static_cast<std::size_t>(n.now)]
                                                      .gpus[static_cast<std::size_t>(n.current[i])]
                                                      .instances.empty());
    if (n.gpu != nullptr && whole && slurm::gpu_type(*n.gpu).empty())
      return fmt::format(
          "--emit slurm: node {} has GPUs with MIG off, and the nvidia-smi names of its model "
          "{} share no short word to type them by",
          quote_token(n.name), n.gpu->slug);
  }
  return {};
}

}  // namespace migplan::cli::plan

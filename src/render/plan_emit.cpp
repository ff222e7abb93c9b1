// SPDX-License-Identifier: Apache-2.0
#include "render/plan_emit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <string_view>

#include "quote.hpp"
#include "render/inferred.hpp"
#include "render/mig_parted.hpp"
#include "render/plan_view.hpp"
#include "render/yaml.hpp"
#include "text.hpp"

namespace migplan::cli::render {
namespace {

std::string node_list(const std::vector<std::string>& nodes) {
  constexpr std::size_t most = 5;
  std::string out;
  for (std::size_t i = 0; i < nodes.size() && i < most; ++i)
    out += fmt::format("{}{}", i == 0 ? "" : ", ", clip_token(nodes[i], 64));
  if (nodes.size() > most) out += fmt::format(" and {} more", nodes.size() - most);
  return out;
}

// The models a label's entries are for, as its comment names them.
std::string models_of(const emitted_label& l) {
  std::vector<std::string_view> slugs;
  for (const emitted_entry& e : l.entries)
    if (e.gpu != nullptr && std::find(slugs.begin(), slugs.end(), e.gpu->slug) == slugs.end())
      slugs.push_back(e.gpu->slug);
  std::string out;
  for (std::string_view s : slugs) out += fmt::format("{}{}", out.empty() ? "" : ", ", s);
  return out;
}

// The config itself; `indent` before every line (inside a ConfigMap).
void write_config(std::ostream& os, const emitted_labels& labels, std::string_view indent) {
  mig_parted_config config;
  for (const emitted_label& l : labels.labels) {
    mig_parted_label out{l.name, {}};
    if (l.name == disabled_label && l.nodes.empty())
      out.comment = "MIG off on every GPU: the GPU Operator's default label";
    else if (!l.nodes.empty())
      out.comment = fmt::format("{}: {} node{} ({}), {} GPU{}",
                                l.name == disabled_label ? "MIG off" : models_of(l), l.nodes.size(),
                                plural(l.nodes.size()), node_list(l.nodes), l.gpus, plural(l.gpus));
    else
      out.comment = fmt::format("{}: {} GPU{}", models_of(l), l.gpus, plural(l.gpus));
    for (const emitted_entry& e : l.entries) {
      mig_parted_entry m{e.gpu, e.geometry.mig_enabled, {}};
      if (!e.all_devices) m.gpu_indices = e.devices;
      m.devices.assign(e.geometry.counts.begin(), e.geometry.counts.end());
      for (const auto& [gi_ci, n] : e.geometry.ci_counts)
        m.compute.emplace_back(ci_name(*e.gpu, gi_ci), n);
      out.entries.push_back(std::move(m));
    }
    config.labels.push_back(std::move(out));
  }
  mig_parted(os, config, indent);
}

// True when some label gives a node more than one profile, or MIG on some
// GPUs and off on others: the single MIG strategy allows neither.
bool needs_mixed(const emitted_labels& labels) {
  for (const emitted_label& l : labels.labels) {
    // The distinct devices a label makes per model: profiles, and CI profiles
    // (each a device of its own under the mixed strategy).
    std::set<std::pair<const gpu_model*, std::string_view>> devices;
    bool on = false, off = false;
    for (const emitted_entry& e : l.entries) {
      (e.geometry.mig_enabled ? on : off) = true;
      for (const auto& [p, n] : e.geometry.counts)
        devices.insert({e.gpu, e.gpu->profiles[static_cast<std::size_t>(p)].name});
      for (const auto& [gi_ci, n] : e.geometry.ci_counts)
        devices.insert({e.gpu, ci_name(*e.gpu, gi_ci)});
    }
    std::set<const gpu_model*> models;
    for (const auto& [g, name] : devices) models.insert(g);
    if ((on && off) || devices.size() > models.size()) return true;
  }
  return false;
}

void write_header(std::ostream& os, const emitted_labels& labels) {
  std::size_t nodes = labels.nodes.size();
  long long gpus = 0;
  for (const emitted_label& l : labels.labels) gpus += l.gpus;
  os << fmt::format("# migplan plan: {} label{}", labels.labels.size(),
                    plural(labels.labels.size()));
  if (nodes > 0)
    os << fmt::format(" for {} node{} ({} GPU{})", nodes, plural(nodes), gpus, plural(gpus));
  else
    os << fmt::format(" for {} GPU{}", gpus, plural(gpus));
  os << ". Select one per node with\n"
        "#   kubectl label node NODE nvidia.com/mig.config=LABEL --overwrite\n"
        "# (--emit labels writes those commands). mig-parted creates each geometry's\n"
        "# instances and chooses where each one starts.\n";
}

// Per model, the profiles of the plan with inferred values, as comment lines.
std::string inferred_comments(const plan_result& res) {
  std::string out;
  for (const auto& [gpu, inferred] : plan_detail::inferred_of(res))
    out += comment_lines(inferred_sentence(*gpu, inferred));
  return out;
}

}  // namespace

void plan_mig_parted(std::ostream& out, const plan_request&, const plan_result& res,
                     const plan_emit_options&) {
  write_header(out, res.labels);
  out << inferred_comments(res);
  write_config(out, res.labels, "");
}

void plan_configmap(std::ostream& out, const plan_request&, const plan_result& res,
                    const plan_emit_options& opt) {
  out << "# migplan plan: the GPU Operator's custom MIG config. Apply it, point the MIG\n"
         "# manager at it, then label the nodes (--emit labels):\n"
      << configmap_commands(opt.configmap_name);
  if (needs_mixed(res.labels))
    out << "# Some labels hold more than one profile per node: set the mixed MIG strategy\n"
           "# (/spec/mig/strategy: mixed).\n";
  out << inferred_comments(res);
  out << "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " << yaml_scalar(opt.configmap_name)
      << "\ndata:\n  config.yaml: |\n";
  write_config(out, res.labels, "    ");
}

void plan_label_commands(std::ostream& out, const plan_request&, const plan_result& res,
                         const plan_emit_options&) {
  out << "# migplan plan: the nvidia.com/mig.config label of each node whose label changes.\n"
         "# mig-manager reconfigures a node when its label changes: drain it first.\n";
  bool any = false;
  for (const emitted_labels::node_label& n : res.labels.nodes) {
    if (!n.changes) continue;
    any = true;
    out << "kubectl label node " << sh_quote(n.node) << ' '
        << sh_quote("nvidia.com/mig.config=" + n.label) << " --overwrite\n";
  }
  if (!any) out << "# no node's label changes\n";
}

std::string sh_quote(std::string_view text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(text);
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

}  // namespace migplan::cli::render

// SPDX-License-Identifier: Apache-2.0
// `--current` from a Kubernetes cluster: `kubectl get nodes -o json` output and
// the mig-parted config behind the nodes' nvidia.com/mig.config labels, read
// into the fleet as it is (io/plan_input.hpp declares the entry points;
// doc/plan-files.md has the rules), and the choice between that and
// migplan's own state file.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <migplan/layout.hpp>
#include <migplan/lookup.hpp>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "io/check_input.hpp"
#include "io/current.hpp"
#include "io/kube_nodes.hpp"
#include "io/manifest.hpp"
#include "io/mig_parted.hpp"
#include "io/names.hpp"
#include "io/plan_input.hpp"
#include "io/plan_input_util.hpp"
#include "io/size.hpp"
#include "io/source.hpp"
#include "messages.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

using plan_io::lower;
using plan_io::q;
using plan_io::shown_path;
using plan_io::some_names;
using plan_io::suggest;

constexpr std::string_view product_label = "nvidia.com/gpu.product";
constexpr std::string_view count_label = "nvidia.com/gpu.count";
constexpr std::string_view config_label = "nvidia.com/mig.config";
constexpr std::string_view state_label = "nvidia.com/mig.config.state";

std::string_view label_value(const kube_node& n, std::string_view key, bool& found) {
  found = false;
  std::string_view v;
  for (const auto& [k, value] : n.labels)
    if (k == key) {
      v = value;
      found = true;
    }
  return v;
}

// nvidia.com/gpu.product split as GFD builds it: MODEL, then "-MIG-PROFILE"
// under the single MIG strategy ("-MIG-INVALID" when the node breaks its
// rules), then "-SHARED" with time-slicing replicas (internal/lm/resource.go
// and mig-strategy.go of NVIDIA/k8s-device-plugin).
struct product_parts {
  std::string_view model;
  std::string_view mig;  // empty without the single strategy's suffix
};

product_parts split_product(std::string_view product) {
  constexpr std::string_view shared = "-SHARED";
  if (product.ends_with(shared)) product.remove_suffix(shared.size());
  product_parts out{product, {}};
  if (const std::size_t m = product.rfind("-MIG-"); m != std::string_view::npos) {
    out.model = product.substr(0, m);
    out.mig = product.substr(m + 5);
  }
  return out;
}

// The mig-parted config a kubectl state refers to, read with `migplan
// check`'s reader.
struct config_source {
  std::string shown;
  check::parsed_input input;
  std::vector<std::string> labels;
  // Every entry of each label, in order.
  std::map<std::string, std::vector<const check::geometry_spec*>, std::less<>> entries;
};

// Reads the config into `c`; the error, if any.
std::optional<error> read_config(model_list models, config_source& c, std::string_view text,
                                 bool json) {
  // The first keys tell another migplan file before it is parsed whole.
  const std::string_view wanted =
      "--mig-config takes the mig-parted config (version: v1, mig-configs: ...) that defines the "
      "nodes' labels";
  if (const yaml_kind kind = json ? yaml_kind::unknown : yaml_kind_of(text);
      kind != yaml_kind::unknown && kind != yaml_kind::mig_parted)
    return error{located(c.shown, 0, fmt::format("this is {}; {}", describe(kind), wanted))};
  // The one reader of mig-parted configs (io/mig_parted), as `migplan check` reads them.
  std::vector<check::location> configmaps;
  c.input = check::read_mig_parted_input(models, text, json, &configmaps);
  if (c.input.kubernetes) {
    for (const check::diagnostic& d : c.input.diagnostics)
      if (d.level == check::severity::error && d.kind == check::fault::malformed)
        return error{located(c.shown, d.line, d.message)};
    if (configmaps.empty())
      return error{
          located(c.shown, 0, "no ConfigMap here holds a mig-parted config as 'config.yaml'")};
    if (configmaps.size() > 1)
      return error{located(c.shown, configmaps[1].line,
                           fmt::format("{} ConfigMaps hold a 'config.yaml'; give the one the GPU "
                                       "Operator uses",
                                       configmaps.size()))};
  }
  if (c.input.format == check::input_format::geometry)
    return error{
        located(c.shown, 0, fmt::format("this is {}; {}", describe(yaml_kind::geometry), wanted))};
  for (const check::diagnostic& d : c.input.diagnostics)
    if (d.level == check::severity::error && d.kind == check::fault::malformed)
      return error{located(c.shown, d.line, d.message)};
  if (c.input.format != check::input_format::mig_parted)
    return error{located(c.shown, 0, "not a mig-parted config (version: v1, mig-configs: ...)")};
  c.labels = c.input.labels;
  for (const check::geometry_spec& g : c.input.geometries) c.entries[g.label].push_back(&g);
  return std::nullopt;
}

// True when the entry's device-filter (if any) names a PCI ID of `g`.
bool filter_matches(const check::geometry_spec& e, const gpu_model& g) {
  if (!e.has_filter) return true;
  for (const check::filter_id& f : e.filter)
    if (f.readable)
      for (const pci_id& id : g.pci_ids)
        if (id.value == f.value) return true;
  return false;
}

// True when mig-parted applies entry `e` to GPU `index` of model `g`.
bool applies_to(const check::geometry_spec& e, const gpu_model& g, int index) {
  if (!e.all_devices && std::find(e.devices.begin(), e.devices.end(), index) == e.devices.end())
    return false;
  return filter_matches(e, g);
}

class kube_builder {
 public:
  kube_builder(model_list models, std::string_view nodes_shown, config_source& config)
      : models_(models),
        names_(product_names(models)),
        nodes_shown_(nodes_shown),
        config_(config) {}

  result<kube_state> build(const std::vector<kube_node>& nodes) {
    kube_state out;
    std::vector<std::string> no_gpu, not_mig, unmanaged, reconfiguring;
    std::unordered_map<std::string, int> seen;  // each name's line
    for (const kube_node& n : nodes) {
      if (const auto [first, added] = seen.try_emplace(n.name, n.at.line); !added)
        return at(n.at, fmt::format("node {} is listed twice (first at line {})", q(n.name),
                                    first->second));
      if (!n.bad_label.empty())
        return at(n.bad_label_at,
                  fmt::format("node {}: label {} is not a string", q(n.name), q(n.bad_label)));
      bool has_product = false, has_config = false, has_state = false;
      const std::string_view product = label_value(n, product_label, has_product);
      const std::string_view label = label_value(n, config_label, has_config);
      const std::string_view state = label_value(n, state_label, has_state);
      if (!has_product) {
        no_gpu.push_back(n.name);
        continue;
      }
      const product_parts parts = split_product(product);
      const gpu_model* g = model_of_product(names_, parts.model);
      if (g == nullptr && !has_config) {
        not_mig.push_back(n.name);
        continue;
      }
      if (g == nullptr) {
        std::vector<std::string> names;
        for (const product_name& p : names_) names.push_back(p.shown);
        return fail(
            n, fmt::format("{}={} is no MIG-capable model migplan knows{}; 'migplan gpus' lists "
                           "them",
                           product_label, q(product), suggest(parts.model, names)));
      }
      if (!has_config) {
        unmanaged.push_back(n.name);
        continue;
      }
      // mig-manager sets nvidia.com/mig.config.state to pending, rebooting,
      // success or failed (NVIDIA/mig-parted,
      // deployments/gpu-operator/reconfigure-mig.sh). While it is pending or
      // rebooting the label's geometry is what the GPUs are being given; after
      // a failure nothing says what they hold.
      if (has_state && state == "failed")
        return fail(
            n, fmt::format("{}=failed: mig-manager could not apply {} {}, so the geometry of its "
                           "GPUs is unknown; fix the node, or leave it out (kubectl get nodes -l "
                           "'{}!=failed' -o json)",
                           state_label, config_label, q(label), state_label));
      const bool pending = has_state && (state == "pending" || state == "rebooting");
      if (has_state && !pending && state != "success")
        return fail(n,
                    fmt::format("{}={} is no state mig-manager sets (pending, rebooting, success, "
                                "failed)",
                                state_label, q(state)));
      if (pending) reconfiguring.push_back(n.name);
      auto one = node(n, *g, product, std::string(label), pending);
      if (!one) return one.error();
      out.nodes.push_back(std::move(*one));
    }
    if (!no_gpu.empty())
      out.notes.push_back(fmt::format("skipped {} node{} without NVIDIA GPU labels ({}): {}",
                                      no_gpu.size(), plural(no_gpu.size()), product_label,
                                      some_names(no_gpu)));
    if (!not_mig.empty())
      out.notes.push_back(
          fmt::format("skipped {} node{} whose GPUs are no MIG-capable model "
                      "migplan knows: {}",
                      not_mig.size(), plural(not_mig.size()), some_names(not_mig)));
    if (!unmanaged.empty())
      out.notes.push_back(fmt::format(
          "skipped {} node{} without an {} label (mig-manager does "
          "not manage them, so their geometry is unknown): {}",
          unmanaged.size(), plural(unmanaged.size()), config_label, some_names(unmanaged)));
    if (!reconfiguring.empty())
      out.notes.push_back(
          fmt::format("{} node{} {} being reconfigured ({} pending or rebooting): "
                      "taken as the geometry of {} label, which mig-manager is "
                      "applying: {}",
                      reconfiguring.size(), plural(reconfiguring.size()),
                      reconfiguring.size() == 1 ? "is" : "are", state_label,
                      reconfiguring.size() == 1 ? "its" : "their", some_names(reconfiguring)));
    if (out.nodes.empty())
      return error{fmt::format("{}: no node has MIG-capable GPUs with an {} label{}", nodes_shown_,
                               config_label,
                               out.notes.empty() ? "" : " (" + out.notes.front() + ")")};
    return out;
  }

 private:
  // An error at `where` in kubectl's output: "NODES:LINE: message".
  error at(location where, std::string message) const {
    return error{
        diagnostic(nodes_shown_, where.line, where.col, {}, severity::error, std::move(message))};
  }
  // "NODES:LINE: node 'NAME': message", at the node's metadata.name.
  error fail(const kube_node& n, std::string_view message) const {
    return at(n.at, fmt::format("node {}: {}", q(n.name), message));
  }
  error fail_config(const check::geometry_spec& e, std::string_view message) const {
    return error{located(config_.shown, e.at.line, message)};
  }

  // What entry `e` gives a GPU of model `g`: its GPU instances, and the
  // compute instances asked on their own, which the service shares out into
  // GIs (pack/current_fit); cached, as a label is shared by many nodes. Or
  // why they are no geometry of `g`.
  struct entry_gpu {
    std::vector<current_instance> gis;
    std::vector<lone_cis> lone;
    long long devices = 0;  ///< MIG devices, one per CI (nvidia-smi -L lists them so)
  };
  result<const entry_gpu*> instances(const check::geometry_spec& e, const gpu_model& g,
                                     const kube_node& n, int index) {
    const auto key = std::make_pair(&e, &g);
    if (auto it = cache_.find(key); it != cache_.end()) return &it->second;
    entry_gpu out;
    if (e.mig_enabled) {
      const check::mig_parted_gis made = check::entry_instances(models_, g, e);
      if (!made.error.empty())
        return error{
            located(config_.shown, made.error_at.line,
                    fmt::format("label {} (for node {}): {}", q(e.label), q(n.name), made.error))};
      // Whether they fit together is the service's to decide (pack/current_fit).
      if (made.too_many > 0)
        return fail_config(
            e, fmt::format("label {} gives gpu {} of node {} a geometry that does not fit "
                           "on {}: {} instances, more than any GPU holds",
                           q(e.label), index, q(n.name), g.slug, made.too_many));
      for (const int p : made.gis) out.gis.push_back(current_instance::at(p, item::any_start));
      out.lone = made.lone;
      out.devices = static_cast<long long>(out.gis.size());
      for (const lone_cis& l : out.lone) out.devices += static_cast<long long>(l.cis.size());
    }
    return &cache_.emplace(key, std::move(out)).first->second;
  }

  // The entry of `label` mig-parted applies to GPU `index` of model `g`: the
  // last that matches it, since mig-parted applies each matching entry in
  // order (WalkSelectedMigConfigForEachGPU), or null.
  static const check::geometry_spec* entry_for(
      const std::vector<const check::geometry_spec*>& entries, const gpu_model& g, int index) {
    const check::geometry_spec* chosen = nullptr;
    for (const check::geometry_spec* e : entries)
      if (applies_to(*e, g, index)) chosen = e;
    return chosen;
  }

  result<current_node> node(const kube_node& n, const gpu_model& g, std::string_view product,
                            const std::string& label, bool pending) {
    const product_parts parts = split_product(product);
    const auto found = config_.entries.find(label);
    if (found == config_.entries.end()) {
      const bool listed =
          std::find(config_.labels.begin(), config_.labels.end(), label) != config_.labels.end();
      if (listed)
        return fail(n, fmt::format("label {} of {} has no entries", q(label), config_.shown));
      return fail(n, fmt::format("its {} label {} is not in {}{}", config_label, q(label),
                                 config_.shown, suggest(label, config_.labels)));
    }
    const std::vector<const check::geometry_spec*>& entries = found->second;
    bool has_count = false;
    const std::string_view count_text = label_value(n, count_label, has_count);
    if (!has_count)
      return fail(n, fmt::format("it has {} but no {} label", product_label, count_label));
    // Without MIG it counts GPUs (1 to max_node_gpus); under the single
    // strategy, MIG devices, which single_gpu_count checks against the label.
    auto count = parse_whole_number(count_label, count_text, parts.mig.empty() ? 1 : 0,
                                    parts.mig.empty() ? max_node_gpus : 1'000'000);
    if (!count) return fail(n, count.error().message);
    int gpus = 0;
    // Only the single strategy's "-MIG-PROFILE" suffix changes what the count
    // counts: with no MIG-enabled GPU, GFD labels whole GPUs under any strategy.
    if (parts.mig == "INVALID")
      return fail(
          n, fmt::format("{}={}: GPU Feature Discovery found a node the single MIG strategy does "
                         "not allow (GPUs with MIG disabled, an empty one, or more than one "
                         "profile), so its GPU count is unknown",
                         product_label, q(product)));
    if (parts.mig.empty()) {
      gpus = static_cast<int>(*count);
      // An entry for a GPU index the node does not have: the label was
      // written for a bigger node (mig-parted would skip that entry).
      for (const check::geometry_spec* e : entries) {
        if (e->all_devices || !filter_matches(*e, g)) continue;
        for (long long d : e->devices)
          if (d >= gpus)
            return fail_config(
                *e, fmt::format("label {} gives gpu index {} a geometry, but node {} "
                                "has {} GPU{} ({}={}): the label was written for "
                                "another node",
                                q(label), d, q(n.name), gpus, plural(gpus), count_label, *count));
      }
    } else {
      auto single = single_gpu_count(n, g, parts, entries, label, *count, pending);
      if (!single) return single.error();
      gpus = *single;
    }
    current_node out;
    out.name = n.name;
    out.gpu = &g;
    out.label = label;
    out.where = position_text(nodes_shown_, n.at.line);
    for (int i = 0; i < gpus; ++i) {
      const check::geometry_spec* e = entry_for(entries, g, i);
      if (e == nullptr)
        return fail(
            n, fmt::format("no entry of label {} ({}) applies to its gpu {} ({}): the devices and "
                           "device-filter of every entry leave it out",
                           q(label), config_.shown, i, g.slug));
      auto made = instances(*e, g, n, i);
      if (!made) return made.error();
      out.gpus.push_back(
          {i,
           (*made)->gis,
           label,
           e->mig_enabled,
           {instances_origin::kind::mig_parted, std::string(config_.shown), e->at.line, e->label},
           (*made)->lone});
    }
    return out;
  }

  // Under the single strategy nvidia.com/gpu.count counts MIG devices, not
  // GPUs (mig-strategy.go, newMigStrategySingleLabeler): the GPU count is the
  // number of GPUs whose geometries, taken from the label in index order,
  // hold that many instances. GFD's profile must be the only one they hold.
  result<int> single_gpu_count(const kube_node& n, const gpu_model& g, const product_parts& parts,
                               const std::vector<const check::geometry_spec*>& entries,
                               const std::string& label, long long devices, bool pending) {
    const std::string when_pending =
        pending ? fmt::format(
                      " ({} is pending: GFD's labels may still describe the old "
                      "geometry)",
                      state_label)
                : std::string();
    // GFD's profile is a MIG device's name: a GI profile ("3g.20gb"), or the
    // CI profile of a CI smaller than its GI ("1c.3g.20gb"), as in a
    // mig-parted key. One the model lacks is no node holding the label.
    const check::mig_device gfd = check::resolve_mig_device(models_, g, parts.mig);
    const std::string unknown = check::why_unavailable(gfd);
    if (!unknown.empty() && !pending)
      return fail(n, fmt::format("GPU Feature Discovery reports MIG devices of {} ({}), which "
                                 "{} cannot make: {}",
                                 q(parts.mig), product_label, g.slug, unknown));
    const auto name_of = [&g](int gi, int ci) -> std::string_view {
      const profile& p = g.profiles[static_cast<std::size_t>(gi)];
      return ci < 0 ? p.name : p.ci_profiles[static_cast<std::size_t>(ci)].name;
    };
    long long total = 0;
    for (int i = 0; i < max_node_gpus; ++i) {
      const check::geometry_spec* e = entry_for(entries, g, i);
      if (e == nullptr) break;
      auto made = instances(*e, g, n, i);
      if (!made) return made.error();
      const entry_gpu& gpu = **made;
      if (gpu.devices == 0) break;
      if (!pending) {
        // Every MIG device must be GFD's: a GI with its default CI is one of
        // its GI profile, a CI smaller than its GI one of its own CI profile.
        std::vector<std::pair<int, int>> made_here;
        for (const current_instance& gi : gpu.gis) made_here.emplace_back(gi.profile, -1);
        for (const lone_cis& l : gpu.lone)
          for (const int ci : l.cis) made_here.emplace_back(l.profile, ci);
        for (const auto& [gi, ci] : made_here)
          if (gi != gfd.gi || ci != gfd.ci)
            return fail(
                n,
                fmt::format("GPU Feature Discovery reports MIG devices of {} ({}), but label "
                            "{} gives gpu {} {}: the node does not hold the label's geometry",
                            name_of(gfd.gi, gfd.ci), product_label, q(label), i, name_of(gi, ci)));
      }
      total += gpu.devices;
      if (total == devices) return i + 1;
      if (total > devices) break;
    }
    return fail(
        n, fmt::format("{}={} counts MIG devices under the single MIG strategy, and no number of "
                       "GPUs with the geometries of label {} holds exactly that many{}",
                       count_label, devices, q(label), when_pending));
  }

  model_list models_;
  std::vector<product_name> names_;
  std::string nodes_shown_;
  config_source& config_;
  std::map<std::pair<const check::geometry_spec*, const gpu_model*>, entry_gpu> cache_;
};

}  // namespace

result<kube_state> parse_kube_state(model_list models, std::string_view nodes_json,
                                    std::string_view nodes_shown, std::string_view config_text,
                                    std::string_view config_shown, bool config_json) {
  const auto nodes = read_kube_nodes(nodes_json, nodes_shown);
  if (!nodes) return nodes.error();
  config_source config;
  config.shown = std::string(config_shown);
  if (auto e = read_config(models, config, config_text, config_json)) return *e;
  return kube_builder(models, nodes_shown, config).build(*nodes);
}

result<kube_state> read_current_state(model_list models, const std::string& path,
                                      const std::string& config_path, std::istream& in,
                                      std::string_view command) {
  if (path == "-" && config_path == "-")
    return error{"--current and --mig-config cannot both read standard input"};
  const std::string shown = shown_path(path);
  // Only kubectl's JSON for nodes may pass the 16 MiB of a state file: past
  // them, what was read must open as it does, or reading stops there (and
  // /dev/zero costs 16 MiB, not 512).
  bool too_large = false;
  auto text = read_source_bounded(path, in, max_nodes_json_bytes, too_large,
                                  {max_plan_file_bytes, looks_like_kube_nodes});
  const std::string state_too_large =
      fmt::format("{} is larger than {} MiB, the most {} reads of a state file", q(shown),
                  max_plan_file_bytes >> 20, command);
  if (!text && !too_large)
    return error{fmt::format("cannot read {}: {}", q(shown), text.error().message)};
  if (!text && text.error().message == fmt::format("larger than {} MiB", max_plan_file_bytes >> 20))
    return error{state_too_large};
  if (!text)
    return error{fmt::format("{} is {}, the most {} reads of kubectl's JSON for nodes", q(shown),
                             text.error().message, command)};
  const plan_file_format format = plan_format_of(path, *text);
  if (format == plan_file_format::json && looks_like_kube_nodes(*text)) {
    if (config_path.empty())
      return error{
          fmt::format("{} is kubectl's output for nodes: give the mig-parted config that "
                      "defines their {} labels with --mig-config",
                      q(shown), config_label)};
    auto config = read_plan_file(config_path, in, command);
    if (!config) return config.error();
    return parse_kube_state(models, *text, shown, *config, shown_path(config_path),
                            plan_format_of(config_path, *config) == plan_file_format::json &&
                                !check::looks_like_manifest(*config));
  }
  if (text->size() > max_plan_file_bytes) return error{state_too_large};
  if (auto e = wrong_kind(*text, format, shown, {yaml_kind::nodes},
                          "--current takes a state file (version: 1, nodes: ...) or kubectl's "
                          "nodes"))
    return *e;
  // pack's rule: a listing is told by its text, and only --gpu names its model.
  if (is_smi_listing(*text))
    return error{command == "plan"
                     ? fmt::format("{}: an nvidia-smi listing does not name the GPU model or the "
                                   "node; plan --current reads a state file or kubectl's nodes",
                                   shown)
                     : listing_needs_gpu(shown)};
  // Only a file that reads as a state file is called one: an empty, cut or
  // other file says what is wrong with it first.
  auto nodes = parse_state(models, *text, shown, format == plan_file_format::json);
  if (!nodes) return nodes.error();
  if (!config_path.empty())
    return error{
        fmt::format("--mig-config is only for kubectl's nodes (`kubectl get nodes -o "
                    "json`), and {} is a migplan state file",
                    q(shown))};
  return kube_state{std::move(*nodes), {}};
}

}  // namespace migplan::cli

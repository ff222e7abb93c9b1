// SPDX-License-Identifier: Apache-2.0
#include "io/mig_parted.hpp"

#include <fmt/format.h>

#include <map>
#include <migplan/lookup.hpp>
#include <utility>

#include "io/check_input.hpp"
#include "io/ci_request.hpp"
#include "io/manifest.hpp"
#include "io/names.hpp"

namespace migplan::cli::check {
namespace {

// A Kubernetes manifest: the mig-parted config of every GPU Operator
// ConfigMap in it (data["config.yaml"]), and the MIG templates of every HAMi
// or Volcano device config (data["device-config.yaml"]), read as one config
// each, their positions moved to the manifest's lines and columns, as one
// input. `configmaps` gets the config.yaml keys only.
parsed_input read_configmaps(model_list models, std::string_view text,
                             std::vector<location>* configmaps) {
  const manifest m = read_manifest(text);
  parsed_input out;
  out.kubernetes = true;
  out.diagnostics = m.diagnostics;
  int device_configs = 0;
  bool read_any = false;
  for (const embedded_config& c : m.configs) {
    const std::string name = c.configmap.empty() ? "(unnamed)" : c.configmap;
    parsed_input in =
        parse_check_input(models, c.text, false, [&c](location l) { return c.map(l); });
    map_input(in, c);
    // config.yaml holds a mig-parted config (the GPU Operator's key);
    // device-config.yaml a HAMi or Volcano device config, read for its MIG
    // templates: one without them (vGPU settings only) is not check's.
    const bool device_config = c.key == "device-config.yaml";
    if (device_config && in.format != input_format::hami && in.foreign) continue;
    if (!device_config && configmaps != nullptr) configmaps->push_back(c.key_at);
    read_any = true;
    const input_format wanted = device_config ? input_format::hami : input_format::mig_parted;
    if (in.format != input_format::unknown && in.format != wanted) {
      out.diagnostics.push_back(file_diagnostic(
          severity::error, fault::malformed, c.key_at,
          fmt::format("{} of ConfigMap '{}' is a {}; {} there", c.key, clip(name),
                      in.format == input_format::geometry ? "migplan geometry file"
                      : in.format == input_format::hami   ? "HAMi device config"
                                                          : "mig-parted config",
                      device_config ? "HAMi and Volcano read a device config (nvidia: "
                                      "knownMigGeometries: ...)"
                                    : "the GPU Operator reads a mig-parted config (version: "
                                      "v1, mig-configs: ...)")));
      continue;
    }
    // A mig-parted config decides the format; a HAMi device config beside it
    // keeps its own geometries, each with its table entry (numbered across
    // the file, each device config a list of its own: `group`).
    if (in.format == input_format::mig_parted ||
        (in.format == input_format::hami && out.format == input_format::unknown))
      out.format = in.format;
    const int offset = static_cast<int>(out.table.size());
    if (!in.table.empty()) {
      for (table_entry& e : in.table) {
        e.group = device_configs;
        out.table.push_back(std::move(e));
      }
      ++device_configs;
    }
    for (geometry_spec& g : in.geometries) {
      g.configmap = c.configmap;
      if (g.table_entry >= 0) g.table_entry += offset;
      out.geometries.push_back(std::move(g));
    }
    out.labels.insert(out.labels.end(), in.labels.begin(), in.labels.end());
    out.diagnostics.insert(out.diagnostics.end(), std::make_move_iterator(in.diagnostics.begin()),
                           std::make_move_iterator(in.diagnostics.end()));
  }
  if (!read_any && m.diagnostics.empty()) {
    // Found by scanning, a manifest of other things is skipped; named, it gets a warning.
    out.foreign = true;
    out.diagnostics.push_back(file_diagnostic(
        severity::warning, fault::invalid, {},
        "a Kubernetes manifest with no ConfigMap holding config.yaml (the key the GPU "
        "Operator reads a mig-parted config from) or a device-config.yaml with MIG templates "
        "(HAMi's and Volcano's nvidia.knownMigGeometries): nothing to check"));
  }
  return out;
}

}  // namespace

parsed_input read_mig_parted_input(model_list models, std::string_view text, bool json,
                                   std::vector<location>* configmaps) {
  if (json) return parse_check_input(models, text, true);
  return parse_yaml_or_manifest(models, text,
                                [&] { return read_configmaps(models, text, configmaps); });
}

mig_device_key split_mig_device_key(std::string_view key) {
  // "Cc.Gg.MEMgb[+attrs]" has a 'c' right before its first dot.
  const std::size_t dot = key.find('.');
  if (dot == std::string_view::npos || dot < 2 || key[dot - 1] != 'c')
    return {std::string(key), {}};
  const std::size_t g_end = key.find('g', dot + 1);
  if (g_end == std::string_view::npos) return {std::string(key), {}};
  const auto digits = [](std::string_view v) {  // same digits less leading zeros: same count
    while (v.size() > 1 && v.front() == '0') v.remove_prefix(1);
    return v;
  };
  const std::string_view c = key.substr(0, dot - 1), g = key.substr(dot + 1, g_end - dot - 1);
  std::string gi(key.substr(dot + 1));
  if (digits(c) == digits(g)) return {std::move(gi), {}};
  return {std::move(gi), std::string(key)};
}

mig_device resolve_mig_device(model_list models, const gpu_model& gpu, std::string_view key) {
  mig_device out;
  const mig_device_key k = split_mig_device_key(key);
  out.gi = find_profile(gpu, k.gi);
  if (out.gi < 0) {
    const std::string_view bare = strip_profile_name(k.gi);
    const int former = find_profile_by_former_name(gpu, bare);
    if (former >= 0) {
      out.gi = former;
      out.former = true;
      out.message =
          fmt::format("{}; current drivers need '{}'", former_name_text(gpu, former, bare),
                      gpu.profiles[static_cast<std::size_t>(former)].name);
    } else {
      out.message = resolve_profile(models, gpu, k.gi).error().message;
      return out;
    }
  }
  if (k.ci.empty()) return out;
  const profile& gi = gpu.profiles[static_cast<std::size_t>(out.gi)];
  if (gi.ci_profiles.empty()) {
    out.ci_error = unknown_ci_data(gpu, gi);
    return out;
  }
  out.ci = find_ci(gi, k.ci);
  if (out.ci < 0) out.ci_error = ci_not_offered(gpu, gi, k.ci);
  return out;
}

std::string why_unavailable(const mig_device& d) {
  if (d.ci_error.code != ci_reason_code::none) return d.ci_error.message;
  return d.gi < 0 ? d.message : std::string();
}

mig_parted_gis entry_instances(model_list models, const gpu_model& gpu,
                               const geometry_spec& entry) {
  mig_parted_gis out;
  if (!entry.mig_enabled) return out;
  std::map<int, std::vector<int>> lone;  // GI profile -> its CIs, as mig-parted flattens them
  long long total = 0;
  for (const profile_request& r : entry.items) {
    if (r.count == 0) continue;  // mig-parted skips zero counts
    const mig_device d = resolve_mig_device(models, gpu, r.name);
    const std::string why = why_unavailable(d);
    if (!why.empty()) {
      out.error_at = r.at;
      out.error = why;
      return out;
    }
    if (d.former) out.notes.push_back(d.message);
    total += r.count;
    if (total > max_units) {
      out.too_many = total;
      return out;
    }
    if (d.ci >= 0) {
      lone[d.gi].insert(lone[d.gi].end(), static_cast<std::size_t>(r.count), d.ci);
      continue;
    }
    out.gis.insert(out.gis.end(), static_cast<std::size_t>(r.count), d.gi);
  }
  for (auto& [p, cis] : lone) out.lone.push_back({p, std::move(cis)});
  return out;
}

}  // namespace migplan::cli::check

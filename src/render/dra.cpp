// SPDX-License-Identifier: Apache-2.0
#include "render/dra.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <migplan/counters.hpp>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "k8s_names.hpp"
#include "quote.hpp"
#include "render/inferred.hpp"
#include "render/mig_parted.hpp"
#include "render/yaml.hpp"

namespace migplan::cli::render {
namespace {

// Limits of resource.k8s.io/v1 that the slices must respect; doc/dra.md
// cites each (k8s.io/api/resource/v1/types.go).
constexpr std::size_t max_counters_per_set = 32;  // ResourceSliceMaxCountersPerCounterSet
constexpr std::size_t max_devices_per_slice = max_dra_devices_per_slice;
constexpr std::size_t max_attribute_string = 64;  // DeviceAttributeMaxValueLength

// When a model's counters do not fit one set, they go in two: units and
// compute, then engines and caps. A device may consume from two sets
// (ResourceSliceMaxDeviceCounterConsumptionsPerDevice) and draws from each at
// most as many counters as the set holds (a consumption's limit is 32 too),
// so every model the core accepts fits.
static_assert(max_units + 1 <= max_counters_per_set, "units and compute fit one counter set");
static_assert(engine_kinds + max_profiles <= max_counters_per_set,
              "engines and caps fit one counter set");

using k8s::alnum_lower;
using k8s::dns_label;      // device, counter and counter set names
using k8s::dns_subdomain;  // node and object names

// A profile name as part of a DNS label: lowercase, '.' -> '-', '+' ->
// "-plus-" (RTX PRO has both 1g.24gb+me and 1g.24gb-me), anything else -> '-'.
std::string label_of(std::string_view name) {
  std::string out;
  for (const char c : name) {
    if (c >= 'A' && c <= 'Z')
      out += static_cast<char>(c - 'A' + 'a');
    else if (alnum_lower(c))
      out += c;
    else if (c == '+')
      out += "-plus-";
    else
      out += '-';
  }
  return out;
}

std::string device_name(int gpu_index, std::string_view label, int start) {
  return fmt::format("gpu-{}-mig-{}-{}", gpu_index, label, start);
}

std::string cap_name(std::string_view label) { return fmt::format("cap-{}", label); }

// One label per profile: label_of() its name, or "profile-<index>" for every
// profile of a model where that would give a name twice or a name that is no
// DNS label (no catalog model does; a model file could).
std::vector<std::string> profile_labels(const gpu_model& g, int gpu_index) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  bool ok = true;
  for (const profile& p : g.profiles) {
    std::string label = label_of(p.name);
    if (!seen.insert(label).second || !dns_label(cap_name(label)) ||
        !dns_label(device_name(gpu_index, label, max_units - 1)))
      ok = false;
    out.push_back(std::move(label));
  }
  if (!ok)
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = fmt::format("profile-{}", i);
  return out;
}

std::string counter_name(const counter& c, const std::vector<std::string>& labels) {
  switch (c.kind) {
    case counter_kind::unit:
      return fmt::format("unit-{}", c.index);
    case counter_kind::compute:
      return "compute";
    case counter_kind::engine:
      return fmt::format("engine-{}", label_of(engine_names[static_cast<std::size_t>(c.index)]));
    case counter_kind::cap:
      return cap_name(labels[static_cast<std::size_t>(c.index)]);
  }
  return {};
}

// The words of a comment line: one line, no escape sequences.
std::string comment_text(std::string_view s) { return clip_token(s, 80); }

}  // namespace

void dra_resource_slice(std::ostream& out, const gpu_model& g, const dra_options& opt) {
  assert(opt.gpu_index >= 0 && opt.gpu_index <= max_dra_gpu_index && "io/dra_options.hpp checks");
  const counter_model m = counters_of(g);
  const std::vector<std::string> labels = profile_labels(g, opt.gpu_index);
  const std::string pool = opt.pool.empty() ? dra_default_pool(opt) : opt.pool;
  const std::string gpu = fmt::format("gpu-{}", opt.gpu_index);

  // Counter sets: one if the counters fit, else two (see the static_asserts).
  std::vector<std::string> set_names;
  std::vector<std::size_t> set_of(m.counters.size(), 0);
  if (m.counters.size() <= max_counters_per_set) {
    set_names.push_back(gpu + "-counters");
  } else {
    set_names = {gpu + "-slices", gpu + "-limits"};
    for (std::size_t c = 0; c < m.counters.size(); ++c)
      if (m.counters[c].kind == counter_kind::engine || m.counters[c].kind == counter_kind::cap)
        set_of[c] = 1;
  }
  const std::size_t device_slices =
      (m.devices.size() + max_devices_per_slice - 1) / max_devices_per_slice;

  const std::string_view name = g.name().empty() ? g.description : g.name();
  out << fmt::format("# migplan: DRA ResourceSlices for GPU {} ({}, {}) on node {}.\n",
                     opt.gpu_index, comment_text(name), comment_text(g.slug), opt.node_name);
  if (m.devices.empty()) {
    out << "# The model has no MIG placement, so there is no device to offer.\n";
    return;
  }
  out << "# resource.k8s.io/v1, partitionable devices (KEP-4815; feature gate\n"
         "# DRAPartitionableDevices, beta and on by default since Kubernetes 1.36).\n"
         "# One device per MIG placement (profile, start). The scheduler allocates a set\n"
         "# of them together exactly when migplan calls that layout legal: the shared\n"
         "# counters are the placement units, the compute slices, the engines and each\n"
         "# profile's instance cap (doc/dra.md).\n";
  {
    std::vector<int> offered;
    for (const counter_device& d : m.devices) offered.push_back(d.where.profile);
    const std::vector<int> inferred = inferred_among(g, offered);
    if (!inferred.empty()) out << comment_lines(inferred_sentence(g, inferred));
  }

  const auto header = [&](std::string_view object) {
    out << "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n";
    out << fmt::format("  name: {}\n", yaml_scalar(dra_slice_name(opt, object)));
    out << fmt::format("spec:\n  driver: {}\n  nodeName: {}\n", yaml_scalar(opt.driver),
                       yaml_scalar(opt.node_name));
    out << fmt::format("  pool:\n    name: {}\n    generation: 1\n    resourceSliceCount: {}\n",
                       yaml_scalar(pool), 1 + device_slices);
  };

  // The counters: since Kubernetes 1.35 they go in a slice of their own.
  header("counters");
  out << "  sharedCounters:\n";
  for (std::size_t s = 0; s < set_names.size(); ++s) {
    out << fmt::format("  - name: {}\n    counters:\n", set_names[s]);
    for (std::size_t c = 0; c < m.counters.size(); ++c)
      if (set_of[c] == s)
        out << fmt::format("      {}:\n        value: \"{}\"\n",
                           counter_name(m.counters[c], labels), m.counters[c].capacity);
  }

  for (std::size_t k = 0; k < device_slices; ++k) {
    header(device_slices == 1 ? std::string("devices") : fmt::format("devices-{}", k));
    out << "  devices:\n";
    const std::size_t end = std::min(m.devices.size(), (k + 1) * max_devices_per_slice);
    for (std::size_t d = k * max_devices_per_slice; d < end; ++d) {
      const counter_device& dev = m.devices[d];
      const std::size_t pi = static_cast<std::size_t>(dev.where.profile);
      const profile& p = g.profiles[pi];
      out << fmt::format("  - name: {}\n", device_name(opt.gpu_index, labels[pi], dev.where.start));
      out << "    attributes:\n";
      const auto text = [&](std::string_view key, std::string_view value) {
        // The API caps a string attribute at 64 characters; a longer one
        // (only a model file could have it) is left out.
        if (value.empty() || value.size() > max_attribute_string) return;
        out << fmt::format("      {}:\n        string: {}\n", key, yaml_quoted(value));
      };
      const auto number = [&](std::string_view key, int value) {
        out << fmt::format("      {}:\n        int: {}\n", key, value);
      };
      // "type: mig" and "profile" as the NVIDIA DRA driver names them, so
      // selectors written for its MIG devices match these.
      text("type", "mig");
      text("profile", p.name);
      number("profileId", p.id);
      number("placementStart", dev.where.start);
      number("placementSize", p.size);
      text("gpuModel", g.slug);
      text("productName", g.name());
      out << "    consumesCounters:\n";
      for (std::size_t s = 0; s < set_names.size(); ++s) {
        bool any = false;
        for (const draw& x : dev.draws) {
          if (set_of[static_cast<std::size_t>(x.counter)] != s) continue;
          if (!any) out << fmt::format("    - counterSet: {}\n      counters:\n", set_names[s]);
          any = true;
          out << fmt::format("        {}:\n          value: \"{}\"\n",
                             counter_name(m.counters[static_cast<std::size_t>(x.counter)], labels),
                             x.amount);
        }
      }
    }
  }
}

}  // namespace migplan::cli::render

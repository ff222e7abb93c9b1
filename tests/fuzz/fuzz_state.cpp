// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the fleet as it is, for `migplan plan --current`: the text as
// migplan's state file (YAML and JSON), as kubectl's nodes beside a fixed
// mig-parted config, and as the mig-parted config beside fixed nodes. The
// readers must report, never throw or crash, and every GPU they accept must
// hold a legal layout of its model, as the core's search decides.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <migplan/search.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "io/plan_input.hpp"
#include "models.hpp"
#include "pack/current_fit.hpp"

namespace {

using namespace migplan;
using namespace migplan::cli;

void require(bool ok) {
  if (!ok) std::abort();
}

void check_nodes(const std::vector<current_node>& nodes) {
  std::set<std::string> names;
  for (const current_node& n : nodes) {
    require(n.gpu != nullptr);
    require(names.insert(n.name).second);
    std::set<int> indices;
    for (const current_gpu& g : n.gpus) {
      require(g.index >= 0 && g.index < max_node_gpus);
      require(indices.insert(g.index).second);
      std::vector<item> items;
      for (const current_instance& gi : g.instances) {
        require(gi.profile >= 0 && static_cast<std::size_t>(gi.profile) < n.gpu->profiles.size());
        items.push_back({gi.profile, gi.start});
      }
      require(items.size() <= static_cast<std::size_t>(max_units));
      require(items.empty() || fits(rules(*n.gpu), items));
    }
  }
}

constexpr std::string_view nodes =
    R"({"apiVersion": "v1", "kind": "List", "items": [
  {"kind": "Node", "metadata": {"name": "a", "labels": {
    "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "4",
    "nvidia.com/mig.config": "split"}}},
  {"kind": "Node", "metadata": {"name": "b", "labels": {
    "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", "nvidia.com/gpu.count": "14",
    "nvidia.com/mig.config": "all-small"}}}]})";

constexpr std::string_view config = R"(version: v1
mig-configs:
  split:
    - devices: [0, 1]
      mig-enabled: true
      mig-devices: {"3g.40gb": 2}
    - devices: [2, 3]
      mig-enabled: false
  all-small:
    - device-filter: ["0x20B010DE"]
      devices: all
      mig-enabled: true
      mig-devices: {"1g.5gb": 7}
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const bool json : {false, true})
    if (auto s = parse_state(builtin_models(), text, "fuzz", json); s && !pack::settle(*s))
      check_nodes(*s);
  (void)looks_like_kube_nodes(text);
  if (auto k = parse_kube_state(builtin_models(), text, "nodes", config, "config", false);
      k && !pack::settle(k->nodes))
    check_nodes(k->nodes);
  for (const bool json : {false, true})
    if (auto k = parse_kube_state(builtin_models(), nodes, "nodes", text, "config", json);
        k && !pack::settle(k->nodes))
      check_nodes(k->nodes);
  return 0;
}

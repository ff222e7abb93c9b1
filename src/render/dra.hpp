// SPDX-License-Identifier: Apache-2.0
#pragma once

// `--emit dra`: the Kubernetes DRA ResourceSlices (resource.k8s.io/v1, the
// partitionable-devices form of KEP-4815) that offer every MIG placement of
// one GPU as a device, with the model's rules as shared counters
// (migplan/counters.hpp). What the slices hold, the API limits they respect
// and the sources are in doc/dra.md.

#include <cstddef>
#include <iosfwd>
#include <migplan/gpu.hpp>
#include <optional>
#include <string>

namespace migplan::cli::render {

/// Where the slices are published.
struct dra_options {
  /// spec.nodeName: the node the GPU is in, a DNS subdomain; the slices are
  /// named "<node_name>-gpu-<gpu_index>-counters" and "...-devices", which
  /// must be DNS subdomains too.
  std::string node_name = "worker-1";
  /// spec.driver: the NVIDIA DRA driver's name (cmd/gpu-kubelet-plugin/main.go).
  std::string driver = "gpu.nvidia.com";
  /// spec.pool.name; empty for "<node_name>-gpu-<gpu_index>", a pool of the
  /// GPU's own, so that the slices of several GPUs can be applied together.
  std::string pool;
  /// The GPU's index on the node (nvidia-smi -i), from 0 to max_dra_gpu_index:
  /// it names the counter sets and devices.
  int gpu_index = 0;
};

/// Largest GPU index accepted: four digits keep every device name a DNS label.
inline constexpr int max_dra_gpu_index = 9999;

/// Why `opt` would give slices the API rejects (one sentence naming the
/// option), or nothing when it is fine.
std::optional<std::string> dra_options_problem(const dra_options& opt);

/// Writes, as a YAML stream, the ResourceSlices of one GPU of model `g`: one
/// with the shared counters, then the devices, at most 64 per slice; all in
/// one pool whose resourceSliceCount counts them. `opt` must pass
/// dra_options_problem().
void dra_resource_slice(std::ostream& out, const gpu_model& g, const dra_options& opt);

}  // namespace migplan::cli::render

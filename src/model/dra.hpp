// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `--emit dra` publishes its ResourceSlices under (the node, driver,
// pool and GPU index), and the names it builds from them: shared by
// io/dra_options (which checks the options, so that every name is one the
// API takes) and render/dra (which writes the slices). doc/dra.md cites the
// limits (k8s.io/api/resource/v1/types.go).

#include <cstddef>
#include <migplan/gpu.hpp>
#include <string>
#include <string_view>

namespace migplan::cli {

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

/// Devices per ResourceSlice (ResourceSliceMaxDevicesWithAdvancedFeatures:
/// the devices consume counters).
inline constexpr std::size_t max_dra_devices_per_slice = 64;

/// The most device slices a model can need: every placement a device.
inline constexpr std::size_t max_dra_device_slices =
    (static_cast<std::size_t>(max_profiles) * max_units + max_dra_devices_per_slice - 1) /
    max_dra_devices_per_slice;

/// metadata.name of a slice: "<node>-gpu-<index>-" and `object` ("counters",
/// "devices" or "devices-<n>").
inline std::string dra_slice_name(const dra_options& opt, std::string_view object) {
  return opt.node_name + "-gpu-" + std::to_string(opt.gpu_index) + "-" + std::string(object);
}

/// The pool of the GPU's own, "<node>-gpu-<index>", when `opt.pool` is empty.
inline std::string dra_default_pool(const dra_options& opt) {
  return opt.node_name + "-gpu-" + std::to_string(opt.gpu_index);
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#pragma once

// A mig-parted v1 config as migplan writes one: `pack --emit mig-parted`
// builds one label for a layout, `emit-config` one label per geometry kind
// for many models; render/mig_parted writes either.

#include <migplan/gpu.hpp>
#include <string>
#include <utility>
#include <vector>

namespace migplan::cli {

/// One entry of a label: every GPU of one model (by its PCI IDs).
struct mig_parted_entry {
  const gpu_model* gpu = nullptr;
  bool enabled = true;                       ///< mig-enabled
  std::vector<std::pair<int, int>> devices;  ///< (profile index, count), in the order written
  /// Compute instances smaller than their GI, by the name mig-parted gives them
  /// ("1c.3g.20gb") with their count, written after `devices`.
  std::vector<std::pair<std::string, int>> compute{};
};

/// One label of `mig-configs`.
struct mig_parted_label {
  std::string name;                       ///< a valid Kubernetes label value
  std::vector<mig_parted_entry> entries;  ///< one per model
};

/// A whole config file.
struct mig_parted_config {
  std::vector<std::string> header;  ///< comment lines at the top (without "# ")
  std::vector<mig_parted_label> labels;
};

}  // namespace migplan::cli

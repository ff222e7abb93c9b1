// SPDX-License-Identifier: Apache-2.0
#pragma once

// A mig-parted v1 config as migplan writes one: `pack --emit mig-parted`
// builds one label for a layout, `emit-config` one label per geometry kind
// for many models, `plan --emit mig-parted` and `configmap` one label per
// node group; render/mig_parted writes each.

#include <migplan/gpu.hpp>
#include <string>
#include <utility>
#include <vector>

namespace migplan::cli {

/// One entry of a label: every GPU of one model, by all its PCI IDs, the
/// inferred ones too. mig-parted applies an entry only to the GPUs whose ID its
/// device-filter names and leaves every other GPU as it is (its assert then
/// fails, "not all GPUs match the specified config"), so an ID left out would
/// leave that model's GPUs unconfigured; an ID no GPU has costs nothing.
struct mig_parted_entry {
  /// Its model; null for an entry of no model (no device-filter: any GPU).
  const gpu_model* gpu = nullptr;
  bool enabled = true;                       ///< mig-enabled
  std::vector<std::pair<int, int>> devices;  ///< (profile index, count), in the order written
  /// Compute instances smaller than their GI, by the name mig-parted gives them
  /// ("1c.3g.20gb") with their count, written after `devices`.
  std::vector<std::pair<std::string, int>> compute{};
  /// The GPU indices it applies to (`devices: [0, 2]`); empty for `devices: all`.
  std::vector<int> gpu_indices{};
};

/// One label of `mig-configs`.
struct mig_parted_label {
  std::string name;                       ///< a valid Kubernetes label value
  std::vector<mig_parted_entry> entries;  ///< one per model
  std::string comment{};                  ///< a comment line above it (without "# "), or none
};

/// One label of a user's own config (emit-config --merge), as written.
struct user_label {
  std::string name;  ///< the label, as YAML reads its key
  int line = 0;      ///< where its key is in the user's file (1-based)
  /// Its lines, from the key's to the line before the next label's, moved so
  /// that the key is indented by two spaces (as emit-config writes labels),
  /// each ending with "\n".
  std::string text;
};

/// A whole config file.
struct mig_parted_config {
  std::vector<std::string> header;  ///< comment lines at the top (without "# ")
  std::vector<mig_parted_label> labels;
  std::vector<user_label> user_labels{};  ///< written after `labels`, as they are
  std::string user_file{};                ///< where user_labels come from, as shown
};

}  // namespace migplan::cli

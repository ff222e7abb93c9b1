// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading the user's own mig-parted labels for `emit-config --merge`: a
// mig-parted config, or a Kubernetes manifest with one ConfigMap holding one
// as `config.yaml` (the GPU Operator's custom config). Each label is kept as
// the lines it was written in, so that comments, anchors within a label and
// YAML 1.1 scalars reach mig-manager exactly as the user wrote them.

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "error.hpp"
#include "model/mig_parted.hpp"

namespace migplan::cli {

/// The user's config, read for --merge.
struct user_config {
  std::string configmap;  ///< metadata.name of the ConfigMap it came from; "" for a plain config
  std::vector<user_label> labels;  ///< in file order
};

/// The most `--merge` reads of one file: a config of this size holds tens of
/// thousands of labels; NVIDIA's own default config is 12 KB.
inline constexpr std::size_t max_merge_bytes = std::size_t{4} << 20;

/// Reads `path` ("-" for `in`) for --merge; `shown` names it in messages.
/// The error is the whole message, with FILE:LINE where there is one: a file
/// that cannot be read or is too large, YAML that does not parse, a manifest
/// with no or several ConfigMaps holding `config.yaml`, no `mig-configs`
/// mapping, `mig-configs` in flow style (`{...}`, JSON), or a label given twice.
result<user_config> read_user_config(const std::string& path, std::istream& in,
                                     const std::string& shown);

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#pragma once

// Writing mig-parted v1 configs (`version: v1`, `mig-configs:`), the format
// NVIDIA's nvidia-mig-parted and the GPU Operator's mig-manager read.

#include <iosfwd>
#include <string>
#include <string_view>

#include "model/mig_parted.hpp"

namespace migplan::cli::render {

/// `text` with every control character replaced by '?': for a comment line,
/// which a newline would end.
std::string comment_safe(std::string_view text);

/// `text` as comment lines of at most 78 columns ("# " and its words,
/// control characters as '?'); "#" alone for empty text; text that starts
/// with two spaces (a command to copy) as one line, unwrapped.
std::string comment_lines(std::string_view text);

/// Writes the config: its header comments (each element one paragraph), `version: v1`, then each
/// label (after its comment) with one entry per model: comments, a `device-filter` of its PCI IDs
/// (every one, inferred ones too, after a comment naming them), `devices`, `mig-enabled` and the
/// `mig-devices` counts. `indent` goes before every line but the blank ones (a config inside a
/// ConfigMap). Then the user's own labels (`user_labels`), each as written under a comment naming
/// `user_file` and its line.
void mig_parted(std::ostream& os, const mig_parted_config& config, std::string_view indent = "");

/// The comment lines of the commands that make ConfigMap `name` the GPU
/// Operator's MIG config: `kubectl apply`, then a patch of the ClusterPolicy's
/// /spec/migManager/config/name.
std::string configmap_commands(std::string_view name);

/// Writes a ConfigMap `name` (a DNS subdomain, written as is) whose
/// `config.yaml` is `config`, a mig-parted config's text, as a literal block.
void config_map(std::ostream& os, std::string_view name, std::string_view config);

}  // namespace migplan::cli::render

// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading `--emit dra`'s options (`pack --node`, the GPU index): whether the
// ResourceSlices they name are ones the API takes, checked before anything
// is computed or written.

#include <optional>
#include <string>

#include "model/dra.hpp"

namespace migplan::cli {

/// Why `opt` would give slices the API rejects (one sentence naming the
/// option), or nothing when it is fine.
std::optional<std::string> dra_options_problem(const dra_options& opt);

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan gpus` lists: each model and where it comes from, filled by
// the command from the run's models, printed by render/gpus.

#include <migplan/gpu.hpp>
#include <string_view>

namespace migplan::cli {

/// One model as `gpus` lists it.
struct listed_model {
  const gpu_model* gpu = nullptr;  ///< the model
  std::string_view file;           ///< the model file it was loaded from; empty when built in
};

}  // namespace migplan::cli

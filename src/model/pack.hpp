// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan pack` answers for one request: filled by the command from the
// core's results, printed by render/pack.

#include <migplan/explain.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/search.hpp>
#include <optional>
#include <vector>

namespace migplan::cli {

/// A GPU instance that already exists (`pack --current`): it stays where it is.
struct current_instance {
  int profile = 0;      ///< index into gpu_model::profiles
  int start = 0;        ///< its placement start, as listed
  int instance_id = 0;  ///< the GPU instance ID nvidia-smi gave it
};

/// One answered request.
struct pack_answer {
  const gpu_model* gpu = nullptr;             ///< the model it was answered on
  std::vector<item> items;                    ///< the request, resolved on `gpu`
  solution sol;                               ///< layouts, or why none exists
  std::vector<closest_fit> closest;           ///< the nearest requests that fit (no fit only)
  std::vector<const gpu_model*> also_fits;    ///< models it fits on as requested (no fit only)
  std::vector<const gpu_model*> same_answer;  ///< other models giving the same answer
  /// With --current: the existing instances, pinned first in `items`; unset without it.
  std::optional<std::vector<current_instance>> current;
  /// The request does not fit with `current`, and its new items alone would fit.
  bool blocked_by_current = false;
};

/// A request without --gpu whose profiles exist on several models that
/// answer it differently: each candidate's answer, best-verified model first.
struct pack_ambiguity {
  std::vector<pack_answer> candidates;  ///< at least two, with different answers
};

}  // namespace migplan::cli

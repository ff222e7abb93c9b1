// SPDX-License-Identifier: Apache-2.0
#pragma once

// A request's tokens resolved on a model into GPU-instance items for the core's
// search, each with the compute instances it holds (core: compute.hpp); for
// `pack` and for `check`'s grading of a geometry's entries alike.
//
// How CI items map onto the GI search: the CIs of a GI never change where the GI may
// go, so each requested GI is checked inside (solve_cis) before the search, and the
// search sees GI items only, as before. A GI written without brackets gets its default
// CI. CIs asked on their own are shared out over the fewest GIs of their profile
// (group_cis): fewer GIs never make the GI search fail where more would succeed. A GI
// written with brackets holds exactly what they list; CIs on their own never join it.

#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/lookup.hpp>
#include <span>
#include <vector>

#include "error.hpp"
#include "io/request.hpp"
#include "model/compute.hpp"

namespace migplan::cli {

/// The tokens resolved on `gpu`: GPU-instance items for the search, and the CIs of each.
struct resolved_request {
  std::vector<item> items;  ///< the GPU instances, in request order
  compute_request compute;  ///< their CIs, or why they cannot be had
};

/// Resolves tokens with or without CIs. Names and syntax that cannot be read are errors
/// (bad input); CIs that cannot be had in their GI are a `compute.rejected` answer.
/// When no token names a CI, `compute` stays empty: every GI has its default CI.
result<resolved_request> resolve_request(model_list models, const gpu_model& gpu,
                                         std::span<const token> tokens);

}  // namespace migplan::cli

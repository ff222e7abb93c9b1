// SPDX-License-Identifier: Apache-2.0
#pragma once

// Compute instances in a request: the "[2c,1c]" of "3g.20gb[2c,1c]", a CI on its own
// ("4x1c.3g.20gb"), and resolving them against a model into GPU-instance items for the
// core's search, each with the CIs it holds (core: compute.hpp).
//
// How CI items map onto the GI search: the CIs of a GI never change where the GI may
// go, so each requested GI is checked inside (solve_cis) before the search, and the
// search sees GI items only, as before. A GI written without brackets gets its default
// CI. CIs asked on their own are shared out over the fewest GIs of their profile
// (group_cis): fewer GIs never make the GI search fail where more would succeed. A GI
// written with brackets holds exactly what they list; CIs on their own never join it.

#include <migplan/compute.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/lookup.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "io/request.hpp"
#include "model/compute.hpp"

namespace migplan::cli {

/// Parses the "[...]" of an ITEM: `brackets` starts at '['; what follows the ']'
/// (empty or "@START") is stored in `after`. `item` is the whole ITEM, for messages.
result<std::vector<ci_token>> parse_ci_brackets(std::string_view item, std::string_view brackets,
                                                std::string& after);

/// When `name` (the PROFILE of `t`, "MIG " allowed) is a CI profile name such as
/// "1c.3g.20gb", makes `t` a CI on its own: `t.ci` holds the CI and `t.profile` the GI's
/// name. An error when the ITEM also has brackets or a start.
result<bool> split_ci_name(token& t, std::string_view name);

/// "CI profiles unknown for 3g.40gb on h100-80gb: ...": GI profile `gi` of `gpu` lists none.
ci_rejection unknown_ci_data(const gpu_model& gpu, const profile& gi);

/// "3c.4g.20gb is not a compute-instance profile of 4g.20gb on a100-40gb (4g.20gb offers
/// ...)": `wanted` is the CI profile name asked for.
ci_rejection ci_not_offered(const gpu_model& gpu, const profile& gi, std::string_view wanted);

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

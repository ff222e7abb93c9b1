// SPDX-License-Identifier: Apache-2.0
#pragma once

// Compute instances in a request, as read: the "[2c,1c]" of "3g.20gb[2c,1c]", a CI on
// its own ("4x1c.3g.20gb"), a CI token looked up in its GI profile, and the sentences
// for a CI a GI does not offer. Resolving a request's CIs into GIs, which searches, is
// pack/resolve.hpp's.

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

/// A CI token resolved inside GI profile `p` of `gpu`: the CI index, or why the GI
/// cannot have it (it does not offer it, or its CI profiles are unknown).
struct ci_lookup {
  int ci = -1;
  std::optional<ci_rejection> rejected;
};

/// Resolves CI token `c` inside GI profile `p` of `gpu`; bad input (a CI of another
/// GI, a name that is no CI) is an error. `item` is the whole ITEM, for messages.
result<ci_lookup> lookup_ci(const gpu_model& gpu, int p, const ci_token& c, std::string_view item);

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#pragma once

// The fleet as it is, checked and laid out by the core's search: the
// readers (io/plan_fleet, io/kube_state, io/fleet_now) say what each GPU
// holds and where they read it; whether those instances fit together, and
// where on the GPU they sit when their starts are not given, is decided
// here, for `plan --current`, `place` and `simulate --current` alike.

#include <optional>
#include <vector>

#include "error.hpp"
#include "model/fleet_now.hpp"
#include "model/plan.hpp"

namespace migplan::cli::pack {

/// The first GPU of `nodes` whose instances do not fit together on its
/// node's model, as an error at the place its instances were read
/// (current_gpu::origin); nullopt when every GPU's do.
std::optional<error> misfit(const std::vector<current_node>& nodes);

/// Lays out each GPU of `f`: its instances as the layout they form, where
/// their starts are not all given the one of them that keeps the most room
/// (fleet_now_gpu::held). An error names the first GPU whose instances fit
/// no layout.
std::optional<error> lay_out(fleet_now& f);

}  // namespace migplan::cli::pack

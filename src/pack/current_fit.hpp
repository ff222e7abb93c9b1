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

/// Settles the fleet `nodes` as read: the compute instances each GPU's
/// mig-parted entry asks on their own (current_gpu::lone) shared out over
/// the fewest GIs of their profile, as mig-parted makes them (the core's
/// group_cis), and added to its instances. Then the first GPU whose
/// instances do not fit together on its node's model, as an error at the
/// place its instances were read (current_gpu::origin); nullopt when every
/// GPU's do.
std::optional<error> settle(std::vector<current_node>& nodes);

/// Lays out each GPU of `f`: its lone compute instances shared out into GIs
/// as settle() does, then its instances as the layout they form, where
/// their starts are not all given the one of them that keeps the most room
/// (fleet_now_gpu::held). An error names the first GPU whose instances fit
/// no layout.
std::optional<error> lay_out(fleet_now& f);

}  // namespace migplan::cli::pack

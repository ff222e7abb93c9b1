// SPDX-License-Identifier: Apache-2.0
#pragma once

// `plan --plot`: the fleet of a plan as SVG.

#include <iosfwd>

#include "model/plan.hpp"

namespace migplan::cli::render {

/// One self-contained SVG (no scripts, no external references): the
/// headline, a legend of the plan's geometries (each a colour and its slice
/// diagram), and the fleet, a row per node with a cell per GPU in its
/// geometry's colour. Nodes alike are one row ("×N"), folded as the text
/// report folds them; without nodes, a row per geometry. In a re-plan the
/// GPUs that change are outlined with their geometry before in a corner,
/// and a list of the changes shows each kind before -> after. Cells and
/// changes carry data-* attributes (group as in --json, GPU index, GPUs a
/// cell stands for, changes) so tests and tools can read the picture back.
void plan_svg(std::ostream& os, const plan_request& req, const plan_result& res);

}  // namespace migplan::cli::render

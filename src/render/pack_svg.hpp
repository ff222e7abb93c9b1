// SPDX-License-Identifier: Apache-2.0
#pragma once

// `pack --plot`: the slice diagram of each answer's preferred layout as SVG.

#include <iosfwd>
#include <span>

#include "model/pack.hpp"

namespace migplan::cli::render {

/// One self-contained SVG (no scripts, no external references), a panel per
/// answer: the model and the request, then for a fit its preferred layout
/// over the placement units (each instance a box labelled with its letter
/// and profile, free units white, stranded ones hatched) and the compute
/// slices under it (used, free, stranded); for no fit, why. Every box carries
/// data-* attributes (instance, profile, start, size; unit or slice index)
/// so tests and tools can read the picture back.
void pack_svg(std::ostream& os, std::span<const pack_answer> answers);

}  // namespace migplan::cli::render

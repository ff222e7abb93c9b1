// SPDX-License-Identifier: Apache-2.0
#pragma once

// Whether a `pack --emit` kind can write a layout without losing part of it:
// pack's service decides, before render/emit writes (which then only writes).
// commands/emit_kinds.cpp's table names the check of each kind that has one;
// every other kind writes every layout.

#include <string>

#include "model/emit.hpp"

namespace migplan::cli::pack {

/// Why --emit mig-parted cannot write `plan` (one sentence), or "":
/// mig-parted may merge compute instances the layout keeps in separate GPU
/// instances.
std::string mig_parted_problem(const emit_plan& plan);

/// Why --emit dra cannot write `plan` (one sentence), or "": the DRA driver
/// drops compute instances smaller than their GPU instance.
std::string dra_problem(const emit_plan& plan);

}  // namespace migplan::cli::pack

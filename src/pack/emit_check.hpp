// SPDX-License-Identifier: Apache-2.0
#pragma once

// Whether a `pack --emit` kind can write a layout without losing part of it:
// pack's service decides, before render/emit writes (which then only writes).

#include <string>
#include <string_view>

#include "model/emit.hpp"

namespace migplan::cli::pack {

/// Why --emit `kind` cannot write `plan` without losing part of it (one
/// sentence), or "": mig-parted may merge compute instances the layout
/// keeps in separate GPU instances; DRA drops compute instances smaller
/// than their GPU instance. Every other kind writes every layout.
std::string emit_problem(std::string_view kind, const emit_plan& plan);

}  // namespace migplan::cli::pack

// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan fit`'s outputs: the sizing answer as sentences or as one JSON document.

#include <iosfwd>
#include <migplan/gpu.hpp>
#include <migplan/sizing.hpp>

#include "model/layout_capacity.hpp"

namespace migplan::cli::render {

/// The chosen profile, how many one GPU holds, GPUs needed and what a full
/// GPU strands; or why no profile is big enough; then the skipped profiles.
void fit_text(std::ostream& os, const gpu_model& gpu, const need& n, const sizing& s);

/// The same as one indented JSON document (schema_version 1); `full` is the
/// spare capacity of `s.full_gpu` (when a profile fits).
void fit_json(std::ostream& os, const gpu_model& gpu, const need& n, const sizing& s,
              const layout_capacity& full);

}  // namespace migplan::cli::render

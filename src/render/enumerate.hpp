// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan enumerate`'s outputs: every feasible geometry of a model.

#include <iosfwd>
#include <migplan/enumerate.hpp>
#include <migplan/gpu.hpp>

namespace migplan::cli::render {

/// A table of geometries (largest profiles first in each), then the totals;
/// only maximal geometries with `maximal_only`.
void enumerate_text(std::ostream& os, const gpu_model& gpu, const geometry_set& all,
                    bool maximal_only);
/// The same as one indented JSON document (schema_version 1); the totals
/// count every geometry either way.
void enumerate_json(std::ostream& os, const gpu_model& gpu, const geometry_set& all,
                    bool maximal_only);

}  // namespace migplan::cli::render

// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan gpus`'s outputs: the supported models, how to name them, and how
// well their tables are backed by captures.

#include <iosfwd>
#include <migplan/gpu.hpp>
#include <span>

#include "model/gpus.hpp"

namespace migplan::cli::render {

/// One line per model: units, compute slices, memory, coverage, PCI IDs; then,
/// when some were loaded with --gpu-file, the file of each.
void gpus_text(std::ostream& os, std::span<const listed_model> models);
/// The models as one indented JSON document (schema_version 1).
void gpus_json(std::ostream& os, std::span<const listed_model> models);

}  // namespace migplan::cli::render

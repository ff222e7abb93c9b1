// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan gpus`'s outputs: the supported models, how to name them, and how
// well their tables are backed by captures.

#include <iosfwd>
#include <migplan/gpu.hpp>
#include <span>
#include <string>

#include "model/gpus.hpp"

namespace migplan::cli::render {

/// One line per model: units, compute slices, memory, coverage, PCI IDs; then,
/// when some were loaded with --gpu-file, the file of each.
void gpus_text(std::ostream& os, std::span<const listed_model> models);
/// The model's driver floor as one line of prose: "minimum driver: R460 (>= 460.73.01) for
/// MIG (NVIDIA's MIG guide); 1g.6gb+me from R470, ..." naming each profile that came later,
/// or "minimum driver: unknown".
std::string min_driver_text(const gpu_model& g);
/// The models as one indented JSON document (schema_version 1).
void gpus_json(std::ostream& os, std::span<const listed_model> models);

}  // namespace migplan::cli::render

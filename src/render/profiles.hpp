// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan profiles`'s outputs: each model's GPU-instance profile table, with
// inferred values marked and the source of every row.

#include <iosfwd>
#include <migplan/gpu.hpp>
#include <span>

namespace migplan::cli::render {

/// An -lgip/-lgipp-like table per model, '*' on inferred values, then sources.
void profiles_text(std::ostream& os, std::span<const gpu_model* const> models);
/// The tables as one indented JSON document (schema_version 1).
void profiles_json(std::ostream& os, std::span<const gpu_model* const> models);

}  // namespace migplan::cli::render

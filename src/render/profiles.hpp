// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan profiles`'s outputs: each model's GPU-instance profile table, with
// inferred values marked and the source of every row.

#include <iosfwd>
#include <migplan/gpu.hpp>
#include <span>
#include <string>
#include <string_view>

#include "render/json_writer.hpp"

namespace migplan::cli::render {

/// `v` with a trailing '*' when its field is inferred (the profile tables).
inline std::string marked(std::string v, bool inferred) { return inferred ? v + "*" : v; }

/// A source as the profile tables print it: capture paths are relative to data/.
inline std::string source_text(std::string_view s) {
  return s.starts_with("captures/") ? "data/" + std::string(s) : std::string(s);
}

/// An -lgip/-lgipp-like table per model, '*' on inferred values, then sources.
void profiles_text(std::ostream& os, std::span<const gpu_model* const> models);
/// The tables as one indented JSON document (schema_version 1); with `ci`, each
/// profile carries its "ci_profiles" (render/ci_profiles.cpp).
void profiles_json(std::ostream& os, std::span<const gpu_model* const> models, bool ci = false);

/// `profiles --ci`: per model, the compute-instance profiles of every GPU-instance
/// profile, '*' on inferred values, "CI profiles unknown" where no source lists them.
void ci_profiles_text(std::ostream& os, std::span<const gpu_model* const> models);

/// The "ci_profiles" member of one profile row: null when unknown, else the rows.
void write_ci_profiles(json_writer& w, const profile& p);

}  // namespace migplan::cli::render

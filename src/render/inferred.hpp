// SPDX-License-Identifier: Apache-2.0
#pragma once

// Inferred values shown where an answer rests on them: the note under a text
// report and the "inferred" entries of a JSON document, for every command
// that answers with a model's profiles (pack, plan, fit, enumerate, simulate,
// place and what --emit writes).

#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <span>
#include <string>
#include <vector>

#include "render/json_writer.hpp"

namespace migplan::cli::render {

/// Of `profiles` (indexes into g.profiles), those with any value inferred,
/// each once, in the order they first appear.
std::vector<int> inferred_among(const gpu_model& g, std::span<const int> profiles);

/// inferred_among() of the profiles of `instances` (a layout's, or those a
/// plan creates).
std::vector<int> inferred_among(const gpu_model& g, std::span<const instance> instances);

/// "\nnote: A, B on G have values inferred by analogy, not captured; 'migplan
/// profiles --gpu G' shows which\n" for `inferred` (from inferred_among), or
/// "" when it is empty.
std::string inferred_note(const gpu_model& g, std::span<const int> inferred);

/// "Values inferred by analogy, not captured: 3g.71gb (placements), 1g.18gb
/// (placements) on h200; 'migplan profiles --gpu h200' shows their sources."
/// for the comments of what --emit writes, or "" when `inferred` is empty.
std::string inferred_sentence(const gpu_model& g, std::span<const int> inferred);

/// One "inferred" entry per profile of `inferred`: {"profile", "fields"},
/// with "gpu" (the model's id) first when `with_gpu`; the caller opens and
/// closes the array.
void write_inferred(json_writer& w, const gpu_model& g, std::span<const int> inferred,
                    bool with_gpu = false);

}  // namespace migplan::cli::render

// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan place`'s outputs: a report per policy, one JSON document
// (schema/place.schema.json), or the nvidia-smi script creating the choice.

#include <iosfwd>

#include "model/place.hpp"

namespace migplan::cli::render {

/// Per policy its choice and alternatives; when nothing fits, the GPUs
/// nearest to taking it.
void place_text(std::ostream& os, const place_result& r);

/// The same as one indented JSON document (schema_version 1).
void place_json(std::ostream& os, const place_result& r);

/// `--emit nvidia-smi` (r.served() must hold): the script creating the
/// choice (r.choice) where the instance fits as the fleet is; else, with
/// --allow-moves, the commands of each move, destroy then create, each under
/// the node it runs on, then the arrival's create.
void place_nvidia_smi(std::ostream& os, const place_result& r);

}  // namespace migplan::cli::render

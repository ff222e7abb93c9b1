// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan simulate`'s outputs: a table of the policies side by side, or one
// JSON document (schema/simulate.schema.json).

#include <iosfwd>

#include "model/simulate.hpp"

namespace migplan::cli::render {

/// The trace and fleet, the static plan, one column per policy, and with
/// --size the fewest GPUs per policy; fits 80 columns with four policies.
void simulate_text(std::ostream& os, const simulate_result& r);

/// The same as one indented JSON document (schema_version 1).
void simulate_json(std::ostream& os, const simulate_result& r);

}  // namespace migplan::cli::render

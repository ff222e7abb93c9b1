// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan plan`'s outputs: the text report (GPU count and cost, bound and
// optimality, each geometry with its diagram, the nodes, stranded capacity,
// a re-plan's changes, unmet demand) and the JSON document of `--json`
// (schema/plan.schema.json).

#include <iosfwd>

#include "model/plan.hpp"

namespace migplan::cli::render {

/// The report, in plain text (ANSI colour in the diagrams when `color`).
void plan_text(std::ostream& os, const plan_request& req, const plan_result& res, bool color);

/// The plan as one indented JSON document (schema_version 1).
void plan_json(std::ostream& os, const plan_request& req, const plan_result& res);

}  // namespace migplan::cli::render

// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan plan`'s outputs: the text report (GPU count and cost, bound and
// optimality, each geometry with its diagram, the nodes, stranded capacity,
// a re-plan's changes, unmet demand) and the JSON document of `--json`
// (schema/plan.schema.json).

#include <iosfwd>

#include "model/plan.hpp"

namespace migplan::cli::render {

/// The plan document's schema_version: 2 since its groups are the distinct
/// geometries, with the items they serve as counts and runs.
inline constexpr int plan_schema_version = 2;

/// The report, in plain text (ANSI colour in the diagrams when `color`): one
/// block per distinct geometry. Long lists (the items a geometry serves, nodes,
/// changes) are cut after their first entries unless `full`.
void plan_text(std::ostream& os, const plan_request& req, const plan_result& res, bool color,
               bool full);

/// The plan as one indented JSON document (schema_version plan_schema_version).
void plan_json(std::ostream& os, const plan_request& req, const plan_result& res);

}  // namespace migplan::cli::render

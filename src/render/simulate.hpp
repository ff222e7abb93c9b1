// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan simulate`'s outputs: a table of the policies side by side, one
// JSON document (schema/simulate.schema.json), or a plot over time (SVG).

#include <cstdint>
#include <iosfwd>
#include <string>

#include "model/simulate.hpp"

namespace migplan::cli::render {

/// The trace and fleet, the static plan, one column per policy, and with
/// --size the fewest GPUs per policy; fits 80 columns with four policies.
void simulate_text(std::ostream& os, const simulate_result& r);

/// The same as one indented JSON document (schema_version 1).
void simulate_json(std::ostream& os, const simulate_result& r);

/// A self-contained SVG (no script, font or link outside it): per policy with
/// a series, r.metric in use over time as a step line, its rejections marked,
/// with axes and a legend. Each policy's line is a polyline in pixels whose
/// group carries the scale (data-x0, data-y0, data-x-scale, data-y-scale), so
/// that a reader can take the values back.
void simulate_svg(std::ostream& os, const simulate_result& r);

/// "2d 3h", "4h 05m", "12m 30s", "45s": a span of seconds, to the two largest units.
std::string span_text(std::int64_t seconds);

}  // namespace migplan::cli::render

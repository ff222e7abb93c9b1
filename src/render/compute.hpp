// SPDX-License-Identifier: Apache-2.0
#pragma once

// The compute-instance level of `pack`'s outputs: which compute slices of each GPU
// instance its CIs own (a diagram line per GI and a table), the JSON
// `compute_instances` of each instance, and the reason when CIs cannot be had.

#include <migplan/compute.hpp>
#include <migplan/layout.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "model/pack.hpp"
#include "render/json_writer.hpp"

namespace migplan::cli {

/// The code of an answer's reason: its CI rejection's, else the GI search's.
std::string_view answer_reason_name(const pack_answer& a);

namespace render {

/// The request as written back: "3g.20gb[2c,1c] 2x3g.20gb[1c,1c,1c]"; items_text() when
/// no ITEM named a CI.
std::string request_text(const pack_answer& a);

/// The CI block under a layout's table: a line per GI showing which CI owns each of its
/// compute slices, then a row per CI. Only when the request named CIs.
void compute_text_block(std::ostream& out, const pack_answer& a, const layout& l, bool color);

/// "compute_instances": [...] of the layout's i-th instance, for write_layout's `extra`;
/// nothing for an instance that exists already (pack --current lists its CIs itself).
void write_compute_instances(json_writer& w, const pack_answer& a, const layout& l,
                             const std::vector<int>& owners, int i);

/// "request_compute_instances": per request item, the CI profiles asked of it or null.
void write_request_compute(json_writer& w, const pack_answer& a);

/// The reason object of a CI rejection: {"code","message","profiles","ci_profiles"}.
void write_ci_reason(json_writer& w, const ci_rejection& r);

}  // namespace render
}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
// Reads the geometries of a `migplan plan --json` answer (schema_version 2,
// schema/plan.schema.json) back: what `simulate --static-plan` replays.
#pragma once

#include <iosfwd>
#include <migplan/gpu.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "model/plan.hpp"

namespace migplan::cli {

/// The groups of the plan answer at `path` ("-": `in`), each a count of GPUs
/// of `gpu` and its instances at their starts (compute instances are not
/// read). An error names the file and line: not a plan answer, a group of
/// another model, an instance that is no profile of `gpu`, a start it does
/// not allow, instances that overlap, a plan without a GPU.
result<std::vector<plan_group>> read_plan_answer(const std::string& path, std::istream& in,
                                                 const gpu_model& gpu);

/// The same on the text of a file shown as `shown`.
result<std::vector<plan_group>> parse_plan_answer(std::string_view text, std::string_view shown,
                                                  const gpu_model& gpu);

}  // namespace migplan::cli

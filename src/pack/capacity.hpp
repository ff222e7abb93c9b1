// SPDX-License-Identifier: Apache-2.0
#pragma once

// The spare capacity of a layout, worked out once by the services for every
// renderer that prints it (pack's text and JSON, fit's JSON).

#include <migplan/capacity.hpp>
#include <migplan/gpu.hpp>
#include <migplan/search.hpp>

#include "model/layout_capacity.hpp"

namespace migplan::cli::pack {

/// The stranded capacity of `sl` and what can still be added to it on `g`.
inline layout_capacity capacity_of(const gpu_model& g, const scored_layout& sl) {
  return {stranded_of(g, sl.left), addable_to(g, rules(g), sl.where)};
}

}  // namespace migplan::cli::pack

// SPDX-License-Identifier: Apache-2.0
#pragma once

// The slice diagram: which instance owns each placement unit, which units are
// free and which are stranded, and the compute slices beside it.

#include <migplan/capacity.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <string>

namespace migplan::cli {

/// Letter naming the i-th instance of a layout in diagrams and tables (A, B, ...).
char instance_letter(int i);

/// The diagram lines (unit numbers, owners, compute), each ending in '\n',
/// indented by `indent`. Plain ASCII unless `color`.
std::string diagram(const gpu_model& gpu, const layout& l, const room& left, bool color,
                    std::string_view indent = "  ");

}  // namespace migplan::cli

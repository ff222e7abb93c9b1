// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the real solver before it lands.
#include "plan/solver.hpp"

#include <stdexcept>

namespace migplan::cli::plan {
plan_result solve(const plan_request&) { throw std::logic_error("plan::solve: not built yet"); }
}  // namespace migplan::cli::plan

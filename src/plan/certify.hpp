// SPDX-License-Identifier: Apache-2.0
#pragma once

// Bounds that do not trust the solver's floating point: a lower bound on an
// integer program's objective proven from any row dual vector in exact
// integer arithmetic (the plan's "proven" claims rest on it, doc/plan.md
// "What is proven").

#include <optional>
#include <vector>

#include "plan/mip.hpp"

namespace migplan::cli::plan {

/// The integer the proofs compute in: 128 bits, so sums of products of
/// 64-bit costs and counts cannot overflow.
__extension__ typedef __int128 wide;

/// The least objective any integer point of `prog` can have (its objective
/// minimised; a maximised program's objective is negated), proven from the
/// row duals `duals` (any vector: a poor one proves less, never too much).
/// Every coefficient, objective coefficient and bound must be a whole
/// number and every variable integer. `upper` overrides variable upper
/// bounds (the caller's proof that a better point lies within them). Unset
/// when the data are not whole or an unbounded variable makes the duals
/// prove nothing.
std::optional<long long> integer_bound(const mip& prog, const std::vector<double>& duals,
                                       const std::vector<double>& upper = {});

}  // namespace migplan::cli::plan

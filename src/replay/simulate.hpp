// SPDX-License-Identifier: Apache-2.0
// `migplan simulate`'s service: replays a trace on a fleet under each policy
// (replay.hpp), the static geometry from the plan for the trace's peaks,
// from --static-plan or from the fleet as it is, and with --size the fewest
// GPUs of each model each policy needs. It computes; render/simulate writes.
#pragma once

#include <string>

#include "error.hpp"
#include "model/simulate.hpp"

namespace migplan::cli {

/// Hears how far a long replay has come (the command's progress line).
class replay_progress {
 public:
  virtual ~replay_progress() = default;
  /// Whether a line shown now would be seen (the clock says it is time).
  virtual bool due() = 0;
  /// Shows `line` in place of the last one.
  virtual void show(const std::string& line) = 0;
};

/// The answer to `r`; an error names a row of the trace that no profile of a
/// model serves, or says that the static plan found no geometry in time.
result<simulate_result> simulate(const simulate_request& r, replay_progress& progress);

}  // namespace migplan::cli

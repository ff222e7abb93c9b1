// SPDX-License-Identifier: Apache-2.0
// `migplan simulate`'s input: its options, checked, and the files they name
// (the trace, --fleet, --current, --static-plan) read into one
// simulate_request (model/simulate.hpp).
#pragma once

#include <iosfwd>
#include <migplan/lookup.hpp>
#include <optional>
#include <string>
#include <vector>

#include "error.hpp"
#include "io/fleet_now.hpp"
#include "model/simulate.hpp"

namespace migplan::cli {

/// simulate's options as given.
struct simulate_options {
  std::string trace;
  std::vector<std::string> gpu;  ///< --gpu, repeatable with --size
  std::string fleet;             ///< --fleet: models to size
  std::string static_plan;       ///< --static-plan: plan --json's answer
  std::string gpus;
  std::string per_node;  ///< empty: 8
  std::vector<std::string> policies;
  std::string share = "compute";
  bool size = false;
  std::string reject_target = "0";
  bool queue = false;       ///< --queue: a pod that does not fit waits
  std::string wait_target;  ///< --wait-target: p50, p95, p99 or max '=' a duration
  bool backfill = false;  ///< --backfill: later queued pods that fit may go first (implies --queue)
  std::string reconfigure_seconds;            ///< --reconfigure-seconds (empty: the default)
  std::optional<std::string> create_seconds;  ///< --create-seconds (none: the default)
  std::optional<std::string> keep_idle;       ///< --keep-idle: a duration (none: not kept)
  bool json = false;
  std::string plot;          ///< --plot FILE ('-': standard output)
  std::string plot_metric;   ///< --plot-metric: slices (also when not given) or gpus
  fleet_now_source current;  ///< --current, --mig-config, and --gpu for a listing
};

/// The options that cannot go together, checked before any file is read.
std::optional<std::string> option_conflict(const simulate_options& o);

/// The request `o` makes, its files read (standard input is `in`); notes on
/// the fleet as it is (MIG off, starts inferred) go to `notes`. An error is
/// the whole message: a bad value, a file that cannot be read or is wrong.
/// Model names resolve among `models`.
result<simulate_request> read_simulate_request(model_list models, const simulate_options& o,
                                               std::istream& in, std::vector<std::string>& notes);

}  // namespace migplan::cli

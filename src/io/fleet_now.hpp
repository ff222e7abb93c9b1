// SPDX-License-Identifier: Apache-2.0
// Reads the fleet as it is now (model/fleet_now.hpp) from what `--current`
// names: a state file, kubectl's nodes (with `--mig-config`, the
// mig-parted config their labels select), or, with a model, an nvidia-smi
// listing.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "error.hpp"
#include "model/fleet_now.hpp"

namespace migplan::cli {

struct fleet_now_source {
  std::string current;     ///< --current: a path, or "-" for standard input
  std::string mig_config;  ///< --mig-config: with kubectl's nodes
  std::string gpu;         ///< --gpu: `current` is an nvidia-smi listing of this model
};

/// The fleet `src` names, each GPU's instances as a layout; a GPU whose
/// starts are not given gets the layout of them that keeps the most room
/// (with a note). MIG-off GPUs are kept, marked, with no instances.
result<fleet_now> read_fleet_now(const fleet_now_source& src, std::istream& in);

/// "NODE GPU INDEX" of each GPU of `f` with MIG off, in fleet order.
std::vector<std::string> mig_off_gpus(const fleet_now& f);

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
// The fleet as it is now, for the commands that start from it (`place`,
// and `simulate --current`): its nodes, and each GPU's instances as a
// layout of the core. Read by io/fleet_now from a state file, kubectl's
// nodes with the mig-parted config, or an nvidia-smi listing.
#pragma once

#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/search.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/current.hpp"

namespace migplan::cli {

/// The node an nvidia-smi listing's GPUs are put on (a listing names no host).
inline constexpr std::string_view listing_node = "local";

struct fleet_now_gpu {
  int node = 0;                 ///< index into fleet_now::nodes
  int index = 0;                ///< its index on the node (nvidia-smi -i)
  std::vector<item> given;      ///< its GPU instances as read (starts may be item::any_start)
  instances_origin origin{};    ///< where `given` was read
  layout held;                  ///< `given` laid out (pack/current_fit.hpp lay_out)
  bool starts_assumed = false;  ///< some starts were not given: `held` is one layout they allow
  bool mig_enabled = true;      ///< false: MIG mode is off there (mig-enabled: false)
  /// CIs a mig-parted entry asks on their own: pack/current_fit.hpp's lay_out()
  /// shares them out into GIs of `given`, and empties this.
  std::vector<lone_cis> lone{};
};

struct fleet_now_node {
  std::string name;
  const gpu_model* gpu = nullptr;  ///< every GPU of a node is one model
};

struct fleet_now {
  std::vector<fleet_now_node> nodes;  ///< in input order; nodes without a GPU are left out
  std::vector<fleet_now_gpu> gpus;    ///< node by node
  std::vector<std::string> notes;     ///< lines for the user (not errors)
};

}  // namespace migplan::cli

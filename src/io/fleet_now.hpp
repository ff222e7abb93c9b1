// SPDX-License-Identifier: Apache-2.0
// Reads the fleet as it is now (model/fleet_now.hpp) from what `--current`
// names: a state file, kubectl's nodes (with `--mig-config`, the
// mig-parted config their labels select), or, with a model, an nvidia-smi
// listing.
#pragma once

#include <iosfwd>
#include <migplan/lookup.hpp>
#include <optional>
#include <string>
#include <vector>

#include "error.hpp"
#include "io/current.hpp"
#include "model/fleet_now.hpp"

namespace migplan::cli {

struct fleet_now_source {
  std::string current;     ///< --current: a path, or "-" for standard input
  std::string mig_config;  ///< --mig-config: with kubectl's nodes
  std::string gpu;         ///< --gpu: `current` is an nvidia-smi listing of this model
  std::string command;     ///< the command that reads it ("place"), for messages
};

/// A --current file of nvidia-smi (or `pack --json`) text as read_current
/// reads it (io/current.hpp), and the notes that go with it: where its
/// "# driver:" line names a driver, the driver floors that driver misses
/// (io/import.hpp listing_floor_warnings).
struct listing_read {
  current_listing listing;
  std::vector<std::string> notes;
};

/// Reads `path` ("-": `in`), at most max_current_bytes; `command` names the
/// reader in the message for a larger file.
result<listing_read> read_listing_file(model_list models, const std::string& path, std::istream& in,
                                       const gpu_model* gpu, std::optional<int> index,
                                       std::string_view command);

/// The fleet `src` names, each GPU's instances as read (fleet_now_gpu::given,
/// with a note naming the GPUs whose starts are not given);
/// pack/current_fit.hpp lay_out() then lays them out. MIG-off GPUs are kept,
/// marked, with no instances. Names resolve among `models`.
result<fleet_now> read_fleet_now(model_list models, const fleet_now_source& src, std::istream& in);

/// "NODE GPU INDEX" of each GPU of `f` with MIG off, in fleet order.
std::vector<std::string> mig_off_gpus(const fleet_now& f);

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan pack --emit KIND` writes from: the layout the answer prefers,
// which of its instances to create and in what order, filled by the command
// from the core's results and written by render/emit in each KIND's format.

#include <migplan/compute.hpp>
#include <migplan/detail/strings.hpp>
#include <migplan/driver_order.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/pack.hpp"

namespace migplan::cli {

/// The name of an existing CI as the catalog knows it: by name ("1c.3g.20gb",
/// or the GI's name for its full CI), else by CI profile ID, else as listed;
/// and its compute slices, or -1 when it is the GI's full CI.
inline std::pair<std::string, int> existing_ci(const profile& gi, const current_ci& c) {
  int k = find_ci(gi, c.profile);
  for (std::size_t i = 0; k < 0 && i < gi.ci_profiles.size(); ++i)
    if (gi.ci_profiles[i].id == c.profile_id) k = static_cast<int>(i);
  if (k < 0) return {c.profile, detail::iequals(c.profile, gi.name) ? -1 : c.size.value_or(0)};
  const ci_profile& cp = gi.ci_profiles[static_cast<std::size_t>(k)];
  return {std::string(cp.name), cp.compute_slices == gi.compute_slices ? -1 : cp.compute_slices};
}

/// One kind of MIG device of a layout, as nvidia-smi, mig-parted and the
/// device plugin name it: a GPU instance with the CI that owns all of it (the
/// GI profile's name, its default) or a smaller compute instance ("1c.3g.20gb").
struct emit_device {
  int gi = 0;          ///< its GI profile
  int ci_slices = -1;  ///< compute slices of a smaller CI; -1 for a whole GI
  std::string name;    ///< "3g.20gb", "1c.3g.20gb"
  int count = 0;       ///< how many of it the layout holds
  /// The GI profile whose resource a released NVIDIA device plugin counts it
  /// under (mixed strategy): the shortest profile name inside its own, as the
  /// plugin matches its patterns unanchored, plain profiles first (so
  /// "1g.10gb+me" and "1c.3g.20gb" fall to "1g.10gb" and "3g.20gb"). -1 when
  /// no profile's name is inside it.
  int resource = -1;
  bool whole() const { return ci_slices < 0; }
};

/// A layout to realize on one GPU.
struct emit_plan {
  const gpu_model* gpu = nullptr;
  int index = 0;                           ///< the GPU's nvidia-smi index (`-i`)
  layout whole;                            ///< the preferred layout, existing instances included
  std::vector<current_instance> existing;  ///< --current's instances: they exist and stay
  std::vector<instance> create;            ///< the new instances, in placement_order()
  /// Parallel to `create`: the compute instances to make in each new GPU
  /// instance when the request named them; empty for the default CI (`-C`).
  std::vector<std::vector<ci_instance>> cis;
  creation_order fallback;       ///< the order without placements, and what backs it
  std::string node;              ///< --node: the Kubernetes node (dra); empty = default
  std::string command = "pack";  ///< the migplan command that wrote it, for the header
  std::string host;  ///< the node the script is for (place), named in the header; empty = none
  /// The MIG devices of the whole layout, existing instances included, by
  /// kind, largest first (pack/emit_check.hpp emit_devices), for the writers
  /// that name or count them (k8s, Slurm, mig-parted's label).
  std::vector<emit_device> devices{};
};

}  // namespace migplan::cli

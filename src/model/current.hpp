// SPDX-License-Identifier: Apache-2.0
#pragma once

// What is on a GPU now: its GPU instances and their compute instances, as
// every reader of the current state gives them (nvidia-smi's -lgi and -lci
// listings and migplan's `pack --json` answers for `pack --current`; state
// files, kubectl's nodes and mig-parted configs for `plan --current` and
// `simulate --current`). One type for `pack`, `plan` and the writers.

#include <migplan/layout.hpp>
#include <optional>
#include <string>
#include <vector>

namespace migplan::cli {

/// A compute instance of an existing GPU instance, as `nvidia-smi mig -lci`
/// lists it: carried through unchanged.
struct current_ci {
  std::string
      profile;  ///< as listed, without "MIG " ("1c.3g.20gb"; some drivers print the GI's name)
  int profile_id = 0;        ///< compute-instance profile ID
  int instance_id = 0;       ///< compute instance ID
  std::optional<int> start;  ///< first compute slice in its GI; older drivers do not list it
  std::optional<int> size;   ///< compute slices
};

/// Compute instances asked of a GPU-instance profile on their own, as a
/// mig-parted config's "1c.3g.20gb": 4 asks them: mig-parted shares them out
/// over GIs of that profile. How many GIs that takes is the core's search
/// (group_cis), which pack/current_fit.hpp runs; readers only say what was asked.
struct lone_cis {
  int profile = 0;       ///< the GI profile (index into gpu_model::profiles)
  std::vector<int> cis;  ///< the CIs (indices into its ci_profiles), repeats allowed
};

/// Where a GPU's instances were read, for the message when they do not fit
/// together (pack/current_fit.hpp decides).
struct instances_origin {
  enum class kind {
    listing,     ///< an nvidia-smi listing
    state_file,  ///< a state file's `instances`
    mig_parted,  ///< the entry of a mig-parted label that kubectl's nodes select
  };
  kind from = kind::listing;
  std::string file;   ///< as messages show it
  int line = 0;       ///< of the `instances` list, or of the label's entry; 0 for a listing
  std::string label;  ///< with mig_parted: the label
};

/// A GPU instance that exists now.
struct current_instance {
  int profile = 0;  ///< index into gpu_model::profiles
  /// Its placement start as listed, or item::any_start where only how many
  /// of each profile exist is known (a state file's `profile: count` form,
  /// a mig-parted config's devices).
  int start = item::any_start;
  /// A workload runs on it: `plan` destroys it only with --allow-evict.
  bool in_use = false;
  std::optional<int> instance_id;   ///< the GPU instance ID nvidia-smi gave it, when listed
  std::vector<current_ci> compute;  ///< its compute instances, when an -lci listing came too

  /// An instance of `profile` at `start` (item::any_start: where unknown).
  static current_instance at(int profile, int start, bool in_use = false) {
    current_instance c;
    c.profile = profile;
    c.start = start;
    c.in_use = in_use;
    return c;
  }
};

}  // namespace migplan::cli

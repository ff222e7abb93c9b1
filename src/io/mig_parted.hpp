// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one reader of NVIDIA mig-parted configs, for every command that takes
// one: `check` (files, ConfigMaps in manifests) and `plan --mig-config`. The
// document is read by io/check_input (syntax, schema, mig-parted's parse-time
// rules), a manifest's ConfigMaps by io/manifest; this layer resolves what a
// `mig-devices` key names on a model (a GPU-instance profile, a former name of
// one, or a compute-instance profile "1c.3g.20gb") and turns an entry into the
// GPU instances mig-parted makes of it, with one set of messages.

#include <migplan/compute.hpp>
#include <migplan/gpu.hpp>
#include <migplan/lookup.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/check.hpp"
#include "model/compute.hpp"
#include "model/current.hpp"

namespace migplan::cli::check {

/// A config file read for its geometries: a mig-parted config, or a
/// Kubernetes manifest whose GPU Operator ConfigMaps carry one as
/// `config.yaml` (each read as one config, positions moved to the manifest's
/// lines; `configmaps` gets where each `config.yaml` key is). `json` reads `text`
/// as JSON first; `models` are those of parse_check_input.
parsed_input read_mig_parted_input(model_list models, std::string_view text, bool json,
                                   std::vector<location>* configmaps = nullptr);

/// A mig-devices key split as mig-parted reads it ("Cc.Gg.MEMgb[+attrs]", the
/// format already checked): `gi` the GPU-instance profile's name, `ci` the
/// compute-instance profile's name when C differs from G ("1c.3g.20gb"), else
/// empty ("3g.20gb" and "3c.3g.20gb" are both the whole GI: mig-parted matches
/// on C, G and GB).
struct mig_device_key {
  std::string gi;
  std::string ci;
};
mig_device_key split_mig_device_key(std::string_view key);

/// A mig-devices key resolved on one model.
struct mig_device {
  int gi = -1;  ///< the GI profile; -1 when the model lacks it (`message` says why)
  /// The CI profile (index into the GI's ci_profiles) of a key that names one
  /// smaller than its GI; -1 for the whole GI.
  int ci = -1;
  /// Found by a name older drivers used: `message` is the warning to give.
  bool former = false;
  std::string message;
  /// A CI the GI does not offer, or a GI whose CI profiles are unknown (gi is
  /// set, ci is -1): the rejection, with its code and sentence.
  ci_rejection ci_error{};
};

/// Resolves `key` on `gpu`: its GI profile by current name, else by a former
/// one (a warning), else unknown (the message of resolve_profile, with the
/// model, the `models` that have it, and a did-you-mean); then its CI
/// profile, if it names one.
mig_device resolve_mig_device(model_list models, const gpu_model& gpu, std::string_view key);

/// Why the key resolved as `d` cannot be had on its model (its unknown GI
/// profile, or the CI its GI does not offer); empty when it can.
std::string why_unavailable(const mig_device& d);

/// What an entry's `mig-devices` ask of a GPU of `gpu`, as mig-parted reads
/// them (SetMigConfig, pkg/mig/config/config.go): one GI per count of a GI
/// profile, and the compute instances asked on their own ("1c.3g.20gb": 4),
/// which mig-parted shares out over GIs of their profile. How many GIs that
/// takes is a search (the core's group_cis), which readers leave to the
/// service that lays the GPU out (pack/current_fit.hpp).
struct mig_parted_gis {
  std::vector<int> gis;          ///< GI profile indices, each GI with its default CI
  std::vector<lone_cis> lone{};  ///< CIs asked on their own, by GI profile
  /// Notes on what was read (a former name used).
  std::vector<std::string> notes;
  /// The first key that cannot be had on `gpu`: its position and why ("" when none).
  location error_at;
  std::string error;
  /// More instances than any GPU holds (max_units): `gis` is left incomplete,
  /// `error` stays empty, and this is the total reached.
  long long too_many = 0;
};
mig_parted_gis entry_instances(model_list models, const gpu_model& gpu, const geometry_spec& entry);

}  // namespace migplan::cli::check

// SPDX-License-Identifier: Apache-2.0
#pragma once

// Slurm's GRES types for MIG devices. slurmd finds MIG devices itself
// (gres.conf `AutoDetect=nvml`) and names each one; slurm.conf then lists how
// many of each type a node has (`Gres=gpu:TYPE:COUNT`), and a node whose
// devices do not match is drained. slurmd gives a device the configured type
// that its own name contains, ignoring case, longest type first
// (_normalize_sys_gres_types, src/plugins/gres/gpu/gres_gpu.c). How slurmd
// names a MIG device changed (src/plugins/gpu/nvml/gpu_nvml.c, _handle_mig):
// - by profile (Slurm 23.02.6 and later, by its changelog: "Fix some mig
//   profile names in slurm not matching nvidia mig profiles"; seen in the
//   code of 24.08 and 25.05): the GPU's name, then the MIG device's name as
//   nvidia-smi prints it, "nvidia_a100_1g.10gb+me", "nvidia_a100_1c.3g.40gb";
// - by memory (Slurm 22.05, and 23.02 before 23.02.6): the GPU's name, then
//   the GPU instance's compute slices and its memory in GiB rounded to the
//   nearest, "nvidia_a100_7g.39gb" for a 7g.40gb of 39.25 GiB.
// doc/man/migplan-pack.1.scd (EMIT, slurm) has the sources.

#include <migplan/gpu.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace migplan::cli::render {

/// The type to configure for the devices of a GPU-instance profile: its name
/// without attributes ("1g.10gb+me" -> "1g.10gb"). Every device of the
/// profile, and every compute instance in one, has a name by profile that
/// contains it.
std::string_view slurm_type(std::string_view profile_name);

/// How slurmd names a profile's devices by memory ("7g.39gb"), and whether
/// that is sure: nullopt when the memory is unknown; `exact` false when
/// -lgip's figure (two decimals) ends in .50, so that the MiB behind it may
/// round either way (the name assumes up, as an exact half does).
struct slurm_memory_name {
  std::string type;
  bool exact = true;
};
std::optional<slurm_memory_name> slurm_memory_type(const profile& p);

/// What slurmd calls the GPU before a MIG device's own part: its nvidia-smi
/// name in lower case, spaces as '_', cut at the first '-' ("nvidia_a100");
/// "..." for a model with no nvidia-smi name.
std::string slurm_gpu_prefix(const gpu_model& g);

/// Comment lines saying how the MIG types are chosen, with an example for
/// each of `models`.
std::string slurm_types_note(std::span<const gpu_model* const> models);

/// One line of slurm.conf GRES: "gpu:T1:N1,gpu:T2:N2" for (type, count)
/// pairs.
std::string slurm_gres(const std::vector<std::pair<std::string, long long>>& counts);

/// `counts` of MIG devices per GPU-instance profile of `g` (a compute
/// instance counted under its GPU instance's profile: it is a MIG device of
/// its own) as Slurm types and counts, by profile (slurm_type) and by memory
/// (slurm_memory_type), in the order of `counts`, equal types summed.
struct slurm_counts {
  std::vector<std::pair<std::string, long long>> by_profile;
  std::vector<std::pair<std::string, long long>> by_memory;
  std::vector<std::string> unknown;  ///< profiles whose memory is unknown
  std::vector<std::string> halves;   ///< "3g.20gb (19.50 GiB)": by memory, either way
  /// The first profile named otherwise by memory, and that name ("7g.40gb", "7g.39gb").
  std::pair<std::string, std::string> renamed{};
  long long mig_devices = 0;  ///< how many MIG devices `counts` holds
};
slurm_counts slurm_types(const gpu_model& g, const std::vector<std::pair<int, long long>>& counts);

/// One line of GRES counts: what starts it ("Gres=", "NodeName=n1 Gres=")
/// and its model's counts.
struct slurm_line {
  std::string head;
  const gpu_model* gpu = nullptr;
  slurm_counts counts;
};

/// Comment lines saying how older slurmd names MIG devices (by memory) and
/// the lines for it, commented out, or that it names these devices alike;
/// nothing when no line holds a MIG device.
std::string slurm_memory_note(std::span<const slurm_line> lines);

/// Adds `n` devices of `type` to `to` (summed with an equal type).
void slurm_add(std::vector<std::pair<std::string, long long>>& to, std::string type, long long n);

}  // namespace migplan::cli::render

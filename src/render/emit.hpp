// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan pack --emit KIND`: what realizes a layout, in the form each
// consumer takes: a shell script of nvidia-smi commands, the arguments of
// NVML's placement call, a mig-parted config, the device plugin's resources.
// One writer per kind; commands/emit_kinds.cpp's table is what --emit
// dispatches on, so a new kind is one function here and one row there.

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

#include "model/emit.hpp"

namespace migplan::cli::render {

/// A POSIX sh script: one `nvidia-smi mig -i N -cgi ID:START -C` per new
/// instance, largest first, with a header naming the GPU, the layout and the
/// driver requirement of the ID:START form, then, commented out, the creation
/// order without starts that the driver model says lands on the layout (or
/// why none is claimed).
void emit_nvidia_smi(std::ostream& os, const emit_plan& plan);

/// JSON for nvmlDeviceCreateGpuInstanceWithPlacement: {"schema_version",
/// "gpu", "index", "create": [{"profile_id", "profile", "start", "size"}]},
/// the new instances in creation order (schema/emit-nvml.schema.json).
void emit_nvml(std::ostream& os, const emit_plan& plan);

/// A mig-parted v1 config with one label for the whole layout (counts per
/// profile; a GI split into compute instances counted per CI profile,
/// "1c.3g.20gb", as mig-parted names them), filtered to the model's PCI IDs.
void emit_mig_parted(std::ostream& os, const emit_plan& plan);

/// YAML: the extended resources the NVIDIA device plugin advertises for one
/// GPU with the whole layout, under the mixed and the single strategy; each
/// compute instance is a device of its own, counted under its GI profile's
/// resource (the plugin has none for CI profiles).
void emit_k8s(std::ostream& os, const emit_plan& plan);

/// The DRA ResourceSlices of the plan's GPU: every placement as a device
/// (render/dra.hpp), on the node `plan.node` names (default worker-1).
void emit_dra(std::ostream& os, const emit_plan& plan);

/// Slurm's GRES for one GPU with the whole layout: gres.conf's
/// `AutoDetect=nvml` and the node's slurm.conf `Gres=gpu:TYPE:N,...`, types
/// as render/slurm.hpp names them, with the line for slurmd versions that name
/// MIG devices by memory where it differs.
void emit_slurm(std::ostream& os, const emit_plan& plan);

/// "NVIDIA A100-SXM4-40GB", or the description when no nvidia-smi name is
/// known: how the writers' headers name the model.
std::string model_name(const gpu_model& g);

/// The label `emit_mig_parted` writes for a layout: "migplan-SLUG-" and the
/// MIG devices, largest first ("4g.20gb-2g.10gb-2x1g.5gb", a split GI as its
/// CIs, "2x1c.3g.20gb", "+" as "."); past 63 characters (a Kubernetes label
/// value's limit) "migplan-SLUG-" and the 32-bit FNV-1a hash of that text in hex.
std::string layout_label(const emit_plan& plan);

}  // namespace migplan::cli::render

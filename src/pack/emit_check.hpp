// SPDX-License-Identifier: Apache-2.0
#pragma once

// Whether a `pack --emit` kind can write a layout without losing part of it,
// and the MIG devices a layout makes: pack's service decides, before
// render/emit writes (which then only writes). commands/emit_kinds.cpp's
// table names the check of each kind that has one; every other kind writes
// every layout.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/emit.hpp"
#include "model/pack.hpp"

namespace migplan::cli::pack {

/// Why --emit, which writes one model's layout on one GPU, cannot write
/// `a` (one sentence), or "": the request answers alike on several models
/// (pass --gpu).
std::string one_model_problem(const pack_answer& a);

/// Why --emit cannot write the answers of a --current listing (`shown`)
/// of `gpus` GPUs, or "": it holds more than one (pick one with --index).
std::string one_gpu_problem(std::string_view shown, std::size_t gpus);

/// Why --emit mig-parted cannot write `plan` (one sentence), or "":
/// mig-parted may merge compute instances the layout keeps in separate GPU
/// instances, or would share them out over its GPU instances otherwise than
/// the layout does.
std::string mig_parted_problem(const emit_plan& plan);

/// The MIG devices of `plan`'s whole layout, existing instances included,
/// by kind, largest first (emit_plan::devices): a GI whose CIs were not named
/// (or an existing one listed without CIs) is one device of its own profile;
/// a split GI, one per CI. Each with the resource a released device plugin
/// counts it under.
std::vector<emit_device> emit_devices(const emit_plan& plan);

/// Why --emit dra cannot write `plan` (one sentence), or "": the DRA driver
/// drops compute instances smaller than their GPU instance.
std::string dra_problem(const emit_plan& plan);

}  // namespace migplan::cli::pack

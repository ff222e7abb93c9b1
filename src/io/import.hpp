// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan import`'s reading half: a model definition (model_spec) built from
// an `nvidia-smi mig -lgip` and an `-lgipp` capture of one GPU. Units and
// compute slices come from the full-GPU profile (the widest, with the most
// compute slices); starts and sizes from -lgipp; caps, memory, SMs and
// engines from -lgip. The result still has to pass check_model_spec().

#include <migplan/gpu.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "io/smi.hpp"
#include "model/model_spec.hpp"

namespace migplan::cli {

/// One capture as import reads it.
struct capture_text {
  std::string shown;  ///< the file as messages name it ("<stdin>" for "-")
  std::string name;   ///< the file as provenance names it: its last path component
  std::string text;   ///< what it holds
};

/// What `migplan import` is asked for besides the captures.
struct import_settings {
  std::optional<int> index;     ///< --index: the GPU of the listings
  std::string slug;             ///< --name; empty: "imported-" and the full-GPU profile's name
  std::string description;      ///< --description; empty: one naming the full-GPU profile
  std::vector<pci_id> pci_ids;  ///< --pci-id
};

/// The driver version a capture's "# driver:" line gives (data/captures
/// heads its files so; nvidia-smi itself prints none), or "".
std::string capture_driver(std::string_view text);

/// The branch of a driver version ("515.86.01" -> 515), or nothing when the
/// version does not start with one.
std::optional<int> driver_branch(std::string_view version);

/// The built-in model an imported table is of: the one catalog model whose
/// full-GPU profile has the table's name, units and compute slices (and its
/// SM count, where both know it); null when none or several are.
const gpu_model* catalog_model_of(const model_spec& spec, std::span<const gpu_model> catalog);

/// What the driver floors of `known` say about a table its driver `driver`
/// listed, one message a finding: a driver before the model's first MIG
/// branch, a profile listed before the branch that added it, a profile with a
/// branch of its own missing from a driver that has that branch. Empty when
/// the driver or the floors are unknown. `shown` names the capture.
std::vector<std::string> driver_floor_warnings(const model_spec& spec, std::string_view driver,
                                               const gpu_model& known, std::string_view shown);

/// The same for instances a listing taken with `driver` shows (`profiles`,
/// indices into gpu.profiles): a driver before the model's first MIG branch,
/// an instance of a profile the driver's branch does not have yet. A listing
/// shows what was created, so a profile it lacks says nothing.
std::vector<std::string> listing_floor_warnings(const gpu_model& gpu, std::string_view driver,
                                                const std::vector<int>& profiles,
                                                std::string_view shown);

/// Builds the model of GPU `settings.index` (or the one GPU listed) from the
/// two captures. Errors name the file and line ("a30-lgipp.txt:4: ...").
result<model_spec> import_model(const capture_text& lgip, const capture_text& lgipp,
                                const import_settings& settings);

}  // namespace migplan::cli

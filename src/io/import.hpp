// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan import`'s reading half: a model definition (model_spec) built from
// an `nvidia-smi mig -lgip` and an `-lgipp` capture of one GPU. Units and
// compute slices come from the full-GPU profile (the widest, with the most
// compute slices); starts and sizes from -lgipp; caps, memory, SMs and
// engines from -lgip. The result still has to pass check_model_spec().

#include <migplan/gpu.hpp>
#include <optional>
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

/// Builds the model of GPU `settings.index` (or the one GPU listed) from the
/// two captures. Errors name the file and line ("a30-lgipp.txt:4: ...").
result<model_spec> import_model(const capture_text& lgip, const capture_text& lgipp,
                                const import_settings& settings);

}  // namespace migplan::cli

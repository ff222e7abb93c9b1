// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading what is on a GPU now, for `pack --current FILE`: an
// `nvidia-smi mig -lgi` listing, optionally followed by an `nvidia-smi mig
// -lci` listing (`{ nvidia-smi mig -lgi; nvidia-smi mig -lci; }`), or
// migplan's own JSON answer (`pack --json`, whose preferred layout is taken),
// or its answers one per line for a listing of several GPUs.
// Each GPU instance is checked against the model: a profile of it by its ID
// and name, at a start and size the profile allows. Whether they fit
// together is the search's to say, not the reader's: the command asks it.
// Compute instances are read and kept with their GPU instance, unchanged.

#include <migplan/gpu.hpp>
#include <migplan/lookup.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "model/pack.hpp"

namespace migplan::cli {

/// The most bytes a --current file may hold (the smi readers' limit).
inline constexpr std::size_t max_current_bytes = std::size_t{1} << 20;

/// One GPU of a --current file.
struct current_listing_gpu {
  std::optional<int> index;                 ///< its nvidia-smi index; unset when the file has none
  std::vector<current_instance> instances;  ///< its GPU instances, in listed order
};

/// What a --current file holds.
struct current_listing {
  const gpu_model* gpu = nullptr;         ///< the model (from --gpu, or a JSON answer's)
  std::vector<current_listing_gpu> gpus;  ///< the GPUs to answer, in listed order
  bool from_json = false;                 ///< read from a `pack --json` answer
};

/// True when `text` is nvidia-smi's output (detect_listing of io/smi.hpp):
/// the one rule by which every --current reader tells a listing, which
/// names no GPU model and so needs --gpu, from a state file or an answer.
bool is_smi_listing(std::string_view text);

/// "FILE: an nvidia-smi listing does not name the GPU model; pass --gpu".
std::string listing_needs_gpu(std::string_view shown);

/// Reads a --current file's text. `shown` names it in messages ("FILE:LINE:
/// ..."); `gpu` is --gpu's model (nullptr when not given: only a JSON answer
/// names its model, which resolves among `models`); `index` is --index (that GPU only). Without
/// `index`, every GPU of the listing is returned; a listing with no GPU instance
/// ("No GPU instances found") is one GPU without instances.
result<current_listing> read_current(model_list models, std::string_view text,
                                     std::string_view shown, const gpu_model* gpu,
                                     std::optional<int> index);

}  // namespace migplan::cli

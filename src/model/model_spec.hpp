// SPDX-License-Identifier: Apache-2.0
#pragma once

// A GPU model as a model file holds it (schema/model.schema.json): what
// `migplan import` builds from nvidia-smi captures and render/import writes,
// and what io/model_file reads back for --gpu-file. Plain owning data; the
// core's gpu_model views into it once it is loaded.

#include <migplan/gpu.hpp>
#include <optional>
#include <string>
#include <vector>

namespace migplan::cli {

/// One GPU-instance profile of a model file.
struct profile_spec {
  std::string name;                    ///< as nvidia-smi prints it, without "MIG "
  int id = 0;                          ///< the -lgip profile ID
  int compute_slices = 0;              ///< the "g" of the name
  int size = 0;                        ///< placement units of one instance
  std::vector<int> starts;             ///< allowed starts, as -lgipp prints them
  int max_instances = 0;               ///< "Total" of -lgip on an empty GPU
  std::optional<int> memory_gib_x100;  ///< -lgip "Memory GiB" x 100
  std::optional<int> sm_count;         ///< SMs of one instance
  engine_counts engines{};             ///< CE, DEC, ENC, JPG, OFA
  std::string min_driver;              ///< "R525", or empty when unknown
  std::string source;                  ///< where the row comes from; empty: the model's source
  std::string placements_source;       ///< where the starts come from; empty: the model's source
  field inferred = field::none;        ///< fields inferred rather than observed
  std::string notes;                   ///< caveats, may be empty
};

/// A model of a model file.
struct model_spec {
  std::string slug;                    ///< what --gpu takes
  std::string description;             ///< prose
  std::vector<std::string> smi_names;  ///< names as nvidia-smi prints them
  std::vector<pci_id> pci_ids;         ///< device IDs, vendor 0x10DE in the lower half
  std::optional<int> memory_mib;       ///< total framebuffer
  int units = 0;                       ///< placement units
  int compute_slices = 0;              ///< compute slices
  std::string source;                  ///< where the model comes from (captures, driver)
  std::vector<profile_spec> profiles;
};

}  // namespace migplan::cli

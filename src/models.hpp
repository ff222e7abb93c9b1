// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one answer in src/ to "which GPU models are there": the built-in
// catalog, then the models loaded from model files with --gpu-file, in the
// order given. Every lookup the commands make (a --gpu name, the models a
// request's profile names fit, a device-filter's PCI IDs, `gpus`, `profiles`)
// goes through all_models(), so a loaded model works wherever a built-in one
// does. run() (app.cpp) holds one model_set per run and installs it.

#include <memory>
#include <migplan/gpu.hpp>
#include <migplan/lookup.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"

namespace migplan::cli {

class loaded_model;

/// The models of one run: the catalog, then the models loaded into it.
class model_set {
 public:
  model_set();
  ~model_set();
  model_set(const model_set&) = delete;
  model_set& operator=(const model_set&) = delete;

  /// Reads and checks the model file at `path` and adds its model; the
  /// error is the whole message ("FILE:LINE: ..."). A file's model may not
  /// reuse the slug, a PCI ID or an nvidia-smi name of any model before it.
  result<const gpu_model*> load(const std::string& path);
  /// The catalog's models, then the loaded ones.
  model_list models() const noexcept { return all_; }
  /// The file `m` was loaded from, or "" when it is not a loaded model.
  std::string_view file_of(const gpu_model& m) const noexcept;

 private:
  std::vector<std::unique_ptr<loaded_model>> loaded_;
  std::vector<const gpu_model*> all_;
};

/// Every model this run may use: the model set installed with use_models,
/// or the catalog alone when none is.
model_list all_models();

/// The model file `m` was loaded from, or "" for a built-in model.
std::string_view model_file(const gpu_model& m) noexcept;

/// Makes all_models() answer from `set` for as long as it lives.
class use_models {
 public:
  explicit use_models(const model_set& set) noexcept;
  ~use_models();
  use_models(const use_models&) = delete;
  use_models& operator=(const use_models&) = delete;

 private:
  const model_set* previous_;
};

}  // namespace migplan::cli

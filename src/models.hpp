// SPDX-License-Identifier: Apache-2.0
#pragma once

// The GPU models of one run: the built-in catalog, then the models loaded
// from model files with --gpu-file, in the order given. run() (app.cpp)
// holds one model_set per run and hands it to the command (context::models);
// every lookup a command makes (a --gpu name, the models a request's profile
// names fit, a device-filter's PCI IDs, `gpus`, `profiles`) is among its
// models(), which readers and services take as a value, so a loaded model
// works wherever a built-in one does. There is no global set.

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

/// The built-in catalog as a model list: what a model_set starts from (and
/// what tests and fuzz targets resolve names among).
model_list builtin_models();

}  // namespace migplan::cli

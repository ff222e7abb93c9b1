// SPDX-License-Identifier: Apache-2.0
#include "models.hpp"

#include <migplan/catalog.hpp>

#include "io/model_file.hpp"

namespace migplan::cli {
namespace {

// The set commands see; null between runs (the catalog alone).
const model_set* installed = nullptr;

const std::vector<const gpu_model*>& builtin() {
  static const std::vector<const gpu_model*> all = [] {
    std::vector<const gpu_model*> v;
    for (const gpu_model& m : catalog()) v.push_back(&m);
    return v;
  }();
  return all;
}

}  // namespace

model_set::model_set() : all_(builtin()) {}

model_set::~model_set() = default;

result<const gpu_model*> model_set::load(const std::string& path) {
  auto loaded = load_model_file(path, all_);
  if (!loaded) return loaded.error();
  const gpu_model* m = &(*loaded)->model();
  loaded_.push_back(std::move(*loaded));
  all_.push_back(m);
  return m;
}

std::string_view model_set::file_of(const gpu_model& m) const noexcept {
  for (const auto& l : loaded_)
    if (&l->model() == &m) return l->file();
  return {};
}

model_list all_models() {
  return installed != nullptr ? installed->models() : model_list(builtin());
}

std::string_view model_file(const gpu_model& m) noexcept {
  return installed != nullptr ? installed->file_of(m) : std::string_view{};
}

use_models::use_models(const model_set& set) noexcept : previous_(installed) { installed = &set; }

use_models::~use_models() { installed = previous_; }

}  // namespace migplan::cli

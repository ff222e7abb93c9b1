// SPDX-License-Identifier: Apache-2.0
#include "models.hpp"

#include <migplan/catalog.hpp>

#include "io/model_file.hpp"

namespace migplan::cli {
namespace {

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

model_list builtin_models() { return builtin(); }

std::string_view model_set::file_of(const gpu_model& m) const noexcept {
  for (const auto& l : loaded_)
    if (&l->model() == &m) return l->file();
  return {};
}

}  // namespace migplan::cli

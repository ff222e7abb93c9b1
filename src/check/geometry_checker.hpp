// SPDX-License-Identifier: Apache-2.0
#pragma once

// The checking pass of `migplan check` (check_geometries(), checker.hpp) as
// one object over a file's geometries: geometries.cpp walks them and grades
// each, pick_models.cpp finds the models an entry applies to, and
// fit_on_model.cpp asks the core whether a request fits on one model.
// Internal to src/check.

#include <cstdint>
#include <map>
#include <migplan/explain.hpp>
#include <migplan/search.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "check/checker.hpp"

namespace migplan::cli::check::detail {

/// Grades every geometry of one file into it (its geometries and diagnostics).
class geometry_checker {
 public:
  geometry_checker(file_check& f, const check_settings& settings) : f_(f), settings_(settings) {}

  /// Checks every geometry the settings select.
  void run();

 private:
  // geometries.cpp: the walk, each kind of entry, and the diagnostics.
  bool selected(const std::string& label) const;
  void report_missing_labels();
  void add(severity s, fault k, location at, std::string message,
           std::vector<std::string> notes = {});
  std::string what(const geometry_spec& g) const;
  void check_geometry(const geometry_spec& g, geometry_check& gc);
  void check_table(const geometry_spec& g, geometry_check& gc);
  void check_mig_parted(const geometry_spec& g, geometry_check& gc);
  void merge_alike(const geometry_check& gc, const std::vector<std::size_t>& first);
  void report_fits(const geometry_spec& g, const geometry_check& gc);

  // pick_models.cpp
  bool pick_models(const geometry_spec& g, const std::vector<const profile_request*>& items,
                   std::vector<const gpu_model*>& models, bool& skipped);

  // fit_on_model.cpp
  model_check check_on(const gpu_model& gpu, const geometry_spec& g,
                       const std::vector<const profile_request*>& requests, bool mig_parted);

  // What the core says about one request on one model.
  struct answer {
    std::uint64_t layout_count = 0;
    std::optional<layout> preferred;
    reason why;
    std::vector<closest_fit> closest;
  };
  const answer& solved(const gpu_model& gpu, const std::vector<item>& items);

  file_check& f_;
  const check_settings& settings_;
  const geometry_spec* current_ = nullptr;  // the geometry being checked, for diagnostics
  std::vector<std::string> names_;
  std::map<std::pair<const gpu_model*, std::vector<item>>, answer> solved_;
  std::vector<std::vector<table_target>> targets_;        // per HAMi entry, its models
  std::set<std::pair<int, const gpu_model*>> explained_;  // (entry, model) notes given
};

}  // namespace migplan::cli::check::detail

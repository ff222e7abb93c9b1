// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan emit-config`'s service: the config it generates (all-disabled,
// all-enabled, all-balanced and one all-PROFILE label per profile, each
// found by the search), the user's labels merged into it (--merge), and
// the check of the merged config, its diagnostics placed back in the
// user's file. render/mig_parted writes the config.

#include <migplan/gpu.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "check/checker.hpp"
#include "diagnostic.hpp"
#include "io/merge_input.hpp"
#include "model/mig_parted.hpp"

namespace migplan::cli::check {

/// The labels for `models`, in the order written: all-disabled,
/// all-enabled, all-balanced, then one all-PROFILE per profile name in order
/// of first appearance (the order of `models`, then of their profiles); a
/// name that several models have gets one entry per model. The header names
/// `catalog_revision`, the catalog's data revision.
mig_parted_config generated_config(std::span<const gpu_model* const> models,
                                   std::string_view catalog_revision);

/// A generated label that `--merge` left out: the user's label of that name.
struct replaced_label {
  std::string name;
  int line = 0;  ///< of the user's label in its file
};

/// Merges `user`'s labels (read from `shown`) into `config`: a generated
/// label of the same name is left out (returned, in the user's order), the
/// user's follow the generated ones, and the header says so.
std::vector<replaced_label> merge_user_labels(mig_parted_config& config, user_config user,
                                              const std::string& shown);

/// The merged config `text` (written from `config`) checked as mig-manager
/// will read it, each diagnostic on a user's label placed at its line in the
/// user's file; `failed` when any is an error or the text is malformed.
struct merged_check {
  std::vector<diagnostic> diagnostics;
  bool failed = false;
};
merged_check check_merged(const mig_parted_config& config, const std::string& text,
                          const check_settings& settings);

}  // namespace migplan::cli::check

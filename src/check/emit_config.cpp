// SPDX-License-Identifier: Apache-2.0
// `migplan emit-config`'s service (check/emit_config.hpp).
#include "check/emit_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <migplan/configs.hpp>
#include <optional>
#include <utility>

#include "k8s_names.hpp"

namespace migplan::cli::check {
namespace {

// Where a line of the written config comes from: a user's label (its file
// and line there) or migplan's own text.
diagnostic located_in_user(diagnostic d, const std::string& text,
                           const std::vector<user_label>& labels, const std::string& user_file) {
  // The key of each user label is the line after its comment; labels are in order.
  int line = 1, label = -1, key_line = 0;
  std::size_t at = 0;
  std::size_t next = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const std::size_t found = text.find(labels[i].text, next);
    if (found == std::string::npos) break;
    line += static_cast<int>(std::count(text.begin() + static_cast<std::ptrdiff_t>(at),
                                        text.begin() + static_cast<std::ptrdiff_t>(found), '\n'));
    at = found;
    next = found + labels[i].text.size();
    if (line > d.line) break;
    label = static_cast<int>(i);
    key_line = line;
  }
  if (label >= 0 && d.line >= key_line) {
    const user_label& u = labels[static_cast<std::size_t>(label)];
    const int lines = static_cast<int>(std::count(u.text.begin(), u.text.end(), '\n'));
    if (d.line < key_line + lines) {
      d.file = user_file;
      d.line = u.line + (d.line - key_line);
      d.column = 0;  // the label was moved to two spaces
    }
  }
  return d;
}

}  // namespace

// The labels for `models`, in the order written: all-disabled, all-enabled,
// all-balanced, then one all-PROFILE per profile name in order of first
// appearance (catalog order of models, then of their profiles). A name that
// several models have gets one entry per model.
mig_parted_config generated_config(std::span<const gpu_model* const> models,
                                   std::string_view catalog_revision) {
  mig_parted_config c;
  mig_parted_label disabled{"all-disabled", {}}, enabled{"all-enabled", {}},
      balanced{"all-balanced", {}};
  std::vector<mig_parted_label> alone;
  for (const gpu_model* g : models) {
    disabled.entries.push_back({g, false, {}});
    enabled.entries.push_back({g, true, {}});
    if (const std::optional<profile_counts> b = balanced_geometry(*g)) {
      mig_parted_entry e{g, true, {}};
      // Smallest first, as NVIDIA's all-balanced entries list them.
      for (int p = 0; p < static_cast<int>(g->profiles.size()); ++p)
        if ((*b)[p] > 0) e.devices.emplace_back(p, (*b)[p]);
      std::stable_sort(e.devices.begin(), e.devices.end(), [&](const auto& x, const auto& y) {
        return g->profiles[static_cast<std::size_t>(x.first)].compute_slices <
               g->profiles[static_cast<std::size_t>(y.first)].compute_slices;
      });
      balanced.entries.push_back(std::move(e));
    }
    for (int p = 0; p < static_cast<int>(g->profiles.size()); ++p) {
      const int n = most_alone(*g, p);
      if (n == 0) continue;
      const std::string name =
          "all-" + k8s::label_word(g->profiles[static_cast<std::size_t>(p)].name);
      auto it = std::find_if(alone.begin(), alone.end(),
                             [&](const mig_parted_label& l) { return l.name == name; });
      if (it == alone.end()) it = alone.insert(alone.end(), mig_parted_label{name, {}});
      it->entries.push_back({g, true, {{p, n}}});
    }
  }
  c.labels.push_back(std::move(disabled));
  c.labels.push_back(std::move(enabled));
  if (!balanced.entries.empty()) c.labels.push_back(std::move(balanced));
  for (mig_parted_label& l : alone) c.labels.push_back(std::move(l));
  std::vector<std::string> slugs;
  for (const gpu_model* g : models) slugs.emplace_back(g->slug);
  c.header = {
      fmt::format("mig-parted v1 config written by migplan emit-config, offline, from migplan's "
                  "catalog (data {}) for {}.",
                  catalog_revision, fmt::join(slugs, ", ")),
      "",
      "Every entry is filtered to its model's PCI IDs. all-PROFILE: the profile alone, as many "
      "as one GPU holds (by the search, not the instance cap alone). all-balanced: of the "
      "geometries of plain profiles (no + or - suffix), the one that uses the most compute "
      "slices, then has the most distinct compute sizes, then the most instances, then the "
      "fewest placement units; where NVIDIA's config-default.yaml has an all-balanced entry for "
      "a model, this is its geometry.",
      "",
      "Check it with: migplan check FILE",
  };
  return c;
}

std::vector<replaced_label> merge_user_labels(mig_parted_config& config, user_config user,
                                              const std::string& shown) {
  std::vector<replaced_label> replaced;
  // Yours win: a generated label of the same name is left out.
  for (const user_label& u : user.labels) {
    const auto mine = std::find_if(config.labels.begin(), config.labels.end(),
                                   [&](const mig_parted_label& l) { return l.name == u.name; });
    if (mine == config.labels.end()) continue;
    config.labels.erase(mine);
    replaced.push_back({u.name, u.line});
  }
  config.user_labels = std::move(user.labels);
  config.user_file = shown;
  config.header.push_back(fmt::format(
      "Merged by migplan emit-config --merge: these labels, then those of {}{} as written "
      "there; where both have a label, the one from {} is kept. Every entry was checked "
      "(migplan check) before this was written.",
      shown, user.configmap.empty() ? "" : fmt::format(" (ConfigMap {})", user.configmap), shown));
  return replaced;
}

merged_check check_merged(const mig_parted_config& config, const std::string& text,
                          const check_settings& settings) {
  const file_check f = check_text("<merged config>", text, settings);
  merged_check out;
  out.failed = f.status == file_status::malformed;
  for (const diagnostic& raw : f.diagnostics) {
    diagnostic d = located_in_user(raw, f.text, config.user_labels, config.user_file);
    out.failed = out.failed || d.level == severity::error;
    out.diagnostics.push_back(std::move(d));
  }
  return out;
}

}  // namespace migplan::cli::check

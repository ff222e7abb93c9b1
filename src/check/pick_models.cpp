// SPDX-License-Identifier: Apache-2.0
// `migplan check`: the GPU models a geometry applies to (geometry_checker.hpp).

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <migplan/explain.hpp>
#include <migplan/lookup.hpp>
#include <migplan/search.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "check/checker.hpp"
#include "check/geometry_checker.hpp"
#include "io/check_input.hpp"
#include "io/ci_request.hpp"
#include "io/mig_parted.hpp"
#include "io/names.hpp"
#include "io/request.hpp"
#include "messages.hpp"
#include "text.hpp"

namespace migplan::cli::check::detail {
namespace {

bool current_anywhere(model_list models, std::string_view name) {
  for (const gpu_model* g : models)
    if (find_profile(*g, name) >= 0) return true;
  return false;
}

}  // namespace

// An entry without a device-filter applies to every GPU: check it on every
// catalog model that has all of its profiles. A name that no model has today
// but an older driver used stands for the profile it became.
//
// With a fleet (--gpu), the candidates are the fleet's models instead of the
// catalog's: a node picks its label, so an entry whose profiles no fleet
// model has is for other nodes (a note), not an error. Returns false when
// the entry is invalid (an error said so) or not checked (a note said so;
// `skipped` is set).
bool geometry_checker::pick_models(const geometry_spec& g,
                                   const std::vector<const profile_request*>& items,
                                   std::vector<const gpu_model*>& models, bool& skipped) {
  bool ok = true;
  std::vector<bool> current(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    current[i] = current_anywhere(settings_.models, names_[i]);
    if (current[i]) continue;
    bool former = false;
    for (const gpu_model* m : settings_.models)
      former = former || find_profile_by_former_name(*m, names_[i]) >= 0;
    if (former) continue;
    // A name tools circulate but no driver printed ("7g.79gb") gets the real one.
    const std::string note = former_name_note(settings_.models, names_[i]);
    add(severity::error, fault::invalid, items[i]->at,
        note.empty() ? fmt::format("unknown profile '{}': no gpu in migplan's catalog has it{}",
                                   items[i]->name,
                                   did_you_mean(names_[i], all_profile_names(settings_.models)))
                     : fmt::format("unknown profile '{}': {}", items[i]->name, note));
    ok = false;
  }
  if (!ok) return false;
  const auto has_all = [&](const gpu_model& m) {
    for (std::size_t i = 0; i < items.size(); ++i)
      if ((current[i] ? find_profile(m, names_[i]) : find_profile_by_former_name(m, names_[i])) < 0)
        return false;
    return true;
  };
  const std::vector<const gpu_model*>& fleet = settings_.fleet;
  if (!fleet.empty()) {
    for (const gpu_model* m : fleet)
      if (has_all(*m)) models.push_back(m);
    if (!models.empty()) return true;
    std::vector<std::string> owners;
    for (const gpu_model* m : settings_.models)
      if (has_all(*m)) owners.emplace_back(m->slug);
    if (!owners.empty()) {
      const std::string whose =
          fmt::format("({} {})", join_and(owners), owners.size() == 1 ? "has them" : "have them");
      // Selected with -c, the label is meant for this fleet, and mig-parted
      // fails on every node of it: an error. Otherwise it is likely a label
      // for other GPUs (NVIDIA's shipped config has one per profile, most
      // without a device-filter): a note, a warning under --strict.
      if (f_.input.format == input_format::mig_parted && !settings_.configs.empty()) {
        add(severity::error, fault::invalid, g.items_at,
            fmt::format("{} entry {} applies to every gpu, and no gpu given with --gpu has all "
                        "of its profiles {}: mig-parted would fail on every node of this fleet",
                        what(g), g.entry, whose));
        return false;
      }
      add(settings_.strict ? severity::warning : severity::note, fault::invalid, g.items_at,
          fmt::format("{} entry {} is not checked: no gpu given with --gpu has all of its "
                      "profiles {}",
                      what(g), g.entry, whose));
      skipped = true;
      return false;
    }
  } else {
    for (const gpu_model* m : settings_.models)
      if (has_all(*m)) models.push_back(m);
    if (!models.empty()) return true;
  }
  std::string owners;
  std::vector<std::string> seen;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (std::find(seen.begin(), seen.end(), names_[i]) != seen.end()) continue;
    seen.push_back(names_[i]);
    std::vector<std::string> slugs;
    for (const gpu_model* m : settings_.models)
      if (current[i] ? find_profile(*m, names_[i]) >= 0
                     : find_profile_by_former_name(*m, names_[i]) >= 0)
        slugs.emplace_back(m->slug);
    owners +=
        fmt::format("{}{} ({})", owners.empty() ? "" : ", ", names_[i], fmt::join(slugs, ", "));
  }
  add(severity::error, fault::invalid, g.items_at,
      fmt::format("no single gpu has all the profiles of {}: {}", what(g), owners));
  return false;
}

}  // namespace migplan::cli::check::detail

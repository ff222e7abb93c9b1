// SPDX-License-Identifier: Apache-2.0
#include "render/inferred.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "render/json.hpp"

namespace migplan::cli::render {

std::vector<int> inferred_among(const gpu_model& g, std::span<const int> profiles) {
  std::vector<int> out;
  for (const int p : profiles)
    if (p >= 0 && static_cast<std::size_t>(p) < g.profiles.size() &&
        g.profiles[static_cast<std::size_t>(p)].inferred() &&
        std::find(out.begin(), out.end(), p) == out.end())
      out.push_back(p);
  return out;
}

std::vector<int> inferred_among(const gpu_model& g, std::span<const instance> instances) {
  std::vector<int> profiles;
  for (const instance& in : instances) profiles.push_back(in.profile);
  return inferred_among(g, std::span<const int>(profiles));
}

std::string inferred_note(const gpu_model& g, std::span<const int> inferred) {
  if (inferred.empty()) return {};
  std::string names;
  for (const int p : inferred)
    names += fmt::format("{}{}", names.empty() ? "" : ", ",
                         g.profiles[static_cast<std::size_t>(p)].name);
  return fmt::format(
      "\nnote: {} on {} {} values inferred by analogy, not captured; "
      "'migplan profiles --gpu {}' shows which\n",
      names, g.slug, inferred.size() == 1 ? "has" : "have", g.slug);
}

std::string inferred_sentence(const gpu_model& g, std::span<const int> inferred) {
  if (inferred.empty()) return {};
  std::string list;
  for (const int p : inferred) {
    const profile& pr = g.profiles[static_cast<std::size_t>(p)];
    list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", pr.name,
                        fmt::join(inferred_field_names(pr.prov.inferred), ", "));
  }
  return fmt::format(
      "Values inferred by analogy, not captured: {} on {}; 'migplan profiles --gpu {}' shows "
      "their sources.",
      list, g.slug, g.slug);
}

void write_inferred(json_writer& w, const gpu_model& g, std::span<const int> inferred,
                    bool with_gpu) {
  for (const int p : inferred) {
    const profile& pr = g.profiles[static_cast<std::size_t>(p)];
    w.begin_object();
    if (with_gpu) w.key("gpu").value(g.slug);
    w.key("profile").value(pr.name).key("fields").begin_array();
    for (std::string_view f : inferred_field_names(pr.prov.inferred)) w.value(f);
    w.end_array().end_object();
  }
}

}  // namespace migplan::cli::render

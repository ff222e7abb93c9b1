// SPDX-License-Identifier: Apache-2.0
#include "render/slurm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "render/mig_parted.hpp"
#include "slurm_names.hpp"

namespace migplan::cli::render {

std::string_view slurm_type(std::string_view profile_name) {
  return profile_name.substr(0, profile_name.find_first_of("+-"));
}

std::optional<slurm_memory_name> slurm_memory_type(const profile& p) {
  if (!p.memory_gib_x100) return std::nullopt;
  const int x100 = *p.memory_gib_x100;
  // roundl(MiB / 1024): a half rounds away from zero.
  return slurm_memory_name{fmt::format("{}g.{}gb", p.compute_slices, (x100 + 50) / 100),
                           x100 % 100 != 50};
}

std::string slurm_gpu_prefix(const gpu_model& g) {
  if (g.name().empty()) return "...";  // a model file's model with no nvidia-smi name
  return slurm::underscored(g.name().substr(0, g.name().find('-')));
}

std::string slurm_types_note(std::span<const gpu_model* const> models) {
  std::vector<std::string> examples;
  for (const gpu_model* g : models) {
    // A profile with attributes, if the model has one.
    std::string_view example = g->profiles.empty() ? "1g.10gb+me" : g->profiles.front().name;
    for (const profile& p : g->profiles)
      if (slurm_type(p.name) != p.name) {
        example = p.name;
        break;
      }
    examples.push_back(
        fmt::format("\"{}_{}\" takes {}", slurm_gpu_prefix(*g), example, slurm_type(example)));
  }
  return comment_lines(fmt::format(
      "Each MIG type is a profile's name without attributes (+me): slurmd gives a MIG device "
      "the configured type its own name contains, ignoring case ({}), so one type also counts "
      "the profile's variants and the compute instances in it, each a MIG device "
      "(src/plugins/gres/gpu/gres_gpu.c).",
      fmt::join(examples, "; ")));
}

std::string slurm_gres(const std::vector<std::pair<std::string, long long>>& counts) {
  std::string out;
  for (const auto& [type, n] : counts)
    out += fmt::format("{}gpu:{}:{}", out.empty() ? "" : ",", type, n);
  return out;
}

void slurm_add(std::vector<std::pair<std::string, long long>>& to, std::string type, long long n) {
  const auto it =
      std::find_if(to.begin(), to.end(), [&](const auto& x) { return x.first == type; });
  if (it == to.end())
    to.emplace_back(std::move(type), n);
  else
    it->second += n;
}

slurm_counts slurm_types(const gpu_model& g, const std::vector<std::pair<int, long long>>& counts) {
  slurm_counts out;
  for (const auto& [p, n] : counts) {
    out.mig_devices += n;
    const profile& pr = g.profiles[static_cast<std::size_t>(p)];
    slurm_add(out.by_profile, std::string(slurm_type(pr.name)), n);
    const auto m = slurm_memory_type(pr);
    if (!m) {
      out.unknown.emplace_back(pr.name);
      continue;
    }
    if (out.renamed.first.empty() && m->type != slurm_type(pr.name))
      out.renamed = {std::string(pr.name), m->type};
    slurm_add(out.by_memory, m->type, n);
    if (!m->exact)
      out.halves.push_back(fmt::format("{} ({}.{:02} GiB)", pr.name, *pr.memory_gib_x100 / 100,
                                       *pr.memory_gib_x100 % 100));
  }
  return out;
}

std::string slurm_memory_note(std::span<const slurm_line> lines) {
  constexpr std::string_view older =
      "slurmd of Slurm 22.05 (and, by Slurm's changelog, of 23.02 before 23.02.6) names a MIG "
      "device by its compute slices and its memory in GiB, rounded";
  std::vector<std::string> unknown, halves;
  const slurm_line* renamed = nullptr;
  bool any_mig = false;
  for (const slurm_line& l : lines) {
    for (const std::string& u : l.counts.unknown)
      if (std::find(unknown.begin(), unknown.end(), u) == unknown.end()) unknown.push_back(u);
    for (const std::string& h : l.counts.halves)
      if (std::find(halves.begin(), halves.end(), h) == halves.end()) halves.push_back(h);
    if (renamed == nullptr && !l.counts.renamed.first.empty()) renamed = &l;
    any_mig = any_mig || l.counts.mig_devices > 0;
  }
  if (!any_mig) return {};
  std::string out;
  if (renamed == nullptr && unknown.empty()) {
    out = comment_lines(
        fmt::format("{}; it names these devices alike, so the {} above serve{} it too.", older,
                    lines.size() == 1 ? "line" : "lines", lines.size() == 1 ? "s" : ""));
  } else {
    const bool any_known = std::any_of(lines.begin(), lines.end(), [](const slurm_line& l) {
      return l.counts.unknown.empty() && l.counts.mig_devices > 0;
    });
    const std::string_view then = any_known ? ". There, write:" : ".";
    if (renamed != nullptr)
      out = comment_lines(
          fmt::format("{} (\"{}_{}\" for {}){}", older, slurm_gpu_prefix(*renamed->gpu),
                      renamed->counts.renamed.second, renamed->counts.renamed.first, then));
    else
      out = comment_lines(fmt::format("{}{}", older, then));
    if (any_known)
      for (const slurm_line& l : lines)
        if (l.counts.unknown.empty())
          out += fmt::format("# {}{}\n", l.head, slurm_gres(l.counts.by_memory));
    if (!unknown.empty())
      out += comment_lines(fmt::format(
          "migplan does not know the memory of {}, so not what such a slurmd calls {}{}: read it "
          "from slurmd's log (\"MIG Profile:\", at debug2).",
          fmt::join(unknown, ", "), unknown.size() == 1 ? "it" : "them",
          lines.size() == 1 ? "" : ", and writes no line for a node that has them"));
  }
  if (!halves.empty())
    out += comment_lines(fmt::format(
        "-lgip's memory of {} ends in a half, which the MiB behind it may round either way; "
        "the names by memory assume up. If slurmd's log (\"MIG Profile:\", at debug2) says "
        "one less, write that.",
        fmt::join(halves, ", ")));
  return out;
}

}  // namespace migplan::cli::render

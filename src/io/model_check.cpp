// SPDX-License-Identifier: Apache-2.0
// The checks of a model's consistency (check_model_spec), apart from the
// reading of a model file (model_file.cpp): what the built-in catalog gets
// from data/gen_catalog.py and catalog.hpp's static_asserts, and what a
// hand-written file needs besides.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <migplan/catalog.hpp>
#include <migplan/detail/strings.hpp>
#include <span>
#include <utility>

#include "io/model_file.hpp"
#include "io/names.hpp"
#include "io/schema.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

// [a-z0-9] words joined by single '-': the slug pattern of schema/common.schema.json.
bool slug_syntax(std::string_view s) {
  if (s.empty() || s.front() == '-' || s.back() == '-') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '-') {
      if (s[i - 1] == '-') return false;
    } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
      return false;
    }
  }
  return true;
}

bool all_lower(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

bool in_catalog(const gpu_model& m) {
  const std::span<const gpu_model> all = catalog();
  return std::any_of(all.begin(), all.end(), [&](const gpu_model& c) { return &c == &m; });
}

// "the built-in model a30" or "x (loaded from a.json)": who already has a name.
std::string owner(const gpu_model& m) {
  if (in_catalog(m)) return fmt::format("the built-in model {}", m.slug);
  return fmt::format("{} ({})", m.slug, m.coverage_note);
}

std::string profile_label(const profile_spec& p, std::size_t i) {
  return profile_name_slices(p.name) > 0 ? fmt::format("profile {}", p.name)
                                         : fmt::format("profiles[{}]", i);
}

}  // namespace

// The pattern of schema/common.schema.json, which every output that names a
// profile is validated against.
int profile_name_slices(std::string_view name) {
  const std::size_t g = name.find("g.");
  if (g == std::string_view::npos || !all_digits(name.substr(0, g)) || name[0] == '0' || g > 3)
    return 0;
  std::string_view rest = name.substr(g + 2);
  const std::size_t gb = rest.find("gb");
  if (gb == std::string_view::npos || !all_digits(rest.substr(0, gb)) || rest[0] == '0') return 0;
  rest.remove_prefix(gb + 2);
  if (!rest.empty()) {
    if (rest[0] != '+' && rest[0] != '-') return 0;
    rest.remove_prefix(1);
    std::size_t from = 0;
    while (true) {
      const std::size_t dot = rest.find('.', from);
      if (!all_lower(rest.substr(from, dot == std::string_view::npos ? dot : dot - from))) return 0;
      if (dot == std::string_view::npos) break;
      from = dot + 1;
    }
  }
  int n = 0;
  for (char c : name.substr(0, g)) n = n * 10 + (c - '0');
  return n;
}

// ---------------------------------------------------------------------------
// The checks the catalog gets
// ---------------------------------------------------------------------------

std::optional<spec_problem> check_model_spec(const model_spec& spec, model_list taken) {
  const auto at = [](std::string_view key, std::string message, int profile = -1,
                     int element = -1) {
    return spec_problem{profile, key, element, std::move(message)};
  };
  const auto text = [&](std::string_view key, std::string_view value, std::string_view what,
                        int profile = -1) -> std::optional<spec_problem> {
    if (value.size() > max_text_length)
      return at(key, fmt::format("{} is longer than {} bytes", what, max_text_length), profile);
    // Control characters and invisible or direction-changing code points
    // would reach the terminal through every renderer that prints a model's
    // strings.
    if (const std::string why = doc::name_problem(value, true); !why.empty())
      return at(key, fmt::format("{} holds {}", what, why), profile);
    return std::nullopt;
  };

  // The model.
  if (spec.slug.size() > max_slug_length)
    return at("slug", fmt::format("slug {} is longer than {} bytes", quote_token(spec.slug),
                                  max_slug_length));
  if (!slug_syntax(spec.slug))
    return at("slug", fmt::format("slug {} is not a slug: lower-case letters and digits, in words "
                                  "joined by '-' (a100-40gb, my-gpu-2)",
                                  quote_token(spec.slug)));
  if (const gpu_model* m = find_model(taken, spec.slug))
    return at("slug",
              in_catalog(*m)
                  ? fmt::format("slug {} is the built-in model {}'s: a model file adds a "
                                "model and cannot replace one; choose another slug",
                                quote_token(spec.slug), m->slug)
                  : fmt::format("slug {} is taken by {}", quote_token(spec.slug), owner(*m)));
  if (spec.description.empty()) return at("description", "description is empty");
  if (auto p = text("description", spec.description, "description")) return p;
  if (spec.source.empty())
    return at("source", "source is empty: say where the tables come from (captures, driver)");
  if (auto p = text("source", spec.source, "source")) return p;

  for (std::size_t i = 0; i < spec.smi_names.size(); ++i) {
    const std::string& n = spec.smi_names[i];
    const int e = static_cast<int>(i);
    if (detail::strip_vendor(n).empty())
      return at("smi_names", fmt::format("nvidia-smi name {} is empty", quote_token(n)), -1, e);
    if (auto p = text("smi_names", n, fmt::format("nvidia-smi name {}", quote_token(n)))) {
      p->element = e;
      return p;
    }
    // The same name with and without "NVIDIA " is not a repeat: drivers
    // print both (the catalog's a100-40gb lists each, with its source).
    for (std::size_t j = 0; j < i; ++j)
      if (detail::iequals(spec.smi_names[j], n))
        return at("smi_names", fmt::format("nvidia-smi name {} is listed twice", quote_token(n)),
                  -1, e);
    if (const gpu_model* m = find_model_by_smi_name(taken, n))
      return at("smi_names",
                fmt::format("nvidia-smi name {} belongs to {}", quote_token(n), owner(*m)), -1, e);
  }
  for (std::size_t i = 0; i < spec.pci_ids.size(); ++i) {
    const std::uint32_t v = spec.pci_ids[i].value;
    const int e = static_cast<int>(i);
    if ((v & 0xFFFFu) != 0x10DEu)
      return at("pci_ids",
                fmt::format("PCI ID 0x{:08X} does not end in 10DE, NVIDIA's vendor ID (write "
                            "0xDEVICE10DE, as nvidia-smi -q prints it)",
                            v),
                -1, e);
    for (std::size_t j = 0; j < i; ++j)
      if (spec.pci_ids[j].value == v)
        return at("pci_ids", fmt::format("PCI ID 0x{:08X} is listed twice", v), -1, e);
    if (const gpu_model* m = find_model_by_full_pci(taken, v))
      return at("pci_ids", fmt::format("PCI ID 0x{:08X} belongs to {}", v, owner(*m)), -1, e);
  }
  if (spec.memory_mib && *spec.memory_mib < 1)
    return at("memory_mib", fmt::format("memory_mib {} is not a memory size", *spec.memory_mib));
  if (spec.units < 1 || spec.units > max_units)
    return at("units", fmt::format("units {} is out of range: a model has 1 to {} placement units",
                                   spec.units, max_units));
  if (spec.compute_slices < 1 || spec.compute_slices > spec.units)
    return at("compute_slices",
              fmt::format("compute_slices {} is out of range: 1 to the model's {} units",
                          spec.compute_slices, spec.units));
  if (spec.profiles.empty()) return at("profiles", "the model has no profiles");
  if (spec.profiles.size() > static_cast<std::size_t>(max_profiles))
    return at("profiles", fmt::format("{} profiles: a model has at most {}", spec.profiles.size(),
                                      max_profiles));

  // Each profile.
  const std::string last_unit = fmt::format("{} units: 0-{}", spec.units, spec.units - 1);
  for (std::size_t i = 0; i < spec.profiles.size(); ++i) {
    const profile_spec& p = spec.profiles[i];
    const int pi = static_cast<int>(i);
    const std::string who = profile_label(p, i);
    const auto bad = [&](std::string_view key, const std::string& why, int element = -1) {
      return at(key, fmt::format("{}: {}", who, why), pi, element);
    };
    if (p.name.size() > max_profile_name_length)
      return bad("name", fmt::format("the name is longer than {} bytes", max_profile_name_length));
    const int slices = profile_name_slices(p.name);
    if (slices == 0) {
      if (detail::istarts_with(p.name, "mig "))
        return bad("name", fmt::format("write the name {} without 'MIG '", quote_token(p.name)));
      return bad("name", fmt::format("{} is not a profile name as nvidia-smi prints it: <N>g.<M>gb "
                                     "in lower case, then at most one +attr or -attr (1g.10gb, "
                                     "1g.24gb+me.all, 2g.48gb-me)",
                                     quote_token(p.name)));
    }
    if (p.compute_slices != slices)
      return bad("compute_slices",
                 fmt::format("compute_slices {} disagrees with the name ({}g: {} slice{})",
                             p.compute_slices, slices, slices, plural(slices)));
    if (p.compute_slices > spec.compute_slices)
      return bad("compute_slices", fmt::format("compute_slices {} is more than the model's {}",
                                               p.compute_slices, spec.compute_slices));
    if (p.id < 0) return bad("id", fmt::format("id {} is negative", p.id));
    if (p.size < 1 || p.size > spec.units)
      return bad("size",
                 fmt::format("size {} is out of range: 1 to the model's {}", p.size, last_unit));
    if (p.starts.empty()) return bad("starts", "starts is empty: a profile starts somewhere");
    for (std::size_t k = 0; k < p.starts.size(); ++k) {
      const int s = p.starts[k];
      const int e = static_cast<int>(k);
      if (s < 0 || s >= spec.units)
        return bad("starts",
                   fmt::format("start {} is not a placement unit of the model ({})", s, last_unit),
                   e);
      if (s + p.size > spec.units)
        return bad("starts",
                   fmt::format("start {} with size {} ends at unit {}, past the model's last ({})",
                               s, p.size, s + p.size - 1, last_unit),
                   e);
      if (std::find(p.starts.begin(), p.starts.begin() + e, s) != p.starts.begin() + e)
        return bad("starts", fmt::format("start {} is listed twice", s), e);
    }
    const int n = p.max_instances;
    if (n < 1) return bad("max_instances", fmt::format("max_instances {} is less than 1", n));
    // "Total" instances coexist on an empty GPU, so they have starts and fit both budgets.
    if (static_cast<std::size_t>(n) > p.starts.size())
      return bad("max_instances", fmt::format("max_instances {} is more than its {} start{}", n,
                                              p.starts.size(), plural(p.starts.size())));
    if (n * p.size > spec.units)
      return bad("max_instances",
                 fmt::format("max_instances {} of {} unit{} each need {} units; the model has {}",
                             n, p.size, plural(p.size), n * p.size, spec.units));
    if (n * p.compute_slices > spec.compute_slices)
      return bad("max_instances", fmt::format("max_instances {} of {} compute slice{} each need {} "
                                              "compute slices; the model has {}",
                                              n, p.compute_slices, plural(p.compute_slices),
                                              n * p.compute_slices, spec.compute_slices));
    if (p.memory_gib_x100 && *p.memory_gib_x100 < 0)
      return bad("memory_gib", "memory_gib is negative");
    if (p.sm_count && *p.sm_count < 1)
      return bad("sm_count", fmt::format("sm_count {} is less than 1", *p.sm_count));
    if (!p.min_driver.empty() &&
        (p.min_driver.size() < 2 || p.min_driver[0] != 'R' || !all_digits(p.min_driver.substr(1))))
      return bad("min_driver", fmt::format("min_driver {} is not a driver branch such as R525",
                                           quote_token(p.min_driver)));
    for (const auto& [key, value] :
         {std::pair<std::string_view, const std::string*>{"source", &p.source},
          {"placements_source", &p.placements_source},
          {"notes", &p.notes}}) {
      if (auto problem = text(key, *value, fmt::format("{}: {}", who, key), pi)) return problem;
    }
    for (std::size_t j = 0; j < i; ++j) {
      const profile_spec& q = spec.profiles[j];
      if (detail::iequals(q.name, p.name))
        return bad("name",
                   fmt::format("the name is given twice (profiles[{}] and profiles[{}])", j, i));
      if (q.id == p.id) return bad("id", fmt::format("id {} is also profile {}'s", p.id, q.name));
    }
  }

  // The model as a whole: what catalog.hpp's static_asserts demand.
  bool full = false;
  std::size_t placements = 0;
  for (const profile_spec& p : spec.profiles) {
    full = full || (p.size == spec.units && p.compute_slices == spec.compute_slices);
    placements += p.starts.size();
  }
  if (!full)
    return at("profiles", fmt::format("no full-GPU profile: none takes all {} units and all {} "
                                      "compute slices",
                                      spec.units, spec.compute_slices));
  if (placements > max_placements)
    return at("profiles", fmt::format("the profiles have {} placements (profile and start pairs); "
                                      "migplan plans on at most {}",
                                      placements, max_placements));
  return std::nullopt;
}

}  // namespace migplan::cli

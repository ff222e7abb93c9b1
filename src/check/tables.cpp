// SPDX-License-Identifier: Apache-2.0
// Which GPU models each entry of a HAMi device config's knownMigGeometries is
// for, as HAMi and Volcano pick them: a GPU's type is "NVIDIA-" and its NVML
// name (the name nvidia-smi prints; HAMi's device plugin registers
// fmt.Sprintf("%v-%v", "NVIDIA", Model)); an entry is for the GPU when one of
// its `models` is a substring of that type (Go's strings.Contains: case
// counts); and the first such entry in the list is the one the GPU gets
// (HAMi pkg/device/nvidia GetNodeDevices, Volcano extractGeometryFromType).
// So "H20" is also in "NVIDIA-NVIDIA H200", and an entry for H20 listed
// before one for H200 gives H200 GPUs the H20 templates.

#include <fmt/format.h>

#include <algorithm>
#include <migplan/lookup.hpp>
#include <utility>

#include "check/checker.hpp"
#include "io/check_input.hpp"
#include "io/names.hpp"
#include "text.hpp"

namespace migplan::cli::check {
namespace {

std::string type_of(std::string_view smi_name) { return fmt::format("NVIDIA-{}", smi_name); }

// A finding about an entry (not one of its geometries): the file's, naming the entry.
void add_to(file_check& f, severity s, location at, std::string message) {
  f.diagnostics.push_back(file_diagnostic(s, fault::invalid, at, std::move(message)));
}

// The words of a name, lower case: "A100-80GB-PCIe" -> a100, 80gb, pcie.
std::vector<std::string> words_of(std::string_view s) {
  std::vector<std::string> out;
  std::string w;
  for (const char c : s) {
    if (c == ' ' || c == '-' || c == '_') {
      if (!w.empty()) out.push_back(std::exchange(w, {}));
    } else {
      w += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
  }
  if (!w.empty()) out.push_back(w);
  return out;
}

// A type to show beside a model string in no type: the one sharing the most
// words with it, its first word (the GPU: "H100" of "H100-PCIE-80GB") counting
// twice ("NVIDIA-NVIDIA A100 80GB PCIe" for "A100-80GB-PCIe"), the first of
// those tied.
std::string nearest_type(std::string_view model, const std::vector<std::string>& types) {
  const std::vector<std::string> mine = words_of(model);
  std::string best = types.empty() ? std::string() : types.front();
  std::size_t most = 0;
  for (const std::string& t : types) {
    std::size_t shared = 0;
    for (const std::string& w : words_of(t))
      for (std::size_t i = 0; i < mine.size(); ++i)
        if (mine[i] == w) shared += i == 0 ? 2 : 1;
    if (shared > most) {
      most = shared;
      best = t;
    }
  }
  return best;
}

}  // namespace

std::vector<std::vector<table_target>> table_targets(file_check& f, const check_settings& s) {
  const std::vector<table_entry>& table = f.input.table;
  std::vector<std::vector<table_target>> won(table.size());
  // Per entry and model string: the types it is in, and the entries that came first for them.
  struct use {
    std::vector<std::string> slugs;
    std::vector<int> earlier;
    bool wins = false;
  };
  std::vector<std::vector<use>> uses(table.size());
  for (std::size_t i = 0; i < table.size(); ++i) uses[i].resize(table[i].models.size());
  std::vector<std::string> all_types;
  std::vector<std::pair<const gpu_model*, std::string>> for_none;  // (model, a type of it)
  int groups = 0;
  for (const table_entry& e : table) groups = std::max(groups, e.group + 1);
  for (const gpu_model* m : s.models)
    for (std::string_view name : m->smi_names) all_types.push_back(type_of(name));
  // The entry of one device config (`group`) each type of `m` gets; false when none.
  const auto match = [&](int group, const gpu_model* m) {
    bool any_entry = false;
    for (std::string_view name : m->smi_names) {
      const std::string type = type_of(name);
      int winner = -1;
      for (std::size_t i = 0; i < table.size(); ++i) {
        if (table[i].broken || table[i].group != group) continue;
        bool matched = false;
        for (std::size_t k = 0; k < table[i].models.size(); ++k) {
          if (type.find(table[i].models[k].text) == std::string::npos) continue;
          use& u = uses[i][k];
          if (std::find(u.slugs.begin(), u.slugs.end(), m->slug) == u.slugs.end())
            u.slugs.emplace_back(m->slug);
          matched = true;
          if (winner >= 0) {
            if (std::find(u.earlier.begin(), u.earlier.end(), winner) == u.earlier.end())
              u.earlier.push_back(winner);
            continue;
          }
          u.wins = true;
          auto& t = won[i];
          if (std::none_of(t.begin(), t.end(), [&](const table_target& x) { return x.gpu == m; }))
            t.push_back({m, table[i].models[k].text, type});
        }
        if (matched && winner < 0) winner = static_cast<int>(i);
      }
      any_entry = any_entry || winner >= 0;
    }
    return any_entry;
  };
  // Each device config of the file is a list of its own (a manifest may hold several).
  for (int group = 0; group < groups; ++group)
    for (const gpu_model* m : s.models)
      if (!match(group, m) && !m->smi_names.empty() &&
          std::none_of(for_none.begin(), for_none.end(),
                       [&](const auto& x) { return x.first == m; }))
        for_none.emplace_back(m, type_of(m->smi_names.front()));
  for (std::size_t i = 0; i < table.size(); ++i) {
    for (std::size_t k = 0; k < table[i].models.size(); ++k) {
      const table_entry::model_text& mt = table[i].models[k];
      const use& u = uses[i][k];
      const std::string& label = table[i].label;
      if (mt.text.empty()) {
        add_to(f, severity::warning, mt.at,
               fmt::format("an empty model is in every GPU's type: {} is for every GPU no entry "
                           "before it matches",
                           label));
      } else if (u.slugs.empty()) {
        const std::string example = nearest_type(mt.text, all_types);
        add_to(f, severity::warning, mt.at,
               fmt::format("model '{}' is in the type of no GPU migplan knows, so it gives {} "
                           "none: a GPU's type is \"NVIDIA-\" and its name as nvidia-smi "
                           "prints it (such as \"{}\"), and case counts",
                           clip(mt.text), label, example));
      } else if (!u.wins) {
        std::vector<std::string> first;
        for (int e : u.earlier) first.push_back(table[static_cast<std::size_t>(e)].label);
        add_to(
            f, severity::warning, mt.at,
            fmt::format("model '{}' never gives {} a GPU: {} {} first for {}", clip(mt.text), label,
                        join_and(first), first.size() == 1 ? "comes" : "come", join_and(u.slugs)));
      }
    }
  }
  // With a fleet: its models no entry is for get no MIG geometry from the scheduler.
  for (const auto& [m, type] : for_none) {
    if (std::find(s.fleet.begin(), s.fleet.end(), m) == s.fleet.end()) continue;
    add_to(f, severity::warning, {},
           fmt::format("no entry of knownMigGeometries is for {} (type \"{}\"): the scheduler "
                       "gives its GPUs no MIG geometry",
                       m->slug, type));
  }
  return won;
}

void check_template_memory(file_check& f, const geometry_spec& g, const gpu_model& gpu) {
  for (const profile_request& r : g.items) {
    if (!r.memory_mib) continue;
    int p = find_profile(gpu, r.name);
    if (p < 0) p = find_profile_by_former_name(gpu, r.name);
    if (p < 0) continue;  // the unknown name has its error
    const profile& pr = gpu.profiles[static_cast<std::size_t>(p)];
    if (!pr.memory_gib_x100) continue;
    // -lgip rounds to 1/100 GiB: the profile has at most (x100 + 1/2) / 100 GiB.
    const long long most_x200_mib = (2LL * *pr.memory_gib_x100 + 1) * 1024;
    if (*r.memory_mib * 200 <= most_x200_mib) continue;
    f.diagnostics.push_back(check_diagnostic(
        severity::note, fault::invalid, r.memory_at,
        fmt::format("memory {} MiB is more than {} has on {} ({:.2f} GiB, about {} MiB, as "
                    "nvidia-smi mig -lgip lists it): a pod the scheduler fits to this template "
                    "by memory gets less",
                    *r.memory_mib, pr.name, gpu.slug, *pr.memory_gib_x100 / 100.0,
                    (*pr.memory_gib_x100 * 1024 + 50) / 100),
        {}, g.label, g.entry));
  }
}

}  // namespace migplan::cli::check

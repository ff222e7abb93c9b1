// SPDX-License-Identifier: Apache-2.0
#include "messages.hpp"

#include <fmt/format.h>

#include <map>
#include <span>
#include <string_view>
#include <vector>

#include "text.hpp"

namespace migplan::cli {
namespace {

std::string names_of(const gpu_model& gpu, const std::vector<int>& ps) {
  std::string out;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (i > 0) out += i + 1 == ps.size() ? " and " : ", ";
    out += prof(gpu, ps[i]).name;
  }
  return out;
}

// "7 x 1g.10gb (1 unit each) + 1 x 1g.20gb (2 units)": how `profiles` add
// up to `total`, each profile's count taken from `items` and its share from
// `per`; "" when they do not add up to `total` (then the caller says less).
template <class Per>
std::string sum_text(const gpu_model& gpu, const std::vector<int>& profiles,
                     std::span<const item> items, std::string_view what, long long total, Per per) {
  std::string out;
  long long sum = 0;
  for (int p : profiles) {
    long long n = 0;
    for (const item& it : items) n += it.profile == p ? 1 : 0;
    const long long each = per(prof(gpu, p));
    sum += n * each;
    if (!out.empty()) out += " + ";
    out += fmt::format("{} x {} ({} {}{}{})", n, prof(gpu, p).name, each, what, plural(each),
                       n == 1 ? "" : " each");
  }
  return sum == total && !profiles.empty() ? out : std::string();
}

std::string starts_text(unit_mask m) {
  std::string out;
  for (int s = 0; s < max_units; ++s)
    if ((m >> s) & 1u) out += fmt::format("{}{}", out.empty() ? "" : ",", s);
  return "{" + out + "}";
}

}  // namespace

std::string item_text(const gpu_model& gpu, const item& it) {
  if (it.start == item::any_start) return std::string(prof(gpu, it.profile).name);
  return fmt::format("{}@{}", prof(gpu, it.profile).name, it.start);
}

std::string items_text(const gpu_model& gpu, std::span<const item> items) {
  // Keep first-seen order; group equal items as "Nx".
  std::vector<std::pair<item, int>> groups;
  for (const item& it : items) {
    bool found = false;
    for (auto& [g, n] : groups)
      if (g == it) {
        ++n;
        found = true;
        break;
      }
    if (!found) groups.emplace_back(it, 1);
  }
  std::string out;
  for (const auto& [g, n] : groups) {
    if (!out.empty()) out += ' ';
    if (n > 1) out += fmt::format("{}x", n);
    out += item_text(gpu, g);
  }
  return out;
}

std::string layout_text(const gpu_model& gpu, const layout& l) {
  std::string out;
  for (const instance& in : l) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{}@{}", prof(gpu, in.profile).name, in.start);
  }
  return out;
}

std::string describe(const gpu_model& gpu, const reason& why) {
  switch (why.code) {
    case reason_code::none:
      return "it fits";
    case reason_code::instance_cap: {
      // Each profile over its cap with its own count, where the reason has it.
      std::string out;
      for (std::size_t i = 0; i < why.profiles.size(); ++i) {
        const profile& p = prof(gpu, why.profiles[i]);
        if (!out.empty()) out += "; ";
        out += fmt::format("{} allows at most {} instance{} on {}", p.name, p.max_instances,
                           plural(p.max_instances), gpu.slug);
        if (i < why.counts.size()) out += fmt::format(" (the request has {})", why.counts[i]);
      }
      return out;
    }
    case reason_code::bad_start: {
      std::string out;
      for (const item& it : why.conflict) {
        if (!out.empty()) out += "; ";
        const profile& p = prof(gpu, it.profile);
        out += fmt::format("{} cannot start at unit {} on {}: its allowed starts are {}", p.name,
                           it.start, gpu.slug, starts_text(p.starts));
      }
      return out;
    }
    case reason_code::memory_units:
      return fmt::format("{} need {} placement units but {} has {}", names_of(gpu, why.profiles),
                         why.needed, gpu.slug, why.available);
    case reason_code::compute_slices:
      return fmt::format("{} need {} compute slices but {} has {}", names_of(gpu, why.profiles),
                         why.needed, gpu.slug, why.available);
    case reason_code::engines:
      return fmt::format(
          "{} need {} {} engines together but {} has {} (the full-GPU profile's count); "
          "they cannot coexist",
          names_of(gpu, why.profiles), why.needed,
          engine_names[static_cast<std::size_t>(why.engine)], gpu.slug, why.available);
    case reason_code::placement: {
      if (why.conflict.empty())
        return fmt::format("the totals fit but no arrangement of the allowed starts on {} does",
                           gpu.slug);
      return fmt::format(
          "the totals fit but no arrangement of the allowed starts on {} does: {} cannot be "
          "placed together",
          gpu.slug, items_text(gpu, why.conflict));
    }
  }
  return {};
}

std::string describe(const gpu_model& gpu, const reason& why, std::span<const item> items) {
  std::string sum;
  switch (why.code) {
    case reason_code::memory_units:
      sum = sum_text(gpu, why.profiles, items, "unit", why.needed,
                     [](const profile& p) { return p.size; });
      if (sum.empty()) break;
      return fmt::format("{} = {} placement units but {} has {}", sum, why.needed, gpu.slug,
                         why.available);
    case reason_code::compute_slices:
      sum = sum_text(gpu, why.profiles, items, "slice", why.needed,
                     [](const profile& p) { return p.compute_slices; });
      if (sum.empty()) break;
      return fmt::format("{} = {} compute slices but {} has {}", sum, why.needed, gpu.slug,
                         why.available);
    case reason_code::engines: {
      if (why.engine < 0 || static_cast<std::size_t>(why.engine) >= engine_kinds) break;
      const auto e = static_cast<std::size_t>(why.engine);
      const std::string what = fmt::format("{} engine", engine_names[e]);
      sum = sum_text(gpu, why.profiles, items, what, why.needed,
                     [e](const profile& p) { return p.engines[e].value_or(0); });
      if (sum.empty()) break;
      return fmt::format(
          "{} = {} {} engines together but {} has {} (the full-GPU profile's count); they "
          "cannot coexist",
          sum, why.needed, engine_names[e], gpu.slug, why.available);
    }
    default:
      break;
  }
  return describe(gpu, why);
}

std::string why_not_fits(const gpu_model& gpu, std::span<const item> items) {
  reason why = check_totals(rules(gpu), items);
  if (why.code == reason_code::none) {
    why.code = reason_code::placement;
    why = explain(gpu, items, why);
  }
  return describe(gpu, why, items);
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file configs.hpp
/// The geometries a generated mig-parted config offers for a model, in the
/// manner of mig-parted's shipped config-default.yaml: each profile alone at
/// the most instances one GPU holds, and one balanced mix.

#include <algorithm>
#include <array>
#include <migplan/enumerate.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/search.hpp>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

namespace migplan {
inline namespace v1 {

/// The most instances of profile `p` alone that one GPU holds, by the search
/// (not `max_instances` alone: the units or the engines may allow fewer); 0
/// when not even one fits.
inline int most_alone(const gpu_model& gpu, int p) {
  const profile& pr = gpu.profiles[static_cast<std::size_t>(p)];
  for (int n = std::max(pr.max_instances, 0); n > 0; --n) {
    const std::vector<item> items(static_cast<std::size_t>(n), item{p, item::any_start});
    if (fits(rules(gpu), items)) return n;
  }
  return 0;
}

/// True for a profile without an attribute suffix: "1g.10gb" but not
/// "1g.10gb+me", "1g.24gb-me" or "2g.48gb+gfx".
constexpr bool plain_profile(const profile& p) noexcept {
  return p.name.find_first_of("+-") == std::string_view::npos;
}

/// The balanced geometry: of the feasible geometries made of plain profiles
/// only, the one that uses the most compute slices, then has the most
/// distinct compute sizes ("g"), then the most instances, then the fewest
/// placement units; remaining ties go to the geometry enumerate() lists
/// first. On every model with an NVIDIA all-balanced entry this is that
/// entry's geometry (2 x 1g + 2g + 3g on 8-unit boards, 2 x 1g + 2g on A30 and
/// RTX PRO 6000). Empty when the model has no plain profile.
inline std::optional<profile_counts> balanced_geometry(const gpu_model& gpu) {
  std::optional<profile_counts> best;
  std::tuple<int, int, int, int> best_key{};
  for (const geometry& g : enumerate(gpu).geometries) {
    bool plain = true;
    int compute = 0, instances = 0, units = 0;
    std::array<bool, max_units + 1> sizes{};
    for (std::size_t p = 0; p < gpu.profiles.size(); ++p) {
      const int n = g.counts[static_cast<int>(p)];
      if (n == 0) continue;
      const profile& pr = gpu.profiles[p];
      if (!plain_profile(pr)) plain = false;
      compute += n * pr.compute_slices;
      instances += n;
      units += n * pr.size;
      if (pr.compute_slices >= 0 && pr.compute_slices <= max_units)
        sizes[static_cast<std::size_t>(pr.compute_slices)] = true;
    }
    if (!plain) continue;
    const int distinct = static_cast<int>(std::count(sizes.begin(), sizes.end(), true));
    const std::tuple<int, int, int, int> key{compute, distinct, instances, -units};
    if (!best || key > best_key) {
      best = g.counts;
      best_key = key;
    }
  }
  return best;
}

}  // namespace v1
}  // namespace migplan

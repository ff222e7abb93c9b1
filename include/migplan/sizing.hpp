// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file sizing.hpp
/// Sizing: the smallest profile that meets a per-instance need, how many of it
/// one GPU holds, how many GPUs a number of instances needs, and what that strands.

#include <cstdint>
#include <migplan/capacity.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/rules.hpp>
#include <migplan/search.hpp>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

namespace migplan {
inline namespace v1 {

/// A per-instance need.
struct need {
  std::int64_t memory_mib = 0;  ///< memory per instance, MiB
  std::optional<int> sms;       ///< SMs per instance, if it matters
  std::int64_t instances = 1;   ///< instances wanted in all
};

/// The answer to a sizing question.
struct sizing {
  int profile = -1;           ///< chosen profile index; -1 when none is big enough
  int largest = -1;           ///< considered: most memory, then compute slices, then units
  std::vector<int> unknown;   ///< profiles skipped because their memory or SMs are unknown
  int per_gpu = 0;            ///< instances of the profile one GPU holds
  std::int64_t gpus = 0;      ///< GPUs needed for `instances`
  std::int64_t last_gpu = 0;  ///< instances on the last GPU (== per_gpu when it divides)
  scored_layout full_gpu;     ///< preferred layout of per_gpu instances
  stranded strands;           ///< what a full GPU of them strands
};

namespace detail {
// floor(a / b) for b > 0; `/` truncates towards zero.
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  return a / b - (a % b < 0 ? 1 : 0);
}
}  // namespace detail

/// True when a profile meets the need; unknown values never meet it.
/// Memory compares the -lgip GiB figure exactly: need_mib / 1024 <= GiB.
constexpr bool meets(const profile& p, const need& n) noexcept {
  if (!p.memory_gib_x100) return false;
  // need_mib * 100 <= GiB_x100 * 1024 holds for an integer need exactly when
  // need_mib <= floor(GiB_x100 * 1024 / 100); that form cannot overflow for
  // any int64 need (an int times 1024 fits easily).
  const std::int64_t most_mib = detail::floor_div(std::int64_t{*p.memory_gib_x100} * 1024, 100);
  if (n.memory_mib > most_mib) return false;
  if (n.sms && (!p.sm_count || *p.sm_count < *n.sms)) return false;
  return true;
}

/// The smallest profile meeting `n`: fewest units, then fewest compute
/// slices, then the most instances per GPU, then catalog order.
inline sizing size_for(const gpu_model& gpu, const need& n) {
  sizing out;
  const rules r(gpu);
  std::vector<int> per(gpu.profiles.size(), 0);
  for (std::size_t i = 0; i < gpu.profiles.size(); ++i) {
    const profile& p = gpu.profiles[i];
    const int pi = static_cast<int>(i);
    const bool considered = p.memory_gib_x100 && (!n.sms || p.sm_count);
    if (!considered) out.unknown.push_back(pi);
    // Profiles of one memory size differ in compute (b200's 1g.45gb and
    // 2g.45gb): the largest is the one with the most of it, then the most units.
    const auto bigness = [](const profile& q) {
      return std::tuple(*q.memory_gib_x100, q.compute_slices, q.size);
    };
    if (considered && (out.largest < 0 ||
                       bigness(p) > bigness(gpu.profiles[static_cast<std::size_t>(out.largest)])))
      out.largest = pi;
    if (!meets(p, n)) continue;
    // Instances of p alone on an empty GPU: the cap bounds the search.
    const std::vector<item> alone(static_cast<std::size_t>(p.max_instances), item{pi});
    int k = p.max_instances;
    while (k > 0 && !fits(r, std::span<const item>(alone.data(), static_cast<std::size_t>(k)))) --k;
    per[i] = k;
    if (k == 0) continue;
    if (out.profile < 0) {
      out.profile = pi;
      continue;
    }
    const profile& b = gpu.profiles[static_cast<std::size_t>(out.profile)];
    auto key = [&](const profile& q, int qk) { return std::tuple(q.size, q.compute_slices, -qk); };
    if (key(p, k) < key(b, per[static_cast<std::size_t>(out.profile)])) out.profile = pi;
  }
  if (out.profile < 0) return out;
  out.per_gpu = per[static_cast<std::size_t>(out.profile)];
  const std::int64_t want = n.instances < 1 ? 1 : n.instances;
  // Ceiling division without forming want + per_gpu - 1, which overflows near INT64_MAX.
  out.gpus = want / out.per_gpu + (want % out.per_gpu != 0 ? 1 : 0);
  out.last_gpu = want - (out.gpus - 1) * out.per_gpu;
  const std::vector<item> full(static_cast<std::size_t>(out.per_gpu), item{out.profile});
  solve_options one;
  one.max_layouts = 1;
  out.full_gpu = solve(gpu, full, one).layouts.front();
  out.strands = stranded_of(gpu, out.full_gpu.left);
  return out;
}

}  // namespace v1
}  // namespace migplan

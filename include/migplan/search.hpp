// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file search.hpp
/// Exact, exhaustive placement search over unit bitmasks.
///
/// A request is a multiset of profiles, some with pinned starts. Two layouts
/// are the same when they place the same profiles at the same starts
/// (instances of one profile are interchangeable), so a layout is a set of
/// (profile, start) pairs and `layout_count` counts those sets. The rules are
/// in rules.hpp; the multiset-level ones (caps, compute, engines, units) are
/// checked first, and only the placement itself is searched.

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <migplan/capacity.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/rules.hpp>
#include <span>
#include <string_view>
#include <vector>

namespace migplan {
inline namespace v1 {

/// Why a request does not fit. Checked in this order; the first that applies wins.
enum class reason_code : std::uint8_t {
  none,            ///< it fits
  instance_cap,    ///< more instances of a profile than its cap
  bad_start,       ///< a pinned start is not an allowed start of its profile
  memory_units,    ///< the instances need more placement units than the GPU has
  compute_slices,  ///< the compute slices sum to more than the GPU's
  engines,         ///< a copy/media engine kind is over the full-GPU budget
  placement,       ///< the totals fit but no arrangement of the allowed starts does
};

/// The stable name of a reason code, as JSON outputs and messages print it
/// ("instance_cap", "placement", ...; "" for none).
constexpr std::string_view reason_name(reason_code code) noexcept {
  switch (code) {
    case reason_code::none:
      return "";
    case reason_code::instance_cap:
      return "instance_cap";
    case reason_code::bad_start:
      return "bad_start";
    case reason_code::memory_units:
      return "memory_units";
    case reason_code::compute_slices:
      return "compute_slices";
    case reason_code::engines:
      return "engines";
    case reason_code::placement:
      return "placement";
  }
  return "";
}

/// The reason a request does not fit, with the evidence.
struct reason {
  reason_code code = reason_code::none;  ///< what failed
  std::vector<int> profiles;             ///< profile indices involved
  std::vector<int> counts;     ///< instance_cap: the request's instances of each of `profiles`
  int needed = 0;              ///< what the request needs of the failing resource
  int available = 0;           ///< what the GPU has of it
  int engine = -1;             ///< engine kind for reason_code::engines
  std::vector<item> conflict;  ///< the offending items (bad_start, placement)
};

namespace detail {

inline void add_unique(std::vector<int>& v, int x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

}  // namespace detail

/// Checks the multiset-level rules and pinned starts (everything but the
/// arrangement) of `items` on the model of `r`. One pass over the items
/// counts them per profile; the rules then see only the counts, so a huge
/// count costs that pass and nothing more.
inline reason check_totals(const rules& r, std::span<const item> items) {
  const gpu_model& gpu = *r.gpu;
  assert(detail::valid_profiles(gpu, items));
  reason out;
  profile_counts c;
  for (const item& it : items) ++c[it.profile];
  for (std::size_t p = 0; p < gpu.profiles.size(); ++p) {
    const int pi = static_cast<int>(p);
    if (rules::within_cap(gpu.profiles[p], c[pi])) continue;
    if (out.code == reason_code::none) {
      out.code = reason_code::instance_cap;
      out.needed = c[pi];
      out.available = gpu.profiles[p].max_instances;
    }
    out.profiles.push_back(pi);
    out.counts.push_back(c[pi]);
  }
  if (out.code != reason_code::none) return out;
  for (const item& it : items) {
    const profile& p = gpu.profiles[static_cast<std::size_t>(it.profile)];
    if (it.start != item::any_start && !p.allows_start(it.start)) {
      out.code = reason_code::bad_start;
      detail::add_unique(out.profiles, it.profile);
      out.conflict.push_back(it);
    }
  }
  if (out.code != reason_code::none) return out;
  const breach b = r.first_breach(totals_of(gpu, c));
  switch (b.rule) {
    case aggregate::none:
      return out;
    case aggregate::units:
      out.code = reason_code::memory_units;
      break;
    case aggregate::compute:
      out.code = reason_code::compute_slices;
      break;
    case aggregate::engines:
      out.code = reason_code::engines;
      out.engine = b.engine;
      break;
  }
  // Every count is within its cap here, so the totals are small; the clamp
  // only keeps a hand-made model's absurd values from wrapping.
  out.needed = static_cast<int>(std::min<long long>(b.needed, std::numeric_limits<int>::max()));
  out.available = b.available;
  out.profiles.reserve(gpu.profiles.size());  // one allocation: `pack --batch` meets this often
  for (std::size_t p = 0; p < gpu.profiles.size(); ++p) {
    if (c[static_cast<int>(p)] == 0) continue;
    // An engine total names only the profiles that have engines of that kind.
    if (b.rule == aggregate::engines &&
        gpu.profiles[p].engines[static_cast<std::size_t>(b.engine)].value_or(0) == 0)
      continue;
    out.profiles.push_back(static_cast<int>(p));
  }
  return out;
}

namespace detail {

struct group {
  int profile;
  int count;
};

// Chooses `left` more starts of group g (in increasing start order, from
// `from`), then moves to the next group. Calls f(layout) for each complete
// layout; stops early when f returns false.
template <class F>
bool place(const gpu_model& gpu, const std::vector<group>& groups, std::size_t g, int left,
           int from, unit_mask used, layout& l, F& f) {
  if (left == 0) {
    if (g + 1 == groups.size()) return f(static_cast<const layout&>(l));
    return place(gpu, groups, g + 1, groups[g + 1].count, 0, used, l, f);
  }
  const profile& p = gpu.profiles[static_cast<std::size_t>(groups[g].profile)];
  for (int s = from; s + p.size <= gpu.units; ++s) {
    if (!p.allows_start(s)) continue;
    const unit_mask m = p.mask_at(s);
    if ((used & m) != 0) continue;
    l.add({groups[g].profile, s});
    const bool go_on = place(gpu, groups, g, left - 1, s + 1, used | m, l, f);
    l.remove({groups[g].profile, s});
    if (!go_on) return false;
  }
  return true;
}

}  // namespace detail

/// Calls f(const layout&) for every distinct layout of `items` under rules 1
/// and 2 only (the caller checks totals first), in no particular order; f
/// returns false to stop. Returns false when stopped early.
template <class F>
bool for_each_layout(const gpu_model& gpu, std::span<const item> items, F&& f) {
  assert(detail::valid_profiles(gpu, items));
  layout l;
  unit_mask used = 0;
  profile_counts free_counts;
  for (const item& it : items) {
    if (it.start == item::any_start) {
      ++free_counts[it.profile];
      continue;
    }
    const profile& p = gpu.profiles[static_cast<std::size_t>(it.profile)];
    if (!p.allows_start(it.start) || it.start + p.size > gpu.units) return true;
    const unit_mask m = p.mask_at(it.start);
    if ((used & m) != 0) return true;
    used |= m;
    l.add({it.profile, it.start});
  }
  std::vector<detail::group> groups;
  for (int p = 0; p < static_cast<int>(gpu.profiles.size()); ++p)
    if (free_counts[p] > 0) groups.push_back({p, free_counts[p]});
  // Largest instances first: they have the fewest starts, so the tree stays narrow.
  std::stable_sort(groups.begin(), groups.end(),
                   [&](const detail::group& a, const detail::group& b) {
                     return gpu.profiles[static_cast<std::size_t>(a.profile)].size >
                            gpu.profiles[static_cast<std::size_t>(b.profile)].size;
                   });
  if (groups.empty()) return f(static_cast<const layout&>(l));
  return detail::place(gpu, groups, 0, groups[0].count, 0, used, l, f);
}

/// True when `items` fits on the model of `r`.
inline bool fits(const rules& r, std::span<const item> items) {
  if (check_totals(r, items).code != reason_code::none) return false;
  bool found = false;
  for_each_layout(*r.gpu, items, [&](const layout&) {
    found = true;
    return false;
  });
  return found;
}

/// A layout with its preference score.
struct scored_layout {
  layout where;  ///< the instances, by start
  score rank;    ///< higher is preferred
  room left;     ///< the room it leaves
};

/// Options for solve().
struct solve_options {
  /// Most layouts to return (all are still counted); 0 returns none.
  std::size_t max_layouts = static_cast<std::size_t>(-1);
  /// Score every layout and put the preferred first. Without it the layouts
  /// come in canonical order and `rank`/`left` are empty.
  bool rank = true;
  /// Optional memo of rooms for this model, reused across calls (see room_memo).
  room_memo* memo = nullptr;
};

/// The answer to a request.
struct solution {
  std::uint64_t layout_count = 0;      ///< distinct layouts; 0 when it does not fit
  std::vector<scored_layout> layouts;  ///< preferred first, then by score, then canonical
  reason why;                          ///< reason_code::none when it fits
  /// True when at least one layout exists.
  bool feasible() const noexcept { return layout_count > 0; }
};

/// Solves a request exactly: counts every distinct layout and returns them,
/// the one that keeps the most room first (see score), or the reason none exists.
inline solution solve(const gpu_model& gpu, std::span<const item> items,
                      const solve_options& opt = {}) {
  assert(detail::valid_profiles(gpu, items));
  const rules r(gpu);
  solution out;
  out.why = check_totals(r, items);
  if (out.why.code != reason_code::none) return out;
  std::vector<layout> all;
  for_each_layout(gpu, items, [&](const layout& l) {
    ++out.layout_count;
    all.push_back(l);
    return true;
  });
  if (out.layout_count == 0) {
    out.why.code = reason_code::placement;
    return out;  // explain.hpp finds the smallest conflicting subset
  }
  std::sort(all.begin(), all.end());
  out.layouts.reserve(all.size());
  if (opt.rank) {
    assert(opt.memo == nullptr || &opt.memo->gpu() == &gpu);
    const std::vector<instance> places = opt.memo ? std::vector<instance>{} : all_placements(gpu);
    for (const layout& l : all) {
      const room rm = opt.memo ? opt.memo->get(l) : room_of(gpu, r, places, l);
      out.layouts.push_back({l, score_of(rm), rm});
    }
    std::stable_sort(
        out.layouts.begin(), out.layouts.end(),
        [](const scored_layout& a, const scored_layout& b) { return a.rank > b.rank; });
  } else {
    for (const layout& l : all) out.layouts.push_back({l, {}, {}});
  }
  if (out.layouts.size() > opt.max_layouts) out.layouts.resize(opt.max_layouts);
  return out;
}

}  // namespace v1
}  // namespace migplan

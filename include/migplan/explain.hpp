// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file explain.hpp
/// Why a request does not fit, and what comes closest: the smallest
/// conflicting subset of a placement failure, the largest sub-requests that
/// do fit, and the other catalog models it fits on.

#include <algorithm>
#include <cassert>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/lookup.hpp>
#include <migplan/rules.hpp>
#include <migplan/search.hpp>
#include <optional>
#include <span>
#include <vector>

namespace migplan {
inline namespace v1 {

/// A sub-request that fits: what was dropped and the preferred layout of the rest.
struct closest_fit {
  std::vector<item> drop;  ///< the items left out
  std::vector<item> keep;  ///< the items kept
  scored_layout where;     ///< preferred layout of the kept items
};

namespace detail {

// The request as groups of identical items (same profile, same pin), each
// with its count; sub-requests are count vectors over these groups.
struct item_group {
  item what;
  int count;
};

inline std::vector<item_group> group_items(std::span<const item> items) {
  std::vector<item> sorted(items.begin(), items.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<item_group> out;
  for (const item& it : sorted) {
    if (!out.empty() && out.back().what == it)
      ++out.back().count;
    else
      out.push_back({it, 1});
  }
  return out;
}

// The items of count vector k, into `out` (reused to avoid allocations).
inline void expand_into(const std::vector<item_group>& g, const std::vector<int>& k,
                        std::vector<item>& out) {
  out.clear();
  for (std::size_t i = 0; i < g.size(); ++i)
    for (int j = 0; j < k[i]; ++j) out.push_back(g[i].what);
}

inline std::vector<item> expand(const std::vector<item_group>& g, const std::vector<int>& k) {
  std::vector<item> out;
  expand_into(g, k, out);
  return out;
}

// Calls f(k) for every count vector with 0 <= k[j] <= hi[j] and k[i..] summing
// to `left`, in lexicographic order; `room[j]` is the sum of hi[j..]. f returns
// false to stop.
template <class F>
bool each_vector_sum(const std::vector<int>& hi, const std::vector<int>& room, std::vector<int>& k,
                     std::size_t i, int left, F& f) {
  if (i == hi.size()) return left != 0 || f(static_cast<const std::vector<int>&>(k));
  const int rest = i + 1 < hi.size() ? room[i + 1] : 0;
  for (int v = std::max(0, left - rest); v <= std::min(hi[i], left); ++v) {
    k[i] = v;
    if (!each_vector_sum(hi, room, k, i + 1, left - v, f)) return false;
  }
  k[i] = 0;
  return true;
}

// Suffix sums of hi, for each_vector_sum.
inline std::vector<int> suffix_sums(const std::vector<int>& hi) {
  std::vector<int> room(hi.size() + 1, 0);
  for (std::size_t i = hi.size(); i-- > 0;) room[i] = room[i + 1] + hi[i];
  return room;
}

}  // namespace detail

/// The smallest subset of `items` that already cannot be placed (fewest
/// items; among those, the first in canonical order). Empty when `items`
/// fits. Meant for reason_code::placement, where requests are small.
inline std::vector<item> smallest_conflict(const gpu_model& gpu, std::span<const item> items) {
  assert(detail::valid_profiles(gpu, items));
  const rules r(gpu);
  const auto groups = detail::group_items(items);
  std::vector<int> hi;
  for (const auto& g : groups) hi.push_back(g.count);
  const std::vector<int> room = detail::suffix_sums(hi);
  std::vector<item> sub;
  for (int size = 1; size <= static_cast<int>(items.size()); ++size) {
    std::vector<int> k(hi.size(), 0);
    bool found = false;
    auto f = [&](const std::vector<int>& v) {
      detail::expand_into(groups, v, sub);
      found = !fits(r, sub);
      return !found;
    };
    detail::each_vector_sum(hi, room, k, 0, size, f);
    if (found) return sub;
  }
  return {};
}

/// The largest sub-requests of `items` that fit (fewest instances dropped),
/// at most `limit` of them. Among equally large ones, those keeping more
/// compute slices, then more units, come first. Counts above a profile's cap
/// are dropped outright, so a huge count costs no more than the cap. A memo
/// for `gpu`, when given, scores the layouts and answers feasibility of
/// unpinned sub-requests by lookup; the answer is the same.
inline std::vector<closest_fit> closest_fits(const gpu_model& gpu, std::span<const item> items,
                                             std::size_t limit = 3, room_memo* memo = nullptr) {
  assert(detail::valid_profiles(gpu, items));
  assert(memo == nullptr || &memo->gpu() == &gpu);
  const rules r(gpu);
  const auto groups = detail::group_items(items);
  std::vector<int> hi;
  for (const auto& g : groups)
    hi.push_back(
        std::min(g.count, gpu.profiles[static_cast<std::size_t>(g.what.profile)].max_instances));
  const std::vector<int> room = detail::suffix_sums(hi);
  struct cand {
    std::vector<int> k;
    int compute = 0, units = 0;
  };
  // Largest sub-requests first: the first level with any fit is the answer.
  // Without pinned starts a memo answers feasibility by lookup.
  const bool by_lookup =
      memo != nullptr && std::all_of(groups.begin(), groups.end(),
                                     [](const auto& g) { return g.what.start == item::any_start; });
  std::vector<cand> best;
  std::vector<item> sub;
  for (int kept = room[0]; kept > 0 && best.empty(); --kept) {
    std::vector<int> k(hi.size(), 0);
    auto f = [&](const std::vector<int>& v) {
      if (by_lookup) {
        profile_counts counts;
        for (std::size_t i = 0; i < v.size(); ++i) counts[groups[i].what.profile] += v[i];
        if (!memo->feasible(counts)) return true;
      } else {
        detail::expand_into(groups, v, sub);
        if (!fits(r, sub)) return true;
      }
      cand c{v};
      for (std::size_t i = 0; i < v.size(); ++i) {
        const profile& p = gpu.profiles[static_cast<std::size_t>(groups[i].what.profile)];
        c.compute += v[i] * p.compute_slices;
        c.units += v[i] * p.size;
      }
      best.push_back(std::move(c));
      return true;
    };
    detail::each_vector_sum(hi, room, k, 0, kept, f);
  }
  std::stable_sort(best.begin(), best.end(), [](const cand& a, const cand& b) {
    if (a.compute != b.compute) return a.compute > b.compute;
    return a.units > b.units;
  });
  std::vector<closest_fit> out;
  for (const cand& c : best) {
    if (out.size() == limit) break;
    closest_fit cf;
    cf.keep = detail::expand(groups, c.k);
    for (std::size_t i = 0; i < groups.size(); ++i)
      for (int j = c.k[i]; j < groups[i].count; ++j) cf.drop.push_back(groups[i].what);
    solve_options one;
    one.max_layouts = 1;
    one.memo = memo;
    cf.where = solve(gpu, cf.keep, one).layouts.front();
    out.push_back(std::move(cf));
  }
  return out;
}

/// Fills in the evidence solve() leaves out: for reason_code::placement the
/// smallest conflicting subset. Returns the completed reason.
inline reason explain(const gpu_model& gpu, std::span<const item> items, reason why) {
  if (why.code == reason_code::placement && why.conflict.empty()) {
    why.conflict = smallest_conflict(gpu, items);
    for (const item& it : why.conflict) detail::add_unique(why.profiles, it.profile);
    std::sort(why.profiles.begin(), why.profiles.end());
  }
  return why;
}

/// The same request on another model, matching profiles by name and keeping
/// pinned starts; empty when `to` lacks one of the profiles.
inline std::optional<std::vector<item>> translate(const gpu_model& from, const gpu_model& to,
                                                  std::span<const item> items) {
  assert(detail::valid_profiles(from, items));
  std::vector<item> out;
  out.reserve(items.size());
  for (const item& it : items) {
    const int p = find_profile(to, from.profiles[static_cast<std::size_t>(it.profile)].name);
    if (p < 0) return std::nullopt;
    out.push_back({p, it.start});
  }
  return out;
}

namespace detail {
template <class Models>
std::vector<const gpu_model*> fits_elsewhere_in(const Models& models, const gpu_model& origin,
                                                std::span<const item> items) {
  std::vector<const gpu_model*> out;
  for (const auto& element : models) {
    const gpu_model& m = as_model(element);
    if (&m == &origin || m.slug == origin.slug) continue;
    const auto mapped = translate(origin, m, items);
    if (mapped && fits(rules(m), *mapped)) out.push_back(&m);
  }
  return out;
}
}  // namespace detail

/// The models of `models` other than `origin` whose profiles have the same
/// names and on which the request fits, in their order.
inline std::vector<const gpu_model*> fits_elsewhere(const gpu_model& origin,
                                                    std::span<const item> items,
                                                    model_list models) {
  return detail::fits_elsewhere_in(models, origin, items);
}

/// fits_elsewhere() over a table of models: `fits_elsewhere(origin, items,
/// catalog())` looks in the built-in models (catalog.hpp, which this header
/// does not include, so that it need not recompile when the catalog changes).
inline std::vector<const gpu_model*> fits_elsewhere(const gpu_model& origin,
                                                    std::span<const item> items,
                                                    std::span<const gpu_model> models) {
  return detail::fits_elsewhere_in(models, origin, items);
}

}  // namespace v1
}  // namespace migplan

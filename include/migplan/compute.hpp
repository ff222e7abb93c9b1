// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file compute.hpp
/// The level inside a GPU instance: its compute instances (CIs). A GI of g compute
/// slices holds CIs that own slices 0..g-1 between them and share the GI's memory and
/// engines, so whether a set of CIs fits depends on its GI profile alone, never on
/// where the GI sits: the GI search (search.hpp) is unchanged, and this is a second,
/// independent level inside each GI.
///
/// Where a CI may start inside its GI is not captured anywhere (no `nvidia-smi mig
/// -lcipp` output exists in any source found). The rule here is INFERRED, applied
/// everywhere and documented in doc/compute-instances.md: a CI of c slices starts at a
/// multiple of the smallest power of two >= c and ends inside the GI, the alignment the
/// GI level shows in compute slices on every 7-slice GPU (1g anywhere, 2g at 0/2/4, 3g
/// at 0/4, 4g at 0). It reproduces every captured and documented per-GI cap (1c.3g: 3,
/// 2c.3g: 1, 2c.4g: 2, 2c.7g: 3, 3c.7g: 2, ...) and the -lci capture's two 1c CIs at 0:1
/// and 1:1, and lets 4c+3c share a 7g GI as a public site configuration does.

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdint>
#include <map>
#include <migplan/detail/strings.hpp>
#include <migplan/gpu.hpp>
#include <span>
#include <string_view>
#include <vector>

namespace migplan {
inline namespace v1 {

/// Most compute slices a GI may have for the CI level (a CI layout is a mask of them).
inline constexpr int max_gi_slices = 16;

/// The compute slices a CI of `c` slices may start at inside a GI of `g` slices, as a
/// mask (bit s = slice s). INFERRED rule (see the file comment): starts are multiples
/// of std::bit_ceil(c) and the CI ends inside the GI. Empty when c is not in 1..g.
constexpr unit_mask ci_starts(int g, int c) noexcept {
  if (c < 1 || g < c || g > max_gi_slices) return 0;
  const int align = static_cast<int>(std::bit_ceil(static_cast<unsigned>(c)));
  unit_mask m = 0;
  for (int s = 0; s + c <= g; s += align) m |= unit_mask{1} << s;
  return m;
}

/// Index in `gi.ci_profiles` of the CI profile `-C` creates, or -1 when unknown.
constexpr int default_ci(const profile& gi) noexcept {
  for (std::size_t i = 0; i < gi.ci_profiles.size(); ++i)
    if (gi.ci_profiles[i].is_default) return static_cast<int>(i);
  return -1;
}

/// Index in `gi.ci_profiles` of the CI profile of `c` compute slices, or -1.
constexpr int find_ci_by_slices(const profile& gi, int c) noexcept {
  for (std::size_t i = 0; i < gi.ci_profiles.size(); ++i)
    if (gi.ci_profiles[i].compute_slices == c) return static_cast<int>(i);
  return -1;
}

/// Index in `gi.ci_profiles` of the CI profile named `name` (ignoring ASCII case), or -1.
constexpr int find_ci(const profile& gi, std::string_view name) noexcept {
  for (std::size_t i = 0; i < gi.ci_profiles.size(); ++i)
    if (detail::iequals(gi.ci_profiles[i].name, name)) return static_cast<int>(i);
  return -1;
}

/// One placed compute instance.
struct ci_instance {
  int ci = 0;     ///< index into profile::ci_profiles of its GI
  int start = 0;  ///< first compute slice inside the GI
  friend constexpr auto operator<=>(const ci_instance&, const ci_instance&) = default;
};

/// Why a set of CIs does not fit in one GI. Checked in this order; the first that
/// applies wins (caps before slices, as at the GI level).
enum class ci_reason_code : std::uint8_t {
  none,                ///< it fits
  unknown_ci_profile,  ///< the GI's CI profiles are unknown, or one asked is not among them
  ci_cap,              ///< more CIs of a CI profile than one GI holds
  ci_slices,           ///< the CIs need more compute slices than the GI has
  ci_placement,        ///< caps and slices allow it, but no arrangement of the starts does
};

/// The stable name of a CI reason code, as JSON outputs and messages print
/// it ("ci_cap", "ci_placement", ...; "" for none).
constexpr std::string_view ci_reason_name(ci_reason_code code) noexcept {
  switch (code) {
    case ci_reason_code::none:
      return "";
    case ci_reason_code::unknown_ci_profile:
      return "unknown_ci_profile";
    case ci_reason_code::ci_cap:
      return "ci_cap";
    case ci_reason_code::ci_slices:
      return "ci_slices";
    case ci_reason_code::ci_placement:
      return "ci_placement";
  }
  return "";
}

/// The reason, with the evidence.
struct ci_reason {
  ci_reason_code code = ci_reason_code::none;  ///< what failed
  int ci = -1;        ///< ci_cap: the CI profile over its cap; otherwise -1
  int needed = 0;     ///< ci_cap: CIs of `ci` asked; ci_slices: slices asked
  int available = 0;  ///< ci_cap: its cap; ci_slices: the GI's slices
};

/// The answer for one GI's CIs.
struct ci_solution {
  std::uint64_t layout_count = 0;    ///< distinct CI layouts; 0 when they do not fit
  std::vector<ci_instance> where{};  ///< the preferred layout, by start (empty when none)
  ci_reason why{};                   ///< ci_reason_code::none when they fit
  /// True when at least one layout exists.
  bool feasible() const noexcept { return layout_count > 0; }
};

namespace detail {

// Places `left` more CIs of group g (profile index groups[g]) at increasing starts from
// `from`, then the next group; counts every complete layout and keeps the first.
inline void place_cis(const profile& gi, const std::vector<std::pair<int, int>>& groups,
                      std::size_t g, int left, int from, unit_mask used,
                      std::vector<ci_instance>& cur, ci_solution& out) {
  if (left == 0) {
    if (g + 1 == groups.size()) {
      if (out.layout_count++ == 0) {
        out.where = cur;
        std::sort(out.where.begin(), out.where.end(),
                  [](const ci_instance& a, const ci_instance& b) { return a.start < b.start; });
      }
      return;
    }
    place_cis(gi, groups, g + 1, groups[g + 1].second, 0, used, cur, out);
    return;
  }
  const int ci = groups[g].first;
  const int c = gi.ci_profiles[static_cast<std::size_t>(ci)].compute_slices;
  const unit_mask starts = ci_starts(gi.compute_slices, c);
  for (int s = from; s + c <= gi.compute_slices; ++s) {
    if (((starts >> s) & 1u) == 0) continue;
    const unit_mask m = ((unit_mask{1} << c) - 1) << s;
    if ((used & m) != 0) continue;
    cur.push_back({ci, s});
    place_cis(gi, groups, g, left - 1, s + 1, used | m, cur, out);
    cur.pop_back();
  }
}

}  // namespace detail

/// Checks the CIs `cis` (indices into `gi.ci_profiles`, repeats allowed) against one GI
/// of profile `gi` and counts their distinct layouts (CIs of one profile are
/// interchangeable). The preferred layout puts the largest CIs first, each at its lowest
/// free start: the two 1c of the -lci capture land at 0 and 1.
inline ci_solution solve_cis(const profile& gi, std::span<const int> cis) {
  ci_solution out;
  const std::size_t n = gi.ci_profiles.size();
  for (int ci : cis) {
    if (ci < 0 || static_cast<std::size_t>(ci) >= n) {
      out.why.code = ci_reason_code::unknown_ci_profile;
      return out;
    }
  }
  std::vector<int> count(n, 0);
  int slices = 0;
  for (int ci : cis) {
    ++count[static_cast<std::size_t>(ci)];
    slices += gi.ci_profiles[static_cast<std::size_t>(ci)].compute_slices;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (count[i] > gi.ci_profiles[i].max_instances) {
      out.why = {ci_reason_code::ci_cap, static_cast<int>(i), count[i],
                 gi.ci_profiles[i].max_instances};
      return out;
    }
  }
  if (slices > gi.compute_slices) {
    out.why = {ci_reason_code::ci_slices, -1, slices, gi.compute_slices};
    return out;
  }
  std::vector<std::pair<int, int>> groups;  // (CI profile, count), largest CI first
  for (std::size_t i = 0; i < n; ++i)
    if (count[i] > 0) groups.emplace_back(static_cast<int>(i), count[i]);
  std::stable_sort(groups.begin(), groups.end(), [&](const auto& a, const auto& b) {
    return gi.ci_profiles[static_cast<std::size_t>(a.first)].compute_slices >
           gi.ci_profiles[static_cast<std::size_t>(b.first)].compute_slices;
  });
  if (groups.empty()) {
    out.layout_count = 1;  // no CI: the empty layout
    return out;
  }
  std::vector<ci_instance> cur;
  detail::place_cis(gi, groups, 0, groups[0].second, 0, 0, cur, out);
  if (out.layout_count == 0) out.why.code = ci_reason_code::ci_placement;
  return out;
}

/// True when the CIs `cis` fit in one GI of profile `gi`.
inline bool cis_fit(const profile& gi, std::span<const int> cis) {
  return solve_cis(gi, cis).feasible();
}

/// CIs of one GI profile asked on their own ("4x1c.3g.20gb"), shared out over GIs.
struct ci_grouping {
  /// The GIs, each with its CIs (indices into `gi.ci_profiles`, largest first).
  std::vector<std::vector<int>> gis;
  /// True when even the fewest GIs would be more than `gi.max_instances`: `gis` then
  /// holds that lower bound of GIs, which no GPU of the model holds, and their contents
  /// are only a spread of the CIs, not checked.
  bool over_cap = false;
  /// unknown_ci_profile when the GI's CI profiles are unknown or an index is not one;
  /// otherwise none (any one CI of a known profile fits in a GI on its own).
  ci_reason why{};
};

/// Shares the CIs `cis` of GI profile `gi` out over the fewest GIs that hold them: each
/// GI's share must fit (solve_cis), and fewer GIs never hurt at the GI level (dropping an
/// instance from a layout leaves a layout), so the fewest is the one to plan. Among the
/// groupings with the fewest GIs, the one that fills the first GIs with the largest CIs.
inline ci_grouping group_cis(const profile& gi, std::span<const int> cis) {
  ci_grouping out;
  const std::size_t n = gi.ci_profiles.size();
  for (int ci : cis) {
    if (ci < 0 || static_cast<std::size_t>(ci) >= n) {
      out.why.code = ci_reason_code::unknown_ci_profile;
      return out;
    }
  }
  if (cis.empty()) return out;
  // CI profiles by size, largest first: demand[k] CIs of order[k].
  std::vector<int> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return gi.ci_profiles[static_cast<std::size_t>(a)].compute_slices >
           gi.ci_profiles[static_cast<std::size_t>(b)].compute_slices;
  });
  std::vector<int> demand(n, 0);
  long long slices = 0;
  for (int ci : cis) {
    const auto k =
        static_cast<std::size_t>(std::find(order.begin(), order.end(), ci) - order.begin());
    ++demand[k];
    slices += gi.ci_profiles[static_cast<std::size_t>(ci)].compute_slices;
  }
  // A lower bound on the GIs: the slices, and each CI profile's cap per GI.
  long long bound = (slices + gi.compute_slices - 1) / gi.compute_slices;
  for (std::size_t k = 0; k < n; ++k) {
    const int cap = gi.ci_profiles[static_cast<std::size_t>(order[k])].max_instances;
    if (cap > 0) bound = std::max<long long>(bound, (demand[k] + cap - 1) / cap);
  }
  const auto expand = [&](const std::vector<int>& counts) {
    std::vector<int> g;
    for (std::size_t k = 0; k < n; ++k)
      for (int j = 0; j < counts[k]; ++j) g.push_back(order[k]);
    return g;
  };
  if (bound > gi.max_instances) {
    // No GPU of the model holds that many of these GIs, so the GI level says so; the
    // CIs are spread over the bound's GIs only to have items to name.
    out.over_cap = true;
    out.gis.assign(static_cast<std::size_t>(bound), {});
    std::size_t next = 0;
    for (std::size_t k = 0; k < n; ++k)
      for (int j = 0; j < demand[k]; ++j) {
        out.gis[next].push_back(order[k]);
        next = (next + 1) % out.gis.size();
      }
    return out;
  }
  // Here the demand is small (at most max_instances GIs' worth), so an exact search over
  // the count vectors is cheap: fewest(d) = 1 + min over the GI contents p <= d that fit
  // and hold at least one CI of the first kind d still has (symmetry: that CI goes
  // somewhere, so some GI holds it).
  std::map<std::vector<int>, std::pair<int, std::vector<int>>> memo;  // d -> (GIs, first p)
  const auto fits = [&](const std::vector<int>& p) { return solve_cis(gi, expand(p)).feasible(); };
  const auto fewest = [&](const auto& self, const std::vector<int>& d) -> int {
    std::size_t first = 0;
    while (first < n && d[first] == 0) ++first;
    if (first == n) return 0;
    if (auto it = memo.find(d); it != memo.end()) return it->second.first;
    int best = 1 << 30;
    std::vector<int> best_p;
    std::vector<int> p(n, 0);
    // Every p with 1 <= p[first] and p[k] <= d[k], larger counts of larger CIs first.
    const auto each = [&](const auto& rec, std::size_t k) -> void {
      if (k == n) {
        if (!fits(p)) return;
        std::vector<int> rest(n);
        for (std::size_t i = 0; i < n; ++i) rest[i] = d[i] - p[i];
        const int r = 1 + self(self, rest);
        if (r < best) {
          best = r;
          best_p = p;
        }
        return;
      }
      const int lo = k == first ? 1 : 0;
      for (int v = d[k]; v >= lo; --v) {
        p[k] = v;
        rec(rec, k + 1);
      }
      p[k] = 0;
    };
    each(each, first);
    memo[d] = {best, best_p};
    return best;
  };
  fewest(fewest, demand);
  std::vector<int> d = demand;
  while (std::any_of(d.begin(), d.end(), [](int v) { return v > 0; })) {
    const std::vector<int> p = memo.at(d).second;
    // Every CI of a known profile fits a GI on its own (it may start at 0), so some p
    // always exists.
    assert(std::any_of(p.begin(), p.end(), [](int v) { return v > 0; }));
    out.gis.push_back(expand(p));
    for (std::size_t i = 0; i < n; ++i) d[i] -= p[i];
  }
  return out;
}

}  // namespace v1
}  // namespace migplan

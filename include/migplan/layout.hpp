// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file layout.hpp
/// Requests (what the user asks for) and layouts (where each instance goes).

#include <algorithm>
#include <array>
#include <cassert>
#include <compare>
#include <cstdint>
#include <migplan/gpu.hpp>
#include <span>

namespace migplan {
inline namespace v1 {

/// One requested instance: a profile (index into gpu_model::profiles) and an
/// optional pinned start unit (`any_start` when the search may choose).
struct item {
  static constexpr int any_start = -1;  ///< no pinned start
  int profile = 0;                      ///< index into gpu_model::profiles
  int start = any_start;                ///< pinned start unit, or any_start
  friend constexpr auto operator<=>(const item&, const item&) = default;
};

/// One placed GPU instance.
struct instance {
  int profile = 0;  ///< index into gpu_model::profiles
  int start = 0;    ///< first placement unit
  friend constexpr auto operator<=>(const instance&, const instance&) = default;
};

namespace detail {
// True when every item names a profile of `gpu`: the core indexes the
// profiles with item::profile unchecked, so entry points assert this.
constexpr bool valid_profiles(const gpu_model& gpu, std::span<const item> items) noexcept {
  for (const item& it : items)
    if (it.profile < 0 || static_cast<std::size_t>(it.profile) >= gpu.profiles.size()) return false;
  return true;
}
}  // namespace detail

/// Instance counts per profile index: a geometry without positions.
struct profile_counts {
  std::array<int, max_profiles> n{};  ///< n[p] = instances of profile p
  /// Count of profile p.
  constexpr int& operator[](int p) noexcept { return n[static_cast<std::size_t>(p)]; }
  /// Count of profile p.
  constexpr int operator[](int p) const noexcept { return n[static_cast<std::size_t>(p)]; }
  /// Total number of instances.
  constexpr int total() const noexcept {
    int t = 0;
    for (int v : n) t += v;
    return t;
  }
  friend constexpr auto operator<=>(const profile_counts&, const profile_counts&) = default;
};

/// A set of placed instances, kept sorted by start. Every instance occupies at
/// least one unit, so a layout never holds more than max_units instances and
/// needs no allocation.
class layout {
 public:
  /// Adds an instance, keeping the order by start.
  constexpr void add(instance in) noexcept {
    assert(size_ < max_units);
    int i = size_;
    while (i > 0 && items_[static_cast<std::size_t>(i - 1)].start > in.start) {
      items_[static_cast<std::size_t>(i)] = items_[static_cast<std::size_t>(i - 1)];
      --i;
    }
    items_[static_cast<std::size_t>(i)] = in;
    ++size_;
  }
  /// Removes the last-added instance with this profile and start.
  constexpr void remove(instance in) noexcept {
    for (int i = 0; i < size_; ++i) {
      if (items_[static_cast<std::size_t>(i)] == in) {
        for (int j = i; j + 1 < size_; ++j)
          items_[static_cast<std::size_t>(j)] = items_[static_cast<std::size_t>(j + 1)];
        --size_;
        return;
      }
    }
    assert(false && "instance not in layout");
  }
  /// Number of instances.
  constexpr int size() const noexcept { return size_; }
  /// True when the layout holds no instance.
  constexpr bool empty() const noexcept { return size_ == 0; }
  /// Instances in start order.
  constexpr const instance* begin() const noexcept { return items_.data(); }
  /// End of the instances.
  constexpr const instance* end() const noexcept { return items_.data() + size_; }
  /// The i-th instance by start.
  constexpr const instance& operator[](int i) const noexcept {
    return items_[static_cast<std::size_t>(i)];
  }
  /// Units occupied, given the model the profiles belong to.
  constexpr unit_mask used(const gpu_model& gpu) const noexcept {
    unit_mask m = 0;
    for (const instance& in : *this) {
      assert(in.profile >= 0 && static_cast<std::size_t>(in.profile) < gpu.profiles.size());
      m |= gpu.profiles[static_cast<std::size_t>(in.profile)].mask_at(in.start);
    }
    return m;
  }
  /// Instance counts per profile.
  constexpr profile_counts counts() const noexcept {
    profile_counts c;
    for (const instance& in : *this) ++c[in.profile];
    return c;
  }
  /// Canonical order: instances compared by start, then profile index.
  friend constexpr bool operator==(const layout& a, const layout& b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  /// Canonical order: lexicographic over (start, profile) pairs.
  friend constexpr bool operator<(const layout& a, const layout& b) noexcept {
    return std::lexicographical_compare(
        a.begin(), a.end(), b.begin(), b.end(), [](const instance& x, const instance& y) {
          return x.start != y.start ? x.start < y.start : x.profile < y.profile;
        });
  }

 private:
  std::array<instance, max_units> items_{};
  int size_ = 0;
};

}  // namespace v1
}  // namespace migplan

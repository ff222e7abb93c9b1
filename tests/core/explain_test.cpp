// SPDX-License-Identifier: Apache-2.0
// Smallest conflicts and closest fits, checked by brute force over
// sub-multisets with the oracle.

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <migplan/catalog.hpp>
#include <migplan/explain.hpp>
#include <migplan/search.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "oracle.hpp"
#include "support.hpp"

namespace {

using migplan::test::each_multiset;
using migplan::test::model;
using migplan::test::request;

using migplan::gpu_model;
using migplan::item;
using migplan::reason_code;

std::vector<item> sorted(std::vector<item> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::string show(const gpu_model& gpu, const std::vector<item>& items) {
  oracle::counts n(gpu.profiles.size(), 0);
  std::vector<oracle::pin> pins;
  for (const item& it : items) {
    if (it.start == item::any_start)
      ++n[static_cast<std::size_t>(it.profile)];
    else
      pins.push_back({it.profile, it.start});
  }
  return oracle::describe(gpu, n, pins);
}

// Whether the oracle finds a layout, remembered per model and sorted request:
// the brute forces below ask about the same sub-requests many times.
bool oracle_fits(const gpu_model& gpu, const std::vector<item>& items) {
  static std::map<std::pair<std::string_view, std::vector<item>>, bool> memo;
  const auto key = std::pair{gpu.slug, sorted(items)};
  if (const auto it = memo.find(key); it != memo.end()) return it->second;
  oracle::counts n(gpu.profiles.size(), 0);
  std::vector<oracle::pin> pins;
  for (const item& it : items) {
    if (it.start == item::any_start)
      ++n[static_cast<std::size_t>(it.profile)];
    else
      pins.push_back({it.profile, it.start});
  }
  const bool fits = oracle::solve(gpu, n, pins).feasible();
  memo.emplace(key, fits);
  return fits;
}

// The request as distinct items with multiplicities, and every sub-multiset of it.
struct sub_multisets {
  std::vector<item> kinds;
  std::vector<int> count;

  explicit sub_multisets(const std::vector<item>& items) {
    for (const item& it : sorted(items)) {
      if (!kinds.empty() && kinds.back() == it) {
        ++count.back();
      } else {
        kinds.push_back(it);
        count.push_back(1);
      }
    }
  }
  // Calls f(sub) for every sub-multiset, the empty one and the whole included.
  template <class F>
  void each(F&& f) const {
    std::vector<int> k(kinds.size(), 0);
    while (true) {
      std::vector<item> sub;
      for (std::size_t i = 0; i < kinds.size(); ++i)
        for (int j = 0; j < k[i]; ++j) sub.push_back(kinds[i]);
      f(static_cast<const std::vector<item>&>(sub));
      std::size_t i = 0;
      while (i < kinds.size() && k[i] == count[i]) k[i++] = 0;
      if (i == kinds.size()) return;
      ++k[i];
    }
  }
};

// True when `part` is a sub-multiset of `whole`.
bool is_sub(std::vector<item> part, std::vector<item> whole) {
  std::sort(part.begin(), part.end());
  std::sort(whole.begin(), whole.end());
  return std::includes(whole.begin(), whole.end(), part.begin(), part.end());
}

// Checks smallest_conflict(items) by brute force: it does not fit, it is part
// of the request, and no sub-request with fewer items fails to fit.
void check_smallest_conflict(const gpu_model& gpu, const std::vector<item>& items) {
  INFO("request " << show(gpu, items));
  const std::vector<item> conflict = migplan::smallest_conflict(gpu, items);
  INFO("conflict " << show(gpu, conflict));
  std::size_t smallest = items.size() + 1;
  sub_multisets(items).each([&](const std::vector<item>& sub) {
    if (!sub.empty() && sub.size() < smallest && !oracle_fits(gpu, sub)) smallest = sub.size();
  });
  if (smallest > items.size()) {
    CHECK(conflict.empty());
    return;
  }
  CHECK(conflict.size() == smallest);
  CHECK(is_sub(conflict, items));
  CHECK_FALSE(oracle_fits(gpu, conflict));
}

// Checks closest_fits(items) by brute force over every sub-multiset.
void check_closest_fits(const gpu_model& gpu, const std::vector<item>& items,
                        std::size_t limit = 3) {
  INFO("request " << show(gpu, items));
  std::size_t best = 0, ties = 0;
  sub_multisets(items).each([&](const std::vector<item>& sub) {
    if (sub.size() < best || sub.empty() || !oracle_fits(gpu, sub)) return;
    if (sub.size() > best) ties = 0;
    best = sub.size();
    ++ties;
  });
  const auto fits = migplan::closest_fits(gpu, items, limit);
  CHECK(fits.size() == std::min(ties, limit));
  for (std::size_t i = 0; i < fits.size(); ++i) {
    const migplan::closest_fit& f = fits[i];
    INFO("fit " << i << ": keep " << show(gpu, f.keep) << ", drop " << show(gpu, f.drop));
    CHECK(f.keep.size() == best);  // no sub-request with fewer drops fits
    std::vector<item> both = f.keep;
    both.insert(both.end(), f.drop.begin(), f.drop.end());
    CHECK(sorted(both) == sorted(items));
    const auto s = migplan::solve(gpu, f.keep);
    CHECK(s.feasible());
    CHECK(oracle_fits(gpu, f.keep));
    REQUIRE_FALSE(s.layouts.empty());
    CHECK(f.where.where == s.layouts.front().where);  // the preferred layout of the kept items
    CHECK(f.where.where.size() == static_cast<int>(f.keep.size()));
    for (std::size_t j = 0; j < i; ++j) CHECK(sorted(fits[j].keep) != sorted(f.keep));
  }
  // Among equally large fits: more compute first, then more units.
  auto weight = [&](const std::vector<item>& keep) {
    int compute = 0, units = 0;
    for (const item& it : keep) {
      compute += gpu.profiles[static_cast<std::size_t>(it.profile)].compute_slices;
      units += gpu.profiles[static_cast<std::size_t>(it.profile)].size;
    }
    return std::pair{compute, units};
  };
  for (std::size_t i = 1; i < fits.size(); ++i)
    CHECK(weight(fits[i - 1].keep) >= weight(fits[i].keep));
}

}  // namespace

// --- smallest_conflict ---------------------------------------------------------------------

TEST_CASE("the smallest conflict of 3g.20gb@0 4g.20gb is both of them", "[explain]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto items = request(gpu, "3g.20gb@0 4g.20gb");
  CHECK(sorted(migplan::smallest_conflict(gpu, items)) == sorted(items));
  check_smallest_conflict(gpu, items);
}

TEST_CASE("the smallest conflict leaves out items that are not part of it", "[explain]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto items = request(gpu, "1g.5gb@0 4g.20gb 1g.5gb 1g.10gb");
  CHECK(sorted(migplan::smallest_conflict(gpu, items)) == sorted(request(gpu, "1g.5gb@0 4g.20gb")));
  check_smallest_conflict(gpu, items);
}

TEST_CASE("a conflict can need three items when every pair of them fits", "[explain]") {
  // 3g.20gb starts at 0 or 4; each pinned 1g.5gb blocks one of them.
  const gpu_model& gpu = model("a100-40gb");
  const auto items = request(gpu, "1g.5gb@1 1g.5gb@5 3g.20gb");
  CHECK(migplan::smallest_conflict(gpu, items).size() == 3);
  check_smallest_conflict(gpu, items);
}

TEST_CASE("two instances pinned at the same start conflict with each other", "[explain]") {
  const gpu_model& gpu = model("h100-80gb");
  const auto items = request(gpu, "2x2g.20gb@2 1g.10gb");
  CHECK(sorted(migplan::smallest_conflict(gpu, items)) == sorted(request(gpu, "2x2g.20gb@2")));
  check_smallest_conflict(gpu, items);
}

TEST_CASE("a request that fits has no conflict and explain leaves other reasons alone",
          "[explain]") {
  const gpu_model& gpu = model("a100-40gb");
  CHECK(migplan::smallest_conflict(gpu, request(gpu, "3g.20gb@4 4g.20gb")).empty());
  const auto items = request(gpu, "7x1g.5gb 3g.20gb");
  const auto s = migplan::solve(gpu, items);
  const auto why = migplan::explain(gpu, items, s.why);
  CHECK(why.code == reason_code::memory_units);
  CHECK(why.conflict.empty());
  CHECK(why.profiles == s.why.profiles);
}

TEST_CASE("smallest_conflict is minimal on pinned placement failures of every model",
          "[explain][oracle][exhaustive]") {
  // One or two pinned instances plus one free instance, wherever that fails
  // only on placement. Catch runs the body once per model section, so the count
  // is kept across runs: a two-slot model (rtx-pro-5000) has no such failure.
  static std::size_t checked = 0;
  for (const gpu_model& gpu : migplan::catalog()) {
    DYNAMIC_SECTION("model " << gpu.slug) {
      const int np = static_cast<int>(gpu.profiles.size());
      migplan::solve_options count_only;
      count_only.rank = false;
      auto check = [&](const std::vector<item>& items) {
        const auto s = migplan::solve(gpu, items, count_only);
        if (s.why.code != reason_code::placement) return;
        check_smallest_conflict(gpu, items);
        const auto why = migplan::explain(gpu, items, s.why);
        CHECK(why.conflict == migplan::smallest_conflict(gpu, items));
        ++checked;
      };
      std::vector<item> pins;
      for (int p = 0; p < np; ++p)
        for (int a = 0; a < gpu.units; ++a)
          if (gpu.profiles[static_cast<std::size_t>(p)].allows_start(a)) pins.push_back({p, a});
      for (std::size_t i = 0; i < pins.size(); ++i)
        for (int q = 0; q < np; ++q) {
          check({pins[i], {q}});
          for (std::size_t j = i; j < pins.size(); ++j) check({pins[i], pins[j], {q}});
        }
    }
  }
  CHECK(checked > 0);
}

// --- closest_fits --------------------------------------------------------------------------

TEST_CASE("7x1g.5gb 3g.20gb comes closest by dropping the 3g.20gb", "[explain][closest]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto items = request(gpu, "7x1g.5gb 3g.20gb");
  const auto fits = migplan::closest_fits(gpu, items);
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].drop == request(gpu, "3g.20gb"));
  CHECK(fits[0].keep == request(gpu, "7x1g.5gb"));
  CHECK(fits[0].where.where.size() == 7);
  check_closest_fits(gpu, items);
}

TEST_CASE("3x3g.40gb on an H100 80GB comes closest by dropping one 3g.40gb", "[explain][closest]") {
  const gpu_model& gpu = model("h100-80gb");
  const auto items = request(gpu, "3x3g.40gb");
  const auto fits = migplan::closest_fits(gpu, items);
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].drop == request(gpu, "3g.40gb"));
  CHECK(fits[0].keep == request(gpu, "2x3g.40gb"));
  check_closest_fits(gpu, items);
}

TEST_CASE("a huge count comes closest at the cap, quickly", "[explain][closest]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto items = request(gpu, "500x1g.5gb");
  const auto t0 = std::chrono::steady_clock::now();
  const auto fits = migplan::closest_fits(gpu, items);
  const auto t1 = std::chrono::steady_clock::now();
  // Microseconds in practice; the bound only catches a search over all 500.
  CHECK(std::chrono::duration<double>(t1 - t0).count() < 5.0);
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].keep == request(gpu, "7x1g.5gb"));
  CHECK(fits[0].drop.size() == 493);
  check_closest_fits(gpu, items);
}

TEST_CASE("closest fits of a request that fits keep all of it", "[explain][closest]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto items = request(gpu, "3g.20gb 2g.10gb 2x1g.5gb");
  const auto fits = migplan::closest_fits(gpu, items);
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].drop.empty());
  CHECK(sorted(fits[0].keep) == sorted(items));
}

TEST_CASE("nothing comes close when no single item fits", "[explain][closest]") {
  const gpu_model& gpu = model("a100-40gb");
  CHECK(migplan::closest_fits(gpu, request(gpu, "1g.5gb@7")).empty());
  check_closest_fits(gpu, request(gpu, "1g.5gb@7 2x1g.10gb@7"));
}

TEST_CASE("closest fits keep the most items, by brute force on chosen requests",
          "[explain][closest][oracle][exhaustive]") {
  const std::vector<std::pair<std::string_view, std::string_view>> cases{
      {"a100-40gb", "4g.20gb 2x2g.10gb"},
      {"a100-40gb", "4g.20gb 3g.20gb 2g.10gb 1g.5gb"},
      {"a100-40gb", "3g.20gb@0 4g.20gb 1g.5gb"},
      {"a100-40gb", "2x3g.20gb 2x2g.10gb 3x1g.5gb 1g.5gb+me"},
      {"a100-40gb", "7g.40gb 1g.5gb 1g.10gb"},
      {"h100-80gb", "4x1g.20gb 3x2g.20gb 1g.10gb+me"},
      {"a30", "1g.6gb+me 2g.12gb+me 4g.24gb"},
      {"rtx-pro-6000", "1g.24gb+me.all 2x1g.24gb 2g.48gb"},
      {"rtx-pro-6000", "5x1g.24gb-me 2g.48gb+gfx"},
      {"b300", "3x3g.135gb 8x1g.34gb"},
  };
  for (const auto& [slug, text] : cases) {
    const gpu_model& gpu = model(slug);
    INFO(slug << ": " << text);
    const auto items = request(gpu, text);
    check_closest_fits(gpu, items, 3);
    check_closest_fits(gpu, items, 100);
  }
}

TEST_CASE("closest fits keep the most items on every small over-full A30 and H20 request",
          "[explain][closest][oracle]") {
  // Every multiset with counts up to one past the caps.
  for (std::string_view slug : {"a30", "h20"}) {
    const gpu_model& gpu = model(slug);
    DYNAMIC_SECTION("model " << slug) {
      each_multiset(
          gpu,
          [&](const std::vector<item>& items, const std::vector<int>&) {
            if (!migplan::solve(gpu, items).feasible()) check_closest_fits(gpu, items, 4);
          },
          1);
    }
  }
}

TEST_CASE("closest fits are the same with a room memo as without", "[explain][closest][memo]") {
  for (std::string_view slug : {"a100-40gb", "a30", "rtx-pro-6000", "h100-80gb"}) {
    const gpu_model& gpu = model(slug);
    migplan::room_memo memo(gpu);
    // Every pair of profiles, each one past its cap: never fits, always has closest fits.
    for (std::size_t a = 0; a < gpu.profiles.size(); ++a)
      for (std::size_t b = a; b < gpu.profiles.size(); ++b) {
        std::vector<item> items(static_cast<std::size_t>(gpu.profiles[a].max_instances + 1),
                                item{static_cast<int>(a)});
        items.insert(items.end(), static_cast<std::size_t>(gpu.profiles[b].max_instances),
                     item{static_cast<int>(b)});
        INFO(slug << ": " << show(gpu, items));
        const auto plain = migplan::closest_fits(gpu, items);
        const auto with = migplan::closest_fits(gpu, items, 3, &memo);
        REQUIRE(plain.size() == with.size());
        for (std::size_t i = 0; i < plain.size(); ++i) {
          CHECK(plain[i].drop == with[i].drop);
          CHECK(plain[i].where.where == with[i].where.where);
          CHECK(plain[i].where.rank == with[i].where.rank);
        }
      }
  }
}

TEST_CASE("fits_elsewhere names the models where the same profile names fit", "[explain]") {
  const gpu_model& a100 = model("a100-40gb");
  const auto items = request(a100, "5x1g.10gb");
  std::vector<std::string_view> slugs;
  for (const gpu_model* m : migplan::fits_elsewhere(a100, items, migplan::catalog()))
    slugs.push_back(m->slug);
  CHECK(slugs == std::vector<std::string_view>{"a100-80gb", "h100-80gb", "h100-pcie"});
  // Every model named really fits the translated request, and no other model with the names does.
  for (const gpu_model& m : migplan::catalog()) {
    if (m.slug == a100.slug) continue;
    const auto mapped = migplan::translate(a100, m, items);
    const bool named = std::find(slugs.begin(), slugs.end(), m.slug) != slugs.end();
    CHECK(named == (mapped && oracle_fits(m, *mapped)));
  }
}

TEST_CASE("fits_elsewhere and the lookups search a model list given instead of the catalog",
          "[explain][lookup]") {
  const gpu_model& a100 = model("a100-40gb");
  // A copy of the H100 under another slug and PCI ID, as a program might load one.
  gpu_model copy = model("h100-80gb");
  copy.slug = "h100-copy";
  const migplan::pci_id copy_id[] = {{0x0FFF10DE, false}};
  copy.pci_ids = copy_id;
  const std::string_view names[] = {"NVIDIA H100 Copy"};
  copy.smi_names = names;
  const gpu_model* list[] = {&a100, &model("a30"), &copy};
  const migplan::model_list models = list;

  const auto items = request(a100, "5x1g.10gb");
  std::vector<std::string_view> slugs;
  for (const gpu_model* m : migplan::fits_elsewhere(a100, items, models)) slugs.push_back(m->slug);
  CHECK(slugs == std::vector<std::string_view>{"h100-copy"});
  // The catalog's own answer is unchanged, and knows nothing of the copy.
  CHECK(migplan::fits_elsewhere(a100, items, migplan::catalog()).size() == 3);

  CHECK(migplan::find_model(models, "H100-COPY") == &copy);
  CHECK(migplan::find_model(models, "h100-80gb") == nullptr);
  CHECK(migplan::find_model("h100-copy") == nullptr);
  CHECK(migplan::find_model_by_pci(models, 0x0FFF) == &copy);
  CHECK(migplan::find_model_by_full_pci(models, 0x0FFF10DE) == &copy);
  CHECK(migplan::find_model_by_full_pci(models, 0x0FFF) == nullptr);
  CHECK(migplan::find_model_by_smi_name(models, "H100 Copy") == &copy);
  CHECK(migplan::find_model_by_pci(models, 0x20B010DE) == &a100);
}

// SPDX-License-Identifier: Apache-2.0
// simulate --plot's series (model/replay_series.hpp): a replay watcher that
// keeps the fleet's use over time in a bounded number of buckets.

#include "model/replay_series.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <migplan/catalog.hpp>
#include <migplan/lookup.hpp>
#include <migplan/replay.hpp>
#include <random>
#include <string_view>
#include <vector>

using namespace migplan;
using migplan::cli::replay_series;

namespace {

const gpu_model& model_of(std::string_view slug) {
  const gpu_model* m = find_model(slug);
  REQUIRE(m != nullptr);
  return *m;
}

replay_item item_on(const gpu_model& gpu, std::string_view profile, int count = 1) {
  const int p = find_profile(gpu, profile);
  REQUIRE(p >= 0);
  return {{p}, count};
}

const replay_policy pack_best{replay_mode::dynamic, node_choice::pack, gpu_choice::best_fit};

}  // namespace

TEST_CASE("a replay series holds the slices and GPUs in use and the rejections over time",
          "[replay][plot]") {
  const gpu_model& a100 = model_of("a100-40gb");
  const replay_fleet fleet{{&a100}, {{0, 2}}};
  const std::vector<replay_item> items{item_on(a100, "4g.20gb"), item_on(a100, "3g.20gb"),
                                       item_on(a100, "7g.40gb", 2)};
  // 4g at [0,10), 3g at [5,20), two whole GPUs at [6,8) find no room, a 3g
  // of no duration at 12 is seen for an instant, 4g at [14,30) on GPU 0.
  const std::vector<replay_pod> pods{{0, 10, 0}, {5, 20, 1}, {6, 8, 2}, {12, 12, 1}, {14, 30, 0}};
  replay_tables tables;
  replay_series series(100);
  const replay_metrics m = replay(fleet, items, pods, pack_best, {}, tables, series);
  REQUIRE(series.start() == 0);
  REQUIRE(series.end() == 30);
  REQUIRE(series.width() == 1);
  REQUIRE(series.buckets().size() == 31);
  const auto at = [&](int t) { return series.buckets()[static_cast<std::size_t>(t)]; };
  using level = replay_series::level;
  CHECK(at(0).slices == level{0, 4, 4});
  CHECK(at(3).slices == level{4, 4, 4});
  CHECK(at(5).slices == level{4, 7, 7});
  CHECK(at(6).rejected == 1);
  CHECK(at(10).slices == level{3, 7, 3});
  CHECK(at(12).slices == level{3, 6, 3});
  CHECK(at(14).slices == level{3, 7, 7});
  CHECK(at(20).slices == level{4, 7, 4});
  CHECK(at(30).slices == level{0, 4, 0});
  CHECK(at(25).gpus == level{1, 1, 1});
  CHECK(m.pods_rejected == 1);

  // Three buckets of 11: the same peaks and rejections, coarser.
  replay_series coarse(3);
  replay(fleet, items, pods, pack_best, {}, tables, coarse);
  REQUIRE(coarse.width() == 11);
  REQUIRE(coarse.buckets().size() == 3);
  CHECK(coarse.buckets()[0].slices == level{0, 7, 3});
  CHECK(coarse.buckets()[0].rejected == 1);
  CHECK(coarse.buckets()[1].slices == level{3, 7, 4});
  CHECK(coarse.buckets()[2].slices == level{0, 4, 0});
}

// Watched by a series, fine or coarse, a replay gives the same answer, at
// most `most` buckets, its peak kept and every rejection (queued: refusal)
// counted once. The replays themselves are checked against the brute force
// in tests/core/replay_test.cpp.
TEST_CASE("a replay series keeps the peak and every rejection however coarse", "[replay][plot]") {
  const gpu_model& h100 = model_of("h100-80gb");
  const std::vector<replay_item> items{item_on(h100, "1g.10gb"), item_on(h100, "2g.20gb", 2),
                                       item_on(h100, "3g.40gb"), item_on(h100, "7g.80gb", 2)};
  const std::vector<replay_policy> policies{
      pack_best,
      {replay_mode::dynamic, node_choice::spread, gpu_choice::first_fit},
      {replay_mode::dynamic, node_choice::first, gpu_choice::name_order},
      {replay_mode::dynamic, node_choice::spread, gpu_choice::first_fit, pending_rule::fifo},
      {replay_mode::dynamic, node_choice::pack, gpu_choice::best_fit, pending_rule::backfill}};
  std::mt19937 rng(4141);
  replay_tables tables;
  for (int t = 0; t < 300; ++t) {
    const replay_fleet fleet{{&h100}, {{0, 1 + t % 3}, {0, 1 + t % 2}}};
    std::vector<replay_pod> pods;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int k = 0; k < n; ++k) {
      const auto start = static_cast<std::int64_t>(rng() % 200);
      const auto length = static_cast<std::int64_t>(rng() % 60);  // 0: no duration
      pods.push_back({start, start + length, static_cast<int>(rng() % items.size())});
    }
    for (const replay_policy& policy : policies) {
      INFO("trace " << t << " policy " << static_cast<int>(policy.nodes) << "/"
                    << static_cast<int>(policy.placement) << "/"
                    << static_cast<int>(policy.pending));
      const replay_metrics plain = replay(fleet, items, pods, policy, {}, tables);
      const std::size_t most = t % 3 == 0 ? 1 : t % 3 == 1 ? 7 : 1000;
      replay_series series(most);
      const replay_metrics watched = replay(fleet, items, pods, policy, {}, tables, series);
      REQUIRE(watched == plain);
      REQUIRE(series.buckets().size() <= most);
      int peak = 0;
      std::int64_t rejected = 0;
      for (const replay_series::bucket& b : series.buckets()) {
        peak = std::max(peak, b.gpus.high);
        rejected += b.rejected;
      }
      CHECK(peak == plain.peak_gpus_in_use);
      CHECK(rejected == plain.pods_rejected);
    }
  }
}

TEST_CASE("a replay series on a fleet of two models keeps each model's use and peak",
          "[replay][plot][models]") {
  const gpu_model& h100 = model_of("h100-80gb");
  const gpu_model& a30 = model_of("a30");
  const int h1g = find_profile(h100, "1g.10gb");
  const int h3g = find_profile(h100, "3g.40gb");
  const int a1g = find_profile(a30, "1g.6gb");
  const int a2g = find_profile(a30, "2g.12gb");
  // Two items each model serves (by its own profile), one each serves alone.
  const std::vector<replay_item> items{
      {{h1g, a1g}, 1}, {{h3g, a2g}, 1}, {{h3g, -1}, 2}, {{-1, a1g}, 2}};
  std::mt19937 rng(4242);
  replay_tables tables;
  const std::vector<replay_policy> policies{
      pack_best,
      {replay_mode::dynamic, node_choice::spread, gpu_choice::first_fit, pending_rule::fifo},
      {replay_mode::dynamic, node_choice::first, gpu_choice::name_order, pending_rule::backfill}};
  for (int t = 0; t < 200; ++t) {
    const replay_fleet fleet{{&h100, &a30}, {{0, 1 + t % 2}, {1, 1 + t % 3}, {1, 1}}};
    std::vector<replay_pod> pods;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int k = 0; k < n; ++k) {
      const auto start = static_cast<std::int64_t>(rng() % 200);
      const auto length = static_cast<std::int64_t>(rng() % 60);
      pods.push_back({start, start + length, static_cast<int>(rng() % items.size())});
    }
    for (const replay_policy& policy : policies) {
      INFO("trace " << t << " policy " << static_cast<int>(policy.nodes) << "/"
                    << static_cast<int>(policy.pending));
      const replay_metrics plain = replay(fleet, items, pods, policy, {}, tables);
      const std::size_t most = t % 2 == 0 ? 7 : 1000;
      replay_series series(most);
      const replay_metrics watched = replay(fleet, items, pods, policy, {}, tables, series);
      REQUIRE(watched == plain);
      REQUIRE(series.models() == 2);
      for (std::size_t m = 0; m < 2; ++m) {
        REQUIRE(series.model_buckets(m).size() == series.buckets().size());
        int peak = 0;
        for (const replay_series::model_bucket& b : series.model_buckets(m))
          peak = std::max(peak, b.gpus.high);
        CHECK(peak == plain.models[m].peak_gpus_in_use);
      }
      // Each bucket ends with the models' use summing to the fleet's.
      for (std::size_t i = 0; i < series.buckets().size(); ++i) {
        const auto& a = series.model_buckets(0)[i];
        const auto& b = series.model_buckets(1)[i];
        CHECK(a.gpus.last + b.gpus.last == series.buckets()[i].gpus.last);
        CHECK(a.slices.last + b.slices.last == series.buckets()[i].slices.last);
      }
    }
  }
  // One model: no series per model.
  const replay_fleet one{{&h100}, {{0, 2}}};
  const std::vector<replay_item> on_one{{{h1g}, 1}};
  replay_series series(10);
  replay(one, on_one, std::vector<replay_pod>{{0, 5, 0}}, pack_best, {}, tables, series);
  CHECK(series.models() == 0);
}

// SPDX-License-Identifier: Apache-2.0
// size_for on boundary sizes, SM needs, unknown memory and the GPU arithmetic.

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <migplan/catalog.hpp>
#include <migplan/sizing.hpp>
#include <string_view>
#include <vector>

#include "support.hpp"

namespace {

using migplan::test::index_of;
using migplan::test::model;

using migplan::gpu_model;

migplan::need memory(std::int64_t mib, std::int64_t instances = 1) {
  migplan::need n;
  n.memory_mib = mib;
  n.instances = instances;
  return n;
}

}  // namespace

TEST_CASE("a need of exactly 4.75 GiB picks 1g.5gb on an A100 40GB", "[sizing]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto s = migplan::size_for(gpu, memory(4864));  // 4.75 GiB = 4864 MiB
  CHECK(s.profile == index_of(gpu, "1g.5gb"));
  CHECK(s.per_gpu == 7);
  CHECK(s.gpus == 1);
  CHECK(s.last_gpu == 1);
  CHECK(s.unknown.empty());
  CHECK(s.largest == index_of(gpu, "7g.40gb"));
  CHECK(s.full_gpu.where.size() == 7);
  // Seven 1g.5gb leave unit 7 free and no compute: unit 7 is stranded.
  CHECK(s.strands.units == 1);
  CHECK(s.strands.compute_slices == 0);
}

TEST_CASE("one MiB more than 4.75 GiB picks the next larger profile, 1g.10gb", "[sizing]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto s = migplan::size_for(gpu, memory(4865));
  // 1g.10gb and 2g.10gb both take two units; 1g.10gb uses fewer compute slices.
  CHECK(s.profile == index_of(gpu, "1g.10gb"));
  CHECK(s.per_gpu == 4);
  CHECK(s.strands.compute_slices == 3);
}

TEST_CASE(
    "each profile's exact memory picks a profile at least that big, one MiB more does not "
    "pick it",
    "[sizing]") {
  for (const gpu_model& gpu : migplan::catalog()) {
    for (std::size_t i = 0; i < gpu.profiles.size(); ++i) {
      const migplan::profile& p = gpu.profiles[i];
      if (!p.memory_gib_x100) continue;
      // GiB x 100 to MiB, rounded down: the largest need this profile meets.
      const std::int64_t mib = std::int64_t{*p.memory_gib_x100} * 1024 / 100;
      INFO(gpu.slug << " " << p.name << ": " << mib << " MiB");
      const auto at = migplan::size_for(gpu, memory(mib));
      REQUIRE(at.profile >= 0);
      const migplan::profile& chosen = gpu.profiles[static_cast<std::size_t>(at.profile)];
      CHECK(*chosen.memory_gib_x100 >= *p.memory_gib_x100);
      CHECK(chosen.size <= p.size);
      const auto above = migplan::size_for(gpu, memory(mib + 1));
      if (above.profile >= 0) {
        const migplan::profile& bigger = gpu.profiles[static_cast<std::size_t>(above.profile)];
        CHECK(*bigger.memory_gib_x100 > *p.memory_gib_x100);
      }
    }
  }
}

TEST_CASE("a need bigger than the whole GPU picks nothing and names the 7g as the largest",
          "[sizing]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto s = migplan::size_for(gpu, memory(40960));  // 40 GiB > 39.25 GiB
  CHECK(s.profile == -1);
  CHECK(s.largest == index_of(gpu, "7g.40gb"));
  CHECK(s.per_gpu == 0);
  CHECK(s.gpus == 0);
  // 39.25 GiB itself still fits the 7g.
  const auto full = migplan::size_for(gpu, memory(39 * 1024 + 256));
  CHECK(full.profile == index_of(gpu, "7g.40gb"));
  CHECK(full.per_gpu == 1);
}

TEST_CASE("an SM need skips profiles with too few SMs", "[sizing]") {
  const gpu_model& gpu = model("a100-40gb");
  migplan::need n = memory(1024);
  n.sms = 15;  // every 1g has 14
  const auto s = migplan::size_for(gpu, n);
  CHECK(s.profile == index_of(gpu, "2g.10gb"));
  CHECK(s.per_gpu == 3);
  n.sms = 14;
  CHECK(migplan::size_for(gpu, n).profile == index_of(gpu, "1g.5gb"));
  n.sms = 99;  // more than the 7g.40gb's 98
  CHECK(migplan::size_for(gpu, n).profile == -1);
}

TEST_CASE("an SM need on the H100 80GB picks 1g.20gb for its 26 SMs", "[sizing]") {
  // 1g.20gb has more SMs than 1g.10gb (26 vs 16) and still one compute slice.
  const gpu_model& gpu = model("h100-80gb");
  migplan::need n = memory(1024);
  n.sms = 20;
  const auto s = migplan::size_for(gpu, n);
  CHECK(s.profile == index_of(gpu, "1g.20gb"));
  CHECK(s.per_gpu == 4);
}

TEST_CASE("a model with unknown memory picks nothing and lists every profile as unknown",
          "[sizing]") {
  const gpu_model& gpu = model("b300");
  const auto s = migplan::size_for(gpu, memory(1024));
  CHECK(s.profile == -1);
  CHECK(s.largest == -1);
  std::vector<int> all;
  for (int p = 0; p < static_cast<int>(gpu.profiles.size()); ++p) all.push_back(p);
  CHECK(s.unknown == all);
  CHECK(s.gpus == 0);
}

TEST_CASE("unknown SM counts are listed when SMs matter and skipped", "[sizing]") {
  // b200 3g/4g/7g memory and SMs are unknown; 2g.45gb (36 SMs) is the only known fit.
  const gpu_model& gpu = model("b200");
  migplan::need n = memory(1024);
  n.sms = 31;
  const auto s = migplan::size_for(gpu, n);
  CHECK(s.profile == index_of(gpu, "2g.45gb"));
  CHECK(s.unknown == std::vector<int>{index_of(gpu, "3g.90gb"), index_of(gpu, "4g.90gb"),
                                      index_of(gpu, "7g.180gb")});
}

TEST_CASE("ten instances of a two-per-GPU profile need five GPUs", "[sizing]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto s = migplan::size_for(gpu, memory(19 * 1024, 10));  // 3g.20gb: 19.50 GiB
  CHECK(s.profile == index_of(gpu, "3g.20gb"));
  CHECK(s.per_gpu == 2);
  CHECK(s.gpus == 5);
  CHECK(s.last_gpu == 2);
  CHECK(s.full_gpu.where.size() == 2);
  CHECK(s.strands.units == 0);
  CHECK(s.strands.compute_slices == 1);

  const auto eleven = migplan::size_for(gpu, memory(19 * 1024, 11));
  CHECK(eleven.gpus == 6);
  CHECK(eleven.last_gpu == 1);

  const auto one = migplan::size_for(gpu, memory(19 * 1024, 1));
  CHECK(one.gpus == 1);
  CHECK(one.last_gpu == 1);

  const auto none = migplan::size_for(gpu, memory(19 * 1024, 0));  // treated as one
  CHECK(none.gpus == 1);
}

TEST_CASE("a large instance count is plain arithmetic", "[sizing]") {
  const gpu_model& gpu = model("a100-40gb");
  const auto s = migplan::size_for(gpu, memory(4864, 7'000'000'001));
  CHECK(s.per_gpu == 7);
  CHECK(s.gpus == 1'000'000'001);
  CHECK(s.last_gpu == 1);
}

TEST_CASE("a need of INT64_MAX MiB meets no profile and overflows nothing", "[sizing]") {
  constexpr std::int64_t most = std::numeric_limits<std::int64_t>::max();
  for (const gpu_model& gpu : migplan::catalog()) {
    INFO(gpu.slug);
    for (const migplan::profile& p : gpu.profiles) {
      INFO(p.name);
      CHECK_FALSE(migplan::meets(p, memory(most)));
      // The first need whose MiB x 100 no longer fits an int64.
      CHECK_FALSE(migplan::meets(p, memory(most / 100 + 1)));
    }
  }
  const gpu_model& gpu = model("a100-40gb");
  const auto s = migplan::size_for(gpu, memory(most));
  CHECK(s.profile == -1);
  CHECK(s.largest == index_of(gpu, "7g.40gb"));
  CHECK(s.gpus == 0);
}

TEST_CASE("a negative memory need is met by every profile with known memory", "[sizing]") {
  constexpr std::int64_t least = std::numeric_limits<std::int64_t>::min();
  for (const gpu_model& gpu : migplan::catalog()) {
    INFO(gpu.slug);
    for (const migplan::profile& p : gpu.profiles) {
      INFO(p.name);
      CHECK(migplan::meets(p, memory(least)) == p.memory_gib_x100.has_value());
      CHECK(migplan::meets(p, memory(-1)) == p.memory_gib_x100.has_value());
    }
  }
  const gpu_model& gpu = model("a100-40gb");
  CHECK(migplan::size_for(gpu, memory(least)).profile == index_of(gpu, "1g.5gb"));
}

TEST_CASE("INT64_MAX instances need exactly ceil(INT64_MAX / per GPU) GPUs", "[sizing]") {
  constexpr std::int64_t most = std::numeric_limits<std::int64_t>::max();
  const gpu_model& gpu = model("a100-40gb");
  // 2^63 - 1 = 7 * 1317624576693539401: seven per GPU divide it exactly.
  const auto seven = migplan::size_for(gpu, memory(4864, most));
  REQUIRE(seven.per_gpu == 7);
  CHECK(seven.gpus == 1'317'624'576'693'539'401);
  CHECK(seven.last_gpu == 7);
  // Two per GPU (3g.20gb) leave one instance for a last GPU: 2^62 GPUs in all.
  const auto two = migplan::size_for(gpu, memory(19 * 1024, most));
  REQUIRE(two.per_gpu == 2);
  CHECK(two.gpus == std::int64_t{1} << 62);
  CHECK(two.last_gpu == 1);
}

TEST_CASE("the largest profile is the one with the most memory, then the most compute",
          "[sizing]") {
  // b200's 1g.45gb and 2g.45gb both have 44.25 GiB: the 1g came first in the
  // catalog and was named the largest, the smaller of the two.
  const gpu_model& b200 = model("b200");
  CHECK(migplan::size_for(b200, memory(50 * 1024)).largest == index_of(b200, "2g.45gb"));
  const gpu_model& gh = model("gh200-144gb");
  CHECK(migplan::size_for(gh, memory(1024 * 1024)).largest == index_of(gh, "2g.36gb"));
  for (const gpu_model& gpu : migplan::catalog()) {
    INFO(gpu.slug);
    const auto s = migplan::size_for(gpu, memory(std::int64_t{1} << 40));
    if (s.largest < 0) continue;
    const migplan::profile& big = gpu.profiles[static_cast<std::size_t>(s.largest)];
    for (const migplan::profile& p : gpu.profiles) {
      INFO(p.name);
      if (!p.memory_gib_x100) continue;
      CHECK(*p.memory_gib_x100 <= *big.memory_gib_x100);
      if (*p.memory_gib_x100 == *big.memory_gib_x100) CHECK(p.compute_slices <= big.compute_slices);
    }
  }
}

TEST_CASE("with an SM need, a profile of unknown SMs is never named the largest", "[sizing]") {
  // It was left out as unknown ("not considered") and still named the largest.
  // A copy of the A100-40GB whose 7g.40gb has no SM count, as a model file may.
  const gpu_model& a100 = model("a100-40gb");
  std::vector<migplan::profile> profiles(a100.profiles.begin(), a100.profiles.end());
  const auto full = static_cast<std::size_t>(index_of(a100, "7g.40gb"));
  profiles[full].sm_count.reset();
  gpu_model copy = a100;
  copy.profiles = profiles;
  migplan::need n = memory(40 * 1024);
  n.sms = 1;
  const auto s = migplan::size_for(copy, n);
  CHECK(s.profile == -1);
  CHECK(s.unknown == std::vector<int>{static_cast<int>(full)});
  // 3g.20gb and 4g.20gb have the most memory left (19.50 GiB); 4g.20gb the most compute.
  CHECK(s.largest == index_of(a100, "4g.20gb"));
  // Without the SM need the 7g.40gb counts again.
  CHECK(migplan::size_for(copy, memory(40 * 1024)).largest == static_cast<int>(full));
}

// SPDX-License-Identifier: Apache-2.0
// GPU indexes and node names written as ranges: the documented forms, and on
// random lists, an independent expansion of the text gives the names back.

#include "render/ranges.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

using migplan::cli::render::name_ranges;
using migplan::cli::render::number_ranges;

namespace {

// Expands "a[0-3,5],b" back into names, as a host-list reader would: a range
// FIRST-LAST counts up, each number written as wide as FIRST.
std::set<std::string> expand(const std::string& text) {
  std::set<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t open = text.find('[', i), comma = text.find(',', i);
    if (open == std::string::npos || (comma != std::string::npos && comma < open)) {
      const std::size_t end = comma == std::string::npos ? text.size() : comma;
      out.insert(text.substr(i, end - i));
      i = end + 1;
      continue;
    }
    const std::string prefix = text.substr(i, open - i);
    const std::size_t close = text.find(']', open);
    REQUIRE(close != std::string::npos);
    const std::string body = text.substr(open + 1, close - open - 1);
    std::size_t k = 0;
    while (k <= body.size()) {
      std::size_t e = body.find(',', k);
      if (e == std::string::npos) e = body.size();
      const std::string part = body.substr(k, e - k);
      const std::size_t dash = part.find('-');
      if (dash == std::string::npos) {
        out.insert(prefix + part);
      } else {
        const std::string first = part.substr(0, dash);
        const long long a = std::stoll(first), b = std::stoll(part.substr(dash + 1));
        REQUIRE(a < b);
        for (long long v = a; v <= b; ++v)
          out.insert(prefix + fmt::format("{:0{}}", v, first.size()));
      }
      k = e + 1;
    }
    i = close + 2;  // past "]" and its ","
  }
  return out;
}

}  // namespace

TEST_CASE("ranges: numbers are ascending runs, duplicates once", "[ranges]") {
  CHECK(number_ranges({}).empty());
  CHECK(number_ranges({4}) == "4");
  CHECK(number_ranges({3, 0, 1, 2, 5, 7, 6, 2}) == "0-3,5-7");
  CHECK(number_ranges({0, 2, 4}) == "0,2,4");
}

TEST_CASE("ranges: node names share their prefix in brackets", "[ranges]") {
  CHECK(name_ranges({}).empty());
  std::vector<std::string> a;
  for (int i = 0; i < 8; ++i) a.push_back(fmt::format("gpu-a{}", i));
  CHECK(name_ranges(a) == "gpu-a[0-7]");
  CHECK(name_ranges({"gpu-a0", "gpu-a1", "gpu-a2", "gpu-a3", "gpu-a5"}) == "gpu-a[0-3,5]");
  // Alone of its prefix, without a number, or with characters of the notation: as is.
  CHECK(name_ranges({"gpu-a7"}) == "gpu-a7");
  CHECK(name_ranges({"login", "gpu-b1", "gpu-b0", "login"}) == "login,gpu-b[0-1]");
  CHECK(name_ranges({"odd[1]", "odd,2"}) == "odd[1],odd,2");
  // Padding is kept, and a run only joins names written at its width.
  CHECK(name_ranges({"n08", "n09", "n10", "n11"}) == "n[08-11]");
  CHECK(name_ranges({"n8", "n9", "n10"}) == "n[8-10]");
  CHECK(name_ranges({"n9", "n09", "n10"}) == "n[9,09-10]");
  CHECK(name_ranges({"a1", "b1", "a2"}) == "a[1-2],b1");
}

TEST_CASE("ranges: random host lists expand back to their names", "[ranges]") {
  std::mt19937 rng(19);
  const std::vector<std::string> prefixes{"gpu-a", "gpu-b", "n", "rack1-node", ""};
  for (int round = 0; round < 500; ++round) {
    std::vector<std::string> names;
    const int n = std::uniform_int_distribution<int>(1, 30)(rng);
    for (int k = 0; k < n; ++k) {
      const auto& p = prefixes[std::uniform_int_distribution<std::size_t>(0, 4)(rng)];
      const int v = std::uniform_int_distribution<int>(0, 40)(rng);
      const int pad = std::uniform_int_distribution<int>(0, 2)(rng);
      if (std::uniform_int_distribution<int>(0, 9)(rng) == 0)
        names.push_back(p.empty() ? "login" : p);  // a name without a number
      else
        names.push_back(p + fmt::format("{:0{}}", v, pad == 2 ? 3 : 1));
    }
    const std::string text = name_ranges(names);
    INFO(text);
    CHECK(expand(text) == std::set<std::string>(names.begin(), names.end()));
  }
}

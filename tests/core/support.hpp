// SPDX-License-Identifier: Apache-2.0
#pragma once

// Shorthands the core tests share: models and profiles by name, and requests
// written as "2x1g.5gb 3g.20gb@4" (the tests' own parser, not the CLI's).

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <migplan/catalog.hpp>
#include <migplan/layout.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace migplan::test {

/// The catalog model with this slug (the test fails without one).
inline const gpu_model& model(std::string_view slug) {
  const gpu_model* m = find_model(slug);
  REQUIRE(m != nullptr);
  return *m;
}

/// Index of a profile by name on `gpu` (the test fails without one).
inline int index_of(const gpu_model& gpu, std::string_view name) {
  const int p = find_profile(gpu, name);
  INFO("profile " << name << " on " << gpu.slug);
  REQUIRE(p >= 0);
  return p;
}

/// "2x1g.5gb 3g.20gb@4" -> items.
inline std::vector<item> request(const gpu_model& gpu, std::string_view text) {
  std::vector<item> out;
  std::istringstream in{std::string(text)};
  std::string word;
  while (in >> word) {
    int count = 1;
    if (const auto x = word.find('x');
        x != std::string::npos && x > 0 &&
        std::all_of(word.begin(), word.begin() + static_cast<long>(x),
                    [](char c) { return c >= '0' && c <= '9'; })) {
      count = std::stoi(word.substr(0, x));
      word = word.substr(x + 1);
    }
    int start = item::any_start;
    if (const auto at = word.find('@'); at != std::string::npos) {
      start = std::stoi(word.substr(at + 1));
      word = word.substr(0, at);
    }
    const int p = index_of(gpu, word);
    for (int k = 0; k < count; ++k) out.push_back({p, start});
  }
  return out;
}

/// Calls f(items, n) for every multiset of `gpu`'s profiles with counts
/// 0 <= n[p] <= max_instances + beyond (items: one unpinned item per instance).
template <class F>
void each_multiset(const gpu_model& gpu, F&& f, int beyond = 0) {
  const std::size_t np = gpu.profiles.size();
  std::vector<int> n(np, 0);
  while (true) {
    std::vector<item> items;
    for (std::size_t p = 0; p < np; ++p)
      for (int k = 0; k < n[p]; ++k) items.push_back({static_cast<int>(p)});
    f(static_cast<const std::vector<item>&>(items), static_cast<const std::vector<int>&>(n));
    std::size_t p = 0;
    while (p < np && n[p] == gpu.profiles[p].max_instances + beyond) n[p++] = 0;
    if (p == np) return;
    ++n[p];
  }
}

/// The whole file at `path` (the test fails when it cannot be read).
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path.string());
  REQUIRE(in.good());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace migplan::test

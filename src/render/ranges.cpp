// SPDX-License-Identifier: Apache-2.0
#include "render/ranges.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <string_view>
#include <utility>

namespace migplan::cli::render {
namespace {

// A name split before its trailing number: "gpu-a" and 5 from "gpu-a05" (with
// its digits, for the padding).
struct split_name {
  std::string prefix;
  long long number = 0;
  std::string digits;
};

// At most 18 digits: any such number fits a long long.
constexpr std::size_t max_digits = 18;

bool split(const std::string& name, split_name& out) {
  if (name.find_first_of("[],") != std::string::npos) return false;
  std::size_t b = name.size();
  while (b > 0 && name[b - 1] >= '0' && name[b - 1] <= '9') --b;
  if (b == name.size() || name.size() - b > max_digits) return false;
  out.prefix = name.substr(0, b);
  out.digits = name.substr(b);
  out.number = 0;
  for (const char c : out.digits) out.number = out.number * 10 + (c - '0');
  return true;
}

}  // namespace

std::string number_ranges(std::vector<long long> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", v[i]) : fmt::format("{}-{}", v[i], v[j]);
    i = j + 1;
  }
  return out;
}

std::string name_ranges(const std::vector<std::string>& names) {
  // Entries in order of first appearance: a prefix with its numbered names, or
  // a name written as it is.
  struct entry {
    std::string literal;                                     // when not a prefix
    std::vector<std::pair<long long, std::string>> numbers;  // (number, digits)
  };
  std::vector<entry> entries;
  std::map<std::string, std::size_t> prefix_at;
  std::map<std::string, bool> seen;
  for (const std::string& n : names) {
    if (seen[n]) continue;
    seen[n] = true;
    split_name s;
    if (!split(n, s)) {
      entries.push_back({n, {}});
      continue;
    }
    auto [it, fresh] = prefix_at.try_emplace(s.prefix, entries.size());
    if (fresh) entries.push_back({s.prefix, {}});
    entries[it->second].numbers.emplace_back(s.number, s.digits);
  }
  std::string out;
  for (entry& e : entries) {
    if (!out.empty()) out += ',';
    if (e.numbers.empty()) {
      out += e.literal;
      continue;
    }
    if (e.numbers.size() == 1) {
      out += e.literal + e.numbers.front().second;
      continue;
    }
    // By number, then by padding ("5" before "05"): a run goes on while the
    // next number is one more and its digits are the run's padding of it.
    std::sort(e.numbers.begin(), e.numbers.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second.size() < b.second.size();
    });
    std::string parts;
    for (std::size_t i = 0; i < e.numbers.size();) {
      const std::size_t width = e.numbers[i].second.size();
      const auto padded = [&](long long v) { return fmt::format("{:0{}}", v, width); };
      std::size_t j = i;
      while (j + 1 < e.numbers.size() && e.numbers[j + 1].first == e.numbers[j].first + 1 &&
             e.numbers[j + 1].second == padded(e.numbers[j + 1].first))
        ++j;
      if (!parts.empty()) parts += ',';
      parts += j == i ? e.numbers[i].second : e.numbers[i].second + "-" + e.numbers[j].second;
      i = j + 1;
    }
    out += e.literal + "[" + parts + "]";
  }
  return out;
}

}  // namespace migplan::cli::render

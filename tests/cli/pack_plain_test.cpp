// SPDX-License-Identifier: Apache-2.0
// A plain one-shot `pack` line (profiles, --json, --all, --gpu) is read
// without CLI11 (plain_pack_options, for start-up time): it must read every
// line it takes as CLI11 does, and leave every other line to CLI11. Each
// line is run twice, as given and with its options first and its profiles
// after "--" (which plain_pack_options refuses, so CLI11 reads it), and
// the two runs must write the same bytes and exit alike.

#include <catch2/catch.hpp>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "io/pack_options.hpp"
#include "run_binary.hpp"

using migplan::cli::pack_options;
using migplan::cli::plain_pack_options;
using migplan::test::run_migplan;

namespace {

std::optional<pack_options> plain(const std::vector<std::string>& args) {
  return plain_pack_options(args);
}

std::string joined(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) out += (out.empty() ? "'" : " '") + a + "'";
  return out;
}

}  // namespace

TEST_CASE("plain_pack_options takes profiles, --json, --all and --gpu", "[pack][plain]") {
  const auto o = plain({"--json", "3g.40gb", "-a", "--gpu", "h100-80gb", "2x1g.10gb"});
  REQUIRE(o);
  CHECK(o->json);
  CHECK(o->all);
  CHECK(o->gpu == "h100-80gb");
  CHECK(o->items == std::vector<std::string>{"3g.40gb", "2x1g.10gb"});
  CHECK(plain({"--gpu=a30-24gb", "1g.6gb"})->gpu == "a30-24gb");
  CHECK(plain({"-g", "a30-24gb", "1g.6gb"})->gpu == "a30-24gb");
  const auto none = plain({});
  REQUIRE(none);
  CHECK(none->items.empty());
  CHECK_FALSE(none->gpu);
}

TEST_CASE("plain_pack_options leaves every other line to the parser", "[pack][plain]") {
  const std::vector<std::vector<std::string>> others{
      {"--help"},
      {"-h"},
      {"--", "1g.10gb"},
      {"--json", "--json", "1g.10gb"},
      {"-a", "--all", "1g.10gb"},
      {"--gpu", "a", "--gpu", "b", "1g.10gb"},
      {"--gpu"},
      {"--gpu", "--json", "1g.10gb"},
      {"--gpu="},
      {"--gpu=-x", "1g.10gb"},
      {"--gpu", ""},
      {""},
      {"1g.10gb", ""},
      {"--batch", "-"},
      {"--emit", "nvml", "1g.10gb"},
      {"--plot", "-", "1g.10gb"},
      {"--jsn", "1g.10gb"},
      {"-aj", "1g.10gb"},
      {"-", "1g.10gb"},
      {"--json=true", "1g.10gb"},
      {"-g=a30-24gb", "1g.6gb"},
      {"--gpu-file", "m.json", "1g.10gb"},
  };
  for (const auto& line : others) {
    INFO(joined(line));
    CHECK_FALSE(plain(line));
  }
}

TEST_CASE("a plain pack line answers as the parser's reading of it does",
          "[pack][plain][exhaustive]") {
  // Profiles that fit, that do not, that are ambiguous across models, that
  // are malformed or unknown, and words that name other commands; options
  // in any order, a GPU known, unknown or ambiguous.
  const std::vector<std::string> items{
      "1g.10gb", "2x1g.10gb", "3g.40gb",    "4g.20gb",           "2g.10gb",   "1g.5gb",
      "7g.80gb", "3g.40gb@4", "1g.10gb+me", "1g.5gb[1c.1g.5gb]", "9x1g.10gb", "4g.20gbx",
      "foo",     "gpus",      "pack",       "\xc3\xbc",          "1g.10gb ",  "0x1g.10gb"};
  const std::vector<std::vector<std::string>> options{{},
                                                      {"--json"},
                                                      {"-a"},
                                                      {"--all"},
                                                      {"--gpu", "h100-80gb"},
                                                      {"-g", "a100-40gb"},
                                                      {"--gpu=a30-24gb"},
                                                      {"--gpu", "h100"},
                                                      {"--gpu", "nosuchgpu"},
                                                      {"--gpu", "a100"}};
  std::mt19937 rng(20261206);
  int plain_lines = 0;
  const auto pick = [&rng](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  for (int round = 0; round < 60; ++round) {
    std::vector<std::vector<std::string>> flags;
    for (std::size_t k = pick(3); k > 0; --k) flags.push_back(options[pick(options.size())]);
    std::vector<std::string> profiles;
    for (std::size_t k = pick(5); k > 0; --k) profiles.push_back(items[pick(items.size())]);
    // As given: the options spread among the profiles.
    std::vector<std::string> given{"pack"};
    std::size_t next = 0;
    for (const auto& f : flags) {
      if (next < profiles.size() && pick(2) == 0) given.push_back(profiles[next++]);
      given.insert(given.end(), f.begin(), f.end());
    }
    given.insert(given.end(), profiles.begin() + static_cast<std::ptrdiff_t>(next), profiles.end());
    // For the parser: options first, then "--" and the profiles.
    std::vector<std::string> parsed{"pack"};
    for (const auto& f : flags) parsed.insert(parsed.end(), f.begin(), f.end());
    parsed.push_back("--");
    parsed.insert(parsed.end(), profiles.begin(), profiles.end());
    INFO(joined(given));
    if (plain({given.begin() + 1, given.end()})) ++plain_lines;
    REQUIRE_FALSE(plain({parsed.begin() + 1, parsed.end()}));
    const auto a = run_migplan(given);
    const auto b = run_migplan(parsed);
    CHECK(a.out == b.out);
    CHECK(a.err == b.err);
    CHECK(a.code == b.code);
  }
  // Most lines are plain ones (the others give an option twice: the parser
  // reads both runs of those).
  CHECK(plain_lines >= 30);
}

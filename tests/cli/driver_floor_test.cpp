// SPDX-License-Identifier: Apache-2.0
// The driver floors on the built binary: `gpus` and `profiles` show each model's first
// driver with MIG and the profiles that came later, in text and JSON; a model without a
// known floor says so rather than guess.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "run_binary.hpp"

using migplan::test::run_migplan;
using json = nlohmann::json;

namespace {

// The line of `text` that starts with `head`, or "".
std::string line_starting(const std::string& text, const std::string& head) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(head)) return line;
  return {};
}

}  // namespace

TEST_CASE("gpus shows the first driver with MIG on each model", "[gpus][driver][cli]") {
  const auto r = run_migplan({"gpus"});
  REQUIRE(r.code == 0);
  CHECK(line_starting(r.out, "gpu ").find("min driver") != std::string::npos);
  CHECK(line_starting(r.out, "a30 ").find("  460.73.01  ") != std::string::npos);
  // No PCI ID is known for it: the line ends at its driver.
  CHECK(line_starting(r.out, "rtx-pro-4500 ").ends_with("  575.64"));
  // The GB300 DGX Station's R595 is not the 0x31C2 board's floor: unknown.
  const std::string gb300 = line_starting(r.out, "gb300 ");
  CHECK(gb300.find("  ?  ") != std::string::npos);
  CHECK(gb300.find("595") == std::string::npos);
}

TEST_CASE("gpus --json gives each model's driver floor, null when unknown",
          "[gpus][driver][json][cli]") {
  const auto r = run_migplan({"gpus", "--json"});
  REQUIRE(r.code == 0);
  const json doc = json::parse(r.out);
  int known = 0;
  for (const json& g : doc.at("gpus")) {
    INFO(g.at("id"));
    REQUIRE(g.contains("min_driver"));
    REQUIRE(g.contains("min_driver_version"));
    CHECK(g.at("min_driver").is_null() == g.at("min_driver_version").is_null());
    if (g.at("id") == "a100-40gb") {
      CHECK(g.at("min_driver") == "R450");
      CHECK(g.at("min_driver_version") == "450.80.02");
    }
    if (g.at("id") == "gh200-96gb") CHECK(g.at("min_driver").is_null());
    known += g.at("min_driver").is_string();
  }
  CHECK(known >= 14);
}

TEST_CASE("profiles names the model's floor and each profile that came later",
          "[profiles][driver][cli]") {
  const auto r = run_migplan({"profiles", "--gpu", "a30"});
  REQUIRE(r.code == 0);
  CHECK(line_starting(r.out, "  minimum driver:") ==
        "  minimum driver: R460 (>= 460.73.01) for MIG (NVIDIA's MIG guide); 1g.6gb+me from "
        "R470, 2g.12gb+me from R525");
  const auto unknown = run_migplan({"profiles", "--gpu", "gb300"});
  REQUIRE(unknown.code == 0);
  CHECK(line_starting(unknown.out, "  minimum driver:") == "  minimum driver: unknown for MIG");

  const auto j = run_migplan({"profiles", "--gpu", "a100-40gb", "--json"});
  REQUIRE(j.code == 0);
  const json g = json::parse(j.out).at("gpus").at(0);
  CHECK(g.at("min_driver") == "R450");
  CHECK(g.at("min_driver_version") == "450.80.02");
  // A profile's own floor stays its own: null where it is the model's.
  for (const json& p : g.at("profiles")) {
    INFO(p.at("name"));
    if (p.at("name") == "1g.10gb") CHECK(p.at("min_driver") == "R525");
    if (p.at("name") == "7g.40gb") CHECK(p.at("min_driver").is_null());
  }
}

TEST_CASE("the RTX PRO 4500 is found by slug and nvidia-smi name and planned on",
          "[gpus][driver][cli]") {
  const auto by_name = run_migplan({"pack", "--gpu", "NVIDIA RTX PRO 4500 Blackwell", "2x1g.16gb"});
  CHECK(by_name.code == 0);
  const auto too_many = run_migplan({"pack", "--gpu", "rtx-pro-4500", "3x1g.16gb"});
  CHECK(too_many.code == 1);  // two instances at most, as the guide says
}

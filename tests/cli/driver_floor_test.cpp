// SPDX-License-Identifier: Apache-2.0
// The driver floors on the built binary: `gpus` and `profiles` show each model's first
// driver with MIG and the profiles that came later, in text and JSON; a model without a
// known floor says so rather than guess.

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

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

namespace {

// An A100-40GB -lgi listing headed with `driver`: a 3g.20gb and a 1g.10gb
// (a profile from R525 on).
std::string a100_listing(const std::string& driver) {
  return "# driver: " + driver +
         "\n"
         "+----------------------------------------------------+\n"
         "| GPU instances:                                     |\n"
         "| GPU   Name          Profile  Instance   Placement  |\n"
         "|                       ID       ID       Start:Size |\n"
         "|====================================================|\n"
         "|   0  MIG 3g.20gb       9        1          4:4     |\n"
         "+----------------------------------------------------+\n"
         "|   0  MIG 1g.10gb      15        2          0:2     |\n"
         "+----------------------------------------------------+\n";
}

}  // namespace

TEST_CASE("pack --current warns when a listing's driver misses a floor", "[pack][driver][cli]") {
  const std::vector<std::string> args{"pack", "--gpu", "a100-40gb", "--current", "-", "1g.5gb"};
  // R470: MIG is there, 1g.10gb is not yet.
  auto r = run_migplan(args, a100_listing("470.57.02"));
  CHECK(r.code == 0);
  CHECK(r.err ==
        "migplan: warning: <stdin>: driver 470.57.02 shows a 1g.10gb instance, which a100-40gb "
        "has from R525 on (NVIDIA's MIG guide); check the driver the capture names\n");
  // Before R450: no MIG at all on an A100.
  r = run_migplan(args, a100_listing("440.33.01"));
  CHECK(r.code == 0);
  CHECK(
      r.err.starts_with("migplan: warning: <stdin>: driver 440.33.01 is older than R450 (>= "
                        "450.80.02), the first NVIDIA's MIG guide gives for MIG on a100-40gb\n"));
  // A driver that has both, or no driver line: nothing to say.
  r = run_migplan(args, a100_listing("535.183.01"));
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  const std::string plain = a100_listing("x").substr(a100_listing("x").find('\n') + 1);
  r = run_migplan(args, plain);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
}

TEST_CASE("place and simulate note a listing's driver that misses a floor",
          "[place][simulate][driver][cli]") {
  const auto p = run_migplan({"place", "1g.5gb", "--gpu", "a100-40gb", "--current", "-", "--json"},
                             a100_listing("470.57.02"));
  CHECK(p.code == 0);
  const json j = json::parse(p.out);
  bool noted = false;
  for (const json& n : j["notes"])
    noted = noted || n.get<std::string>().starts_with(
                         "<stdin>: driver 470.57.02 shows a 1g.10gb instance, which a100-40gb "
                         "has from R525 on");
  CHECK(noted);
  const std::string trace = std::string(P_tmpdir) + "/migplan-driver-floor-trace.csv";
  std::ofstream(trace) << "start,item\n0,1g.5gb\n";
  const auto sim = run_migplan(
      {"simulate", "--trace", trace, "--gpu", "a100-40gb", "--current", "-", "--policy", "static"},
      a100_listing("470.57.02"));
  std::remove(trace.c_str());
  CHECK(sim.code == 1);  // the listing's geometry has no 1g.5gb
  CHECK(sim.err ==
        "migplan: note: <stdin>: driver 470.57.02 shows a 1g.10gb instance, which a100-40gb has "
        "from R525 on (NVIDIA's MIG guide); check the driver the capture names\n");
}

// SPDX-License-Identifier: Apache-2.0
// `migplan check`: golden runs of the built binary (stdout, stderr and the exit
// code asserted separately, diagnostics as full text), plus the pieces of the
// reader that mirror mig-parted's own rules, in-process.

#include "render/check.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <migplan/catalog.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "io/check_input.hpp"
#include "run_binary.hpp"

using migplan::test::run_migplan;
using migplan::test::source_path;
using migplan::test::test_path;

namespace {

std::string check_fixture(const std::string& name) { return test_path("fixtures/check/" + name); }

// `text` with every "{F}" replaced by `path` (diagnostics start with the path).
std::string with_path(std::string text, const std::string& path) {
  for (std::size_t at = text.find("{F}"); at != std::string::npos; at = text.find("{F}", at))
    text.replace(at, 3, path), at += path.size();
  return text;
}

}  // namespace

TEST_CASE("check --help describes the command and its exit codes", "[check]") {
  const auto r = run_migplan({"check", "--help"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("--format") != std::string::npos);
  CHECK(r.out.find("--gpu") != std::string::npos);
  CHECK(r.out.find("Exit codes: 0 valid, 1 a geometry invalid, 2 a file unreadable or "
                   "malformed.") != std::string::npos);
}

TEST_CASE("check needs a file", "[check]") {
  const auto r = run_migplan({"check"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "migplan: check: no files given (name files or directories, or - for standard input)\n");
}

TEST_CASE("check reports on stdout, as every command answers, and leaves stderr empty", "[check]") {
  const auto r = run_migplan({"check", check_fixture("valid.yaml")});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out == "checked 1 file: 1 geometry valid, 0 invalid\n");
}

TEST_CASE("check reports instances pinned onto the same units", "[check]") {
  const std::string f = check_fixture("overlap.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      with_path(
          R"({F}:5:5: error: 'pinned' does not fit on a100-40gb: the totals fit but no arrangement of the allowed starts on a100-40gb does: 2g.10gb@4 3g.20gb@4 cannot be placed together
    instances: ["3g.20gb@4", "2g.10gb@4"]
    ^
  closest fit: drop 2g.10gb@4 -> 3g.20gb@4
  closest fit: drop 3g.20gb@4 -> 2g.10gb@4
checked 1 file: 0 geometries valid, 1 invalid
)",
          f));
}

TEST_CASE("check reports more instances of a profile than its cap", "[check]") {
  const std::string f = check_fixture("over-cap.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      with_path(
          R"({F}:5:9: error: 'gpus[0]' does not fit on a100-40gb: 1g.5gb allows at most 7 instances on a100-40gb (the request has 8)
      - 8x1g.5gb
        ^
  closest fit: drop 1g.5gb -> 1g.5gb@0 1g.5gb@1 1g.5gb@2 1g.5gb@3 1g.5gb@4 1g.5gb@5 1g.5gb@6
checked 1 file: 0 geometries valid, 1 invalid
)",
          f));
}

TEST_CASE("check reports too many compute slices", "[check]") {
  const std::string f = check_fixture("compute.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      with_path(
          R"({F}:5:5: error: 'too-much-compute' does not fit on a100-40gb: 2 x 2g.10gb (2 slices each) + 1 x 4g.20gb (4 slices) = 8 compute slices but a100-40gb has 7
    instances: [4g.20gb, 2x2g.10gb]
    ^
  closest fit: drop 2g.10gb -> 4g.20gb@0 2g.10gb@4
  closest fit: drop 4g.20gb -> 2g.10gb@0 2g.10gb@2
checked 1 file: 0 geometries valid, 1 invalid
)",
          f));
}

TEST_CASE("check reports two +me instances", "[check]") {
  const std::string f = check_fixture("two-me.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      with_path(
          R"({F}:5:18: error: 'media' does not fit on h100-80gb: 1g.10gb+me allows at most 1 instance on h100-80gb (the request has 2)
    instances: ["1g.10gb+me", "1g.10gb+me", "3g.40gb"]
                 ^
  closest fit: drop 1g.10gb+me -> 1g.10gb+me@0 3g.40gb@4
checked 1 file: 0 geometries valid, 1 invalid
)",
          f));
}

TEST_CASE("check names the model a foreign profile belongs to", "[check]") {
  const std::string f = check_fixture("other-model.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      with_path(
          R"({F}:5:29: error: unknown profile '4g.96gb+gfx' on a100-40gb (it is a profile of rtx-pro-6000)
    instances: ["3g.20gb", "4g.96gb+gfx"]
                            ^
checked 1 file: 0 geometries valid, 1 invalid
)",
          f));
}

TEST_CASE("check suggests the nearest profile for a misspelt name", "[check]") {
  const std::string f = check_fixture("misspelt.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(r.out ==
        with_path(R"({F}:7:9: error: unknown profile '1g.5bg' on a100-40gb (did you mean 1g.5gb?)
      - 2x1g.5bg
        ^
checked 1 file: 0 geometries valid, 1 invalid
)",
                  f));
}

TEST_CASE("check reports a yaml syntax error with its line", "[check]") {
  const std::string f = check_fixture("yaml-syntax.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 2);
  CHECK(r.err.empty());
  CHECK(r.out == with_path(R"({F}:5:3: error: invalid yaml: illegal block entry
  - model: a100-40gb
  ^
checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed
)",
                           f));
}

TEST_CASE("check reports a json syntax error at its line and column", "[check]") {
  const std::string f = check_fixture("json-syntax.json");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 2);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      with_path(
          R"({F}:4:52: error: invalid json: syntax error while parsing value - unexpected ']'; expected '[', '{', or a literal
    {"model": "a100-40gb", "instances": ["3g.20gb",]}
                                                   ^
checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed
)",
          f));
}

TEST_CASE("check reports an unknown key once, with the nearest valid key", "[check]") {
  const std::string f = check_fixture("unknown-key.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 2);
  CHECK(r.err.empty());
  CHECK(r.out == with_path(R"({F}:4:5: error: unknown key 'instance' (did you mean instances?)
    instance: ["3g.20gb"]
    ^
checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed
)",
                           f));
}

TEST_CASE("check names the supported geometry-file version", "[check]") {
  const std::string f = check_fixture("wrong-version.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 2);
  CHECK(r.err.empty());
  CHECK(r.out ==
        with_path(R"({F}:1:10: error: unsupported version '2': migplan geometry files are version 1
version: 2
         ^
checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed
)",
                  f));
}

TEST_CASE("check rejects a bare integer for mig-parted devices", "[check]") {
  const std::string f = check_fixture("bare-int-devices.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 2);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      with_path(
          R"({F}:4:16: error: 'devices' must be "all" or a list of gpu indices; mig-parted rejects a bare integer (write [0])
    - devices: 0
               ^
checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed
)",
          f));
}

TEST_CASE("check rejects mig-devices on a disabled mig-parted entry", "[check]") {
  const std::string f = check_fixture("disabled-with-devices.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 2);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      with_path(
          R"({F}:6:7: error: 'mig-devices' must be empty when 'mig-enabled' is false; mig-parted rejects config 'half-disabled'
      mig-devices:
      ^
checked 1 file: 1 geometry valid, 0 invalid; 1 file malformed
)",
          f));
}

TEST_CASE("check rejects an unquoted pci id, which yaml reads as a number", "[check]") {
  const std::string f = check_fixture("unquoted-filter.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 2);
  CHECK(
      r.out ==
      with_path(
          R"({F}:4:22: error: device-filter 0x20B010DE is read as a number; quote it ("0x20B010DE"): mig-parted wants a string
    - device-filter: 0x20B010DE
                     ^
checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed
)",
          f));
}

TEST_CASE("check tries an unfiltered mig-parted entry on every model with its profiles",
          "[check]") {
  // all-1g.10gb asks for five 1g.10gb: four models have the profile and it
  // fits on three. An entry without a device-filter applies to every gpu, and
  // NVIDIA's own configs write such entries for one family: a warning at the
  // profile's line for the model where it fails, naming those where it fits.
  const std::string f = check_fixture("all-devices.yaml");
  auto r = run_migplan({"check", "-v", f});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      with_path(
          R"({F}:6:7: note: config 'all-1g.10gb' fits on a100-80gb: 1g.10gb@0 1g.10gb@1 1g.10gb@2 1g.10gb@3 1g.10gb@4 (21 layouts)
      mig-devices:
      ^
{F}:6:7: note: config 'all-1g.10gb' fits on h100-80gb: 1g.10gb@0 1g.10gb@1 1g.10gb@2 1g.10gb@3 1g.10gb@4 (21 layouts)
      mig-devices:
      ^
{F}:6:7: note: config 'all-1g.10gb' fits on h100-pcie: 1g.10gb@0 1g.10gb@1 1g.10gb@2 1g.10gb@3 1g.10gb@4 (21 layouts)
      mig-devices:
      ^
{F}:7:9: warning: config 'all-1g.10gb' does not fit on a100-40gb: 1g.10gb allows at most 4 instances on a100-40gb (the request has 5)
        "1g.10gb": 5
        ^
  closest fit: drop 1g.10gb -> 1g.10gb@0 1g.10gb@2 1g.10gb@4 1g.10gb@6
  it fits on a100-80gb, h100-80gb and h100-pcie; without a device-filter it applies to every gpu: add a device-filter for the models it is meant for, or name your fleet with --gpu
checked 1 file: 1 geometry valid, 0 invalid; 1 warning
)",
          f));
  // --strict: the warning fails the check, and the geometry is invalid.
  r = run_migplan({"check", "--strict", f});
  CHECK(r.code == 1);
  CHECK(r.out.find("7:9: error: config 'all-1g.10gb' does not fit on a100-40gb") !=
        std::string::npos);
  CHECK(r.out.find("[--strict]") != std::string::npos);
  CHECK(r.out.find("checked 1 file: 0 geometries valid, 1 invalid\n") != std::string::npos);
  // Naming the fleet settles it either way.
  r = run_migplan({"check", "--gpu", "h100-80gb", "--gpu", "a100-80gb", f});
  CHECK(r.code == 0);
  CHECK(r.out == "checked 1 file: 1 geometry valid, 0 invalid\n");
  // A fleet where it fits one model and not the other: still a warning (a
  // node picks its label), and an error with --strict.
  r = run_migplan({"check", "--gpu", "h100-80gb", "--gpu", "a100-40gb", f});
  CHECK(r.code == 0);
  CHECK(r.out.find("7:9: warning: config 'all-1g.10gb' does not fit on a100-40gb") !=
        std::string::npos);
  CHECK(r.out.find("it fits on h100-80gb;") != std::string::npos);
  CHECK(run_migplan({"check", "--strict", "--gpu", "h100-80gb", "--gpu", "a100-40gb", f}).code ==
        1);
  // A fleet where no model has 1g.10gb: the entry is for other nodes.
  r = run_migplan({"check", "--gpu", "h200", f});
  CHECK(r.code == 0);
  CHECK(r.out.find("6:7: note: config 'all-1g.10gb' entry 0 is not checked: no gpu given with "
                   "--gpu has all of its profiles (a100-40gb, a100-80gb, h100-80gb and "
                   "h100-pcie have them)") != std::string::npos);
  CHECK(r.out.find("1 not checked") != std::string::npos);
  // A fleet where it fits on none of the models that have it: an error.
  r = run_migplan({"check", "--gpu", "a100-40gb", "--gpu", "h200", f});
  CHECK(r.code == 1);
  CHECK(r.out.find("7:9: error: config 'all-1g.10gb' does not fit on a100-40gb") !=
        std::string::npos);
}

namespace {

// The catalog models that have `profile`, by `migplan gpus --json`, in its order.
std::vector<std::string> models_with_profile(const std::string& profile) {
  const nlohmann::json doc = nlohmann::json::parse(run_migplan({"gpus", "--json"}).out);
  std::vector<std::string> out;
  for (const auto& m : doc["gpus"])
    for (const auto& p : m["profiles"])
      if (p.get<std::string>() == profile) out.push_back(m["id"].get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("an unfiltered mig-parted entry that fits on no model is an error", "[check]") {
  const std::string text =
      "version: v1\nmig-configs:\n  too-many:\n    - devices: all\n      mig-enabled: true\n"
      "      mig-devices:\n        \"1g.10gb\": 8\n";
  const auto r = run_migplan({"check", "-"}, text);
  CHECK(r.code == 1);
  // Every model that has the profile is named in an error at the profile's
  // line; models that fail alike share one (a cap of 7 on most, 4 on others).
  const std::string all = r.out + r.err;
  const std::string head = "<stdin>:7:9: error: config 'too-many' does not fit on ";
  std::vector<std::string> lines;
  for (std::size_t at = all.find(head); at != std::string::npos; at = all.find(head, at + 1))
    lines.push_back(all.substr(at, all.find('\n', at) - at));
  const std::vector<std::string> owners = models_with_profile("1g.10gb");
  REQUIRE(owners.size() >= 4);
  CHECK(lines.size() >= 2);
  CHECK(lines.size() < owners.size());
  for (const std::string& m : owners) {
    INFO(m);
    CHECK(std::count_if(lines.begin(), lines.end(), [&](const std::string& l) {
            return l.find(" " + m + ",") != std::string::npos ||
                   l.find(" " + m + " ") != std::string::npos ||
                   l.find(" " + m + ":") != std::string::npos;
          }) == 1);
  }
  CHECK(all.find("warning") == std::string::npos);
}

TEST_CASE("check resolves unfiltered mig-parted profile names across the catalog", "[check]") {
  const std::string f = check_fixture("unfiltered.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      with_path(
          R"({F}:7:9: error: unknown profile '2g.11gb': no gpu in migplan's catalog has it (did you mean 2g.12gb, 2g.10gb or 1g.10gb?)
        "2g.11gb": 2
        ^
{F}:11:7: error: no single gpu has all the profiles of config 'mixed-models': 1g.5gb (a100-40gb), 1g.12gb (h100-nvl, gh200-96gb, h20)
      mig-devices:
      ^
{F}:17:21: warning: 3g.95gb is what older gb200 drivers called 3g.93gb (profile 9; early NVIDIA GB200 MIG config (mig-parted commit 89dd81a3; gpu-operator PR 1303 era)); current drivers need '3g.93gb'
      mig-devices: {"3g.95gb": 1, "3g.93gb": 1}
                    ^
{F}:17:35: error: 3g.95gb and 3g.93gb name the same gb200 profile under an older and a current driver; no driver accepts both
      mig-devices: {"3g.95gb": 1, "3g.93gb": 1}
                                  ^
checked 1 file: 0 geometries valid, 3 invalid; 1 warning
)",
          f));
}

TEST_CASE("check --gpu gives geometry entries without a model their model", "[check]") {
  const std::string text = "version: 1\ngpus:\n  - instances: [\"4x1g.6gb\"]\n";
  auto r = run_migplan({"check", "-"}, text);
  CHECK(r.code == 2);
  CHECK(r.out ==
        "<stdin>:3:5: error: missing required key 'model' in 'gpus[0]' (or give a "
        "default with --gpu)\n"
        "  - instances: [\"4x1g.6gb\"]\n"
        "    ^\n"
        "checked 1 file: 0 geometries valid, 0 invalid, 1 not checked; 1 file malformed\n");
  r = run_migplan({"check", "--gpu", "NVIDIA A30", "-"}, text);
  CHECK(r.code == 0);
  CHECK(r.out == "checked 1 file: 1 geometry valid, 0 invalid\n");
}

TEST_CASE("check: an entry failing alike on several models is one error naming them", "[check]") {
  // Three catalog models have 3g.40gb, each at most twice: one error, not three.
  const std::string f = check_fixture("three-3g.40gb.yaml");
  const std::vector<std::string> owners = models_with_profile("3g.40gb");
  REQUIRE(owners.size() >= 2);
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 1);
  const std::string all = r.out + r.err;
  std::string list;
  for (std::size_t i = 0; i < owners.size(); ++i)
    list += (i == 0 ? "" : i + 1 == owners.size() ? " and " : ", ") + owners[i];
  CHECK(all.find("error: config 'all-3g.40gb' does not fit on " + list +
                 ": 3g.40gb allows at most 2 instances on each (the request has 3)") !=
        std::string::npos);
  std::size_t errors = 0;
  for (std::size_t at = all.find("error:"); at != std::string::npos;
       at = all.find("error:", at + 1))
    ++errors;
  CHECK(errors == 1);
  // One model of the fleet: its name alone.
  const auto one = run_migplan({"check", "--gpu", owners.front(), f});
  CHECK((one.out + one.err)
            .find("does not fit on " + owners.front() +
                  ": 3g.40gb allows at most 2 "
                  "instances on " +
                  owners.front()) != std::string::npos);
}

TEST_CASE("check --gpu: a label no fleet model can apply fails when selected or strict",
          "[check]") {
  // all-3g.20gb has no device-filter, and only the A100 40GB has 3g.20gb:
  // on an H100 fleet mig-parted would fail on every node given the label.
  const std::string f = check_fixture("a100-only-label.yaml");
  // Unselected: a label for other GPUs, as NVIDIA's shipped config has many.
  auto r = run_migplan({"check", "--gpu", "h100-80gb", f});
  CHECK(r.code == 0);
  std::string all = r.out + r.err;
  CHECK(all.find("note: config 'all-3g.20gb' entry 0 is not checked: no gpu given with --gpu has "
                 "all of its profiles (a100-40gb has them)") != std::string::npos);
  // --strict: not a pass.
  r = run_migplan({"check", "--strict", "--gpu", "h100-80gb", f});
  CHECK(r.code == 1);
  all = r.out + r.err;
  CHECK(all.find("error: config 'all-3g.20gb' entry 0 is not checked: no gpu given with --gpu "
                 "has all of its profiles (a100-40gb has them) [--strict]") != std::string::npos);
  CHECK(all.find("0 geometries valid, 1 invalid") != std::string::npos);
  // Selected with -c: meant for this fleet, so an error without --strict.
  r = run_migplan({"check", "--gpu", "h100-80gb", "-c", "all-3g.20gb", f});
  CHECK(r.code == 1);
  all = r.out + r.err;
  CHECK(all.find("error: config 'all-3g.20gb' entry 0 applies to every gpu, and no gpu given "
                 "with --gpu has all of its profiles (a100-40gb has them): mig-parted would fail "
                 "on every node of this fleet") != std::string::npos);
  CHECK(all.find("0 geometries valid, 1 invalid") != std::string::npos);
  // On a fleet that has the profile it is checked, and fits.
  CHECK(run_migplan({"check", "--strict", "--gpu", "a100-40gb", "-c", "all-3g.20gb", f}).code == 0);
}

TEST_CASE("check --gpu limits a mig-parted config to one model", "[check]") {
  const std::string f = check_fixture("all-devices.yaml");
  auto r = run_migplan({"check", "--gpu", "h100-80gb", f});
  CHECK(r.code == 0);
  CHECK(r.out == "checked 1 file: 1 geometry valid, 0 invalid\n");
  // An A30 fleet: the label is for other nodes (no A30 has 1g.10gb).
  r = run_migplan({"check", "--gpu", "a30", f});
  CHECK(r.code == 0);
  CHECK(
      r.out ==
      with_path(
          R"({F}:6:7: note: config 'all-1g.10gb' entry 0 is not checked: no gpu given with --gpu has all of its profiles (a100-40gb, a100-80gb, h100-80gb and h100-pcie have them)
      mig-devices:
      ^
checked 1 file: 0 geometries valid, 0 invalid, 1 not checked
)",
          f));
  // A filtered entry for a fleet model is checked there, names and all.
  r = run_migplan(
      {"check", "--gpu", "a30", "-"},
      "version: v1\nmig-configs:\n  a:\n    - device-filter: \"0x20B710DE\"\n"
      "      devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.10gb\": 1}\n");
  CHECK(r.code == 1);
  CHECK(r.out.find("error: unknown profile '1g.10gb' on a30 (it is a profile of a100-40gb") !=
        std::string::npos);
  r = run_migplan({"check", "--gpu", "a100-40gbb", f});
  CHECK(r.code == 2);
  CHECK(r.err.rfind("migplan: unknown gpu 'a100-40gbb' (did you mean a100-40gb", 0) == 0);
}

TEST_CASE("check warns about a name only an older driver uses, with the current name", "[check]") {
  const std::string f = check_fixture("gb200-early.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      with_path(
          R"({F}:5:18: warning: 3g.95gb is what older gb200 drivers called 3g.93gb (profile 9; early NVIDIA GB200 MIG config (mig-parted commit 89dd81a3; gpu-operator PR 1303 era)); current drivers need '3g.93gb'
    instances: ["2x3g.95gb"]
                 ^
checked 1 file: 1 geometry valid, 0 invalid; 1 warning
)",
          f));
}

TEST_CASE("check over several files exits with the worst outcome", "[check]") {
  const std::string valid = check_fixture("valid.yaml"), invalid = check_fixture("misspelt.yaml"),
                    malformed = check_fixture("wrong-version.yaml");
  auto r = run_migplan({"check", valid, invalid});
  CHECK(r.code == 1);
  CHECK(r.out.substr(r.out.rfind("checked")) == "checked 2 files: 1 geometry valid, 1 invalid\n");
  r = run_migplan({"check", malformed, valid, invalid});
  CHECK(r.code == 2);
  CHECK(r.out.substr(r.out.rfind("checked")) ==
        "checked 3 files: 1 geometry valid, 1 invalid; 1 file malformed\n");
  r = run_migplan({"check", valid, test_path("fixtures/check/no-such-file.yaml")});
  CHECK(r.code == 2);
  CHECK(r.out == test_path("fixtures/check/no-such-file.yaml") +
                     ": error: cannot read file: No such file or directory\n"
                     "checked 2 files: 1 geometry valid, 0 invalid; 1 file unreadable\n");
}

TEST_CASE("check reads every yaml and json file under a directory, sorted", "[check]") {
  const std::string dir = test_path("fixtures/check/dir");
  const auto r = run_migplan({"check", dir});
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      with_path(
          R"({F}/sub/too-many.json:5:63: error: config 'too-many' does not fit on a30: 1g.6gb allows at most 4 instances on a30 (the request has 5)
      {"devices": "all", "mig-enabled": true, "mig-devices": {"1g.6gb": 5}}
                                                              ^
  closest fit: drop 1g.6gb -> 1g.6gb@0 1g.6gb@1 1g.6gb@2 1g.6gb@3
checked 2 files: 1 geometry valid, 1 invalid
)",
          dir));
}

TEST_CASE("check reads standard input for -, as json when it opens with a brace", "[check]") {
  auto r = run_migplan({"check", "-"}, migplan::test::read_file(check_fixture("misspelt.yaml")));
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(r.out == R"(<stdin>:7:9: error: unknown profile '1g.5bg' on a100-40gb (did you mean 1g.5gb?)
      - 2x1g.5bg
        ^
checked 1 file: 0 geometries valid, 1 invalid
)");
  r = run_migplan({"check", "-"}, migplan::test::read_file(check_fixture("json-syntax.json")));
  CHECK(r.code == 2);
  CHECK(r.out.rfind("<stdin>:4:52: error: invalid json: ", 0) == 0);
  r = run_migplan({"check", "-"}, migplan::test::read_file(source_path("examples/geometry.json")));
  CHECK(r.code == 0);
  CHECK(r.out == "checked 1 file: 4 geometries valid, 0 invalid\n");
}

TEST_CASE("check --format github prints workflow annotations and the summary on stdout",
          "[check]") {
  const std::string f = check_fixture("overlap.yaml"), g = check_fixture("gb200-early.yaml");
  const auto r = run_migplan({"check", "--format", "github", f, g});
  CHECK(r.code == 1);
  const std::string fp = migplan::cli::render::github_escape_property(f),
                    gp = migplan::cli::render::github_escape_property(g);
  CHECK(r.out ==
        "::error file=" + fp +
            ",line=5,col=5::'pinned' does not fit on a100-40gb: the totals fit but no arrangement "
            "of the allowed starts on a100-40gb does: 2g.10gb@4 3g.20gb@4 cannot be placed "
            "together%0Aclosest fit: drop 2g.10gb@4 -> 3g.20gb@4%0Aclosest fit: drop 3g.20gb@4 "
            "-> 2g.10gb@4\n"
            "::warning file=" +
            gp +
            ",line=5,col=18::3g.95gb is what older gb200 drivers called 3g.93gb (profile 9; early "
            "NVIDIA GB200 MIG config (mig-parted commit 89dd81a3; gpu-operator PR 1303 era)); "
            "current drivers need '3g.93gb'\n"
            "checked 2 files: 1 geometry valid, 1 invalid; 1 warning\n");
  CHECK(r.err.empty());
}

TEST_CASE("github annotations escape data and property values", "[check]") {
  using migplan::cli::render::github_escape_data;
  using migplan::cli::render::github_escape_property;
  CHECK(github_escape_data("100% full\r\nnext: a,b") == "100%25 full%0D%0Anext: a,b");
  CHECK(github_escape_property("dir:a,b/c%.yaml") == "dir%3Aa%2Cb/c%25.yaml");
}

TEST_CASE("check --format json prints one document with every finding", "[check]") {
  const std::string bad = check_fixture("compute.yaml"), good = check_fixture("valid.yaml"),
                    typo = check_fixture("misspelt.yaml"),
                    broken = check_fixture("yaml-syntax.yaml");
  const auto r = run_migplan({"check", "--format", "json", good, bad, typo, broken});
  CHECK(r.code == 2);
  CHECK(r.err.empty());
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["schema_version"] == 1);
  REQUIRE(doc["files"].size() == 4);

  const auto& g = doc["files"][0];
  CHECK(g["file"] == good);
  CHECK(g["format"] == "migplan");
  CHECK(g["status"] == "valid");
  CHECK(g["diagnostics"].empty());
  REQUIRE(g["geometries"].size() == 1);
  const auto& geo = g["geometries"][0];
  CHECK(geo["config"] == "gpus[0]");
  CHECK(geo["label"] == "gpus[0]");
  CHECK(geo["entry"] == 0);
  CHECK(geo["line"] == 3);
  CHECK(geo["devices"] == "all");
  CHECK(geo["device_filter"].is_null());
  CHECK(geo["request"] == nlohmann::json::array({"3g.20gb", "2g.10gb", "2x1g.5gb"}));
  CHECK(geo["status"] == "valid");
  REQUIRE(geo["models"].size() == 1);
  const auto& fit = geo["models"][0];
  CHECK(fit["gpu"] == "a100-40gb");
  CHECK(fit["status"] == "fits");
  CHECK(fit["reason"].is_null());
  CHECK(fit["layout_count"] == 2);
  REQUIRE(fit["layout"].size() == 4);
  CHECK(fit["layout"][0] ==
        nlohmann::json{{"profile", "1g.5gb"}, {"profile_id", 19}, {"start", 0}, {"size", 1}});

  const auto& b = doc["files"][1];
  CHECK(b["status"] == "invalid");
  const auto& no = b["geometries"][0]["models"][0];
  CHECK(no["status"] == "does_not_fit");
  CHECK(no["layout"].is_null());
  CHECK(no["reason"]["code"] == "compute_slices");
  CHECK(no["reason"]["profiles"] == nlohmann::json::array({"2g.10gb", "4g.20gb"}));
  CHECK(no["reason"]["message"] ==
        "2 x 2g.10gb (2 slices each) + 1 x 4g.20gb (4 slices) = 8 compute slices but a100-40gb has "
        "7");
  REQUIRE(no["closest"].size() == 2);
  CHECK(no["closest"][0]["drop"] == nlohmann::json::array({"2g.10gb"}));
  CHECK(no["closest"][0]["layout"].size() == 2);
  REQUIRE(b["diagnostics"].size() == 1);
  CHECK(b["diagnostics"][0] ==
        nlohmann::json{{"severity", "error"},
                       {"config", "too-much-compute"},
                       {"entry", 0},
                       {"line", 5},
                       {"col", 5},
                       {"message",
                        "'too-much-compute' does not fit on a100-40gb: 2 x 2g.10gb (2 slices "
                        "each) + 1 x 4g.20gb (4 slices) = 8 compute slices but a100-40gb has 7"},
                       {"notes",
                        {"closest fit: drop 2g.10gb -> 4g.20gb@0 2g.10gb@4",
                         "closest fit: drop 4g.20gb -> 2g.10gb@0 2g.10gb@2"}}});

  const auto& t = doc["files"][2]["geometries"][0]["models"][0];
  CHECK(t["status"] == "unknown_profile");
  CHECK(t["reason"]["code"] == "unknown_profile");
  CHECK(t["reason"]["profiles"] == nlohmann::json::array({"1g.5bg"}));

  const auto& m = doc["files"][3];
  CHECK(m["status"] == "malformed");
  CHECK(m["format"].is_null());
  CHECK(m["geometries"].empty());
  CHECK(m["diagnostics"][0]["line"] == 5);
  CHECK(m["diagnostics"][0]["config"].is_null());  // a yaml error belongs to no geometry
  CHECK(m["diagnostics"][0]["entry"].is_null());

  CHECK(doc["summary"] == nlohmann::json{{"files", 4},
                                         {"geometries", 3},
                                         {"valid", 1},
                                         {"invalid", 2},
                                         {"unchecked", 0},
                                         {"malformed_files", 1},
                                         {"unreadable_files", 0},
                                         {"skipped_files", 0},
                                         {"errors", 3},
                                         {"warnings", 0},
                                         {"notes", 0},
                                         {"exit_code", 2},
                                         {"slice_gpus", 0},
                                         {"slice_gpus_exact", 0}});
}

TEST_CASE("check --format json describes mig-parted entries", "[check]") {
  const std::string f = test_path("fixtures/mig-parted/example-dgx-station-80gb-config.yaml");
  const auto r = run_migplan({"check", "--format", "json", f});
  CHECK(r.code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const auto& file = doc["files"][0];
  CHECK(file["format"] == "mig-parted");
  CHECK(file["status"] == "valid");
  const auto& gs = file["geometries"];
  REQUIRE(gs.size() == 21);
  // The display GPU's entry: MIG disabled, nothing to check on it.
  CHECK(gs[1]["label"] == "all-disabled-dgx-station-80");
  CHECK(gs[1]["entry"] == 1);
  CHECK(gs[1]["device_filter"] == nlohmann::json::array({"0x1FB010DE"}));
  CHECK(gs[1]["mig_enabled"] == false);
  CHECK(gs[1]["models"].empty());
  const auto& k8s = gs[17];
  CHECK(k8s["label"] == "balanced-k8s-dgx-station-80");
  CHECK(k8s["devices"] == nlohmann::json::array({1}));
  CHECK(k8s["request"] == nlohmann::json::array({"2x3g.40gb"}));
  CHECK(k8s["models"][0]["gpu"] == "a100-80gb");
  CHECK(k8s["models"][0]["status"] == "fits");
}

// NVIDIA's own configs, exactly as shipped: every finding below is backed by
// the reference data (see the comments), and nothing else is reported.
TEST_CASE("check finds exactly the known problems in NVIDIA's default mig-parted config",
          "[check]") {
  const std::string f = test_path("fixtures/mig-parted/config-default.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  // - H800 (0x2322, 0x2324), H100-96GB (0x233D) and PG506-96GB (0x20B6)
  //   resolve to the tables NVIDIA's config gives them (marked as such in
  //   the catalog), so those entries are checked without a note.
  // - Five RTX PRO 6000 labels without a device-filter also apply to the RTX
  //   PRO 5000, which has the same names and half the room: a warning each,
  //   naming where they fit (the config is meant for the 6000).
  // - all-3g.95gb / all-4g.95gb / all-7g.189gb use the early GB200 driver's
  //   names; production GB200 boards call them 3g.93gb / 4g.93gb / 7g.186gb
  //   (mig-profiles.md, GB200 table and section 7), which the file also has.
  CHECK(
      r.out ==
      with_path(
          R"({F}:54:9: warning: config 'all-1g.24gb.gfx' does not fit on rtx-pro-5000: 1g.24gb+gfx allows at most 2 instances on rtx-pro-5000 (the request has 4)
        "1g.24gb+gfx": 4
        ^
  closest fit: drop 2x1g.24gb+gfx -> 1g.24gb+gfx@0 1g.24gb+gfx@3
  it fits on rtx-pro-6000; without a device-filter it applies to every gpu: add a device-filter for the models it is meant for, or name your fleet with --gpu
{F}:66:9: warning: config 'all-1g.24gb-me' does not fit on rtx-pro-5000: 1g.24gb-me allows at most 2 instances on rtx-pro-5000 (the request has 4)
        "1g.24gb-me": 4
        ^
  closest fit: drop 2x1g.24gb-me -> 1g.24gb-me@0 1g.24gb-me@3
  it fits on rtx-pro-6000; without a device-filter it applies to every gpu: add a device-filter for the models it is meant for, or name your fleet with --gpu
{F}:72:9: warning: config 'all-2g.48gb' does not fit on rtx-pro-5000: 2g.48gb allows at most 1 instance on rtx-pro-5000 (the request has 2)
        "2g.48gb": 2
        ^
  closest fit: drop 2g.48gb -> 2g.48gb@0
  it fits on rtx-pro-6000; without a device-filter it applies to every gpu: add a device-filter for the models it is meant for, or name your fleet with --gpu
{F}:78:9: warning: config 'all-2g.48gb.gfx' does not fit on rtx-pro-5000: 2g.48gb+gfx allows at most 1 instance on rtx-pro-5000 (the request has 2)
        "2g.48gb+gfx": 2
        ^
  closest fit: drop 2g.48gb+gfx -> 2g.48gb+gfx@0
  it fits on rtx-pro-6000; without a device-filter it applies to every gpu: add a device-filter for the models it is meant for, or name your fleet with --gpu
{F}:206:9: warning: config 'all-1g.24gb' does not fit on rtx-pro-5000: 1g.24gb allows at most 2 instances on rtx-pro-5000 (the request has 4)
        "1g.24gb": 4
        ^
  closest fit: drop 2x1g.24gb -> 1g.24gb@0 1g.24gb@3
  it fits on h100-nvl, gh200-96gb and rtx-pro-6000; without a device-filter it applies to every gpu: add a device-filter for the models it is meant for, or name your fleet with --gpu
{F}:541:9: warning: 3g.95gb is what older gb200 drivers called 3g.93gb (profile 9; early NVIDIA GB200 MIG config (mig-parted commit 89dd81a3; gpu-operator PR 1303 era)); current drivers need '3g.93gb'
        "3g.95gb": 2
        ^
{F}:571:9: warning: 4g.95gb is what older gb200 drivers called 4g.93gb (profile 5; early NVIDIA GB200 MIG config (mig-parted commit 89dd81a3; gpu-operator PR 1303 era)); current drivers need '4g.93gb'
        "4g.95gb": 1
        ^
{F}:601:9: warning: 7g.189gb is what older gb200 drivers called 7g.186gb (profile 0; early NVIDIA GB200 MIG config (mig-parted commit 89dd81a3; gpu-operator PR 1303 era)); current drivers need '7g.186gb'
        "7g.189gb": 1
        ^
checked 1 file: 94 geometries valid, 0 invalid; 8 warnings
)",
          f));
}

TEST_CASE("check finds nothing wrong in NVIDIA's example mig-parted configs", "[check]") {
  auto r = run_migplan({"check", test_path("fixtures/mig-parted/example-config.yaml")});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out == "checked 1 file: 13 geometries valid, 0 invalid\n");
  // The DGX Station's display GPU (0x1FB0) is not in the catalog, but every
  // entry for it has MIG disabled: nothing to check, nothing to say.
  r = run_migplan({"check", test_path("fixtures/mig-parted/example-dgx-station-80gb-config.yaml")});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out == "checked 1 file: 21 geometries valid, 0 invalid\n");
}

TEST_CASE("the geometry examples check cleanly, in yaml and in json", "[check]") {
  const auto r = run_migplan(
      {"check", source_path("examples/geometry.yaml"), source_path("examples/geometry.json")});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out == "checked 2 files: 8 geometries valid, 0 invalid\n");
  const auto y = run_migplan({"check", "--format", "json", source_path("examples/geometry.yaml")});
  const auto j = run_migplan({"check", "--format", "json", source_path("examples/geometry.json")});
  auto yd = nlohmann::json::parse(y.out), jd = nlohmann::json::parse(j.out);
  // The same geometries, wherever they sit in each file.
  for (auto* d : {&yd, &jd}) {
    for (auto& g : (*d)["files"][0]["geometries"]) g.erase("line"), g.erase("col");
    (*d)["files"][0].erase("file");
  }
  CHECK(yd == jd);
}

TEST_CASE("the invalid example reports each planted problem", "[check]") {
  const std::string f = source_path("examples/invalid-geometry.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(r.out ==
        with_path(R"({F}:10:29: error: unknown profile '1g.5bg' on a100-40gb (did you mean 1g.5gb?)
    instances: ["3g.20gb", "2x1g.5bg"]        # 1g.5bg: did you mean 1g.5gb?
                            ^
{F}:15:18: error: unknown profile '4g.96gb+gfx' on a100-40gb (it is a profile of rtx-pro-6000)
    instances: ["4g.96gb+gfx"]                # an RTX PRO 6000 profile
                 ^
{F}:20:18: error: 'over-the-cap' does not fit on a100-40gb: 1g.5gb allows at most 7 instances on a100-40gb (the request has 8)
    instances: ["8x1g.5gb"]                   # at most 7
                 ^
  closest fit: drop 1g.5gb -> 1g.5gb@0 1g.5gb@1 1g.5gb@2 1g.5gb@3 1g.5gb@4 1g.5gb@5 1g.5gb@6
{F}:25:18: error: 'two-media-engines' does not fit on a100-40gb: 1g.5gb+me allows at most 1 instance on a100-40gb (the request has 2)
    instances: ["2x1g.5gb+me", "3g.20gb"]     # only one +me instance per GPU
                 ^
  closest fit: drop 1g.5gb+me -> 1g.5gb+me@0 3g.20gb@4
{F}:30:5: error: 'too-much-compute' does not fit on a100-40gb: 2 x 2g.10gb (2 slices each) + 1 x 4g.20gb (4 slices) = 8 compute slices but a100-40gb has 7
    instances: ["4g.20gb", "2x2g.10gb"]       # 8 compute slices, the GPU has 7
    ^
  closest fit: drop 2g.10gb -> 4g.20gb@0 2g.10gb@4
  closest fit: drop 4g.20gb -> 2g.10gb@0 2g.10gb@2
{F}:35:5: error: 'overlap' does not fit on a100-40gb: the totals fit but no arrangement of the allowed starts on a100-40gb does: 2g.10gb@4 3g.20gb@4 cannot be placed together
    instances: ["3g.20gb@4", "2g.10gb@4"]     # both pinned to unit 4
    ^
  closest fit: drop 2g.10gb@4 -> 3g.20gb@4
  closest fit: drop 3g.20gb@4 -> 2g.10gb@4
{F}:38:12: error: unknown gpu 'a100-40g' (did you mean a100-40gb?); 'migplan gpus' lists them
    model: a100-40g                           # did you mean a100-40gb?
           ^
{F}:44:12: error: gpu index 5 is already given to 'overlap' (line 34); a gpu has one geometry
    index: 5                                  # gpu 5 is "overlap" already
           ^
checked 1 file: 0 geometries valid, 8 invalid
)",
                  f));
}

TEST_CASE("the github actions example runs check in github format on a directory", "[check]") {
  const std::string wf =
      migplan::test::read_file(source_path("examples/github-actions/migplan-check.yml"));
  CHECK(wf.find("cmake --preset release") != std::string::npos);
  CHECK(wf.find("migplan check --format github configs/") != std::string::npos);
  CHECK(wf.find("libyaml-cpp-dev") != std::string::npos);
  CHECK(wf.find("coinor-libcbc-dev") != std::string::npos);
}

TEST_CASE("mig-parted profile names are checked as mig-parted checks them", "[check]") {
  using migplan::cli::check::mig_profile_format_error;
  for (const char* ok : {"1g.5gb", "1g.5gb+me", "1c.3g.20gb", "1g.24gb-me", "1g.24gb+me.all",
                         "4g.96gb+gfx", "0g.0gb", "1g.5gb+me,gfx"})
    CHECK(mig_profile_format_error(ok).empty());
  CHECK(mig_profile_format_error("1g.5gbb") ==
        "expected [Cc.]Gg.MEMgb such as 1g.5gb or 1c.3g.20gb");
  CHECK(mig_profile_format_error("MIG 1g.5gb") ==
        "expected [Cc.]Gg.MEMgb such as 1g.5gb or 1c.3g.20gb");
  CHECK(mig_profile_format_error("1g.5gb+me-x") == "it has both '+' and '-' attributes");
  CHECK(mig_profile_format_error("1g.5gb+") == "an attribute after '+' or '-' is empty");
  CHECK(mig_profile_format_error("1g.5gb+me,me") == "attribute 'me' appears twice");
  CHECK(mig_profile_format_error("1g.5gb+.me") == "attribute '.me' begins or ends with a dot");
  CHECK(mig_profile_format_error("1g.5gb+2me") == "attribute '2me' begins with a digit");
}

TEST_CASE("device-filter ids are read as mig-parted reads them", "[check]") {
  using migplan::cli::check::parse_filter_id;
  std::uint32_t v = 0;
  CHECK(parse_filter_id("0x20B010DE", v));
  CHECK(v == 0x20B010DEu);
  CHECK(parse_filter_id("0x20B010DE:0x145F10DE", v));
  CHECK(v == 0x20B010DEu);
  CHECK(parse_filter_id("548409566", v));
  CHECK(v == 0x20B010DEu);
  CHECK_FALSE(parse_filter_id("20B010DE", v));  // no 0x: not a number strconv reads
  CHECK_FALSE(parse_filter_id("A100-SXM4-40GB", v));
  CHECK_FALSE(parse_filter_id("0x1:0x2:0x3", v));
  // Go's strconv.ParseUint(s, 0, 32): other bases, digits in either case,
  // '_' between digits or after a prefix, nothing past 32 bits.
  CHECK(parse_filter_id("0x20b010de", v));
  CHECK(v == 0x20B010DEu);
  CHECK(parse_filter_id("0o17", v));
  CHECK(v == 15u);
  CHECK(parse_filter_id("017", v));
  CHECK(v == 15u);
  CHECK(parse_filter_id("0b101", v));
  CHECK(v == 5u);
  CHECK(parse_filter_id("0x_20B0_10DE", v));
  CHECK(v == 0x20B010DEu);
  CHECK(parse_filter_id("1_000", v));
  CHECK(v == 1000u);
  CHECK_FALSE(parse_filter_id("1__000", v));
  CHECK_FALSE(parse_filter_id("_1000", v));
  CHECK_FALSE(parse_filter_id("1000_", v));
  CHECK_FALSE(parse_filter_id("0x", v));
  CHECK_FALSE(parse_filter_id("0b102", v));
  CHECK_FALSE(parse_filter_id("0x100000000", v));
  CHECK_FALSE(parse_filter_id("-1", v));
}

TEST_CASE("check -c names a label the file lacks, with the nearest one", "[check]") {
  const std::string f = check_fixture("all-devices.yaml");
  const auto r = run_migplan({"check", "-c", "all-1g.10g", f});
  CHECK(r.code == 1);
  CHECK(r.out.find(f + ": error: config 'all-1g.10g' (-c) is not in this file; mig-parted "
                       "would stop with \"selected mig-config not present\" (did you mean "
                       "all-1g.10gb?)\n") == 0);
  // Only the labels named are checked: none here, so no geometry is counted.
  CHECK(r.out.find("checked 1 file: 0 geometries valid, 0 invalid\n") != std::string::npos);
}

TEST_CASE("check reports what mig-parted rejects in a config", "[check]") {
  const std::string text = R"(version: v1
mig-configs:
  a:
    - devices: [0, "1"]
      mig-enabled: "true"
      mig-device: {}
      mig-devices:
        "MIG 1g.5gb": 1
        "1g.5gb": -1
  b:
    - device-filter: ["20B010DE", "0x20B0"]
      devices: all
      mig-enabled: true
      mig-devices: {"1c.3g.20gb": 2}
  c:
    - devices: all
      mig-enabled: true
      mig-devices: {"1g.5gb": 8}
  c:
    - devices: all
      mig-enabled: false
)";
  const auto r = run_migplan({"check", "-"}, text);
  CHECK(r.code == 2);
  CHECK(r.out == R"(<stdin>:4:20: error: 'devices' must list gpu indices, not the string "1"
    - devices: [0, "1"]
                   ^
<stdin>:5:20: error: 'mig-enabled' must be true or false, not the string "true"
      mig-enabled: "true"
                   ^
<stdin>:6:7: error: unknown field 'mig-device' (did you mean mig-devices?); mig-parted rejects unknown fields
      mig-device: {}
      ^
<stdin>:8:9: error: invalid profile name 'MIG 1g.5gb': expected [Cc.]Gg.MEMgb such as 1g.5gb or 1c.3g.20gb; mig-parted rejects it
        "MIG 1g.5gb": 1
        ^
<stdin>:9:19: error: invalid count -1 for 1g.5gb: counts must be 0 or more
        "1g.5gb": -1
                  ^
<stdin>:11:23: warning: device-filter '20B010DE' is not a pci id mig-parted can read (such as 0x20B010DE); it matches no gpu
    - device-filter: ["20B010DE", "0x20B0"]
                      ^
<stdin>:11:35: warning: device-filter '0x20B0' has no vendor part: mig-parted reads it as device 0x0000 of vendor 0x20B0, which matches no gpu; write 0x20B010DE
    - device-filter: ["20B010DE", "0x20B0"]
                                  ^
<stdin>:19:3: warning: duplicate key 'c' (first at line 15); mig-parted keeps only the last one
  c:
  ^
checked 1 file: 1 geometry valid, 0 invalid, 1 not checked; 1 file malformed; 3 warnings
)");
}

TEST_CASE("check explains files that are neither format", "[check]") {
  // Empty, or comments only: mig-parted accepts it (spec_test.go "Empty"); a warning here.
  for (const char* empty : {"", "# nothing yet\n", "---\n"}) {
    auto e = run_migplan({"check", "-"}, empty);
    CHECK(e.code == 0);
    CHECK(e.out ==
          "<stdin>: warning: empty file: nothing to check (mig-parted accepts it as a config "
          "with no labels; any label selected from it is missing)\n"
          "checked 1 file: 0 geometries valid, 0 invalid; 1 warning\n");
    CHECK(run_migplan({"check", "--strict", "-"}, empty).code == 1);
  }
  auto r = run_migplan({"check", "-"}, "hello: world\n");
  CHECK(r.code == 2);
  CHECK(r.out ==
        "<stdin>:1:1: error: not a migplan geometry file (version: 1, gpus: ...), a "
        "mig-parted config (version: v1, mig-configs: ...), a HAMi or Volcano device config "
        "(nvidia: knownMigGeometries: ...) or Kubernetes DRA ResourceSlices (kind: "
        "ResourceSlice)\n"
        "hello: world\n"
        "^\n"
        "checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed\n");
  r = run_migplan({"check", "-"}, "version: 1\ngpus: []\n---\nversion: 1\n");
  CHECK(r.code == 2);
  CHECK(r.out ==
        "<stdin>:4:1: error: a second yaml document starts here; check reads one "
        "document per file\n"
        "version: 1\n"
        "^\n"
        "checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed\n");
}

// --- issue 8: hostile input -------------------------------------------------

namespace {

// A geometry file with one valid entry and `n` unknown keys in it, one a line
// from line 5 on: n errors.
std::string unknown_keys_file(int n) {
  std::string text = "version: 1\ngpus:\n  - model: a100-40gb\n    instances: [\"3g.20gb\"]\n";
  for (int i = 0; i < n; ++i) text += "    bogus" + std::to_string(i) + ": 1\n";
  return text;
}

// The diagnostic text printed for unknown key `i` of unknown_keys_file.
std::string unknown_key_error(int i) {
  const std::string key = "bogus" + std::to_string(i);
  return "<stdin>:" + std::to_string(i + 5) + ":5: error: unknown key '" + key +
         "' (expected model, index, name, comment, instances)\n    " + key + ": 1\n    ^\n";
}

}  // namespace

TEST_CASE("check shows 50 diagnostics per file by default, then counts the rest", "[check]") {
  const auto r = run_migplan({"check", "-"}, unknown_keys_file(60));
  CHECK(r.code == 2);
  CHECK(r.err.empty());
  std::string expected;
  for (int i = 0; i < 50; ++i) expected += unknown_key_error(i);
  expected +=
      "and 10 more errors in <stdin> (--max-errors 0 shows all)\n"
      "checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed\n";
  CHECK(r.out == expected);
}

TEST_CASE("check --max-errors sets the cap, 0 lifts it, and the exit code stays", "[check]") {
  auto r = run_migplan({"check", "--max-errors", "2", "-"}, unknown_keys_file(3));
  CHECK(r.code == 2);
  CHECK(r.out == unknown_key_error(0) + unknown_key_error(1) +
                     "and 1 more error in <stdin> (--max-errors 0 shows all)\n"
                     "checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed\n");
  r = run_migplan({"check", "--max-errors", "0", "-"}, unknown_keys_file(60));
  CHECK(r.code == 2);
  std::string all;
  for (int i = 0; i < 60; ++i) all += unknown_key_error(i);
  CHECK(r.out == all + "checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed\n");
  // A cap on a file of warnings and errors counts each kind; a file within
  // the cap prints no count.
  const std::string f = check_fixture("device-overlap.yaml");
  r = run_migplan({"check", "--max-errors", "1", f});
  CHECK(r.code == 1);
  CHECK(r.out.substr(r.out.rfind("^\n") + 2) ==
        with_path("and 2 more errors in {F} (--max-errors 0 shows all)\n"
                  "checked 1 file: 3 geometries valid, 2 invalid\n",
                  f));
  r = run_migplan({"check", "--max-errors", "1", "-"},
                  "version: v1\nmig-configs:\n  a:\n    - devices: [0, 0, -1]\n"
                  "      mig-enabled: false\n      mig-enabled: false\n");
  CHECK(r.code == 1);
  CHECK(r.out.substr(r.out.rfind("^\n") + 2) ==
        "and 2 more diagnostics in <stdin>: 1 error and 1 warning (--max-errors 0 shows all)\n"
        "checked 1 file: 0 geometries valid, 1 invalid; 2 warnings\n");
  r = run_migplan({"check", "--max-errors", "-1", "-"}, unknown_keys_file(1));
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("--max-errors") != std::string::npos);
}

TEST_CASE("check --format github caps annotations with a notice, and json keeps every finding",
          "[check]") {
  auto r =
      run_migplan({"check", "--format", "github", "--max-errors", "1", "-"}, unknown_keys_file(3));
  CHECK(r.code == 2);
  CHECK(r.out ==
        "::error file=<stdin>,line=5,col=5::unknown key 'bogus0' (expected model, index, name, "
        "comment, instances)\n"
        "::notice file=<stdin>::and 2 more errors in <stdin> (--max-errors 0 shows all)\n"
        "checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed\n");
  CHECK(r.err.empty());
  r = run_migplan({"check", "--format", "json", "--max-errors", "1", "-"}, unknown_keys_file(60));
  CHECK(r.code == 2);
  CHECK(r.err.empty());
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["files"][0]["diagnostics"].size() == 60);
  CHECK(doc["summary"]["errors"] == 60);
}

TEST_CASE("check --help documents --max-errors and the size limit", "[check]") {
  const auto r = run_migplan({"check", "--help"});
  CHECK(r.code == 0);
  CHECK(r.out.find("--max-errors N") != std::string::npos);
  CHECK(r.out.find("(0: all; default 50)") != std::string::npos);
  CHECK(r.out.find("at most 16 MiB each") != std::string::npos);
}

TEST_CASE("check skips hidden entries and files of neither format when it scans a directory",
          "[check]") {
  const std::string dir = test_path("fixtures/check/scan");
  auto r = run_migplan({"check", dir});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  // .github/workflows/ci.yml, .hidden.yaml and .hidden-dir/ are not read.
  CHECK(r.out == with_path("{F}/compose.yaml: note: skipped: not a migplan geometry file "
                           "(version: 1, gpus: ...), a mig-parted config (version: v1, "
                           "mig-configs: ...), a HAMi or Volcano device config (nvidia: "
                           "knownMigGeometries: ...) or Kubernetes DRA ResourceSlices (kind: "
                           "ResourceSlice)\n"
                           "{F}/package.json: note: skipped: not a migplan geometry file "
                           "(version: 1, gpus: ...), a mig-parted config (version: v1, "
                           "mig-configs: ...), a HAMi or Volcano device config (nvidia: "
                           "knownMigGeometries: ...) or Kubernetes DRA ResourceSlices (kind: "
                           "ResourceSlice)\n"
                           "checked 2 files: 2 geometries valid, 0 invalid; 2 files skipped\n",
                           dir));
  r = run_migplan({"check", "--format", "json", dir});
  const auto doc = nlohmann::json::parse(r.out);
  REQUIRE(doc["files"].size() == 4);
  CHECK(doc["files"][0]["file"] == dir + "/compose.yaml");
  CHECK(doc["files"][0]["status"] == "skipped");
  CHECK(doc["files"][0]["format"].is_null());
  CHECK(doc["files"][0]["diagnostics"][0]["severity"] == "note");
  CHECK(doc["summary"]["files"] == 2);
  CHECK(doc["summary"]["skipped_files"] == 2);
  CHECK(doc["summary"]["exit_code"] == 0);
}

TEST_CASE("check reads hidden and foreign files named on the command line, as errors", "[check]") {
  const std::string compose = test_path("fixtures/check/scan/compose.yaml"),
                    workflow = test_path("fixtures/check/scan/.github/workflows/ci.yml"),
                    hidden = test_path("fixtures/check/scan/.hidden-dir");
  const auto r = run_migplan({"check", compose, workflow, hidden});
  CHECK(r.code == 2);
  CHECK(
      r.out ==
      with_path(
          R"({F}/compose.yaml:1:10: error: unsupported version the string "3.8": migplan geometry files are version 1
version: "3.8"
         ^
{F}/compose.yaml:2:1: error: unknown key 'services' (expected version, gpus, comment)
services:
^
{F}/.github/workflows/ci.yml:1:1: error: not a migplan geometry file (version: 1, gpus: ...), a mig-parted config (version: v1, mig-configs: ...), a HAMi or Volcano device config (nvidia: knownMigGeometries: ...) or Kubernetes DRA ResourceSlices (kind: ResourceSlice)
name: ci
^
{F}/.hidden-dir/geometry.yaml:4:18: error: 'gpus[0]' does not fit on a100-40gb: 1g.5gb allows at most 7 instances on a100-40gb (the request has 8)
    instances: ["8x1g.5gb"]
                 ^
  closest fit: drop 1g.5gb -> 1g.5gb@0 1g.5gb@1 1g.5gb@2 1g.5gb@3 1g.5gb@4 1g.5gb@5 1g.5gb@6
checked 3 files: 0 geometries valid, 1 invalid; 2 files malformed
)",
          test_path("fixtures/check/scan")));
}

TEST_CASE("check resolves yaml merge keys in mig-parted configs as mig-parted does", "[check]") {
  const std::string f = check_fixture("merge-keys.yaml");
  auto r = run_migplan({"check", "--format", "json", f});
  CHECK(r.code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["files"][0]["diagnostics"].empty());
  const auto& gs = doc["files"][0]["geometries"];
  REQUIRE(gs.size() == 4);
  // Merged: the base's filter and mig-enabled, the entry's own mig-devices.
  CHECK(gs[1]["label"] == "all-3g.40gb");
  CHECK(gs[1]["device_filter"] == nlohmann::json::array({"0x233010DE", "0x233110DE"}));
  CHECK(gs[1]["mig_enabled"] == true);
  CHECK(gs[1]["request"] == nlohmann::json::array({"2x3g.40gb"}));
  CHECK(gs[2]["devices"] == nlohmann::json::array({0, 1}));
  CHECK(gs[2]["request"] == nlohmann::json::array({"7x1g.10gb"}));
  CHECK(gs[3]["devices"] == nlohmann::json::array({2, 3}));
  CHECK(gs[3]["request"] == nlohmann::json::array({"7g.80gb"}));

  const std::string bad = check_fixture("merge-keys-bad.yaml");
  r = run_migplan({"check", bad});
  CHECK(r.code == 2);
  CHECK(
      r.out ==
      with_path(
          R"({F}:9:20: error: unknown field 'mig-device' (did you mean mig-devices?); mig-parted rejects unknown fields
    - <<: [*base, {mig-device: {}}]
                   ^
{F}:11:7: warning: 'mig-enabled' is replaced by the value merged in by '<<' at line 12: mig-parted applies a merge key where it stands, so write '<<' before the keys it must not replace
    - mig-enabled: false
      ^
{F}:14:19: error: the value of a merge key '<<' must be a mapping or a list of mappings, not a string
    - <<: [*base, all]
                  ^
checked 1 file: 2 geometries valid, 0 invalid; 1 file malformed; 1 warning
)",
          bad));
}

TEST_CASE("check resolves merge keys in geometry files, written keys winning", "[check]") {
  const std::string text = R"(version: 1
gpus:
  - &base
    name: base
    model: a100-40gb
    instances: ["3g.20gb"]
  - name: merged
    <<: *base
    index: 1
  - instances: ["7g.40gb"]
    <<: *base
    name: written-first
    index: 2
)";
  const auto r = run_migplan({"check", "--format", "json", "-"}, text);
  CHECK(r.code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["files"][0]["diagnostics"].empty());
  const auto& gs = doc["files"][0]["geometries"];
  REQUIRE(gs.size() == 3);
  CHECK(gs[1]["label"] == "merged");
  CHECK(gs[1]["devices"] == nlohmann::json::array({1}));
  CHECK(gs[1]["request"] == nlohmann::json::array({"3g.20gb"}));
  CHECK(gs[1]["models"][0]["gpu"] == "a100-40gb");
  // The YAML merge-key rule: a key written in the mapping wins, wherever '<<' is.
  CHECK(gs[2]["label"] == "written-first");
  CHECK(gs[2]["request"] == nlohmann::json::array({"7g.40gb"}));
}

TEST_CASE("check reports a merge key that names its own mapping", "[check]") {
  const auto r = run_migplan({"check", "-"}, R"(version: v1
mig-configs:
  a:
    - &loop
      <<: *loop
      devices: all
      mig-enabled: false
)");
  CHECK(r.code == 2);
  CHECK(r.out == R"(<stdin>:5:7: error: merge key '<<' names a mapping that contains it
      <<: *loop
      ^
checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed
)");
}

TEST_CASE("check reads a '<<' tagged other than !!merge as an ordinary key", "[check]") {
  // go-yaml merges a plain '<<' and one tagged !!merge; with another tag it
  // is a key like any other, which mig-parted refuses as an unknown field.
  const auto r = run_migplan({"check", "-"}, R"(version: v1
mig-configs:
  a:
    - !!merge <<: {devices: all}
      !foo <<: {mig-enabled: false}
      mig-enabled: false
)");
  CHECK(r.code == 2);
  CHECK(
      r.out ==
      R"(<stdin>:5:7: error: unknown field '<<' (expected device-filter, devices, mig-enabled, mig-devices); mig-parted rejects unknown fields
      !foo <<: {mig-enabled: false}
      ^
checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed
)");
}

TEST_CASE("check stops a file whose aliases and merge keys expand past its budget", "[check]") {
  // Each mapping merges the one before it eight times: 8^11 entries unfolded.
  std::string text =
      "version: v1\nmig-configs:\n  a:\n    - &m0 {devices: all, mig-enabled: false}\n";
  for (int i = 1; i < 12; ++i) {
    text += "    - &m" + std::to_string(i) + "\n      <<: [";
    for (int j = 0; j < 8; ++j) text += (j ? ", *m" : "*m") + std::to_string(i - 1);
    text += "]\n";
  }
  const auto r = run_migplan({"check", "-"}, text);
  CHECK(r.code == 2);
  const std::string budget = std::to_string(4 * text.size() + 100'000);
  CHECK(r.out.find("<stdin>: error: aliases and merge keys make this file name more than " +
                   budget + " values; migplan stops reading it there\n") != std::string::npos);
}

TEST_CASE("check reports a gpu index given by two entries of a config, and a negative one",
          "[check]") {
  const std::string f = check_fixture("device-overlap.yaml");
  const auto r = run_migplan({"check", f});
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      with_path(
          R"({F}:7:17: error: gpu index 1 is already given to entry 0 of config 'overlap' (line 4); mig-parted applies the entries in order, so this one replaces it on gpu 1
    - devices: [1, 2, -1]
                ^
{F}:7:23: error: gpu index -1 is negative: mig-parted accepts it but it matches no gpu
    - devices: [1, 2, -1]
                      ^
{F}:20:17: error: gpu index 0 is already given to entry 1 of config 'by-model' (line 15); mig-parted applies the entries in order, so this one replaces it on gpu 0
      devices: [0]
                ^
checked 1 file: 3 geometries valid, 2 invalid
)",
          f));
}

TEST_CASE("check refuses a file over the size limit without reading it", "[check]") {
  // A sparse file: 17 MiB long, nothing written.
  namespace fs = std::filesystem;
  const fs::path p = fs::temp_directory_path() / "migplan-check-big.yaml";
  { std::ofstream(p.string()) << "version: 1\n"; }
  fs::resize_file(p, std::uintmax_t{17} << 20);
  auto r = run_migplan({"check", p.string()});
  fs::remove(p);
  CHECK(r.code == 2);
  CHECK(r.out == p.string() +
                     ": error: larger than 16 MiB, the most check reads of one file\n"
                     "checked 1 file: 0 geometries valid, 0 invalid; 1 file unreadable\n");
  // A device that never ends is refused at its first NUL byte.
  if (fs::exists("/dev/zero")) {
    r = run_migplan({"check", "/dev/zero"});
    CHECK(r.code == 2);
    CHECK(r.out ==
          "/dev/zero: error: cannot read file: a NUL byte at line 1, column 1: migplan reads text "
          "(is the file binary, or UTF-16?)\n"
          "checked 1 file: 0 geometries valid, 0 invalid; 1 file unreadable\n");
  }
}

TEST_CASE("check reads standard input only to the limit", "[check]") {
  using migplan::cli::check::read_check_source;
  std::istringstream in(std::string(100, 'x'));
  auto r = read_check_source("-", in, 64);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "larger than 64 bytes, the most check reads of one file");
  CHECK(in.tellg() == 65);  // limit + 1 bytes read, no more
  std::istringstream exact(std::string(64, 'x'));
  auto ok = read_check_source("-", exact, 64);
  REQUIRE(ok);
  CHECK(ok->size() == 64);
}

TEST_CASE("check refuses standard input named twice", "[check]") {
  const auto r = run_migplan({"check", "-", "-"}, "version: 1\n");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "migplan: check: '-' (standard input) is named more than once\n");
}

TEST_CASE("check quotes at most 64 bytes of a hostile key", "[check]") {
  const std::string key(1 << 20, 'k');
  // An explicit key ("? KEY"): yaml-cpp refuses a plain key over 1024 bytes.
  const auto r = run_migplan({"check", "-"}, "version: 1\n? " + key + "\n: 1\ngpus: []\n");
  CHECK(r.code == 2);
  CHECK(r.out.find("<stdin>:2:3: error: unknown key '" + std::string(64, 'k') +
                   "...' (expected version, gpus, comment)\n") == 0);
  CHECK(r.out.size() < 1000);
}

TEST_CASE("check escapes control characters in the quoted source line and the message", "[check]") {
  // An escape sequence, a right-to-left override and a tab, in a key
  // mig-parted does not know. (A byte that is not UTF-8 stops the file
  // before any key is read: see the case on invalid UTF-8 below.)
  const std::string text =
      "version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: true\n"
      "      mig-devices: {}\n      \"\x1b[31m\xe2\x80\xae\x01\tx\": 1\n";
  const auto r = run_migplan({"check", "-"}, text);
  CHECK(r.code == 2);
  CHECK(r.out ==
        "<stdin>:7:7: error: unknown field '\\x1b[31m\\u202e\\x01\\tx' (expected "
        "device-filter, devices, mig-enabled, mig-devices); mig-parted rejects unknown fields\n"
        "      \"\\x1b[31m\\u202e\\x01\tx\": 1\n"
        "      ^\n"
        "checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed\n");
  // The caret counts the escapes: an error after them lines up under its column.
  const auto r2 = run_migplan({"check", "-"}, "version: v1\nmig-configs: {\"\x01\": [], x: 1}\n");
  CHECK(r2.out.find("mig-configs: {\"\\x01\": [], x: 1}\n") != std::string::npos);
}

TEST_CASE("check --format json writes one document over many files, a file at a time", "[check]") {
  const auto r = run_migplan({"check", "--format", "json", check_fixture("valid.yaml"),
                              check_fixture("overlap.yaml"), check_fixture("valid.yaml")});
  CHECK(r.code == 1);
  const auto doc = nlohmann::json::parse(r.out);
  REQUIRE(doc["files"].size() == 3);
  CHECK(doc["files"][0]["status"] == "valid");
  CHECK(doc["files"][1]["status"] == "invalid");
  CHECK(doc["files"][2]["status"] == "valid");
  CHECK(doc["summary"]["files"] == 3);
  CHECK(doc["summary"]["valid"] == 2);
  CHECK(doc["summary"]["invalid"] == 1);
  CHECK(doc["summary"]["exit_code"] == 1);
}

TEST_CASE("check puts each reason's diagnostic on the line at fault", "[check]") {
  // A mig-parted label with one entry for `filter`, its mig-devices one per line.
  const auto config = [](const std::string& filter, const std::string& devices) {
    return "version: v1\nmig-configs:\n  c:\n    - device-filter: \"" + filter +
           "\"\n      devices: all\n      mig-enabled: true\n      mig-devices:\n" + devices;
  };
  struct where_case {
    const char* code;
    std::string text;
    const char* at;  // "<stdin>:LINE:COL: error: "
  };
  const std::vector<where_case> cases = {
      // One profile's fault: at its own line.
      {"instance_cap", config("0x233010DE", "        \"1g.10gb\": 1\n        \"1g.10gb+me\": 2\n"),
       "<stdin>:9:9: error: config 'c' does not fit on h100-80gb: 1g.10gb+me allows at most 1"},
      {"unknown_profile", config("0x233010DE", "        \"1g.10gb\": 1\n        \"1g.5gb\": 1\n"),
       "<stdin>:9:9: error: unknown profile '1g.5gb' on h100-80gb"},
      // A combination: at mig-devices, naming the profiles.
      {"memory_units", config("0x233010DE", "        \"1g.10gb\": 1\n        \"7g.80gb\": 1\n"),
       "<stdin>:7:7: error: config 'c' does not fit on h100-80gb: 1 x 1g.10gb (1 unit) + 1 x "
       "7g.80gb (8 units) = 9 placement units"},
      {"compute_slices", config("0x233010DE", "        \"2g.20gb\": 2\n        \"4g.40gb\": 1\n"),
       "<stdin>:7:7: error: config 'c' does not fit on h100-80gb: 2 x 2g.20gb (2 slices each) + "
       "1 x 4g.40gb (4 slices) = 8 compute slices"},
      {"engines", config("0x2BB510DE", "        \"1g.24gb\": 1\n        \"1g.24gb+me.all\": 1\n"),
       "<stdin>:7:7: error: config 'c' does not fit on rtx-pro-6000: "},
      // Geometry files pin starts: a bad start at its item, an arrangement at instances.
      {"bad_start",
       "version: 1\ngpus:\n  - model: h100-80gb\n    instances:\n      - 1g.10gb\n      - "
       "3g.40gb@2\n",
       "<stdin>:6:9: error: 'gpus[0]' does not fit on h100-80gb: 3g.40gb cannot start at unit 2"},
      {"placement",
       "version: 1\ngpus:\n  - model: a100-40gb\n    instances:\n      - 3g.20gb@4\n      - "
       "2g.10gb@4\n",
       "<stdin>:4:5: error: 'gpus[0]' does not fit on a100-40gb: the totals fit but no "
       "arrangement"},
  };
  for (const where_case& c : cases) {
    INFO(c.code);
    const auto r = run_migplan({"check", "-"}, c.text);
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(r.out.rfind(c.at, 0) == 0);
    const auto j = run_migplan({"check", "--format", "json", "-"}, c.text);
    const auto doc = nlohmann::json::parse(j.out);
    const auto& model = doc["files"][0]["geometries"][0]["models"][0];
    CHECK(model["reason"]["code"] == c.code);
  }
}

TEST_CASE("check names the real profile for a name tools circulate", "[check]") {
  // 7g.79gb is in HAMi's and nos's A100-80GB tables; no driver printed it.
  for (const char* filter : {"", "      device-filter: \"0x20B210DE\"\n"}) {
    const auto r =
        run_migplan({"check", "-"},
                    std::string("version: v1\nmig-configs:\n  a:\n    - devices: all\n") + filter +
                        "      mig-enabled: true\n      mig-devices: {\"7g.79gb\": 1}\n");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(r.out.find("7g.79gb is not a name nvidia-smi prints; nvidia-smi calls it 7g.80gb on "
                     "a100-80gb") != std::string::npos);
  }
}

TEST_CASE("check reads the mig-parted config of a GPU Operator ConfigMap in a manifest",
          "[check][manifest]") {
  const std::string f = check_fixture("configmap-manifest.yaml");
  auto r = run_migplan({"check", f});
  CHECK(r.code == 0);
  CHECK(r.out == "checked 1 file: 2 geometries valid, 0 invalid\n");
  r = run_migplan({"check", "--format", "json", f});
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["files"][0]["format"] == "mig-parted");
  REQUIRE(doc["files"][0]["geometries"].size() == 2);
  CHECK(doc["files"][0]["geometries"][1]["config"] == "h100-seven-1g");
  CHECK(doc["files"][0]["geometries"][1]["configmap"] == "custom-mig-config");
  CHECK(doc["files"][0]["geometries"][1]["line"] == 22);  // the entry, in the manifest
  // -c picks labels inside the ConfigMap.
  r = run_migplan({"check", "-c", "h100-seven-1g", f});
  CHECK(r.code == 0);
  CHECK(r.out == "checked 1 file: 1 geometry valid, 0 invalid\n");
}

TEST_CASE("check reports a ConfigMap's config at the manifest's own lines and columns",
          "[check][manifest]") {
  // A Deployment first, then the ConfigMap; inside the block scalar, a key
  // given twice and an entry over its cap.
  const std::string manifest =
      "apiVersion: apps/v1\n"                      // 1
      "kind: Deployment\n"                         // 2
      "metadata: {name: app}\n"                    // 3
      "---\n"                                      // 4
      "apiVersion: v1\n"                           // 5
      "kind: ConfigMap\n"                          // 6
      "metadata:\n"                                // 7
      "  name: custom-mig-config\n"                // 8
      "data:\n"                                    // 9
      "  config.yaml: |-\n"                        // 10
      "    version: v1\n"                          // 11
      "    mig-configs:\n"                         // 12
      "      too-many:\n"                          // 13
      "        - device-filter: \"0x233010DE\"\n"  // 14
      "          devices: all\n"                   // 15
      "          mig-enabled: true\n"              // 16
      "          mig-enabled: true\n"              // 17
      "          mig-devices:\n"                   // 18
      "            \"1g.10gb\": 8\n";              // 19
  const auto r = run_migplan({"check", "-"}, manifest);
  CHECK(r.code == 1);
  CHECK(r.out ==
        "<stdin>:17:11: warning: duplicate key 'mig-enabled' (first at line 16); mig-parted keeps "
        "only the last one\n"
        "          mig-enabled: true\n"
        "          ^\n"
        "<stdin>:19:13: error: config 'too-many' does not fit on h100-80gb: 1g.10gb allows at "
        "most 7 instances on h100-80gb (the request has 8)\n"
        "            \"1g.10gb\": 8\n"
        "            ^\n"
        "  closest fit: drop 1g.10gb -> 1g.10gb@0 1g.10gb@1 1g.10gb@2 1g.10gb@3 1g.10gb@4 "
        "1g.10gb@5 1g.10gb@6\n"
        "checked 1 file: 0 geometries valid, 1 invalid; 1 warning\n");
}

TEST_CASE("check skips or warns on a manifest without a GPU Operator ConfigMap",
          "[check][manifest]") {
  const std::string deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n";
  auto r = run_migplan({"check", "-"}, deployment);
  CHECK(r.code == 0);
  CHECK(r.out ==
        "<stdin>: warning: a Kubernetes manifest with no ConfigMap holding config.yaml (the key "
        "the GPU Operator reads a mig-parted config from) or a device-config.yaml with MIG "
        "templates (HAMi's and Volcano's nvidia.knownMigGeometries): nothing to check\n"
        "checked 1 file: 0 geometries valid, 0 invalid; 1 warning\n");
  CHECK(run_migplan({"check", "--strict", "-"}, deployment).code == 1);
  // Found by scanning a directory, the same file is skipped with a note.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("migplan-manifest-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "deploy.yaml") << deployment; }
  r = run_migplan({"check", dir.string()});
  CHECK(r.code == 0);
  CHECK(r.out == (dir / "deploy.yaml").string() +
                     ": note: skipped: a Kubernetes manifest with no ConfigMap holding "
                     "config.yaml (the key the GPU Operator reads a mig-parted config from) or "
                     "a device-config.yaml with MIG templates (HAMi's and Volcano's "
                     "nvidia.knownMigGeometries)\n"
                     "checked 0 files: 0 geometries valid, 0 invalid; 1 file skipped\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("every catalog name and pci id resolves in check's model: and device-filter",
          "[check][names][exhaustive]") {
  // Each model's slug, nvidia-smi names and PCI IDs: a geometry file naming it
  // and a mig-parted entry filtering on it are checked on that very model.
  for (const migplan::gpu_model& g : migplan::catalog()) {
    INFO(g.slug);
    std::vector<std::string> names{std::string(g.slug)};
    for (std::string_view n : g.smi_names) names.emplace_back(n);
    for (const std::string& n : names) {
      INFO(n);
      const auto r =
          run_migplan({"check", "--format", "json", "-"},
                      "version: 1\ngpus:\n  - model: \"" + n + "\"\n    instances: []\n");
      CHECK(r.code == 0);
      const auto doc = nlohmann::json::parse(r.out);
      CHECK(doc["files"][0]["geometries"][0]["models"][0]["gpu"] == std::string(g.slug));
    }
    for (const migplan::pci_id& id : g.pci_ids) {
      const std::string hex = fmt::format("0x{:08X}", id.value);
      INFO(hex);
      const auto r = run_migplan(
          {"check", "--format", "json", "-"},
          "version: v1\nmig-configs:\n  a:\n    - device-filter: \"" + hex +
              "\"\n      devices: all\n      mig-enabled: true\n      mig-devices: {}\n");
      CHECK(r.code == 0);
      const auto doc = nlohmann::json::parse(r.out);
      const auto& models = doc["files"][0]["geometries"][0]["models"];
      REQUIRE(models.size() == 1);
      CHECK(models[0]["gpu"] == std::string(g.slug));
      CHECK(doc["files"][0]["diagnostics"].empty());  // no "not in migplan's catalog" note
    }
  }
}

TEST_CASE("check takes -g for --gpu and --as_json for --format json, as other commands do",
          "[check]") {
  const std::string f = check_fixture("overlap.yaml");
  const auto long_gpu = run_migplan({"check", "--gpu", "a30", f});
  const auto short_gpu = run_migplan({"check", "-g", "a30", f});
  CHECK(short_gpu.code == long_gpu.code);
  CHECK(short_gpu.out == long_gpu.out);
  CHECK(short_gpu.err.empty());
  const auto format = run_migplan({"check", "--format", "json", f});
  const auto as_json = run_migplan({"check", "--json", f});
  CHECK(as_json.code == 1);
  CHECK(as_json.err.empty());
  CHECK(as_json.out == format.out);
  CHECK(run_migplan({"check", "--json", "--format", "json", f}).out == format.out);
  const auto both = run_migplan({"check", "--json", "--format", "github", f});
  CHECK(both.code == 2);
  CHECK(both.err ==
        "migplan: check: --json is --format json; it does not combine with --format github\n");
  CHECK(nlohmann::json::parse(both.out)["error"]["code"] == "bad_input");
}

TEST_CASE("check skips a migplan state file when it scans, and names it when given", "[check]") {
  const std::string dir = test_path("fixtures/check/state-scan");
  auto r = run_migplan({"check", dir});
  CHECK(r.code == 0);
  CHECK(r.out.find(dir + "/state.yaml: note: skipped: a migplan state file (version: 1, nodes: "
                         "...), which plan, place and simulate read with --current\n") !=
        std::string::npos);
  CHECK(r.out.find("1 file skipped") != std::string::npos);
  r = run_migplan({"check", dir + "/state.yaml"});
  CHECK(r.code == 2);
  CHECK(r.out.find("state.yaml:2:1: error: a migplan state file (version: 1, nodes: ...), the "
                   "fleet as it is: plan, place and simulate read it with --current; check reads "
                   "geometry files and configs") != std::string::npos);
}

TEST_CASE("check names migplan's demand, fleet and trace files, and skips them when it scans",
          "[check]") {
  // Each kind by a top-level key of its own: named, an error (exit 2) that
  // says which command reads it; found by scanning, a note.
  struct kind {
    std::string file, text, named;
  };
  const std::vector<kind> kinds{
      {"demand.yaml", "version: 1\ndemand:\n  - {count: 3, profile: 1g.10gb}\n",
       "a migplan demand file (version: 1, demand: ...), what a workload mix needs: plan reads it "
       "with --demand; check reads geometry files and configs"},
      {"trace.yaml", "version: 1\npods:\n  - {start: 0, item: 1g.10gb}\n",
       "a migplan trace (version: 1, pods: ...), pods over time: simulate reads it with --trace; "
       "check reads geometry files and configs"},
      {"fleet.yaml", "version: 1\nmodels:\n  - {gpu: h100-80gb}\n",
       "a migplan fleet file (version: 1, models or nodes: ...), the GPUs a plan may use: plan and "
       "simulate read it with --fleet; check reads geometry files and configs"},
      // Nodes alone, counting their GPUs: a fleet file, not a state file.
      {"nodes.yaml", "version: 1\nnodes:\n  - {name: a, gpu: h100-80gb, gpus: 8}\n",
       "a migplan fleet file (version: 1, models or nodes: ...), the GPUs a plan may use: plan and "
       "simulate read it with --fleet; check reads geometry files and configs"},
  };
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("migplan-other-{}", ::getpid());
  std::filesystem::create_directories(dir);
  for (const kind& k : kinds) {
    INFO(k.file);
    const std::string path = (dir / k.file).string();
    std::ofstream(path) << k.text;
    const auto named = run_migplan({"check", path});
    CHECK(named.code == 2);
    CHECK(named.out.find(path + ":1:1: error: " + k.named + "\n") != std::string::npos);
  }
  const auto scanned = run_migplan({"check", dir.string()});
  CHECK(scanned.code == 0);
  CHECK(scanned.out.find(
            "demand.yaml: note: skipped: a migplan demand file (version: 1, demand: ...), which "
            "plan reads with --demand\n") != std::string::npos);
  CHECK(scanned.out.find("trace.yaml: note: skipped: a migplan trace (version: 1, pods: ...), "
                         "which simulate reads with --trace\n") != std::string::npos);
  CHECK(scanned.out.find("nodes.yaml: note: skipped: a migplan fleet file (version: 1, models or "
                         "nodes: ...), which plan and simulate read with --fleet\n") !=
        std::string::npos);
  CHECK(scanned.out.find("4 files skipped") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("check -c on a file that is no mig-parted config warns that it selected nothing",
          "[cli][check]") {
  // A geometry file has no labels: -c narrowed nothing, and the check passed in silence,
  // as if the label had been found and checked.
  const std::string file =
      "version: 1\n"
      "gpus:\n"
      "  - model: a100-40gb\n"
      "    instances: [3g.20gb]\n";
  const auto r = run_migplan({"check", "-c", "all-1g.5gb", "-"}, file);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out ==
        "<stdin>: warning: -c selects mig-parted config labels, and this file is not a "
        "mig-parted config: every geometry in it was checked\n"
        "checked 1 file: 1 geometry valid, 0 invalid; 1 warning\n");
  CHECK(run_migplan({"check", "--strict", "-c", "all-1g.5gb", "-"}, file).code == 1);
  // Without -c, nothing to warn about.
  const auto plain = run_migplan({"check", "-"}, file);
  CHECK(plain.code == 0);
  CHECK(plain.out == "checked 1 file: 1 geometry valid, 0 invalid\n");
}

TEST_CASE("check warns of a mig-parted entry whose devices list is empty", "[cli][check]") {
  // mig-parted accepts devices: [] and the entry then matches no gpu index
  // (MatchesDevices, api/spec/v1/helpers.go): a silent no-op, accepted in silence.
  const std::string config =
      "version: v1\n"
      "mig-configs:\n"
      "  custom:\n"
      "    - devices: []\n"
      "      mig-enabled: true\n"
      "      mig-devices:\n"
      "        \"1g.10gb\": 4\n"
      "    - devices: [1]\n"
      "      mig-enabled: false\n";
  const std::string warning =
      "'devices' is an empty list: mig-parted accepts it, but the entry then applies to no gpu "
      "(write devices: all, or the gpu indices it is for)";
  const auto r = run_migplan({"check", "-"}, config);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out == "<stdin>:4:16: warning: " + warning +
                     "\n"
                     "    - devices: []\n"
                     "               ^\n"
                     "checked 1 file: 2 geometries valid, 0 invalid; 1 warning\n");
  const auto strict = run_migplan({"check", "--strict", "-"}, config);
  CHECK(strict.code == 1);
  CHECK(strict.out.find("<stdin>:4:16: error: " + warning + " [--strict]\n") != std::string::npos);
  // A list with an index, or all, is no warning.
  std::string listed = config;
  listed.replace(listed.find("[]"), 2, "[0]");
  const auto fine = run_migplan({"check", "-"}, listed);
  CHECK(fine.code == 0);
  CHECK(fine.out == "checked 1 file: 2 geometries valid, 0 invalid\n");
}

TEST_CASE("integer options that are no whole number in digits say a whole number is expected",
          "[cli][check]") {
  // CLI11's range check said "Value 1e9 not in range 0 to 2147483647", of a
  // value that is in range; every other count is read by parse_whole_number.
  const std::string geometry = migplan::test::source_path("examples/geometry.yaml");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"check", "--max-errors", "1e9", geometry},
       "--max-errors '1e9' is not a number: expected a whole number from 0 to 2147483647"},
      {{"check", "--max-errors", "", geometry},
       "--max-errors '' is not a number: expected a whole number from 0 to 2147483647"},
      {{"check", "--max-errors=-1", geometry}, "--max-errors -1 must be at least 0"},
      {{"pack", "--index", "1.5", "1g.5gb"},
       "--index '1.5' is not a number: expected a whole number from 0 to 4095"},
      {{"pack", "--index", "5000", "1g.5gb"}, "--index 5000 is too large (at most 4095)"},
      {{"import", "--lgip", "x", "--lgipp", "y", "--index", "two"},
       "--index 'two' is not a number: expected a whole number from 0 to 4095"},
  };
  for (const auto& [args, message] : cases) {
    INFO(args[1] + " " + args[2]);
    const auto r = run_migplan(args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "migplan: " + message + "\n");
  }
  // A whole number still takes: one diagnostic shown of the invalid example's eight.
  const auto one = run_migplan(
      {"check", "--max-errors", "1", migplan::test::source_path("examples/invalid-geometry.yaml")});
  CHECK(one.code == 1);
  CHECK(one.out.find("and 7 more errors in ") != std::string::npos);
}

TEST_CASE("check given an nvidia-smi listing says what it is and which command reads it",
          "[cli][check]") {
  // It said "invalid yaml: illegal map value" at the table's title: true, but
  // no help to someone who pasted `nvidia-smi mig -lgi` output.
  const std::string tail =
      "; check reads geometry files, mig-parted configs, HAMi and Volcano device configs and "
      "ResourceSlices\n";
  struct listing {
    std::string capture, at, what;
  };
  const std::vector<listing> listings{
      {"a100-40gb-lgi-example1.txt", ":5:1",
       "nvidia-smi mig -lgi output (GPU instances): pack, place and simulate read it with "
       "--current"},
      // nvidia-smi's "Successfully created ..." lines before the table are skipped.
      {"a30-cgi-lgi.txt", ":12:1",
       "nvidia-smi mig -lgi output (GPU instances): pack, place and simulate read it with "
       "--current"},
      {"a100-40gb-lci.txt", ":5:1",
       "nvidia-smi mig -lci output (Compute instances): pack reads it with --current, after the "
       "-lgi output"},
      {"a100-40gb-lgip.txt", ":5:1",
       "nvidia-smi mig -lgip output (GPU instance profiles): import reads it with --lgip"},
      {"a100-40gb-lgipp.txt", ":4:1",
       "nvidia-smi mig -lgipp output (possible placements): import reads it with --lgipp"},
      {"a100-40gb-lcip.txt", ":5:1",
       "nvidia-smi mig -lcip output (Compute instance profiles): no migplan command reads it"},
  };
  for (const listing& l : listings) {
    INFO(l.capture);
    const std::string path = source_path("data/captures/" + l.capture);
    const auto r = run_migplan({"check", path});
    CHECK(r.code == 2);
    CHECK(r.err.empty());
    CHECK(r.out.starts_with(path + l.at + ": error: this looks like " + l.what + tail));
    CHECK(r.out.find("invalid yaml") == std::string::npos);
  }
  // From standard input, indented (the caret follows the table), and named .json.
  const std::string table =
      "  +------------------------------------------+\n"
      "  | GPU instances:                           |\n"
      "  | GPU   Name        Profile  Instance   Placement  |\n";
  const auto in = run_migplan({"check", "--json", "-"}, table);
  CHECK(in.code == 2);
  const auto doc = nlohmann::json::parse(in.out);
  CHECK(doc["files"][0]["diagnostics"][0]["line"] == 2);
  CHECK(doc["files"][0]["diagnostics"][0]["col"] == 3);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("migplan-smi-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const std::string as_json = (dir / "lgi.json").string();
  std::ofstream(as_json) << table;
  const auto named_json = run_migplan({"check", as_json});
  CHECK(named_json.code == 2);
  CHECK(named_json.out.starts_with(as_json + ":2:3: error: this looks like nvidia-smi mig -lgi"));
  // Narrow: only a text that starts as a listing. A broken config that
  // quotes a table further down, and a frame with another title, keep their
  // syntax errors.
  const std::vector<std::string> not_listings{
      "version: 1\ngpus: [\n+-----+\n| GPU instances: |\n",
      "+----------------+\n| GPU processes: |\n| x: y: z |\n",
      "# a note\nGPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-1) {0}:1\n"};
  for (const std::string& text : not_listings) {
    INFO(text);
    const auto r = run_migplan({"check", "-"}, text);
    CHECK(r.code == 2);
    CHECK(r.out.find("this looks like") == std::string::npos);
    CHECK(r.out.find("error: invalid yaml") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

// Over the caps of two profiles, the reason said "... ; B allows at most 1
// instance on G (the request has 2)": the count, the first profile's, read
// as B's. Each profile now carries its own count.
TEST_CASE("check gives each profile over its cap its own count", "[check]") {
  const std::string text =
      "version: 1\ngpus:\n  - model: a30\n    instances: [\"2x1g.6gb+me\", \"3x2g.12gb+me\"]\n";
  const auto r = run_migplan({"check", "-"}, text);
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("1g.6gb+me allows at most 1 instance on a30 (the request has 2); 2g.12gb+me "
                   "allows at most 1 instance on a30 (the request has 3)") != std::string::npos);
  const auto j = nlohmann::json::parse(run_migplan({"check", "--format", "json", "-"}, text).out);
  CHECK(j["files"][0]["geometries"][0]["models"][0]["reason"]["message"] ==
        "1g.6gb+me allows at most 1 instance on a30 (the request has 2); 2g.12gb+me allows at "
        "most 1 instance on a30 (the request has 3)");
}

// A reader's finding about a whole mig-parted label, a HAMi entry or a
// ResourceSlice carried its name as `config` with a null `entry`, which
// check.schema.json refuses (a diagnostic names a geometry, config and
// entry, or neither: doc/json.md).
TEST_CASE("check's json names no config for a finding without an entry", "[check]") {
  const std::vector<std::string> texts{
      "version: v1\nmig-configs:\n  empty: []\n",
      "nvidia:\n  knownMigGeometries:\n    - models: \"A30\"\n      allowedGeometries: []\n",
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
      "spec:\n  driver: d\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
      "  sharedCounters:\n  - name: c\n    counters:\n      x: {value: \"1.5\"}\n"};
  for (const std::string& text : texts) {
    INFO(text);
    const auto r = run_migplan({"check", "--format", "json", "-"}, text);
    CHECK(r.code == 2);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(!j["files"][0]["diagnostics"].empty());
    for (const auto& d : j["files"][0]["diagnostics"]) {
      INFO(d.dump());
      CHECK(d["config"].is_null() == d["entry"].is_null());
    }
  }
}

TEST_CASE("check refuses a mig-parted config that is not UTF-8 as go-yaml does", "[check]") {
  // mig-parted's parser refuses the file; check called it valid.
  const std::string text =
      "version: v1\nmig-configs:\n  m\xffne:\n    - devices: all\n      mig-enabled: true\n"
      "      mig-devices:\n        \"3g.20gb\": 2\n";
  const auto r = run_migplan({"check", "-"}, text);
  CHECK(r.code == 2);
  // The byte is shown as U+FFFD in the quoted line, the caret under it.
  CHECK(r.out ==
        "<stdin>:3:4: error: invalid UTF-8: byte 0xFF is no part of a UTF-8 character (YAML "
        "files are UTF-8 text)\n"
        "  m\xEF\xBF\xBDne:\n"
        "   ^\n"
        "checked 1 file: 0 geometries valid, 0 invalid; 1 file malformed\n");
  const auto merged = run_migplan({"emit-config", "--gpu", "a100-40gb", "--merge", "-"}, text);
  CHECK(merged.code == 2);
  CHECK(merged.out.empty());
}

TEST_CASE("check's skip note names every kind a directory scan reads", "[check]") {
  // The note named geometry files and mig-parted configs only, though the
  // scan reads HAMi and Volcano device configs and DRA ResourceSlices too.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("migplan-kinds-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(check_fixture("hami/device-config.yaml"), dir / "hami.yaml");
  std::filesystem::copy_file(check_fixture("hami/volcano.yaml"), dir / "volcano.yaml");
  std::filesystem::copy_file(check_fixture("dra/a30.yaml"), dir / "slices.yaml");
  { std::ofstream(dir / "other.yaml") << "foo: 1\n"; }
  const auto r = run_migplan({"check", "--format", "json", dir.string()});
  const auto doc = nlohmann::json::parse(r.out);
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& f : doc["files"])
    by_name[std::filesystem::path(f["file"].get<std::string>()).filename().string()] = f;
  REQUIRE(by_name.size() == 4);
  CHECK(by_name["hami.yaml"]["format"] == "hami");
  CHECK(by_name["volcano.yaml"]["format"] == "hami");
  CHECK(by_name["slices.yaml"]["format"] == "resource-slices");
  CHECK(by_name["other.yaml"]["status"] == "skipped");
  const std::string note = by_name["other.yaml"]["diagnostics"][0]["message"];
  CHECK(note.find("migplan geometry file (version: 1, gpus: ...)") != std::string::npos);
  CHECK(note.find("mig-parted config (version: v1, mig-configs: ...)") != std::string::npos);
  CHECK(note.find("HAMi or Volcano device config (nvidia: knownMigGeometries: ...)") !=
        std::string::npos);
  CHECK(note.find("DRA ResourceSlices (kind: ResourceSlice)") != std::string::npos);
  std::filesystem::remove_all(dir);
}

// SPDX-License-Identifier: Apache-2.0
// Compute instances end to end: the ITEM syntax ("3g.20gb[2c,1c]", "4x1c.3g.20gb"),
// pack's text and JSON, every rejection with its exact message, `profiles --ci`, and
// `check` on mig-parted configs that name CI profiles.

#include <algorithm>
#include <catch2/catch.hpp>
#include <migplan/catalog.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/request.hpp"
#include "models.hpp"
#include "run_binary.hpp"

using migplan::test::run_migplan;
using json = nlohmann::json;

namespace {

// stdout of `pack --gpu G ITEM...`, with its exit code checked and stderr empty.
std::string pack_out(const std::string& gpu, const std::vector<std::string>& items, int code) {
  std::vector<std::string> args{"pack", "--gpu", gpu};
  args.insert(args.end(), items.begin(), items.end());
  const auto r = run_migplan(args);
  INFO(r.err);
  CHECK(r.code == code);
  CHECK(r.err.empty());
  return r.out;
}

json pack_json(const std::string& gpu, const std::vector<std::string>& items, int code) {
  std::vector<std::string> args{"pack", "--json", "--gpu", gpu};
  args.insert(args.end(), items.begin(), items.end());
  const auto r = run_migplan(args);
  INFO(r.err);
  CHECK(r.code == code);
  return json::parse(r.out);
}

// The line of `text` that starts with `prefix` ("" when none does).
std::string line_of(const std::string& text, const std::string& prefix) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::string line = text.substr(pos, nl - pos);
    if (line.rfind(prefix, 0) == 0) return line;
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return "";
}

}  // namespace

TEST_CASE("an ITEM splits a GPU instance with brackets or names a CI on its own",
          "[cli][compute][request]") {
  using namespace migplan::cli;
  CHECK(split_items("3g.20gb[1c, 2c] 1g.5gb,2g.10gb") ==
        std::vector<std::string>{"3g.20gb[1c,2c]", "1g.5gb", "2g.10gb"});
  const auto t = parse_item("2x3g.20gb[2x1c,MIG 1c.3g.20gb]@4");
  REQUIRE(t);
  CHECK(t->count == 2);
  CHECK(t->profile == "3g.20gb");
  CHECK(t->start == 4);
  REQUIRE(t->cis.size() == 2);
  CHECK(t->cis[0].count == 2);
  CHECK(t->cis[0].slices == 1);
  CHECK(t->cis[1].name == "MIG 1c.3g.20gb");
  const auto lone = parse_item("4x1c.3g.20gb");
  REQUIRE(lone);
  CHECK(lone->count == 4);
  CHECK(lone->profile == "3g.20gb");
  REQUIRE(lone->ci);
  CHECK(lone->ci->name == "1c.3g.20gb");
  // GPU-instance-only callers refuse them rather than drop the CIs.
  const migplan::gpu_model& a100 = *migplan::find_model("a100-40gb");
  CHECK(resolve_items(builtin_models(), a100, std::vector<token>{*t}).error().message ==
        "'2x3g.20gb[2x1c,MIG 1c.3g.20gb]@4' names compute instances, which are not accepted "
        "here");
}

TEST_CASE("three 1c.3g.20gb fill one 3g GI at slices 0, 1 and 2 (the user guide's example)",
          "[cli][compute]") {
  CHECK(pack_out("a100-40gb", {"3x1c.3g.20gb"}, 0) ==
        "a100-40gb  NVIDIA A100-SXM4-40GB  (8 placement units, 7 compute slices)\n"
        "request  3g.20gb[1c,1c,1c]\n"
        "         (3x1c.3g.20gb take 1 3g.20gb GPU instance: 3g.20gb[1c,1c,1c])\n"
        "fits: 2 layouts, the one that keeps the most room first\n"
        "\n"
        "  unit      0  1  2  3  4  5  6  7\n"
        "  memory   [.][.][.][.][A  A  A  A]\n"
        "  compute  [###....]  3 of 7 slices used\n"
        "           # used  . free  ~ stranded (free, but nothing can use it)\n"
        "\n"
        "      profile           id  start  units      memory   SMs\n"
        "  A   3g.20gb            9      4    4-7   19.50 GiB    42\n"
        "\n"
        "  compute instances: the compute slices of each GPU instance, by owner\n"
        "  A  3g.20gb          [A0 A1 A2]\n"
        "      CI profile        id slices   SMs\n"
        "  A0  1c.3g.20gb         0      0    14\n"
        "  A1  1c.3g.20gb         0      1    14\n"
        "  A2  1c.3g.20gb         0      2    14\n"
        "  CI starts follow an inferred rule (no -lcipp capture exists): "
        "doc/compute-instances.md\n"
        "\n"
        "  free      4 units (0,1,2,3), 4 compute slices\n"
        "  stranded  0 units (0.00 GiB), 0 compute slices\n"
        "  can add   1g.5gb at {0,1,2,3}, up to 4 more\n"
        "            1g.5gb+me at {0,1,2,3}, up to 1 more\n"
        "            1g.10gb at {0,2}, up to 2 more\n"
        "            2g.10gb at {0,2}, up to 2 more\n"
        "            3g.20gb at {0}, up to 1 more\n"
        "            4g.20gb at {0}, up to 1 more\n"
        "\n"
        "1 other layout; --all shows every one\n");
  // The same written as one GI split three ways.
  const json j = pack_json("a100-40gb", {"3g.20gb[1c,1c,1c]"}, 0);
  CHECK(j["request_compute_instances"] ==
        json::parse(R"([["1c.3g.20gb", "1c.3g.20gb", "1c.3g.20gb"]])"));
  CHECK(j["layouts"][0]["instances"][0]["compute_instances"] == json::parse(R"([
      {"profile": "1c.3g.20gb", "profile_id": 0, "start": 0, "size": 1},
      {"profile": "1c.3g.20gb", "profile_id": 0, "start": 1, "size": 1},
      {"profile": "1c.3g.20gb", "profile_id": 0, "start": 2, "size": 1}])"));
}

TEST_CASE("four 1c.3g.20gb need two GIs, and the -lci capture's two CIs sit at 0:1 and 1:1",
          "[cli][compute]") {
  const json four = pack_json("a100-40gb", {"4x1c.3g.20gb"}, 0);
  CHECK(four["request"] == json::parse(R"(["3g.20gb", "3g.20gb"])"));
  CHECK(four["request_compute_instances"] ==
        json::parse(R"([["1c.3g.20gb", "1c.3g.20gb", "1c.3g.20gb"], ["1c.3g.20gb"]])"));
  const json& in = four["layouts"][0]["instances"];
  REQUIRE(in.size() == 2);
  std::vector<std::size_t> sizes{in[0]["compute_instances"].size(),
                                 in[1]["compute_instances"].size()};
  std::sort(sizes.begin(), sizes.end());
  CHECK(sizes == std::vector<std::size_t>{1, 3});

  // data/captures/a100-80gb-lci.txt: -cci 1c.3g.40gb,1c.3g.40gb gave 0:1 and 1:1.
  const json two = pack_json("a100-80gb", {"2x1c.3g.40gb"}, 0);
  CHECK(two["layouts"][0]["instances"][0]["compute_instances"] == json::parse(R"([
      {"profile": "1c.3g.40gb", "profile_id": 0, "start": 0, "size": 1},
      {"profile": "1c.3g.40gb", "profile_id": 0, "start": 1, "size": 1}])"));

  // A GI without brackets gets its default CI; on a profile-15 GI that is CI profile 7.
  const json bare = pack_json("h100-80gb", {"1g.20gb"}, 0);
  CHECK(bare["layouts"][0]["instances"][0]["compute_instances"] ==
        json::parse(R"([{"profile": "1g.20gb", "profile_id": 7, "start": 0, "size": 1}])"));
  // Unknown CI profiles: the full CI -C creates, its ID null.
  const json unknown = pack_json("h100-80gb", {"3g.40gb"}, 0);
  CHECK(unknown["layouts"][0]["instances"][0]["compute_instances"] ==
        json::parse(R"([{"profile": "3g.40gb", "profile_id": null, "start": 0, "size": 3}])"));
  // 4c and 3c share a 7g GI: 3c starts at 4, the alignment of the GI level.
  const json seven = pack_json("a100-40gb", {"7g.40gb[4c,3c]"}, 0);
  CHECK(seven["layouts"][0]["instances"][0]["compute_instances"] == json::parse(R"([
      {"profile": "4c.7g.40gb", "profile_id": 3, "start": 0, "size": 4},
      {"profile": "3c.7g.40gb", "profile_id": 2, "start": 4, "size": 3}])"));
}

TEST_CASE("each CI rejection has its code and an exact message", "[cli][compute]") {
  struct reject {
    std::string gpu, item, code, message;
  };
  const std::vector<reject> cases{
      {"a100-40gb", "3g.20gb[1c,1c,1c,1c]", "ci_cap",
       "'3g.20gb[1c,1c,1c,1c]' asks 4 x 1c.3g.20gb of one 3g.20gb GPU instance, but one holds "
       "at most 3"},
      {"a100-40gb", "3g.20gb[2c,1c,1c]", "ci_slices",
       "'3g.20gb[2c,1c,1c]' needs 4 compute slices (2 + 1 + 1), but a 3g.20gb GPU instance has "
       "3"},
      {"a100-40gb", "4g.20gb[3c]", "unknown_ci_profile",
       "3c.4g.20gb is not a compute-instance profile of 4g.20gb on a100-40gb (4g.20gb offers "
       "1c.4g.20gb, 2c.4g.20gb and 4g.20gb)"},
      {"h100-80gb", "3g.40gb[1c,2c]", "unknown_ci_profile",
       "CI profiles unknown for 3g.40gb on h100-80gb: no capture or document lists them, so "
       "migplan does not guess; 'migplan profiles --gpu h100-80gb --ci' shows which GPU "
       "instances have them"},
      {"h100-80gb", "2x1c.3g.40gb", "unknown_ci_profile",
       "CI profiles unknown for 3g.40gb on h100-80gb: no capture or document lists them, so "
       "migplan does not guess; 'migplan profiles --gpu h100-80gb --ci' shows which GPU "
       "instances have them"},
  };
  for (const reject& c : cases) {
    INFO(c.item);
    const std::string out = pack_out(c.gpu, {c.item}, 1);
    CHECK(line_of(out, "does not fit") == "does not fit (" + c.code + "): " + c.message);
    const json j = pack_json(c.gpu, {c.item}, 1);
    CHECK(j["feasible"] == false);
    CHECK(j["layouts"] == json::array());
    CHECK(j["reason"]["code"] == c.code);
    CHECK(j["reason"]["message"] == c.message);
  }
  // More CIs on their own than the GIs of their profile the GPU holds: the GI level says so.
  const std::string many = pack_out("a100-40gb", {"7x1c.3g.20gb"}, 1);
  CHECK(line_of(many, "         (") ==
        "         (7x1c.3g.20gb need at least 3 3g.20gb GPU instances)");
  CHECK(line_of(many, "does not fit") ==
        "does not fit (instance_cap): 3g.20gb allows at most 2 instances on a100-40gb (the "
        "request has 3)");
}

TEST_CASE("CI syntax that cannot be read is bad input with an exact message", "[cli][compute]") {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"3g.20gb[1c", "unclosed '[' in '3g.20gb[1c'"},
      {"3g.20gb[]", "no compute instances inside '[]' in '3g.20gb[]'"},
      {"3g.20gb[1c,,1c]", "an empty compute instance inside '[...]' in '3g.20gb[1c,,1c]'"},
      {"3g.20gb[1c]x", "unexpected 'x' after ']' in '3g.20gb[1c]x'; only @START may follow"},
      {"3g.20gb[1c][2c]", "more than one '[...]' in '3g.20gb[1c][2c]'"},
      {"3g.20gb[foo]",
       "invalid compute instance 'foo' in '3g.20gb[foo]': expected Nc (1c, 2c, ...) or a "
       "compute-instance profile name such as 1c.3g.20gb"},
      {"3g.20gb[0c]", "compute instance '0c' in '3g.20gb[0c]' has no compute slices"},
      {"3g.20gb[1c@2]",
       "'1c@2' in '3g.20gb[1c@2]': compute instances take no start, migplan places them inside "
       "their GPU instance (an @START after ']' pins the GPU instance)"},
      {"3g.20gb[1c.4g.20gb]",
       "'1c.4g.20gb' in '3g.20gb[1c.4g.20gb]' is a compute instance of 4g.20gb, not of "
       "3g.20gb"},
      {"3g.20gb[1c.3g.2gb]",
       "'1c.3g.2gb' in '3g.20gb[1c.3g.2gb]' is a compute instance of 3g.2gb, not of 3g.20gb"},
      {"1c.3g.20gb@4",
       "a compute instance on its own has no start: '1c.3g.20gb@4'; to pin its GPU instance, "
       "write 3g.20gb[1c]@4"},
      {"1c.3g.20gb[1c]",
       "'1c.3g.20gb' is a compute instance, and '[...]' splits a GPU instance: write "
       "3g.20gb[1c]"},
      {"1c.3g.20gbb",
       "unknown profile '3g.20gbb' on a100-40gb (did you mean 3g.20gb or 4g.20gb?) (in "
       "'1c.3g.20gbb')"},
      {"1000x3g.20gb[1000x1c]",
       "the request holds 1000000 instances (compute instances included); no gpu holds more "
       "than 16, and a request may hold at most 1024"},
  };
  for (const auto& [item, message] : cases) {
    INFO(item);
    const auto r = run_migplan({"pack", "--gpu", "a100-40gb", item});
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "migplan: " + message + "\n");
  }
}

TEST_CASE("CIs work without --gpu, in --batch and beside existing instances", "[cli][compute]") {
  // 3g.40gb is on a100-80gb (CI data) and both H100s (none): the answers differ.
  const auto amb = run_migplan({"pack", "1c.3g.40gb"});
  CHECK(amb.code == 2);
  CHECK(amb.err ==
        "migplan: the gpu is ambiguous: these profiles exist on several gpus with different "
        "answers; pass --gpu:\n"
        "  h100-80gb, h100-pcie: does not fit (unknown_ci_profile)\n"
        "  a100-80gb: fits (2 layouts; preferred 3g.40gb@4)\n");
  const auto batch = run_migplan({"pack", "--gpu", "a100-40gb", "--batch", "-", "--brief"},
                                 "3g.20gb[1c, 2c] 1g.5gb\n4g.20gb[3c]\n");
  CHECK(batch.code == 1);
  CHECK(batch.out ==
        "1\ta100-40gb\tfits\t7\t1g.5gb@0 3g.20gb@4\n"
        "2\ta100-40gb\tno_fit\t0\tunknown_ci_profile\n");
  const std::string listing =
      "+-------------------------------------------------------+\n"
      "| GPU instances:                                        |\n"
      "| GPU   Name             Profile  Instance   Placement  |\n"
      "|                          ID       ID       Start:Size |\n"
      "|=======================================================|\n"
      "|   0  MIG 3g.20gb          9        1          4:4     |\n"
      "+-------------------------------------------------------+\n";
  const auto cur = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--json", "--current", "-", "3g.20gb[2c,1c]"}, listing);
  INFO(cur.err);
  CHECK(cur.code == 0);
  const json j = json::parse(cur.out);
  CHECK(j["request_compute_instances"] == json::parse(R"([null, ["2c.3g.20gb", "1c.3g.20gb"]])"));
  for (const json& in : j["layouts"][0]["instances"]) {
    INFO(in.dump());
    // The existing GI at 4 carries no compute_instances (its CIs are under "current").
    CHECK(in.contains("compute_instances") == (in["start"] == 0));
  }
}

TEST_CASE("profiles --ci lists CI profiles, and says unknown where no source does",
          "[cli][compute][profiles]") {
  const auto a30 = run_migplan({"profiles", "--gpu", "a30", "--ci"});
  CHECK(a30.code == 0);
  CHECK(a30.err.empty());
  CHECK(a30.out ==
        "a30  NVIDIA A30  compute-instance profiles of each GPU-instance profile\n"
        "  GPU instance     CI profile           id  inst   c   SMs  default  starts "
        "{slices}:size\n"
        "  1g.6gb           1g.6gb                0     1   1    14      yes  {0}:1\n"
        "  1g.6gb+me        CI profiles unknown for 1g.6gb+me on a30\n"
        "  2g.12gb          1c.2g.12gb            0     2   1    14           {0,1}:1\n"
        "                   2g.12gb               1     1   2    28      yes  {0}:2\n"
        "  2g.12gb+me       CI profiles unknown for 2g.12gb+me on a30\n"
        "  4g.24gb          CI profiles unknown for 4g.24gb on a30\n"
        "  inst: most per GPU instance; c: compute slices; default: the CI -C creates; ? "
        "unknown\n"
        "  starts: migplan's inferred rule, no -lcipp capture exists "
        "(doc/compute-instances.md)\n"
        "  sources:\n"
        "    1g.6gb             data/captures/a30-lcip-gi3.txt\n"
        "    1c.2g.12gb         data/captures/a30-lcip-gi2.txt\n"
        "    2g.12gb            data/captures/a30-lcip-gi2.txt\n");
  const auto none = run_migplan({"profiles", "--gpu", "h100-pcie", "--ci"});
  CHECK(none.code == 0);
  CHECK(none.out ==
        "h100-pcie  NVIDIA H100 PCIe  compute-instance profiles of each GPU-instance profile\n"
        "  GPU instance     CI profile           id  inst   c   SMs  default  starts "
        "{slices}:size\n"
        "  1g.10gb          CI profiles unknown for 1g.10gb on h100-pcie\n"
        "  1g.10gb+me       CI profiles unknown for 1g.10gb+me on h100-pcie\n"
        "  1g.20gb          CI profiles unknown for 1g.20gb on h100-pcie\n"
        "  2g.20gb          CI profiles unknown for 2g.20gb on h100-pcie\n"
        "  3g.40gb          CI profiles unknown for 3g.40gb on h100-pcie\n"
        "  4g.40gb          CI profiles unknown for 4g.40gb on h100-pcie\n"
        "  7g.80gb          CI profiles unknown for 7g.80gb on h100-pcie\n"
        "  inst: most per GPU instance; c: compute slices; default: the CI -C creates; ? "
        "unknown\n"
        "  starts: migplan's inferred rule, no -lcipp capture exists "
        "(doc/compute-instances.md)\n");
  // Inferred values carry '*'.
  const auto a100 = run_migplan({"profiles", "--gpu", "a100-40gb", "--ci"});
  CHECK(line_of(a100.out, "                   7g.40gb") ==
        "                   7g.40gb              4*     1   7   98*     yes*  {0}:7");
  const json j = json::parse(run_migplan({"profiles", "--gpu", "a100-40gb", "--ci", "--json"}).out);
  const json& p = j["gpus"][0]["profiles"];
  CHECK(p[1]["ci_profiles"].is_null());  // 1g.5gb+me
  json seven;
  for (const json& row : p)
    if (row["name"] == "7g.40gb") seven = row["ci_profiles"];
  REQUIRE(seven.size() == 5);
  CHECK(seven[2]["name"] == "3c.7g.40gb");
  CHECK(seven[2]["starts"] == json::parse("[0, 4]"));
  CHECK(seven[4]["inferred"] == json::parse(R"(["id", "sm_count", "default"])"));
  // Without --ci, no ci_profiles key (what the completions read stays as it was).
  CHECK_FALSE(
      json::parse(run_migplan({"profiles", "--gpu", "a30", "--json"}).out)["gpus"][0]["profiles"][0]
          .contains("ci_profiles"));
}

namespace {
// The JSON reason code of each geometry and model `check` reports for `text`, "" where
// it fits.
std::vector<std::string> check_reason_codes(const std::string& text) {
  const json j = json::parse(run_migplan({"check", "--format", "json", "-"}, text).out);
  std::vector<std::string> codes;
  for (const json& g : j["files"][0]["geometries"])
    for (const json& m : g["models"])
      codes.push_back(m["reason"].is_null() ? "" : m["reason"]["code"].get<std::string>());
  return codes;
}
}  // namespace

TEST_CASE("check validates the CI profiles a mig-parted config names", "[cli][compute][check]") {
  const std::string config = R"(version: v1
mig-configs:
  two-gis:
    - device-filter: ["0x20B010DE"]
      devices: all
      mig-enabled: true
      mig-devices:
        "1c.3g.20gb": 6
  shared:
    - device-filter: ["0x20B010DE"]
      devices: all
      mig-enabled: true
      mig-devices:
        "2c.3g.20gb": 1
        "1c.3g.20gb": 1
        "4g.20gb": 1
  too-many:
    - device-filter: ["0x20B010DE"]
      devices: all
      mig-enabled: true
      mig-devices:
        "1c.3g.20gb": 7
  no-3c:
    - device-filter: ["0x20B010DE"]
      devices: all
      mig-enabled: true
      mig-devices:
        "3c.4g.20gb": 1
  h100:
    - device-filter: ["0x233010DE"]
      devices: all
      mig-enabled: true
      mig-devices:
        "1c.3g.40gb": 2
)";
  const auto r = run_migplan({"check", "-"}, config);
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      R"(<stdin>:22:9: error: config 'too-many' does not fit on a100-40gb: 3g.20gb allows at most 2 instances on a100-40gb (the request has 3)
        "1c.3g.20gb": 7
        ^
  its compute instances (7 x 1c.3g.20gb) take at least 3 3g.20gb GPU instances
  closest fit: drop 3g.20gb -> 3g.20gb@0 3g.20gb@4
<stdin>:28:9: error: config 'no-3c' does not fit on a100-40gb: 3c.4g.20gb is not a compute-instance profile of 4g.20gb on a100-40gb (4g.20gb offers 1c.4g.20gb, 2c.4g.20gb and 4g.20gb)
        "3c.4g.20gb": 1
        ^
<stdin>:34:9: error: config 'h100' does not fit on h100-80gb: CI profiles unknown for 3g.40gb on h100-80gb: no capture or document lists them, so migplan does not guess; 'migplan profiles --gpu h100-80gb --ci' shows which GPU instances have them
        "1c.3g.40gb": 2
        ^
checked 1 file: 2 geometries valid, 3 invalid
)");
  // The two valid ones, and the reason codes in JSON.
  const auto v = run_migplan({"check", "-v", "-c", "two-gis", "-c", "shared", "-"}, config);
  CHECK(v.code == 0);
  CHECK(v.out.find("config 'two-gis' fits on a100-40gb: 3g.20gb@0 3g.20gb@4 (1 layout)") !=
        std::string::npos);
  CHECK(v.out.find("config 'shared' fits on a100-40gb: 4g.20gb@0 3g.20gb@4 (1 layout)") !=
        std::string::npos);
  CHECK(check_reason_codes(config) == std::vector<std::string>{"", "", "instance_cap",
                                                               "unknown_ci_profile",
                                                               "unknown_ci_profile"});
}

TEST_CASE("check validates compute instances in migplan geometry files", "[cli][compute][check]") {
  const std::string file = R"(version: 1
gpus:
  - name: ok
    model: a100-40gb
    instances: ["3g.20gb[2c,1c]", "4x1c.2g.10gb"]
  - name: too-many
    model: a100-40gb
    instances: ["3g.20gb[2c,2c]"]
  - name: lone
    model: a100-40gb
    instances: ["4x1c.3g.20gb", "1g.5gb"]
  - name: no-3c
    model: a100-40gb
    instances: ["4g.20gb[3c]"]
  - name: pinned
    model: a100-40gb
    instances: ["3g.20gb[1c,1c,1c]@4", "4g.20gb[2c,2c]@0"]
)";
  const auto r = run_migplan({"check", "-"}, file);
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      R"(<stdin>:8:18: error: 'too-many' does not fit on a100-40gb: '3g.20gb[2c,2c]' asks 2 x 2c.3g.20gb of one 3g.20gb GPU instance, but one holds at most 1
    instances: ["3g.20gb[2c,2c]"]
                 ^
<stdin>:11:5: error: 'lone' does not fit on a100-40gb: 1 x 1g.5gb (1 unit) + 2 x 3g.20gb (4 units each) = 9 placement units but a100-40gb has 8
    instances: ["4x1c.3g.20gb", "1g.5gb"]
    ^
  4x1c.3g.20gb take 2 3g.20gb GPU instances: 3g.20gb[1c,1c,1c] 3g.20gb[1c]
  closest fit: drop 1g.5gb -> 3g.20gb@0 3g.20gb@4
  closest fit: drop 3g.20gb -> 1g.5gb@0 3g.20gb@4
<stdin>:14:18: error: 'no-3c' does not fit on a100-40gb: 3c.4g.20gb is not a compute-instance profile of 4g.20gb on a100-40gb (4g.20gb offers 1c.4g.20gb, 2c.4g.20gb and 4g.20gb)
    instances: ["4g.20gb[3c]"]
                 ^
checked 1 file: 2 geometries valid, 3 invalid
)");
  // The valid ones place their GIs where the CIs leave them (the CIs never move a GI).
  const auto v = run_migplan({"check", "-v", "-"}, file);
  CHECK(v.code == 1);
  CHECK(v.out.find("'ok' fits on a100-40gb: ") != std::string::npos);
  CHECK(v.out.find("'pinned' fits on a100-40gb: 4g.20gb@0 3g.20gb@4 (1 layout)") !=
        std::string::npos);
  CHECK(check_reason_codes(file) ==
        std::vector<std::string>{"", "ci_cap", "memory_units", "unknown_ci_profile", ""});
}

TEST_CASE("a CI asked on its own that cannot be had stays in the request it echoes",
          "[cli][compute]") {
  // The bracketed spelling of the same request kept its GPU instance; the lone one
  // dropped it, so the text said "request  " and the JSON "request": [].
  struct same {
    std::string gpu, lone, bracketed, profile;
  };
  const std::vector<same> cases{
      {"h100-80gb", "1c.3g.40gb", "3g.40gb[1c]", "3g.40gb"},
      {"a100-40gb", "5c.3g.20gb", "3g.20gb[5c]", "3g.20gb"},
  };
  for (const same& c : cases) {
    INFO(c.lone);
    CHECK(line_of(pack_out(c.gpu, {c.lone}, 1), "request") == "request  " + c.lone);
    CHECK(line_of(pack_out(c.gpu, {c.bracketed}, 1), "request") == "request  " + c.bracketed);
    const json lone = pack_json(c.gpu, {c.lone}, 1);
    const json bracketed = pack_json(c.gpu, {c.bracketed}, 1);
    CHECK(lone["request"] == json::array({c.profile}));
    CHECK(lone["request"] == bracketed["request"]);
    CHECK(lone["reason"] == bracketed["reason"]);
  }
  // With another item, both are echoed, the GI where its CI was asked.
  CHECK(line_of(pack_out("h100-80gb", {"1g.10gb", "2x1c.3g.40gb"}, 1), "request") ==
        "request  1g.10gb 2x1c.3g.40gb");
}

TEST_CASE("a compute instance of too many slices is not said to have none", "[cli][compute]") {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"3g.20gb[99999999999999c]",
       "compute instance '99999999999999c' in '3g.20gb[99999999999999c]' has more compute "
       "slices than any GPU instance"},
      {"4294967297c.3g.20gb",
       "compute instance '4294967297c.3g.20gb' has more compute slices than any GPU instance"},
      {"0c.3g.20gb", "compute instance '0c.3g.20gb' has no compute slices"},
  };
  for (const auto& [item, message] : cases) {
    INFO(item);
    const auto r = run_migplan({"pack", "--gpu", "a100-40gb", item});
    CHECK(r.code == 2);
    CHECK(r.err == "migplan: " + message + "\n");
  }
}

// SPDX-License-Identifier: Apache-2.0
// `migplan check` on HAMi's and Volcano's device configs
// (nvidia.knownMigGeometries): which models each entry is for, as HAMi picks
// them, and each geometry on each of them. The expectations come from
// elsewhere: the models from `migplan gpus --json` and the matching rule
// (the first entry with a model that is a substring of "NVIDIA-" + the GPU's
// nvidia-smi name), the fits from `migplan pack`, memory from `profiles`.

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_binary.hpp"

using migplan::test::run_migplan;
using migplan::test::test_path;
using json = nlohmann::json;

namespace {

std::string hami_fixture(const std::string& name) {
  return test_path("fixtures/check/hami/" + name);
}

// Per catalog model, the index of the entry (its list of model strings) HAMi
// gives it, or -1: the rule written out again, over `gpus --json`'s names.
std::map<std::string, int> entries_for(const std::vector<std::vector<std::string>>& entries) {
  std::map<std::string, int> out;
  const json gpus = json::parse(run_migplan({"gpus", "--json"}).out)["gpus"];
  for (const json& g : gpus) {
    for (const json& name : g["smi_names"]) {
      const std::string type = "NVIDIA-" + name.get<std::string>();
      for (std::size_t i = 0; i < entries.size(); ++i) {
        const auto& models = entries[i];
        if (std::any_of(models.begin(), models.end(),
                        [&](const std::string& m) { return type.find(m) != std::string::npos; })) {
          if (!out.count(g["id"])) out[g["id"]] = static_cast<int>(i);
          break;
        }
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("check reads HAMi's knownMigGeometries: each geometry on each model its entry is for",
          "[check][hami]") {
  const std::string file = hami_fixture("device-config.yaml");
  const auto r = run_migplan({"check", "--format", "json", file});
  REQUIRE(r.code == 0);
  const json f = json::parse(r.out)["files"][0];
  CHECK(f["format"] == "hami");
  CHECK(f["status"] == "valid");
  // The fixture's entries, as written there.
  const std::vector<std::vector<std::string>> entries = {
      {"A30"}, {"A100-SXM4-40GB", "A100-PCIE-40GB"}, {"H100 80GB HBM3"}};
  const std::map<std::string, int> owner = entries_for(entries);
  // The fixture's geometries: entry, and the pack request of each.
  const std::vector<std::pair<int, std::vector<std::string>>> geometries = {
      {0, {"4x1g.6gb"}},           {0, {"2x2g.12gb"}}, {1, {"7x1g.5gb"}}, {1, {"2x3g.20gb"}},
      {1, {"4g.20gb", "3g.20gb"}}, {2, {"7x1g.10gb"}}, {2, {"2x3g.40gb"}}};
  REQUIRE(f["geometries"].size() == geometries.size());
  for (std::size_t k = 0; k < geometries.size(); ++k) {
    const json& g = f["geometries"][k];
    const auto& [entry, request] = geometries[k];
    INFO(g["config"]);
    CHECK(g["config"].get<std::string>().starts_with(
        fmt::format("knownMigGeometries[{}].allowedGeometries[", entry)));
    std::vector<std::string> expected, got;
    for (const auto& [slug, e] : owner)
      if (e == entry) expected.push_back(slug);
    for (const json& m : g["models"]) {
      got.push_back(m["gpu"]);
      std::vector<std::string> args = {"pack", "--gpu", m["gpu"]};
      args.insert(args.end(), request.begin(), request.end());
      CHECK((run_migplan(args).code == 0) == (m["status"] == "fits"));
    }
    std::sort(got.begin(), got.end());
    CHECK(got == expected);
    CHECK(!got.empty());
  }
  // Why an entry is for a model: said where a geometry fails there (none
  // does here), and with -v for every entry and model.
  CHECK(run_migplan({"check", file}).out.find(" is for ") == std::string::npos);
  const std::string verbose = run_migplan({"check", "-v", file}).out;
  for (const auto& [slug, e] : owner)
    CHECK(verbose.find(fmt::format("note: knownMigGeometries[{}] is for {}: its model '", e,
                                   slug)) != std::string::npos);
}

TEST_CASE("check finds the defects of HAMi templates", "[check][hami]") {
  const std::string file = hami_fixture("defects.yaml");
  const auto r = run_migplan({"check", file});
  CHECK(r.code == 1);
  const auto has = [&](const std::string& what) {
    INFO(what);
    CHECK(r.out.find(what) != std::string::npos);
  };
  // A name no driver prints, with the one nvidia-smi prints.
  has(file +
      ":8:20: error: unknown profile '7g.79gb' on a100-80gb: 7g.79gb is not a name "
      "nvidia-smi prints; nvidia-smi calls it 7g.80gb");
  // A geometry that does not fit, with closest fits.
  has(file +
      ":9:11: error: 'knownMigGeometries[0].allowedGeometries[2]' does not fit on "
      "a100-80gb: ");
  has("  closest fit: drop 3g.40gb -> ");
  // A model string in no GPU's type (H100 SXM's NVML name is "NVIDIA H100 80GB HBM3").
  has(file +
      ":11:16: warning: model 'H100-SXM5-80GB' is in the type of no GPU migplan knows, "
      "so it gives knownMigGeometries[1] none");
  has("(such as \"NVIDIA-NVIDIA H100 80GB HBM3\"), and case counts");  // the nearest type
  // "H20" is in "NVIDIA-NVIDIA H200" too, and comes first.
  has(file +
      ":17:16: warning: model 'H200 NVL' never gives knownMigGeometries[3] a GPU: "
      "knownMigGeometries[2] comes first for h200");
  has(file +
      ":14:7: note: knownMigGeometries[2] is for h200: its model 'H20' is in "
      "\"NVIDIA-NVIDIA H200\", and no entry before it matches");
  has(file + ":16:20: error: unknown profile '1g.12gb' on h200");

  // Memory: a template that says more than the profile has is noted, with
  // the profile's memory as `profiles` lists it.
  const json rows = json::parse(
      run_migplan({"profiles", "--gpu", "a100-80gb", "--json"}).out)["gpus"][0]["profiles"];
  double gib = 0;
  for (const json& p : rows)
    if (p["name"] == "1g.10gb") gib = p["memory_gib"];
  REQUIRE(gib > 0);
  REQUIRE(10240 > gib * 1024);  // the fixture's 10240 MiB is more
  has(
      fmt::format("{}:7:37: note: memory 10240 MiB is more than 1g.10gb has on a100-80gb ({:.2f} "
                  "GiB",
                  file, gib));

  const json f = json::parse(run_migplan({"check", "--format", "json", file}).out)["files"][0];
  std::map<std::string, std::string> status;
  for (const json& g : f["geometries"]) status[g["config"]] = g["status"];
  CHECK(status["knownMigGeometries[0].allowedGeometries[0]"] == "valid");
  CHECK(status["knownMigGeometries[0].allowedGeometries[1]"] == "invalid");
  CHECK(status["knownMigGeometries[0].allowedGeometries[2]"] == "invalid");
  CHECK(status["knownMigGeometries[1].allowedGeometries[0]"] == "unchecked");  // for no GPU
  CHECK(status["knownMigGeometries[2].allowedGeometries[0]"] == "invalid");
  CHECK(status["knownMigGeometries[3].allowedGeometries[0]"] == "unchecked");  // shadowed
  // --strict makes the warnings errors; the file is invalid either way.
  CHECK(run_migplan({"check", "--strict", file}).code == 1);
}

TEST_CASE("check reads Volcano's geometry groups and HAMi's profile lists", "[check][hami]") {
  auto r = run_migplan({"check", "--format", "json", hami_fixture("volcano.yaml")});
  CHECK(r.code == 2);  // the misspelt key
  json f = json::parse(r.out)["files"][0];
  CHECK(f["format"] == "hami");
  REQUIRE(f["geometries"].size() == 1);  // the group with the typo is not checked
  CHECK(f["geometries"][0]["request"] == json::array({"4x1g.6gb"}));
  CHECK(f["geometries"][0]["models"][0]["gpu"] == "a30");
  const json& d = f["diagnostics"][0];
  CHECK(d["line"] == 15);
  CHECK(d["message"].get<std::string>().starts_with("unknown key 'groop' (did you mean group?)"));

  const std::string profiles =
      "nvidia:\n"
      "  knownMigGeometries:\n"
      "    - models: [\"A30\"]\n"
      "      profiles: [1g.6gb, 2g.12gb, 1g.5gb]\n";
  r = run_migplan({"check", "--format", "json", "-"}, profiles);
  CHECK(r.code == 1);
  f = json::parse(r.out)["files"][0];
  REQUIRE(f["geometries"].size() == 3);
  CHECK(f["geometries"][0]["status"] == "valid");
  CHECK(f["geometries"][1]["status"] == "valid");
  CHECK(f["geometries"][2]["status"] == "invalid");
  CHECK(f["geometries"][2]["config"] == "knownMigGeometries[0].profiles[2]");
}

TEST_CASE("check --gpu says which of the fleet's models no HAMi entry is for", "[check][hami]") {
  const auto r = run_migplan(
      {"check", "--gpu", "h100-nvl", "--gpu", "a30", hami_fixture("device-config.yaml")});
  CHECK(r.code == 0);
  CHECK(r.out.find(": warning: no entry of knownMigGeometries is for h100-nvl (type "
                   "\"NVIDIA-NVIDIA H100 NVL\"): the scheduler gives its GPUs no MIG geometry") !=
        std::string::npos);
  CHECK(r.out.find("is for a30") == std::string::npos);
  CHECK(
      r.out.ends_with("checked 1 file: 2 geometries valid, 0 invalid, 5 not checked; 1 "
                      "warning\n"));
}

TEST_CASE("check refuses malformed HAMi templates with one message each", "[check][hami]") {
  const std::string head = "nvidia:\n  knownMigGeometries:\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"    x: 1\n", "<stdin>:3:5: error: 'knownMigGeometries' must be a list of entries"},
      {"    - allowedGeometries: []\n",
       "<stdin>:3:7: error: missing required key 'models' in knownMigGeometries[0]"},
      {"    - models: A30\n      allowedGeometries: []\n",
       "<stdin>:3:15: error: 'models' must be a list of GPU model names"},
      {"    - models: [A30]\n      allowedGeometrie: []\n",
       "<stdin>:4:7: error: unknown key 'allowedGeometrie' (did you mean allowedGeometries?)"},
      {"    - models: [A30]\n      allowedGeometries:\n        - - {name: 1g.6gb}\n",
       "<stdin>:5:13: error: missing required key 'count' in the template of '1g.6gb'"},
      {"    - models: [A30]\n      allowedGeometries:\n        - - {name: 1g.6gb, count: 99}\n",
       "<stdin>:5:35: error: 'count' must be a whole number of instances from 0 to 64, not "
       "'99'"},
      {"    - models: [A30]\n      allowedGeometries:\n"
       "        - - {name: 1g.6gb, count: 1, memory: lots}\n",
       "<stdin>:5:46: error: 'memory' must be a whole number of MiB, not 'lots'"},
      {"    - models: [A30]\n      allowedGeometries:\n        - 7\n",
       "<stdin>:5:11: error: each geometry must be a list of templates"},
  };
  for (const auto& [body, expected] : cases) {
    INFO(body);
    const auto r = run_migplan({"check", "-"}, head + body);
    CHECK(r.code == 2);
    CHECK(r.out.starts_with(expected));
  }
  // Count 0 is read (a warning), an empty list of entries too.
  auto r = run_migplan({"check", "-"}, head +
                                           "    - models: [A30]\n      allowedGeometries:\n"
                                           "        - - {name: 1g.6gb, count: 0}\n");
  CHECK(r.code == 0);
  CHECK(r.out.find("warning: '1g.6gb' has count 0") != std::string::npos);
  r = run_migplan({"check", "-"}, head + "    []\n");
  CHECK(r.out.find("warning: 'knownMigGeometries' is empty") != std::string::npos);
  r = run_migplan({"check", "-"}, head);  // null, as Go reads an empty value: no entries
  CHECK(r.code == 0);
  CHECK(r.out.starts_with("<stdin>:2:3: warning: 'knownMigGeometries' is empty"));
  // An entry with no models is for no GPU: its geometries are not checked.
  r = run_migplan({"check", "-"}, head +
                                      "    - models: []\n      allowedGeometries:\n"
                                      "        - - {name: 1g.6gb, count: 9}\n");
  CHECK(r.code == 0);
  CHECK(r.out ==
        "<stdin>:3:15: warning: 'models' is empty: knownMigGeometries[0] is for no GPU\n"
        "    - models: []\n"
        "              ^\n"
        "checked 1 file: 0 geometries valid, 0 invalid, 1 not checked; 1 warning\n");
}

TEST_CASE("check reads HAMi's device config from its ConfigMap, at the manifest's lines",
          "[check][hami][manifest]") {
  const std::string file = hami_fixture("configmap.yaml");
  auto r = run_migplan({"check", file});
  CHECK(r.code == 1);
  CHECK(r.out.find(file + ":17:24: error: 'knownMigGeometries[0].allowedGeometries[1]' does not "
                          "fit on a100-40gb: 4g.20gb allows at most 1 instance on a100-40gb") !=
        std::string::npos);
  CHECK(r.out.find(file + ":14:11: note: knownMigGeometries[0] is for a100-40gb") !=
        std::string::npos);
  r = run_migplan({"check", "--format", "json", file});
  const json f = json::parse(r.out)["files"][0];
  CHECK(f["format"] == "hami");
  REQUIRE(f["geometries"].size() == 3);
  for (const json& g : f["geometries"]) CHECK(g["configmap"] == "hami-scheduler-device");
  CHECK(f["geometries"][2]["models"][0]["gpu"] == "a30");  // "NVIDIA A30" is in its type

  // Beside a GPU Operator ConfigMap: both are read, each as its own format.
  std::string both;
  {
    std::ifstream in(file);
    both.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  both +=
      "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: mig-config}\ndata:\n"
      "  config.yaml: |\n    version: v1\n    mig-configs:\n      all-1g.5gb:\n"
      "        - devices: all\n          mig-enabled: true\n          mig-devices:\n"
      "            \"1g.5gb\": 8\n";
  r = run_migplan({"check", "--format", "json", "-"}, both);
  CHECK(r.code == 1);
  const json mixed = json::parse(r.out)["files"][0];
  CHECK(mixed["format"] == "mig-parted");
  std::map<std::string, std::string> status;
  for (const json& g : mixed["geometries"]) status[g["config"]] = g["status"];
  CHECK(status.size() == 4);
  CHECK(status["all-1g.5gb"] == "invalid");  // 8 x 1g.5gb: A100-40GB holds 7
  CHECK(status["knownMigGeometries[0].allowedGeometries[0]"] == "valid");

  // A device config without MIG templates has nothing for check.
  r = run_migplan({"check", "-"},
                  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hami-scheduler-device}\n"
                  "data:\n  device-config.yaml: |\n    nvidia:\n      deviceSplitCount: 10\n");
  CHECK(r.code == 0);
  CHECK(r.out.find("warning: a Kubernetes manifest with no ConfigMap holding config.yaml") !=
        std::string::npos);
  // A mig-parted config where HAMi reads its device config.
  r = run_migplan({"check", "-"},
                  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hami-scheduler-device}\n"
                  "data:\n  device-config.yaml: |\n    version: v1\n    mig-configs: {}\n");
  CHECK(r.code == 2);
  CHECK(
      r.out.starts_with("<stdin>:5:3: error: device-config.yaml of ConfigMap "
                        "'hami-scheduler-device' is a mig-parted config"));
  // And a HAMi device config where the GPU Operator reads its mig-parted config.
  r = run_migplan({"check", "-"},
                  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: custom-mig-config}\n"
                  "data:\n  config.yaml: |\n    nvidia:\n      knownMigGeometries: []\n");
  CHECK(r.code == 2);
  CHECK(
      r.out.starts_with("<stdin>:5:3: error: config.yaml of ConfigMap 'custom-mig-config' is "
                        "a HAMi device config; the GPU Operator reads a mig-parted config "
                        "(version: v1, mig-configs: ...) there\n"));
}

// SPDX-License-Identifier: Apache-2.0
// emit-config --merge: migplan's all-* labels and the user's own, as a
// ConfigMap of its own name, checked before it is written.

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "run_binary.hpp"

using migplan::test::read_file;
using migplan::test::run_migplan;
using migplan::test::source_path;

namespace {

// The config.yaml of a ConfigMap, read as YAML.
YAML::Node config_of(const std::string& configmap) {
  const YAML::Node map = YAML::Load(configmap);
  REQUIRE(map["kind"].as<std::string>() == "ConfigMap");
  return YAML::Load(map["data"]["config.yaml"].as<std::string>());
}

std::vector<std::string> labels_of(const YAML::Node& config) {
  std::vector<std::string> out;
  for (const auto& kv : config["mig-configs"]) out.push_back(kv.first.as<std::string>());
  return out;
}

// The 1-based line of the first line of `text` that contains `needle`.
int line_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

}  // namespace

TEST_CASE("emit-config --merge keeps every generated label and every one of yours, as written",
          "[cli][emit][merge]") {
  // NVIDIA's example config as the user's own: its labels come through with
  // the same values (yaml-cpp's reading of both), the generated ones that it
  // also has are its own, and the whole passes check --strict on the fleet.
  const std::string user_file = source_path("tests/fixtures/mig-parted/example-config.yaml");
  const std::string user_text = read_file(user_file);
  const YAML::Node user = YAML::Load(user_text);
  const auto generated = run_migplan({"emit-config", "--gpu", "a100-40gb"});
  REQUIRE(generated.code == 0);
  const std::vector<std::string> ours = labels_of(YAML::Load(generated.out));
  const std::vector<std::string> theirs = labels_of(user);

  const auto r = run_migplan({"emit-config", "--gpu", "a100-40gb", "--merge", user_file});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const YAML::Node merged = config_of(r.out);
  const std::vector<std::string> got = labels_of(merged);
  std::set<std::string> want(ours.begin(), ours.end());
  want.insert(theirs.begin(), theirs.end());
  CHECK(std::set<std::string>(got.begin(), got.end()) == want);
  CHECK(got.size() == want.size());  // no label twice
  int clashes = 0;
  for (const std::string& label : theirs) {
    INFO(label);
    CHECK(YAML::Dump(merged["mig-configs"][label]) == YAML::Dump(user["mig-configs"][label]));
    if (std::find(ours.begin(), ours.end(), label) == ours.end()) continue;
    // A clash: a note names the label at its line in the user's file.
    ++clashes;
    CHECK(r.err.find("migplan: " + user_file + ":" +
                     std::to_string(line_of(user_text, "  " + label + ":")) + ": note: label '" +
                     label + "' is yours") != std::string::npos);
  }
  CHECK(clashes > 0);  // the example has all-disabled, all-enabled, all-1g.5gb ...
  // The ConfigMap's own name, and the command to point the ClusterPolicy at it.
  CHECK(YAML::Load(r.out)["metadata"]["name"].as<std::string>() == "migplan-mig-parted-config");
  CHECK(r.out.find("\"path\":\"/spec/migManager/config/name\",\"value\":\"migplan-mig-parted-"
                   "config\"") != std::string::npos);
  const auto checked = run_migplan({"check", "--strict", "--gpu", "a100-40gb", "-"}, r.out);
  INFO(checked.out);
  CHECK(checked.code == 0);
}

TEST_CASE("emit-config --merge reads the user's labels from a ConfigMap too",
          "[cli][emit][merge]") {
  const std::string config =
      "version: v1\n"
      "mig-configs:\n"
      "  # the inference pool\n"
      "  inference:\n"
      "    - device-filter: [\"0x233010DE\"]\n"
      "      devices: all\n"
      "      mig-enabled: yes\n"
      "      mig-devices:\n"
      "        \"1g.10gb\": 7\n";
  std::string configmap =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: custom-mig\ndata:\n"
      "  config.yaml: |\n";
  for (std::size_t at = 0; at < config.size();) {
    const std::size_t nl = config.find('\n', at);
    configmap += "    " + config.substr(at, nl + 1 - at);
    at = nl + 1;
  }
  for (const std::string& input : {config, configmap}) {
    const auto r = run_migplan({"emit-config", "--gpu", "h100-80gb", "--merge", "-",
                                "--configmap-name", "fleet-mig", "--strict"},
                               input);
    INFO(input << r.err);
    REQUIRE(r.code == 0);
    CHECK(YAML::Load(r.out)["metadata"]["name"].as<std::string>() == "fleet-mig");
    const YAML::Node merged = config_of(r.out);
    // As written: "yes" stays the YAML 1.1 boolean mig-parted reads.
    CHECK(merged["mig-configs"]["inference"][0]["mig-enabled"].as<std::string>() == "yes");
    CHECK(merged["mig-configs"]["inference"][0]["mig-devices"]["1g.10gb"].as<int>() == 7);
    CHECK(merged["mig-configs"]["all-1g.10gb"]);
    // The comment before the label names where it came from.
    const int line = line_of(input, "  inference:");
    CHECK(r.out.find("# inference, from <stdin> line " + std::to_string(line)) !=
          std::string::npos);
    CHECK(run_migplan({"check", "--strict", "--gpu", "h100-80gb", "-"}, r.out).code == 0);
  }
}

TEST_CASE("emit-config --merge writes nothing when a label of yours is wrong",
          "[cli][emit][merge]") {
  const std::string user =
      "version: v1\n"
      "mig-configs:\n"
      "  mine:\n"
      "    - devices: all\n"
      "      mig-enabled: true\n"
      "      mig-devices:\n"
      "        \"1g.11gb\": 7\n";
  const auto r = run_migplan({"emit-config", "--gpu", "h100-80gb", "--merge", "-"}, user);
  CHECK(r.code == 1);
  CHECK(r.out.empty());
  // The error is at the line of the user's input, not of the merged text.
  CHECK(r.err.find("<stdin>:" + std::to_string(line_of(user, "1g.11gb")) +
                   ": error: unknown profile '1g.11gb'") != std::string::npos);
  CHECK(r.err.find("nothing was written") != std::string::npos);
  // A warning is one under --strict: a filterless entry on a fleet model too small.
  const std::string wide =
      "version: v1\nmig-configs:\n  seven:\n    - devices: all\n      mig-enabled: true\n"
      "      mig-devices:\n        \"1g.10gb\": 7\n";
  const auto lax = run_migplan(
      {"emit-config", "--gpu", "a100-80gb", "--gpu", "a100-40gb", "--merge", "-"}, wide);
  CHECK(lax.code == 0);
  const auto strict = run_migplan(
      {"emit-config", "--gpu", "a100-80gb", "--gpu", "a100-40gb", "--merge", "-", "--strict"},
      wide);
  CHECK(strict.code == 1);
  CHECK(strict.out.empty());
}

TEST_CASE("emit-config --merge refuses what it cannot copy as written", "[cli][emit][merge]") {
  struct bad {
    std::string text, message;
  };
  const std::vector<bad> cases{
      {"version: v1\nmig-configs: {a: [{devices: all, mig-enabled: false}]}\n",
       "<stdin>:2: mig-configs is in flow style"},
      {"{\"version\": \"v1\", \"mig-configs\": {\"a\": []}}\n",
       "<stdin>:1: mig-configs is in flow style"},
      {"version: v1\nmig-configs:\n  a:\n    - devices: all\n  a:\n    - devices: all\n",
       "<stdin>:5: label 'a' is given twice"},
      {"version: v1\nmig-configs:\n  a: [\n", "<stdin>:4: invalid yaml"},
      {"version: v1\ngpus: []\n", "<stdin>: no mig-configs mapping"},
      {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  other: y\n",
       "<stdin>: a Kubernetes manifest with no ConfigMap holding config.yaml"},
      {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  config.yaml: |\n"
       "    version: v1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n"
       "  config.yaml: |\n    version: v1\n",
       "2 ConfigMaps hold config.yaml ('x', 'y'); --merge takes one"},
  };
  for (const bad& c : cases) {
    const auto r = run_migplan({"emit-config", "--merge", "-"}, c.text);
    INFO(c.text << r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(c.message) != std::string::npos);
  }
  const auto missing = run_migplan({"emit-config", "--merge", "/no/such/file.yaml"});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("/no/such/file.yaml: cannot read file") != std::string::npos);
  const auto name = run_migplan({"emit-config", "--configmap-name", "a..b"});
  CHECK(name.code == 2);
  CHECK(name.err.find("--configmap-name 'a..b' is not a DNS subdomain") != std::string::npos);
}

TEST_CASE("emit-config --configmap-name alone wraps the generated config", "[cli][emit][merge]") {
  const auto plain = run_migplan({"emit-config", "--gpu", "a30"});
  const auto r = run_migplan({"emit-config", "--gpu", "a30", "--configmap-name", "a30-mig"});
  REQUIRE(r.code == 0);
  CHECK(YAML::Load(r.out)["metadata"]["name"].as<std::string>() == "a30-mig");
  CHECK(YAML::Load(YAML::Load(r.out)["data"]["config.yaml"].as<std::string>())["mig-configs"]
            .size() == YAML::Load(plain.out)["mig-configs"].size());
}

TEST_CASE("emit-config --merge's note on a label of yours is a GitHub annotation at its line",
          "[cli][emit][merge]") {
  const std::string mine =
      "version: v1\n"
      "mig-configs:\n"
      "  inference:\n"
      "    - devices: all\n"
      "      mig-enabled: true\n"
      "      mig-devices:\n"
      "        \"1g.10gb\": 7\n"
      "  all-disabled:\n"
      "    - devices: all\n"
      "      mig-enabled: false\n";
  const std::string note =
      "label 'all-disabled' is yours; the one emit-config generates is left out";
  const int line = line_of(mine, "  all-disabled:");
  const std::vector<std::string> args = {"emit-config", "--gpu", "h100-80gb", "--merge", "-"};
  const auto text = run_migplan(args, mine);
  INFO(text.err);
  REQUIRE(text.code == 0);
  CHECK(text.err == "migplan: <stdin>:" + std::to_string(line) + ": note: " + note + "\n");
  const auto github = run_migplan(args, mine, {"MIGPLAN_DIAGNOSTICS=github"});
  REQUIRE(github.code == 0);
  CHECK(github.out == text.out);
  CHECK(github.err == "::notice file=<stdin>,line=" + std::to_string(line) + "::" + note + "\n");
}

TEST_CASE("emit-config --strict without --merge is refused, not silently ignored",
          "[cli][emit-config]") {
  // --strict turns the merged config's warnings into errors; without --merge there is
  // nothing it could change, and a CI step that passed it was checking nothing.
  const auto r = run_migplan({"emit-config", "--gpu", "a30", "--strict"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "migplan: --strict needs --merge\n");
  CHECK(run_migplan({"emit-config", "--gpu", "a30"}).code == 0);
}

TEST_CASE("emit-config --merge reads a file that ends its document or starts with a BOM",
          "[cli][emit][merge]") {
  // Both are YAML that mig-parted and check read as the same config: "..."
  // ends the document (the last label ends before it, not after), and a
  // UTF-8 byte-order mark is no part of the first line.
  const std::string mine =
      "version: v1\n"
      "mig-configs:\n"
      "  training:   # two halves\n"
      "    - devices: [0, 1]\n"
      "      mig-enabled: true\n"
      "      mig-devices: {\"3g.40gb\": 2}\n";
  for (const std::string& text : {mine + "...\n", mine + "...\n# after the document\n",
                                  "\xEF\xBB\xBF" + mine, "\xEF\xBB\xBF" + mine + "...\n"}) {
    INFO(text);
    REQUIRE(run_migplan({"check", "--gpu", "h100-80gb", "-"}, text).code == 0);
    const auto r = run_migplan({"emit-config", "--gpu", "h100-80gb", "--merge", "-"}, text);
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    const YAML::Node merged = config_of(r.out);
    const std::vector<std::string> labels = labels_of(merged);
    REQUIRE(!labels.empty());
    CHECK(labels.back() == "training");
    CHECK(YAML::Dump(merged["mig-configs"]["training"]) ==
          YAML::Dump(YAML::Load(mine)["mig-configs"]["training"]));
  }
}

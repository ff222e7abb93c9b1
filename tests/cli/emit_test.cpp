// SPDX-License-Identifier: Apache-2.0
// pack --emit KIND and emit-config: golden outputs (tests/fixtures/emit/),
// the emitted configs checked by `migplan check`, the script run against a
// stand-in nvidia-smi, and the refusals.

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <migplan/catalog.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "render/mig_parted.hpp"
#include "run_binary.hpp"

using migplan::test::read_file;
using migplan::test::run_migplan;
using migplan::test::source_path;
using migplan::test::test_path;
using migplan::test::unwrapped;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// An -lgi listing of one A100-40GB with a 3g.20gb at 4 (GI 1), for --current.
const std::string listing =
    "+-------------------------------------------------------+\n"
    "| GPU instances:                                        |\n"
    "| GPU   Name             Profile  Instance   Placement  |\n"
    "|                          ID       ID       Start:Size |\n"
    "|=======================================================|\n"
    "|   0  MIG 3g.20gb          9        1          4:4     |\n"
    "+-------------------------------------------------------+\n";

struct golden {
  golden(std::string f, std::vector<std::string> a, std::string in = {})
      : file(std::move(f)), args(std::move(a)), input(std::move(in)) {}
  std::string file;  // under tests/fixtures/emit/
  std::vector<std::string> args;
  std::string input;  // standard input (an -lgi listing for --current -)
};

// One request per --emit kind and per case the nvidia-smi fallback text
// distinguishes: forced steps, observed choices, a contradicted choice, an
// unobserved one, none, and --current with --index.
const std::vector<golden>& goldens() {
  static const std::vector<golden> cases{
      {"nvidia-smi-a100-40gb-4-2-1.sh",
       {"pack", "--gpu", "a100-40gb", "--emit", "nvidia-smi", "4g.20gb", "2g.10gb", "1g.5gb"}},
      {"nvidia-smi-h100-80gb-7x1g.sh",
       {"pack", "--gpu", "h100-80gb", "--emit", "nvidia-smi", "7x1g.10gb"}},
      {"nvidia-smi-h100-pcie-3g-3x1g.sh",
       {"pack", "--gpu", "h100-pcie", "--emit", "nvidia-smi", "3g.40gb@4", "1g.10gb@0", "1g.10gb@1",
        "1g.10gb@2"}},
      {"nvidia-smi-a100-40gb-1g.10gb.sh",
       {"pack", "--gpu", "a100-40gb", "--emit", "nvidia-smi", "1g.10gb@6"}},
      {"nvidia-smi-a100-40gb-1g@0.sh",
       {"pack", "--gpu", "a100-40gb", "--emit", "nvidia-smi", "1g.5gb@0"}},
      {"nvidia-smi-current.sh",
       {"pack", "--gpu", "a100-40gb", "--current", "-", "--index", "0", "--emit", "nvidia-smi",
        "2g.10gb", "2x1g.5gb"},
       listing},
      {"nvidia-smi-a100-40gb-ci.sh",
       {"pack", "--gpu", "a100-40gb", "--emit", "nvidia-smi", "3g.20gb[2c,1c]", "2g.10gb"}},
      {"nvml-a100-40gb-ci.json",
       {"pack", "--gpu", "a100-40gb", "--emit", "nvml", "3g.20gb[2c,1c]", "2x1c.2g.10gb"}},
      {"nvml-a100-40gb-4-2-1.json",
       {"pack", "--gpu", "a100-40gb", "--emit", "nvml", "4g.20gb", "2g.10gb", "1g.5gb"}},
      {"nvml-current.json",
       {"pack", "--gpu", "a100-40gb", "--current", "-", "--emit", "nvml", "2g.10gb", "2x1g.5gb"},
       listing},
      {"mig-parted-a100-40gb-4-2-1.yaml",
       {"pack", "--gpu", "a100-40gb", "--emit", "mig-parted", "4g.20gb", "2g.10gb", "1g.5gb"}},
      {"mig-parted-h100-80gb-me.yaml",
       {"pack", "--gpu", "h100-80gb", "--emit", "mig-parted", "1g.10gb+me", "3g.40gb",
        "2x1g.10gb"}},
      {"mig-parted-current.yaml",
       {"pack", "--gpu", "a100-40gb", "--current", "-", "--emit", "mig-parted", "2g.10gb",
        "2x1g.5gb"},
       listing},
      {"k8s-a100-40gb-4-2-1.yaml",
       {"pack", "--gpu", "a100-40gb", "--emit", "k8s", "4g.20gb", "2g.10gb", "1g.5gb"}},
      {"k8s-h100-80gb-7x1g.yaml", {"pack", "--gpu", "h100-80gb", "--emit", "k8s", "7x1g.10gb"}},
      {"k8s-a100-80gb-7g.yaml", {"pack", "--gpu", "a100-80gb", "--emit", "k8s", "7g.80gb"}},
      {"k8s-rtx-pro-6000-me.yaml",
       {"pack", "--gpu", "rtx-pro-6000", "--emit", "k8s", "1g.24gb+me.all", "3x1g.24gb-me"}},
      {"slurm-h200-1g-2g.conf",
       {"pack", "--gpu", "h200", "--emit", "slurm", "1g.18gb+me", "3x1g.18gb", "2g.35gb"}},
      {"slurm-a100-40gb-4-2-1.conf",
       {"pack", "--gpu", "a100-40gb", "--emit", "slurm", "4g.20gb", "2g.10gb", "1g.5gb"}},
  };
  return cases;
}

// A temporary directory, removed at the end of the test.
struct temp_dir {
  fs::path path;
  temp_dir() {
    std::string t = (fs::temp_directory_path() / "migplan-emit-XXXXXX").string();
    REQUIRE(mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  REQUIRE(f.good());
}

// The lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
    pos = nl + 1;
  }
  return out;
}

// `migplan check --strict --format json -` on a config: exit 0 (not even a
// warning), and every geometry valid.
json check_config(const std::string& config) {
  const auto r = run_migplan({"check", "--strict", "--format", "json", "-"}, config);
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  const json doc = json::parse(r.out);
  for (const json& f : doc["files"])
    for (const json& g : f["geometries"]) CHECK(g["status"] == "valid");
  return doc;
}

// PCI ID -> counts of one label of a mig-parted config ("*" for no filter).
std::map<std::string, std::map<std::string, int>> label_counts(const YAML::Node& config,
                                                               const std::string& label) {
  std::map<std::string, std::map<std::string, int>> out;
  for (const YAML::Node& e : config["mig-configs"][label]) {
    std::vector<std::string> ids;
    if (!e["device-filter"])
      ids.push_back("*");
    else if (e["device-filter"].IsScalar())
      ids.push_back(e["device-filter"].as<std::string>());
    else
      for (const YAML::Node& id : e["device-filter"]) ids.push_back(id.as<std::string>());
    std::map<std::string, int> counts;
    if (e["mig-devices"])
      for (const auto& kv : e["mig-devices"])
        counts[kv.first.as<std::string>()] = kv.second.as<int>();
    for (std::string id : ids) {
      for (char& c : id) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      out[id] = counts;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("each pack --emit kind writes its golden output", "[cli][emit]") {
  // MIGPLAN_UPDATE_GOLDEN=1 rewrites the files from the binary's output;
  // review the diff before committing it.
  const bool update = std::getenv("MIGPLAN_UPDATE_GOLDEN") != nullptr;
  for (const golden& g : goldens()) {
    INFO(g.file);
    const auto r = run_migplan(g.args, g.input);
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    const std::string path = test_path("fixtures/emit/" + g.file);
    if (update) write(path, r.out);
    const std::string want = read_file(path);
    CHECK_FALSE(want.empty());
    CHECK(r.out == want);
  }
}

TEST_CASE("every emitted mig-parted config passes migplan check", "[cli][emit]") {
  for (const golden& g : goldens()) {
    if (g.file.rfind("mig-parted", 0) != 0) continue;
    INFO(g.file);
    const json doc = check_config(read_file(test_path("fixtures/emit/" + g.file)));
    CHECK(doc["summary"]["exit_code"] == 0);
  }
  // And on other models and mixes, checked on every model its filter names.
  const std::vector<std::vector<std::string>> requests{
      {"--gpu", "a30", "1g.6gb+me", "2g.12gb", "1g.6gb"},
      {"--gpu", "rtx-pro-6000", "2g.48gb+gfx", "1g.24gb", "1g.24gb-me"},
      {"--gpu", "gb200", "3g.93gb", "4g.93gb"},
      {"--gpu", "h100-nvl", "7x1g.12gb"},
      {"--gpu", "b200", "1g.45gb", "2g.45gb", "3g.90gb"},
      {"--gpu", "h100-pcie", "1g.20gb", "1g.10gb+me", "1g.10gb", "3g.40gb"},
  };
  for (const auto& req : requests) {
    std::vector<std::string> args{"pack", "--emit", "mig-parted"};
    args.insert(args.end(), req.begin(), req.end());
    const auto r = run_migplan(args);
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    const json doc = check_config(r.out);
    std::size_t geometries = 0;
    for (const json& f : doc["files"]) geometries += f["geometries"].size();
    CHECK(geometries == 1);
  }
}

TEST_CASE("the nvidia-smi script runs its commands, in order, against a stand-in nvidia-smi",
          "[cli][emit]") {
  temp_dir dir;
  // A stand-in that records its arguments, one call per line.
  const fs::path stub = dir.path / "nvidia-smi";
  write(stub, "#!/bin/sh\necho \"$*\" >> \"$MIGPLAN_CALLS\"\n");
  fs::permissions(stub, fs::perms::owner_all);
  const auto run_script = [&](const std::string& script) {
    const fs::path file = dir.path / "create.sh";
    const fs::path calls = dir.path / "calls.txt";
    write(file, script);
    fs::remove(calls);
    const std::string cmd = "cd '" + dir.path.string() + "' && PATH='" + dir.path.string() +
                            "':\"$PATH\" MIGPLAN_CALLS='" + calls.string() + "' sh create.sh";
    CHECK(std::system(cmd.c_str()) == 0);
    return read_file(calls.string());
  };
  const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "--index", "3", "--emit", "nvidia-smi",
                              "1g.5gb", "3g.20gb", "2g.10gb"});
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("#!/bin/sh\n", 0) == 0);
  // The preferred layout is 1g.5gb@0 2g.10gb@2 3g.20gb@4: largest first, each
  // at its start on GPU 3 (-i 3), with -C.
  CHECK(run_script(r.out) ==
        "mig -i 3 -cgi 9:4 -C\n"
        "mig -i 3 -cgi 14:2 -C\n"
        "mig -i 3 -cgi 19:0 -C\n");
  // The fallback is a comment; uncommented, it is one -cgi without starts:
  // the 3g.20gb first (to 4), then the 1g.5gb (to 0), then the 2g.10gb,
  // which has only start 2 left (the guide's -cgi 9,19,14,19 begins so).
  const std::vector<std::string> fallback = lines_starting(r.out, "# nvidia-smi mig ");
  REQUIRE(fallback.size() == 1);
  CHECK(run_script(fallback[0].substr(2) + "\n") == "mig -i 3 -cgi 9,19,14 -C\n");
  // With --current, only what is new is created.
  const auto cur = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--current", "-", "--emit", "nvidia-smi", "4g.20gb"}, listing);
  REQUIRE(cur.code == 0);
  CHECK(run_script(cur.out) == "mig -i 0 -cgi 5:0 -C\n");
  // Compute instances: the GPU instance without -C, its ID read from what
  // nvidia-smi prints, then one -cci with the CI profile IDs, largest first.
  write(stub,
        "#!/bin/sh\necho \"$*\" >> \"$MIGPLAN_CALLS\"\n"
        "case \"$*\" in *-cgi*) echo 'Successfully created GPU instance ID  5 on GPU  0 using "
        "profile MIG 3g.20gb (ID  9)';; esac\n");
  const auto ci = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--emit", "nvidia-smi", "3g.20gb[1c,2c]", "2g.10gb"});
  REQUIRE(ci.code == 0);
  CHECK(run_script(ci.out) ==
        "mig -i 0 -cgi 9:4\n"
        "mig -i 0 -gi 5 -cci 1,0\n"
        "mig -i 0 -cgi 14:0 -C\n");
  // Nothing new: a script that creates nothing.
  const auto none = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--current", "-", "--emit", "nvidia-smi"}, listing);
  REQUIRE(none.code == 0);
  CHECK(run_script(none.out).empty());
}

TEST_CASE("pack --emit nvml lists what --current does not already hold", "[cli][emit]") {
  const auto r = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--current", "-", "--index", "0", "--emit", "nvml", "4g.20gb"},
      listing);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j == json::parse(R"({"schema_version": 1, "gpu": "a100-40gb", "index": 0,
      "create": [{"profile_id": 5, "profile": "4g.20gb", "start": 0, "size": 4,
                  "compute_instances": []}], "inferred": []})"));
  // mig-parted and k8s describe the whole layout, the existing 3g.20gb included.
  const auto k = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--current", "-", "--emit", "k8s", "4g.20gb"}, listing);
  REQUIRE(k.code == 0);
  const YAML::Node y = YAML::Load(k.out);
  CHECK(y["mixed"]["nvidia.com/mig-3g.20gb"].as<int>() == 1);
  CHECK(y["mixed"]["nvidia.com/mig-4g.20gb"].as<int>() == 1);
  CHECK(y["single"].IsNull());
}

TEST_CASE("pack --emit k8s names suffixed profiles as the device plugin does", "[cli][emit]") {
  // "mig-" + profile, "+" as ".": k8s-device-plugin internal/rm/rm.go.
  const auto r = run_migplan(
      {"pack", "--gpu", "rtx-pro-6000", "--emit", "k8s", "1g.24gb+me.all", "3x1g.24gb-me"});
  REQUIRE(r.code == 0);
  const YAML::Node y = YAML::Load(r.out);
  // Released plugins count both under 1g.24gb (the pattern is inside their
  // names); those with anchored patterns count each under its own.
  CHECK(y["mixed"]["nvidia.com/mig-1g.24gb"].as<int>() == 4);
  CHECK(y["mixed"].size() == 1);
  CHECK(y["mixed-anchored"]["nvidia.com/mig-1g.24gb.me.all"].as<int>() == 1);
  CHECK(y["mixed-anchored"]["nvidia.com/mig-1g.24gb-me"].as<int>() == 3);
  CHECK(y["mixed-anchored"].size() == 2);
  CHECK(y["single"].IsNull());
  const auto u = run_migplan({"pack", "--gpu", "h100-80gb", "--emit", "k8s", "2x3g.40gb"});
  REQUIRE(u.code == 0);
  const YAML::Node s = YAML::Load(u.out);
  CHECK(s["single"]["nvidia.com/gpu"].as<int>() == 2);
  CHECK(s["mixed"]["nvidia.com/mig-3g.40gb"].as<int>() == 2);
}

// The MIG devices of pack's JSON answer by the name nvidia-smi gives them: a
// GI's CIs ("1c.3g.20gb"; the full CI by its GI's name), or the GI's own name
// when it lists none; existing instances ("current") included.
std::map<std::string, int> devices_of_answer(const json& j) {
  std::map<std::string, int> out;
  // New GIs list their CIs (the default one too); existing ones, under "current".
  for (const json& gi : j["layouts"][0]["instances"])
    if (gi.contains("compute_instances"))
      for (const json& ci : gi["compute_instances"]) ++out[ci["profile"].get<std::string>()];
  if (j["current"].is_array())
    for (const json& gi : j["current"]) {
      if (gi["compute_instances"].empty()) ++out[gi["profile"].get<std::string>()];
      for (const json& ci : gi["compute_instances"]) ++out[ci["profile"].get<std::string>()];
    }
  return out;
}

TEST_CASE("pack --emit mig-parted and k8s keep the compute instances", "[cli][emit]") {
  // Issue 19: both wrote "3g.20gb": 2, silently dropping the split.
  const std::vector<std::string> request{"--gpu", "a100-40gb", "3g.20gb[2c,1c]",
                                         "3g.20gb[1c,1c,1c]"};
  const auto run = [&](std::vector<std::string> args, const std::string& in = {}) {
    args.insert(args.begin(), "pack");
    const auto r = run_migplan(args, in);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return r.out;
  };
  std::vector<std::string> args = request;
  args.push_back("--json");
  const std::map<std::string, int> want = devices_of_answer(json::parse(run(args)));
  CHECK(want == std::map<std::string, int>{{"1c.3g.20gb", 4}, {"2c.3g.20gb", 1}});
  args = request;
  args.insert(args.end(), {"--emit", "mig-parted"});
  const std::string config = run(args);
  const YAML::Node y = YAML::Load(config);
  const std::string label = y["mig-configs"].begin()->first.as<std::string>();
  CHECK(label == "migplan-a100-40gb-2c.3g.20gb-4x1c.3g.20gb");
  CHECK(label_counts(y, label).at("0X20B010DE") == want);
  // Read back by check --strict as the same geometry: two 3g.20gb GIs.
  const json doc = check_config(config);
  const auto v = run_migplan({"check", "--strict", "-v", "-"}, config);
  CHECK(v.code == 0);
  CHECK(v.out.find("fits on a100-40gb: 3g.20gb@0 3g.20gb@4 (1 layout)") != std::string::npos);

  // k8s: each CI is a MIG device, counted under its GI profile's resource.
  args = request;
  args.insert(args.end(), {"--emit", "k8s"});
  const YAML::Node k = YAML::Load(run(args));
  int devices = 0;
  for (const auto& [name, n] : want) devices += n;
  CHECK(k["mixed"]["nvidia.com/mig-3g.20gb"].as<int>() == devices);
  CHECK(k["mixed"].size() == 1);
  CHECK(k["single"].IsNull());
  // A uniform split: the single strategy serves it, one nvidia.com/gpu per CI.
  const YAML::Node u =
      YAML::Load(run({"--gpu", "a100-40gb", "--emit", "k8s", "2x3g.20gb[1c,1c,1c]"}));
  CHECK(u["single"]["nvidia.com/gpu"].as<int>() == 6);
  CHECK(u["mixed"]["nvidia.com/mig-3g.20gb"].as<int>() == 6);

  // --current: the existing GIs' CIs (an -lci listing) are written too.
  const std::string both = read_file(source_path("data/captures/a100-80gb-lgi.txt")) +
                           read_file(source_path("data/captures/a100-80gb-lci.txt"));
  const std::map<std::string, int> now =
      devices_of_answer(json::parse(run({"--gpu", "a100-80gb", "--current", "-", "--json"}, both)));
  CHECK(now == std::map<std::string, int>{{"1c.3g.40gb", 2}, {"3g.40gb", 1}});
  const std::string current =
      run({"--gpu", "a100-80gb", "--current", "-", "--emit", "mig-parted"}, both);
  const YAML::Node c = YAML::Load(current);
  CHECK(label_counts(c, c["mig-configs"].begin()->first.as<std::string>()).at("0X20B510DE") == now);
  check_config(current);
}

TEST_CASE("a config plan --emit mig-parted writes with CI profiles reads back everywhere",
          "[cli][emit]") {
  // Issue 19: check --strict accepted it, plan --mig-config said "unknown
  // profile '1c.3g.20gb'". One reader now reads it for both.
  temp_dir dir;
  const fs::path fleet = dir.path / "fleet.yaml", config = dir.path / "c.yaml",
                 nodes = dir.path / "nodes.json";
  write(fleet, "version: 1\nnodes:\n  - name: gpu-a\n    gpu: a100-40gb\n    gpus: 4\n");
  const std::vector<std::string> demand{"6x1c.3g.20gb", "2x2c.3g.20gb", "1g.5gb"};
  const auto plan = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "plan");
    args.insert(args.end(), demand.begin(), demand.end());
    const auto r = run_migplan(args);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return r.out;
  };
  const std::string emitted = plan({"--fleet", fleet.string(), "--emit", "mig-parted"});
  CHECK(emitted.find("\"1c.3g.20gb\"") != std::string::npos);
  write(config, emitted);
  check_config(emitted);
  // The node's label, as --emit labels sets it.
  const std::string labels = plan({"--fleet", fleet.string(), "--emit", "labels"});
  const std::string key = "nvidia.com/mig.config=";
  const std::size_t at = labels.find(key);
  REQUIRE(at != std::string::npos);
  const std::string label = labels.substr(at + key.size(), labels.find(' ', at) - at - key.size());
  write(nodes,
        "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{\"kind\": \"Node\", "
        "\"metadata\": {\"name\": \"gpu-a\", \"labels\": {\"nvidia.com/gpu.product\": "
        "\"NVIDIA-A100-SXM4-40GB\", \"nvidia.com/gpu.count\": \"4\", \"nvidia.com/mig.config\": "
        "\"" +
            label + "\"}}}]}");
  const auto again =
      run_migplan({"plan", "--current", nodes.string(), "--mig-config", config.string(), "--json",
                   "6x1c.3g.20gb", "2x2c.3g.20gb", "1g.5gb"});
  INFO(again.err << again.out);
  CHECK(again.code == 0);
  CHECK(again.err.find("unknown profile") == std::string::npos);
}

TEST_CASE("pack --emit k8s says one device in the singular", "[cli][emit]") {
  // One compute instance splitting the only GI: one device, said as one.
  const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "--emit", "k8s", "7g.40gb[4c]"});
  REQUIRE(r.code == 0);
  const std::string text = unwrapped(r.out);
  CHECK(text.find("the one device is 4c.7g.40gb, so it can serve it.") != std::string::npos);
  CHECK(text.find("the 1 devices") == std::string::npos);
  // Several: the plural as before.
  const auto two = run_migplan({"pack", "--gpu", "a100-40gb", "--emit", "k8s", "3g.20gb[1c,1c]"});
  REQUIRE(two.code == 0);
  CHECK(unwrapped(two.out).find("the 2 devices are all 1c.3g.20gb, so it can serve them.") !=
        std::string::npos);
}

TEST_CASE("pack --emit refuses what would lose compute instances", "[cli][emit]") {
  // mig-parted counts CIs, not GIs, and fills the GI it made last: a 2c and a
  // 1c kept in two GIs could share one.
  const auto merged = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--emit", "mig-parted", "3g.20gb[2c]", "3g.20gb[1c]"});
  CHECK(merged.code == 2);
  CHECK(merged.out.empty());
  CHECK(merged.err ==
        "migplan: a mig-parted config cannot keep this layout's compute instances apart: "
        "mig-parted counts compute instances, not GPU instances, and puts each in the GPU "
        "instance it made last while it fits there, so it may merge 2 3g.20gb GIs into 1; use "
        "--emit nvidia-smi or --emit nvml, which create each GPU instance with its own compute "
        "instances\n");
  // The DRA driver makes every MIG device with its GI's full CI.
  const auto dra = run_migplan({"pack", "--gpu", "a100-40gb", "--emit", "dra", "3g.20gb[2c,1c]"});
  CHECK(dra.code == 2);
  CHECK(dra.out.empty());
  CHECK(dra.err ==
        "migplan: --emit dra cannot write compute instances: the NVIDIA DRA driver makes each MIG "
        "device with the compute instance that owns its whole GPU instance, so the split of "
        "3g.20gb would be lost; use --emit nvidia-smi or --emit nvml\n");
  // A GI's full CI named in brackets is no split: every kind writes it.
  for (const std::string kind : {"mig-parted", "k8s", "dra", "nvidia-smi", "nvml"}) {
    INFO(kind);
    const auto full = run_migplan({"pack", "--gpu", "a100-40gb", "--emit", kind, "3g.20gb[3c]"});
    CHECK(full.code == 0);
  }
}

TEST_CASE("the mig-parted label is named from the layout, hashed past 63 characters",
          "[cli][emit]") {
  const auto r = run_migplan(
      {"pack", "--gpu", "h100-80gb", "--emit", "mig-parted", "1g.10gb+me", "3g.40gb", "2x1g.10gb"});
  REQUIRE(r.code == 0);
  const YAML::Node y = YAML::Load(r.out);
  REQUIRE(y["mig-configs"].size() == 1);
  const std::string label = y["mig-configs"].begin()->first.as<std::string>();
  CHECK(label == "migplan-h100-80gb-3g.40gb-2x1g.10gb-1g.10gb.me");
  const auto counts = label_counts(y, label);
  CHECK(counts.at("0X233010DE") ==
        std::map<std::string, int>{{"3g.40gb", 1}, {"1g.10gb", 2}, {"1g.10gb+me", 1}});
  // An RTX PRO 6000 layout of four differently suffixed 1g profiles is longer.
  const auto l = run_migplan({"pack", "--gpu", "rtx-pro-6000", "--emit", "mig-parted",
                              "1g.24gb+me.all", "1g.24gb-me", "1g.24gb-me", "1g.24gb-me"});
  REQUIRE(l.code == 0);
  const YAML::Node z = YAML::Load(l.out);
  const std::string hashed = z["mig-configs"].begin()->first.as<std::string>();
  CHECK(hashed.size() <= 63);
  CHECK(hashed.rfind("migplan-rtx-pro-6000-", 0) == 0);
}

TEST_CASE("pack --emit refuses unknown kinds and other outputs as bad input", "[cli][emit]") {
  const auto unknown =
      run_migplan({"pack", "--gpu", "a100-40gb", "--emit", "nvidai-smi", "1g.5gb"});
  CHECK(unknown.code == 2);
  CHECK(unknown.out.empty());
  CHECK(unknown.err ==
        "migplan: unknown --emit kind 'nvidai-smi' (did you mean nvidia-smi?); kinds: "
        "nvidia-smi, nvml, mig-parted, k8s, dra, slurm\n");
  const auto empty = run_migplan({"pack", "--gpu", "a100-40gb", "--emit=", "1g.5gb"});
  CHECK(empty.code == 2);
  CHECK(empty.err == "migplan: --emit is empty: expected KIND\n");
  for (const char* other : {"--all", "--json"}) {
    INFO(other);
    const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "--emit", "nvml", other, "1g.5gb"});
    CHECK(r.code == 2);
    CHECK(r.err == std::string("migplan: --emit writes one layout in its own format; it does not "
                               "combine with ") +
                       other + "\n");
  }
  // With --json the failure is a JSON error document too.
  const auto j = run_migplan({"pack", "--gpu", "a100-40gb", "--emit", "nvml", "--json", "1g.5gb"});
  CHECK(json::parse(j.out)["error"]["code"] == "bad_input");
  const auto batch =
      run_migplan({"pack", "--gpu", "a100-40gb", "--emit", "k8s", "--batch", "-"}, "1g.5gb\n");
  CHECK(batch.code == 2);
  CHECK(batch.err ==
        "migplan: --emit writes one layout in its own format; it does not combine with --batch\n");
  const auto index = run_migplan({"pack", "--gpu", "a100-40gb", "--index", "1", "1g.5gb"});
  CHECK(index.code == 2);
  CHECK(index.err == "migplan: --index needs --current or --emit\n");
}

TEST_CASE("pack --emit writes nothing on stdout when the request does not fit", "[cli][emit]") {
  const auto r = run_migplan({"pack", "--gpu", "h100-80gb", "--emit", "nvidia-smi", "3x3g.40gb"});
  CHECK(r.code == 1);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "migplan: does not fit (instance_cap): 3g.40gb allows at most 2 instances on h100-80gb "
        "(the request has 3); nothing to emit\n");
  const auto blocked = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--current", "-", "--emit", "nvml", "4g.20gb", "1g.5gb"},
      listing);
  CHECK(blocked.code == 1);
  CHECK(blocked.out.empty());
  CHECK(blocked.err.find("(blocked by existing instances); nothing to emit\n") !=
        std::string::npos);
}

TEST_CASE("pack --emit needs one model: inferred when the names say which", "[cli][emit]") {
  const auto one = run_migplan({"pack", "--emit", "nvml", "4g.20gb", "2g.10gb", "1g.5gb"});
  CHECK(one.code == 0);
  CHECK(json::parse(one.out)["gpu"] == "a100-40gb");
  const auto several = run_migplan({"pack", "--emit", "nvml", "4x1g.10gb", "3g.40gb"});
  CHECK(several.code == 2);
  CHECK(several.out.empty());
  CHECK(several.err.rfind("migplan: --emit needs one GPU model, and the request answers alike on ",
                          0) == 0);
}

TEST_CASE("emit-config writes a config whose every label passes migplan check", "[cli][emit]") {
  const auto r = run_migplan({"emit-config"});
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  const json doc = check_config(r.out);
  CHECK(doc["summary"]["exit_code"] == 0);
  // Every catalog model with a PCI ID: all-disabled, all-enabled, all-balanced
  // and one all-PROFILE per profile name ("+" as "."), each entry filtered to
  // the model's PCI IDs.
  const json gpus = json::parse(run_migplan({"gpus", "--json"}).out);
  const YAML::Node y = YAML::Load(r.out);
  std::set<std::string> want{"all-disabled", "all-enabled", "all-balanced"};
  std::map<std::string, std::set<std::string>> ids_of;
  for (const json& g : gpus["gpus"]) {
    for (const json& id : g["pci_ids"]) ids_of[g["id"]].insert(id["id"].get<std::string>());
    if (g["pci_ids"].empty()) continue;
    for (const json& p : g["profiles"]) {
      std::string name = p;
      for (char& c : name)
        if (c == '+') c = '.';
      want.insert("all-" + name);
    }
  }
  std::set<std::string> got;
  for (const auto& kv : y["mig-configs"]) got.insert(kv.first.as<std::string>());
  CHECK(got == want);
  // all-disabled has one entry per model, with exactly its PCI IDs.
  std::set<std::string> seen;
  for (const YAML::Node& e : y["mig-configs"]["all-disabled"]) {
    std::set<std::string> ids;
    for (const YAML::Node& id : e["device-filter"]) ids.insert(id.as<std::string>());
    bool matched = false;
    for (const auto& [slug, model_ids] : ids_of)
      if (!model_ids.empty() && ids == model_ids) matched = seen.insert(slug).second;
    CHECK(matched);
    CHECK_FALSE(e["mig-enabled"].as<bool>());
  }
  // Every model with a PCI ID; one without (rtx-pro-4500) cannot be filtered for.
  const auto with_ids = std::count_if(ids_of.begin(), ids_of.end(),
                                      [](const auto& kv) { return !kv.second.empty(); });
  CHECK(seen.size() == static_cast<std::size_t>(with_ids));
}

TEST_CASE("emit-config agrees with NVIDIA's config-default.yaml wherever it filters by PCI ID",
          "[cli][emit]") {
  // Where NVIDIA's entry names PCI IDs, the counts for each ID are the same:
  // the all-balanced entries, all-1g.10gb's H100/A100 split, all-1g.35gb.
  // (Where it differs the README says why: its unfiltered entries, and the
  // early GB200 names 3g.95gb, 4g.95gb, 7g.189gb, which migplan's catalog
  // calls 3g.93gb, 4g.93gb, 7g.186gb.)
  const YAML::Node ours = YAML::Load(run_migplan({"emit-config"}).out);
  const YAML::Node nvidia =
      YAML::LoadFile(source_path("tests/fixtures/mig-parted/config-default.yaml"));
  int compared = 0;
  for (const auto& kv : nvidia["mig-configs"]) {
    const std::string label = kv.first.as<std::string>();
    if (!ours["mig-configs"][label]) {
      CHECK((label == "all-3g.95gb" || label == "all-4g.95gb" || label == "all-7g.189gb"));
      continue;
    }
    const auto theirs = label_counts(nvidia, label);
    const auto mine = label_counts(ours, label);
    for (const auto& [id, counts] : theirs) {
      if (id == "*") continue;
      INFO(label << " " << id);
      REQUIRE(mine.count(id) == 1);
      CHECK(mine.at(id) == counts);
      ++compared;
    }
  }
  CHECK(compared >= 20);
}

TEST_CASE("emit-config --gpu writes only those models, to a file with -o", "[cli][emit]") {
  temp_dir dir;
  const std::string out = (dir.path / "config.yaml").string();
  const auto r = run_migplan({"emit-config", "--gpu", "a100-40gb", "--gpu", "h100", "-o", out});
  CHECK(r.code == 2);  // "h100" is ambiguous
  CHECK(r.err.rfind("migplan: gpu 'h100' is ambiguous", 0) == 0);
  const auto ok =
      run_migplan({"emit-config", "--gpu", "a100-40gb", "--gpu", "h100-80gb", "-o", out});
  CHECK(ok.code == 0);
  CHECK(ok.out.empty());
  const YAML::Node y = YAML::LoadFile(out);
  const auto counts = label_counts(y, "all-1g.10gb");
  CHECK(counts.size() == 6);  // 4 A100-40GB IDs, 2 H100 ones
  CHECK(counts.at("0X20B010DE") == std::map<std::string, int>{{"1g.10gb", 4}});
  CHECK(counts.at("0X233010DE") == std::map<std::string, int>{{"1g.10gb", 7}});
  CHECK_FALSE(y["mig-configs"]["all-1g.6gb"]);  // no A30
  check_config(read_file(out));
  const auto bad = run_migplan({"emit-config", "-o", (dir.path / "no/such/dir.yaml").string()});
  CHECK(bad.code == 2);
  CHECK(bad.err.rfind("migplan: cannot write ", 0) == 0);
}

TEST_CASE("pack --emit says which created profiles have inferred values",
          "[cli][emit][exhaustive]") {
  // On every catalog model, one instance of each profile the model has: the
  // nvml answer's "inferred" matches what `migplan profiles` marks, and the
  // script and the mig-parted config name the same profiles in a comment.
  const json gpus = json::parse(run_migplan({"profiles", "--json"}).out)["gpus"];
  int checked = 0;
  for (const json& g : gpus) {
    const std::string slug = g["id"].get<std::string>();
    std::string first;                          // a profile the model can emit
    std::vector<std::string> offered_inferred;  // emit-able profiles with inferred values
    for (const json& p : g["profiles"]) {
      const std::string name = p["name"].get<std::string>();
      INFO(slug << " " << name);
      const auto nvml = run_migplan({"pack", "--gpu", slug, "--emit", "nvml", name});
      if (nvml.code != 0) continue;  // values unknown: no placement to emit
      ++checked;
      const json want = p["inferred"].empty()
                            ? json::array()
                            : json::array({{{"profile", name}, {"fields", p["inferred"]}}});
      CHECK(json::parse(nvml.out)["inferred"] == want);
      const std::string line = "# Values inferred by analogy, not captured: " + name + " (";
      // Comments wrap: read them as one line.
      const std::string script =
          unwrapped(run_migplan({"pack", "--gpu", slug, "--emit", "nvidia-smi", name}).out);
      CHECK((script.find(line.substr(2)) != std::string::npos) == !want.empty());
      const bool starts = std::find(p["inferred"].begin(), p["inferred"].end(), "placements") !=
                          p["inferred"].end();
      CHECK((script.find("the driver may refuse it") != std::string::npos) == starts);
      for (const char* kind : {"mig-parted", "k8s"}) {
        const auto config = run_migplan({"pack", "--gpu", slug, "--emit", kind, name});
        CHECK((config.out.find(line) != std::string::npos) == !want.empty());
      }
      if (first.empty()) first = name;
      if (!want.empty()) offered_inferred.push_back(name);
    }
    // DRA offers every placement of the model: its header names every
    // profile with a placement whose values are inferred.
    if (first.empty()) continue;
    INFO(slug << " dra");
    const std::string dra =
        unwrapped(run_migplan({"pack", "--gpu", slug, "--emit", "dra", first}).out);
    const auto said = dra.find("Values inferred by analogy, not captured: ");
    CHECK((said != std::string::npos) == !offered_inferred.empty());
    if (said == std::string::npos) continue;
    const std::string sentence = dra.substr(said, dra.find('\n', said) - said);
    for (const std::string& name : offered_inferred)
      CHECK(sentence.find(" " + name + " (") != std::string::npos);
  }
  CHECK(checked > 50);
}

TEST_CASE("the one mig-parted writer lists every PCI ID, the inferred ones too",
          "[emit][mig-parted]") {
  using migplan::cli::mig_parted_config;
  using migplan::cli::mig_parted_entry;
  // h200: one PCI ID seen, one inferred; rtx-pro-4500: none known.
  const migplan::gpu_model& h200 = *migplan::find_model("h200");
  const migplan::gpu_model& rtx = *migplan::find_model("rtx-pro-4500");
  REQUIRE(h200.pci_ids.size() == 2);
  REQUIRE_FALSE(h200.pci_ids[0].inferred);
  REQUIRE(h200.pci_ids[1].inferred);
  REQUIRE(rtx.pci_ids.empty());
  mig_parted_config c;
  mig_parted_entry none{&rtx, false, {}};
  none.gpu_indices = {0, 2};
  c.labels.push_back({"fleet", {{&h200, true, {{0, 1}}}, none}, "for a fleet"});
  std::ostringstream out;
  migplan::cli::render::mig_parted(out, c, "  ");
  // {0}, {1}: h200's seen and inferred PCI IDs; {2} its first profile.
  const std::string want =
      "  version: v1\n"
      "  mig-configs:\n"
      "    # for a fleet\n"
      "    fleet:\n"
      "      # h200: {3}\n"
      "      # {1} maps to h200 by inference (no capture shows it)\n"
      "      - device-filter: [\"{0}\", \"{1}\"]\n"
      "        devices: all\n"
      "        mig-enabled: true\n"
      "        mig-devices:\n"
      "          \"{2}\": 1\n"
      "      # rtx-pro-4500: {4}\n"
      "      # no PCI ID is known for this model: the entry applies to every GPU\n"
      "      - devices: [0, 2]\n"
      "        mig-enabled: false\n";
  CHECK(out.str() == fmt::format(fmt::runtime(want), fmt::format("0x{:08X}", h200.pci_ids[0].value),
                                 fmt::format("0x{:08X}", h200.pci_ids[1].value),
                                 h200.profiles[0].name, h200.name(),
                                 rtx.name().empty() ? rtx.description : rtx.name()));
}

TEST_CASE("the nvidia-smi script stops where a GPU instance with CIs is not created",
          "[cli][emit]") {
  // Before, gi=$(nvidia-smi ... | gi_id) took sed's status: a failed -cgi
  // left $gi empty and the script went on to -gi "" -cci, contrary to its
  // own comment.
  temp_dir dir;
  const fs::path stub = dir.path / "nvidia-smi";
  // The driver's refusal (data/captures/a100-40gb-cgi-fail-example2.txt):
  // a message and a failing status, no "created" line.
  write(stub,
        "#!/bin/sh\necho \"$*\" >> \"$MIGPLAN_CALLS\"\n"
        "case \"$*\" in *-cgi*) echo 'Unable to create a GPU instance on GPU  0 using profile 9: "
        "Insufficient Resources' >&2; exit 1;; esac\n");
  fs::permissions(stub, fs::perms::owner_all);
  const auto r = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--emit", "nvidia-smi", "3g.20gb[1c,2c]", "2g.10gb"});
  REQUIRE(r.code == 0);
  const fs::path file = dir.path / "create.sh";
  const fs::path calls = dir.path / "calls.txt";
  write(file, r.out);
  const std::string cmd = "cd '" + dir.path.string() + "' && PATH='" + dir.path.string() +
                          "':\"$PATH\" MIGPLAN_CALLS='" + calls.string() +
                          "' sh create.sh 2>/dev/null";
  CHECK(std::system(cmd.c_str()) != 0);
  // Only the failed -cgi ran: no -cci on an empty ID, nothing after it.
  CHECK(read_file(calls.string()) == "mig -i 0 -cgi 9:4\n");
}

TEST_CASE("pack --emit k8s counts a suffixed profile where the device plugin does",
          "[cli][emit][k8s]") {
  // The plugin makes one mixed resource per GI profile, its pattern the
  // profile's name, in NVML's profile order (1_SLICE before 1_SLICE_REV1,
  // the +me profile: go-nvlib VisitMigProfiles), and gives a MIG device the
  // first resource whose pattern matches its profile (device_map.go). Released
  // plugins match unanchored (resources.go: regexp.MatchString of
  // QuoteMeta(pattern)), so "1g.5gb" matches "1g.5gb+me" first; PR 1807
  // (merged 2026-08-19) anchors them. Before, migplan wrote
  // nvidia.com/mig-1g.5gb.me: 1, a resource no released plugin advertises.
  const auto r = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--emit", "k8s", "1g.5gb+me", "1g.5gb", "2g.10gb"});
  REQUIRE(r.code == 0);
  const YAML::Node y = YAML::Load(r.out);
  CHECK(y["mixed"]["nvidia.com/mig-1g.5gb"].as<int>() == 2);
  CHECK(y["mixed"]["nvidia.com/mig-2g.10gb"].as<int>() == 1);
  CHECK(y["mixed"].size() == 2);
  CHECK(y["mixed-anchored"]["nvidia.com/mig-1g.5gb.me"].as<int>() == 1);
  CHECK(y["mixed-anchored"]["nvidia.com/mig-1g.5gb"].as<int>() == 1);
  CHECK(y["mixed-anchored"]["nvidia.com/mig-2g.10gb"].as<int>() == 1);
  CHECK(y["mixed-anchored"].size() == 3);
  CHECK(unwrapped(r.out).find("1 x 1g.5gb+me as nvidia.com/mig-1g.5gb") != std::string::npos);
  // Without a plain profile beside it the suffix changes nothing: one map.
  const auto plain =
      run_migplan({"pack", "--gpu", "h100-80gb", "--emit", "k8s", "3g.40gb", "2g.20gb"});
  REQUIRE(plain.code == 0);
  CHECK_FALSE(YAML::Load(plain.out)["mixed-anchored"]);
  // A compute instance falls to its GI's pattern unanchored; anchored, it
  // matches none and the plugin refuses the node's MIG devices.
  const auto ci = run_migplan({"pack", "--gpu", "a100-40gb", "--emit", "k8s", "3g.20gb[1c,2c]"});
  REQUIRE(ci.code == 0);
  const YAML::Node c = YAML::Load(ci.out);
  CHECK(c["mixed"]["nvidia.com/mig-3g.20gb"].as<int>() == 2);
  CHECK(c["mixed-anchored"].IsNull());
  CHECK(unwrapped(ci.out).find("does not match any resource patterns") != std::string::npos);
}

TEST_CASE("pack --emit mig-parted refuses CIs that mig-parted would group otherwise",
          "[cli][emit]") {
  // mig-parted flattens its counts largest CI first (MigConfig.Flatten) and
  // puts each in the GI it made last while it fits (SetMigConfig): 2c, 1c,
  // 1c make {2c, 1c} + {1c}, not the {1c, 1c} + {2c} asked.
  const auto moved = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--emit", "mig-parted", "3g.20gb[1c,1c]", "3g.20gb[2c]"});
  CHECK(moved.code == 2);
  CHECK(moved.out.empty());
  CHECK(moved.err ==
        "migplan: a mig-parted config cannot keep this layout's compute instances grouped as "
        "they are: mig-parted counts compute instances, creates the largest first and puts each "
        "in the GPU instance it made last while it fits there, so it would make 3g.20gb as {2c, "
        "1c} + {1c} where the layout has {2c} + {1c, 1c}; ask for its grouping, or use --emit "
        "nvidia-smi or --emit nvml, which create each GPU instance with its own compute "
        "instances\n");
  // The same CIs as mig-parted groups them are written, with the same counts.
  const auto kept = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--emit", "mig-parted", "3g.20gb[2c,1c]", "3g.20gb[1c]"});
  CHECK(kept.code == 0);
  CHECK(kept.out.find("\"2c.3g.20gb\": 1") != std::string::npos);
  CHECK(kept.out.find("\"1c.3g.20gb\": 2") != std::string::npos);
  // Three 1c in one GI and one in another: as mig-parted makes them; nvml
  // and nvidia-smi write any grouping.
  CHECK(run_migplan({"pack", "--gpu", "a100-40gb", "--emit", "mig-parted", "3g.20gb[1c,1c,1c]",
                     "3g.20gb[1c]"})
            .code == 0);
  for (const std::string kind : {"nvidia-smi", "nvml"}) {
    INFO(kind);
    CHECK(
        run_migplan({"pack", "--gpu", "a100-40gb", "--emit", kind, "3g.20gb[1c,1c]", "3g.20gb[2c]"})
            .code == 0);
  }
  // An existing split GI counts too: mig-parted clears the GPU and makes
  // every CI again from the counts.
  const auto existing = run_migplan({"pack", "--gpu", "a100-40gb", "--json", "3g.20gb[1c,1c]"});
  REQUIRE(existing.code == 0);
  const auto added =
      run_migplan({"pack", "--current", "-", "--emit", "mig-parted", "3g.20gb[2c]"}, existing.out);
  CHECK(added.code == 2);
  CHECK(added.err.find("would make 3g.20gb as {2c, 1c} + {1c}") != std::string::npos);
}

TEST_CASE("pack --emit names the compute-instance reason a request does not fit for",
          "[cli][emit]") {
  // Refused before any search: once "does not fit (): it fits".
  const auto cap =
      run_migplan({"pack", "--gpu", "a100-40gb", "--emit", "nvidia-smi", "3g.20gb[2c,2c]"});
  CHECK(cap.code == 1);
  CHECK(cap.out.empty());
  CHECK(cap.err ==
        "migplan: does not fit (ci_cap): '3g.20gb[2c,2c]' asks 2 x 2c.3g.20gb of one 3g.20gb GPU "
        "instance, but one holds at most 1; nothing to emit\n");
  const auto unknown =
      run_migplan({"pack", "--gpu", "h100-80gb", "--emit", "mig-parted", "3g.40gb[2c,1c]"});
  CHECK(unknown.code == 1);
  CHECK(unknown.err.rfind("migplan: does not fit (unknown_ci_profile): CI profiles unknown for "
                          "3g.40gb on h100-80gb",
                          0) == 0);
}

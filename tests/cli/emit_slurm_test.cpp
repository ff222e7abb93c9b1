// SPDX-License-Identifier: Apache-2.0
// pack --emit slurm: the Gres counts it writes, checked against the MIG
// devices slurmd would find on the GPU, named both ways slurmd has named
// them, and matched to the configured types as slurmd matches them. The
// devices come from `pack --json` (the layout and its compute instances) and
// their names from `gpus --json` and `profiles --json`, never from the
// writer under test.

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "run_binary.hpp"

using migplan::test::run_migplan;
using migplan::test::unwrapped;
using json = nlohmann::json;

namespace {

std::string lowered(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// What slurmd puts before a MIG device's own part: the NVML name in lower
// case, spaces as '_', cut at the first '-' (gpu_nvml.c, _handle_mig).
std::string slurmd_prefix(const std::string& nvml_name) {
  std::string s = lowered(nvml_name.substr(0, nvml_name.find('-')));
  std::replace(s.begin(), s.end(), ' ', '_');
  return s;
}

// (type, count) pairs of "gpu:T:N,gpu:T:N".
std::vector<std::pair<std::string, long long>> parse_gres(const std::string& line) {
  std::vector<std::pair<std::string, long long>> out;
  std::stringstream ss(line);
  std::string part;
  while (std::getline(ss, part, ',')) {
    REQUIRE(part.rfind("gpu:", 0) == 0);
    const std::size_t colon = part.rfind(':');
    out.emplace_back(part.substr(4, colon - 4), std::stoll(part.substr(colon + 1)));
  }
  return out;
}

// slurmd's matching (_normalize_sys_gres_types, gres_gpu.c): configured
// records of count 1 and detected devices, each sorted longest type first
// (equal lengths by name); a device takes the first record left whose type
// it contains, ignoring case.
// Empty when every device takes one and no record is left over, else what
// went wrong.
std::string slurmd_match(const std::vector<std::pair<std::string, long long>>& configured,
                         std::vector<std::string> devices) {
  std::vector<std::string> records;
  for (const auto& [type, n] : configured)
    for (long long i = 0; i < n; ++i) records.push_back(lowered(type));
  const auto longer = [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  };
  std::stable_sort(records.begin(), records.end(), longer);
  std::stable_sort(devices.begin(), devices.end(), longer);
  std::vector<bool> used(records.size(), false);
  for (const std::string& d : devices) {
    bool taken = false;
    for (std::size_t r = 0; r < records.size() && !taken; ++r)
      if (!used[r] && lowered(d).find(records[r]) != std::string::npos) used[r] = taken = true;
    if (!taken) return "no configured type left for " + d;
  }
  for (std::size_t r = 0; r < records.size(); ++r)
    if (!used[r]) return "configured " + records[r] + " has no device";
  return {};
}

struct model_info {
  std::string prefix;
  std::string whole;                     // what slurmd calls the GPU with MIG off
  std::map<std::string, json> profiles;  // by name
};

std::map<std::string, model_info> models() {
  const json gpus = json::parse(run_migplan({"gpus", "--json"}).out);
  const json profiles = json::parse(run_migplan({"profiles", "--json"}).out);
  std::map<std::string, model_info> out;
  for (const json& g : gpus["gpus"]) {
    model_info& m = out[g["id"].get<std::string>()];
    const std::string name = g["smi_names"].at(0).get<std::string>();
    m.prefix = slurmd_prefix(name);
    m.whole = lowered(name);
    std::replace(m.whole.begin(), m.whole.end(), ' ', '_');
  }
  for (const json& g : profiles["gpus"])
    for (const json& p : g["profiles"])
      out[g["id"].get<std::string>()].profiles[p["name"].get<std::string>()] = p;
  return out;
}

// One device name per MIG device of pack's preferred layout: by profile (the
// CI's name, or the GI's for a GI with its one full CI) or by memory
// (compute slices and GiB, rounded half up; "" when the memory is unknown).
std::vector<std::string> devices_of(const json& instances, const model_info& m, bool by_memory) {
  std::vector<std::string> out;
  for (const json& in : instances) {
    const json& p = m.profiles.at(in["profile"].get<std::string>());
    std::string memory_name;
    if (!p["memory_gib"].is_null()) {
      const long long x100 = std::llround(p["memory_gib"].get<double>() * 100);
      memory_name = std::to_string(p["compute_slices"].get<int>()) + "g." +
                    std::to_string((x100 + 50) / 100) + "gb";
    }
    const json& cis = in["compute_instances"];
    const std::size_t n = cis.is_array() && !cis.empty() ? cis.size() : 1;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string own =
          cis.empty() ? in["profile"].get<std::string>() : cis[i]["profile"].get<std::string>();
      out.push_back(by_memory ? (memory_name.empty() ? "" : m.prefix + "_" + memory_name)
                              : m.prefix + "_" + own);
    }
  }
  return out;
}

struct emitted {
  std::vector<std::pair<std::string, long long>> by_profile, by_memory;
  bool memory_line = false;
};

emitted read_emitted(const std::string& out) {
  emitted e;
  std::stringstream ss(out);
  std::string line;
  while (std::getline(ss, line)) {
    if (line.rfind("Gres=", 0) == 0) e.by_profile = parse_gres(line.substr(5));
    if (line.rfind("# Gres=", 0) == 0) {
      e.by_memory = parse_gres(line.substr(7));
      e.memory_line = true;
    }
  }
  return e;
}

// Requests for `m`: each profile as many times as one GPU holds, and each
// profile with attributes beside the one without.
std::vector<std::vector<std::string>> requests(const model_info& m) {
  std::vector<std::vector<std::string>> out;
  for (const auto& [name, p] : m.profiles) {
    out.push_back({std::to_string(p["max_instances"].get<int>()) + "x" + name});
    const std::string base = name.substr(0, name.find_first_of("+-"));
    if (base != name && m.profiles.count(base) != 0) out.push_back({name, base});
  }
  return out;
}

}  // namespace

TEST_CASE("pack --emit slurm's Gres counts match the devices slurmd finds under both namings",
          "[cli][emit][slurm][exhaustive]") {
  int checked = 0, renamed = 0, unknown = 0;
  for (const auto& [slug, m] : models()) {
    for (std::vector<std::string> req : requests(m)) {
      std::vector<std::string> args{"pack", "--gpu", slug, "--emit", "slurm"};
      args.insert(args.end(), req.begin(), req.end());
      const auto r = run_migplan(args);
      std::vector<std::string> json_args{"pack", "--gpu", slug, "--json"};
      json_args.insert(json_args.end(), req.begin(), req.end());
      const auto a = run_migplan(json_args);
      INFO(slug << " " << req.front() << "\n" << r.out << r.err);
      if (a.code != 0) {
        CHECK(r.code == a.code);  // a request that does not fit writes nothing
        CHECK(r.out.empty());
        continue;
      }
      REQUIRE(r.code == 0);
      const json answer = json::parse(a.out);
      const emitted e = read_emitted(r.out);
      CHECK(r.out.find("\nAutoDetect=nvml\n") != std::string::npos);
      const json& instances = answer["layouts"][0]["instances"];
      CHECK(slurmd_match(e.by_profile, devices_of(instances, m, false)).empty());
      const std::vector<std::string> old_names = devices_of(instances, m, true);
      if (std::find(old_names.begin(), old_names.end(), "") != old_names.end()) {
        // The memory is unknown: no line, and the note says for which profile.
        CHECK_FALSE(e.memory_line);
        CHECK(unwrapped(r.out).find("does not know the memory of") != std::string::npos);
        ++unknown;
      } else if (e.memory_line) {
        CHECK(slurmd_match(e.by_memory, old_names).empty());
        // The line by profile would drain the node there.
        CHECK_FALSE(slurmd_match(e.by_profile, old_names).empty());
        ++renamed;
      } else {
        CHECK(unwrapped(r.out).find("serves it too") != std::string::npos);
        CHECK(slurmd_match(e.by_profile, old_names).empty());
      }
      ++checked;
    }
  }
  // Every kind of case was met: named alike, renamed, memory unknown.
  CHECK(checked > 100);
  CHECK(renamed > 10);
  CHECK(unknown > 10);
}

TEST_CASE("pack --emit slurm counts compute instances and sums a profile's variants",
          "[cli][emit][slurm]") {
  const auto r = run_migplan(
      {"pack", "--gpu", "a100-80gb", "--emit", "slurm", "3g.40gb[3x1c]", "1g.10gb+me", "1g.10gb"});
  REQUIRE(r.code == 0);
  const emitted e = read_emitted(r.out);
  const std::map<std::string, long long> counts(e.by_profile.begin(), e.by_profile.end());
  // Three compute instances are three MIG devices; 1g.10gb+me and 1g.10gb are both 1g.10gb.
  CHECK(counts == std::map<std::string, long long>{{"3g.40gb", 3}, {"1g.10gb", 2}});
  // The -lgip memory of 1g.10gb (9.50 GiB) is a half: the note says so.
  CHECK(unwrapped(r.out).find("1g.10gb (9.50 GiB)") != std::string::npos);
}

namespace {

// "NodeName=N Gres=..." lines, by node; `commented` reads the "# " ones.
std::map<std::string, std::vector<std::pair<std::string, long long>>> node_lines(
    const std::string& out, bool commented) {
  std::map<std::string, std::vector<std::pair<std::string, long long>>> lines;
  std::stringstream ss(out);
  std::string line;
  const std::string head = commented ? "# NodeName=" : "NodeName=";
  while (std::getline(ss, line)) {
    if (line.rfind(head, 0) != 0) continue;
    const std::size_t gres = line.find(" Gres=");
    REQUIRE(gres != std::string::npos);
    lines[line.substr(head.size(), gres - head.size())] = parse_gres(line.substr(gres + 6));
  }
  return lines;
}

// `plan ARGS --emit slurm` and `plan ARGS --json`, each required to succeed:
// the Slurm text and the plan it was written from.
std::pair<std::string, json> plan_slurm_and_json(const std::vector<std::string>& args,
                                                 const std::string& input = "") {
  std::vector<std::string> emit{"plan", "--emit", "slurm"}, as_json{"plan", "--json"};
  emit.insert(emit.end(), args.begin(), args.end());
  as_json.insert(as_json.end(), args.begin(), args.end());
  const auto r = run_migplan(emit, input);
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const auto a = run_migplan(as_json, input);
  REQUIRE(a.code == 0);
  return {r.out, json::parse(a.out)};
}

}  // namespace

TEST_CASE("plan --emit slurm's Gres lines match each node's devices under both namings",
          "[cli][emit][slurm]") {
  const std::map<std::string, model_info> all = models();
  const std::map<std::string, std::pair<std::string, int>> fleet{{"n1", {"a100-80gb", 4}},
                                                                 {"n2", {"h200", 2}},
                                                                 {"n3", {"a100-80gb", 2}},
                                                                 {"n4", {"b200", 2}},
                                                                 {"n5", {"a30", 1}}};
  std::string fleet_yaml = "version: 1\nnodes:\n";
  for (const auto& [name, m] : fleet)
    fleet_yaml += "  - name: " + name + "\n    gpu: " + m.first +
                  "\n    gpus: " + std::to_string(m.second) + "\n";
  const std::vector<std::string> items{"3x1c.3g.40gb", "6x1g.10gb", "1g.10gb+me", "4x1g.18gb",
                                       "2g.35gb",      "7g.80gb",   "2x1g.23gb",  "7g.180gb"};
  std::vector<std::string> args{"--fleet", "-"};
  args.insert(args.end(), items.begin(), items.end());
  const auto [out, plan] = plan_slurm_and_json(args, fleet_yaml);
  INFO(out);
  const auto by_profile = node_lines(out, false);
  const auto by_memory = node_lines(out, true);
  REQUIRE(by_profile.size() == fleet.size());
  int whole_and_mig = 0;
  for (const json& node : plan["nodes"]) {
    const std::string name = node["name"].get<std::string>();
    const model_info& m = all.at(fleet.at(name).first);
    std::vector<std::string> now, old;
    bool unknown = false;
    int whole = 0;
    for (const json& gpu : node["gpus"]) {
      if (gpu["group"].is_null()) {
        now.push_back(m.whole);
        old.push_back(m.whole);
        ++whole;
        continue;
      }
      const json& instances = plan["groups"][gpu["group"].get<std::size_t>()]["instances"];
      for (const std::string& d : devices_of(instances, m, false)) now.push_back(d);
      for (const std::string& d : devices_of(instances, m, true)) {
        unknown = unknown || d.empty();
        old.push_back(d);
      }
    }
    INFO(name);
    if (whole > 0 && whole < static_cast<int>(node["gpus"].size())) ++whole_and_mig;
    CHECK(slurmd_match(by_profile.at(name), now).empty());
    if (unknown) {
      CHECK(by_memory.count(name) == 0);
    } else if (by_memory.empty()) {
      CHECK(slurmd_match(by_profile.at(name), old).empty());
    } else {
      CHECK(slurmd_match(by_memory.at(name), old).empty());
    }
  }
  // Nodes with whole GPUs beside MIG devices, where the short type must come last.
  CHECK(whole_and_mig >= 2);
  CHECK(unwrapped(out).find("does not know the memory of 7g.180gb") != std::string::npos);
}

TEST_CASE("plan --emit slurm in a re-plan: kept geometries and a GPU with MIG on and none",
          "[cli][emit][slurm]") {
  const std::map<std::string, model_info> all = models();
  const std::string state = migplan::test::plan_fixture("state.json");
  const auto [out, plan] = plan_slurm_and_json({"--current", state, "2x1g.10gb"});
  INFO(out);
  const auto lines = node_lines(out, false);
  std::vector<std::string> empty;
  for (const json& node : plan["nodes"]) {
    const std::string name = node["name"].get<std::string>();
    std::vector<std::string> devices;
    for (const json& gpu : node["gpus"]) {
      REQUIRE_FALSE(gpu["group"].is_null());
      const json& group = plan["groups"][gpu["group"].get<std::size_t>()];
      if (group["instances"].empty())
        empty.push_back("GPU " + std::to_string(gpu["index"].get<int>()) + " of " + name);
      for (const std::string& d :
           devices_of(group["instances"], all.at(group["gpu"]["id"].get<std::string>()), false))
        devices.push_back(d);
    }
    INFO(name);
    CHECK(slurmd_match(lines.at(name), devices).empty());
  }
  // The state file's GPU 2 of gpu-a has MIG on and no instance: said, not counted.
  REQUIRE(empty == std::vector<std::string>{"GPU 2 of gpu-a"});
  CHECK(unwrapped(out).find("GPU 2 of gpu-a has MIG on and no MIG device") != std::string::npos);
}

TEST_CASE("plan --emit slurm needs nodes Slurm can name", "[cli][emit][slurm]") {
  const auto none = run_migplan({"plan", "--gpu", "a100-40gb", "--emit", "slurm", "3x1g.5gb"});
  CHECK(none.code == 2);
  CHECK(none.out.empty());
  CHECK(none.err ==
        "migplan: --emit slurm needs nodes: give a fleet file with nodes, or --current; nothing "
        "to emit\n");
  const auto spaced = run_migplan({"plan", "--fleet", "-", "--emit", "slurm", "3x1g.5gb"},
                                  "version: 1\nnodes:\n  - name: gpu node\n    gpu: a100-40gb\n"
                                  "    gpus: 1\n");
  CHECK(spaced.code == 2);
  CHECK(spaced.err ==
        "migplan: --emit slurm: node 'gpu node' is no Slurm node name (letters, digits, '-', '_' "
        "and '.'); nothing to emit\n");
}

TEST_CASE("plan --emit slurm types a model file's whole GPUs by a short word of its names",
          "[cli][emit][slurm]") {
  // examples/model.json, "NVIDIA Example 4U": whole GPUs are "examp", cut to
  // stay shorter than every MIG type; without nvidia-smi names, no type.
  const json model =
      json::parse(migplan::test::read_file(migplan::test::source_path("examples/model.json")));
  json nameless = model;
  nameless["slug"] = "nameless-4u";
  nameless["smi_names"] = json::array();
  nameless["pci_ids"] = json::array();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("migplan-slurm-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string named = (dir / "named.json").string(), bare = (dir / "bare.json").string();
  std::ofstream(named) << model.dump();
  std::ofstream(bare) << nameless.dump();
  const auto fleet = [](const std::string& slug) {
    return "version: 1\nnodes:\n  - {name: e1, gpu: " + slug + ", gpus: 2}\n";
  };
  const auto [out, plan] = plan_slurm_and_json({"--gpu-file", named, "--fleet", "-", "2x1g.11gb"},
                                               fleet(model["slug"].get<std::string>()));
  CHECK(out.find("\nNodeName=e1 Gres=gpu:1g.11gb:2,gpu:examp:1\n") != std::string::npos);
  const auto r =
      run_migplan({"plan", "--gpu-file", bare, "--fleet", "-", "--emit", "slurm", "2x1g.11gb"},
                  fleet("nameless-4u"));
  std::filesystem::remove_all(dir);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "migplan: --emit slurm: node 'e1' has GPUs with MIG off, and the nvidia-smi names of its "
        "model nameless-4u share no short word to type them by; nothing to emit\n");
}

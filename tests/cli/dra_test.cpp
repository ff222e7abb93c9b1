// SPDX-License-Identifier: Apache-2.0
// The DRA ResourceSlice writer (render/dra): a golden file for one model, and
// for every model the output read back with yaml-cpp: the API's limits and
// name formats (doc/dra.md cites each), and the slices' own verdict (what the
// counters as written allow) against the core's rules on every set of
// placements.

#include "render/dra.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <migplan/capacity.hpp>
#include <migplan/catalog.hpp>
#include <migplan/rules.hpp>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/dra_options.hpp"
#include "run_binary.hpp"

namespace {

using migplan::gpu_model;
using migplan::cli::dra_options;

std::string emit(const gpu_model& g, const dra_options& opt = {}) {
  std::ostringstream out;
  migplan::cli::render::dra_resource_slice(out, g, opt);
  return out.str();
}

// Name formats of the Kubernetes API, written out here rather than shared
// with the writer. By hand, not std::regex: g++ 12 at -O1 (the ASan build)
// warns inside <regex> (a false maybe-uninitialized), and warnings are errors.
bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
// [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 characters.
bool dns_label(const std::string& s) {
  if (s.empty() || s.size() > 63 || !lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  for (char c : s)
    if (!lower_alnum(c) && c != '-') return false;
  return true;
}
// DNS labels joined by '.', at most 253 characters.
bool dns_subdomain(const std::string& s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t from = 0;
  for (;;) {
    const std::size_t dot = s.find('.', from);
    if (!dns_label(s.substr(from, dot == std::string::npos ? std::string::npos : dot - from)))
      return false;
    if (dot == std::string::npos) return true;
    from = dot + 1;
  }
}
// [A-Za-z_][A-Za-z0-9_]*, at most 32 characters.
bool c_identifier(const std::string& s) {
  if (s.empty() || s.size() > 32 || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!(lower_alnum(c) || (c >= 'A' && c <= 'Z') || c == '_')) return false;
  return true;
}
// A resource.Quantity as the writer uses it: a non-negative integer, quoted.
long long quantity(const YAML::Node& n) {
  const std::string text = n.as<std::string>();
  REQUIRE(!text.empty());
  REQUIRE((text == "0" || text[0] != '0'));
  for (char c : text) REQUIRE((c >= '0' && c <= '9'));
  return std::stoll(text);
}

// What a pool of slices says, read back.
struct device_read {
  std::string name;
  int profile = -1;  // index on the model, from the "profile" attribute
  int start = -1;    // from "placementStart"
  std::vector<std::pair<std::string, long long>> draws;  // "set/counter", amount
};
struct pool_read {
  std::map<std::string, long long> counters;  // "set/counter" -> capacity
  std::vector<device_read> devices;
};

// Reads every slice of `text` and checks each against the API's rules.
pool_read read_pool(const gpu_model& g, const std::string& text, const dra_options& opt) {
  const std::vector<YAML::Node> docs = YAML::LoadAll(text);
  REQUIRE(docs.size() >= 2);
  pool_read pool;
  std::set<std::string> slice_names, set_names, device_names;
  for (std::size_t k = 0; k < docs.size(); ++k) {
    const YAML::Node& d = docs[k];
    INFO("slice " << k);
    CHECK(d["apiVersion"].as<std::string>() == "resource.k8s.io/v1");
    CHECK(d["kind"].as<std::string>() == "ResourceSlice");
    const std::string name = d["metadata"]["name"].as<std::string>();
    CHECK(dns_subdomain(name));
    CHECK(slice_names.insert(name).second);
    const YAML::Node spec = d["spec"];
    CHECK(spec["driver"].as<std::string>() == opt.driver);
    CHECK(spec["nodeName"].as<std::string>() == opt.node_name);
    CHECK(spec["pool"]["name"].as<std::string>() ==
          (opt.pool.empty() ? opt.node_name + "-gpu-" + std::to_string(opt.gpu_index) : opt.pool));
    CHECK(spec["pool"]["generation"].as<long long>() == 1);
    CHECK(spec["pool"]["resourceSliceCount"].as<std::size_t>() == docs.size());
    // Only one of sharedCounters and devices per slice; the counters come first.
    REQUIRE(spec["sharedCounters"].IsDefined() != spec["devices"].IsDefined());
    CHECK(spec["sharedCounters"].IsDefined() == (k == 0));
    if (spec["sharedCounters"].IsDefined()) {
      const YAML::Node sets = spec["sharedCounters"];
      CHECK(sets.size() >= 1);
      CHECK(sets.size() <= 8);  // ResourceSliceMaxCounterSets
      for (const YAML::Node& set : sets) {
        const std::string set_name = set["name"].as<std::string>();
        CHECK(dns_label(set_name));
        CHECK(set_names.insert(set_name).second);
        CHECK(set["counters"].size() >= 1);
        CHECK(set["counters"].size() <= 32);  // ResourceSliceMaxCountersPerCounterSet
        for (const auto& c : set["counters"]) {
          const std::string counter = c.first.as<std::string>();
          CHECK(dns_label(counter));
          CHECK(
              pool.counters.emplace(set_name + "/" + counter, quantity(c.second["value"])).second);
        }
      }
      continue;
    }
    const YAML::Node devices = spec["devices"];
    CHECK(devices.size() >= 1);
    CHECK(devices.size() <= 64);  // ResourceSliceMaxDevicesWithAdvancedFeatures
    for (const YAML::Node& dev : devices) {
      device_read r;
      r.name = dev["name"].as<std::string>();
      INFO("device " << r.name);
      CHECK(dns_label(r.name));
      CHECK(device_names.insert(r.name).second);
      const std::size_t capacities = dev["capacity"] ? dev["capacity"].size() : 0;
      CHECK(dev["attributes"].size() + capacities <= 32);
      for (const auto& a : dev["attributes"]) {
        CHECK(c_identifier(a.first.as<std::string>()));
        CHECK(a.second.size() == 1);  // exactly one value type
        if (a.second["string"]) CHECK(a.second["string"].as<std::string>().size() <= 64);
      }
      CHECK(dev["attributes"]["type"]["string"].as<std::string>() == "mig");
      CHECK(dev["attributes"]["gpuModel"]["string"].as<std::string>() == g.slug);
      r.profile =
          migplan::find_profile(g, dev["attributes"]["profile"]["string"].as<std::string>());
      REQUIRE(r.profile >= 0);
      const migplan::profile& p = g.profiles[static_cast<std::size_t>(r.profile)];
      CHECK(dev["attributes"]["profileId"]["int"].as<int>() == p.id);
      CHECK(dev["attributes"]["placementSize"]["int"].as<int>() == p.size);
      r.start = dev["attributes"]["placementStart"]["int"].as<int>();
      const YAML::Node uses = dev["consumesCounters"];
      CHECK(uses.size() >= 1);
      CHECK(uses.size() <= 2);  // ResourceSliceMaxDeviceCounterConsumptionsPerDevice
      std::set<std::string> used_sets;
      for (const YAML::Node& use : uses) {
        const std::string set_name = use["counterSet"].as<std::string>();
        CHECK(used_sets.insert(set_name).second);
        CHECK(use["counters"].size() >= 1);
        CHECK(use["counters"].size() <= 32);  // ResourceSliceMaxCountersPerDeviceCounterConsumption
        for (const auto& c : use["counters"]) {
          const std::string key = set_name + "/" + c.first.as<std::string>();
          r.draws.emplace_back(key, quantity(c.second["value"]));
        }
      }
      pool.devices.push_back(std::move(r));
    }
  }
  // Every draw names a counter of the pool (the scheduler refuses the pool otherwise).
  for (const device_read& d : pool.devices)
    for (const auto& [key, amount] : d.draws) {
      INFO(d.name << " draws " << key);
      CHECK(pool.counters.count(key) == 1);
      CHECK(amount > 0);
    }
  return pool;
}

// What the slices allow: every counter covers what the chosen devices draw.
bool pool_allows(const pool_read& pool, const std::vector<std::size_t>& chosen) {
  std::map<std::string, long long> drawn;
  for (const std::size_t i : chosen)
    for (const auto& [key, amount] : pool.devices[i].draws) drawn[key] += amount;
  for (const auto& [key, amount] : drawn) {
    const auto it = pool.counters.find(key);
    if (it == pool.counters.end() || amount > it->second) return false;
  }
  return true;
}

bool legal(const gpu_model& g, const pool_read& pool, const std::vector<std::size_t>& chosen) {
  const migplan::rules r(g);
  migplan::usage u;
  for (const std::size_t i : chosen) {
    const device_read& d = pool.devices[i];
    if (!r.can_add(u, d.profile, d.start)) return false;
    u.add(g.profiles[static_cast<std::size_t>(d.profile)], d.profile, d.start);
  }
  return true;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("dra writes the a30's slices as the golden file", "[dra]") {
  const std::string path = std::string(MIGPLAN_TEST_DIR) + "/fixtures/dra/a30.yaml";
  const std::string got = emit(*migplan::find_model("a30"));
  // MIGPLAN_UPDATE_GOLDEN=1 rewrites the file; review the diff before committing it.
  if (std::getenv("MIGPLAN_UPDATE_GOLDEN") != nullptr) std::ofstream(path, std::ios::binary) << got;
  CHECK(got == read_file(path));
}

TEST_CASE("pack --emit dra writes the model's slices, on the node and GPU given", "[dra][cli]") {
  // The slices describe the GPU, not the layout: any request that fits gives them.
  const auto r = migplan::test::run_migplan({"pack", "--gpu", "a30", "--emit", "dra", "2g.12gb"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out == read_file(std::string(MIGPLAN_TEST_DIR) + "/fixtures/dra/a30.yaml"));
  dra_options opt;
  opt.node_name = "gpu-node-7";
  opt.gpu_index = 2;
  const auto named = migplan::test::run_migplan(
      {"pack", "--gpu", "a30", "--emit", "dra", "--node", "gpu-node-7", "--index", "2", "1g.6gb"});
  CHECK(named.code == 0);
  CHECK(named.out == emit(*migplan::find_model("a30"), opt));
  const auto no_emit =
      migplan::test::run_migplan({"pack", "--gpu", "a30", "--node", "n", "1g.6gb"});
  CHECK(no_emit.code == 2);
  CHECK(no_emit.err == "migplan: --node needs --emit dra\n");
  const auto bad = migplan::test::run_migplan(
      {"pack", "--gpu", "a30", "--emit", "dra", "--node", "Not_A_Node", "1g.6gb"});
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err.find("Not_A_Node") != std::string::npos);
}

TEST_CASE("dra slices of every model respect the API's limits and allow exactly the legal layouts",
          "[dra][exhaustive]") {
  for (const gpu_model& g : migplan::catalog()) {
    INFO("model " << g.slug);
    const dra_options opt;
    const pool_read pool = read_pool(g, emit(g, opt), opt);

    // One device per placement, each once.
    std::set<std::pair<int, int>> want, got;
    for (const migplan::instance& pl : migplan::all_placements(g))
      want.insert({pl.profile, pl.start});
    for (const device_read& d : pool.devices) CHECK(got.insert({d.profile, d.start}).second);
    CHECK(got == want);

    // The slices' verdict against the rules on every set of unit-disjoint
    // devices, and on every pair that shares a unit.
    const auto mask = [&](const device_read& d) {
      return g.profiles[static_cast<std::size_t>(d.profile)].mask_at(d.start);
    };
    long long sets = 0, wrong = 0;
    std::vector<std::size_t> chosen;
    std::function<void(std::size_t, migplan::unit_mask)> walk = [&](std::size_t from,
                                                                    migplan::unit_mask used) {
      ++sets;
      if (pool_allows(pool, chosen) != legal(g, pool, chosen)) ++wrong;
      for (std::size_t i = from; i < pool.devices.size(); ++i) {
        if ((mask(pool.devices[i]) & used) != 0) continue;
        chosen.push_back(i);
        walk(i + 1, used | mask(pool.devices[i]));
        chosen.pop_back();
      }
    };
    walk(0, 0);
    for (std::size_t i = 0; i < pool.devices.size(); ++i)
      for (std::size_t j = i + 1; j < pool.devices.size(); ++j)
        if ((mask(pool.devices[i]) & mask(pool.devices[j])) != 0)
          CHECK_FALSE(pool_allows(pool, {i, j}));
    CHECK(sets > 1);
    CHECK(wrong == 0);
  }
}

TEST_CASE("dra names the pool, slices and devices after the options", "[dra]") {
  const gpu_model& g = *migplan::find_model("rtx-pro-6000");
  dra_options opt;
  opt.node_name = "gpu-node.example.com";
  opt.driver = "example.com";
  opt.pool = "racks/rack-7";
  opt.gpu_index = 3;
  REQUIRE_FALSE(migplan::cli::dra_options_problem(opt));
  const std::string out = emit(g, opt);
  const pool_read pool = read_pool(g, out, opt);
  CHECK(pool.devices.size() == migplan::all_placements(g).size());
  // RTX PRO has both 1g.24gb+me and 1g.24gb-me: their names differ.
  CHECK(out.find("  - name: gpu-3-mig-1g-24gb-plus-me-0\n") != std::string::npos);
  CHECK(out.find("  - name: gpu-3-mig-1g-24gb-me-0\n") != std::string::npos);
  CHECK(out.find("  - name: gpu-3-mig-1g-24gb-plus-me-all-9\n") != std::string::npos);
  CHECK(out.find("  name: gpu-node.example.com-gpu-3-counters\n") != std::string::npos);
  CHECK(out.find("      cap-1g-24gb-plus-me:\n        value: \"1\"\n") != std::string::npos);
}

TEST_CASE("dra refuses options the API would refuse, naming the option", "[dra]") {
  using migplan::cli::dra_options_problem;
  const auto problem = [](auto set) {
    dra_options opt;
    set(opt);
    const auto p = dra_options_problem(opt);
    return p ? *p : std::string("(none)");
  };
  CHECK(problem([](dra_options&) {}) == "(none)");
  CHECK(problem([](dra_options& o) { o.node_name = "Worker_1"; }) ==
        "node name 'Worker_1' is not a DNS subdomain (parts between dots of lowercase letters, "
        "digits and '-', each starting and ending with a letter or digit; at most 253 "
        "characters)");
  CHECK(problem([](dra_options& o) { o.node_name = "a..b"; }).find("is not a DNS subdomain") !=
        std::string::npos);
  CHECK(problem([](dra_options& o) { o.node_name = std::string(238, 'n'); }) ==
        "node name '" + std::string(40, 'n') + "...' is too long to name the slices: '" +
            std::string(238, 'n') +
            "-gpu-0-devices-...' must be a DNS subdomain (at most 253 characters)");
  CHECK(problem([](dra_options& o) { o.driver = "gpu.nvidia.com."; }) ==
        "driver name 'gpu.nvidia.com.' is not a DNS subdomain (lowercase letters, digits, '-' and "
        "'.') of at most 63 characters");
  CHECK(problem([](dra_options& o) { o.pool = "a//b"; }) ==
        "pool name 'a//b' is not DNS subdomains joined by '/' (at most 253 characters in all)");
  CHECK(problem([](dra_options& o) { o.gpu_index = 10000; }) ==
        "GPU index 10000 is not between 0 and 9999");
  CHECK(problem([](dra_options& o) { o.gpu_index = -1; }) ==
        "GPU index -1 is not between 0 and 9999");
  // The longest node name whose slice names still fit: 253 characters with
  // "-gpu-0-devices-3" (a part of a DNS subdomain may be over 63 characters).
  CHECK(problem([](dra_options& o) { o.node_name = std::string(237, 'n'); }) == "(none)");
}

namespace {

// A model file's extreme: 16 units and 16 one-unit profiles, so 33 counters
// (more than one set holds) and 256 devices (four slices' worth).
constexpr std::string_view wide_names[] = {
    "1g.1gb", "1g.2gb",  "1g.3gb",  "1g.4gb",  "1g.5gb",  "1g.6gb",  "1g.7gb",  "1g.8gb",
    "1g.9gb", "1g.10gb", "1g.11gb", "1g.12gb", "1g.13gb", "1g.14gb", "1g.15gb", "1g.16gb"};
constexpr auto wide_profiles = [] {
  std::array<migplan::profile, 16> out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].name = wide_names[i];
    out[i].id = static_cast<int>(i);
    out[i].compute_slices = 1;
    out[i].size = 1;
    out[i].starts = 0xFFFF;
    out[i].max_instances = 16;
  }
  return out;
}();
constexpr gpu_model wide = [] {
  gpu_model m{};
  m.slug = "wide";
  m.units = 16;
  m.compute_slices = 16;
  m.profiles = wide_profiles;
  return m;
}();

}  // namespace

TEST_CASE("dra splits counters over two sets and devices over slices when one is not enough",
          "[dra]") {
  const dra_options opt;
  const std::string out = emit(wide, opt);
  const pool_read pool = read_pool(wide, out, opt);
  CHECK(pool.devices.size() == 256);
  CHECK(pool.counters.size() == 33);
  CHECK(YAML::LoadAll(out).size() == 5);
  for (const device_read& d : pool.devices) CHECK(d.draws.size() == 3);  // unit, compute, cap
  CHECK(out.find("  - name: gpu-0-slices\n") != std::string::npos);
  CHECK(out.find("  - name: gpu-0-limits\n") != std::string::npos);
  CHECK(out.find("  name: worker-1-gpu-0-devices-3\n") != std::string::npos);
  // All 16 units taken by one profile is within its cap of 16; two
  // instances on one unit are not.
  std::vector<std::size_t> row;  // profile 0 at every start: devices 0 to 15
  for (std::size_t i = 0; i < 16; ++i) {
    REQUIRE(pool.devices[i].profile == 0);
    REQUIRE(pool.devices[i].start == static_cast<int>(i));
    row.push_back(i);
  }
  CHECK(pool_allows(pool, row));
  CHECK(legal(wide, pool, row));
  CHECK_FALSE(pool_allows(pool, {0, 16}));  // profiles 0 and 1, both at unit 0
}

TEST_CASE("dra quotes a node, driver or pool name that YAML 1.1 reads as another type",
          "[dra][yaml]") {
  // Each is a DNS subdomain the API accepts, and go-yaml (kubectl) would read
  // it plain as a boolean or a number.
  const gpu_model& g = *migplan::find_model("a30");
  for (const std::string node : {"yes", "on", "123", "1e3", "0x1f"}) {
    CAPTURE(node);
    dra_options opt;
    opt.node_name = node;
    opt.driver = "true";
    REQUIRE_FALSE(migplan::cli::dra_options_problem(opt));
    const std::vector<YAML::Node> docs = YAML::LoadAll(emit(g, opt));
    REQUIRE_FALSE(docs.empty());
    const YAML::Node spec = docs.front()["spec"];
    CHECK(spec["nodeName"].Tag() == "!");  // quoted
    CHECK(spec["nodeName"].as<std::string>() == node);
    CHECK(spec["driver"].Tag() == "!");
    CHECK(spec["pool"]["name"].as<std::string>() == node + "-gpu-0");
  }
}

TEST_CASE("dra takes a node name whose first part, with the slice suffix, is over 63 characters",
          "[dra]") {
  // Kubernetes checks a DNS subdomain's parts without their 63-character limit
  // (apimachinery IsDNS1123Subdomain, isDNS1123LabelExceptMaxLength): only the
  // 253 characters in all bind metadata.name, spec.nodeName and the pool's
  // name. GKE names nodes gke-CLUSTER-POOL-HASH-SUFFIX, often 50 to 63
  // characters, and migplan refused them ("too long to name the slices").
  const std::string node = "gke-my-very-long-cluster-name-gpu-pool-1234abcd-wxyz";
  const auto r = migplan::test::run_migplan(
      {"pack", "--gpu", "a30", "--emit", "dra", "--node", node, "1g.6gb"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("  name: " + node + "-gpu-0-devices\n") != std::string::npos);
  CHECK(r.out.find("  nodeName: " + node + "\n") != std::string::npos);
  CHECK(r.out.find("    name: " + node + "-gpu-0\n") != std::string::npos);
  // A part over 63 characters on its own is a node name Kubernetes takes too.
  dra_options opt;
  opt.node_name = std::string(64, 'n') + ".example.com";
  CHECK_FALSE(migplan::cli::dra_options_problem(opt));
  // The names' form is still checked.
  opt.node_name = std::string(64, 'n') + "-";
  CHECK(migplan::cli::dra_options_problem(opt));
}

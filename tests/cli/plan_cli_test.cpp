// SPDX-License-Identifier: Apache-2.0
// `migplan plan` end to end: option errors with their exact messages and
// exit codes, and plans checked for what ANY correct solver must give (legal
// layouts, the demand covered, nodes that name real groups, exit codes, emitted
// configs that pass `migplan check --strict`), never for one solver's numbers.

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <migplan/catalog.hpp>
#include <migplan/compute.hpp>
#include <migplan/enumerate.hpp>
#include <migplan/search.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "io/names.hpp"
#include "models.hpp"
#include "run_binary.hpp"

using migplan::test::plan_fixture;
using migplan::test::run_migplan;
using migplan::test::test_path;
using json = nlohmann::json;

namespace {

// Runs `migplan plan ARGS` and expects exit 2 with exactly `message` on stderr.
void expect_plan_bad(const std::vector<std::string>& args, const std::string& message) {
  std::vector<std::string> all{"plan"};
  all.insert(all.end(), args.begin(), args.end());
  const auto r = run_migplan(all);
  INFO("args: " << [&] {
    std::string s;
    for (const auto& a : args) s += a + " ";
    return s;
  }());
  CHECK(r.code == 2);
  CHECK(r.err == "migplan: " + message + "\n");
  // With --json the error is also a JSON document on stdout.
  if (std::find(args.begin(), args.end(), "--json") != args.end())
    CHECK(json::parse(r.out)["error"]["code"] == "bad_input");
  else
    CHECK(r.out.empty());
}

// Checks a plan document for what any correct plan satisfies; returns it.
json checked_plan_doc(const migplan::test::run_result& r, int code) {
  INFO(r.err);
  REQUIRE(r.code == code);
  const json doc = json::parse(r.out);
  CHECK(doc["schema_version"] == 2);
  CHECK(doc["feasible"] == (code == 0));
  const json& demand = doc["demand"];
  const json& groups = doc["groups"];
  // Every group is a legal layout at its starts, on its model, and no two
  // groups are one geometry.
  long long gpus = 0;
  std::map<std::size_t, long long> served;
  std::set<std::string> shapes;
  for (const json& g : groups) {
    const auto model = migplan::cli::resolve_gpu(migplan::cli::builtin_models(),
                                                 g["gpu"]["id"].get<std::string>());
    REQUIRE(model);
    const migplan::gpu_model& m = **model;
    CHECK(shapes.insert(g["gpu"]["id"].dump() + g["instances"].dump()).second);
    std::vector<migplan::item> items;
    for (const json& in : g["instances"]) {
      const auto p = migplan::cli::resolve_profile(migplan::cli::builtin_models(), m,
                                                   in["profile"].get<std::string>());
      REQUIRE(p);
      CHECK(m.profiles[static_cast<std::size_t>(*p)].id == in["profile_id"].get<int>());
      items.push_back({*p, in["start"].get<int>()});
      // The compute instances of a GI split for CI items: CI profiles of that GI,
      // together a legal CI layout.
      if (in["compute_instances"].is_null()) continue;
      const migplan::profile& gi = m.profiles[static_cast<std::size_t>(*p)];
      std::vector<int> cis;
      unsigned taken = 0;
      for (const json& ci : in["compute_instances"]) {
        const int c = migplan::find_ci(gi, ci["profile"].get<std::string>());
        REQUIRE(c >= 0);
        const migplan::ci_profile& cp = gi.ci_profiles[static_cast<std::size_t>(c)];
        CHECK(cp.id == ci["profile_id"].get<int>());
        CHECK(cp.compute_slices == ci["size"].get<int>());
        const unsigned mask = ((1u << cp.compute_slices) - 1) << ci["start"].get<int>();
        CHECK((taken & mask) == 0);
        taken |= mask;
        cis.push_back(c);
      }
      CHECK(migplan::cis_fit(gi, cis));
    }
    CHECK(migplan::fits(migplan::rules(m), items));
    CHECK(g["count"].get<long long>() >= 1);
    gpus += g["count"].get<long long>();
    // The assignment: runs of the group's GPUs, each instance serving an item
    // of its own profile (per CI for a split GI), adding up to the group's
    // count and to its per-item counts.
    long long run_gpus = 0;
    std::map<std::size_t, long long> here;
    for (const json& run : g["assignment"]) {
      const long long n = run["gpus"].get<long long>();
      CHECK(n >= 1);
      run_gpus += n;
      REQUIRE(run["serves"].size() == g["instances"].size());
      for (std::size_t k = 0; k < run["serves"].size(); ++k) {
        const json& sv = run["serves"][k];
        const json& in = g["instances"][k];
        if (sv.is_null()) continue;
        if (sv.is_array()) {
          REQUIRE(!in["compute_instances"].is_null());
          REQUIRE(sv.size() == in["compute_instances"].size());
          for (std::size_t c = 0; c < sv.size(); ++c) {
            if (sv[c].is_null()) continue;
            const auto s = sv[c].get<std::size_t>();
            REQUIRE(s < demand.size());
            CHECK(demand[s]["profile"] == in["compute_instances"][c]["profile"]);
            here[s] += n;
          }
          continue;
        }
        CHECK(in["compute_instances"].is_null());
        const auto s = sv.get<std::size_t>();
        REQUIRE(s < demand.size());
        // A profile item is served by that very profile.
        if (demand[s].contains("profile")) CHECK(demand[s]["profile"] == in["profile"]);
        here[s] += n;
      }
    }
    CHECK(run_gpus == g["count"].get<long long>());
    std::map<std::size_t, long long> listed;
    for (const json& e : g["serves"])
      listed[e["item"].get<std::size_t>()] += e["instances"].get<long long>();
    CHECK(listed == here);
    for (const auto& [s, n] : here) served[s] += n;
  }
  // A re-plan's groups also hold the fleet's GPUs that serve nothing, which
  // gpu_count leaves out.
  if (doc.contains("changes"))
    CHECK(doc["gpu_count"].get<long long>() <= gpus);
  else
    CHECK(doc["gpu_count"].get<long long>() == gpus);
  // The groups and the unmet list account for the whole demand.
  std::map<std::size_t, long long> missing;
  for (const json& u : doc["unmet"])
    missing[u["item"].get<std::size_t>()] += u["missing"].get<long long>();
  for (std::size_t i = 0; i < demand.size(); ++i) {
    INFO("demand item " << i);
    CHECK(served[i] + missing[i] >= demand[i]["count"].get<long long>());
  }
  CHECK(doc["unmet"].empty() == (code == 0));
  // Node GPUs name groups that exist.
  if (doc.contains("nodes"))
    for (const json& n : doc["nodes"])
      for (const json& ng : n["gpus"])
        if (!ng["group"].is_null()) CHECK(ng["group"].get<std::size_t>() < groups.size());
  // The bound never above the cost, the gap what the docs say, optimal
  // exactly when it is 0, and a status that matches the exit code.
  const double cost = doc["cost"].get<double>(), bound = doc["lower_bound"].get<double>();
  CHECK(bound <= cost);
  CHECK(doc["gap"].get<double>() == Approx(cost > 0 ? (cost - bound) / cost : 0.0).margin(1e-9));
  const std::string status = doc["status"].get<std::string>();
  // A plan cut short before any plan was found proves nothing (optimal false)
  // and has a gap of 0 over its cost of 0.
  if (status == "timed_out" && cost == 0)
    CHECK(doc["optimal"] == false);
  else
    CHECK(doc["optimal"] == (doc["gap"].get<double>() == 0));
  if (code == 0)
    CHECK((status == "optimal" || status == "feasible"));
  else
    CHECK(status == (code == 1 ? "unmet" : "timed_out"));
  // A fresh plan's status is about its cost (a re-plan's about its changes).
  if (code == 0 && !doc.contains("changes"))
    CHECK((status == "optimal") == (doc["optimal"] == true));
  CHECK(doc.contains("suggested_time_limit") == (code == 3));
  // Cut short before a plan meeting the demand: the time limit was hit.
  if (status == "timed_out") CHECK(doc["time_limit_hit"] == true);
  return doc;
}

json checked_plan(const std::vector<std::string>& args, int code, std::string* raw = nullptr) {
  std::vector<std::string> all{"plan", "--json"};
  all.insert(all.end(), args.begin(), args.end());
  const auto r = run_migplan(all);
  if (raw != nullptr) *raw = r.out;
  return checked_plan_doc(r, code);
}

std::string temp_file(const std::string& text) {
  char name[] = "/tmp/migplan-plan-XXXXXX";
  const int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  std::ofstream(name) << text;
  return name;
}

}  // namespace

TEST_CASE("plan: option errors are one line with exit 2", "[plan][cli]") {
  expect_plan_bad({"--gpu", "h10-80gb", "1g.10gb"},
                  "unknown gpu 'h10-80gb' (did you mean h100-80gb?); 'migplan gpus' lists them");
  expect_plan_bad({"--gpu", "h100-80gb", "--available", "h100-80gb", "1g.10gb"},
                  "--available 'h100-80gb' is not MODEL=N (h100-80gb=16)");
  expect_plan_bad({"--gpu", "h100-80gb", "--available", "h100-80gb=-1", "1g.10gb"},
                  "--available h100-80gb -1 must be at least 0");
  expect_plan_bad({"--gpu", "h100-80gb", "--available", "h100-80gb=99999999", "1g.10gb"},
                  "--available h100-80gb 99999999 is too large (at most 10000000)");
  expect_plan_bad({"--gpu", "h100-80gb", "--available", "a100-40gb=3", "1g.10gb"},
                  "--available names a100-40gb, which is not a model of the fleet (h100-80gb)");
  expect_plan_bad({"--gpu", "h100-80gb", "--cost", "h100-80gb=abc", "1g.10gb"},
                  "--cost h100-80gb 'abc' is not a number");
  expect_plan_bad({"--gpu", "h100-80gb", "--cost", "h100-80gb=0", "1g.10gb"},
                  "--cost h100-80gb 0 must be more than 0 and at most 1000000000");
  expect_plan_bad({"--gpu", "h100-80gb", "--cost", "=2", "1g.10gb"},
                  "--cost '=2' is not MODEL=X (h100-80gb=2.5)");
  expect_plan_bad({"--gpu", "h100-80gb", "0x1g.10gb"}, "count 0 must be at least 1");
  expect_plan_bad({"--gpu", "h100-80gb", "99999999x1g.10gb"},
                  "count 99999999 is too large (at most 10000000)");
  expect_plan_bad(
      {"--gpu", "h100-80gb", "1g.10gb", "1g.10gb"},
      "demand item '1g.10gb' is given twice; add up the counts, or name them apart in a "
      "file");
  expect_plan_bad({"--gpu", "h100-80gb", "--time-limit", "0", "1g.10gb"},
                  "--time-limit 0 must be more than 0 and at most 3600");
  expect_plan_bad({"--gpu", "h100-80gb", "--time-limit", "3601", "1g.10gb"},
                  "--time-limit 3601 must be more than 0 and at most 3600");
  expect_plan_bad({"--gpu", "h100-80gb", "--time-limit", "soon", "1g.10gb"},
                  "--time-limit 'soon' is not a number");
  expect_plan_bad({"--gpu", "h100-80gb"},
                  "no demand: give ITEMs (300x1g.10gb, 20xmem=30GiB) or --demand FILE");
  expect_plan_bad({"1g.10gb"},
                  "no fleet: give --gpu MODEL (repeatable), --fleet FILE or --current FILE; try "
                  "'migplan plan --gpu h100-80gb 300x1g.10gb 80x3g.40gb'");
  expect_plan_bad({"--gpu", "h100-80gb", "--fleet", plan_fixture("fleet.yaml"), "1g.10gb"},
                  "give the fleet one way: --gpu MODEL..., --fleet FILE or --current FILE");
  expect_plan_bad(
      {"--gpu", "h100-80gb", "--mig-config", plan_fixture("kube-config.yaml"), "1g.10gb"},
      "--mig-config needs --current (kubectl's nodes)");
  expect_plan_bad({"--gpu", "h100-80gb", "--allow-evict", "1g.10gb"},
                  "--allow-evict needs --current");
  expect_plan_bad(
      {"--gpu", "h100-80gb", "--emit", "labels", "1g.10gb"},
      "--emit labels needs nodes: give a fleet file with nodes, or --current; nothing to "
      "emit");
  expect_plan_bad({"--gpu", "h100-80gb", "--emit", "mig-partd", "1g.10gb"},
                  "unknown --emit kind 'mig-partd' (did you mean mig-parted?); kinds: mig-parted, "
                  "configmap, labels, slurm");
  expect_plan_bad({"--gpu", "h100-80gb", "--emit", "mig-parted", "--json", "1g.10gb"},
                  "--emit writes its own format; it does not combine with --json");
  expect_plan_bad({"--gpu", "h100-80gb", "--configmap-name", "x", "1g.10gb"},
                  "--configmap-name needs --emit configmap");
  expect_plan_bad(
      {"--gpu", "h100-80gb", "--emit", "configmap", "--configmap-name", "Bad_Name", "1g.10gb"},
      "--configmap-name 'Bad_Name' is not a DNS subdomain (parts between dots of lowercase "
      "letters, digits and '-', each starting and ending with a letter or digit; at most 253 "
      "characters)");
  // Each part between dots is a DNS label: Kubernetes refuses these two.
  for (const char* name : {"a..b", "a.-b", "a-.b", ".a"})
    expect_plan_bad(
        {"--gpu", "h100-80gb", "--emit", "configmap", "--configmap-name", name, "1g.10gb"},
        fmt::format("--configmap-name '{}' is not a DNS subdomain (parts between dots of "
                    "lowercase letters, digits and '-', each starting and ending with a letter "
                    "or digit; at most 253 characters)",
                    name));
  expect_plan_bad({"--gpu", "h100-80gb", "--demand", plan_fixture("bad-demand.yaml")},
                  plan_fixture("bad-demand.yaml") + ":7: count 0 must be at least 1");
  const auto missing = run_migplan({"plan", "--gpu", "h100-80gb", "--demand", "no-such-file.yaml"});
  CHECK(missing.code == 2);
  CHECK(missing.err == "migplan: cannot read 'no-such-file.yaml': No such file or directory\n");
}

TEST_CASE("plan: a malformed fleet file is FILE:LINE, exit 2", "[plan][cli]") {
  const std::string path =
      temp_file("version: 1\nnodes:\n  - name: a\n    gpu: h100-80gbb\n    gpus: 8\n");
  const auto r = run_migplan({"plan", "--fleet", path, "1g.10gb"});
  std::remove(path.c_str());
  CHECK(r.code == 2);
  CHECK(r.err.starts_with("migplan: " + path + ":4: "));
  CHECK(r.err.find("did you mean h100-80gb") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("plan: --help lists every option", "[plan][cli]") {
  const auto r = run_migplan({"plan", "--help"});
  CHECK(r.code == 0);
  for (const char* opt :
       {"--demand", "--gpu", "--available", "--cost", "--fleet", "--current", "--mig-config",
        "--allow-evict", "--time-limit", "--json", "--emit", "--configmap-name", "--gpu-file"})
    CHECK(r.out.find(opt) != std::string::npos);
}

TEST_CASE("plan: simple facts any correct solver gives", "[plan][cli]") {
  CHECK(checked_plan({"--gpu", "h100-80gb", "7x1g.10gb"}, 0)["gpu_count"] == 1);
  CHECK(checked_plan({"--gpu", "h100-80gb", "8x1g.10gb"}, 0)["gpu_count"] == 2);
  CHECK(checked_plan({"--gpu", "h100-80gb", "2x7g.80gb"}, 0)["gpu_count"] == 2);
  const json doc = checked_plan({"--gpu", "h100-80gb", "7x1g.10gb"}, 0);
  CHECK(doc["demand"] == json::parse(R"([{"name":"1g.10gb","count":7,"profile":"1g.10gb"}])"));
  CHECK_FALSE(doc.contains("changes"));
  CHECK_FALSE(doc.contains("nodes"));
}

TEST_CASE("plan: the profiles a plan uses with inferred values are noted, per model",
          "[plan][cli]") {
  // From the catalog: one model's profile with inferred values, one whose
  // values are all captured, each planned alone and then together.
  // Neither profile is a profile of the other model, so that each item has
  // one model to go on.
  const auto has = [](const migplan::gpu_model& g, std::string_view name) {
    return std::any_of(g.profiles.begin(), g.profiles.end(),
                       [&](const migplan::profile& p) { return p.name == name; });
  };
  const migplan::gpu_model* guessed = nullptr;
  const migplan::gpu_model* captured = nullptr;
  std::string guess, known;
  for (const migplan::gpu_model& c : migplan::catalog()) {
    if (std::any_of(c.profiles.begin(), c.profiles.end(),
                    [](const migplan::profile& p) { return p.inferred(); }))
      continue;
    for (const migplan::gpu_model& g : migplan::catalog())
      for (const migplan::profile& p : g.profiles)
        if (guessed == nullptr && p.inferred() && !has(c, p.name))
          for (const migplan::profile& k : c.profiles)
            if (guessed == nullptr && !has(g, k.name))
              guessed = &g, guess = std::string(p.name), captured = &c, known = std::string(k.name);
    if (guessed != nullptr) break;
  }
  REQUIRE(guessed != nullptr);
  REQUIRE(captured != nullptr);
  const std::string gs(guessed->slug), cs(captured->slug);
  INFO(gs << " " << guess << ", " << cs << " " << known);
  const std::string note = "\nnote: " + guess + " on " + gs +
                           " has values inferred by analogy, not captured; 'migplan profiles "
                           "--gpu " +
                           gs + "' shows which\n";
  const auto one = run_migplan({"plan", "--gpu", gs, "2x" + guess});
  CHECK(one.code == 0);
  CHECK(one.out.ends_with(note));
  const json doc = checked_plan({"--gpu", gs, "2x" + guess}, 0);
  REQUIRE(doc["inferred"].size() == 1);
  CHECK(doc["inferred"][0]["gpu"] == gs);
  CHECK(doc["inferred"][0]["profile"] == guess);
  CHECK_FALSE(doc["inferred"][0]["fields"].empty());
  const auto none = run_migplan({"plan", "--gpu", cs, known});
  CHECK(none.out.find("inferred") == std::string::npos);
  CHECK(checked_plan({"--gpu", cs, known}, 0)["inferred"] == json::array());
  // On a fleet of both, only the model whose instances rest on inferred values.
  const json both = checked_plan({"--gpu", cs, "--gpu", gs, known, guess}, 0);
  REQUIRE(both["inferred"].size() == 1);
  CHECK(both["inferred"][0]["gpu"] == gs);
  // The configs --emit writes say so in a comment, for that model alone.
  for (const char* kind : {"mig-parted", "configmap"}) {
    INFO(kind);
    const auto config =
        run_migplan({"plan", "--gpu", cs, "--gpu", gs, "--emit", kind, known, guess});
    CHECK(config.code == 0);
    const std::string text = migplan::test::unwrapped(config.out);
    CHECK(text.find("Values inferred by analogy, not captured: " + guess + " (") !=
          std::string::npos);
    CHECK(text.find(") on " + gs + "; 'migplan profiles --gpu " + gs + "'") != std::string::npos);
    CHECK(text.find(" on " + cs + "; 'migplan profiles") == std::string::npos);
  }
}

TEST_CASE("plan: plans are legal and cover the demand", "[plan][cli]") {
  checked_plan({"--gpu", "h100-80gb", "8x1g.10gb", "2x3g.40gb", "3xmem=30GiB"}, 0);
  checked_plan({"--gpu", "h100-80gb", "--gpu", "a100-40gb", "--cost", "h100-80gb=2.5", "4x3g.40gb",
                "2x2g.10gb"},
               0);
  checked_plan({"--gpu", "h100-80gb", "--demand", plan_fixture("demand-memory.csv")}, 0);
  // 30GiB fits on no a30 profile: unmet, exit 1.
  checked_plan({"--gpu", "a30", "--demand", plan_fixture("demand-memory.csv")}, 1);
  const json fleet = checked_plan({"--fleet", plan_fixture("fleet.yaml"), "10x1g.10gb"}, 0);
  REQUIRE(fleet.contains("nodes"));
  CHECK(fleet["nodes"].size() == 3);
  // Read from standard input too.
  const auto r = run_migplan({"plan", "--json", "--gpu", "h100-80gb", "--demand", "-"},
                             "version: 1\ndemand:\n  - count: 3\n    profile: 3g.40gb\n");
  CHECK(r.code == 0);
  CHECK(json::parse(r.out)["gpu_count"] == 2);
}

TEST_CASE("plan: compute-instance items share GPU instances, and the config names CIs",
          "[plan][cli]") {
  // 6 x 1c + 1 x 2c fill three 3g.20gb GIs (a 3g GI holds 1c+1c+1c or 2c+1c); with
  // two 1g.5gb that is two A100-40GB.
  const std::vector<std::string> args{"--gpu", "a100-40gb", "6x1c.3g.20gb", "2x1g.5gb",
                                      "1x2c.3g.20gb"};
  const json doc = checked_plan(args, 0);
  CHECK(doc["gpu_count"] == 2);
  CHECK(doc["optimal"] == true);
  std::vector<std::string> all{"plan", "--emit", "mig-parted"};
  all.insert(all.end(), args.begin(), args.end());
  const auto r = run_migplan(all);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\"1c.3g.20gb\": ") != std::string::npos);
  const std::string path = temp_file(r.out);
  const auto check = run_migplan({"check", "--strict", path});
  std::remove(path.c_str());
  INFO(r.out << check.out);
  CHECK(check.code == 0);
  // A CI profile no model's GI offers is bad input, with what the GI offers.
  expect_plan_bad({"--gpu", "a100-40gb", "3c.4g.20gb"},
                  "unknown compute-instance profile '3c.4g.20gb': 4g.20gb offers 1c.4g.20gb, "
                  "2c.4g.20gb, 4g.20gb");
}

TEST_CASE("plan: unmet demand on a limited fleet exits 1 with the plan and the shortfall",
          "[plan][cli]") {
  const json doc =
      checked_plan({"--gpu", "h100-80gb", "--available", "h100-80gb=1", "8x1g.10gb"}, 1);
  REQUIRE(doc["unmet"].size() == 1);
  CHECK(doc["unmet"][0]["name"] == "1g.10gb");
  CHECK(doc["unmet"][0]["missing"] == 1);
  CHECK(doc["unmet"][0]["no_model"] == false);  // the limit, not the model, falls short
  const auto text =
      run_migplan({"plan", "--gpu", "h100-80gb", "--available", "h100-80gb=1", "8x1g.10gb"});
  CHECK(text.code == 1);
  CHECK(text.out.find("1g.10gb: 1 of 8 instances missing: more than the fleet holds (GPUs used "
                      "of those allowed: h100-80gb 1 of 1)\n") != std::string::npos);
  // In a re-plan, instances in use that stay are named with the option that moves them.
  const std::string state =
      "version: 1\n"
      "nodes:\n"
      "  - name: a\n"
      "    gpu: h100-80gb\n"
      "    gpus: [{index: 0, instances: [{profile: 1g.10gb, start: 0, in_use: true}]}]\n";
  const auto kept = run_migplan({"plan", "--current", "-", "7g.80gb"}, state);
  CHECK(kept.code == 1);
  CHECK(kept.out.find("  7g.80gb: 1 of 1 instance missing: more than the fleet's 1 GPU holds; "
                      "instances in use stay where they are (--allow-evict lets the plan move "
                      "them)\n") != std::string::npos);
  const auto evict = run_migplan({"plan", "--current", "-", "--allow-evict", "7g.80gb"}, state);
  CHECK(evict.code == 0);
  // --emit refuses a plan that does not meet the demand: exit 1, nothing on stdout.
  const auto emit = run_migplan({"plan", "--gpu", "h100-80gb", "--available", "h100-80gb=1",
                                 "--emit", "mig-parted", "8x1g.10gb"});
  CHECK(emit.code == 1);
  CHECK(emit.out.empty());
  CHECK(emit.err ==
        "migplan: the plan does not meet the demand: 1 item of it falls short (without --emit "
        "the report says which, and why); nothing to emit\n");
}

TEST_CASE("plan: demand no model of the fleet serves is unmet with the reason per model",
          "[plan][cli]") {
  // A profile a30 lacks, a memory need no profile meets, and compute instances
  // of a GPU instance whose CI profiles no source lists (h100-80gb's 3g.40gb).
  const std::vector<std::string> demand{"4x1g.6gb", "3x1g.10gb", "2xmem=100GiB", "5x1c.3g.40gb"};
  std::vector<std::string> args{"--gpu", "a30", "--gpu", "h100-80gb"};
  args.insert(args.end(), demand.begin(), demand.end());
  const json doc = checked_plan(args, 1);
  REQUIRE(doc["unmet"].size() == 2);
  CHECK(doc["unmet"][0]["name"] == "mem=100GiB");
  CHECK(doc["unmet"][0]["missing"] == 2);
  CHECK(doc["unmet"][0]["no_model"] == true);
  CHECK(doc["unmet"][1]["name"] == "1c.3g.40gb");
  CHECK(doc["unmet"][1]["no_model"] == true);
  std::vector<std::string> text_args{"plan"};
  text_args.insert(text_args.end(), args.begin(), args.end());
  const auto text = run_migplan(text_args);
  CHECK(text.code == 1);
  CHECK(text.out.find("  mem=100GiB: 2 of 2 instances missing: no model of the fleet serves it: "
                      "no profile of a30 or h100-80gb has 100 GiB\n") != std::string::npos);
  CHECK(text.out.find("  1c.3g.40gb: 5 of 5 instances missing: no model of the fleet serves it: "
                      "a30 has no 3g.40gb; CI profiles unknown for 3g.40gb on h100-80gb (no "
                      "capture or document lists them)\n") != std::string::npos);
  // One model, a profile it lacks but another model has.
  const auto one = run_migplan({"plan", "--gpu", "a30", "10x1g.10gb"});
  CHECK(one.code == 1);
  CHECK(one.out.find("  1g.10gb: 10 of 10 instances missing: no model of the fleet serves it: "
                     "a30 has no 1g.10gb\n") != std::string::npos);
}

TEST_CASE("plan: the LP bound at tiny costs is printed, not rounded to 0", "[plan][cli]") {
  // 100 one-slice instances on 7-slice GPUs: the LP relaxation is 100/7 GPUs,
  // each costing 1e-9.
  const std::vector<std::string> args{"--gpu", "h100-80gb", "--cost", "h100-80gb=1e-9",
                                      "100x1g.10gb"};
  const json doc = checked_plan(args, 0);
  CHECK(doc["lp_bound"].get<double>() == Approx(100.0 / 7 * 1e-9).epsilon(1e-6));
  std::vector<std::string> text_args{"plan"};
  text_args.insert(text_args.end(), args.begin(), args.end());
  const auto text = run_migplan(text_args);
  CHECK(text.out.find("(LP relaxation 0.0000000143)\n") != std::string::npos);
  // Whole numbers stay whole, and an LP bound of 14.2857 GPUs keeps two decimals.
  const auto gpus = run_migplan({"plan", "--gpu", "h100-80gb", "100x1g.10gb"});
  CHECK(gpus.out.find("(LP relaxation 14.29)\n") != std::string::npos);
}

TEST_CASE("plan: two models at different costs are proven in whole GPUs", "[plan][cli]") {
  // 1,109 compute slices need 159 GPUs of 7, and 159 cost at least 159 x 0.6:
  // the LP relaxation (95.06) alone proves only 95.2.
  const std::vector<std::string> args{"--gpu",        "h100-80gb", "--gpu",
                                      "a100-80gb",    "--cost",    "a100-80gb=0.6",
                                      "1000x1g.10gb", "5x7g.80gb", "37x2g.20gb"};
  const json doc = checked_plan(args, 0);
  CHECK(doc["status"] == "optimal");
  CHECK(doc["cost"].get<double>() == Approx(95.4));
  CHECK(doc["lower_bound"].get<double>() == Approx(95.4));
  CHECK(doc["lp_bound"].get<double>() < 95.2);
  CHECK(doc["time_limit_hit"] == false);
  std::vector<std::string> text_args{"plan"};
  text_args.insert(text_args.end(), args.begin(), args.end());
  const auto text = run_migplan(text_args);
  CHECK(text.code == 0);
  CHECK(text.out.find("lower bound cost 95.4: proven optimal") != std::string::npos);
}

TEST_CASE("plan: any positive cost plans as cost 1, and totals print as typed",
          "[plan][cli][exhaustive]") {
  const long long gpus = checked_plan({"--gpu", "h100-80gb", "100x1g.10gb"}, 0)["gpu_count"];
  for (const std::string cost : {"1e-9", "1e-7", "1e-6", "75597.3"}) {
    INFO("cost " << cost);
    const json doc =
        checked_plan({"--gpu", "h100-80gb", "--cost", "h100-80gb=" + cost, "100x1g.10gb"}, 0);
    CHECK(doc["gpu_count"] == gpus);
    CHECK(doc["optimal"] == true);
    CHECK(doc["status"] == "optimal");
  }
  // 15 GPUs at 75597.3: 1133959.5 in the text and the JSON, not 1133959.4999999998.
  const auto text =
      run_migplan({"plan", "--gpu", "h100-80gb", "--cost", "h100-80gb=75597.3", "100x1g.10gb"});
  REQUIRE(text.code == 0);
  CHECK(
      text.out.starts_with("plan: 15 gpus (h100-80gb x15), cost 1133959.5\n"
                           "lower bound cost 1133959.5: proven optimal"));
  const auto js = run_migplan(
      {"plan", "--json", "--gpu", "h100-80gb", "--cost", "h100-80gb=75597.3", "100x1g.10gb"});
  CHECK(js.out.find("\"cost\": 1133959.5,") != std::string::npos);
  // Costs that differ by more than six digits cannot be whole units of one unit.
  expect_plan_bad(
      {"--gpu", "h100-80gb", "--gpu", "a100-80gb", "--cost", "h100-80gb=1e-9", "7x1g.10gb"},
      "the costs h100-80gb=1e-09, a100-80gb=1 need more than 6 digits together: as whole "
      "multiples of one unit the largest would be more than 1000000 units; give them to "
      "fewer digits");
}

TEST_CASE("plan: a re-plan cut short by --time-limit exits 3, not 1, and says how long to try",
          "[plan][cli]") {
  // 200 H100s in random layouts, a third of their instances in use, and a
  // demand they can hold after many changes, which a short search misses.
  const migplan::gpu_model* h = migplan::find_model("h100-80gb");
  REQUIRE(h != nullptr);
  const auto set = migplan::enumerate(*h);
  std::mt19937 rng(7);
  std::string state = "version: 1\nnodes:\n";
  for (int n = 0; n < 25; ++n) {
    state += "  - name: node-" + std::to_string(n) + "\n    gpu: h100-80gb\n    gpus:\n";
    for (int i = 0; i < 8; ++i) {
      const auto& g = set.geometries[std::uniform_int_distribution<std::size_t>(
          0, set.geometries.size() - 1)(rng)];
      state += "      - {index: " + std::to_string(i) + ", instances: [";
      bool first = true;
      for (std::size_t p = 0; p < h->profiles.size(); ++p)
        for (int k = 0; k < g.counts[static_cast<int>(p)]; ++k) {
          state += std::string(first ? "" : ", ") +
                   "{profile: " + std::string(h->profiles[p].name) +
                   (std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? ", in_use: true}" : "}");
          first = false;
        }
      state += "]}\n";
    }
  }
  const std::string path = temp_file(state);
  const std::vector<std::string> demand{"400x1g.10gb", "50x3g.40gb", "12x7g.80gb"};
  // The time limit runs out before the first search ends, on every machine
  // (MIGPLAN_TEST_SEARCHES_IN_TIME; 0.01 s did on slow ones only), so the
  // cut-short answer is always checked.
  const auto cut = [&](bool as_json) {
    std::vector<std::string> args{"plan", "--current", path, "--time-limit", "0.5"};
    if (as_json) args.emplace_back("--json");
    args.insert(args.end(), demand.begin(), demand.end());
    return run_migplan(args, "", {"MIGPLAN_TEST_SEARCHES_IN_TIME=0"});
  };
  const auto text = cut(false);
  INFO(text.out << text.err);
  CHECK(text.code == 3);
  CHECK(text.out.starts_with("incomplete plan: "));
  CHECK(text.out.find("\nnot met within the time limit:\n") != std::string::npos);
  CHECK(text.out.find("try --time-limit 10\n") != std::string::npos);
  CHECK(text.out.find("unmet demand") == std::string::npos);
  const auto js = cut(true);
  const json doc = checked_plan_doc(js, 3);
  CHECK(doc["status"] == "timed_out");
  CHECK(doc["suggested_time_limit"] == 10);
  // plan_tests checks that without the limit the same demand is met.
  std::remove(path.c_str());
}

TEST_CASE("plan: a re-plan lists its changes", "[plan][cli]") {
  const json doc =
      checked_plan({"--current", plan_fixture("replan-h100.yaml"), "49x1g.10gb", "2x3g.40gb"}, 0);
  REQUIRE(doc.contains("changes"));
  REQUIRE(doc.contains("nodes"));
  // Eight H100s of 7x1g.10gb; 49 x 1g.10gb and 2 x 3g.40gb: exactly one GPU changes,
  // and no plan changes fewer (the bound is proven).
  CHECK(doc["changes"].size() == 1);
  CHECK(doc["changes_lower_bound"] == 1);
  CHECK(doc["status"] == "optimal");  // the changes are proven fewest
  std::set<std::pair<std::string, int>> gpus;
  for (const json& n : doc["nodes"])
    for (const json& g : n["gpus"])
      gpus.insert({n["name"].get<std::string>(), g["index"].get<int>()});
  for (const json& c : doc["changes"])
    CHECK(gpus.count({c["node"].get<std::string>(), c["index"].get<int>()}) == 1);
  // Nothing is marked in use, so nothing is evicted.
  for (const json& c : doc["changes"]) CHECK(c["evicted"].empty());
  // kubectl's nodes with their mig-parted config: notes on stderr, a plan on stdout.
  const auto kube = run_migplan({"plan", "--json", "--current", plan_fixture("kube-nodes.json"),
                                 "--mig-config", plan_fixture("kube-config.yaml"), "1g.10gb"});
  CHECK((kube.code == 0 || kube.code == 1));
  CHECK(json::parse(kube.out).contains("changes"));
  std::istringstream notes(kube.err);
  for (std::string line; std::getline(notes, line);) CHECK(line.starts_with("migplan: note: "));
}

TEST_CASE("plan: --emit mig-parted passes migplan check --strict", "[plan][cli]") {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--gpu", "h100-80gb", "8x1g.10gb", "2x3g.40gb"},
        std::vector<std::string>{"--fleet", plan_fixture("fleet.yaml"), "10x1g.10gb", "3x3g.40gb"},
        std::vector<std::string>{"--current", plan_fixture("replan-h100.yaml"), "49x1g.10gb",
                                 "2x3g.40gb"}}) {
    std::vector<std::string> all{"plan", "--emit", "mig-parted"};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = run_migplan(all);
    REQUIRE(r.code == 0);
    const std::string path = temp_file(r.out);
    const auto check = run_migplan({"check", "--strict", path});
    std::remove(path.c_str());
    INFO(r.out << check.out);
    CHECK(check.code == 0);
  }
  const auto cm = run_migplan({"plan", "--emit", "configmap", "--configmap-name", "my-mig", "--gpu",
                               "h100-80gb", "8x1g.10gb"});
  CHECK(cm.code == 0);
  CHECK(cm.out.find("name: my-mig") != std::string::npos);
}

TEST_CASE("plan: --emit labels names only nodes that change", "[plan][cli]") {
  // Both nodes carry a label; a node none of whose GPUs changes keeps it.
  const std::vector<std::string> args{"--current", plan_fixture("replan-h100.yaml"), "49x1g.10gb",
                                      "2x3g.40gb"};
  std::vector<std::string> as_json{"plan", "--json"};
  as_json.insert(as_json.end(), args.begin(), args.end());
  const auto j = run_migplan(as_json);
  REQUIRE(j.code == 0);
  std::set<std::string> changed;
  const json doc = json::parse(j.out);
  for (const json& c : doc["changes"]) changed.insert(c["node"].get<std::string>());
  CHECK(changed.size() < 2);  // one GPU of one node must change: node-a keeps its label
  std::vector<std::string> as_labels{"plan", "--emit", "labels"};
  as_labels.insert(as_labels.end(), args.begin(), args.end());
  const auto l = run_migplan(as_labels);
  REQUIRE(l.code == 0);
  std::istringstream lines(l.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    REQUIRE(line.starts_with("kubectl label node "));
    const std::string node = line.substr(19, line.find(' ', 19) - 19);
    INFO(line);
    CHECK(changed.count(node) == 1);
  }
}

namespace {

// Lines of a text, and the lines that start with `prefix`.
std::vector<std::string> lines_of(const std::string& text, const std::string& prefix = "") {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(prefix)) out.push_back(line);
  return out;
}

// A demand file of `n` named items over the profiles of `profiles`, counts 1
// to 4 from a fixed generator.
std::string generated_demand(int n, const std::vector<std::string>& profiles) {
  std::string csv = "name,count,profile\n";
  unsigned x = 19;
  for (int i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    csv += fmt::format("svc-{:04},{},{}\n", i, 1 + (x >> 16) % 4,
                       profiles[static_cast<std::size_t>(i) % profiles.size()]);
  }
  return temp_file(csv);
}

}  // namespace

TEST_CASE("plan: 7,000 named items over 5 profiles read as one block per geometry",
          "[plan][cli][report]") {
  const std::string demand =
      generated_demand(7000, {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "7g.80gb"});
  const std::vector<std::string> args{"--gpu", "h100-80gb", "--demand", demand};
  // Three solves of a large mix: the JSON (checked, and its text kept for the
  // sizes below), the text, and the text with --full.
  std::string raw;
  const json doc = checked_plan(args, 0, &raw);
  std::vector<std::string> text_args{"plan"};
  text_args.insert(text_args.end(), args.begin(), args.end());
  const auto text = run_migplan(text_args);
  text_args.push_back("--full");
  const auto full = run_migplan(text_args);
  std::remove(demand.c_str());
  REQUIRE(text.code == 0);
  INFO(text.out);
  // A screenful: under 80 lines, one block per distinct geometry, whose GPUs
  // sum to the plan's count. Every objective is proven (the most room and
  // the fewest geometries too, which took the stages' whole share of the
  // time limit, 30 s, when the held rows had half a unit of slack: doc/plan.md
  // "Lexicographic stages"), so the three runs give the same geometries.
  CHECK(doc["later_objectives_optimal"] == true);
  CHECK(text.out.find("not proven") == std::string::npos);
  CHECK(lines_of(text.out).size() < 80);
  const std::vector<std::string> blocks = lines_of(text.out, "geometry ");
  CHECK(blocks.size() < 20);
  std::set<std::string> shapes;
  long long gpus = 0;
  for (const std::string& b : blocks) {
    // "geometry 2: h100-80gb on 2 gpus: 1g.10gb, 2g.20gb, 3g.40gb"
    const std::size_t on = b.find(" on ");
    REQUIRE(on != std::string::npos);
    const std::size_t colon = b.find(": ", on);
    REQUIRE(colon != std::string::npos);
    gpus += std::stoll(b.substr(on + 4));  // "2 gpus: ...": the number, up to the space
    shapes.insert(b.substr(colon + 2));
  }
  CHECK(shapes.size() == blocks.size());
  CHECK(gpus == doc["gpu_count"].get<long long>());
  CHECK(doc["groups"].size() == blocks.size());
  CHECK(lines_of(full.out, "geometry ") == blocks);
  // The items past the first ten are behind --full, which names every item.
  CHECK(text.out.find("more (--full lists them)") != std::string::npos);
  for (const json& d : doc["demand"]) {
    INFO(d["name"]);
    CHECK(full.out.find(" " + d["name"].get<std::string>() + " x") != std::string::npos);
  }
  // In the JSON the groups, assignment and all, take less room than the echo
  // of the demand.
  const std::size_t at_demand = raw.find("\n  \"demand\": ");
  const std::size_t at_groups = raw.find("\n  \"groups\": ");
  const std::size_t at_stranded = raw.find("\n  \"stranded\": ");
  REQUIRE(at_demand < at_groups);
  REQUIRE(at_groups < at_stranded);
  INFO("demand " << at_groups - at_demand << " bytes, groups " << at_stranded - at_groups);
  CHECK(at_stranded - at_groups < at_groups - at_demand);
}

TEST_CASE("plan: nodes alike are one line, their names and GPUs as ranges", "[plan][cli][report]") {
  // 42 whole-GPU items on 42 GPUs: every GPU gets the one geometry.
  std::string fleet = "version: 1\nnodes:\n";
  for (const int i : {0, 1, 2, 3, 5})
    fleet += fmt::format("  - {{name: gpu-a{}, gpu: h100-80gb, gpus: 8}}\n", i);
  fleet += "  - {name: login, gpu: h100-80gb, gpus: 2}\n";
  const std::string path = temp_file(fleet);
  const auto r = run_migplan({"plan", "--fleet", path, "42x7g.80gb"});
  std::remove(path.c_str());
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const auto nodes = r.out.substr(r.out.find("\nnodes:\n") + 8);
  CHECK(
      nodes.starts_with("  gpu-a[0-3,5]  gpu 0-7: geometry 1\n"
                        "  login  gpu 0-1: geometry 1\n\n"));
}

TEST_CASE("plan: a re-plan lists changes alike on one line", "[plan][cli][report]") {
  // Eight GPUs of seven 1g.10gb on four nodes; eight whole GPUs: every GPU changes.
  std::string state = "version: 1\nnodes:\n";
  for (int n = 1; n <= 4; ++n) {
    state += fmt::format("  - name: n{}\n    gpu: h100-80gb\n    gpus:\n", n);
    for (int i = 0; i < 2; ++i)
      state += fmt::format("      - {{index: {}, instances: [{}]}}\n", i,
                           "{profile: 1g.10gb}, {profile: 1g.10gb}, {profile: 1g.10gb}, "
                           "{profile: 1g.10gb}, {profile: 1g.10gb}, {profile: 1g.10gb}, "
                           "{profile: 1g.10gb}");
  }
  const std::string path = temp_file(state);
  const auto r = run_migplan({"plan", "--current", path, "8x7g.80gb"});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\n  n[1-4] gpu 0-1: 7x1g.10gb -> geometry 1; destroys 7 instances each\n") !=
        std::string::npos);
  const json doc = checked_plan({"--current", path, "8x7g.80gb"}, 0);
  std::remove(path.c_str());
  CHECK(doc["changes"].size() == 8);
}

TEST_CASE("plan: an in-use instance the demand does not name is kept, not spare",
          "[plan][cli][report]") {
  const std::string path = temp_file(
      "version: 1\nnodes:\n  - name: n1\n    gpu: h100-80gb\n    gpus:\n"
      "      - {index: 0, instances: [{profile: 1g.10gb, start: 0}, {profile: 1g.10gb, start: 1},"
      " {profile: 1g.10gb, start: 2}, {profile: 1g.10gb, start: 3}, {profile: 1g.10gb, start: 4},"
      " {profile: 1g.10gb, start: 5}, {profile: 1g.10gb, start: 6, in_use: true}]}\n");
  const auto r = run_migplan({"plan", "--current", path, "6x1g.10gb"});
  const auto spare = run_migplan({"plan", "--current", path, "5x1g.10gb"});
  std::remove(path.c_str());
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  // Nothing changes; the seventh instance serves no item and runs a workload.
  CHECK(r.out.find("  F 1g.10gb        start 5  serves 1g.10gb\n") != std::string::npos);
  CHECK(r.out.find("  G 1g.10gb        start 6  in use, kept\n") != std::string::npos);
  // With one item fewer the sixth is free: spare.
  CHECK(spare.out.find("  F 1g.10gb        start 5  spare\n") != std::string::npos);
  CHECK(spare.out.find("  G 1g.10gb        start 6  in use, kept\n") != std::string::npos);
}

TEST_CASE("plan: past 20 lines of nodes the report says how many more, --full lists them",
          "[plan][cli][report]") {
  // Node k has k GPUs, so no two nodes share a line; 325 whole-GPU items use them all.
  std::string fleet = "version: 1\nnodes:\n";
  for (int k = 1; k <= 25; ++k)
    fleet += fmt::format("  - {{name: n{}, gpu: h100-80gb, gpus: {}}}\n", k, k);
  const std::string path = temp_file(fleet);
  const auto r = run_migplan({"plan", "--fleet", path, "325x7g.80gb"});
  const auto full = run_migplan({"plan", "--full", "--fleet", path, "325x7g.80gb"});
  std::remove(path.c_str());
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(lines_of(r.out, "  n").size() == 20);
  CHECK(r.out.find("\n  ... 5 more lines of nodes (--full lists them)\n") != std::string::npos);
  CHECK(lines_of(full.out, "  n").size() == 25);
  CHECK(full.out.find("  n25  gpu 0-24: geometry 1\n") != std::string::npos);
  CHECK(full.out.find("more lines") == std::string::npos);
}

TEST_CASE("plan: a re-plan's headline says how many of the fleet's GPUs serve the demand",
          "[plan][cli]") {
  // Eight H100s of seven 1g.10gb: one serves a 1g.10gb, and the fleet keeps
  // all eight, which the geometry's "on 8 gpus" lists.
  const auto r = run_migplan({"plan", "--current", plan_fixture("replan-h100.yaml"), "1g.10gb"});
  REQUIRE(r.code == 0);
  const json j = json::parse(
      run_migplan({"plan", "--json", "--current", plan_fixture("replan-h100.yaml"), "1g.10gb"})
          .out);
  REQUIRE(j["gpu_count"] == 1);
  CHECK(r.out.starts_with("plan: 1 gpu (h100-80gb x1) serves the demand, of 8 in the fleet\n"));
  CHECK(r.out.find("h100-80gb on 8 gpus") != std::string::npos);
}

TEST_CASE("plan: --plot refuses stdout and a path it cannot write", "[plan][cli][plot]") {
  expect_plan_bad({"--gpu", "h100-80gb", "--plot", "-", "1g.10gb"},
                  "--plot writes a file, not stdout ('-'): stdout has the report");
  expect_plan_bad({"--gpu", "h100-80gb", "--plot", "/no/such/dir/p.svg", "1g.10gb"},
                  "cannot write --plot '/no/such/dir/p.svg': No such file or directory");
}

TEST_CASE("plan: --plot writes the SVG beside an unchanged --json", "[plan][cli][plot]") {
  const std::string svg = temp_file("");
  const std::vector<std::string> args{
      "plan", "--json", "--current", plan_fixture("fleet-now.yaml"), "60x1g.10gb", "4x3g.40gb"};
  const auto plain = run_migplan(args);
  std::vector<std::string> with_plot = args;
  with_plot.insert(with_plot.begin() + 1, {"--plot", svg});
  const auto plotted = run_migplan(with_plot);
  std::ifstream in(svg, std::ios::binary);
  const std::string picture{std::istreambuf_iterator<char>(in), {}};
  std::remove(svg.c_str());
  REQUIRE(plain.code == 0);
  REQUIRE(plotted.code == 0);
  json a = json::parse(plain.out), b = json::parse(plotted.out);
  a.erase("seconds");
  b.erase("seconds");
  CHECK(a == b);
  CHECK(picture.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
  CHECK(picture.ends_with("</svg>\n"));
  // The two GPUs that change, outlined, and the one kind of change.
  CHECK(picture.find("data-changed=\"1\" data-from=\"0\"") != std::string::npos);
  CHECK(picture.find("<g class=\"change\" data-from=\"0\" data-to=\"1\" data-gpus=\"2\">") !=
        std::string::npos);
}

TEST_CASE("plan --emit mig-parted filters by every PCI ID of the model, as pack does",
          "[plan][cli][emit][mig-parted]") {
  // mig-parted applies an entry only to the GPUs whose ID its device-filter
  // names and leaves the others as they are (cmd/nvidia-mig-parted/apply,
  // WalkSelectedMigConfigForEachGPU), so an ID left out leaves a GPU of the
  // model unconfigured. Before, plan dropped the inferred IDs where one was
  // seen: a GPU of ID 0x232410DE (which NVIDIA's own config-default.yaml
  // lists in its H100-80GB and H800-80GB entries, beside 0x233010DE)
  // labelled with plan's config kept its old layout.
  const auto filters = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (const auto at = line.find("device-filter: "); at != std::string::npos)
        out.push_back(line.substr(at));
    return out;
  };
  const std::string nvidia =
      migplan::test::read_file(test_path("fixtures/mig-parted/config-default.yaml"));
  REQUIRE(nvidia.find("\"0x233010DE\"") != std::string::npos);
  REQUIRE(nvidia.find("\"0x232410DE\"") != std::string::npos);
  int mixed = 0;
  for (const migplan::gpu_model& g : migplan::catalog()) {
    const bool seen = std::any_of(g.pci_ids.begin(), g.pci_ids.end(),
                                  [](const migplan::pci_id& id) { return !id.inferred; });
    const bool inferred = std::any_of(g.pci_ids.begin(), g.pci_ids.end(),
                                      [](const migplan::pci_id& id) { return id.inferred; });
    if (!seen || !inferred) continue;
    ++mixed;
    INFO(g.slug);
    const std::string p(g.profiles.back().name);
    const auto plan = run_migplan(
        {"plan", "--gpu", std::string(g.slug), "--emit", "mig-parted", "--time-limit", "10", p});
    const auto pack =
        run_migplan({"pack", "--gpu", std::string(g.slug), "--emit", "mig-parted", p});
    REQUIRE(plan.code == 0);
    REQUIRE(pack.code == 0);
    const std::vector<std::string> planned = filters(plan.out);
    REQUIRE(planned.size() == 1);
    CHECK(planned == filters(pack.out));
    for (const migplan::pci_id& id : g.pci_ids)
      CHECK(planned[0].find(fmt::format("\"0x{:08X}\"", id.value)) != std::string::npos);
    CHECK(plan.out.find(" by inference (no capture shows it)") != std::string::npos);
  }
  CHECK(mixed >= 3);
  const auto h100 =
      run_migplan({"plan", "--gpu", "h100-80gb", "--emit", "mig-parted", "7x1g.10gb"});
  CHECK(filters(h100.out) ==
        std::vector<std::string>{R"(device-filter: ["0x233010DE", "0x232410DE"])"});
}

TEST_CASE("plan --gpu suggests a misspelt demand profile among the models named", "[plan][names]") {
  // The suggestions came from every catalog model (1g.6gb of the A30 for an
  // a100-40gb fleet); pack on the same model is the reference.
  const std::string hint = migplan::test::pack_did_you_mean("a100-40gb", "1g.7gb");
  CHECK(hint.find("1g.6gb") == std::string::npos);
  const auto word = run_migplan({"plan", "--gpu", "a100-40gb", "1g.7gb"});
  CHECK(word.code == 2);
  CHECK(word.err == "migplan: unknown profile '1g.7gb': no model has it" + hint + "\n");
  const auto file = run_migplan({"plan", "--gpu", "a100-40gb", "--demand", "-"},
                                "version: 1\ndemand:\n  - {count: 2, profile: 1g.7gb}\n");
  CHECK(file.code == 2);
  CHECK(file.err == "migplan: <stdin>:3: unknown profile '1g.7gb': no model has it" + hint + "\n");
}

TEST_CASE("plan: a re-plan that changes nothing has an LP bound of at least 0", "[plan][cli]") {
  // The demand is held as it is (the 4g.20gb and 1g.5gb+me of GPU 2), so no
  // GPU changes; CLP's relaxation of the changes came out at -1e-12, which
  // --json wrote as "lp_bound": -1e-12, below the schema's minimum of 0.
  const std::string state =
      R"({"version": 1, "nodes": [{"name": "n0", "gpu": "a100-40gb", "gpus": [)"
      R"({"index": 2, "instances": [{"profile": "4g.20gb", "start": 0},)"
      R"( {"profile": "1g.5gb+me", "start": 5}, {"profile": "1g.5gb", "start": 6}]},)"
      R"({"index": 3, "instances": [{"profile": "1g.10gb"}, {"profile": "1g.5gb+me", "in_use": true}]}]}]})";
  const auto r =
      run_migplan({"plan", "--json", "--current", "-", "1x4g.20gb", "1x1g.5gb+me"}, state);
  const json doc = checked_plan_doc(r, 0);
  CHECK(doc["changes"].empty());
  CHECK(doc["lp_bound"].get<double>() >= 0);
  CHECK(r.out.find("\"lp_bound\": 0,") != std::string::npos);
}

TEST_CASE("plan refuses --available with --current", "[plan][cli]") {
  // A re-plan's fleet is every current GPU: the limit was read, then
  // ignored (three A30s served with --available a30=0, exit 0).
  expect_plan_bad(
      {"--current", plan_fixture("replan-h100.yaml"), "--available", "h100-80gb=1", "49x1g.10gb"},
      "--available h100-80gb=1 does not apply to --current: a re-plan's fleet is "
      "every GPU of the current nodes");
  expect_plan_bad({"--json", "--current", plan_fixture("replan-h100.yaml"), "--available",
                   "h100-80gb=0", "1g.10gb"},
                  "--available h100-80gb=0 does not apply to --current: a re-plan's fleet is "
                  "every GPU of the current nodes");
}

TEST_CASE("plan names the profiles of unknown memory that may serve a memory item", "[plan][cli]") {
  // b200's 3g.90gb, 4g.90gb and 7g.180gb have no captured memory: "no
  // profile has 50 GiB" would say none does, as fit no longer says.
  const auto b200 = run_migplan({"plan", "--gpu", "b200", "mem=50Gi"});
  CHECK(b200.code == 1);
  CHECK(b200.out.find("  mem=50Gi: 1 of 1 instance missing: no model of the fleet serves it: no "
                      "profile of b200 known to have 50 GiB; b200's 3g.90gb, 4g.90gb and "
                      "7g.180gb may (memory unknown, not considered)\n") != std::string::npos);
  // Every value known: the plain sentence.
  const auto h100 = run_migplan({"plan", "--gpu", "h100-80gb", "mem=100Gi"});
  CHECK(h100.code == 1);
  CHECK(h100.out.find("no model of the fleet serves it: no profile of h100-80gb has 100 GiB\n") !=
        std::string::npos);
}

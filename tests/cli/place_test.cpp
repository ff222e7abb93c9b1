// SPDX-License-Identifier: Apache-2.0
// `migplan place` end to end: the choice of each policy on a fleet as it is
// (a state file, kubectl's nodes, an nvidia-smi listing), the alternatives,
// --emit nvidia-smi, exit 1 with the nearest GPUs when nothing fits, and bad
// input with its exact message and exit code 2.

#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_binary.hpp"

using migplan::test::plan_fixture;
using migplan::test::run_migplan;
using migplan::test::source_path;
using migplan::test::test_path;
using migplan::test::unwrapped;
using json = nlohmann::json;

namespace {

std::string place_fixture(const std::string& name) { return test_path("fixtures/place/" + name); }

json place_json(std::vector<std::string> args, int code, const std::string& input = "") {
  args.insert(args.begin(), "place");
  args.emplace_back("--json");
  const auto r = run_migplan(args, input);
  INFO(r.err);
  CHECK(r.code == code);
  return json::parse(r.out);
}

// Runs `migplan place ARGS` and expects exit 2 with exactly `message` on stderr.
void expect_place_bad(std::vector<std::string> args, const std::string& message,
                      const std::string& input = "") {
  args.insert(args.begin(), "place");
  const bool json_out = std::find(args.begin(), args.end(), "--json") != args.end();
  const auto r = run_migplan(args, input);
  CHECK(r.code == 2);
  CHECK(r.err == "migplan: " + message + "\n");
  // With --json the error is also a JSON document on stdout.
  if (json_out)
    CHECK(json::parse(r.out)["error"]["message"] == message);
  else
    CHECK(r.out.empty());
}

// "node GPU start" of a JSON place.
std::string where(const json& o) {
  return o["node"].get<std::string>() + " " + o["gpu"].dump() + " " + o["start"].dump();
}

}  // namespace

// gpu-a (two H100s: 1g.10gb@0 and 3g.40gb@4 on GPU 0, GPU 1 empty) has 10 of
// its 14 compute slices free, gpu-b (one H100 holding 4g.40gb@0) 3 of 7.
TEST_CASE("place gives each policy's node GPU and start for one 3g.40gb", "[place]") {
  const json j = place_json({"3g.40gb", "--current", place_fixture("state.yaml")}, 0);
  CHECK(j["schema_version"] == 1);
  CHECK(j["profile"] == "3g.40gb");
  CHECK(j["placed"] == true);
  CHECK(j["fleet"] == json::parse(R"({"nodes": 2, "gpus": 3})"));
  REQUIRE(j["policies"].size() == 4);
  std::vector<std::string> got;
  for (const json& p : j["policies"])
    got.push_back(p["name"].get<std::string>() + ": " + where(p["choice"]));
  // spread takes the emptier gpu-a (score 71 against 42), where GPU 0's
  // 1g.10gb blocks start 0: GPU 1, first-fit at 0, best-fit at 4, which
  // keeps 4g.40gb@0 (4 compute slices) possible where start 0 keeps 3. pack
  // takes the fuller gpu-b (57 against 28), whose one free start is 4.
  CHECK(got == std::vector<std::string>{"spread-first-fit: gpu-a 1 0", "spread-best-fit: gpu-a 1 4",
                                        "pack-first-fit: gpu-b 0 4", "pack-best-fit: gpu-b 0 4"});
  const json& spread = j["policies"][0];
  CHECK(spread["choice"]["node_score"] == 71);
  CHECK(spread["choice"]["profile_id"] == 9);
  CHECK(spread["choice"]["model"] == "h100-80gb");
  // Every free start: GPU 1 at 0 and 4 on gpu-a, gpu-b GPU 0 at 4.
  CHECK(spread["places"] == 3);
  REQUIRE(spread["alternatives"].size() == 2);
  CHECK(where(spread["alternatives"][0]) == "gpu-a 1 4");
  CHECK(where(spread["alternatives"][1]) == "gpu-b 0 4");
  CHECK(spread["alternatives"][1]["node_score"] == 42);
  const json& pack = j["policies"][3];
  CHECK(pack["choice"]["reachable_units_before"] == 4);
  CHECK(pack["choice"]["reachable_units_after"] == 0);
  CHECK(pack["nodes"] == "pack");
  CHECK(pack["placement"] == "best-fit");
}

TEST_CASE("place --alternatives and --policy choose what is listed", "[place]") {
  const json j = place_json({"1g.10gb", "--current", place_fixture("state.yaml"), "--policy",
                             "pack-first-fit", "--alternatives", "1"},
                            0);
  REQUIRE(j["policies"].size() == 1);
  CHECK(j["policies"][0]["name"] == "pack-first-fit");
  CHECK(where(j["policies"][0]["choice"]) == "gpu-b 0 4");
  CHECK(j["policies"][0]["alternatives"].size() == 1);
  CHECK(where(j["policies"][0]["alternatives"][0]) == "gpu-b 0 5");
  const json none = place_json({"1g.10gb", "--current", place_fixture("state.yaml"), "--policy",
                                "spread-best-fit", "--alternatives", "0"},
                               0);
  CHECK(none["policies"][0]["alternatives"].empty());
}

TEST_CASE("place's text report names each policy's choice and ranks the alternatives", "[place]") {
  const auto r = run_migplan({"place", "3g.40gb", "--current", place_fixture("state.yaml"),
                              "--policy", "spread-first-fit"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out ==
        "one 3g.40gb on 2 nodes, 3 GPUs (h100-80gb), 3 instances held\n"
        "\n"
        "spread-first-fit: gpu-a GPU 1 start 0\n"
        "   #  node                 GPU start node score   units lost  slices lost\n"
        "   1  gpu-a                  1     0         71            4            4\n"
        "   2  gpu-a                  1     4         71            4            3\n"
        "   3  gpu-b                  0     4         42            4            3\n");
}

TEST_CASE("place --emit nvidia-smi creates the chosen instance at its start", "[place]") {
  const auto r = run_migplan({"place", "3g.40gb", "--current", place_fixture("state.yaml"),
                              "--emit", "nvidia-smi", "--policy", "pack-best-fit"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(unwrapped(r.out).find("on GPU 0 of node gpu-b (h100-80gb") != std::string::npos);
  CHECK(unwrapped(r.out).find("Written by migplan place --emit nvidia-smi.") != std::string::npos);
  CHECK(r.out.find("\nnvidia-smi mig -i 0 -cgi 9:4 -C  # 3g.40gb, units 4-7\n") !=
        std::string::npos);
  // The 4g.40gb there stays: it is not created again.
  CHECK(r.out.find("-cgi 5:0") == std::string::npos);
  // Without --policy: spread-first-fit, today's stack.
  const auto d = run_migplan(
      {"place", "3g.40gb", "--current", place_fixture("state.yaml"), "--emit", "nvidia-smi"});
  CHECK(d.code == 0);
  CHECK(d.out.find("\nnvidia-smi mig -i 1 -cgi 9:0 -C  # 3g.40gb, units 0-3\n") !=
        std::string::npos);
}

TEST_CASE("place exits 1 with the nearest GPUs when no GPU can take the instance", "[place]") {
  const std::string full = source_path("data/captures/h100-80gb-hbm3-lgi-7x1g.txt");
  const json j = place_json({"2g.20gb", "--gpu", "h100-80gb", "--current", full}, 1);
  CHECK(j["placed"] == false);
  for (const json& p : j["policies"]) {
    CHECK(p["choice"].is_null());
    CHECK(p["places"] == 0);
  }
  REQUIRE(j["nearest"].size() == 1);
  CHECK(j["nearest"][0] == json::parse(R"({"node": "local", "gpu": 0, "model": "h100-80gb",
                                           "reachable_units": 0, "reachable_compute": 0})"));
  const auto t = run_migplan({"place", "2g.20gb", "--gpu", "h100-80gb", "--current", full});
  CHECK(t.code == 1);
  CHECK(t.out.find("no GPU can take a 2g.20gb. Nearest, by the room a further instance can "
                   "still reach:\n  local GPU 0: 0 of the 2 units and 0 of the 2 compute slices "
                   "it needs\n") != std::string::npos);
  const auto e = run_migplan(
      {"place", "2g.20gb", "--gpu", "h100-80gb", "--current", full, "--emit", "nvidia-smi"});
  CHECK(e.code == 1);
  CHECK(e.out.empty());
  CHECK(e.err == "migplan: no GPU can take a 2g.20gb; nothing to emit\n");
}

TEST_CASE("place reads kubectl's nodes and leaves out GPUs with MIG off", "[place]") {
  // The fixture's GPUs with MIG on are full; label "split" leaves MIG off on
  // GPUs 2 and 3 of node h100-a, which are empty but need MIG mode turned on
  // (a reset) before any instance: nothing can take a 1g.10gb now.
  const json j =
      place_json({"1g.10gb", "--current", plan_fixture("kube-nodes.json"), "--mig-config",
                  plan_fixture("kube-config.yaml"), "--alternatives", "20"},
                 1);
  CHECK(j["placed"] == false);
  bool assumed = false, mig_off = false;
  for (const json& n : j["notes"]) {
    assumed = assumed || n.get<std::string>().find("are not known") != std::string::npos;
    mig_off =
        mig_off || n.get<std::string>().starts_with("MIG is off on h100-a GPU 2, h100-a GPU 3 ");
  }
  CHECK(assumed);
  CHECK(mig_off);
  for (const json& pol : j["policies"]) CHECK(pol["choice"].is_null());
  REQUIRE(j["nearest"].size() > 2);
  for (const json& n : j["nearest"])
    CHECK_FALSE((n["node"] == "h100-a" && n["gpu"].get<int>() >= 2));
}

TEST_CASE("place refuses bad requests with the culprit named", "[place]") {
  const std::string state = place_fixture("state.yaml");
  // Suggested among the fleet's h100-80gb profiles (3g.20gb and 7g.40gb are the A100's).
  expect_place_bad({"3g.40gx", "--current", state},
                   "invalid profile name '3g.40gx': expected [Cc.]Gg.MEMgb such as 1g.5gb or "
                   "1c.3g.20gb (did you mean 3g.40gb or 4g.40gb?)");
  expect_place_bad({"1g.5gb", "--current", state},
                   "no GPU of the fleet (h100-80gb) has profile '1g.5gb' (did you mean 1g.10gb or "
                   "1g.20gb?)");
  expect_place_bad({"mem=20GiB", "--current", state},
                   "place takes a profile name ('mem=20GiB'); a memory size is plan's");
  expect_place_bad(
      {"2x3g.40gb", "--current", state},
      "place answers one instance, and '2x3g.40gb' asks for 2; place them one at a time, "
      "or replay them with simulate");
  expect_place_bad(
      {"3g.40gb", "--current", state, "--policy", "static"},
      "--policy 'static' keeps a static geometry; place's policies are the dynamic ones: "
      "spread-first-fit, spread-best-fit, pack-first-fit, pack-best-fit");
  expect_place_bad(
      {"3g.40gb", "--current", state, "--policy", "dra-first-fit"},
      "--policy 'dra-first-fit' is a scheduler's rule that simulate replays; place's policies "
      "are: spread-first-fit, spread-best-fit, pack-first-fit, pack-best-fit");
  expect_place_bad(
      {"3g.40gb", "--current", state, "--policy", "pack-bestfit"},
      "unknown --policy 'pack-bestfit' (did you mean pack-best-fit or pack-first-fit?); "
      "place's policies: "
      "spread-first-fit, spread-best-fit, pack-first-fit, pack-best-fit");
  expect_place_bad({"3g.40gb", "--current", state, "--emit", "nvidia-smi", "--json"},
                   "--emit writes its own format; it does not combine with --json");
  expect_place_bad(
      {"3g.40gb", "--current", state, "--emit", "nvidia-sm"},
      "unknown --emit kind 'nvidia-sm' (did you mean nvidia-smi?); place writes nvidia-smi");
  expect_place_bad({"3g.40gb", "--current", state, "--alternatives", "-1"},
                   "--alternatives -1 must be at least 0");
}

TEST_CASE("place names the line of a bad state file", "[place]") {
  const std::string bad_state =
      "version: 1\n"
      "nodes:\n"
      "  - name: n\n"
      "    gpu: h100-80gb\n"
      "    gpus:\n"
      "      - index: 0\n"
      "        instances: [{profile: 3g.40gb, start: 1}]\n";
  const auto r = run_migplan({"place", "3g.40gb", "--current", "-"}, bad_state);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "migplan: <stdin>:7: 3g.40gb cannot start at 1 on h100-80gb (its starts are 0, 4)\n");
}

TEST_CASE("place puts a whole GPU 7g.80gb only on an empty GPU", "[place]") {
  const json j = place_json({"7g.80gb", "--current", place_fixture("state.yaml")}, 0);
  for (const json& p : j["policies"]) {
    CHECK(p["places"] == 1);
    CHECK(where(p["choice"]) == "gpu-a 1 0");
    CHECK(p["choice"]["profile_id"] == 0);
    CHECK(p["choice"]["reachable_units_after"] == 0);
    CHECK(p["alternatives"].empty());
  }
}

TEST_CASE("place names the profile asked for where a model's values are inferred", "[place]") {
  // A fleet of an h100-80gb node (values captured) and an h200 node, whose
  // placements data/ infers from H100; which fields: from `migplan profiles`.
  const std::string state =
      "version: 1\n"
      "nodes:\n"
      "  - {name: a, gpu: h100-80gb, gpus: [{index: 0, instances: []}]}\n"
      "  - {name: b, gpu: h200, gpus: [{index: 0, instances: []}]}\n";
  json expected = json::array();
  for (const char* slug : {"h100-80gb", "h200"}) {
    const json doc = json::parse(run_migplan({"profiles", "--gpu", slug, "--json"}).out);
    for (const json& p : doc["gpus"][0]["profiles"])
      if ((p["name"] == "7g.80gb" || p["name"] == "1g.18gb") && !p["inferred"].empty())
        expected.push_back({{"gpu", slug}, {"profile", p["name"]}, {"fields", p["inferred"]}});
  }
  // 1g.18gb is an h200 profile only; 7g.80gb an h100-80gb one.
  const json h200 = place_json({"1g.18gb", "--current", "-"}, 0, state);
  json want = json::array();
  for (const json& e : expected)
    if (e["profile"] == "1g.18gb") want.push_back(e);
  CHECK(h200["inferred"] == want);
  const auto text = run_migplan({"place", "1g.18gb", "--current", "-"}, state);
  CHECK((text.out.find("note: 1g.18gb on h200 has values inferred by analogy, not captured; "
                       "'migplan profiles --gpu h200' shows which\n") != std::string::npos) ==
        !want.empty());
  const json h100 = place_json({"7g.80gb", "--current", "-"}, 0, state);
  CHECK(h100["inferred"] == json::array());
  CHECK(expected.size() == want.size());  // h100-80gb's 7g.80gb is captured
}

namespace {

// "a, b, c" as its items.
std::vector<std::string> comma_list(std::string list) {
  std::vector<std::string> items;
  for (std::size_t comma; (comma = list.find(", ")) != std::string::npos; list.erase(0, comma + 2))
    items.push_back(list.substr(0, comma));
  items.push_back(list);
  return items;
}

// The names `migplan COMMAND --help` lists after "Policies (--policy): ", up
// to the full stop, its lines joined.
std::vector<std::string> help_policies(const std::string& command) {
  const auto r = run_migplan({command, "--help"});
  const std::string head = "\nPolicies (--policy): ";
  const std::size_t at = r.out.find(head);
  REQUIRE(at != std::string::npos);
  std::string list = r.out.substr(at + head.size(), r.out.find(".\n", at) - at - head.size());
  for (std::size_t nl; (nl = list.find("\n  ")) != std::string::npos;) list.replace(nl, 3, " ");
  return comma_list(list);
}

// The names an unknown --policy's error lists as the command's policies.
std::vector<std::string> refused_lists(const std::vector<std::string>& args) {
  const auto r = run_migplan(args, "name,start,end,count,item\na,0,10,1,1g.10gb\n");
  CHECK(r.code == 2);
  const std::size_t at = r.err.find("policies: ");
  REQUIRE(at != std::string::npos);
  return comma_list(r.err.substr(at + 10, r.err.size() - at - 11));
}

}  // namespace

TEST_CASE("place and simulate --help list exactly the policies --policy accepts",
          "[place][simulate]") {
  const std::string trace = "name,start,end,count,item\na,0,10,1,1g.10gb\n";
  const auto simulate_names = help_policies("simulate");
  CHECK(simulate_names == refused_lists({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus",
                                         "1", "--policy", "none"}));
  for (const std::string& name : simulate_names) {
    INFO("simulate --policy " << name);
    const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "1",
                                "--json", "--policy", name},
                               trace);
    CHECK(r.err.empty());
    REQUIRE(r.code == 0);
    CHECK(json::parse(r.out)["policies"][0]["name"] == name);
  }
  const auto place_names = help_policies("place");
  CHECK(place_names == refused_lists({"place", "1g.10gb", "--current", place_fixture("state.yaml"),
                                      "--policy", "none"}));
  for (const std::string& name : place_names) {
    INFO("place --policy " << name);
    const json j =
        place_json({"1g.10gb", "--current", place_fixture("state.yaml"), "--policy", name}, 0);
    CHECK(j["policies"][0]["name"] == name);
  }
}

TEST_CASE("place says when a profile's starts, not its room, keep it off a GPU", "[place]") {
  // Units 1-3 and 5-7 free, 5 compute slices: room for a 3g.40gb, which
  // starts only at 0 or 4.
  const std::string state =
      "version: 1\nnodes:\n  - name: n\n    gpu: h100-80gb\n    gpus:\n      - index: 0\n"
      "        instances:\n          - {profile: 1g.10gb, start: 0}\n"
      "          - {profile: 1g.10gb, start: 4}\n";
  const auto r = run_migplan({"place", "3g.40gb", "--current", "-"}, state);
  CHECK(r.code == 1);
  INFO(r.out);
  CHECK(r.out.find("but the start is the cause: 3g.40gb starts only at units 0, 4, and none is "
                   "free\n") != std::string::npos);
  CHECK(r.out.find("of the 4 units") == std::string::npos);
}

// fragmented.yaml: a 4g.40gb (start 0 only) fits nowhere; gpu-a GPU 0's
// 1g.10gb@0 blocks it, and gpu-b GPU 0 start 6 is the one place left for it.
TEST_CASE("place --allow-moves lists the one move that makes room, then the create", "[place]") {
  const auto r = run_migplan(
      {"place", "4g.40gb", "--current", place_fixture("fragmented.yaml"), "--allow-moves", "3"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out ==
        "one 4g.40gb on 2 nodes, 3 GPUs (h100-80gb), 7 instances held\n"
        "\n"
        "no GPU can take a 4g.40gb as the fleet is.\n"
        "1 move makes room (--allow-moves 3):\n"
        "  1. move 1g.10gb on gpu-a GPU 0 from start 0 to gpu-b GPU 0 start 6\n"
        "  2. create 4g.40gb on gpu-a GPU 0 start 0\n"
        "2 GPUs touched. A move destroys the instance, stopping what runs on it, and creates it "
        "again; each step needs the room the steps before it free.\n");
}

TEST_CASE("place --allow-moves --json gives the steps, the create and exit 0", "[place]") {
  const json j = place_json(
      {"4g.40gb", "--current", place_fixture("fragmented.yaml"), "--allow-moves", "2"}, 0);
  CHECK(j["placed"] == false);
  const json& m = j["moves"];
  CHECK(m["allowed"] == 2);
  CHECK(m["found"] == true);
  CHECK(m["count"] == 1);
  REQUIRE(m["steps"].size() == 1);
  CHECK(m["steps"][0]["profile"] == "1g.10gb");
  CHECK(where(m["steps"][0]["from"]) == "gpu-a 0 0");
  CHECK(where(m["steps"][0]["to"]) == "gpu-b 0 6");
  CHECK(where(m["create"]) == "gpu-a 0 0");
  CHECK(m["create"]["profile_id"] == 5);
  CHECK(m["gpus_touched"] == 2);
  CHECK(m["reason"].is_null());
}

TEST_CASE("place --allow-moves 0 says why and exits 1", "[place]") {
  const auto r = run_migplan(
      {"place", "4g.40gb", "--current", place_fixture("fragmented.yaml"), "--allow-moves", "0"});
  CHECK(r.code == 1);
  CHECK(r.out.find("\nno sequence of at most 0 moves makes room: every GPU would have to shed "
                   "more than 0 instances for a 4g.40gb to fit.\n") != std::string::npos);
  const json j = place_json(
      {"7g.80gb", "--current", place_fixture("fragmented.yaml"), "--allow-moves", "3"}, 1);
  CHECK(j["moves"]["found"] == false);
  CHECK(j["moves"]["count"].is_null());
  CHECK(j["moves"]["reason"] ==
        "no sequence of at most 3 moves makes room: gpu-a GPU 0 needs the fewest moved off (2 "
        "instances), but no order of at most 3 moves finds them room on GPUs of its model");
}

TEST_CASE("place --allow-moves where it fits needs 0 moves and places as before", "[place]") {
  const auto r = run_migplan({"place", "1g.10gb", "--current", place_fixture("fragmented.yaml"),
                              "--policy", "spread-first-fit", "--allow-moves", "3"});
  CHECK(r.code == 0);
  CHECK(r.out.find("spread-first-fit: gpu-a GPU 0 start 1\n") != std::string::npos);
  CHECK(r.out.find("\n--allow-moves 3: 0 moves; the 1g.10gb fits as the fleet is\n") !=
        std::string::npos);
  const json j = place_json(
      {"1g.10gb", "--current", place_fixture("fragmented.yaml"), "--allow-moves", "3"}, 0);
  CHECK(j["moves"]["count"] == 0);
  CHECK(j["moves"]["steps"].empty());
  CHECK(j["moves"]["create"].is_null());
}

TEST_CASE("place --allow-moves --emit nvidia-smi destroys then creates, node by node", "[place]") {
  const auto r = run_migplan({"place", "4g.40gb", "--current", place_fixture("fragmented.yaml"),
                              "--allow-moves", "1", "--emit", "nvidia-smi"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  const std::string steps =
      "set -e\n"
      "\n"
      "# Step 1 of 2: move 1g.10gb on gpu-a GPU 0 from start 0 to gpu-b GPU 0 start 6.\n"
      "# on node gpu-a:\n"
      "gi=$(gi_at 0 19 0); test -n \"$gi\"\n"
      "nvidia-smi mig -i 0 -gi \"$gi\" -dci\n"
      "nvidia-smi mig -i 0 -gi \"$gi\" -dgi\n"
      "# on node gpu-b:\n"
      "nvidia-smi mig -i 0 -cgi 19:6 -C\n"
      "\n"
      "# Step 2 of 2: create 4g.40gb on gpu-a GPU 0 start 0.\n"
      "# on node gpu-a:\n"
      "nvidia-smi mig -i 0 -cgi 5:0 -C\n";
  REQUIRE(r.out.size() > steps.size());
  CHECK(r.out.substr(r.out.size() - steps.size()) == steps);
  CHECK(unwrapped(r.out).find("The steps span nodes gpu-a, gpu-b: one script cannot reach them "
                              "all") != std::string::npos);
  // gi_at reads the GPU instance ID off nvidia-smi mig -lgi's row.
  CHECK(r.out.find("gi_at() { nvidia-smi mig -i \"$1\" -lgi | awk -v p=\"$2\" -v s=\"$3\" '$5 == "
                   "p && $7 ~ \"^\" s \":\" { print $6 }'; }\n") != std::string::npos);
}

TEST_CASE("place --allow-moves takes a whole number up to 6", "[place]") {
  expect_place_bad({"4g.40gb", "--current", place_fixture("fragmented.yaml"), "--allow-moves", "9"},
                   "--allow-moves 9 is too large (at most 6)");
  expect_place_bad({"4g.40gb", "--current", place_fixture("fragmented.yaml"), "--allow-moves", "x"},
                   "--allow-moves 'x' is not a number: expected a whole number from 0 to 6");
}

TEST_CASE("place's refusal of a pinned start does not speak of plan", "[place]") {
  // The message was plan's ("which plan does not take: plan places every
  // instance itself"), wherever a demand profile was read.
  const auto r = run_migplan({"place", "1g.10gb@3", "--current", place_fixture("state.yaml")});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "migplan: '1g.10gb@3' pins a start, which is not taken here: migplan chooses every "
        "instance's start itself; ask for '1g.10gb'\n");
}

TEST_CASE("place passes over a node whose GPUs all have MIG off", "[place]") {
  // place leaves out GPUs with MIG off; a node with nothing else had no GPU
  // left, and the replay divided its free slices by its capacity, 0: every
  // policy crashed (SIGFPE) where node 'b' could take the instance.
  const migplan::test::temp_file nodes("mig-off-nodes.json",
                                       R"({"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a", "labels": {
    "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.count": "2",
    "nvidia.com/mig.config": "off"}}},
  {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "b", "labels": {
    "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.count": "1",
    "nvidia.com/mig.config": "cis"}}}]}
)");
  const migplan::test::temp_file config(
      "mig-off-config.yaml",
      "version: v1\nmig-configs:\n  off:\n    - devices: all\n      mig-enabled: false\n"
      "  cis:\n    - devices: all\n      mig-enabled: true\n      mig-devices:\n"
      "        \"1c.3g.20gb\": 2\n");
  // Two 1c.3g.20gb CIs take one 3g.20gb GI: held at 4, units 0-3 free.
  const json j =
      place_json({"1g.5gb", "--current", nodes.path(), "--mig-config", config.path()}, 0);
  CHECK(j["placed"] == true);
  REQUIRE(j["policies"].size() == 4);
  for (const json& pol : j["policies"]) {
    REQUIRE_FALSE(pol["choice"].is_null());
    CHECK(pol["choice"]["node"] == "b");
    CHECK(pol["places"] == 4);
  }
}

TEST_CASE("place suggests a misspelt profile among the fleet's profiles", "[place]") {
  // The fleet is H100s only; the suggestions came from every catalog model
  // (1g.6gb of the A30, 1g.5gb of the A100). pack on an H100 is the reference.
  const std::string hint = migplan::test::pack_did_you_mean("h100-80gb", "1g.7gb");
  REQUIRE_FALSE(hint.empty());
  const auto r = run_migplan({"place", "1g.7gb", "--current", place_fixture("state.yaml")});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "migplan: unknown profile '1g.7gb': no model has it" + hint + "\n");
  CHECK(r.err.find("1g.6gb") == std::string::npos);
  CHECK(r.err.find("1g.5gb") == std::string::npos);
}

TEST_CASE("place says where a count typed as a word of its own goes", "[place][names]") {
  // CLI11 said "the following argument was not expected: x3"; pack, check and
  // plan give the hint of profile_spelling_hint, and place now does too.
  const std::string how = "a count goes before its profile, joined by x: write 3x1g.5gb";
  const std::string one = "place them one at a time, or replay them with simulate";
  for (const std::vector<std::string>& words :
       {std::vector<std::string>{"1g.5gb", "x3"}, {"3", "x", "1g.5gb"}}) {
    std::vector<std::string> args{"place", "--current", plan_fixture("state.json")};
    args.insert(args.end(), words.begin(), words.end());
    const auto r = run_migplan(args);
    INFO(words.front());
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    const std::string shown = words.size() == 2 ? "1g.5gb x3" : "3 x 1g.5gb";
    CHECK(r.err ==
          "migplan: '" + shown + "': " + how + "; but place answers one instance: " + one + "\n");
  }
  // Two profiles are not one.
  const auto two =
      run_migplan({"place", "--current", plan_fixture("state.json"), "1g.5gb", "2g.10gb"});
  CHECK(two.code == 2);
  CHECK(two.err ==
        "migplan: place takes one PROFILE, and '1g.5gb 2g.10gb' is 2 words: " + one + "\n");
  // "MIG 1g.10gb", as nvidia-smi writes it, is one profile in two words.
  const auto split =
      run_migplan({"place", "--current", place_fixture("state.yaml"), "--json", "MIG", "1g.10gb"});
  const auto whole =
      run_migplan({"place", "--current", place_fixture("state.yaml"), "--json", "1g.10gb"});
  CHECK(split.code == 0);
  CHECK(split.out == whole.out);
}

TEST_CASE("place takes the lowest GPU index however the state file lists the GPUs", "[place]") {
  // GPU 1 listed before GPU 0, both empty: first fit takes the lowest GPU,
  // GPU 0 (it took GPU 1, the first listed), and best-fit's last tie-break
  // is the lowest GPU too.
  const std::string state =
      "version: 1\nnodes:\n  - name: n\n    gpu: h100-80gb\n    gpus:\n"
      "      - {index: 1, instances: []}\n"
      "      - {index: 0, instances: []}\n";
  const json j = place_json(
      {"7g.80gb", "--current", "-", "--policy", "spread-first-fit", "--policy", "pack-best-fit"}, 0,
      state);
  for (const json& p : j["policies"]) {
    INFO(p["name"]);
    CHECK(where(p["choice"]) == "n 0 0");
    REQUIRE(p["alternatives"].size() == 1);
    CHECK(where(p["alternatives"][0]) == "n 1 0");
  }
}

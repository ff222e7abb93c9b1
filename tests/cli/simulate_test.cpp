// SPDX-License-Identifier: Apache-2.0
// `migplan simulate` end to end: the policies side by side, the static plan,
// sizing (a count where the target holds and one fewer where it does not),
// and bad input with its exact message and exit code 2.

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "render/progress.hpp"
#include "run_binary.hpp"

using migplan::test::plan_fixture;
using migplan::test::run_migplan;
using json = nlohmann::json;

namespace {

// Sharing-heavy: small instances coming and going, a few whole GPUs.
const std::string trace_csv =
    "name,start,end,count,item\n"
    "a,0,100,6,1g.10gb\n"
    "b,10,60,3,2g.20gb\n"
    "c,20,200,2,3g.40gb\n"
    "d,50,120,1,2xgpu\n"
    "e,70,,4,1g.10gb\n"
    "f,90,150,2,4g.40gb\n";

json simulate(const std::vector<std::string>& args, int code) {
  std::vector<std::string> all{"simulate", "--trace", "-", "--gpu", "h100-80gb", "--json"};
  all.insert(all.end(), args.begin(), args.end());
  const auto r = run_migplan(all, trace_csv);
  INFO(r.err);
  CHECK(r.code == code);
  return json::parse(r.out);
}

// Pods `policy` rejects replaying `trace` on `n` GPUs of `gpu` in nodes of two.
int rejected_at(const std::string& trace, const std::string& gpu, const std::string& policy,
                int n) {
  const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", gpu, "--json", "--policy",
                              policy, "--gpus", std::to_string(n), "--gpus-per-node", "2"},
                             trace);
  return json::parse(r.out)["policies"][0]["pods_rejected"].get<int>();
}

// A --size answer of `n`: no pod rejected at n GPUs, some at one fewer.
void check_sized(const std::string& trace, const std::string& gpu, const std::string& policy,
                 int n) {
  INFO(gpu << " " << policy << " sized at " << n);
  CHECK(rejected_at(trace, gpu, policy, n) == 0);
  if (n > 1) CHECK(rejected_at(trace, gpu, policy, n - 1) > 0);
}

}  // namespace

TEST_CASE("simulate replays the default policies side by side on the static plan's fleet",
          "[simulate]") {
  const json j = simulate({}, 0);
  CHECK(j["schema_version"] == 1);
  CHECK(j["trace"]["pods"] == 18);
  CHECK(j["trace"]["instances"] == 19);
  REQUIRE(j["policies"].size() == 3);
  CHECK(j["policies"][0]["name"] == "static");
  CHECK(j["policies"][1]["name"] == "spread-first-fit");
  CHECK(j["policies"][2]["name"] == "pack-best-fit");
  // The plan for the peaks holds every pod at its peak: static rejects nothing.
  CHECK(j["fleet"]["gpus"] == j["static_plan"]["gpus"]);
  CHECK(j["policies"][0]["pods_rejected"] == 0);
  CHECK(j["policies"][0]["creations"] == 0);
  for (const json& p : j["policies"])
    CHECK(p["pods_accepted"].get<int>() + p["pods_rejected"].get<int>() == 18);
}

TEST_CASE("simulate exits 1 when a policy rejects pods on a small fleet", "[simulate]") {
  const json j = simulate({"--gpus", "1"}, 1);
  CHECK(j["policies"][0]["pods_rejected"].get<int>() > 0);
  CHECK_FALSE(j["policies"][0]["first_rejection"].is_null());
}

TEST_CASE("simulate --size finds a count that meets the target and one fewer that does not",
          "[simulate][exhaustive]") {
  const json j = simulate({"--size", "--gpus-per-node", "2"}, 0);
  for (const json& p : j["policies"])
    check_sized(trace_csv, "h100-80gb", p["name"].get<std::string>(), p["sized_gpus"].get<int>());
}

TEST_CASE("simulate --size finds the fleet a hand-sized trace needs under every policy",
          "[simulate]") {
  // At 0, two whole-GPU pods and two 7g.80gb take four H100s; at 1, seven
  // 1g.10gb fill a fifth (an H100 holds seven); at 20, when all have left,
  // five whole-GPU pods take the same five. Every dynamic policy needs 5 (on
  // 4 the 1g.10gb find no room). A static geometry keeps the 1g.10gb GPU as
  // it is, so the five whole GPUs at 20 need five others: 6.
  const std::string trace =
      "name,start,end,count,item\n"
      "a,0,10,2,gpu\n"
      "b,0,10,2,7g.80gb\n"
      "c,1,10,7,1g.10gb\n"
      "d,20,30,5,gpu\n";
  std::vector<std::string> args{"simulate", "--trace",         "-", "--gpu", "h100-80gb", "--json",
                                "--size",   "--gpus-per-node", "2"};
  for (const char* p : {"static", "static-pack", "spread-first-fit", "spread-best-fit",
                        "pack-first-fit", "pack-best-fit"})
    args.insert(args.end(), {"--policy", p});
  const auto r = run_migplan(args, trace);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  REQUIRE(j["policies"].size() == 6);
  for (const json& p : j["policies"]) {
    INFO(p["name"]);
    CHECK(p["sized_gpus"] == (p["name"].get<std::string>().starts_with("static") ? 6 : 5));
  }
}

TEST_CASE("simulate prints a table with one column per policy", "[simulate]") {
  const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--policy",
                              "static", "--policy", "pack-first-fit"},
                             trace_csv);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("static/pack") == std::string::npos);
  CHECK(r.out.find("first-fit") != std::string::npos);
  CHECK(r.out.find("pods rejected") != std::string::npos);
  for (std::size_t from = 0, nl; (nl = r.out.find('\n', from)) != std::string::npos; from = nl + 1)
    CHECK(nl - from <= 80);
}

TEST_CASE("simulate widens a column for a cell longer than its width", "[simulate]") {
  // 150,000 pods of one 1g.10gb on one GPU: seven run, the rest are
  // rejected, "149993 (100.0%)" is wider than a column of 13.
  std::string trace = "name,start,end,count,item\n";
  for (int i = 0; i < 150000; ++i) trace += "p" + std::to_string(i) + ",0,10,1,1g.10gb\n";
  const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "1",
                              "--policy", "spread-first-fit", "--policy", "pack-first-fit"},
                             trace);
  CHECK(r.code == 1);
  const std::size_t at = r.out.find("\npods rejected ");
  REQUIRE(at != std::string::npos);
  const std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
  CHECK(line ==
        fmt::format("{:<22}{:>17}{:>17}", "pods rejected", "149993 (100.0%)", "149993 (100.0%)"));
}

TEST_CASE("simulate reports bad input with exit code 2", "[simulate]") {
  auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--policy", "packed"},
                       trace_csv);
  CHECK(r.code == 2);
  CHECK(r.err ==
        "migplan: unknown --policy 'packed'; policies: static, "
        "static-pack, spread-first-fit, spread-best-fit, pack-first-fit, pack-best-fit, "
        "dra-first-fit, hami\n");
  r = run_migplan({"simulate", "--trace", "-", "--gpu", "a30"}, "start,item\nnow,1g.6gb\n");
  CHECK(r.code == 2);
  CHECK(r.err.starts_with("migplan: <stdin>:2: "));
  r = run_migplan({"simulate", "--trace", "-", "--gpu", "a30"}, "start,item\n0,1g.10gb\n");
  CHECK(r.code == 2);
  CHECK(r.err == "migplan: <stdin>:2: no profile of a30 serves '1g.10gb'\n");
}

TEST_CASE("simulate --plot writes an SVG beside the table and nothing on a non-terminal stderr",
          "[simulate][plot]") {
  const std::string path = std::string(P_tmpdir) + "/migplan-simulate-plot-test.svg";
  std::remove(path.c_str());
  const auto r = run_migplan(
      {"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "1", "--plot", path}, trace_csv);
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(r.out.find("pods rejected") != std::string::npos);
  const std::string svg = migplan::test::read_file(path);
  CHECK(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
  CHECK(svg.ends_with("</svg>\n"));
  // The default policies, one line each, with their rejections marked.
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = svg.find("<polyline class=\"policy\"", at)) != std::string::npos;
       ++at)
    ++lines;
  CHECK(lines == 3);
  CHECK(svg.find("<path class=\"reject\"") != std::string::npos);
  CHECK(svg.find("compute slices in use") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("simulate --plot - writes the SVG on standard output instead of the table",
          "[simulate][plot]") {
  const auto r = run_migplan(
      {"simulate", "--trace", "-", "--gpu", "h100-80gb", "--plot", "-", "--plot-metric", "gpus"},
      trace_csv);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.starts_with("<?xml"));
  CHECK(r.out.find("pods accepted") == std::string::npos);
  CHECK(r.out.find(">GPUs in use</text>") != std::string::npos);
}

TEST_CASE("simulate --plot reports bad input with exit code 2", "[simulate][plot]") {
  auto r = run_migplan(
      {"simulate", "--trace", "-", "--gpu", "h100-80gb", "--plot", "/nonexistent-dir/plot.svg"},
      trace_csv);
  CHECK(r.code == 2);
  CHECK(r.err ==
        "migplan: cannot write --plot '/nonexistent-dir/plot.svg': No such file or directory\n");
  CHECK(r.out.empty());
  // A full disk: the plot is written before the table, so the error is all there is.
  r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--plot", "/dev/full"},
                  trace_csv);
  CHECK(r.code == 2);
  CHECK(r.err == "migplan: cannot write --plot '/dev/full': No space left on device\n");
  CHECK(r.out.empty());
  r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--plot", "-", "--json"},
                  trace_csv);
  CHECK(r.code == 2);
  CHECK(r.err ==
        "migplan: --plot - and --json both write to standard output; give --plot a file\n");
  r = run_migplan(
      {"simulate", "--trace", "-", "--gpu", "h100-80gb", "--plot", "-", "--plot-metric", "pods"},
      trace_csv);
  CHECK(r.code == 2);
  CHECK(r.err == "migplan: unknown --plot-metric 'pods'; it is slices or gpus\n");
}

namespace {

// The progress line's clock in the test below: it moves only when told.
using progress_clock = migplan::cli::render::progress_line::clock;
progress_clock::time_point fake_now{};
progress_clock::time_point fake_clock() { return fake_now; }

}  // namespace

TEST_CASE("the progress line stays quiet for a second and leaves nothing behind", "[progress]") {
  using std::chrono::milliseconds;
  std::ostringstream off;
  {
    migplan::cli::render::progress_line line(off, false, &fake_clock);
    fake_now += milliseconds(1100);
    CHECK_FALSE(line.due());
    line.show("never");
  }
  CHECK(off.str().empty());

  std::ostringstream on;
  {
    migplan::cli::render::progress_line line(on, true, &fake_clock);
    CHECK_FALSE(line.due());
    fake_now += milliseconds(999);
    CHECK_FALSE(line.due());  // quiet for a second
    fake_now += milliseconds(1);
    CHECK(line.due());
    line.show("abc");
    CHECK_FALSE(line.due());  // at most ten times a second
    fake_now += milliseconds(99);
    CHECK_FALSE(line.due());
    fake_now += milliseconds(1);
    CHECK(line.due());
    line.show("a");
  }
  // Each rewrite covers the last; the end blanks the line and returns to its start.
  CHECK(on.str() == "\rabc\ra  \r \r");
}

namespace {

// Writes `text` to a file of its own under the temporary directory.
std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = std::string(P_tmpdir) + "/migplan-simulate-" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

}  // namespace

TEST_CASE("simulate --current replays the fleet as it is with its own static geometry",
          "[simulate]") {
  // The fleet holds 1g.10gb and 3g.40gb on gpu-a GPU 0, nothing on GPU 1,
  // 4g.40gb on gpu-b GPU 0; four pods at once, one of a profile it lacks.
  const std::string trace = temp_file("current.csv",
                                      "name,start,end,count,item\n"
                                      "a,0,10,1,1g.10gb\n"
                                      "b,0,10,1,3g.40gb\n"
                                      "c,0,10,1,4g.40gb\n"
                                      "d,0,10,1,2g.20gb\n");
  const std::string state = migplan::test::test_path("fixtures/place/state.yaml");
  const auto r = run_migplan({"simulate", "--trace", trace, "--current", state, "--json",
                              "--policy", "static", "--policy", "spread-first-fit"});
  INFO(r.err);
  CHECK(r.code == 1);
  const json j = json::parse(r.out);
  CHECK(j["fleet"]["gpus"] == 3);
  CHECK(j["fleet"]["nodes"] == 2);
  CHECK(j["fleet"]["gpus_per_node"] == 2);
  CHECK(j["fleet"]["current"] == state);
  CHECK(j["static_geometry"]["from"] == "current");
  CHECK(j["static_geometry"]["geometries"] ==
        json::parse(R"j([{"count":1,"instances":"1g.10gb@0 3g.40gb@4"},)j"
                    R"j({"count":1,"instances":"(none)"},{"count":1,"instances":"4g.40gb@0"}])j"));
  // Static: the three instances there serve three pods; the 2g.20gb has none.
  CHECK(j["policies"][0]["pods_accepted"] == 3);
  CHECK(j["policies"][0]["pods_rejected"] == 1);
  // Dynamic: the same nodes start empty and create what arrives.
  CHECK(j["policies"][1]["pods_accepted"] == 4);
  std::remove(trace.c_str());
}

TEST_CASE("simulate --current keeps a GPU with MIG off a whole GPU for static policies",
          "[simulate]") {
  // Node h100-a of the kubectl fixture alone: label "split" makes GPUs 0 and
  // 1 two 3g.40gb each and leaves MIG off on GPUs 2 and 3.
  json nodes = json::parse(migplan::test::read_file(plan_fixture("kube-nodes.json")));
  json kept = json::array();
  for (const json& n : nodes["items"])
    if (n["metadata"]["name"] == "h100-a") kept.push_back(n);
  REQUIRE(kept.size() == 1);
  nodes["items"] = kept;
  const std::string current = temp_file("mig-off.json", nodes.dump());
  const std::string trace = temp_file("mig-off.csv",
                                      "name,start,end,count,item\n"
                                      "a,0,10,4,3g.40gb\n"
                                      "b,0,10,2,gpu\n"
                                      "c,0,10,1,1g.10gb\n");
  const auto r = run_migplan({"simulate", "--trace", trace, "--current", current, "--mig-config",
                              plan_fixture("kube-config.yaml"), "--json", "--policy", "static"});
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.find("migplan: note: MIG is off on h100-a GPU 2, h100-a GPU 3: static policies "
                   "keep it a whole GPU") != std::string::npos);
  const json j = json::parse(r.out);
  CHECK(j["static_geometry"]["geometries"] ==
        json::parse(R"([{"count":2,"instances":"3g.40gb@0 3g.40gb@4"},)"
                    R"({"count":2,"instances":"7g.80gb@0"}])"));
  CHECK(j["policies"][0]["pods_accepted"] == 6);
  CHECK(j["policies"][0]["pods_rejected"] == 1);
  std::remove(trace.c_str());
  std::remove(current.c_str());
}

TEST_CASE("simulate keeps every profile served on a fleet smaller than the static plan",
          "[simulate]") {
  // The plan for the peaks is two GPUs of seven 1g.10gb and two whole
  // GPUs. Two GPUs get one of each, not the plan's first two.
  const std::string trace =
      "name,start,end,count,item\n"
      "a,0,100,14,1g.10gb\n"
      "b,0,100,2,7g.80gb\n";
  const auto full = run_migplan(
      {"simulate", "--trace", "-", "--gpu", "h100-80gb", "--json", "--policy", "static"}, trace);
  REQUIRE(full.code == 0);
  CHECK(json::parse(full.out)["static_plan"]["gpus"] == 4);
  CHECK(json::parse(full.out)["static_geometry"]["from"] == "plan");
  const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--json",
                              "--policy", "static", "--gpus", "2"},
                             trace);
  CHECK(r.code == 1);
  const json j = json::parse(r.out);
  CHECK(j["static_geometry"]["from"] == "plan");
  CHECK(j["static_geometry"]["subset"] == true);
  REQUIRE(j["static_geometry"]["geometries"].size() == 2);
  CHECK(j["static_geometry"]["geometries"][0]["count"] == 1);
  CHECK(j["static_geometry"]["geometries"][1]["count"] == 1);
  CHECK(j["policies"][0]["pods_accepted"] == 8);  // seven 1g.10gb and one whole GPU
}

TEST_CASE("simulate refuses --current with options that shape another fleet", "[simulate]") {
  const std::string state = migplan::test::test_path("fixtures/place/state.yaml");
  auto r = run_migplan({"simulate", "--trace", "-", "--current", state, "--gpus", "4"}, trace_csv);
  CHECK(r.code == 2);
  CHECK(r.err ==
        "migplan: --current replays the fleet as it is; --gpus and --gpus-per-node shape a fleet "
        "of --gpu's model instead\n");
  r = run_migplan({"simulate", "--trace", "-", "--current", state, "--size"}, trace_csv);
  CHECK(r.code == 2);
  CHECK(r.err ==
        "migplan: --size finds the fewest GPUs of one model; --current replays the fleet as it "
        "is\n");
  r = run_migplan({"simulate", "--trace", "-", "--current", "-"}, trace_csv);
  CHECK(r.code == 2);
  CHECK(r.err == "migplan: --trace and --current cannot both read standard input\n");
  r = run_migplan({"simulate", "--trace", "-"}, trace_csv);
  CHECK(r.code == 2);
  CHECK(r.err ==
        "migplan: --gpu is required: the model of the fleet (or --current FILE: the fleet as it "
        "is)\n");
  r = run_migplan({"simulate", "--trace", "-", "-g", "h100-80gb", "--mig-config", state},
                  trace_csv);
  CHECK(r.code == 2);
  CHECK(r.err == "migplan: --mig-config goes with --current (kubectl's nodes)\n");
}

TEST_CASE("simulate --size sizes each model --gpu and --fleet name", "[simulate]") {
  // Memory sizes and whole GPUs resolve on every model; profile names do not.
  const std::string trace =
      "name,start,end,count,item\n"
      "a,0,100,6,mem=10GiB\n"
      "b,10,60,3,mem=20GiB\n"
      "c,20,90,1,gpu\n";
  const std::string fleet = temp_file("fleet.yaml",
                                      "version: 1\n"
                                      "models:\n"
                                      "  - gpu: a30\n"
                                      "  - gpu: a100-80gb\n"
                                      "    available: 1\n");
  const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--fleet", fleet,
                              "--size", "--json", "--gpus-per-node", "2"},
                             trace);
  INFO(r.err);
  CHECK(r.code == 1);  // one A100 is not enough
  const json j = json::parse(r.out);
  const json& models = j["sizing"]["models"];
  REQUIRE(models.size() == 3);
  CHECK(models[0]["gpu"] == "h100-80gb");
  CHECK(models[1]["gpu"] == "a30");
  CHECK(models[2]["gpu"] == "a100-80gb");
  CHECK(models[2]["limit"] == 1);
  for (const json& p : models[2]["policies"]) CHECK(p["sized_gpus"].is_null());
  // The first model's answers are the policies' own.
  for (std::size_t p = 0; p < j["policies"].size(); ++p)
    CHECK(models[0]["policies"][p]["sized_gpus"] == j["policies"][p]["sized_gpus"]);
  // Each count holds on its model, one fewer does not.
  for (std::size_t m = 0; m < 2; ++m)
    for (const json& p : models[m]["policies"])
      check_sized(trace, models[m]["gpu"].get<std::string>(), p["name"].get<std::string>(),
                  p["sized_gpus"].get<int>());
  std::remove(fleet.c_str());
}

TEST_CASE("simulate refuses several models without --size", "[simulate]") {
  auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpu", "a100-80gb"},
                       trace_csv);
  CHECK(r.code == 2);
  CHECK(r.err ==
        "migplan: 2 models (h100-80gb, a100-80gb) are for --size, which sizes each; a replay is of "
        "one --gpu, or of the fleet a --fleet FILE of several models describes (without --gpu)\n");
  // A profile name must be one every model sized has.
  r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpu", "a30", "--size"},
                  trace_csv);
  CHECK(r.code == 2);
  CHECK(r.err ==
        "migplan: <stdin>:2: no profile of a30 serves '1g.10gb'; sizing several models, every row "
        "must resolve on each: name a memory (mem=SIZE), whole GPUs (gpu) or a profile every "
        "model has\n");
}

TEST_CASE("simulate --static-plan replays the geometry of a plan answer", "[simulate]") {
  // A plan of one GPU of seven 1g.10gb and one whole GPU, read back.
  const auto plan = run_migplan({"plan", "--gpu", "h100-80gb", "7x1g.10gb", "7g.80gb", "--json"});
  REQUIRE(plan.code == 0);
  const std::string file = temp_file("plan.json", plan.out);
  const std::string trace =
      "name,start,end,count,item\n"
      "a,0,100,14,1g.10gb\n"
      "b,0,100,2,7g.80gb\n";
  const std::vector<std::string> args{"simulate",      "--trace", "-",      "--gpu",    "h100-80gb",
                                      "--static-plan", file,      "--json", "--policy", "static"};
  auto r = run_migplan(args, trace);
  CHECK(r.code == 1);
  json j = json::parse(r.out);
  CHECK(j["fleet"]["gpus"] == 2);        // the plan's GPUs
  CHECK(j["static_plan"]["gpus"] == 4);  // the peaks' plan, for comparison
  CHECK(j["static_geometry"]["from"] == "static-plan");
  CHECK(j["static_geometry"]["file"] == file);
  CHECK(j["static_geometry"]["subset"] == false);
  CHECK(j["static_geometry"]["geometries"].size() == 2);
  CHECK(j["policies"][0]["pods_accepted"] == 8);  // its seven 1g.10gb and one whole GPU
  // Four GPUs take the plan's twice over and hold every pod.
  std::vector<std::string> four = args;
  four.insert(four.end(), {"--gpus", "4"});
  r = run_migplan(four, trace);
  CHECK(r.code == 0);
  CHECK(json::parse(r.out)["policies"][0]["pods_accepted"] == 16);
  std::remove(file.c_str());
}

TEST_CASE("simulate --static-plan refuses what is no plan of the model", "[simulate]") {
  const auto plan = run_migplan({"plan", "--gpu", "h100-80gb", "3g.40gb", "--json"});
  REQUIRE(plan.code == 0);
  const std::string good = temp_file("plan-3g.json", plan.out);
  std::string moved = plan.out;
  const std::size_t at = moved.find("\"start\": 4");
  REQUIRE(at != std::string::npos);
  moved.replace(at, 10, "\"start\": 3");
  const std::string bad = temp_file("plan-3g-bad.json", moved);
  const std::string trace = "start,item\n0,3g.40gb\n";
  auto r =
      run_migplan({"simulate", "--trace", "-", "--gpu", "a100-80gb", "--static-plan", good}, trace);
  CHECK(r.code == 2);
  CHECK(
      r.err.ends_with("the plan has a group of 'h100-80gb'; this replay is of a100-80gb "
                      "(--gpu)\n"));
  CHECK(r.err.starts_with("migplan: " + good + ":"));
  r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--static-plan", bad}, trace);
  CHECK(r.code == 2);
  CHECK(r.err.ends_with(": 3g.40gb cannot start at 3 on h100-80gb\n"));
  r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--static-plan",
                   migplan::test::test_path("fixtures/place/state.yaml")},
                  trace);
  CHECK(r.code == 2);
  CHECK(r.err.find("invalid json") != std::string::npos);
  r = run_migplan({"simulate", "--trace", "-", "--current",
                   migplan::test::test_path("fixtures/place/state.yaml"), "--static-plan", good},
                  trace);
  CHECK(r.code == 2);
  CHECK(
      r.err ==
      "migplan: --static-plan gives a fleet of --gpu's model a geometry; --current has its own\n");
  std::remove(good.c_str());
  std::remove(bad.c_str());
}

TEST_CASE("simulate names the replayed profiles whose values are inferred", "[simulate]") {
  // h100-80gb's values are all captured; h200's placements are inferred from
  // it (data/SOURCES.md). Which profiles: from `migplan profiles`.
  const std::string trace = "start,end,item\n0,10,1g.10gb\n0,10,3g.40gb\n";
  const auto h100 = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb"}, trace);
  REQUIRE(h100.code == 0);
  CHECK(h100.out.find("inferred") == std::string::npos);
  const auto h100_json =
      run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--json"}, trace);
  CHECK(json::parse(h100_json.out)["inferred"] == json::array());

  const json rows =
      json::parse(run_migplan({"profiles", "--gpu", "h200", "--json"}).out)["gpus"][0]["profiles"];
  const std::string h200_trace = "start,end,item\n0,10,1g.18gb\n0,10,3g.71gb\n0,10,1g.18gb\n";
  json expected = json::array();
  std::string names;
  for (const json& p : rows)
    if ((p["name"] == "1g.18gb" || p["name"] == "3g.71gb") && !p["inferred"].empty()) {
      expected.push_back({{"profile", p["name"]}, {"fields", p["inferred"]}});
      names += (names.empty() ? "" : ", ") + p["name"].get<std::string>();
    }
  const auto h200 = run_migplan({"simulate", "--trace", "-", "--gpu", "h200"}, h200_trace);
  REQUIRE(h200.code == 0);
  const auto h200_json =
      run_migplan({"simulate", "--trace", "-", "--gpu", "h200", "--json"}, h200_trace);
  CHECK(json::parse(h200_json.out)["inferred"] == expected);
  if (expected.empty()) {
    CHECK(h200.out.find("inferred") == std::string::npos);
  } else {
    CHECK(h200.out.ends_with("\nnote: " + names + " on h200 " +
                             (expected.size() == 1 ? "has" : "have") +
                             " values inferred by analogy, not captured; 'migplan profiles "
                             "--gpu h200' shows which\n"));
  }
}

TEST_CASE("simulate --size names the inferred profiles of each model it sizes", "[simulate]") {
  // A trace in memory needs: each model serves it with its own profiles,
  // which `migplan fit` names; whether their values are inferred comes from
  // `migplan profiles`.
  const std::string trace = "start,end,item\n0,10,mem=60Gi\n0,10,mem=30Gi\n";
  const std::vector<std::string> models = {"h100-80gb", "h200"};
  auto r = run_migplan(
      {"simulate", "--trace", "-", "--gpu", models[0], "--gpu", models[1], "--size", "--json"},
      trace);
  REQUIRE(r.code == 0);
  const json answer = json::parse(r.out);
  const json& sized = answer["sizing"]["models"];
  REQUIRE(sized.size() == models.size());
  const auto text = run_migplan(
      {"simulate", "--trace", "-", "--gpu", models[0], "--gpu", models[1], "--size"}, trace);
  REQUIRE(text.code == 0);
  for (std::size_t m = 0; m < models.size(); ++m) {
    const json rows = json::parse(
        run_migplan({"profiles", "--gpu", models[m], "--json"}).out)["gpus"][0]["profiles"];
    json expected = json::array();
    std::string names;
    std::vector<json> served;
    for (const std::string memory : {"60Gi", "30Gi"})
      served.push_back(
          json::parse(run_migplan({"fit", "--gpu", models[m], "--memory", memory, "--json"})
                          .out)["profile"]["name"]);
    for (const json& p : rows)  // in the model's order, as the answers list them
      if (std::find(served.begin(), served.end(), p["name"]) != served.end() &&
          !p["inferred"].empty()) {
        expected.push_back({{"profile", p["name"]}, {"fields", p["inferred"]}});
        names += (names.empty() ? "" : ", ") + p["name"].get<std::string>();
      }
    INFO(models[m]);
    CHECK(sized[m]["gpu"] == models[m]);
    CHECK(sized[m]["inferred"] == expected);
    if (m == 0) CHECK(answer["inferred"] == expected);  // the replayed model
    const std::string note = "\nnote: " + names + " on " + models[m];
    CHECK((text.out.find(note) != std::string::npos) == !expected.empty());
  }
}

TEST_CASE("simulate --size says at once that no node holds a pod", "[simulate]") {
  const std::string head = "name,start,end,count,item\n";
  // A node of 8 h100-80gb holds 8 whole GPUs, and 8 x 7 = 56 1g.10gb.
  const auto whole = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--size"},
                                 head + "big,0,10,1,9xgpu\nsmall,0,10,1,1g.10gb\n");
  CHECK(whole.code == 2);
  CHECK(whole.out.empty());
  CHECK(whole.err ==
        "migplan: <stdin>:2: no node of 8 h100-80gb GPUs holds a pod of 9 whole GPUs: it needs 9 "
        "instances of 7g.80gb on one node, and a node holds 8 at most (pods no node holds: 1 of "
        "2); no number of h100-80gb GPUs rejects at most 0% of pods (--gpus-per-node sets a "
        "node's GPUs)\n");
  const auto many = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--size"},
                                head + "small,0,10,1,1g.10gb\nwide,0,10,1,57x1g.10gb\n");
  CHECK(many.code == 2);
  CHECK(many.err.find("<stdin>:3: no node of 8 h100-80gb GPUs holds a pod of '57x1g.10gb': it "
                      "needs 57 instances of 1g.10gb on one node, and a node holds 56 at most") !=
        std::string::npos);
  // 56 fit a node: sized as usual.
  const auto fits = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--size"},
                                head + "wide,0,10,1,56x1g.10gb\n");
  CHECK(fits.code == 0);
  // Pods no node holds within the target: the others are sized.
  const auto within = run_migplan(
      {"simulate", "--trace", "-", "--gpu", "h100-80gb", "--size", "--reject-target", "50"},
      head + "big,0,10,1,9xgpu\nsmall,0,10,1,1g.10gb\n");
  INFO(within.err);
  CHECK(within.code == 0);
}

TEST_CASE("simulate warns once when a trace mixes seconds and dates", "[simulate]") {
  const auto r = run_migplan(
      {"simulate", "--trace", "-", "--gpu", "h100-80gb"},
      "name,start,end,count,item\na,0,3600,1,1g.10gb\nb,2023-07-01T00:10:00Z,,1,1g.10gb\n"
      "c,600,,1,1g.10gb\nd,2023-07-01T00:20:00Z,,1,1g.10gb\n");
  CHECK(r.err ==
        "migplan: warning: <stdin>: times mix whole seconds (line 2) and RFC 3339 dates (line 3); "
        "seconds count from 1970-01-01T00:00:00Z, so the trace spans 53 years: write every time "
        "one way\n");
  // doc/simulate.md's trace example writes its times one way.
  const std::string doc = migplan::test::read_file(migplan::test::source_path("doc/simulate.md"));
  const std::size_t from = doc.find("name,start,end,count,item\n");
  REQUIRE(from != std::string::npos);
  const std::string example = doc.substr(from, doc.find("```", from) - from);
  const auto d = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb"}, example);
  CHECK(d.err.empty());
  CHECK(d.out.rfind("trace <stdin>: 22 pods, 23 instances over 2h 00m\n", 0) == 0);
}

TEST_CASE("an Alibaba pod list without times says it does not replay", "[simulate]") {
  const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb"},
                             "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
                             "openb-pod-0000,12000,16384,1,1000,\n");
  CHECK(r.code == 2);
  CHECK(r.err ==
        "migplan: <stdin>:1: an Alibaba pod list needs the column 'creation_time' (num_gpu, "
        "gpu_milli and creation_time at least); a list without times, such as "
        "openb_pod_list_multigpu50.csv, does not replay\n");
}

TEST_CASE("simulate refuses --plot-metric without --plot", "[simulate]") {
  const auto r =
      run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--plot-metric", "gpus"},
                  "name,start,end,count,item\na,0,10,1,1g.10gb\n");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "migplan: --plot-metric chooses what --plot draws; give --plot FILE with it\n");
}

TEST_CASE("simulate says one pod, one GPU and this GPU in the singular", "[simulate]") {
  const auto plan = run_migplan({"plan", "--gpu", "h100-80gb", "7x1g.10gb", "7g.80gb", "--json"});
  REQUIRE(plan.code == 0);
  const std::string file = temp_file("plan-two.json", plan.out);
  const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "1",
                              "--static-plan", file, "--policy", "static"},
                             "name,start,end,count,item\na,0,10,1,1g.10gb\n");
  std::remove(file.c_str());
  INFO(r.out + r.err);
  CHECK(r.out.rfind("trace <stdin>: 1 pod, 1 instance over", 0) == 0);
  CHECK(r.out.find("\nfleet: 1 h100-80gb GPU, 1 node of up to 8\n") != std::string::npos);
  CHECK(r.out.find("\nstatic geometry: plan for the peaks, 1 GPU\n") != std::string::npos);
  CHECK(r.out.find("\nstatic geometry on this GPU: the plan in " + file) != std::string::npos);
  CHECK(r.out.find("1 GPUs") == std::string::npos);
}

TEST_CASE("a fleet smaller than a plan of many large groups is chosen in linear time",
          "[simulate]") {
  // 120 groups of 100,000 GPUs: choosing 1,000 of them used to cost every
  // planned GPU times every group (1.2e7 x 120 steps, minutes); it now
  // costs the groups plus 100,000 steps at most (well under a second).
  const std::vector<std::string> mixes{
      R"({"profile": "1g.10gb", "start": 0})", R"({"profile": "2g.20gb", "start": 0})",
      R"({"profile": "3g.40gb", "start": 4})", R"({"profile": "4g.40gb", "start": 0})"};
  std::string plan = R"({"schema_version": 2, "groups": [)";
  for (int i = 0; i < 120; ++i)
    plan += fmt::format(R"({}{{"gpu": {{"id": "h100-80gb"}}, "count": 100000, "instances": [{}]}})",
                        i == 0 ? "" : ", ", mixes[static_cast<std::size_t>(i) % mixes.size()]);
  plan += "]}";
  const std::string file = temp_file("plan-wide.json", plan);
  const std::string trace = temp_file("wide.csv",
                                      "name,start,end,count,item\na,0,100,40,1g.10gb\n"
                                      "b,0,100,30,3g.40gb\n");
  const auto r = migplan::test::run_migplan_tty(
      {"simulate", "--trace", trace, "--gpu", "h100-80gb", "--static-plan", file, "--gpus", "1000",
       "--policy", "static", "--json"},
      {}, 60);
  std::remove(file.c_str());
  std::remove(trace.c_str());
  INFO(r.err);
  REQUIRE(r.code == 0);  // -1: timed out
  const json j = json::parse(r.out);
  CHECK(j["static_geometry"]["subset"] == true);
  long long gpus = 0;
  for (const json& g : j["static_geometry"]["geometries"]) gpus += g["count"].get<long long>();
  CHECK(gpus == 1000);
}

TEST_CASE("simulate --queue reports the waits and the queue of each policy", "[simulate][queue]") {
  // One H100: b waits for a's GPU from 10 to 100 and is still running when
  // the trace ends at 100; c asks for two whole GPUs, which no node of one
  // GPU holds, and is refused. Instances take no time to create.
  const std::string trace =
      "name,start,end,count,item\n"
      "a,0,100,1,gpu\n"
      "b,10,50,1,gpu\n"
      "c,20,30,1,2xgpu\n";
  const auto r =
      run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "1", "--json",
                   "--queue", "--policy", "spread-first-fit", "--create-seconds", "0"},
                  trace);
  INFO(r.err);
  CHECK(r.code == 1);  // a pod refused: over the rejection target of 0%
  const json j = json::parse(r.out);
  const json& q = j["policies"][0]["queue"];
  CHECK(q["backfill"] == false);
  CHECK(q["pods_started"] == 2);
  CHECK(q["pods_pending"] == 0);
  CHECK(q["pods_refused"] == 1);
  CHECK(j["policies"][0]["pods_rejected"] == 1);
  // Waits 0 and 90: the median is the first, p95 and up the second.
  CHECK(q["wait_seconds"] == json{{"p50", 0}, {"p95", 90}, {"p99", 90}, {"max", 90}});
  CHECK(q["peak"] == 1);
  CHECK(q["pod_seconds"] == 90);
  CHECK(q["mean"] == 0.9);
}

TEST_CASE("simulate --queue keeps every pod: started, pending or refused", "[simulate][queue]") {
  for (const char* rule : {"--queue", "--backfill"}) {
    const json j = simulate({"--gpus", "1", rule}, 1);
    for (const json& p : j["policies"]) {
      INFO(rule << " " << p["name"]);
      const json& q = p.at("queue");
      CHECK(q["backfill"] == (std::string(rule) == "--backfill"));
      CHECK(q["pods_started"].get<int>() + q["pods_pending"].get<int>() +
                q["pods_refused"].get<int>() ==
            18);
      const json& w = q["wait_seconds"];
      CHECK(w["p50"] <= w["p95"]);
      CHECK(w["p95"] <= w["p99"]);
      CHECK(w["p99"] <= w["max"]);
    }
  }
  // Without a queue, the policies' members are as they were.
  const json plain = simulate({"--gpus", "1"}, 1);
  for (const json& p : plain["policies"]) CHECK_FALSE(p.contains("queue"));
}

TEST_CASE("simulate --queue prints the waits and the queue in the table", "[simulate][queue]") {
  const auto r = run_migplan(
      {"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "1", "--backfill"}, trace_csv);
  CHECK(r.code == 1);
  for (const char* label :
       {"\nqueue: a pod that does not fit waits; later ones that fit may go first\n",
        "\npods started ", "\npods pending at end ", "\npods refused ", "\nwait p50 ",
        "\nwait p99 ", "\nwait max ", "\npods waiting, peak ", "\npods waiting, mean ",
        "\nfirst refusal "})
    CHECK(r.out.find(label) != std::string::npos);
  CHECK(r.out.find("pods rejected") == std::string::npos);
  // Three policies fit 80 columns (the static geometry's note aside).
  for (std::size_t from = 0, nl; (nl = r.out.find('\n', from)) != std::string::npos; from = nl + 1)
    if (r.out.compare(from, 18, "static geometry on") != 0) CHECK(nl - from <= 80);
}

namespace {

// The message `simulate --trace - --gpu h100-80gb ARGS` on trace_csv gives
// for bad input (exit 2, nothing on stdout).
std::string bad_input(std::vector<std::string> args) {
  args.insert(args.begin(), {"simulate", "--trace", "-", "--gpu", "h100-80gb"});
  const auto r = run_migplan(args, trace_csv);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  return r.err;
}

}  // namespace

TEST_CASE("simulate refuses a queue's size or wait target given wrong", "[simulate][queue]") {
  const auto err = bad_input;
  CHECK(err({"--size", "--queue"}) ==
        "migplan: --size with --queue sizes by waits; give --wait-target (p99=10m, say)\n");
  CHECK(err({"--wait-target", "p99=10m"}) ==
        "migplan: --wait-target is a target for the waits of a queue; give --queue or "
        "--backfill\n");
  for (const char* bad : {"p90=10m", "p99", "10m", "=10m", "P99=10m"})
    CHECK(err({"--queue", "--wait-target", bad}) ==
          fmt::format("migplan: --wait-target '{}' is no target: write p50, p95, p99 or max, "
                      "'=', and a duration (p99=10m)\n",
                      bad));
  for (const char* bad : {"", "10x", "1m1h", "m", "10m5", "1.5h", "-5"})
    CHECK(err({"--queue", "--wait-target", fmt::format("p95={}", bad)}) ==
          fmt::format("migplan: --wait-target p95: '{}' is no duration: write whole seconds (600) "
                      "or whole numbers with s, m, h or d, largest first (10m, 1h30m)\n",
                      bad));
  CHECK(err({"--queue", "--wait-target", "max=99999999999999"}) ==
        "migplan: --wait-target max: 99999999999999 is more than 1000000000000 seconds\n");
}

namespace {

// The queue of `policy` replaying `trace` on `n` H100s in nodes of two,
// instances created at once.
json queue_at(const std::string& trace, const std::string& policy, int n) {
  std::vector<std::string> args{
      "simulate",        "--trace",  "-",      "--gpu",  "h100-80gb",
      "--json",          "--policy", policy,   "--gpus", std::to_string(n),
      "--gpus-per-node", "2",        "--queue"};
  if (policy != "static") args.insert(args.end(), {"--create-seconds", "0"});
  const auto r = run_migplan(args, trace);
  return json::parse(r.out)["policies"][0]["queue"];
}

}  // namespace

TEST_CASE("simulate --size --queue finds the fewest GPUs within a wait target",
          "[simulate][queue][exhaustive]") {
  for (const auto& [target, key, seconds] :
       {std::tuple{"p50=0", "p50", 0}, std::tuple{"p95=1m", "p95", 60},
        std::tuple{"p99=30s", "p99", 30}, std::tuple{"max=1m40s", "max", 100}}) {
    const json j = simulate({"--size", "--queue", "--wait-target", target, "--gpus-per-node", "2",
                             "--create-seconds", "0"},
                            0);
    REQUIRE(j["sizing"]["wait_target"] == json{{"percentile", key}, {"seconds", seconds}});
    for (const json& p : j["policies"]) {
      const std::string name = p["name"].get<std::string>();
      const int n = p["sized_gpus"].get<int>();
      INFO(target << " " << name << " sized at " << n);
      const json at = queue_at(trace_csv, name, n);
      CHECK(at["pods_refused"] == 0);
      CHECK(at["wait_seconds"][key].get<int>() <= seconds);
      if (n > 1) {
        const json fewer = queue_at(trace_csv, name, n - 1);
        CHECK((fewer["pods_refused"] > 0 || fewer["wait_seconds"][key].get<int>() > seconds));
      }
    }
  }
}

TEST_CASE("simulate --queue exits 1 when a policy's waits pass the wait target",
          "[simulate][queue]") {
  // On one GPU b waits 90 seconds for a's (instances created at once).
  const std::string trace = "name,start,end,count,item\na,0,100,1,gpu\nb,10,50,1,gpu\n";
  const auto run = [&](const char* target) {
    return run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "1", "--queue",
                        "--create-seconds", "0", "--wait-target", target},
                       trace)
        .code;
  };
  CHECK(run("max=90") == 0);
  CHECK(run("max=89") == 1);
  CHECK(run("max=1m30s") == 0);
  CHECK(run("p50=0s") == 0);
}

TEST_CASE("simulate --policy dra-first-fit gives nodes no score and says so in the JSON",
          "[simulate][dra]") {
  // Two nodes of one H100, two small pods at once: the DRA allocator's first
  // fit keeps both on the first node; spread opens the second.
  const std::string trace =
      "name,start,end,count,item\n"
      "a,0,100,1,1g.10gb\n"
      "b,10,100,1,1g.10gb\n";
  const auto r = run_migplan(
      {"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "2", "--gpus-per-node", "1",
       "--json", "--policy", "dra-first-fit", "--policy", "spread-first-fit"},
      trace);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  const json& dra = j["policies"][0];
  CHECK(dra["name"] == "dra-first-fit");
  CHECK(dra["mode"] == "dynamic");
  CHECK(dra["nodes"] == "first");
  CHECK(dra["placement"] == "name-order");
  CHECK(dra["peak_gpus_in_use"] == 1);
  CHECK(j["policies"][1]["peak_gpus_in_use"] == 2);
}

TEST_CASE("simulate replan:PERIOD re-plans, evicts and reports it without touching the others",
          "[simulate][replan]") {
  const std::vector<std::string> base{"--gpus", "2", "--backfill", "--policy", "static"};
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--policy", "replan:30s", "--policy", "replan-oracle:30s",
                           "--reconfigure-seconds", "5"});
  const json with = simulate(args, 1);
  const json alone = simulate(base, 1);
  // The static policy's figures do not change when re-planned ones run beside it.
  CHECK(with["policies"][0] == alone["policies"][0]);
  CHECK_FALSE(with["policies"][0].contains("replan"));
  for (const std::size_t p : {1U, 2U}) {
    const json& got = with["policies"][p];
    INFO(got.dump());
    CHECK(got["mode"] == "static");
    const json& r = got["replan"];
    CHECK(r["period_seconds"] == 30);
    CHECK(r["window"] == (p == 1U ? "last" : "next"));
    CHECK(r["reconfigure_seconds"] == 5);
    CHECK(r["replans"] == 6);  // at 30, 60, ..., 180 of a trace from 0 to 200
    CHECK(r["reconfigurations"].get<int>() > 0);
    CHECK(r["pods_evicted"].get<int>() > 0);
    // Each reconfiguration keeps its GPU out for 5 s (none overlap here).
    CHECK(r["unavailable_gpu_seconds"] == 5 * r["reconfigurations"].get<int>());
    // The rates are their counts over their wholes.
    const double pods = with["trace"]["pods"].get<double>();
    CHECK(r["pods_evicted_once"].get<int>() > 0);
    CHECK(r["pods_evicted_once"].get<int>() <= r["pods_evicted"].get<int>());
    CHECK(r["evicted_share"].get<double>() == Approx(r["pods_evicted_once"].get<double>() / pods));
    CHECK(got["acceptance_rate"].get<double>() ==
          Approx(got["pods_accepted"].get<double>() / pods));
    const double makespan = got["makespan_seconds"].get<double>();
    REQUIRE(makespan > 0);
    CHECK(r["unavailable_makespan_gpu_seconds"].get<int>() <=
          r["unavailable_gpu_seconds"].get<int>() + 5);
    CHECK(r["reconfiguration_overhead"].get<double>() ==
          Approx(r["unavailable_makespan_gpu_seconds"].get<double>() / (2 * makespan)));
    const json& q = got["queue"];
    CHECK(q["pods_started"].get<int>() + q["pods_pending"].get<int>() +
              q["pods_refused"].get<int>() ==
          with["trace"]["pods"].get<int>());
  }
  // Reproducible: the JSON carries no timing.
  CHECK(simulate(args, 1) == with);
}

TEST_CASE("simulate replan:PERIOD times its re-plans on stderr and lists them in the table",
          "[simulate][replan]") {
  const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "2",
                              "--policy", "replan:1m", "--policy", "static"},
                             trace_csv);
  CHECK(r.code == 1);
  CHECK(r.err.starts_with("migplan: note: replan:1m: 3 re-plans in "));
  CHECK(r.out.find("re-plan: from the static geometry, plan's fewest changes") !=
        std::string::npos);
  CHECK(r.out.find("evicted (lost)") != std::string::npos);  // rejecting: evicted pods are lost
  for (const char* row :
       {"\nre-plans ", "\nGPU reconfigurations ", "\npods evicted ", "\nGPU-hours unavailable ",
        "\npods ever evicted ", "\nreconfig overhead "})
    CHECK(r.out.find(row) != std::string::npos);
  // Without a re-planned policy the table has none of those rows.
  const auto plain = run_migplan(
      {"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "2", "--policy", "static"},
      trace_csv);
  CHECK(plain.out.find("re-plan") == std::string::npos);
  CHECK(plain.err.empty());
}

namespace {

// A --current state file of two nodes of two H100s, n0 then n1; each GPU
// in `whole` is one 7g.80gb, each other seven 1g.10gb.
std::string two_nodes(const std::vector<bool>& whole) {
  std::string out = "version: 1\nnodes:\n";
  for (std::size_t g = 0; g < whole.size(); ++g) {
    if (g % 2 == 0) out += fmt::format("  - name: n{}\n    gpu: h100-80gb\n    gpus:\n", g / 2);
    out += fmt::format("      - index: {}\n        instances:\n", g % 2);
    for (int s = 0; s < (whole[g] ? 1 : 7); ++s)
      out += fmt::format("          - {{profile: {}, start: {}}}\n",
                         whole[g] ? "7g.80gb" : "1g.10gb", s);
  }
  return out;
}

// The queue and re-plan figures of `replan-oracle:1m` on `state`
// replaying `trace`, GPUs reconfigured in 5 s.
json replanned_on(const std::string& name, const std::string& state, const std::string& trace) {
  const std::string current = temp_file(name + ".yaml", state);
  const std::string csv = temp_file(name + ".csv", trace);
  const auto r =
      run_migplan({"simulate", "--trace", csv, "--current", current, "--queue", "--policy",
                   "replan-oracle:1m", "--reconfigure-seconds", "5", "--json"});
  INFO(r.err);
  CHECK(r.code == 0);  // nothing refused
  std::remove(csv.c_str());
  std::remove(current.c_str());
  return json::parse(r.out)["policies"][0];
}

}  // namespace

TEST_CASE("simulate replan:PERIOD keeps a waiting pod's GPUs on one node", "[simulate][replan]") {
  // n0 holds a whole GPU and seven 1g.10gb, n1 two whole GPUs. A 2xgpu pod
  // runs [0, 60) on n1, the one node it fits; another arrives at 5 and
  // waits for it, at the FIFO head. The re-plan at 60 sees the next
  // minute, two 7x1g.10gb pods, and the waiting pod: two whole GPUs and 14
  // 1g.10gb, one whole GPU to change. Changing one of n1's leaves a whole
  // GPU per node, and the waiting pod, with every pod behind it, never
  // starts; changing n0's keeps n1 whole. Then the waiting pod starts at
  // 60, as does the first 7x1g.10gb pod (on n0's GPU 1); the second waits
  // the 5 s n0's GPU 0 is reconfigured; the last pod, at 150, finds room.
  const json p = replanned_on("colocate", two_nodes({true, false, true, true}),
                              "name,start,end,count,item\n"
                              "a,0,60,1,2xgpu\n"
                              "b,5,6,1,2xgpu\n"
                              "c,60,100,2,7x1g.10gb\n"
                              "e,150,200,1,1g.10gb\n");
  INFO(p.dump());
  CHECK(p["replan"]["reconfigurations"] == 1);
  CHECK(p["replan"]["pods_evicted"] == 0);
  CHECK(p["queue"]["pods_started"] == 5);
  CHECK(p["queue"]["pods_pending"] == 0);
  CHECK(p["queue"]["wait_seconds"]["max"] == 60 - 5);
}

TEST_CASE("simulate replan:PERIOD keeps a waiting pod's node whole where the demand cannot be met",
          "[simulate][replan]") {
  // n0 two whole GPUs, n1 two of seven 1g.10gb. A 2xgpu pod runs [0, 60)
  // on n0; another waits for it from 5. The re-plan at 60 sees five
  // 7x1g.10gb pods and the waiting one: two whole GPUs and 35 1g.10gb, more
  // than four GPUs hold, so the plan's target keeps each profile nearest
  // its share, one whole GPU and three of 1g.10gb: no node has two whole
  // GPUs then, and no swap between nodes makes two. n0 keeps its two (the
  // plan made again around them cannot meet the target, so nothing else
  // changes): the waiting pod starts at 60, the 7x1g.10gb pods two at a
  // time on n1's GPUs, 40 s each (the last waits 80 s), and the pod at
  // 150 at once.
  const json p = replanned_on("densest", two_nodes({true, true, false, false}),
                              "name,start,end,count,item\n"
                              "a,0,60,1,2xgpu\n"
                              "b,5,6,1,2xgpu\n"
                              "c,60,100,5,7x1g.10gb\n"
                              "e,150,200,1,1g.10gb\n");
  INFO(p.dump());
  CHECK(p["replan"]["reconfigurations"] == 0);
  CHECK(p["queue"]["pods_started"] == 8);
  CHECK(p["queue"]["pods_pending"] == 0);
  CHECK(p["queue"]["wait_seconds"]["max"] == 80);
}

TEST_CASE("simulate refuses a bad re-plan period or option", "[simulate][replan]") {
  const auto err = bad_input;
  CHECK(err({"--policy", "replan"}) ==
        "migplan: --policy replan needs a period: replan:PERIOD, as replan:6h (s, m, h, d)\n");
  CHECK(err({"--policy", "replan-oracle"}) ==
        "migplan: --policy replan-oracle needs a period: replan-oracle:PERIOD, as "
        "replan-oracle:6h (s, m, h, d)\n");
  CHECK(err({"--policy", "replan:0"}) ==
        "migplan: --policy 'replan:0': a re-plan period is at least 1s\n");
  CHECK(err({"--policy", "replan:6x"}) ==
        "migplan: --policy 'replan:6x': '6x' is no duration: write whole seconds (600) or whole "
        "numbers with s, m, h or d, largest first (10m, 1h30m)\n");
  CHECK(err({"--policy", "replan:1h", "--policy", "replan:1h"}) ==
        "migplan: --policy replan:1h is given twice\n");
  CHECK(err({"--reconfigure-seconds", "5"}) ==
        "migplan: --reconfigure-seconds is the time a re-plan's GPU is out; give --policy "
        "replan:PERIOD\n");
  CHECK(err({"--policy", "replan:1m", "--reconfigure-seconds", "-1"}) ==
        "migplan: --reconfigure-seconds -1 must be at least 0\n");
  CHECK(err({"--policy", "replan:1m", "--size"}) ==
        "migplan: --size replays each fleet size many times; a replan policy re-plans in each "
        "replay: size without replan:PERIOD\n");
}

TEST_CASE("simulate reports the acceptance rate, the makespan and the mean GPUs in use",
          "[simulate][rates]") {
  // One GPU: the first whole GPU runs [0, 50); the second, arriving at 10,
  // is rejected; the trace spans 100.
  const std::string trace =
      "name,start,end,count,item\n"
      "a,0,50,1,gpu\n"
      "b,10,100,1,gpu\n";
  const std::vector<std::string> args{"simulate", "--trace",   "-",
                                      "--gpu",    "h100-80gb", "--gpus",
                                      "1",        "--policy",  "spread-first-fit"};
  std::vector<std::string> as_json = args;
  as_json.push_back("--json");
  const auto r = run_migplan(as_json, trace);
  INFO(r.err);
  REQUIRE(r.code == 1);
  const json p = json::parse(r.out)["policies"][0];
  CHECK(p["acceptance_rate"].dump() == "0.5");
  CHECK(p["makespan_seconds"] == 50);
  CHECK(p["mean_gpus_in_use"].dump() == "0.5");
  CHECK_FALSE(p.contains("replan"));
  const auto text = run_migplan(args, trace);
  CHECK(text.out.find("\nacceptance rate               50.0%\n") != std::string::npos);
  CHECK(text.out.find("\nmakespan                        50s\n") != std::string::npos);
  CHECK(text.out.find("reconfig overhead") == std::string::npos);  // no re-plan, no row
  // Queued (instances created at once), the second starts at 50 and runs
  // 90 past the trace's end.
  as_json.insert(as_json.end(), {"--queue", "--create-seconds", "0"});
  const json q = json::parse(run_migplan(as_json, trace).out)["policies"][0];
  CHECK(q["acceptance_rate"].dump() == "1");
  CHECK(q["makespan_seconds"] == 140);
}

TEST_CASE("simulate never rounds a share to all or none that is neither", "[simulate][rates]") {
  // 3004 one-slice pods at once on 429 GPUs of seven slices: the last is
  // rejected, and 3003 of 3004 accepted is over 99.9%, not 100.0%.
  std::string trace = "start,end,item\n";
  for (int i = 0; i < 3004; ++i) trace += "0,10,1g.10gb\n";
  const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "429",
                              "--policy", "spread-first-fit"},
                             trace);
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("\nacceptance rate              >99.9%\n") != std::string::npos);
}

TEST_CASE("simulate --create-seconds delays a pod's run by its instances' creation",
          "[simulate][lifecycle]") {
  // One H100: a whole GPU from 0 to 100, then one from 10 to 50 that waits.
  const std::string trace = "name,start,end,count,item\na,0,100,1,gpu\nb,10,50,1,gpu\n";
  const auto policy = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"simulate", "--trace", "-",      "--gpu",    "h100-80gb",
                                  "--gpus",   "1",       "--json", "--policy", "spread-first-fit"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_migplan(args, trace);
    INFO(r.err);
    return json::parse(r.out)["policies"][0];
  };
  // Under a queue a creation takes 1.5 s by default: a runs from 2 (the
  // trace's clock is whole seconds) to 102, past the trace's end at 100, so
  // b is still waiting then.
  const json q = policy({"--queue"});
  CHECK(q["on_demand"]["create_seconds"].dump() == "1.5");
  CHECK(q["on_demand"]["keep_idle_seconds"].is_null());
  CHECK(q["on_demand"]["creation_wait_seconds"] == 2);
  CHECK(q["queue"]["pods_started"] == 1);
  CHECK(q["queue"]["pods_pending"] == 1);
  CHECK(q["makespan_seconds"] == 102);
  // 0.25 s: a runs from 1 to 101; b still waits.
  CHECK(policy({"--queue", "--create-seconds", "0.25"})["makespan_seconds"] == 101);
  // Rejecting, creation is free unless asked for, and the report as it was.
  const json plain = policy({});
  CHECK_FALSE(plain.contains("on_demand"));
  CHECK(plain["makespan_seconds"] == 100);
  const json costed = policy({"--create-seconds", "3"});
  CHECK(costed["on_demand"]["creation_wait_seconds"] == 3);
  CHECK(costed["makespan_seconds"] == 103);
  // A static policy creates nothing and has no such member.
  const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "1",
                              "--json", "--queue", "--policy", "static", "--policy", "hami"},
                             trace);
  const json both = json::parse(r.out)["policies"];
  CHECK_FALSE(both[0].contains("on_demand"));
  CHECK(both[1].contains("on_demand"));
}

TEST_CASE("simulate --keep-idle reuses an instance whose pod ended", "[simulate][lifecycle]") {
  // One H100: three 3g pods one after another; kept 1m, the second and
  // third reuse the first's instance; kept 5s, the gap of 10s loses it.
  const std::string trace =
      "name,start,end,count,item\n"
      "a,0,10,1,3g.40gb\n"
      "b,20,30,1,3g.40gb\n"
      "c,40,50,1,3g.40gb\n"
      "d,60,70,1,7g.80gb\n";
  const auto run = [&](const char* keep) {
    const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "1",
                                "--json", "--policy", "pack-best-fit", "--keep-idle", keep},
                               trace);
    INFO(r.err);
    return json::parse(r.out)["policies"][0];
  };
  const json kept = run("1m");
  CHECK(kept["on_demand"]["keep_idle_seconds"] == 60);
  CHECK(kept["on_demand"]["reuses"] == 2);
  CHECK(kept["creations"] == 2);              // the first 3g and the whole GPU
  CHECK(kept["on_demand"]["reclaims"] == 1);  // the idle 3g in the whole GPU's way
  CHECK(kept["on_demand"]["idle_instance_seconds"] == 10 + 10 + 10);
  const json brief = run("5s");
  CHECK(brief["on_demand"]["reuses"] == 0);
  CHECK(brief["creations"] == 4);
  CHECK(brief["on_demand"]["reclaims"] == 0);
  CHECK(brief["on_demand"]["idle_instance_seconds"] == 5 + 5 + 5);
  // The table has a row for each.
  const auto text = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "1",
                                 "--policy", "static", "--policy", "hami", "--keep-idle", "1m"},
                                trace);
  CHECK(text.out.find("on demand: an instance is created at once; an idle one is kept 1m 00s "
                      "for reuse\n") != std::string::npos);
  for (const char* row : {"\ninstances reused ", "\nidle reclaimed ", "\nidle instance-hours "})
    CHECK(text.out.find(row) != std::string::npos);
  CHECK(text.out.find("creation wait") == std::string::npos);  // creation is free here
}

TEST_CASE("simulate refuses a bad --create-seconds or --keep-idle", "[simulate][lifecycle]") {
  const auto err = bad_input;
  CHECK(err({"--create-seconds", "1.2345"}) ==
        "migplan: --create-seconds 1.2345: at most three decimals (a millisecond)\n");
  for (const char* bad : {"", "x", "-1", "1.", ".5", "1e3", "1,5"})
    CHECK(err({"--create-seconds", bad}) ==
          fmt::format("migplan: --create-seconds '{}' is no number of seconds: write 1.5, 0.25 or "
                      "2\n",
                      bad));
  CHECK(err({"--create-seconds", "3600.001"}) ==
        "migplan: --create-seconds 3600.001 is more than 3600 seconds\n");
  CHECK(err({"--create-seconds", "99999999999999999999"}) ==
        "migplan: --create-seconds 99999999999999999999 is more than 3600 seconds\n");
  CHECK(err({"--keep-idle", "10x"}) ==
        "migplan: --keep-idle '10x' is no duration: write whole seconds (600) or whole numbers "
        "with s, m, h or d, largest first (10m, 1h30m)\n");
  CHECK(err({"--policy", "static", "--keep-idle", "1m"}) ==
        "migplan: --keep-idle keeps on-demand instances for reuse; give a dynamic --policy "
        "(spread-first-fit, hami, ...)\n");
  CHECK(err({"--policy", "static", "--create-seconds", "1"}) ==
        "migplan: --create-seconds is the time an on-demand instance takes to create; give a "
        "dynamic --policy (spread-first-fit, hami, ...)\n");
}

TEST_CASE("simulate +defrag:K moves a running instance so the queue's head starts",
          "[simulate][defrag]") {
  // Two H100s on one node, first fit: a 1g.10gb takes GPU 0 at 0, a
  // 4g.40gb GPU 1; a second 4g.40gb fits neither (GPU 0's start 0 is
  // blocked, GPU 1 has 3 compute slices left) and waits for both to end.
  // One move (the 1g to another start) lets it start at once; the moved
  // pod runs its creation time longer.
  const std::string trace =
      "name,start,end,count,item\n"
      "a,0,1000,1,1g.10gb\n"
      "b,0,1000,1,4g.40gb\n"
      "c,1,11,1,4g.40gb\n";
  const auto run = [&](const char* policy) {
    const auto r = run_migplan(
        {"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "2", "--gpus-per-node", "2",
         "--queue", "--create-seconds", "2", "--json", "--policy", policy},
        trace);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return json::parse(r.out)["policies"][0];
  };
  const json plain = run("spread-first-fit");
  CHECK(plain.find("defrag") == plain.end());
  CHECK(plain["queue"]["wait_seconds"]["max"] == 1000 - 1);  // pending at the trace's end
  CHECK(plain["queue"]["pods_pending"] == 1);
  const json moved = run("spread-first-fit+defrag:1");
  CHECK(moved["name"] == "spread-first-fit+defrag:1");
  CHECK(moved["defrag"]["most_moves"] == 1);
  CHECK(moved["defrag"]["moves"] == 1);
  CHECK(moved["defrag"]["pods_moved"] == 1);
  CHECK(moved["defrag"]["starts"] == 1);
  CHECK(moved["queue"]["pods_pending"] == 0);
  CHECK(moved["queue"]["wait_seconds"]["max"] == 2);  // every pod waits only its creation
  // Three created, one created again by the move.
  CHECK(moved["creations"] == 4);
  // Pod a ran from 2 to 1002, then 2 more for its move.
  CHECK(plain["makespan_seconds"] == 1002);
  CHECK(moved["makespan_seconds"] == 1004);
  // The table names the policy and adds the moves' rows.
  const auto text = run_migplan(
      {"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "2", "--gpus-per-node", "2",
       "--queue", "--policy", "spread-first-fit", "--policy", "spread-first-fit+defrag:1"},
      trace);
  CHECK(text.out.find("first-fit+defrag:1") != std::string::npos);
  for (const char* row : {"\ninstances moved ", "\npods moved ", "\nstarted by moves "})
    CHECK(text.out.find(row) != std::string::npos);
}

TEST_CASE("simulate refuses a bad +defrag:K", "[simulate][defrag]") {
  const auto err = bad_input;
  CHECK(err({"--queue", "--policy", "hami+defrag:4"}) ==
        "migplan: --policy 'hami+defrag:4': K is the most instance moves that make room for the "
        "queue's head, 1 to 3\n");
  CHECK(err({"--queue", "--policy", "hami+defrag:0"}) ==
        "migplan: --policy 'hami+defrag:0': K is the most instance moves that make room for the "
        "queue's head, 1 to 3\n");
  CHECK(err({"--queue", "--policy", "hami+defrag"}) ==
        "migplan: --policy 'hami+defrag' needs a number of moves: hami+defrag:K, as "
        "hami+defrag:2\n");
  CHECK(err({"--queue", "--policy", "static+defrag:1"}) ==
        "migplan: --policy 'static+defrag:1': +defrag moves on-demand instances; give it to a "
        "dynamic policy (pack-best-fit+defrag:1, ...)\n");
  CHECK(err({"--policy", "hami+defrag:1"}) ==
        "migplan: +defrag makes room for the head of a queue; give --queue or --backfill\n");
  CHECK(err({"--queue", "--policy", "hami+defrag:1", "--keep-idle", "1m"}) ==
        "migplan: +defrag moves running instances; it does not go with --keep-idle's idle ones\n");
  CHECK(err({"--queue", "--policy", "hami+defrag:1", "--policy", "hami+defrag:1"}) ==
        "migplan: --policy hami+defrag:1 is given twice\n");
}

namespace {

// A fleet of one H100 node and one A30 node, one GPU each.
// A file of its own per `tag`: ctest runs the tests that write one at once.
std::string mixed_fleet_file(const std::string& tag) {
  return temp_file("mixed-fleet-" + tag + ".yaml",
                   "version: 1\n"
                   "nodes:\n"
                   "  - {name: h, gpu: h100-80gb, gpus: 1}\n"
                   "  - {name: a, gpu: a30, gpus: 1}\n");
}

// The sums over a policy's models of `key`.
long long model_sum(const json& policy, const char* key) {
  long long n = 0;
  for (const json& m : policy["models"]) n += m[key].get<long long>();
  return n;
}

}  // namespace

TEST_CASE("simulate replays a fleet of several models, each pod where a model serves it",
          "[simulate][models]") {
  const std::string fleet = mixed_fleet_file("lands");
  // 7g.80gb is an H100 profile only, 1g.6gb an A30 one only: wherever the
  // policy would rather go, each lands on the one model that has it.
  const std::string trace =
      "name,start,end,count,item\n"
      "big,0,100,1,7g.80gb\n"
      "small,0,100,2,1g.6gb\n";
  const auto r = run_migplan({"simulate", "--trace", "-", "--fleet", fleet, "--json"}, trace);
  INFO(r.err);
  CHECK(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j["fleet"]["gpus"] == 2);
  CHECK(j["fleet"]["nodes"] == 2);
  REQUIRE(j["fleet"]["models"].size() == 2);
  CHECK(j["fleet"]["models"][0]["gpu"] == "h100-80gb");
  CHECK(j["fleet"]["models"][1]["gpu"] == "a30");
  // The static geometry: the plan for the peaks (one 7g.80gb, two
  // 1g.6gb) within the fleet's GPUs, one H100 and one A30.
  CHECK(j["trace"]["peaks"] ==
        json::parse(R"([{"profiles":[{"gpu":"h100-80gb","profile":"7g.80gb"}],"instances":1},)"
                    R"({"profiles":[{"gpu":"a30","profile":"1g.6gb"}],"instances":2}])"));
  CHECK(j["static_geometry"]["from"] == "plan");
  CHECK(j["static_plan"]["gpus"] == 2);
  CHECK(j["static_plan"]["unmet_instances"] == 0);
  REQUIRE(j["static_plan"]["geometries"].size() == 2);
  CHECK(j["static_plan"]["geometries"][0]["gpu"] == "h100-80gb");
  CHECK(j["static_plan"]["geometries"][0]["instances"] == "7g.80gb@0");
  CHECK(j["static_plan"]["geometries"][1]["gpu"] == "a30");
  const std::string on_a30 = j["static_plan"]["geometries"][1]["instances"].get<std::string>();
  CHECK(std::count(on_a30.begin(), on_a30.end(), '@') == 2);
  CHECK(on_a30.find("1g.6gb@") == 0);
  CHECK(j["static_geometry"]["geometries"] == j["static_plan"]["geometries"]);
  // The default policies, as on one model.
  REQUIRE(j["policies"].size() == 3);
  CHECK(j["policies"][0]["name"] == "static");
  CHECK(j["policies"][1]["name"] == "spread-first-fit");
  CHECK(j["policies"][2]["name"] == "pack-best-fit");
  for (const json& p : j["policies"]) {
    INFO(p["name"]);
    REQUIRE(p["models"].size() == 2);
    const json& h100 = p["models"][0];
    const json& a30 = p["models"][1];
    CHECK(h100["pods_accepted"] == 1);
    CHECK(a30["pods_accepted"] == 2);
    // Each model's one GPU is busy for the whole trace, 100 s.
    CHECK(h100["gpu_seconds"] == 100);
    CHECK(a30["gpu_seconds"] == 100);
    CHECK(h100["peak_gpus_in_use"] == 1);
    CHECK(a30["peak_gpus_in_use"] == 1);
    CHECK(h100["instance_seconds"] == 100);
    CHECK(a30["instance_seconds"] == 200);
    // The fleet's figures are the sums of its models'.
    for (const char* key : {"pods_accepted", "instances_accepted", "instance_seconds",
                            "gpu_seconds", "stranded_slice_seconds"})
      CHECK(model_sum(p, key) == p[key].get<long long>());
  }
  // The report: the fleet by model, and a block per model.
  const auto text = run_migplan({"simulate", "--trace", "-", "--fleet", fleet}, trace);
  CHECK(text.code == 0);
  CHECK(text.out.find("fleet: 2 GPUs of 2 models, 2 nodes of up to 1: 1 h100-80gb on 1 node, 1 "
                      "a30 on 1 node\n") != std::string::npos);
  CHECK(
      text.out.find("\nh100-80gb, 1 GPU:\n  pods accepted                   1            1         "
                    "   1\n") != std::string::npos);
  CHECK(text.out.find("\na30, 1 GPU:\n  pods accepted                   2            2            "
                      "2\n") != std::string::npos);
  CHECK(text.out.find("peak instances at once:\n      1 x h100-80gb 7g.80gb\n      2 x a30 "
                      "1g.6gb\nstatic geometry: plan for the peaks within the fleet's GPUs, 2 "
                      "GPUs\n      1 x h100-80gb: 7g.80gb@0\n") != std::string::npos);
  std::remove(fleet.c_str());
}

TEST_CASE("a queued pod of a mixed fleet waits for the model that serves it",
          "[simulate][models]") {
  const std::string fleet = mixed_fleet_file("waits");
  // 4g.24gb fills an A30 and is no H100 profile: the second waits for the
  // first to leave at 100 although the H100 stays empty.
  const std::string trace =
      "name,start,end,count,item\n"
      "first,0,100,1,4g.24gb\n"
      "second,10,50,1,4g.24gb\n";
  const auto r =
      run_migplan({"simulate", "--trace", "-", "--fleet", fleet, "--json", "--queue",
                   "--create-seconds", "0", "--policy", "hami", "--policy", "dra-first-fit"},
                  trace);
  INFO(r.err);
  const json j = json::parse(r.out);
  for (const json& p : j["policies"]) {
    INFO(p["name"]);
    CHECK(p["queue"]["wait_seconds"]["max"] == 90);
    CHECK(p["models"][0]["pods_accepted"] == 0);
    CHECK(p["models"][0]["gpu_seconds"] == 0);
    CHECK(p["models"][1]["pods_accepted"] == 2);
  }
  std::remove(fleet.c_str());
}

TEST_CASE("a mixed fleet takes each model's available GPUs in nodes of --gpus-per-node",
          "[simulate][models]") {
  const std::string fleet = temp_file("mixed-models.yaml",
                                      "version: 1\n"
                                      "models:\n"
                                      "  - {gpu: a30, available: 3}\n"
                                      "  - {gpu: h100-80gb, available: 1}\n");
  const auto r = run_migplan({"simulate", "--trace", "-", "--fleet", fleet, "--json",
                              "--gpus-per-node", "2", "--share", "memory"},
                             "start,end,item\n0,10,mem=5GiB\n");
  INFO(r.err);
  CHECK(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j["fleet"]["gpus"] == 4);
  CHECK(j["fleet"]["nodes"] == 3);  // a30: 2 + 1, h100-80gb: 1
  CHECK(j["fleet"]["models"][0]["gpus"] == 3);
  CHECK(j["fleet"]["models"][0]["nodes"] == 2);
  CHECK(j["fleet"]["models"][1]["gpus"] == 1);
  std::remove(fleet.c_str());
}

TEST_CASE("simulate refuses what a mixed fleet cannot replay, naming why", "[simulate][models]") {
  const std::string fleet = mixed_fleet_file("refuses");
  const auto err = [&](std::vector<std::string> extra, const std::string& trace = trace_csv) {
    std::vector<std::string> args{"simulate", "--trace", "-", "--fleet", fleet};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_migplan(args, trace);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    return r.err;
  };
  const std::string shown = fleet;
  CHECK(err({"--policy", "spread-first-fit", "--policy", "replan:1h"}) ==
        "migplan: --policy replan:1h: re-planning a fleet of several models (" + shown +
            ") is not modelled (plan's fewest changes per model and window); give static, "
            "static-pack or dynamic policies\n");
  CHECK(err({"--gpus", "4"}) ==
        "migplan: --gpus shapes a fleet of one model; a --fleet file of several models gives its "
        "own GPUs (its nodes, or each model's 'available')\n");
  // A pod that neither model serves: 3g.20gb is an A100-40GB profile only.
  CHECK(err({}, "name,start,end,count,item\nx,0,10,1,3g.20gb\n") ==
        "migplan: <stdin>:2: no model of the fleet (h100-80gb, a30) has a profile that serves "
        "'3g.20gb'\n");
  const std::string counts = temp_file("mixed-no-count.yaml",
                                       "version: 1\n"
                                       "models:\n"
                                       "  - {gpu: a30, available: 2}\n"
                                       "  - {gpu: h100-80gb}\n");
  const auto r = run_migplan({"simulate", "--trace", "-", "--fleet", counts}, trace_csv);
  CHECK(r.code == 2);
  CHECK(r.err == "migplan: " + counts +
                     ": model h100-80gb has no 'available': replaying a fleet of several models "
                     "takes each one's GPU count from it (or give the file nodes)\n");
  std::remove(counts.c_str());
  std::remove(fleet.c_str());
}

TEST_CASE("memory sizes resolve per model of a mixed fleet", "[simulate][models]") {
  const std::string fleet = mixed_fleet_file("memory");
  // 30 GiB is more than an A30 has (24 GB): only the H100 serves those
  // pods, and its 40 GB instances hold two at once, so a third waits.
  const std::string trace =
      "name,start,end,count,item\n"
      "large,0,100,3,mem=30GiB\n";
  const auto r = run_migplan(
      {"simulate", "--trace", "-", "--fleet", fleet, "--json", "--policy", "spread-first-fit"},
      trace);
  INFO(r.err);
  CHECK(r.code == 1);  // the third is rejected
  const json j = json::parse(r.out);
  const json& p = j["policies"][0];
  CHECK(p["pods_rejected"] == 1);
  CHECK(p["models"][0]["pods_accepted"] == 2);
  CHECK(p["models"][1]["pods_accepted"] == 0);
  CHECK(p["models"][1]["gpu_seconds"] == 0);
  std::remove(fleet.c_str());
}

namespace {

// A fleet as it is of two models: node h, an H100 holding 1g.10gb and
// 3g.40gb and an empty one; node a, an A100 40GB holding one 7g.40gb.
constexpr std::string_view two_model_state =
    "version: 1\n"
    "nodes:\n"
    "  - name: h\n"
    "    gpu: h100-80gb\n"
    "    gpus:\n"
    "      - index: 0\n"
    "        instances:\n"
    "          - {profile: 1g.10gb, start: 0}\n"
    "          - {profile: 3g.40gb, start: 4}\n"
    "      - index: 1\n"
    "        instances: []\n"
    "  - name: a\n"
    "    gpu: a100-40gb\n"
    "    gpus:\n"
    "      - index: 0\n"
    "        instances:\n"
    "          - {profile: 7g.40gb, start: 0}\n";

}  // namespace

TEST_CASE("simulate --current replays a fleet of several models with its own geometries",
          "[simulate][models]") {
  // 1g.10gb and 3g.40gb are H100 profiles the H100 holds; a whole GPU is
  // the A100's 7g.40gb (the H100 holds no 7g.80gb); 2g.20gb is an H100
  // profile no GPU holds: static serves three pods, on-demand all four.
  const std::string state = temp_file("two-models.yaml", std::string(two_model_state));
  const std::string trace = temp_file("two-models.csv",
                                      "name,start,end,count,item\n"
                                      "a,0,10,1,1g.10gb\n"
                                      "b,0,10,1,gpu\n"
                                      "c,0,10,1,3g.40gb\n"
                                      "d,0,10,1,2g.20gb\n");
  const auto r = run_migplan({"simulate", "--trace", trace, "--current", state, "--json"});
  INFO(r.err);
  CHECK(r.code == 1);  // static rejects one pod
  const json j = json::parse(r.out);
  CHECK(j["fleet"]["current"] == state);
  CHECK(j["fleet"]["gpus"] == 3);
  CHECK(j["fleet"]["nodes"] == 2);
  REQUIRE(j["fleet"]["models"].size() == 2);
  CHECK(j["fleet"]["models"][0]["gpu"] == "h100-80gb");
  CHECK(j["fleet"]["models"][0]["gpus"] == 2);
  CHECK(j["fleet"]["models"][1]["gpu"] == "a100-40gb");
  CHECK(j["fleet"]["models"][1]["gpus"] == 1);
  CHECK(j["static_geometry"]["from"] == "current");
  CHECK(j["static_geometry"]["geometries"] ==
        json::parse(R"j([{"gpu":"h100-80gb","count":1,"instances":"1g.10gb@0 3g.40gb@4"},)j"
                    R"j({"gpu":"h100-80gb","count":1,"instances":"(none)"},)j"
                    R"j({"gpu":"a100-40gb","count":1,"instances":"7g.40gb@0"}])j"));
  // The default policies, static among them.
  REQUIRE(j["policies"].size() == 3);
  const json& fixed = j["policies"][0];
  CHECK(fixed["name"] == "static");
  CHECK(fixed["pods_accepted"] == 3);
  CHECK(fixed["pods_rejected"] == 1);
  CHECK(fixed["models"][0]["pods_accepted"] == 2);  // a and c on the H100
  CHECK(fixed["models"][1]["pods_accepted"] == 1);  // b on the A100's 7g.40gb
  for (std::size_t p = 1; p < 3; ++p) CHECK(j["policies"][p]["pods_accepted"] == 4);
  // The text names each geometry's model.
  const auto text = run_migplan({"simulate", "--trace", trace, "--current", state});
  CHECK(text.out.find("fleet: 3 GPUs of 2 models, 2 nodes of up to 2: 2 h100-80gb on 1 node, 1 "
                      "a100-40gb on 1 node, as " +
                      state + " has it\n") != std::string::npos);
  CHECK(text.out.find("      1 x a100-40gb: 7g.40gb@0\n") != std::string::npos);
  // Re-planning several models is refused, once, by name.
  const auto replan =
      run_migplan({"simulate", "--trace", trace, "--current", state, "--policy", "replan:1h"});
  CHECK(replan.code == 2);
  CHECK(replan.err == "migplan: --policy replan:1h: re-planning a fleet of several models (" +
                          state +
                          ") is not modelled (plan's fewest changes per model and window); give "
                          "static, static-pack or dynamic policies\n");
  std::remove(trace.c_str());
  std::remove(state.c_str());
}

TEST_CASE("simulate --current reads kubectl's nodes of several models", "[simulate][models]") {
  // The kubectl fixture's nodes hold H100s and A100s: replayed as they are.
  const auto r =
      run_migplan({"simulate", "--trace", "-", "--current", plan_fixture("kube-nodes.json"),
                   "--mig-config", plan_fixture("kube-config.yaml"), "--json"},
                  trace_csv);
  INFO(r.err);
  REQUIRE(r.code != 2);
  const json j = json::parse(r.out);
  REQUIRE(j["fleet"]["models"].size() == 2);
  long long gpus = 0;
  for (const json& g : j["static_geometry"]["geometries"]) gpus += g["count"].get<long long>();
  CHECK(gpus == j["fleet"]["gpus"].get<long long>());
  for (const json& p : j["policies"]) {
    long long accepted = 0;
    for (const json& m : p["models"]) accepted += m["pods_accepted"].get<long long>();
    CHECK(accepted == p["pods_accepted"].get<long long>());
  }
}

TEST_CASE("simulate suggests the --share or --plot-metric meant", "[simulate]") {
  const std::string pods = MIGPLAN_SOURCE_DIR "/examples/pods.csv";
  const auto share =
      run_migplan({"simulate", "--trace", pods, "--gpu", "h100-80gb", "--share", "memroy"});
  CHECK(share.code == 2);
  CHECK(share.out.empty());
  CHECK(share.err ==
        "migplan: unknown --share 'memroy' (did you mean memory?); it is compute or memory\n");
  const auto metric = run_migplan({"simulate", "--trace", pods, "--gpu", "h100-80gb", "--plot",
                                   "/dev/null", "--plot-metric", "gpu"});
  CHECK(metric.code == 2);
  CHECK(metric.err ==
        "migplan: unknown --plot-metric 'gpu' (did you mean gpus?); it is slices or gpus\n");
}

TEST_CASE("simulate: a row no model serves is bad input at its line, JSON included",
          "[simulate][cli]") {
  // doc/json.md: bad input found in a file (a trace too) adds its file and
  // line to --json's error document.
  const std::string trace =
      "name,start,end,count,item\n"
      "a,0,100,1,1g.10gb\n"
      "b,0,100,1,1g.6gb\n";
  const auto one = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--json"}, trace);
  CHECK(one.code == 2);
  CHECK(one.err == "migplan: <stdin>:3: no profile of h100-80gb serves '1g.6gb'\n");
  const json doc = json::parse(one.out);
  CHECK(doc["error"]["code"] == "bad_input");
  CHECK(doc["error"]["message"] == "<stdin>:3: no profile of h100-80gb serves '1g.6gb'");
  CHECK(doc["error"]["file"] == "<stdin>");
  CHECK(doc["error"]["line"] == 3);
  CHECK(doc["error"]["col"].is_null());
  // Sized on several models, the message says how a trace compares them:
  // with either model first.
  const std::string hint =
      "; sizing several models, every row must resolve on each: name a memory (mem=SIZE), whole "
      "GPUs (gpu) or a profile every model has\n";
  const auto later =
      run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpu", "a30", "--size"},
                  "name,start,end,count,item\na,0,100,1,1g.10gb\n");
  CHECK(later.code == 2);
  CHECK(later.err == "migplan: <stdin>:2: no profile of a30 serves '1g.10gb'" + hint);
  const auto first =
      run_migplan({"simulate", "--trace", "-", "--gpu", "a30", "--gpu", "h100-80gb", "--size"},
                  "name,start,end,count,item\na,0,100,1,1g.10gb\n");
  CHECK(first.code == 2);
  CHECK(first.err == "migplan: <stdin>:2: no profile of a30 serves '1g.10gb'" + hint);
  // The same rows as memory needs resolve on both.
  const auto mem =
      run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpu", "a30", "--size"},
                  "name,start,end,count,item\na,0,100,1,mem=5GiB\n");
  CHECK(mem.code == 0);
}

TEST_CASE("simulate --size: a pod no node holds is bad input at its row, JSON included",
          "[simulate][cli]") {
  const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--size", "--json"},
                             "name,start,end,count,item\na,0,10,1,1g.10gb\nb,0,100,1,9xgpu\n");
  CHECK(r.code == 2);
  const std::string message =
      "<stdin>:3: no node of 8 h100-80gb GPUs holds a pod of 9 whole GPUs: it needs 9 instances "
      "of 7g.80gb on one node, and a node holds 8 at most (pods no node holds: 1 of 2); no "
      "number of h100-80gb GPUs rejects at most 0% of pods (--gpus-per-node sets a node's GPUs)";
  CHECK(r.err == "migplan: " + message + "\n");
  const json doc = json::parse(r.out);
  CHECK(doc["error"]["message"] == message);
  CHECK(doc["error"]["file"] == "<stdin>");
  CHECK(doc["error"]["line"] == 3);
}

TEST_CASE("simulate --queue: a small replay's figures, worked by hand from the docs",
          "[simulate][cli]") {
  // Two A100-40GB GPUs, one per node, spread first fit, queued, instances
  // created in 1.5 s (2 s a pod of one). Worked from doc/simulate.md alone:
  // t=0   a1 node 0 3g@0, a2 node 1 3g@0 (score 100 > 57), a3 node 0 3g@4,
  //       b1 b2 node 1 1g.5gb@4, @5; all run from 2 (wait 2 each).
  // t=10  c (2g.10gb, no time) fits nowhere: queued.
  // t=50  d (a whole GPU) queues behind c.
  // t=52  b ends: c takes node 1 2g@4, runs at 54 (wait 44) and leaves.
  // t=102 a ends: d takes node 0, runs 104..254 (wait 54), past the end 200.
  const std::string trace =
      "name,start,end,count,item\n"
      "a,0,100,3,3g.20gb\n"
      "b,0,50,2,1g.5gb\n"
      "c,10,10,1,2g.10gb\n"
      "d,50,200,1,gpu\n";
  const auto r =
      run_migplan({"simulate", "--trace", "-", "--gpu", "a100-40gb", "--gpus", "2",
                   "--gpus-per-node", "1", "--policy", "spread-first-fit", "--queue", "--json"},
                  trace);
  REQUIRE(r.code == 0);
  const json p = json::parse(r.out)["policies"][0];
  CHECK(p["pods_accepted"] == 7);
  CHECK(p["instance_seconds"] == 3 * 100 + 2 * 50 + 150);  // durations, d's whole run
  // Node 0 busy 0..200; node 1 0..102 (a2, then b, then c).
  CHECK(p["gpu_seconds"] == 200 + 102);
  // Stranded slices: node 0 3g+3g (1 slice) 0..102; node 1 3g+1g+1g (1)
  // 0..52, 3g+2g (1) 52..54, 3g alone (4 free, 3 reachable) 54..102.
  CHECK(p["stranded_slice_seconds"] == 102 + 52 + 2 + 48);
  CHECK(p["makespan_seconds"] == 254);
  CHECK(p["creations"] == 7);
  CHECK(p["destructions"] == 6);  // d runs past the trace's end
  const json& q = p["queue"];
  CHECK(q["pods_started"] == 7);
  CHECK(q["pods_pending"] == 0);
  CHECK(q["wait_seconds"]["p50"] == 2);   // 4th of 2,2,2,2,2,44,54
  CHECK(q["wait_seconds"]["p95"] == 54);  // 7th
  CHECK(q["wait_seconds"]["max"] == 54);
  CHECK(q["peak"] == 2);                              // c and d from 50 to 52
  CHECK(q["pod_seconds"] == (52 - 10) + (102 - 50));  // queued until placed
  CHECK(p["on_demand"]["creation_wait_seconds"] == 7 * 2);
}

TEST_CASE("simulate: a trace line starting with '#' is a comment, a quoted '#' name a pod",
          "[simulate][cli]") {
  // doc/simulate.md, Traces: as in plan's demand CSV.
  const std::string trace =
      "# generated\n"
      "name,start,end,count,item\n"
      "#a,0,10,1,1g.5gb\n"
      "\"#b\",0,10,1,1g.5gb\n"
      "c,0,10,1,1g.5gb\n";
  const auto r = run_migplan(
      {"simulate", "--trace", "-", "--gpu", "a100-40gb", "--gpus", "1", "--json"}, trace);
  REQUIRE(r.code == 0);
  CHECK(json::parse(r.out)["trace"]["pods"] == 2);
}

TEST_CASE("simulate says when it drops fractions of a second from a trace's times", "[simulate]") {
  // The replay counts whole seconds: 00:00:01.5 is taken as 00:00:01, which
  // used to pass without a word. ".000" loses nothing and is not counted.
  const std::string head = "name,start,end,count,item\n";
  const auto r =
      run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--json"},
                  head +
                      "a,2023-07-01T00:00:00.000Z,2023-07-01T00:00:10Z,1,1g.10gb\n"
                      "b,2023-07-01T00:00:01.5Z,2023-07-01T00:00:09.25+00:00,1,1g.10gb\n");
  CHECK(r.code == 0);
  CHECK(r.err ==
        "migplan: warning: <stdin>:3: 2 times with a fraction of a second, taken as the whole "
        "second it is in: simulate replays whole seconds\n");
  const auto whole = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--json"},
                                 head +
                                     "a,2023-07-01T00:00:00Z,2023-07-01T00:00:10Z,1,1g.10gb\n"
                                     "b,2023-07-01T00:00:01Z,2023-07-01T00:00:09Z,1,1g.10gb\n");
  CHECK(whole.code == 0);
  CHECK(whole.err.empty());
  // The fractions dropped, the replay is the whole-second one.
  CHECK(r.out == whole.out);
}

TEST_CASE("a misspelt profile in a trace is suggested among the fleet's profiles",
          "[simulate][trace]") {
  // The suggestions came from every catalog model: "1g.7gb" on an a100-40gb
  // fleet offered 1g.6gb (an A30 profile) and 1g.47gb. pack on the same model
  // is the reference: its did-you-mean comes from that model's profiles.
  const std::string hint = migplan::test::pack_did_you_mean("a100-40gb", "1g.7gb");
  CHECK(hint.find("1g.6gb") == std::string::npos);
  CHECK(hint.find("1g.5gb") != std::string::npos);
  const std::vector<std::pair<std::string, std::string>> traces{
      {"name,start,end,count,item\np,0,10,1,1g.7gb\n", "<stdin>:2"},
      {"version: 1\npods:\n  - {start: 0, item: 1g.7gb}\n", "<stdin>:3"},
      {"{\"version\": 1,\n \"pods\": [{\"start\": 0, \"item\": \"1g.7gb\"}]}", "<stdin>:2"}};
  for (const auto& [trace, where] : traces) {
    INFO(trace);
    const auto r =
        run_migplan({"simulate", "-g", "a100-40gb", "--gpus", "2", "--trace", "-"}, trace);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "migplan: " + where + ": unknown profile '1g.7gb': no model has it" + hint + "\n");
  }
  // On an A30 fleet, the A30's own 1g.6gb is the nearest.
  const auto a30 = run_migplan({"simulate", "-g", "a30", "--gpus", "2", "--trace", "-"},
                               std::get<0>(traces.front()));
  CHECK(a30.code == 2);
  CHECK(a30.err.find("did you mean 1g.6gb") != std::string::npos);
}

TEST_CASE("a trace field holding a line break is refused as such, at the line it starts",
          "[simulate][trace]") {
  // RFC 4180 lets a quoted field hold a line break; the trace reader reads a row a
  // line, and said "a quoted field has no closing quote", though the quote closes
  // on the next line.
  const std::string message =
      "a quoted field is not closed on the line where it starts: a field may not hold a line "
      "break";
  const auto r = run_migplan({"simulate", "-g", "a100-40gb", "--gpus", "2", "--trace", "-"},
                             "name,start,end,count,item\n"
                             "ok,0,10,1,1g.5gb\n"
                             "\"a\nb\",0,10,1,1g.5gb\n");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "migplan: <stdin>:3: " + message + "\n");
  // A quote never closed reads the same: the reader cannot tell the two apart.
  const auto open = run_migplan({"simulate", "-g", "a100-40gb", "--gpus", "2", "--trace", "-"},
                                "name,start,end,count,item\n\"a,0,10,1,1g.5gb\n");
  CHECK(open.err == "migplan: <stdin>:2: " + message + "\n");
}

TEST_CASE("simulate says a mixed trace spans years only where it does", "[simulate]") {
  // Whole seconds that are themselves epoch times lie beside the dates: the
  // warning stays (the forms are mixed), the claim of a span does not.
  const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb"},
                             "name,start,end,count,item\na,1688170000,1688170100,1,1g.10gb\n"
                             "b,2023-07-01T00:00:00Z,2023-07-01T00:10:00Z,1,1g.10gb\n");
  CHECK(r.code == 0);
  CHECK(r.err ==
        "migplan: warning: <stdin>: times mix whole seconds (line 2) and RFC 3339 dates (line 3); "
        "seconds count from 1970-01-01T00:00:00Z: write every time one way\n");
}

TEST_CASE("simulate refuses a re-plan period that makes millions of re-plans", "[simulate]") {
  // replan:1s over a trace of 10^8 seconds re-planned 10^8 times: a run
  // that did not end (killed after minutes); times may reach 10^12 s.
  const std::string trace =
      "name,start,end,count,item\na,0,10,1,1g.10gb\nb,100000000,100000010,1,1g.10gb\n";
  const auto r = run_migplan(
      {"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "1", "--policy", "replan:1s"},
      trace);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "migplan: --policy replan:1s re-plans 100000009 times over the trace's 100000010 s; at "
        "most 1000000: give a period of 100s or more\n");
  const auto oracle = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "1",
                                   "--policy", "replan-oracle:99s"},
                                  trace);
  CHECK(oracle.code == 2);
  CHECK(oracle.err ==
        "migplan: --policy replan-oracle:99s re-plans 1010101 times over the trace's 100000010 "
        "s; at most 1000000: give a period of 100s or more\n");
  // A period that keeps to the limit replays as before.
  const auto hourly = run_migplan(
      {"simulate", "--trace", "-", "--gpu", "h100-80gb", "--gpus", "1", "--policy", "replan:1h"},
      trace);
  CHECK(hourly.code == 0);
}

TEST_CASE("simulate refuses --trace and --static-plan both on standard input", "[simulate]") {
  // The trace took standard input, and --static-plan then read it empty:
  // "<stdin>:1: invalid json: ... unexpected end of input", as --fleet
  // and --current already say.
  const auto r =
      run_migplan({"simulate", "--trace", "-", "--static-plan", "-", "--gpu", "h100-80gb"},
                  "name,start,end,count,item\na,0,10,1,1g.10gb\n");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "migplan: --trace and --static-plan cannot both read standard input\n");
}

TEST_CASE("simulate refuses a trace csv pod name with a control character", "[simulate]") {
  // It was replayed, the byte carried into the output.
  const std::string trace = "name,start,end,count,item\nok,0,10,1,1g.10gb\nx\x01,0,10,1,1g.10gb\n";
  const auto r = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb"}, trace);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "migplan: <stdin>:3: name 'x\\x01' holds a control character\n");
  const auto j = run_migplan({"simulate", "--trace", "-", "--gpu", "h100-80gb", "--json"}, trace);
  CHECK(j.code == 2);
  const json doc = json::parse(j.out);
  CHECK(doc["error"]["line"] == 3);
  CHECK(doc["error"]["col"] == 1);
}

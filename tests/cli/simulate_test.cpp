// SPDX-License-Identifier: Apache-2.0
// `migplan simulate` end to end: the policies side by side, the static plan,
// sizing (a count where the target holds and one fewer where it does not),
// and bad input with its exact message and exit code 2.

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "render/progress.hpp"
#include "run_binary.hpp"

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
          "[simulate]") {
  const json j = simulate({"--size", "--gpus-per-node", "2"}, 0);
  for (const json& p : j["policies"]) {
    const int n = p["sized_gpus"].get<int>();
    const std::string name = p["name"].get<std::string>();
    INFO(name << " sized at " << n);
    const json at =
        simulate({"--policy", name, "--gpus", std::to_string(n), "--gpus-per-node", "2"}, 0);
    CHECK(at["policies"][0]["pods_rejected"] == 0);
    if (n > 1) {
      const json below =
          simulate({"--policy", name, "--gpus", std::to_string(n - 1), "--gpus-per-node", "2"}, 1);
      CHECK(below["policies"][0]["pods_rejected"].get<int>() > 0);
    }
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
        "static-pack, spread-first-fit, spread-best-fit, pack-first-fit, pack-best-fit\n");
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

TEST_CASE("the progress line stays quiet for a second and leaves nothing behind", "[progress]") {
  std::ostringstream off;
  {
    migplan::cli::render::progress_line line(off, false);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    CHECK_FALSE(line.due());
    line.show("never");
  }
  CHECK(off.str().empty());

  std::ostringstream on;
  {
    migplan::cli::render::progress_line line(on, true);
    CHECK_FALSE(line.due());
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    CHECK(line.due());
    line.show("abc");
    CHECK_FALSE(line.due());
    line.show("a");
  }
  // Each rewrite covers the last; the end blanks the line and returns to its start.
  CHECK(on.str() == "\rabc\ra  \r \r");
}

// SPDX-License-Identifier: Apache-2.0
// Golden tests of the built binary: stdout, stderr and exit code, checked separately.

#include <algorithm>
#include <catch2/catch.hpp>
#include <migplan/catalog.hpp>
#include <migplan/search.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "io/names.hpp"
#include "models.hpp"
#include "run_binary.hpp"

using migplan::test::run_migplan;
using json = nlohmann::json;

namespace {

json parse_json(const std::string& text) { return json::parse(text); }

// Every JSON line of a --batch run.
std::vector<json> parse_lines(const std::string& text) {
  std::vector<json> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    out.push_back(json::parse(text.substr(pos, nl - pos)));
    pos = nl == std::string::npos ? text.size() : nl + 1;
  }
  return out;
}

// The commands `migplan --help` lists under "Subcommands:".
std::vector<std::string> help_commands() {
  const std::string help = run_migplan({"--help"}).out;
  std::vector<std::string> out;
  std::size_t at = help.find("Subcommands:\n");
  REQUIRE(at != std::string::npos);
  at = help.find('\n', at) + 1;
  while (at < help.size() && help.compare(at, 2, "  ") == 0) {
    const std::size_t from = help.find_first_not_of(' ', at);
    out.push_back(help.substr(from, help.find(' ', from) - from));
    at = help.find('\n', at) + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("pack prints the design-notes layout with its diagram", "[cli][pack]") {
  const auto r = run_migplan({"pack", "4g.20gb", "2g.10gb", "1g.5gb"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      "a100-40gb  NVIDIA A100-SXM4-40GB  (8 placement units, 7 compute slices)\n"
      "request  4g.20gb 2g.10gb 1g.5gb\n"
      "fits: 1 layout\n"
      "\n"
      "  unit      0  1  2  3  4  5  6  7\n"
      "  memory   [A  A  A  A][B  B][C][~]\n"
      "  compute  [#######]  7 of 7 slices used\n"
      "           # used  . free  ~ stranded (free, but nothing can use it)\n"
      "\n"
      "      profile           id  start  units      memory   SMs\n"
      "  A   4g.20gb            5      0    0-3   19.50 GiB    56\n"
      "  B   2g.10gb           14      4    4-5    9.62 GiB    28\n"
      "  C   1g.5gb            19      6      6    4.75 GiB    14\n"
      "\n"
      "  free      1 unit (7), 0 compute slices\n"
      "  stranded  1 unit (4.91 GiB), 0 compute slices: free, but no further instance can use it\n"
      "  can add   nothing\n");
}

TEST_CASE("pack explains a request that does not fit and exits 1", "[cli][pack]") {
  const auto r = run_migplan({"pack", "--gpu", "h100-80gb", "3x3g.40gb"});
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(r.out ==
        "h100-80gb  NVIDIA H100 80GB HBM3  (8 placement units, 7 compute slices)\n"
        "request  3x3g.40gb\n"
        "does not fit (instance_cap): 3g.40gb allows at most 2 instances on h100-80gb (the "
        "request has 3)\n"
        "\n"
        "closest fits:\n"
        "  drop 3g.40gb              -> 3g.40gb@0 3g.40gb@4\n");
}

TEST_CASE("pack --json follows schema version 1", "[cli][pack][json]") {
  const auto r =
      run_migplan({"pack", "--gpu", "a100-40gb", "--json", "3g.20gb", "2g.10gb", "2x1g.5gb"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  const json j = parse_json(r.out);
  CHECK(j["schema_version"] == 1);
  CHECK(j["gpu"]["id"] == "a100-40gb");
  CHECK(j["gpu"]["name"] == "NVIDIA A100-SXM4-40GB");
  CHECK(j["gpu"]["description"] == "NVIDIA A100-SXM4-40GB");
  CHECK(j["request"] == json({"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}));
  CHECK(j["request_starts"] == json({nullptr, nullptr, nullptr, nullptr}));
  CHECK(j["feasible"] == true);
  CHECK(j["layout_count"] == 2);
  REQUIRE(j["layouts"].size() == 1);
  const json& l = j["layouts"][0];
  REQUIRE(l["instances"].size() == 4);
  int last = -1;
  for (const json& in : l["instances"]) {
    CHECK(in["start"].get<int>() > last);  // sorted by start
    last = in["start"].get<int>();
    CHECK(in.contains("profile"));
    CHECK(in.contains("profile_id"));
    CHECK(in.contains("size"));
  }
  // Each instance with its default compute instance (CI profile 2 of a 3g.20gb owns all
  // three of its compute slices).
  CHECK(l["instances"][3] ==
        json::parse(R"({"profile": "3g.20gb", "profile_id": 9, "start": 4, "size": 4,
          "compute_instances": [{"profile": "3g.20gb", "profile_id": 2, "start": 0, "size": 3}]})"));
  CHECK(l["free_units"] == json::array());
  CHECK(l["stranded"] == json({{"units", 0}, {"compute_slices", 0}, {"memory_gib", 0.0}}));
  CHECK(j["reason"].is_null());
  CHECK(j["closest"] == json::array());

  const auto all = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--json", "--all", "3g.20gb", "2g.10gb", "2x1g.5gb"});
  CHECK(parse_json(all.out)["layouts"].size() == 2);
}

TEST_CASE("pack --json on a request that does not fit carries the reason and closest fits",
          "[cli][pack][json]") {
  const auto r = run_migplan({"pack", "--json", "7x1g.5gb", "3g.20gb"});
  CHECK(r.code == 1);
  const json j = parse_json(r.out);
  CHECK(j["feasible"] == false);
  CHECK(j["layout_count"] == 0);
  CHECK(j["layouts"] == json::array());
  CHECK(j["reason"]["code"] == "memory_units");
  CHECK(
      j["reason"]["message"] ==
      "7 x 1g.5gb (1 unit each) + 1 x 3g.20gb (4 units) = 11 placement units but a100-40gb has 8");
  CHECK(j["reason"]["profiles"] == json({"1g.5gb", "3g.20gb"}));
  REQUIRE(j["closest"].size() == 1);
  CHECK(j["closest"][0]["drop"] == json({"3g.20gb"}));
  CHECK(j["closest"][0]["layout"]["instances"].size() == 7);
}

TEST_CASE("pack names the smallest conflicting subset of pinned starts", "[cli][pack]") {
  const auto r = run_migplan({"pack", "--json", "3g.20gb@0", "4g.20gb"});
  CHECK(r.code == 1);
  const json j = parse_json(r.out);
  CHECK(j["reason"]["code"] == "placement");
  CHECK(j["reason"]["profiles"] == json({"3g.20gb", "4g.20gb"}));
  CHECK(j["request_starts"] == json({0, nullptr}));
  CHECK(j["closest"].size() == 2);
}

TEST_CASE("a request that fits on several GPUs the same way is answered once", "[cli][pack]") {
  const auto r = run_migplan({"pack", "--json", "2g.20gb"});
  CHECK(r.code == 0);
  const json j = parse_json(r.out);
  CHECK(j["gpu"]["id"] == "h100-80gb");  // captured tables before inferred ones
  CHECK(j["same_answer_on"] == json({"h100-pcie", "a100-80gb"}));
}

TEST_CASE("a request whose answer depends on the GPU asks for --gpu", "[cli][pack]") {
  const auto r = run_migplan({"pack", "5x1g.10gb"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "migplan: the gpu is ambiguous: these profiles exist on several gpus with different "
        "answers; pass --gpu:\n"
        "  a100-40gb: does not fit (instance_cap)\n"
        "  h100-80gb, h100-pcie, a100-80gb: fits (21 layouts; preferred 1g.10gb@0 1g.10gb@1 "
        "1g.10gb@2 1g.10gb@3 1g.10gb@4)\n");
}

TEST_CASE("bad input gets one clear message and exit code 2", "[cli][errors]") {
  struct bad {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<bad> cases{
      {{"pack", "0x1g.5gb"}, "migplan: count 0 in '0x1g.5gb' must be at least 1\n"},
      {{"pack", "-1x1g.5gb"}, "migplan: count -1 in '-1x1g.5gb' must be at least 1\n"},
      {{"pack", "99999999999x1g.5gb"},
       "migplan: count 99999999999 in '99999999999x1g.5gb' is too large (at most 1000)\n"},
      {{"pack", "1g.5gb@9"},
       "migplan: start 9 in '1g.5gb@9' is outside a100-40gb's placement units 0-7\n"},
      {{"pack", "1g.5gb@x"},
       "migplan: invalid start 'x' in '1g.5gb@x': expected a placement unit number\n"},
      {{"pack"}, "migplan: no profiles given; try 'migplan pack 4g.20gb 2g.10gb 1g.5gb'\n"},
      {{"pack", ""}, "migplan: no profiles given\n"},
      {{"pack", "3g.20g"},
       "migplan: unknown profile '3g.20g' (did you mean 3g.20gb, 4g.20gb or 1g.20gb?); 'migplan "
       "profiles' lists them\n"},
      {{"pack", "--gpu", "a100-40g", "1g.5gb"},
       "migplan: unknown gpu 'a100-40g' (did you mean a100-40gb?); 'migplan gpus' lists them\n"},
      {{"pack", "--gpu", "a100-40gb", "1g.24gb+me.all"},
       "migplan: unknown profile '1g.24gb+me.all' on a100-40gb (it is a profile of "
       "rtx-pro-6000 and rtx-pro-5000)\n"},
      {{"pack", "1g.5gb", "1g.24gb+me.all"},
       "migplan: no single gpu has all of these profiles:\n  1g.5gb: a100-40gb\n  1g.24gb+me.all: "
       "rtx-pro-6000, rtx-pro-5000\n"},
      {{"pack", "--batch", "/nonexistent/requests.txt", "--brief"},
       "migplan: cannot read '/nonexistent/requests.txt': No such file or directory\n"},
      {{"pakc", "1g.5gb"},
       "migplan: unknown command 'pakc' (did you mean pack?); 'migplan --help' lists them\n"},
      {{"enumerate"}, "migplan: --gpu is required\n"},
      {{"fit", "--gpu", "a100-40gb", "--memory", "12"},
       "migplan: size '12' has no unit: use Gi or GiB, Mi or MiB, Ti or TiB (powers of 2), or G or "
       "GB, M or MB, T or TB (powers of 10)\n"},
      // An unknown option: the nearest one the command takes.
      {{"pack", "--jsno", "1g.5gb"},
       "migplan: the following argument was not expected: --jsno (did you mean --json?)\n"},
      {{"check", "--strcit", "x.yaml"},
       "migplan: the following argument was not expected: --strcit (did you mean --strict?)\n"},
      {{"plan", "--time-limt=5", "1g.10gb"},
       "migplan: the following argument was not expected: --time-limt=5 (did you mean "
       "--time-limit?)\n"},
      {{"gpus", "--gpu-fil", "m.json"},
       "migplan: the following arguments were not expected: m.json --gpu-fil (did you mean "
       "--gpu-file?)\n"},
      {{"fit", "--gpu", "a30", "--memory", "1Gi", "--zzzzzz"},
       "migplan: the following argument was not expected: --zzzzzz\n"},
      {{"check", "-x", "x.yaml"}, "migplan: the following argument was not expected: -x\n"},
      // Anything beside --version was answered as if it were alone, exit 0.
      {{"--version", "extra"}, "migplan: the following argument was not expected: extra\n"},
      {{"--version", "pack", "1g.5gb"},
       "migplan: the following arguments were not expected: pack 1g.5gb\n"},
      {{"--version", "--bogus"}, "migplan: the following argument was not expected: --bogus\n"},
      {{"--version", "--", "x"}, "migplan: the following arguments were not expected: -- x\n"},
      {{"--bogus", "--version"}, "migplan: the following argument was not expected: --bogus\n"},
      {{"-x", "--gpu-file", "f.json", "--version"},
       "migplan: the following argument was not expected: -x\n"},
  };
  for (const bad& b : cases) {
    INFO("args: " << Catch::Detail::stringify(b.args));
    const auto r = run_migplan(b.args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == b.err);
  }
}

TEST_CASE("bad input asked for as JSON is also one JSON error document on stdout",
          "[cli][errors]") {
  // --json, --format json, and --batch's JSON lines (before the first line):
  // the message on stderr, and a document a pipe into jq can read.
  const std::vector<std::vector<std::string>> cases{
      {"pack", "--json", "--gpu", "a100-40gb", "--bogus"},
      {"pack", "--json", "--gpu", "a100", "1g.5gb"},
      {"pack", "--batch", "/nonexistent/requests.txt"},
      {"pack", "--json", "--batch", "/nonexistent/requests.txt"},
      {"fit", "--json", "--gpu", "h100-80gb"},
      {"enumerate", "--json", "--gpu", "a100-40g"},
      {"profiles", "--json", "--gpu", ""},
      {"gpus", "--json", "extra"},
      {"check", "--format", "json", "--gpu", "nope", "x.yaml"},
      {"check", "--format=json"},
  };
  for (const auto& args : cases) {
    INFO("args: " << Catch::Detail::stringify(args));
    const auto r = run_migplan(args);
    CHECK(r.code == 2);
    REQUIRE(r.err.rfind("migplan: ", 0) == 0);
    const auto doc = json::parse(r.out);
    CHECK(doc["schema_version"] == 1);
    CHECK(doc["error"]["code"] == "bad_input");
    // The same message, once, on each stream.
    CHECK("migplan: " + doc["error"]["message"].get<std::string>() + "\n" == r.err);
  }
  // Without JSON asked for, stdout stays empty.
  CHECK(run_migplan({"fit", "--gpu", "h100-80gb"}).out.empty());
}

TEST_CASE("a start the profile does not allow is an answer, not an error", "[cli][pack]") {
  const auto r = run_migplan({"pack", "--json", "1g.5gb@7"});
  CHECK(r.code == 1);
  const json j = parse_json(r.out);
  CHECK(j["reason"]["code"] == "bad_start");
  CHECK(j["reason"]["message"] ==
        "1g.5gb cannot start at unit 7 on a100-40gb: its allowed starts are {0,1,2,3,4,5,6}");
}

TEST_CASE("pack --batch answers one JSON line per request and keeps going after bad lines",
          "[cli][pack][batch]") {
  const std::string input =
      "# header comment\n"
      "3g.20gb 3g.20gb\n"
      "\n"
      "7g.40gb 1g.5gb\n"
      "2x1g.5gbb\n"
      "4g.20gb, 2g.10gb, 1g.5gb   # commas are fine\n";
  const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "--batch", "-"}, input);
  CHECK(r.code == 2);  // one line was bad input
  CHECK(r.err.empty());
  const auto lines = parse_lines(r.out);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0]["line"] == 2);
  CHECK(lines[0]["feasible"] == true);
  CHECK(lines[1]["line"] == 4);
  CHECK(lines[1]["feasible"] == false);
  CHECK(lines[1]["reason"]["code"] == "memory_units");
  CHECK(lines[2]["line"] == 5);
  CHECK(lines[2]["error"]["code"] == "bad_input");
  CHECK(lines[2]["error"]["message"] ==
        "unknown profile '1g.5gbb' on a100-40gb (did you mean 1g.5gb or 1g.5gb+me?)");
  CHECK(lines[3]["line"] == 6);
  CHECK(lines[3]["layout_count"] == 1);

  const auto ok =
      run_migplan({"pack", "--gpu", "a100-40gb", "--batch", "-"}, "7g.40gb\n4x1g.10gb\n");
  CHECK(ok.code == 0);
  const auto some_no =
      run_migplan({"pack", "--gpu", "a100-40gb", "--batch", "-"}, "7g.40gb\n8x1g.5gb\n");
  CHECK(some_no.code == 1);
}

TEST_CASE("every command answers --help with exit 0 and its exit codes", "[cli][help]") {
  const auto top = run_migplan({"--help"});
  CHECK(top.code == 0);
  CHECK(top.out.find("Exit codes: 0 fits or valid, 1 does not fit or invalid, 2 bad input or "
                     "usage,\n3 no plan found within plan's --time-limit.\n") != std::string::npos);
  const std::vector<std::string> commands = help_commands();
  CHECK(commands.size() == 11);
  for (const std::string& cmd : commands) {
    INFO(cmd);
    const auto r = run_migplan({cmd, "--help"});
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    CHECK(r.out.find("Usage: migplan " + cmd) != std::string::npos);
    CHECK(r.out.find("\nExit codes: 0 ") != std::string::npos);
  }
  const auto none = run_migplan({});  // the usage, on stderr (names_test.cpp checks it)
  CHECK(none.code == 2);
  CHECK(none.err.starts_with("migplan: exact planner"));
}

TEST_CASE("each command's --help fits one screen and names its man page", "[cli][help]") {
  for (const std::string cmd :
       {"pack", "gpus", "profiles", "enumerate", "fit", "check", "emit-config", "import", "plan"}) {
    INFO(cmd);
    const auto r = run_migplan({cmd, "--help"});
    std::size_t lines = 0;
    std::size_t start = 0;
    for (std::size_t end; (end = r.out.find('\n', start)) != std::string::npos; start = end + 1) {
      ++lines;
      INFO(r.out.substr(start, end - start));
      CHECK(end - start <= 80);
    }
    // plan has sixteen options and a three-line sketch of the fleet file:
    // six lines more than a 24-line screen's share.
    CHECK(lines <= (cmd == "plan" ? 30U : 24U));
    CHECK(r.out.find("\nExample: migplan " + cmd + " ") != std::string::npos);
    CHECK(r.out.ends_with("\nSee migplan-" + cmd + "(1).\n"));
  }
}

TEST_CASE("each --help example that needs no file answers yes", "[cli][help]") {
  std::size_t ran = 0;
  for (const std::string& cmd : help_commands()) {
    const std::string help = run_migplan({cmd, "--help"}).out;
    const std::string head = "\nExample: migplan ";
    const std::size_t at = help.find(head);
    REQUIRE(at != std::string::npos);
    std::istringstream line(
        help.substr(at + head.size(), help.find('\n', at + 1) - at - head.size()));
    std::vector<std::string> args;
    for (std::string word; line >> word;) args.push_back(word);
    // Examples that read or write files, or need a shell, are the man pages'
    // examples_test's to run.
    const bool files = std::any_of(args.begin(), args.end(), [](const std::string& w) {
      return w.find('/') != std::string::npos || w == ">" || w.ends_with(".csv") ||
             w.ends_with(".yaml") || w.ends_with(".json") || w.ends_with(".txt");
    });
    if (files) continue;
    INFO(Catch::Detail::stringify(args));
    const auto r = run_migplan(args);
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    ++ran;
  }
  CHECK(ran == 6);  // pack, gpus, profiles, enumerate, fit and plan
}

TEST_CASE("plan --help's sketch of a fleet file is a fleet file plan reads", "[cli][help]") {
  const std::string help = run_migplan({"plan", "--help"}).out;
  const std::string head = "\nFleet file (YAML or JSON; nodes, or models, or both): ";
  std::size_t at = help.find(head);
  REQUIRE(at != std::string::npos);
  // Its first line after the head, then the lines indented under it.
  at += head.size();
  std::string fleet = help.substr(at, help.find('\n', at) + 1 - at);
  for (at = help.find('\n', at) + 1; help.compare(at, 2, "  ") == 0; at = help.find('\n', at) + 1)
    fleet += help.substr(at + 2, help.find('\n', at) + 1 - at - 2);
  const auto r = run_migplan({"plan", "--fleet", "-", "--json", "20x1g.10gb"}, fleet);
  INFO(fleet << r.err);
  REQUIRE(r.code == 0);
  const json j = parse_json(r.out);
  // 7 1g.10gb per H100 (seven compute slices): 3 GPUs for 20, at 2.5 each.
  CHECK(j["gpu_count"] == 3);
  CHECK(j["cost"] == 7.5);
}

TEST_CASE("every command's --gpu takes -g and is a MODEL in its --help", "[cli][help]") {
  for (const std::string& cmd : help_commands()) {
    INFO(cmd);
    const std::string help = run_migplan({cmd, "--help"}).out;
    // gpus and import take no --gpu.
    if (help.find(",--gpu ") == std::string::npos && help.find("\n  --gpu ") == std::string::npos)
      continue;
    CHECK(help.find("\n  -g,--gpu MODEL ") != std::string::npos);
  }
}

TEST_CASE("gpus, profiles and enumerate list the catalog in JSON", "[cli][json]") {
  const json gpus = parse_json(run_migplan({"gpus", "--json"}).out);
  CHECK(gpus["schema_version"] == 1);
  CHECK(gpus["gpus"].size() == migplan::catalog().size());
  CHECK(gpus["gpus"][0]["id"] == "a30");

  const auto prof = run_migplan({"profiles", "--gpu", "0x2BB510DE", "--json"});
  CHECK(prof.code == 0);
  const json p = parse_json(prof.out);
  REQUIRE(p["gpus"].size() == 1);
  CHECK(p["gpus"][0]["units"] == 12);
  CHECK(p["gpus"][0]["profiles"][0]["starts"] == json({0, 3, 6, 9}));

  const auto inferred = parse_json(run_migplan({"profiles", "--gpu", "h200", "--json"}).out);
  CHECK(inferred["gpus"][0]["profiles"][0]["inferred"] == json({"placements"}));

  const auto e = run_migplan({"enumerate", "--gpu", "a30", "--json"});
  CHECK(e.code == 0);
  const json ej = parse_json(e.out);
  CHECK(ej["geometry_count"] == ej["geometries"].size());
  std::uint64_t sum = 0;
  std::size_t maximal = 0;
  for (const json& g : ej["geometries"]) {
    sum += g["layout_count"].get<std::uint64_t>();
    if (g["maximal"].get<bool>()) ++maximal;
  }
  CHECK(ej["layout_count"] == sum);
  CHECK(ej["maximal_count"] == maximal);
  const json em = parse_json(run_migplan({"enumerate", "--gpu", "a30", "--maximal", "--json"}).out);
  CHECK(em["geometries"].size() == maximal);
}

TEST_CASE("fit sizes a workload and says when nothing is big enough", "[cli][fit]") {
  const auto r = run_migplan({"fit", "--gpu", "h100-80gb", "--memory", "12GiB", "--count", "20"});
  CHECK(r.code == 0);
  CHECK(r.out ==
        "h100-80gb: 1g.20gb (19.62 GiB, 26 SMs) is the smallest profile with at least 12288 MiB\n"
        "one gpu holds 4 of it: 1g.20gb@0 1g.20gb@2 1g.20gb@4 1g.20gb@6\n"
        "20 instances need 5 gpus\n"
        "each full gpu strands 0 units (0.00 GiB) and 3 compute slices\n");
  const auto big = run_migplan({"fit", "--gpu", "a100-40gb", "--memory", "41Gi"});
  CHECK(big.code == 1);
  CHECK(big.out ==
        "a100-40gb: no profile has at least 41984 MiB; the largest is 7g.40gb (39.25 GiB)\n");
  const auto j =
      parse_json(run_migplan({"fit", "--gpu", "a100-40gb", "--memory", "4864MiB", "--json"}).out);
  CHECK(j["profile"]["name"] == "1g.5gb");
  CHECK(j["per_gpu"] == 7);
  const auto j2 =
      parse_json(run_migplan({"fit", "--gpu", "a100-40gb", "--memory", "4865MiB", "--json"}).out);
  CHECK(j2["profile"]["name"] == "1g.10gb");
}

TEST_CASE("pack --batch --brief prints one tab-separated line per request", "[cli][pack][batch]") {
  const std::string input = "4g.20gb 2g.10gb 1g.5gb\n# skipped\n3x3g.20gb\n1g.5gbb\n";
  const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "--batch", "-", "--brief"}, input);
  CHECK(r.code == 2);
  CHECK(r.err.empty());
  CHECK(r.out ==
        "1\ta100-40gb\tfits\t1\t4g.20gb@0 2g.10gb@4 1g.5gb@6\n"
        "3\ta100-40gb\tno_fit\t0\tinstance_cap\n"
        "4\t-\terror\t0\tunknown profile '1g.5gbb' on a100-40gb (did you mean 1g.5gb or "
        "1g.5gb+me?)\n");
  const auto lone = run_migplan({"pack", "--brief", "1g.5gb"});
  CHECK(lone.code == 2);
  CHECK(lone.err == "migplan: --brief needs --batch\n");
}

TEST_CASE("a request that does not fit says where it fits as asked", "[cli][pack]") {
  // 1g.10gb is a two-unit profile capped at 4 on A100-40GB but a one-unit one on 80GB boards.
  const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "--json", "5x1g.10gb"});
  CHECK(r.code == 1);
  const json j = parse_json(r.out);
  CHECK(j["reason"]["code"] == "instance_cap");
  CHECK(j["also_fits_on"] == json({"a100-80gb", "h100-80gb", "h100-pcie"}));
  // 1g.35gb is profile 15 (two units, cap 4) on H200 but profile 19 (cap 7) on GB300.
  const json h200 = parse_json(run_migplan({"pack", "--gpu", "h200", "--json", "5x1g.35gb"}).out);
  CHECK(h200["also_fits_on"] == json({"gb300"}));
  CHECK(h200["inferred"] == json({{{"profile", "1g.35gb"}, {"fields", {"placements"}}}}));
}

TEST_CASE("pack --all shows every layout with its score", "[cli][pack]") {
  const auto r =
      run_migplan({"pack", "--gpu", "a100-40gb", "--all", "3g.20gb", "2g.10gb", "2x1g.5gb"});
  CHECK(r.code == 0);
  CHECK(r.out.find("fits: 2 layouts, the one that keeps the most room first\n") !=
        std::string::npos);
  CHECK(r.out.find("layout 1 of 2\n") != std::string::npos);
  CHECK(r.out.find("layout 2 of 2\n") != std::string::npos);
  CHECK(
      r.out.find("  score     reaches 0 more units and 0 more compute slices; 0 ways to grow\n") !=
      std::string::npos);
  CHECK(r.out.find("other layout") == std::string::npos);  // nothing left unshown
}

TEST_CASE("profiles marks inferred values and names its sources", "[cli][profiles]") {
  const auto r = run_migplan({"profiles", "--gpu", "h200"});
  CHECK(r.code == 0);
  CHECK(r.out.find("  1g.18gb            19     7    1      16.00    16   1   1   0   1   0  "
                   "{0,1,2,3,4,5,6}:1*\n") != std::string::npos);
  CHECK(r.out.find("; * inferred by analogy, not captured") != std::string::npos);
  CHECK(r.out.find("data/captures/h200-lgip-fragment-gpu6-issue120.txt") != std::string::npos);
  const auto full = run_migplan({"profiles", "--gpu", "a100-40gb"});
  CHECK(full.out.find('*') == std::string::npos);  // nothing inferred on a fully captured model
}

TEST_CASE("gpus lists every model with its coverage", "[cli][gpus]") {
  const auto r = run_migplan({"gpus"});
  CHECK(r.code == 0);
  CHECK(r.out.starts_with(
      "gpu           units compute     memory  coverage     min driver  pci ids\n"
      "a30               4       4  24576 MiB  full         460.73.01   0x20B710DE\n"));
  // A '?' marks a mapping no capture shows: a sibling's table, from NVIDIA's
  // mig-parted config (H800, H100 96GB, PG506-96GB) or the MIG guide (RTX PRO editions).
  // The min driver is NVIDIA's MIG guide's, '?' where no source gives one for the board;
  // a model with no known PCI ID ends there.
  for (const char* line : {
           "h100-80gb         8       7  81559 MiB  full         525.85.12   0x233010DE "
           "0x232410DE?\n",
           "h100-pcie         8       7  81559 MiB  full         525.85.12   0x233110DE? "
           "0x232210DE?\n",
           "gh200-96gb        8       7          ?  partial      ?           0x234210DE "
           "0x233D10DE? 0x20B610DE?\n",
           "h200              8       7          ?  partial      550.90.07   0x233510DE "
           "0x233B10DE?\n",
           "rtx-pro-6000     12       4  97887 MiB  full         575.51.03   0x2BB510DE "
           "0x2BB110DE? 0x2BB410DE?\n",
           "rtx-pro-5000      6       2          ?  config-only  575.57.08   0x2BB310DE?\n",
           "rtx-pro-4500      4       2          ?  config-only  575.64\n",
       }) {
    INFO(line);
    CHECK(r.out.find(line) != std::string::npos);
  }
}

TEST_CASE("every gpu name in JSON output is an nvidia-smi name --gpu takes back",
          "[cli][json][gpus][exhaustive]") {
  const json gpus = parse_json(run_migplan({"gpus", "--json"}).out);
  const json profiles = parse_json(run_migplan({"profiles", "--json"}).out);
  REQUIRE(gpus["gpus"].size() == migplan::catalog().size());
  REQUIRE(profiles["gpus"].size() == gpus["gpus"].size());
  for (std::size_t i = 0; i < gpus["gpus"].size(); ++i) {
    const json& g = gpus["gpus"][i];
    const std::string slug = g["id"].get<std::string>();
    INFO(slug);
    // A description is prose; the name is the first nvidia-smi name, or null.
    CHECK_FALSE(g["description"].get<std::string>().empty());
    CHECK(profiles["gpus"][i]["name"] == g["name"]);
    CHECK(profiles["gpus"][i]["description"] == g["description"]);
    if (g["smi_names"].empty()) {
      CHECK(g["name"].is_null());
      continue;
    }
    REQUIRE(g["name"].is_string());
    const std::string name = g["name"].get<std::string>();
    CHECK(name == g["smi_names"][0].get<std::string>());
    // The same lookup --gpu uses, in-process and through the binary.
    const auto resolved = migplan::cli::resolve_gpu(migplan::cli::builtin_models(), name);
    REQUIRE(resolved);
    CHECK((*resolved)->slug == slug);
    const auto r = run_migplan({"profiles", "--gpu", name, "--json"});
    CHECK(r.code == 0);
    CHECK(parse_json(r.out)["gpus"][0]["id"] == slug);
    // pack's gpu object names the model the same way.
    const std::string first = profiles["gpus"][i]["profiles"].back()["name"].get<std::string>();
    const json pack = parse_json(run_migplan({"pack", "--gpu", slug, "--json", first}).out);
    CHECK(pack["gpu"] == json({{"id", slug}, {"name", name}, {"description", g["description"]}}));
  }
}

TEST_CASE("pack's note names the requested profiles with inferred values, in agreement",
          "[cli][pack]") {
  // From the catalog: on the first model with two inferred profiles that fit
  // together, the note says "has" for one and "have" for two.
  bool found = false;
  for (const migplan::gpu_model& g : migplan::catalog()) {
    std::vector<int> inferred;
    for (std::size_t p = 0; p < g.profiles.size(); ++p)
      if (g.profiles[p].inferred()) inferred.push_back(static_cast<int>(p));
    const migplan::rules r(g);
    for (std::size_t i = 0; i < inferred.size() && !found; ++i)
      for (std::size_t j = i + 1; j < inferred.size() && !found; ++j) {
        const std::vector<migplan::item> two{{inferred[i]}, {inferred[j]}};
        if (!migplan::fits(r, two)) continue;
        found = true;
        const std::string slug(g.slug);
        const std::string a(g.profiles[static_cast<std::size_t>(inferred[i])].name);
        const std::string b(g.profiles[static_cast<std::size_t>(inferred[j])].name);
        INFO(slug << ": " << a << " " << b);
        const auto one = run_migplan({"pack", "--gpu", slug, a});
        CHECK(one.out.find("\nnote: " + a + " on " + slug +
                           " has values inferred by analogy, "
                           "not captured; 'migplan profiles --gpu " +
                           slug + "' shows which\n") != std::string::npos);
        const auto both = run_migplan({"pack", "--gpu", slug, a, b, a});
        CHECK(both.out.find("\nnote: " + a + ", " + b + " on " + slug +
                            " have values inferred by analogy") != std::string::npos);
      }
    if (found) break;
  }
  CHECK(found);
}

TEST_CASE("enumerate and fit name the profiles they rest on with inferred values",
          "[cli][enumerate][fit][exhaustive]") {
  // On every catalog model: enumerate's "inferred" lists exactly the profiles
  // of its geometries that the catalog marks inferred, with each one's fields,
  // and the text's note names the same ones, or is absent.
  for (const migplan::gpu_model& g : migplan::catalog()) {
    const std::string slug(g.slug);
    INFO(slug);
    const json doc = parse_json(run_migplan({"enumerate", "--gpu", slug, "--json"}).out);
    std::vector<std::string> listed;
    for (const json& geo : doc["geometries"])
      for (const json& p : geo["profiles"])
        if (std::find(listed.begin(), listed.end(), p.get<std::string>()) == listed.end())
          listed.push_back(p.get<std::string>());
    // What `profiles` says of each profile, in catalog order.
    const json rows =
        parse_json(run_migplan({"profiles", "--gpu", slug, "--json"}).out)["gpus"][0]["profiles"];
    json expected = json::array();
    std::string names;
    for (const json& p : rows) {
      const std::string name = p["name"].get<std::string>();
      if (!p["inferred"].empty() && std::find(listed.begin(), listed.end(), name) != listed.end()) {
        expected.push_back({{"profile", name}, {"fields", p["inferred"]}});
        names += (names.empty() ? "" : ", ") + name;
      }
    }
    CHECK(doc["inferred"] == expected);
    const std::string text = run_migplan({"enumerate", "--gpu", slug}).out;
    if (expected.empty())
      CHECK(text.find("inferred") == std::string::npos);
    else
      CHECK(text.ends_with("\nnote: " + names + " on " + slug +
                           (expected.size() == 1 ? " has" : " have") +
                           " values inferred by analogy, not captured; 'migplan profiles --gpu " +
                           slug + "' shows which\n"));
  }
  // fit: the note follows the chosen profile.
  for (const migplan::gpu_model& g : migplan::catalog()) {
    const std::string slug(g.slug);
    INFO(slug);
    const json doc =
        parse_json(run_migplan({"fit", "--gpu", slug, "--memory", "1Gi", "--json"}).out);
    if (!doc["fits"].get<bool>()) continue;
    const std::string chosen = doc["profile"]["name"].get<std::string>();
    const bool inferred = !doc["profile"]["inferred"].empty();
    const std::string text = run_migplan({"fit", "--gpu", slug, "--memory", "1Gi"}).out;
    CHECK((text.find("\nnote: " + chosen + " on " + slug + " has values inferred by analogy") !=
           std::string::npos) == inferred);
  }
}

TEST_CASE("fit cannot size a model whose profile memory is unknown", "[cli][fit]") {
  const auto r = run_migplan({"fit", "--gpu", "b300", "--memory", "10G"});
  CHECK(r.code == 1);
  CHECK(r.out.starts_with("b300: the memory of its profiles is unknown, so it cannot be sized"));
  CHECK(r.out.find("note: not considered, values unknown: 1g.34gb, 1g.34gb+me, 1g.67gb, 2g.67gb, "
                   "3g.135gb, 4g.135gb, 7g.269gb\n") != std::string::npos);
}

TEST_CASE("migplan --version names the release and the catalog's data revision", "[cli]") {
  const auto r = run_migplan({"--version"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  // The revision is the hash gen_catalog.py writes (CI checks the header is current).
  const std::string revision(migplan::catalog_revision());
  CHECK(revision.size() == 12);
  CHECK(revision.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(r.out ==
        std::string("migplan ") + MIGPLAN_PROJECT_VERSION + " (catalog data " + revision + ")\n");
}

TEST_CASE("a request answered once is answered alike on every model it names", "[cli][pack]") {
  // Without --gpu, "same answer on M" must hold for all the answer says, as
  // pack --gpu M answers it: the preferred layout, what it strands and can
  // still take, and where the request does not fit, the closest fits and
  // theirs.
  const std::vector<std::vector<std::string>> requests = {
      {"2g.20gb"},
      {"3g.40gb", "1g.10gb"},
      {"1g.23gb"},
      {"4x1g.18gb", "1g.18gb+me"},
      {"2x1g.24gb", "1g.24gb+gfx", "2x1g.24gb+me"},
      {"2x1g.24gb+me"},
      {"4x3g.40gb"},
      {"5x1g.10gb"},
  };
  // An answer less what is the named model's own data (memory, profile IDs).
  const auto essence = [](const json& j) {
    const auto room = [](const json& l) {
      json insts = json::array();
      for (const json& i : l["instances"]) insts.push_back({i["profile"], i["start"]});
      return json{insts,
                  l["free_units"],
                  l["free_compute_slices"],
                  l["score"],
                  {l["stranded"]["units"], l["stranded"]["compute_slices"]},
                  l["addable"]};
    };
    json out = {{"feasible", j["feasible"]}, {"layout_count", j["layout_count"]}};
    if (!j["layouts"].empty()) out["layout"] = room(j["layouts"][0]);
    json closest = json::array();
    for (const json& c : j["closest"]) closest.push_back({c["drop"], room(c["layout"])});
    out["closest"] = closest;
    return out;
  };
  int answered_once = 0;
  for (const auto& request : requests) {
    std::vector<std::string> args = {"pack", "--json"};
    args.insert(args.end(), request.begin(), request.end());
    const auto r = run_migplan(args);
    INFO(r.out);
    if (r.code == 2) continue;  // ambiguous: each answer is listed on its own
    const json j = parse_json(r.out);
    const json expected = essence(j);
    for (const json& other : j["same_answer_on"]) {
      ++answered_once;
      std::vector<std::string> on = {"pack", "--json", "--gpu", other.get<std::string>()};
      on.insert(on.end(), request.begin(), request.end());
      INFO(other.get<std::string>());
      CHECK(essence(parse_json(run_migplan(on).out)) == expected);
    }
  }
  CHECK(answered_once >= 3);  // 2g.20gb, 3g.40gb 1g.10gb: h100-pcie and a100-80gb
}

TEST_CASE("models whose closest fits differ do not give the same answer", "[cli][pack]") {
  // Two 1g.24gb+me break the cap of one on both RTX PRO boards, but dropping
  // one leaves four one-slice instances: they fit the 6000's 4 compute
  // slices, not the 5000's 2. The answers differ, so the GPU must be named.
  const std::vector<std::string> kept = {"2x1g.24gb", "1g.24gb+gfx", "1g.24gb+me"};
  auto on = [&](const std::string& gpu) {
    std::vector<std::string> args = {"pack", "--gpu", gpu};
    args.insert(args.end(), kept.begin(), kept.end());
    return run_migplan(args).code;
  };
  REQUIRE(on("rtx-pro-6000") == 0);
  REQUIRE(on("rtx-pro-5000") == 1);
  const auto r = run_migplan({"pack", "2x1g.24gb", "1g.24gb+gfx", "2x1g.24gb+me"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("\n  rtx-pro-6000: does not fit (instance_cap); closest fit: drop "
                   "1g.24gb+me -> ") != std::string::npos);
  CHECK(r.err.find("\n  rtx-pro-5000: does not fit (instance_cap); closest fit: drop ") !=
        std::string::npos);
  // Alike closest fits on boards of 12 and 6 units leave different room:
  // two answers, each on its own line.
  const auto two = run_migplan({"pack", "2x1g.24gb+me"});
  CHECK(two.code == 2);
  CHECK(two.err ==
        "migplan: the gpu is ambiguous: these profiles exist on several gpus with different "
        "answers; pass --gpu:\n"
        "  rtx-pro-6000: does not fit (instance_cap); closest fit: drop 1g.24gb+me -> "
        "1g.24gb+me@0, 9 units and 3 compute slices free\n"
        "  rtx-pro-5000: does not fit (instance_cap); closest fit: drop 1g.24gb+me -> "
        "1g.24gb+me@0, 3 units and 1 compute slice free\n");
}

TEST_CASE("models that all refuse a CI split alike answer once", "[cli][pack]") {
  // No model with a 2g.20gb lists its CI profiles, so each refuses the split
  // for the same reason; the message names the model, the answer is one.
  std::vector<std::string> holders;
  for (const char* gpu : {"h100-80gb", "h100-pcie", "a100-80gb"}) {
    const json p = parse_json(run_migplan({"profiles", "--ci", "--json", "--gpu", gpu}).out);
    for (const json& prof : p["gpus"][0]["profiles"])
      if (prof["name"] == "2g.20gb") {
        CHECK((!prof.contains("ci_profiles") || prof["ci_profiles"].is_null() ||
               prof["ci_profiles"].empty()));
        holders.push_back(gpu);
      }
  }
  REQUIRE(holders.size() == 3);
  const auto r = run_migplan({"pack", "--json", "2g.20gb[1c,1c]"});
  REQUIRE(r.code == 1);
  const json j = parse_json(r.out);
  CHECK(j["reason"]["code"] == "unknown_ci_profile");
  CHECK(j["gpu"]["id"] == "h100-80gb");
  CHECK(j["same_answer_on"] == json({"h100-pcie", "a100-80gb"}));
}

TEST_CASE("fit says no profile considered where some profiles have unknown memory", "[cli][fit]") {
  // b200's 3g.90gb, 4g.90gb and 7g.180gb have no captured memory: they are not
  // considered (migplan-fit(1)), and one of them may well hold 50 GiB, so "no profile
  // has at least 51200 MiB" said what no one knows.
  const auto r = run_migplan({"fit", "--gpu", "b200", "--memory", "50Gi"});
  CHECK(r.code == 1);
  CHECK(r.out ==
        "b200: no profile considered has at least 51200 MiB; the largest is 2g.45gb (44.25 "
        "GiB)\n"
        "note: not considered, values unknown: 3g.90gb, 4g.90gb, 7g.180gb\n");
  // Where every profile's memory is known, "no profile" stays.
  const auto all = run_migplan({"fit", "--gpu", "a100-40gb", "--memory", "41Gi"});
  CHECK(all.out.starts_with("a100-40gb: no profile has at least 41984 MiB"));
}

TEST_CASE("pack with a gpu and no profiles points at that gpu's profiles", "[cli][errors]") {
  // The a100-40gb example would be unknown profiles on an a30.
  const auto r = run_migplan({"pack", "--gpu", "a30"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "migplan: no profiles given; 'migplan profiles --gpu a30' lists them\n");
  const auto bad_gpu = run_migplan({"pack", "--gpu", "a31"});
  CHECK(bad_gpu.code == 2);
  CHECK(bad_gpu.err.starts_with("migplan: unknown gpu 'a31'"));
}

TEST_CASE("migplan --version refuses an argument after it", "[cli][errors]") {
  // Anything after --version was answered as if it were alone, exit 0; the
  // usage-error table above has the plain cases. Asked for as JSON, the
  // refusal is a JSON error document too.
  const auto j = run_migplan({"--version", "--json"});
  CHECK(j.code == 2);
  CHECK(j.out.find("the following argument was not expected: --json") != std::string::npos);
  // --gpu-file stays allowed on either side, as before.
  const auto ok = run_migplan({"--version", "--gpu-file", "/nonexistent.json"});
  CHECK(ok.code == 0);
  CHECK(ok.out.starts_with("migplan "));
}

TEST_CASE("migplan --version refuses an argument before it", "[cli][errors]") {
  // An unknown option ahead of --version was passed over, exit 0 (the
  // usage-error table above has those cases).
  const auto ok = run_migplan({"--gpu-file=/nonexistent.json", "--version"});
  CHECK(ok.code == 0);
  CHECK(ok.out.starts_with("migplan "));
  // After a command word, --version is that command's unknown option.
  const auto sub = run_migplan({"pack", "--version"});
  CHECK(sub.code == 2);
  CHECK(sub.err == "migplan: the following argument was not expected: --version\n");
}

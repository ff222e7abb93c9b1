// SPDX-License-Identifier: Apache-2.0
// pack --current: the GPU instances an `nvidia-smi mig -lgi` listing shows stay
// where they are, and new items are placed around them.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "run_binary.hpp"
#include "smi_tables.hpp"

using migplan::test::run_migplan;
using migplan::test::source_path;
using json = nlohmann::json;

namespace {

using migplan::test::lgi_line;
using migplan::test::lgi_table;

std::string capture(const std::string& name) { return source_path("data/captures/" + name); }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The addable profiles of the preferred layout: "name@{starts}+max_more".
std::vector<std::string> addable(const json& doc) {
  std::vector<std::string> out;
  for (const json& a : doc["layouts"][0]["addable"]) {
    std::string starts;
    for (const json& s : a["starts"]) starts += (starts.empty() ? "" : ",") + s.dump();
    out.push_back(a["profile"].get<std::string>() + "@{" + starts + "}+" + a["max_more"].dump());
  }
  return out;
}

}  // namespace

TEST_CASE("a full H100 blocks one more 1g.10gb and leaves nothing to add", "[cli][current]") {
  const std::string file = capture("h100-80gb-hbm3-lgi-7x1g.txt");
  const auto r =
      run_migplan({"pack", "--gpu", "h100-80gb", "--json", "--current", file, "1g.10gb"});
  CHECK(r.code == 1);
  const json j = json::parse(r.out);
  CHECK(j["feasible"] == false);
  CHECK(j["blocked_by_current"] == true);
  REQUIRE(j["current"].size() == 7);
  CHECK(j["current"][0] == json::parse(R"({"profile": "1g.10gb", "profile_id": 19, "start": 0,
                                           "size": 1, "instance_id": 7,
                                           "compute_instances": []})"));
  // The reason is the existing instances: removing any one would make room
  // (the cap of seven), and the first such is named.
  CHECK(j["reason"]["code"] == "blocked_by_current");
  CHECK(j["reason"]["rule"] == "instance_cap");
  REQUIRE(j["reason"]["blocking"].size() == 1);
  CHECK(j["reason"]["blocking"][0]["instance_id"] == 7);
  CHECK(j["gpu_index"] == 0);
  CHECK(j["request"].size() == 8);
  CHECK(j["request_starts"][0] == 0);
  CHECK(j["request_starts"][7].is_null());

  const auto text = run_migplan({"pack", "--gpu", "h100-80gb", "--current", file, "1g.10gb"});
  CHECK(text.code == 1);
  CHECK(text.out.find("\ndoes not fit (blocked_by_current): ") != std::string::npos);
  CHECK(text.out.find("\nblocked by existing instances: the new ones fit on an empty GPU; "
                      "removing 1g.10gb@0 (GI 7) would make room\n") != std::string::npos);

  const auto live = run_migplan({"pack", "--gpu", "h100-80gb", "--json", "--current", file});
  CHECK(live.code == 0);
  const json l = json::parse(live.out);
  CHECK(l["current"].size() == 7);
  CHECK(l["blocked_by_current"] == false);
  CHECK(l["layout_count"] == 1);
  CHECK(addable(l).empty());
}

TEST_CASE("the A100-40GB -lgi examples leave no room for any profile", "[cli][current]") {
  // By hand, from `migplan profiles --gpu a100-40gb` (8 units, 7 compute slices):
  // example1: 3g.20gb@0, 3g.20gb@4: every unit used, 1 compute slice stranded.
  // example2: 1g.5gb@0, 1g.5gb@1, 2g.10gb@2, 3g.20gb@4: every unit and slice used.
  // example3: 1g.5gb@0,1,2,3,6 and 2g.10gb@4: unit 7 free, but no profile
  // starts at 7 and every compute slice is used; 1 unit stranded.
  struct expected {
    const char* file;
    std::size_t instances;
    int free_units, stranded_units, stranded_compute;
  };
  for (const expected& e : {expected{"a100-40gb-lgi-example1.txt", 2, 0, 0, 1},
                            expected{"a100-40gb-lgi-example2.txt", 4, 0, 0, 0},
                            expected{"a100-40gb-lgi-example3.txt", 6, 1, 1, 0}}) {
    INFO(e.file);
    const auto r =
        run_migplan({"pack", "--gpu", "a100-40gb", "--json", "--current", capture(e.file)});
    CHECK(r.code == 0);
    const json j = json::parse(r.out);
    CHECK(j["current"].size() == e.instances);
    CHECK(j["layout_count"] == 1);
    const json& l = j["layouts"][0];
    CHECK(l["free_units"].size() == static_cast<std::size_t>(e.free_units));
    CHECK(l["stranded"]["units"] == e.stranded_units);
    CHECK(l["stranded"]["compute_slices"] == e.stranded_compute);
    CHECK(addable(j).empty());
  }
  // The new item fits on an empty A100-40GB, so the existing instances block it.
  const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "--json", "--current",
                              capture("a100-40gb-lgi-example1.txt"), "1g.5gb"});
  CHECK(r.code == 1);
  CHECK(json::parse(r.out)["blocked_by_current"] == true);
  // Eight 1g.5gb fit on no A100-40GB: not blocked by the existing instances.
  const auto cap = run_migplan({"pack", "--gpu", "a100-40gb", "--json", "--current",
                                capture("a100-40gb-lgi-example1.txt"), "8x1g.5gb"});
  CHECK(cap.code == 1);
  CHECK(json::parse(cap.out)["blocked_by_current"] == false);
}

TEST_CASE("pack --current - reads the listing from stdin and places new items around it",
          "[cli][current]") {
  const std::string listing = lgi_table({lgi_line(0, "3g.20gb", 9, 1, "4:4")});
  const auto r =
      run_migplan({"pack", "--gpu", "a100-40gb", "--json", "--current", "-", "3g.20gb"}, listing);
  CHECK(r.err.empty());
  CHECK(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j["blocked_by_current"] == false);
  // The new instance comes with its default compute instance; the existing one's CIs
  // are what the listing says (none here), so it carries none.
  CHECK(j["layouts"][0]["instances"] == json::parse(R"([
    {"profile": "3g.20gb", "profile_id": 9, "start": 0, "size": 4,
     "compute_instances": [{"profile": "3g.20gb", "profile_id": 2, "start": 0, "size": 3}]},
    {"profile": "3g.20gb", "profile_id": 9, "start": 4, "size": 4}])"));
  // With no items: what the one 3g.20gb at 4 leaves room for, by hand from the
  // A100-40GB starts: units 0-3 and 4 compute slices, so any profile of at
  // most 4 units that starts in 0-3 (1g.5gb+me and 4g.20gb once each).
  const auto live =
      run_migplan({"pack", "--gpu", "a100-40gb", "--json", "--current", "-"}, listing);
  CHECK(live.code == 0);
  CHECK(addable(json::parse(live.out)) ==
        std::vector<std::string>{"1g.5gb@{0,1,2,3}+4", "1g.5gb+me@{0,1,2,3}+1", "1g.10gb@{0,2}+2",
                                 "2g.10gb@{0,2}+2", "3g.20gb@{0}+1", "4g.20gb@{0}+1"});
}

TEST_CASE("a listing of two GPUs is answered a GPU at a time, or for the one --index names",
          "[cli][current]") {
  const std::string listing =
      lgi_table({lgi_line(0, "3g.20gb", 9, 1, "4:4"), lgi_line(1, "4g.20gb", 5, 1, "0:4"),
                 lgi_line(1, "1g.5gb", 19, 7, "6:1")});
  // GPU 0 has room for a 3g.20gb at 0; GPU 1 (4g.20gb at 0-3, 1g.5gb at 6)
  // has 3 compute slices left but no 4-unit start free.
  const auto each =
      run_migplan({"pack", "--gpu", "a100-40gb", "--current", "-", "3g.20gb"}, listing);
  CHECK(each.code == 1);
  CHECK(each.out.rfind("GPU 0\na100-40gb ", 0) == 0);
  const std::size_t second = each.out.find("\n\nGPU 1\na100-40gb ");
  REQUIRE(second != std::string::npos);
  CHECK(each.out.substr(0, second).find("fits: 1 layout") != std::string::npos);
  CHECK(each.out.substr(second).find("does not fit (") != std::string::npos);

  // --json: one document per line, each naming its GPU.
  const auto lines =
      run_migplan({"pack", "--gpu", "a100-40gb", "--json", "--current", "-", "3g.20gb"}, listing);
  CHECK(lines.code == 1);
  const std::size_t nl = lines.out.find('\n');
  REQUIRE(nl != std::string::npos);
  REQUIRE(nl + 1 < lines.out.size());
  CHECK(lines.out.back() == '\n');
  const json gpu0 = json::parse(lines.out.substr(0, nl));
  const json gpu1 = json::parse(lines.out.substr(nl + 1));
  CHECK(gpu0["gpu_index"] == 0);
  CHECK(gpu0["feasible"] == true);
  CHECK(gpu1["gpu_index"] == 1);
  CHECK(gpu1["feasible"] == false);
  CHECK(gpu1["current"].size() == 2);

  const auto one = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--json", "--current", "-", "--index", "1"}, listing);
  CHECK(one.code == 0);
  const json j = json::parse(one.out);
  REQUIRE(j["current"].size() == 2);
  CHECK(j["gpu_index"] == 1);
  CHECK(j["current"][0]["profile"] == "4g.20gb");
  CHECK(j["current"][1]["instance_id"] == 7);

  const auto missing =
      run_migplan({"pack", "--gpu", "a100-40gb", "--current", "-", "--index", "2"}, listing);
  CHECK(missing.code == 2);
  CHECK(missing.err == "migplan: <stdin>: the listing has no GPU 2 (it lists GPU 0, 1)\n");
}

TEST_CASE("the fewest existing instances that block are named", "[cli][current]") {
  // 2g.10gb@0, 1g.5gb@2, 3g.20gb@4 use 6 of 7 compute slices and leave unit 3.
  // A new 3g.20gb needs 3 slices and 4 units: removing the 3g.20gb at 4 does
  // it alone. A new 4g.20gb starts only at 0: both small ones must go.
  const std::string listing =
      lgi_table({lgi_line(0, "2g.10gb", 14, 3, "0:2"), lgi_line(0, "1g.5gb", 19, 4, "2:1"),
                 lgi_line(0, "3g.20gb", 9, 1, "4:4")});
  const auto r =
      run_migplan({"pack", "--gpu", "a100-40gb", "--json", "--current", "-", "3g.20gb"}, listing);
  CHECK(r.code == 1);
  const json j = json::parse(r.out);
  CHECK(j["reason"]["code"] == "blocked_by_current");
  REQUIRE(j["reason"]["blocking"].size() == 1);
  CHECK(j["reason"]["blocking"][0]["profile"] == "3g.20gb");
  CHECK(j["reason"]["blocking"][0]["instance_id"] == 1);
  const auto four =
      run_migplan({"pack", "--gpu", "a100-40gb", "--json", "--current", "-", "4g.20gb"}, listing);
  CHECK(four.code == 1);
  const json f = json::parse(four.out);
  REQUIRE(f["reason"]["blocking"].size() == 2);
  CHECK(f["reason"]["blocking"][0]["instance_id"] == 3);
  CHECK(f["reason"]["blocking"][1]["instance_id"] == 4);
  // Two new 1g.5gb need unit 3 and one more unit: removing any one instance
  // frees units and slices enough; the first listed (the 2g.10gb) is named.
  const auto two =
      run_migplan({"pack", "--gpu", "a100-40gb", "--json", "--current", "-", "2x1g.5gb"}, listing);
  CHECK(two.code == 1);
  const json k = json::parse(two.out);
  REQUIRE(k["reason"]["blocking"].size() == 1);
  CHECK(k["reason"]["blocking"][0]["instance_id"] == 3);
}

TEST_CASE("compute instances of an -lci listing after the -lgi listing are carried through",
          "[cli][current]") {
  const std::string both = read_text(capture("h100-80gb-hbm3-lgi-7x1g.txt")) +
                           read_text(capture("h100-80gb-hbm3-lci-7x1g.txt"));
  const auto r = run_migplan({"pack", "--gpu", "h100-80gb", "--json", "--current", "-"}, both);
  CHECK(r.err.empty());
  CHECK(r.code == 0);
  const json j = json::parse(r.out);
  REQUIRE(j["current"].size() == 7);
  for (const json& gi : j["current"]) {
    INFO(gi.dump());
    REQUIRE(gi["compute_instances"].size() == 1);
    CHECK(gi["compute_instances"][0] ==
          json::parse(R"({"profile": "1g.10gb", "profile_id": 0, "instance_id": 0,
                          "start": 0, "size": 1})"));
  }
  const auto text = run_migplan({"pack", "--gpu", "h100-80gb", "--current", "-"}, both);
  CHECK(text.out.find("existing 1g.10gb@0 (GI 7; CI 0 1g.10gb@0), ") != std::string::npos);

  // A compute instance of a GPU instance the -lgi listing lacks, and one
  // wider than its GPU instance: one message each, at the -lci row's line.
  const std::string lgi = lgi_table({lgi_line(0, "3g.20gb", 9, 1, "4:4")});
  const auto lci = [](const std::string& row) {
    return "+------------------------------------------------------------------+\n"
           "| Compute instances:                                               |\n"
           "| GPU     GPU       Name             Profile   Instance   Placement  |\n"
           "|       Instance                       ID        ID       Start:Size |\n"
           "|         ID                                                         |\n"
           "|====================================================================|\n" +
           row + "+--------------------------------------------------------------------+\n";
  };
  const std::size_t lgi_lines = static_cast<std::size_t>(std::count(lgi.begin(), lgi.end(), '\n'));
  const std::string row_line = std::to_string(lgi_lines + 7);
  const auto orphan = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--current", "-"},
      lgi + lci("|   0      2       MIG 1c.3g.20gb       0         0          0:1     |\n"));
  CHECK(orphan.code == 2);
  CHECK(orphan.err == "migplan: <stdin>:" + row_line +
                          ": compute instance 0 belongs to GPU instance 2, which the -lgi listing "
                          "of GPU 0 does not show\n");
  const auto wide = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--current", "-"},
      lgi + lci("|   0      1       MIG 2c.3g.20gb       1         0          2:2     |\n"));
  CHECK(wide.code == 2);
  CHECK(wide.err == "migplan: <stdin>:" + row_line +
                        ": compute instance 0 at 2:2 does not fit in GPU instance 1 (3g.20gb, 3 "
                        "compute slices)\n");
}

TEST_CASE("a migplan pack --json answer is a --current file", "[cli][current]") {
  const auto planned = run_migplan({"pack", "--gpu", "a100-40gb", "--json", "3g.20gb", "2g.10gb"});
  REQUIRE(planned.code == 0);
  // Its preferred layout (2g.10gb@0, 3g.20gb@4) stays; --gpu is optional.
  const auto r = run_migplan({"pack", "--json", "--current", "-", "2x1g.5gb"}, planned.out);
  CHECK(r.err.empty());
  CHECK(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j["gpu"]["id"] == "a100-40gb");
  REQUIRE(j["current"].size() == 2);
  CHECK(j["current"][0]["instance_id"].is_null());
  CHECK(j["gpu_index"].is_null());
  CHECK(j["layouts"][0]["instances"].size() == 4);
  const auto third = run_migplan({"pack", "--current", "-", "3g.20gb"}, planned.out);
  CHECK(third.code == 1);
  CHECK(third.out.find("does not fit (blocked_by_current)") != std::string::npos);

  const auto other = run_migplan({"pack", "--gpu", "h100-80gb", "--current", "-"}, planned.out);
  CHECK(other.code == 2);
  CHECK(other.err == "migplan: <stdin>: the answer is for a100-40gb, not for --gpu h100-80gb\n");
  const auto no_fit = run_migplan({"pack", "--gpu", "a100-40gb", "--json", "8x1g.5gb"});
  const auto empty = run_migplan({"pack", "--current", "-"}, no_fit.out);
  CHECK(empty.code == 2);
  CHECK(empty.err == "migplan: <stdin>: the answer holds no layout (its request does not fit)\n");
  const auto broken = run_migplan({"pack", "--current", "-"}, "{\n  \"gpu\": [\n");
  CHECK(broken.code == 2);
  CHECK(broken.err.rfind("migplan: <stdin>:3:1: not valid JSON: ", 0) == 0);
  const auto index = run_migplan({"pack", "--current", "-", "--index", "0"}, planned.out);
  CHECK(index.code == 2);
  // The compute instances an answer planned are kept with their GPU instance.
  const auto split = run_migplan({"pack", "--gpu", "a100-40gb", "--json", "3g.20gb[2c,1c]"});
  REQUIRE(split.code == 0);
  const auto kept = run_migplan({"pack", "--json", "--current", "-", "2g.10gb"}, split.out);
  CHECK(kept.code == 0);
  const json k = json::parse(kept.out);
  REQUIRE(k["current"].size() == 1);
  CHECK(k["current"][0]["compute_instances"] == json::parse(R"([
    {"profile": "2c.3g.20gb", "profile_id": 1, "instance_id": 0, "start": 0, "size": 2},
    {"profile": "1c.3g.20gb", "profile_id": 0, "instance_id": 1, "start": 2, "size": 1}])"));
}

TEST_CASE("a listing without GPU instances and no items reports the empty GPU", "[cli][current]") {
  const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "--json", "--current", "-"},
                             "No GPU instances found: Not Found\n");
  CHECK(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j["current"].empty());
  CHECK(j["feasible"] == true);
  CHECK(j["layouts"][0]["free_units"].size() == 8);
}

TEST_CASE("a listing that does not match the model is bad input naming the culprit",
          "[cli][current]") {
  const auto run = [](const std::vector<std::string>& rows) {
    return run_migplan({"pack", "--gpu", "a100-40gb", "--current", "-"}, lgi_table(rows));
  };
  const auto unknown = run({lgi_line(0, "1g.5gb", 99, 1, "0:1")});
  CHECK(unknown.code == 2);
  CHECK(unknown.err ==
        "migplan: <stdin>:6: the listing does not match a100-40gb: a100-40gb has no profile ID 99 "
        "(listed as 1g.5gb)\n");
  const auto renamed = run({lgi_line(0, "1g.10gb", 19, 1, "0:1")});
  CHECK(renamed.code == 2);
  CHECK(renamed.err ==
        "migplan: <stdin>:6: the listing does not match a100-40gb: profile ID 19 is 1g.5gb "
        "there, the listing says 1g.10gb\n");
  const auto start = run({lgi_line(0, "3g.20gb", 9, 1, "2:4")});
  CHECK(start.code == 2);
  CHECK(start.err ==
        "migplan: <stdin>:6: the listing does not match a100-40gb: 3g.20gb (GI 1) starts at 2, "
        "not an allowed start of 3g.20gb\n");
  // Instances that do not overlap but cannot coexist: one 1g.5gb+me at most.
  const auto together =
      run({lgi_line(0, "1g.5gb+me", 20, 1, "0:1"), lgi_line(0, "1g.5gb+me", 20, 2, "1:1")});
  CHECK(together.code == 2);
  CHECK(together.err ==
        "migplan: <stdin>: the listing does not match a100-40gb: 1g.5gb+me allows at most 1 "
        "instance on a100-40gb (the request has 2)\n");
  // Overlapping instances: the reader's message, pointing into the file.
  const auto overlap =
      run({lgi_line(0, "3g.20gb", 9, 1, "4:4"), lgi_line(0, "1g.5gb", 19, 2, "6:1")});
  CHECK(overlap.code == 2);
  CHECK(overlap.err ==
        "migplan: <stdin>:8: GPU 0 instance 2 at 6:1 overlaps instance 1 at 4:4 (line 6)\n");
}

TEST_CASE("an nvidia-smi listing needs --gpu, and its reading errors point into the file",
          "[cli][current]") {
  const std::string file = capture("a100-40gb-lgi-example1.txt");
  const auto nogpu = run_migplan({"pack", "--current", file, "1g.5gb"});
  CHECK(nogpu.code == 2);
  CHECK(nogpu.err ==
        "migplan: " + file + ": an nvidia-smi listing does not name the GPU model; pass --gpu\n");
  // place and simulate tell a listing by the same rule, and say the same.
  const auto place = run_migplan({"place", "1g.5gb", "--current", file});
  CHECK(place.code == 2);
  CHECK(place.err == nogpu.err);
  const auto simulate = run_migplan({"simulate", "--trace", "-", "--current", file},
                                    "name,start,end,count,item\na,0,10,1,1g.5gb\n");
  CHECK(simulate.err == nogpu.err);
  const auto plan = run_migplan({"plan", "--current", file, "1g.5gb"});
  CHECK(plan.code == 2);
  CHECK(plan.err == "migplan: " + file +
                        ": an nvidia-smi listing does not name the GPU model or the node; plan "
                        "--current reads a state file or kubectl's nodes\n");
  // What is neither an answer nor a listing is not called a listing.
  const auto neither = run_migplan({"pack", "--current", "-", "1g.5gb"}, "version: 1\n");
  CHECK(neither.err ==
        "migplan: <stdin>: neither a pack --json answer nor an nvidia-smi listing\n");
  const auto index = run_migplan({"pack", "--gpu", "a100-40gb", "--index", "0", "1g.5gb"});
  CHECK(index.code == 2);
  CHECK(index.err == "migplan: --index needs --current or --emit\n");
  const auto json_err =
      run_migplan({"pack", "--json", "--gpu", "a100-40gb", "--current", "-"}, "garbage\n");
  CHECK(json_err.code == 2);
  CHECK(json_err.err.rfind("migplan: <stdin>:1: ", 0) == 0);
  CHECK(json::parse(json_err.out)["error"]["code"] == "bad_input");
  const auto absent = run_migplan({"pack", "--gpu", "a100-40gb", "--current", "/nonexistent/lgi"});
  CHECK(absent.code == 2);
  CHECK(absent.err.rfind("migplan: cannot read '/nonexistent/lgi': ", 0) == 0);
}

TEST_CASE("an answer for one GPU of a listing, read back, is for that GPU again",
          "[cli][current]") {
  // GPU 3 of a listing: its answer names gpu_index 3, and what is made of
  // the answer read back must target GPU 3, as what is made of the listing.
  const std::string listing = lgi_table({lgi_line(3, "3g.20gb", 9, 1, "4:4")});
  const auto answer =
      run_migplan({"pack", "--current", "-", "--gpu", "a100-40gb", "--json"}, listing);
  REQUIRE(answer.code == 0);
  REQUIRE(json::parse(answer.out)["gpu_index"] == 3);
  const auto from_listing = run_migplan(
      {"pack", "--current", "-", "--gpu", "a100-40gb", "--emit", "nvidia-smi", "1g.5gb"}, listing);
  REQUIRE(from_listing.code == 0);
  REQUIRE(from_listing.out.find("nvidia-smi mig -i 3 -cgi 19:0 -C") != std::string::npos);
  const auto script =
      run_migplan({"pack", "--current", "-", "--emit", "nvidia-smi", "1g.5gb"}, answer.out);
  CHECK(script.code == 0);
  // The commands are the listing's (the comments differ: an answer keeps no GI IDs).
  const auto commands = [](const std::string& text) {
    std::string out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (line.starts_with("nvidia-smi ")) out += line + "\n";
    return out;
  };
  CHECK(commands(script.out) == commands(from_listing.out));
  CHECK(!commands(script.out).empty());
  const auto nvml = run_migplan({"pack", "--current", "-", "--emit", "nvml", "1g.5gb"}, answer.out);
  CHECK(json::parse(nvml.out)["index"] == 3);
  const auto again = run_migplan({"pack", "--current", "-", "--json"}, answer.out);
  CHECK(json::parse(again.out)["gpu_index"] == 3);
  // An answer without --current (no gpu_index) is GPU 0 as before; a bad one is refused.
  const auto plain = run_migplan({"pack", "--json", "--gpu", "a100-40gb", "3g.20gb"});
  const auto plain_script =
      run_migplan({"pack", "--current", "-", "--emit", "nvidia-smi", "1g.5gb"}, plain.out);
  CHECK(plain_script.out.find("nvidia-smi mig -i 0 -cgi 19:") != std::string::npos);
  json bad = json::parse(answer.out);
  bad["gpu_index"] = -1;
  const auto refused = run_migplan({"pack", "--current", "-", "1g.5gb"}, bad.dump());
  CHECK(refused.code == 2);
  CHECK(refused.err ==
        "migplan: <stdin>: \"gpu_index\" is not a whole number from 0 to 4095 (expected the JSON "
        "of 'migplan pack --json')\n");
}

TEST_CASE("pack --current reads back the answers of a listing of several GPUs",
          "[cli][pack][current]") {
  // Before, `pack --current LISTING --json` wrote one answer per line for
  // several GPUs, and --current refused that file as not valid JSON.
  const std::string listing =
      lgi_table({lgi_line(0, "3g.20gb", 9, 1, "4:4"), lgi_line(2, "2g.10gb", 14, 3, "2:2")});
  const auto answers =
      run_migplan({"pack", "--current", "-", "--gpu", "a100-40gb", "--json", "1g.5gb"}, listing);
  REQUIRE(answers.code == 0);
  std::vector<json> lines;
  std::istringstream in(answers.out);
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  REQUIRE(lines.size() == 2);
  // Each GPU read back holds its answer's preferred layout, at its index.
  const auto instances = [](const json& answer) {
    std::vector<std::pair<std::string, int>> out;
    for (const json& i : answer["layouts"][0]["instances"])
      out.emplace_back(i["profile"].get<std::string>(), i["start"].get<int>());
    std::sort(out.begin(), out.end());
    return out;
  };
  const auto back = run_migplan({"pack", "--current", "-", "--json"}, answers.out);
  REQUIRE(back.code == 0);
  std::vector<json> again;
  std::istringstream in2(back.out);
  for (std::string line; std::getline(in2, line);) again.push_back(json::parse(line));
  REQUIRE(again.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(again[i]["gpu_index"] == lines[i]["gpu_index"]);
    CHECK(instances(again[i]) == instances(lines[i]));
  }
  // --index picks one; --emit then writes for that GPU.
  const auto two = run_migplan({"pack", "--current", "-", "--index", "2", "--json"}, answers.out);
  REQUIRE(two.code == 0);
  CHECK(json::parse(two.out)["gpu_index"] == 2);
  CHECK(instances(json::parse(two.out)) == instances(lines[1]));
  const auto script = run_migplan(
      {"pack", "--current", "-", "--index", "2", "--emit", "nvidia-smi", "1g.5gb"}, answers.out);
  CHECK(script.code == 0);
  CHECK(script.out.find("nvidia-smi mig -i 2 -cgi 19:") != std::string::npos);
  // Refused, each at its line: a GPU not answered, one answered twice, an
  // answer without gpu_index, answers of two models, a broken line.
  const auto missing = run_migplan({"pack", "--current", "-", "--index", "1"}, answers.out);
  CHECK(missing.code == 2);
  CHECK(missing.err == "migplan: <stdin>: no answer for GPU 1 (--index); it answers GPU 0, 2\n");
  const std::string first = lines[0].dump();
  const auto twice = run_migplan({"pack", "--current", "-"}, first + "\n" + first + "\n");
  CHECK(twice.code == 2);
  CHECK(twice.err == "migplan: <stdin>:2: GPU 0 is answered twice\n");
  json unindexed = lines[1];
  unindexed.erase("gpu_index");
  const auto no_index = run_migplan({"pack", "--current", "-"}, first + "\n" + unindexed.dump());
  CHECK(no_index.code == 2);
  CHECK(no_index.err ==
        "migplan: <stdin>:2: an answer of several lines names its GPU (gpu_index); this one does "
        "not\n");
  const json h100 =
      json::parse(run_migplan({"pack", "--gpu", "h100-80gb", "--json", "1g.10gb"}).out);
  json other = h100;
  other["gpu_index"] = 5;
  const auto mixed = run_migplan({"pack", "--current", "-"}, first + "\n" + other.dump() + "\n");
  CHECK(mixed.code == 2);
  CHECK(mixed.err ==
        "migplan: <stdin>:2: the answer is for h100-80gb, the lines before it for a100-40gb\n");
  const auto broken = run_migplan({"pack", "--current", "-"}, first + "\n\n{\"gpu\": \n");
  CHECK(broken.code == 2);
  CHECK(broken.err.starts_with("migplan: <stdin>:3:"));
}

TEST_CASE("compute instances of one GPU instance that share a slice are refused",
          "[cli][current]") {
  // A GPU instance's compute instances own its compute slices between them
  // (doc/man/migplan-pack.1.scd, COMPUTE INSTANCES), so nvidia-smi never
  // lists two on one slice of one GPU instance; the same slice of two GPU
  // instances is no overlap.
  const std::string lgi =
      lgi_table({lgi_line(0, "3g.20gb", 9, 2, "0:4"), lgi_line(0, "3g.20gb", 9, 1, "4:4")});
  const auto lci = [](const std::vector<std::string>& rows) {
    std::string t =
        "+--------------------------------------------------------------------+\n"
        "| Compute instances:                                                 |\n"
        "| GPU     GPU       Name             Profile   Instance   Placement  |\n"
        "|       Instance                       ID        ID       Start:Size |\n"
        "|         ID                                                         |\n"
        "|====================================================================|\n";
    for (const auto& r : rows)
      t += r + "\n+--------------------------------------------------------------------+\n";
    return t;
  };
  const std::string ci0 = "|   0      1       MIG 2c.3g.20gb       1         0          0:2     |";
  const std::string beside =
      "|   0      1       MIG 1c.3g.20gb       0         1          2:1     |";
  const std::string other_gi =
      "|   0      2       MIG 1c.3g.20gb       0         0          0:1     |";
  const auto ok = run_migplan({"pack", "--gpu", "a100-40gb", "--json", "--current", "-"},
                              lgi + lci({ci0, beside, other_gi}));
  CHECK(ok.err.empty());
  REQUIRE(ok.code == 0);
  const json j = json::parse(ok.out);
  REQUIRE(j["current"].size() == 2);
  CHECK(j["current"][0]["compute_instances"].size() == 1);
  CHECK(j["current"][1]["compute_instances"].size() == 2);

  const std::string on_slice_1 =
      "|   0      1       MIG 1c.3g.20gb       0         1          1:1     |";
  const auto overlap =
      run_migplan({"pack", "--gpu", "a100-40gb", "--current", "-"}, lgi + lci({ci0, on_slice_1}));
  CHECK(overlap.code == 2);
  const std::size_t lgi_lines = static_cast<std::size_t>(std::count(lgi.begin(), lgi.end(), '\n'));
  CHECK(overlap.err == "migplan: <stdin>:" + std::to_string(lgi_lines + 9) +
                           ": GPU 0 GPU instance 1 compute instance 1 at 1:1 overlaps compute "
                           "instance 0 at 0:2 (line " +
                           std::to_string(lgi_lines + 7) + ")\n");
}

TEST_CASE("pack --emit with a lone JSON answer targets its gpu_index and takes no --index",
          "[current][emit]") {
  // migplan-pack(1), --index: a lone JSON answer is one GPU, its gpu_index.
  const auto answer = run_migplan({"pack", "--gpu", "a100-40gb", "--json", "3g.20gb"});
  REQUIRE(answer.code == 0);
  const auto picked = run_migplan(
      {"pack", "--current", "-", "--index", "3", "--emit", "nvidia-smi", "1g.5gb"}, answer.out);
  CHECK(picked.code == 2);
  CHECK(picked.out.empty());
  CHECK(picked.err.find("a JSON answer is one GPU") != std::string::npos);
  const auto plain =
      run_migplan({"pack", "--current", "-", "--emit", "nvidia-smi", "1g.5gb"}, answer.out);
  CHECK(plain.code == 0);
  CHECK(plain.out.find("on GPU 0 (a100-40gb") != std::string::npos);
}

TEST_CASE("an -lci listing alone to --current says it needs the -lgi listing first",
          "[current][errors]") {
  // migplan-pack(1), --current: -lgi output, optionally followed by -lci output. The
  // -lci listing alone was "FILE:1: end of input before any nvidia-smi mig -lgi output",
  // at a line of comments.
  const std::string file = capture("a100-40gb-lci.txt");
  const std::string want = "migplan: " + file +
                           ":5: this is nvidia-smi mig -lci output (Compute instances) without "
                           "the -lgi output it follows: --current takes nvidia-smi mig -lgi "
                           "output, optionally followed by -lci output\n";
  const auto pack = run_migplan({"pack", "--gpu", "a100-40gb", "--current", file});
  CHECK(pack.code == 2);
  CHECK(pack.out.empty());
  CHECK(pack.err == want);
  const auto place = run_migplan({"place", "--gpu", "a100-40gb", "--current", file, "1g.5gb"});
  CHECK(place.code == 2);
  CHECK(place.err == want);
  // nvidia-smi's message for no compute instances, alone, is -lci output too.
  const auto none = run_migplan({"pack", "--gpu", "a100-40gb", "--current", "-"},
                                "No compute instances found.\n");
  CHECK(none.code == 2);
  CHECK(none.err.find("migplan: <stdin>:1: this is nvidia-smi mig -lci output") == 0);
}

TEST_CASE("pack --current --plot names the instances that block a request", "[cli][current]") {
  // The picture said "blocked by the existing instances" without naming
  // them; it now says what --json's reason says.
  const std::string file = capture("h100-80gb-hbm3-lgi-7x1g.txt");
  const auto svg =
      run_migplan({"pack", "--gpu", "h100-80gb", "--current", file, "--plot", "-", "1g.10gb"});
  CHECK(svg.code == 1);
  const auto j =
      run_migplan({"pack", "--gpu", "h100-80gb", "--current", file, "--json", "1g.10gb"});
  const std::string message = json::parse(j.out)["reason"]["message"];
  CHECK(message.find("removing 1g.10gb@0 (GI 7) would make room") != std::string::npos);
  // The verdict is wrapped in lines (a <tspan> each after the first) that
  // joined are the message, each narrow enough for the picture.
  const std::size_t begin = svg.out.find("<text class=\"verdict\"");
  REQUIRE(begin != std::string::npos);
  const std::size_t end = svg.out.find("</text>", begin);
  REQUIRE(end != std::string::npos);
  std::string joined;
  std::vector<std::size_t> widths{0};
  for (std::size_t i = svg.out.find('>', begin) + 1; i < end; ++i) {
    if (svg.out[i] != '<') {
      joined += svg.out[i];
      ++widths.back();
      continue;
    }
    if (svg.out.compare(i, 6, "<tspan") == 0) widths.push_back(0);
    i = svg.out.find('>', i);
  }
  CHECK(joined == "does not fit: " + message);
  CHECK(widths.size() > 1);
  for (const std::size_t w : widths) CHECK(w <= 90);
}

// SPDX-License-Identifier: Apache-2.0
// pack --current: the GPU instances an `nvidia-smi mig -lgi` listing shows stay
// where they are, and new items are placed around them.

#include <catch2/catch.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
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
                                           "size": 1, "instance_id": 7})"));
  CHECK(j["request"].size() == 8);
  CHECK(j["request_starts"][0] == 0);
  CHECK(j["request_starts"][7].is_null());

  const auto text = run_migplan({"pack", "--gpu", "h100-80gb", "--current", file, "1g.10gb"});
  CHECK(text.code == 1);
  CHECK(text.out.find("\nblocked by existing instances: 1g.10gb@0 (GI 7), 1g.10gb@1 (GI 8), "
                      "1g.10gb@2 (GI 9), 1g.10gb@3 (GI 10), 1g.10gb@4 (GI 11), "
                      "1g.10gb@5 (GI 12), 1g.10gb@6 (GI 13)\n") != std::string::npos);

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
  CHECK(j["layouts"][0]["instances"] == json::parse(R"([
    {"profile": "3g.20gb", "profile_id": 9, "start": 0, "size": 4},
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

TEST_CASE("a listing of two GPUs needs --index", "[cli][current]") {
  const std::string listing =
      lgi_table({lgi_line(0, "3g.20gb", 9, 1, "4:4"), lgi_line(1, "4g.20gb", 5, 1, "0:4"),
                 lgi_line(1, "1g.5gb", 19, 7, "6:1")});
  const auto none = run_migplan({"pack", "--gpu", "a100-40gb", "--current", "-"}, listing);
  CHECK(none.code == 2);
  CHECK(none.out.empty());
  CHECK(none.err == "migplan: <stdin>: the listing holds GPUs 0, 1; pick one with --index\n");

  const auto one = run_migplan(
      {"pack", "--gpu", "a100-40gb", "--json", "--current", "-", "--index", "1"}, listing);
  CHECK(one.code == 0);
  const json j = json::parse(one.out);
  REQUIRE(j["current"].size() == 2);
  CHECK(j["current"][0]["profile"] == "4g.20gb");
  CHECK(j["current"][1]["instance_id"] == 7);

  const auto missing =
      run_migplan({"pack", "--gpu", "a100-40gb", "--current", "-", "--index", "2"}, listing);
  CHECK(missing.code == 2);
  CHECK(missing.err == "migplan: <stdin>: the listing has no GPU 2 (it lists GPU 0, 1)\n");
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

TEST_CASE("pack --current needs --gpu, and its reading errors point into the file",
          "[cli][current]") {
  const std::string file = capture("a100-40gb-lgi-example1.txt");
  const auto nogpu = run_migplan({"pack", "--current", file, "1g.5gb"});
  CHECK(nogpu.code == 2);
  CHECK(nogpu.err ==
        "migplan: --current needs --gpu: an -lgi listing does not name the GPU model\n");
  const auto index = run_migplan({"pack", "--gpu", "a100-40gb", "--index", "0", "1g.5gb"});
  CHECK(index.code == 2);
  CHECK(index.err == "migplan: --index needs --current\n");
  const auto json_err =
      run_migplan({"pack", "--json", "--gpu", "a100-40gb", "--current", "-"}, "garbage\n");
  CHECK(json_err.code == 2);
  CHECK(json_err.err.rfind("migplan: <stdin>:1: ", 0) == 0);
  CHECK(json::parse(json_err.out)["error"]["code"] == "bad_input");
  const auto absent = run_migplan({"pack", "--gpu", "a100-40gb", "--current", "/nonexistent/lgi"});
  CHECK(absent.code == 2);
  CHECK(absent.err.rfind("migplan: cannot read '/nonexistent/lgi': ", 0) == 0);
}

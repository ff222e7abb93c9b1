// SPDX-License-Identifier: Apache-2.0
// `migplan check` on Kubernetes DRA ResourceSlices (doc/dra.md, "Checking
// ResourceSlices"): migplan's own `--emit dra` output passes on every catalog
// model, and each hand-made defect (tests/fixtures/check/dra/) is found,
// named at its line.

#include <algorithm>
#include <catch2/catch.hpp>
#include <migplan/catalog.hpp>
#include <migplan/counters.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "render/dra.hpp"
#include "run_binary.hpp"

using migplan::test::run_migplan;
using migplan::test::test_path;
using json = nlohmann::json;

namespace {

std::string dra_fixture(const std::string& name) { return test_path("fixtures/check/dra/" + name); }

json summary_of(const std::string& out) { return json::parse(out)["summary"]; }

// A ResourceSlice named s of pool p, its spec ending in `rest`.
std::string slice_with(const std::string& rest) {
  return "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
         "spec:\n  driver: d\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n" +
         rest;
}

}  // namespace

TEST_CASE("check passes migplan's own dra slices of every catalog model",
          "[check][slices][exhaustive]") {
  int checked = 0;
  for (const migplan::gpu_model& g : migplan::catalog()) {
    if (migplan::counters_of(g).devices.empty()) continue;
    INFO(g.slug);
    std::ostringstream slices;
    migplan::cli::render::dra_resource_slice(slices, g, {});
    const auto r = run_migplan({"check", "--format", "json", "-"}, slices.str());
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    const json j = json::parse(r.out);
    CHECK(j["files"][0]["format"] == "resource-slices");
    CHECK(j["files"][0]["diagnostics"].empty());
    CHECK(j["summary"]["slice_gpus"] == 1);
    CHECK(j["summary"]["slice_gpus_exact"] == 1);
    ++checked;
  }
  CHECK(checked > 10);
}

TEST_CASE("check passes the a30's slices as pack --emit dra writes them", "[check][slices]") {
  const auto emitted = run_migplan({"pack", "--gpu", "a30", "--emit", "dra", "1g.6gb"});
  REQUIRE(emitted.code == 0);
  const auto r = run_migplan({"check", "-"}, emitted.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("checked 1 file: 0 geometries valid, 0 invalid; 1 GPU of ResourceSlices, 1 "
                   "exact\n") != std::string::npos);
  const auto fixture = run_migplan({"check", "--format", "json", dra_fixture("a30.yaml")});
  CHECK(fixture.code == 0);
  CHECK(summary_of(fixture.out)["slice_gpus_exact"] == 1);
}

TEST_CASE("check reads a kubectl List as JSON, v1beta2, two counter sets and Gi quantities",
          "[check][slices]") {
  const auto r = run_migplan({"check", "--format", "json", dra_fixture("two-sets.json")});
  CHECK(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j["files"][0]["format"] == "resource-slices");
  CHECK(j["files"][0]["diagnostics"].empty());
  CHECK(j["summary"]["slice_gpus"] == 1);
  CHECK(j["summary"]["slice_gpus_exact"] == 1);
  const auto verbose = run_migplan({"check", "-v", dra_fixture("two-sets.json")});
  CHECK(verbose.code == 0);
  CHECK(verbose.out.find("admit exactly the sets of devices the placement rules allow") !=
        std::string::npos);
}

TEST_CASE("counters without placement units admit overlapping instances", "[check][slices]") {
  const std::string path = dra_fixture("admits-illegal.yaml");
  const auto r = run_migplan({"check", path});
  CHECK(r.code == 1);
  CHECK(r.out.find(path + ":") != std::string::npos);
  CHECK(r.out.find("error: the counters of counter set 'gpu-0-counters' (a30) admit") !=
        std::string::npos);
  CHECK(r.out.find("sets of devices the placement rules forbid") != std::string::npos);
  CHECK(r.out.find("admitted, illegal: ") != std::string::npos);
  CHECK(r.out.find("refuse") == std::string::npos);
  const json s = summary_of(run_migplan({"check", "--format", "json", path}).out);
  CHECK(s["slice_gpus"] == 1);
  CHECK(s["slice_gpus_exact"] == 0);
}

TEST_CASE("a compute counter one short refuses the full GPU", "[check][slices]") {
  const auto r = run_migplan({"check", dra_fixture("refuses-legal.yaml")});
  CHECK(r.code == 1);
  // Every legal set of 4 compute slices: the full GPU, and 16 of smaller
  // instances; the smallest example comes first.
  CHECK(r.out.find("refuse 17 sets of devices the placement rules allow") != std::string::npos);
  CHECK(r.out.find("\n  legal, refused: 4g.24gb@0 (gpu-0-mig-4g-24gb-0)\n  legal, refused: ") !=
        std::string::npos);
  CHECK(r.out.find("checked 1 file: 0 geometries valid, 0 invalid; 1 GPU of ResourceSlices, 0 "
                   "exact\n") != std::string::npos);
}

TEST_CASE("a device consuming from an undefined counter set is named at its line",
          "[check][slices]") {
  const std::string path = dra_fixture("missing-set.yaml");
  const auto r = run_migplan({"check", path});
  CHECK(r.code == 1);
  CHECK(r.out.find("consumes from counter set 'gpu-0-countrs', which pool 'worker-1-gpu-0' does "
                   "not define (did you mean gpu-0-counters?)") != std::string::npos);
  CHECK(r.out.find(path + ":") != std::string::npos);
}

TEST_CASE("a counter set over the API's 32 counters is an error", "[check][slices]") {
  const auto r = run_migplan({"check", dra_fixture("too-many-counters.yaml")});
  CHECK(r.code == 1);
  CHECK(r.out.find("counter set 'gpu-0-counters' has 34 counters; the API allows at most 32 "
                   "(ResourceSliceMaxCountersPerCounterSet)") != std::string::npos);
}

TEST_CASE("a device of a profile the model lacks is an error", "[check][slices]") {
  const auto r = run_migplan({"check", dra_fixture("unknown-profile.yaml")});
  CHECK(r.code == 1);
  CHECK(r.out.find("has profile '1g.7gb', which a30 does not have") != std::string::npos);
  const json s = summary_of(
      run_migplan({"check", "--format", "json", dra_fixture("unknown-profile.yaml")}).out);
  CHECK(s["slice_gpus"] == 0);
}

TEST_CASE("malformed YAML in a ResourceSlice is file:line, exit 2", "[check][slices]") {
  const std::string path = dra_fixture("malformed.yaml");
  const auto r = run_migplan({"check", path});
  CHECK(r.code == 2);
  CHECK(r.out.find(path + ":1") != std::string::npos);
  CHECK(r.out.find("invalid yaml") != std::string::npos);
}

TEST_CASE("slices of another API version and unknown keys are named", "[check][slices]") {
  const std::string beta1 =
      "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nmetadata: {name: s}\n"
      "spec: {driver: d, pool: {name: p}}\n";
  const auto old = run_migplan({"check", "-"}, beta1);
  CHECK(old.code == 2);
  CHECK(old.out.find("ResourceSlice 's' is 'resource.k8s.io/v1beta1'; check reads "
                     "resource.k8s.io/v1 and v1beta2") != std::string::npos);
  const std::string misspelt = slice_with("  devices:\n  - name: a\n    consumesCounter: []\n");
  const auto r = run_migplan({"check", "-"}, misspelt);
  CHECK(r.code == 0);
  CHECK(r.out.find("<stdin>:9:5: warning: unknown key 'consumesCounter' in a device (did you "
                   "mean consumesCounters?)") != std::string::npos);
}

TEST_CASE("a counter value that is no whole quantity is malformed", "[check][slices]") {
  const std::string text = slice_with(
      "  sharedCounters:\n  - name: c\n    counters:\n      x: {value: \"1.5\"}\n"
      "      y: {value: \"-1\"}\n      z: {value: \"1500m\"}\n");
  const auto r = run_migplan({"check", "-"}, text);
  CHECK(r.code == 2);
  CHECK(r.out.find("<stdin>:10:") != std::string::npos);
  CHECK(r.out.find("<stdin>:11:") != std::string::npos);
  CHECK(r.out.find("<stdin>:12:") != std::string::npos);
  const std::string ok = slice_with(
      "  sharedCounters:\n  - name: c\n    counters:\n      x: {value: \"1.5Ki\"}\n"
      "      y: {value: 3}\n      z: {value: \"2000m\"}\n");
  CHECK(run_migplan({"check", "-"}, ok).code == 0);
}

TEST_CASE(
    "more than 64 devices that consume counters, or 3 entries a device, break the API's limits",
    "[check][slices]") {
  std::string devices = "  devices:\n";
  for (int i = 0; i < 65; ++i)
    devices += "  - name: d" + std::to_string(i) +
               "\n    consumesCounters:\n    - {counterSet: a, counters: {x: {value: \"1\"}}}\n";
  devices +=
      "    - {counterSet: b, counters: {x: {value: \"1\"}}}\n"
      "    - {counterSet: c, counters: {x: {value: \"1\"}}}\n";
  const std::string sets =
      "---\n" + slice_with("  sharedCounters:\n") +
      "  - {name: a, counters: {x: {value: \"1\"}}}\n  - {name: b, counters: {x: {value: \"1\"}}}\n"
      "  - {name: c, counters: {x: {value: \"1\"}}}\n";
  std::string text = slice_with(devices) + sets;
  // Two slices of the pool, each saying so.
  for (std::size_t at = text.find("resourceSliceCount: 1"); at != std::string::npos;
       at = text.find("resourceSliceCount: 1", at))
    text.replace(at, 21, "resourceSliceCount: 2");
  const auto r = run_migplan({"check", "-"}, text);
  CHECK(r.code == 1);
  CHECK(r.out.find("<stdin>:7:3: error: ResourceSlice 's' has 65 devices; the API allows at most "
                   "64 (ResourceSliceMaxDevicesWithAdvancedFeatures, as devices consume counters "
                   "or have taints)") != std::string::npos);
  CHECK(r.out.find("error: device 'd64' has 3 consumesCounters entries; the API allows at most 2 "
                   "(ResourceSliceMaxDeviceCounterConsumptionsPerDevice)") != std::string::npos);
  CHECK(r.out.find("is named twice") == std::string::npos);
}

// Found by the slices fuzz target: an attribute whose one key is a merge
// of nothing had no entry to read, and the reader read past the end.
TEST_CASE("check refuses an attribute that merges nothing in, with its line", "[check][dra]") {
  std::string text = migplan::test::read_file(test_path("fixtures/check/dra/a30.yaml"));
  const std::string from = "      type:\n        string: \"mig\"";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), "      type:\n        <<: {}");
  const auto r = run_migplan({"check", "-"}, text);
  CHECK(r.code == 2);
  CHECK(r.out.find(":68:9: error: attribute 'type' must be a mapping with one of 'int', 'bool', "
                   "'string' or 'version'") != std::string::npos);
}

// A Quantity may be written with a decimal exponent or any SI suffix
// (k8s.io/apimachinery's ParseQuantity: "1e0", "4E0", "1000000u", "0.4e1"),
// and kubectl prints it back as written: each is the same whole number as
// "1" or "4", so the a30's slices stay exact. A value that is not whole is
// still refused.
TEST_CASE("check reads counter values written with an exponent or a micro suffix",
          "[check][slices]") {
  const std::string a30 = migplan::test::read_file(dra_fixture("a30.yaml"));
  const auto rewritten = [&](const std::string& one, const std::string& four) {
    std::string text = a30;
    for (const auto& [from, to] : {std::pair{std::string("value: \"1\""), one},
                                   std::pair{std::string("value: \"4\""), four}})
      for (std::size_t at = text.find(from); at != std::string::npos;
           at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
  };
  for (const auto& [one, four] : {std::pair{"1e0", "4E0"}, std::pair{"1000000u", "0.4e1"},
                                  std::pair{"10e-1", "4000000000n"}, std::pair{"1E+0", "+4e0"}}) {
    INFO(one << " " << four);
    const std::string text =
        rewritten(std::string("value: \"") + one + "\"", std::string("value: \"") + four + "\"");
    REQUIRE(text != a30);
    const auto r = run_migplan({"check", "--format", "json", "-"}, text);
    CHECK(r.code == 0);
    const json s = summary_of(r.out);
    CHECK(s["errors"] == 0);
    CHECK(s["slice_gpus_exact"] == 1);
  }
  const auto half = run_migplan({"check", "-"}, rewritten("value: \"5e-1\"", "value: \"4\""));
  CHECK(half.code == 2);
  CHECK(half.out.find(
            "must be a whole quantity of 0 or more (\"4\", \"40Gi\"), not the string \"5e-1\"") !=
        std::string::npos);
}

// A capacity of 2^31-1 units (a prime, so no divisor scales it down) with
// draws of 1Ti: each draw alone overdraws it, so no device that draws it can
// ever be allocated. Draws were clamped to 2^31-1 to fit an int, which made
// each one fit exactly and the slices look exact; such a capacity is now too
// large to compare, a warning, never "exact".
TEST_CASE("check never calls a counter exact that a clamped draw made fit", "[check][slices]") {
  std::string text = migplan::test::read_file(dra_fixture("a30.yaml"));
  const std::string capacity = "      unit-0:\n        value: \"1\"\n";
  const std::string draw = "        unit-0:\n          value: \"1\"\n";
  REQUIRE(text.find(capacity) != std::string::npos);
  text.replace(text.find(capacity), capacity.size(),
               "      unit-0:\n        value: \"2147483647\"\n");
  int draws = 0;
  for (std::size_t at = text.find(draw); at != std::string::npos; at = text.find(draw, at), ++draws)
    text.replace(at, draw.size(), "        unit-0:\n          value: \"1Ti\"\n");
  REQUIRE(draws > 1);
  const auto r = run_migplan({"check", "--format", "json", "-"}, text);
  const json s = summary_of(r.out);
  CHECK(s["slice_gpus_exact"] == 0);
  CHECK(r.out.find("are too large to compare") != std::string::npos);
}

// The API lowers a slice's device limit from 128 to 64 when a device "uses
// taints or consumes counters": an empty (or null) taints list is no taint.
// 100 devices with 'taints: []' are within the API's limits; one real
// taint makes them 36 too many.
TEST_CASE("check counts an empty taints list as no taint for the device limit", "[check][slices]") {
  const auto devices = [](const std::string& taints) {
    std::string out = "  devices:\n";
    for (int i = 0; i < 100; ++i)
      out += "  - name: d" + std::to_string(i) + "\n    taints: " + (i == 0 ? taints : "[]") + "\n";
    return out;
  };
  for (const char* none : {"[]", "null"}) {
    const auto r = run_migplan({"check", "-"}, slice_with(devices(none)));
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(r.out.find("has 100 devices") == std::string::npos);
  }
  const auto tainted =
      run_migplan({"check", "-"}, slice_with(devices("[{key: k, effect: NoSchedule}]")));
  CHECK(tainted.code == 1);
  CHECK(tainted.out.find("ResourceSlice 's' has 100 devices; the API allows at most 64") !=
        std::string::npos);
}

// A MIG device that consumes no counter (a driver listing the MIG devices
// that exist) has nothing to compare; check passed such a file saying only
// "0 geometries", as if it held no MIG device at all.
TEST_CASE("check notes MIG devices that consume no counter", "[check][slices]") {
  std::string text = migplan::test::read_file(dra_fixture("a30.yaml"));
  int stripped = 0;
  for (std::size_t at = text.find("    consumesCounters:"); at != std::string::npos;
       at = text.find("    consumesCounters:", at), ++stripped) {
    // The entry runs to the next device ("  - name:") or the document's end.
    std::size_t end = text.find("\n  - name:", at);
    if (end == std::string::npos) end = text.find("\n---", at);
    text.erase(at, (end == std::string::npos ? text.size() : end + 1) - at);
  }
  REQUIRE(stripped > 1);
  const auto r = run_migplan({"check", "-"}, text);
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find(std::to_string(stripped) + " MIG devices of pool ") != std::string::npos);
  CHECK(r.out.find("consume no counter") != std::string::npos);
  // Devices that draw from the counters get no such note.
  const auto whole = run_migplan({"check", dra_fixture("a30.yaml")});
  CHECK(whole.code == 0);
  CHECK(whole.out.find("consume no counter") == std::string::npos);
}

// A counter whose value does not read was dropped by the reader: every
// device drawing it was then blamed for a counter the set "has no such" of,
// and a device's unread draw made the counters admit overlapping instances.
// The one error is the value's own; the GPU's admission is not compared.
TEST_CASE("check blames an unreadable counter value once, and compares nothing",
          "[check][slices]") {
  const std::string text = migplan::test::read_file(dra_fixture("a30.yaml"));
  const std::string set_value = "      compute:\n        value: \"4\"\n";
  const std::string draw_value = "        unit-0:\n          value: \"1\"\n";
  REQUIRE(text.find(set_value) != std::string::npos);
  REQUIRE(text.find(draw_value) != std::string::npos);
  for (const auto& [what, good, bad] :
       {std::tuple{"in the set", set_value, std::string("      compute:\n        value: \"x4\"\n")},
        std::tuple{"in a draw", draw_value,
                   std::string("        unit-0:\n          value: \"-1\"\n")}}) {
    INFO(what);
    std::string broken = text;
    broken.replace(broken.find(good), good.size(), bad);
    const auto r = run_migplan({"check", "-"}, broken);
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("must be a whole quantity of 0 or more") != std::string::npos);
    CHECK(r.out.find("which has no such counter") == std::string::npos);
    CHECK(r.out.find("admit") == std::string::npos);
    CHECK(r.out.find("values do not read: their admission is not compared") != std::string::npos);
    const json j = json::parse(run_migplan({"check", "--format", "json", "-"}, broken).out);
    CHECK(j["summary"]["errors"] == 1);
    CHECK(j["summary"]["slice_gpus"] == 0);
  }
}

// The note about devices without a profile attribute was at the first MIG
// device's line and said "1 devices ... are"; it is at the first such device.
TEST_CASE("check notes a non-MIG device sharing the counters at its own line", "[check][slices]") {
  std::string text = migplan::test::read_file(dra_fixture("a30.yaml"));
  REQUIRE(text.find("\n  devices:\n  - name: ") != std::string::npos);
  const std::string full_gpu =
      "  - name: gpu-0\n    attributes:\n      type:\n        string: \"gpu\"\n"
      "    consumesCounters:\n    - counterSet: gpu-0-counters\n      counters:\n"
      "        compute:\n          value: \"4\"\n";
  // Append the full-GPU device as the devices slice's last device.
  text += full_gpu;
  const std::size_t line = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) - 8;
  const auto r = run_migplan({"check", "-"}, text);
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("<stdin>:" + std::to_string(line) +
                   ":5: note: device 'gpu-0' sharing counter set 'gpu-0-counters' is not a "
                   "MIG device (no profile attribute): the comparison leaves it out") !=
        std::string::npos);
}

// The API's limits on a slice ("has 65 devices", "has 9 counter sets") were
// placed at the slice's first line, its apiVersion, and those on a device or
// a counter set at the list item that holds the list: each is now at the key
// of the list that is too long.
TEST_CASE("check places each API limit at the key of the list over it", "[check][slices]") {
  const auto counters = [](const std::string& indent) {
    std::string out;
    for (int i = 0; i < 33; ++i) out += indent + "x" + std::to_string(i) + ": {value: \"1\"}\n";
    return out;
  };
  std::string devices =
      "  devices:\n  - name: e\n    consumesCounters:\n    - counterSet: a\n"
      "      counters:\n" +
      counters("        ") +
      "    - {counterSet: b, counters: {x: {value: \"1\"}}}\n"
      "    - {counterSet: c, counters: {x: {value: \"1\"}}}\n";
  for (int i = 0; i < 64; ++i)
    devices += "  - {name: d" + std::to_string(i) +
               ", consumesCounters: [{counterSet: a, counters: {x: {value: \"1\"}}}]}\n";
  const auto r = run_migplan({"check", "-"}, slice_with(devices));
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("<stdin>:7:3: error: ResourceSlice 's' has 65 devices; the API allows at most "
                   "64 (ResourceSliceMaxDevicesWithAdvancedFeatures") != std::string::npos);
  CHECK(r.out.find("<stdin>:9:5: error: device 'e' has 3 consumesCounters entries; the API "
                   "allows at most 2") != std::string::npos);
  CHECK(r.out.find("<stdin>:11:7: error: the entry of device 'e' for counter set 'a' has 33 "
                   "counters; the API allows at most 32") != std::string::npos);
  CHECK(r.out.find("<stdin>:1:1: error") == std::string::npos);

  std::string sets = "  sharedCounters:\n  - name: c0\n    counters:\n" + counters("      ");
  for (int i = 1; i < 9; ++i)
    sets += "  - {name: c" + std::to_string(i) + ", counters: {x: {value: \"1\"}}}\n";
  const auto s = run_migplan({"check", "-"}, slice_with(sets));
  INFO(s.out);
  CHECK(s.code == 1);
  CHECK(s.out.find("<stdin>:7:3: error: ResourceSlice 's' has 9 counter sets; the API allows at "
                   "most 8 (ResourceSliceMaxCounterSets)") != std::string::npos);
  CHECK(s.out.find("<stdin>:9:5: error: counter set 'c0' has 33 counters; the API allows at "
                   "most 32") != std::string::npos);
  CHECK(s.out.find("<stdin>:1:1: error") == std::string::npos);
}

// A pool whose counter sets are in a resource.k8s.io/v1beta1 slice: after
// the refusal of that slice, each device of the pool's v1 slice got an error
// ("consumes from counter set 'cs', which pool 'p' does not define") and the
// pool a warning that the file holds fewer slices than resourceSliceCount.
// The refusal is the one message; the same when the old slice's pool cannot
// be told.
TEST_CASE("check refuses a v1beta1 slice once, blaming no other slice of its pool",
          "[check][slices]") {
  const auto counters = [](const std::string& pool) {
    return "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nmetadata: {name: old}\n"
           "spec:\n  driver: d\n" +
           pool + "  sharedCounters:\n  - {name: cs, counters: {x: {value: \"4\"}}}\n";
  };
  std::string devices =
      "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: new}\n"
      "spec:\n  driver: d\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
      "  devices:\n";
  for (int i = 0; i < 3; ++i)
    devices += "  - {name: d" + std::to_string(i) +
               ", consumesCounters: [{counterSet: cs, counters: {x: {value: \"1\"}}}]}\n";
  for (const std::string& old :
       {counters("  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"), counters("")}) {
    INFO(old);
    const auto r = run_migplan({"check", "-"}, old + devices);
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("<stdin>:1:1: error: ResourceSlice 'old' is 'resource.k8s.io/v1beta1'; check "
                     "reads resource.k8s.io/v1 and v1beta2") != std::string::npos);
    CHECK(r.out.find("does not define") == std::string::npos);
    CHECK(r.out.find("resourceSliceCount") == std::string::npos);
    const json s = summary_of(run_migplan({"check", "--format", "json", "-"}, old + devices).out);
    CHECK(s["errors"] == 1);
    CHECK(s["warnings"] == 0);
  }
  // A set that no slice of the pool could hold is still an error.
  const auto typo = run_migplan({"check", "-"}, devices.substr(4));
  CHECK(typo.code == 1);
  CHECK(typo.out.find("which pool 'p' does not define") != std::string::npos);
}

// Two consumesCounters entries of one device naming one counter set: the
// API refuses the slice (validateSet keyed by counterSet), and check said
// so, then compared the counters as if the slice existed, adding an
// admission error ("refuse 7 sets ...") that the duplicate made; split in
// two halves, the GPU was even called exact. The API's error is the one.
TEST_CASE("check blames a device naming one counter set twice once, and compares nothing",
          "[check][slices]") {
  const std::string text = migplan::test::read_file(dra_fixture("a30.yaml"));
  const std::size_t device = text.find("  - name: gpu-0-mig-1g-6gb-0\n");
  const std::size_t next = text.find("  - name: gpu-0-mig-1g-6gb-1\n");
  REQUIRE(device != std::string::npos);
  REQUIRE(next != std::string::npos);
  const std::string head = "    consumesCounters:\n";
  const std::size_t entry = text.find(head, device) + head.size();
  REQUIRE(entry < next);
  // The same entry twice, and the entry split in two (unit-0, then the rest).
  std::string twice = text;
  twice.insert(next, text.substr(entry, next - entry));
  std::string split = text;
  const std::string first =
      "    - counterSet: gpu-0-counters\n      counters:\n        unit-0:\n          value: "
      "\"1\"\n";
  REQUIRE(split.compare(entry, first.size(), first) == 0);
  split.insert(entry + first.size(), "    - counterSet: gpu-0-counters\n      counters:\n");
  for (const std::string& broken : {twice, split}) {
    const auto r = run_migplan({"check", "-"}, broken);
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(r.out.find("error: device 'gpu-0-mig-1g-6gb-0' consumes from counter set "
                     "'gpu-0-counters' twice; the API requires each entry to name another set\n") !=
          std::string::npos);
    CHECK(r.out.find("sets of devices the placement rules") == std::string::npos);
    CHECK(r.out.find("exact") == std::string::npos);
    const json s = summary_of(run_migplan({"check", "--format", "json", "-"}, broken).out);
    CHECK(s["errors"] == 1);
    CHECK(s["warnings"] == 0);
    CHECK(s["notes"] == 0);
    CHECK(s["slice_gpus"] == 0);
  }
}

// resource.Quantity's grammar allows a sign before any number
// (<signedNumber> ::= <number> | <sign><number>), so "-0" is a Quantity,
// zero, and k8s.io/apimachinery parses it so; check refused it as
// negative. It now reads as 0, and a zero counter is judged as "0" is:
// a capacity of none refuses every device drawing it, a draw of none
// draws nothing. Any other negative value is still refused.
TEST_CASE("check reads a counter value of -0 as zero", "[check][slices]") {
  const std::string zeros = slice_with(
      "  sharedCounters:\n  - name: c\n    counters:\n      w: {value: \"-0\"}\n"
      "      x: {value: \"-0Ki\"}\n      y: {value: \"-0.0\"}\n      z: {value: \"-0e3\"}\n");
  const auto ok = run_migplan({"check", "--format", "json", "-"}, zeros);
  CHECK(ok.code == 0);
  CHECK(json::parse(ok.out)["files"][0]["diagnostics"].empty());
  for (const char* negative : {"-1", "-0.5", "-1m", "-", "--0"}) {
    INFO(negative);
    const auto r = run_migplan(
        {"check", "-"},
        slice_with(
            std::string("  sharedCounters:\n  - name: c\n    counters:\n      x: {value: \"") +
            negative + "\"}\n"));
    CHECK(r.code == 2);
    CHECK(r.out.find("<stdin>:10:") != std::string::npos);
    CHECK(r.out.find("must be a whole quantity of 0 or more") != std::string::npos);
  }
  // The a30's JPEG engine: a capacity of 0 refuses every +me device, and
  // draws of 0 draw none of it; "-0" is judged as "0", line for line.
  const std::string a30 = migplan::test::read_file(dra_fixture("a30.yaml"));
  const auto with = [&](const std::string& from, const std::string& zero) {
    std::string text = a30;
    const std::string to = from.substr(0, from.find('"')) + "\"" + zero + "\"\n";
    int n = 0;
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at), ++n)
      text.replace(at, from.size(), to);
    REQUIRE(n > 0);
    return text;
  };
  for (const std::string& from : {std::string("      engine-jpg:\n        value: \"1\"\n"),
                                  std::string("        engine-jpg:\n          value: \"1\"\n")}) {
    INFO(from);
    const auto zero = run_migplan({"check", "-"}, with(from, "0"));
    const auto minus_zero = run_migplan({"check", "-"}, with(from, "-0"));
    if (from.starts_with("      engine-jpg")) {  // the capacity
      CHECK(zero.code == 1);
      CHECK(zero.out.find("refuse 7 sets of devices the placement rules allow") !=
            std::string::npos);
    }
    CHECK(minus_zero.code == zero.code);
    CHECK(minus_zero.out == zero.out);
  }
}

TEST_CASE("check counts one set of devices in the singular", "[check][slices]") {
  // A counter of capacity 0 that one device draws 1 of refuses that
  // device alone: "refuse 1 set", not "refuse 1 sets".
  std::string text = migplan::test::read_file(dra_fixture("a30.yaml"));
  const std::string capacity = "      engine-jpg:\n        value: \"1\"\n";
  const std::string draw = "        unit-0:\n          value: \"1\"\n";
  const std::size_t c = text.find(capacity);
  REQUIRE(c != std::string::npos);
  text.insert(c + capacity.size(), "      z:\n        value: \"0\"\n");
  const std::size_t d = text.find(draw);
  REQUIRE(d != std::string::npos);
  text.insert(d + draw.size(), "        z:\n          value: \"1\"\n");
  const auto r = run_migplan({"check", "-"}, text);
  CHECK(r.code == 1);
  CHECK(r.out.find("refuse 1 set of devices the placement rules allow") != std::string::npos);
  CHECK(r.out.find("1 sets") == std::string::npos);
}

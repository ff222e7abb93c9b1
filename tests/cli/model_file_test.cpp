// SPDX-License-Identifier: Apache-2.0
// Model files and --gpu-file: a malformed model file gets one message naming
// the file and the line, and a loaded model works in every command wherever a
// built-in one does, with --gpu-file before or after the command's name.

#include "io/model_file.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <migplan/catalog.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "app.hpp"
#include "models.hpp"
#include "run_binary.hpp"

using namespace migplan;
using namespace migplan::cli;
using migplan::test::run_migplan;
using migplan::test::source_path;
using json = nlohmann::json;

namespace {

// A small model, one member per line so that each has a known line:
// 5 units, 9-11 the profiles.
const std::string base =
    "{\n"                                                 // 1
    "  \"schema_version\": 1,\n"                          // 2
    "  \"slug\": \"test-4u\",\n"                          // 3
    "  \"description\": \"a test model\",\n"              // 4
    "  \"units\": 4,\n"                                   // 5
    "  \"compute_slices\": 4,\n"                          // 6
    "  \"source\": \"tests/cli/model_file_test.cpp\",\n"  // 7
    "  \"profiles\": [\n"                                 // 8
    "    {\"name\": \"1g.11gb\", \"id\": 14, \"compute_slices\": 1, \"size\": 1, "
    "\"starts\": [0, 1, 2, 3], \"max_instances\": 4},\n"  // 9
    "    {\"name\": \"2g.22gb\", \"id\": 5, \"compute_slices\": 2, \"size\": 2, "
    "\"starts\": [0, 2], \"max_instances\": 2},\n"  // 10
    "    {\"name\": \"4g.44gb\", \"id\": 0, \"compute_slices\": 4, \"size\": 4, "
    "\"starts\": [0], \"max_instances\": 1}\n"  // 11
    "  ]\n"                                     // 12
    "}\n";                                      // 13

// `text` with the first `from` replaced by `to` (which must be there).
std::string with(std::string text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// The message parse_model_file gives for `text` as "m.json" (the test fails
// when the text reads).
std::string problem(const std::string& text, model_list taken = builtin_models()) {
  const auto r = parse_model_file(text, "m.json", taken);
  REQUIRE_FALSE(r);
  return r.error().message;
}

std::string example() { return source_path("examples/model.json"); }

// A file in the test's temporary directory holding `text`.
std::string temp_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "migplan-model-file-test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST_CASE("a model file reads into its model", "[model_file]") {
  const auto r = parse_model_file(base, "m.json", builtin_models());
  INFO((r ? "" : r.error().message));
  REQUIRE(r);
  CHECK(r->slug == "test-4u");
  CHECK(r->units == 4);
  REQUIRE(r->profiles.size() == 3);
  CHECK(r->profiles[1].name == "2g.22gb");
  CHECK(r->profiles[1].starts == std::vector<int>{0, 2});
  CHECK_FALSE(r->profiles[1].memory_gib_x100);  // absent: unknown

  const loaded_model m(std::move(*r), "m.json");
  CHECK(m.model().slug == "test-4u");
  CHECK(m.model().profiles[1].starts == 0x5u);
  CHECK(m.model().profiles[0].prov.source == "tests/cli/model_file_test.cpp");
  CHECK(m.model().cover == coverage::full);
  CHECK(full_profile(m.model()) == 2);
}

TEST_CASE("a model file may list a name with and without the NVIDIA prefix", "[model_file]") {
  // Drivers print both forms, and the catalog lists both for the a100-40gb.
  const auto r =
      parse_model_file(with(base, "\"units\": 4,",
                            "\"units\": 4, \"smi_names\": [\"NVIDIA Test 4U\", \"Test 4U\"],"),
                       "m.json", builtin_models());
  INFO((r ? "" : r.error().message));
  REQUIRE(r);
  CHECK(r->smi_names.size() == 2);
}

TEST_CASE("every malformed model file gets its one message with the line", "[model_file]") {
  struct bad {
    std::string text;
    std::string message;
  };
  const std::string p0 =
      "{\"name\": \"1g.11gb\", \"id\": 14, \"compute_slices\": 1, \"size\": 1, "
      "\"starts\": [0, 1, 2, 3], \"max_instances\": 4}";
  const bad cases[] = {
      {with(base, "\"units\": 4,", "\"units\": 4,,"),
       "m.json:5:14: invalid json: syntax error while parsing object key - unexpected ','; "
       "expected string literal"},
      {"",
       "m.json:1:1: invalid json: syntax error while parsing value - unexpected end of input; "
       "expected '[', '{', or a literal"},
      {"[]", "m.json:1: a model file is a JSON object, not a list"},
      {with(base, "\"units\": 4", "\"unts\": 4"),
       "m.json:5: unknown key 'unts' in the model (did you mean units?); the keys are "
       "schema_version, slug, description, smi_names, pci_ids, memory_mib, units, compute_slices, "
       "source, profiles"},
      {with(base, "  \"units\": 4,\n", ""), "m.json:1: missing required key 'units' in the model"},
      {with(base, "\"units\": 4,", "\"units\": 4, \"units\": 4,"),
       "m.json:5: duplicate key 'units' (first at line 5)"},
      {with(base, "\"units\": 4", "\"units\": \"4\""),
       "m.json:5: units must be a whole number, not a string"},
      {with(base, "\"units\": 4", "\"units\": 17"),
       "m.json:5: units 17 is out of range: a model has 1 to 16 placement units"},
      {with(base, "\"schema_version\": 1", "\"schema_version\": 2"),
       "m.json:2: schema_version 2 is not 1, the version this migplan reads"},
      {with(base, "\"slug\": \"test-4u\"", "\"slug\": \"a30\""),
       "m.json:3: slug 'a30' is the built-in model a30's: a model file adds a model and cannot "
       "replace one; choose another slug"},
      {with(base, "\"slug\": \"test-4u\"", "\"slug\": \"Test 4U\""),
       "m.json:3: slug 'Test 4U' is not a slug: lower-case letters and digits, in words joined by "
       "'-' (a100-40gb, my-gpu-2)"},
      {with(base, "\"starts\": [0, 2]", "\"starts\": [0, 3]"),
       "m.json:10: profile 2g.22gb: start 3 with size 2 ends at unit 4, past the model's last (4 "
       "units: 0-3)"},
      {with(base, "\"starts\": [0, 2]", "\"starts\": [0,\n 4]"),
       "m.json:11: profile 2g.22gb: start 4 is not a placement unit of the model (4 units: 0-3)"},
      {with(base, "[0, 1, 2, 3]", "[0, 1, 1, 3]"),
       "m.json:9: profile 1g.11gb: start 1 is listed twice"},
      {with(base, "\"starts\": [0], ", "\"starts\": [], "),
       "m.json:11: profile 4g.44gb: starts is empty: a profile starts somewhere"},
      {with(base, "\"id\": 5,", "\"id\": 14,"),
       "m.json:10: profile 2g.22gb: id 14 is also profile 1g.11gb's"},
      {with(base, "  ]\n", "    ," + p0 + "\n  ]\n"),
       "m.json:12: profile 1g.11gb: the name is given twice (profiles[0] and profiles[3])"},
      {with(base, "\"name\": \"2g.22gb\"", "\"name\": \"1G.11GB\""),
       "m.json:10: profiles[1]: '1G.11GB' is not a profile name as nvidia-smi prints it: "
       "<N>g.<M>gb in lower case, then at most one +attr or -attr (1g.10gb, 1g.24gb+me.all, "
       "2g.48gb-me)"},
      {with(base, "\"name\": \"2g.22gb\"", "\"name\": \"MIG 2g.22gb\""),
       "m.json:10: profiles[1]: write the name 'MIG 2g.22gb' without 'MIG '"},
      {with(base, "\"compute_slices\": 1,", "\"compute_slices\": 2,"),
       "m.json:9: profile 1g.11gb: compute_slices 2 disagrees with the name (1g: 1 slice)"},
      {with(base, "\"starts\": [0], \"max_instances\": 1", "\"starts\": [0], \"max_instances\": 2"),
       "m.json:11: profile 4g.44gb: max_instances 2 is more than its 1 start"},
      {with(base, "\"max_instances\": 4}", "\"max_instances\": 4, \"memory_gib\": 10.755}"),
       "m.json:9: profile 1g.11gb: memory_gib has more than two decimals; write it as nvidia-smi "
       "mig -lgip prints it (4.75)"},
      {with(base, "\"max_instances\": 4}", "\"max_instances\": 4, \"engines\": {\"nvdec\": 1}}"),
       "m.json:9: unknown key 'nvdec' in profile 1g.11gb: engines (did you mean dec?); the keys "
       "are ce, dec, enc, jpg, ofa"},
      {with(base, "\"max_instances\": 4}", "\"max_instances\": 4, \"inferred\": [\"sm_cont\"]}"),
       "m.json:9: profile 1g.11gb: inferred: unknown field 'sm_cont' (did you mean sm_count?)"},
      {with(base, "\"max_instances\": 4}", "\"max_instances\": 4, \"inferred\": [\"xyzzy\"]}"),
       "m.json:9: profile 1g.11gb: inferred: unknown field 'xyzzy' (fields: id, sm_count, memory, "
       "engines, ce, max_instances, placements)"},
      {with(base,
            ",\n    {\"name\": \"4g.44gb\", \"id\": 0, \"compute_slices\": 4, \"size\": 4, "
            "\"starts\": [0], \"max_instances\": 1}",
            ""),
       "m.json:8: no full-GPU profile: none takes all 4 units and all 4 compute slices"},
      {with(base, "\"units\": 4,", "\"units\": 4, \"pci_ids\": [{\"id\": \"0x20B710DE\"}],"),
       "m.json:5: PCI ID 0x20B710DE belongs to the built-in model a30"},
      {with(base, "\"units\": 4,", "\"units\": 4, \"pci_ids\": [{\"id\": \"0x20B71234\"}],"),
       "m.json:5: PCI ID 0x20B71234 does not end in 10DE, NVIDIA's vendor ID (write 0xDEVICE10DE, "
       "as nvidia-smi -q prints it)"},
      {with(base, "\"units\": 4,", "\"units\": 4, \"smi_names\": [\"A30\"],"),
       "m.json:5: nvidia-smi name 'A30' belongs to the built-in model a30"},
      {with(base, "\"units\": 4,", "\"units\": 4, \"smi_names\": [\"Test 4U\", \"TEST 4u\"],"),
       "m.json:5: nvidia-smi name 'TEST 4u' is listed twice"},
      {with(base, "\"a test model\"", "\"a test\\u001b[2J model\""),
       "m.json:4: description holds a control character"},
      // U+200B, zero width space, and U+202E, right-to-left override: a
      // terminal shows neither, and the second reorders what follows.
      {with(base, "\"a test model\"", "\"a test\u200b model\""),
       "m.json:4: description holds the invisible character U+200B"},
      {with(base, "\"a test model\"", "\"a test \u202e model\""),
       "m.json:4: description holds the invisible character U+202E"},
      {std::string(40, '[') + std::string(40, ']'),
       "m.json:1: values nest more than 32 levels deep (those of a model file nest 4)"},
      {with(base, "\"units\": 4", "\"units\": 4.5"),
       "m.json:5: units must be a whole number, written without a fraction or an exponent"},
      {with(base, "\"units\": 4", "\"units\": 99999999999999999999"),
       "m.json:5: units is out of range: -2147483648 to 2147483647"},
      {with(base, "\"units\": 4", "\"units\": true"),
       "m.json:5: units must be a whole number, not true"},
  };
  for (const bad& c : cases) {
    INFO(c.text);
    CHECK(problem(c.text) == c.message);
  }
}

TEST_CASE("a model file passing the document layer's value budget is refused there",
          "[model_file]") {
  std::string many = "[\n";
  for (int i = 0; i < 100'000; ++i) many += "0,\n";
  CHECK(problem(many + "0]") ==
        "m.json:100001: the file holds more than 100000 values; migplan stops reading it there");
}

TEST_CASE("a model file may not hold more than 64 placements", "[model_file]") {
  // 16 units: a full profile and four 1-unit profiles of 16 starts each.
  std::string profiles =
      "{\"name\": \"16g.160gb\", \"id\": 0, \"compute_slices\": 16, \"size\": "
      "16, \"starts\": [0], \"max_instances\": 1}";
  const std::string all = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]";
  for (const char* attr : {"", "+a", "+b", "+c"})
    profiles += ",\n{\"name\": \"1g.10gb" + std::string(attr) +
                "\", \"id\": " + std::to_string(profiles.size()) +
                ", \"compute_slices\": 1, \"size\": 1, \"starts\": " + all +
                ", \"max_instances\": 1}";
  const std::string text =
      "{\"schema_version\": 1, \"slug\": \"wide\", \"description\": \"d\", \"units\": 16,\n"
      "\"compute_slices\": 16, \"source\": \"s\", \"profiles\": [\n" +
      profiles + "]}";
  CHECK(problem(text) ==
        "m.json:2: the profiles have 65 placements (profile and start pairs); migplan plans on "
        "at most 64");
}

TEST_CASE("a model file may not take what a model loaded before it has", "[model_file]") {
  auto first = parse_model_file(base, "first.json", builtin_models());
  REQUIRE(first);
  const loaded_model loaded(std::move(*first), "first.json");
  std::vector<const gpu_model*> taken(builtin_models().begin(), builtin_models().end());
  taken.push_back(&loaded.model());
  CHECK(problem(base, taken) ==
        "m.json:3: slug 'test-4u' is taken by test-4u (loaded from "
        "first.json)");
}

TEST_CASE("a model file larger than 1 MiB is refused unread", "[model_file]") {
  const std::string big = temp_file("big.json", base + std::string(std::size_t{1} << 20, ' '));
  const auto r = run_migplan({"gpus", "--gpu-file", big});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "migplan: " + big + ": larger than 1 MiB, the most a model file may hold\n");
  CHECK(problem(base + std::string(std::size_t{1} << 20, ' ')) ==
        "m.json: larger than 1 MiB, the most a model file may hold");
}

TEST_CASE("a broken model file stops every command before it runs", "[model_file][cli]") {
  const std::string unknown = temp_file("unknown.json", with(base, "\"units\"", "\"unts\""));
  const std::string why =
      ":5: unknown key 'unts' in the model (did you mean units?); the keys are schema_version, "
      "slug, description, smi_names, pci_ids, memory_mib, units, compute_slices, source, profiles";
  const std::string message = "migplan: " + unknown + why + "\n";
  const std::vector<std::vector<std::string>> commands = {
      {"pack", "--gpu", "a30", "1g.6gb"},
      {"gpus"},
      {"profiles"},
      {"enumerate", "--gpu", "a30"},
      {"fit", "--gpu", "a30", "--memory", "1Gi"},
      {"check", source_path("examples/geometry.yaml")},
      {"import", "--lgip", source_path("data/captures/a30-lgip.txt"), "--lgipp",
       source_path("data/captures/a30-lgipp.txt")},
  };
  for (const auto& cmd : commands) {
    INFO(cmd[0]);
    std::vector<std::string> before = {"--gpu-file", unknown};
    before.insert(before.end(), cmd.begin(), cmd.end());
    std::vector<std::string> after = cmd;
    after.insert(after.begin() + 1, {"--gpu-file", unknown});
    for (const auto& args : {before, after}) {
      const auto r = run_migplan(args);
      CHECK(r.code == 2);
      CHECK(r.out.empty());
      CHECK(r.err == message);
    }
  }
  // With JSON asked for, the error is also a document.
  const auto j = run_migplan({"pack", "--json", "--gpu-file", unknown, "1g.6gb"});
  CHECK(j.code == 2);
  CHECK(json::parse(j.out)["error"]["message"] == unknown + why);
  const auto missing = run_migplan({"gpus", "--gpu-file", "/nonexistent/model.json"});
  CHECK(missing.code == 2);
  CHECK(missing.err ==
        "migplan: cannot read model file '/nonexistent/model.json': No such file or directory\n");
}

TEST_CASE("a loaded model resolves by slug, PCI ID and nvidia-smi name", "[model_file][cli]") {
  for (const std::string gpu :
       {"example-4u", "EXAMPLE-4U", "0x123410DE", "0x1234", "NVIDIA Example 4U", "Example 4U"}) {
    INFO(gpu);
    for (const bool before : {true, false}) {
      const auto r = before ? run_migplan({"--gpu-file", example(), "pack", "--json", "--gpu", gpu,
                                           "2x1g.11gb", "2g.22gb"})
                            : run_migplan({"pack", "--json", "--gpu", gpu, "--gpu-file", example(),
                                           "2x1g.11gb", "2g.22gb"});
      REQUIRE(r.code == 0);
      const json j = json::parse(r.out);
      CHECK(j["gpu"]["id"] == "example-4u");
      CHECK(j["gpu"]["name"] == "NVIDIA Example 4U");
      CHECK(j["layout_count"] == 2);
      CHECK(j["layouts"][0]["instances"].size() == 3);
    }
  }
  // Without the file the model is unknown.
  const auto r = run_migplan({"pack", "--gpu", "example-4u", "1g.11gb"});
  CHECK(r.code == 2);
  CHECK(r.err.starts_with("migplan: unknown gpu 'example-4u'"));
}

TEST_CASE("profile names infer a loaded model", "[model_file][cli]") {
  const auto r = run_migplan({"--gpu-file", example(), "pack", "2x1g.11gb", "2g.22gb"});
  CHECK(r.code == 0);
  CHECK(
      r.out.starts_with("example-4u  NVIDIA Example 4U  (4 placement units, 4 compute slices)\n"
                        "request  2x1g.11gb 2g.22gb\n"
                        "fits: 2 layouts, the one that keeps the most room first\n"));
  // Names that only the file's model has are unknown without it.
  CHECK(run_migplan({"pack", "2x1g.11gb"}).code == 2);
  // A copy of a built-in model under another slug gives the same answer on both.
  const std::string a30 = temp_file(
      "a30-copy.json",
      run_migplan({"import", "--lgip", source_path("data/captures/a30-lgip.txt"), "--lgipp",
                   source_path("data/captures/a30-lgipp.txt"), "--name", "a30-copy"})
          .out);
  const auto both = run_migplan({"pack", "--gpu-file", a30, "1g.6gb", "2g.12gb"});
  CHECK(both.code == 0);
  CHECK(both.out.find("\nsame answer on a30-copy\n") != std::string::npos);
}

TEST_CASE("enumerate, profiles and fit work on a loaded model", "[model_file][cli]") {
  // By hand: 4 units, 4 slices; 1g (1 unit, starts 0-3), 2g (starts 0, 2), 4g.
  // 1g x1..4 (4+6+4+1 layouts), 2g (2), 2g+1g (4), 2g+2x1g (2), 2x2g (1), 4g (1).
  const auto e =
      run_migplan({"enumerate", "--gpu", "example-4u", "--gpu-file", example(), "--json"});
  REQUIRE(e.code == 0);
  const json j = json::parse(e.out);
  CHECK(j["geometry_count"] == 9);
  CHECK(j["layout_count"] == 25);
  CHECK(j["maximal_count"] == 4);

  const auto p = run_migplan({"--gpu-file", example(), "profiles", "--gpu", "example-4u"});
  CHECK(p.code == 0);
  CHECK(p.out.find("  4g.44gb             0     1    4      43.00   64*   4   4   0   1   1  "
                   "{0}:4\n") != std::string::npos);
  // Without --gpu, the loaded model comes after the catalog's.
  const auto all = run_migplan({"profiles", "--json", "--gpu-file", example()});
  REQUIRE(all.code == 0);
  const json pj = json::parse(all.out);
  CHECK(pj["gpus"].back()["id"] == "example-4u");
  CHECK(pj["gpus"].size() == catalog().size() + 1);

  const auto f = run_migplan(
      {"fit", "--gpu-file", example(), "--gpu", "example-4u", "--memory", "20Gi", "--count", "3"});
  CHECK(f.code == 0);
  CHECK(f.out ==
        "example-4u: 2g.22gb (21.50 GiB, 32 SMs) is the smallest profile with at least 20480 MiB\n"
        "one gpu holds 2 of it: 2g.22gb@0 2g.22gb@2\n"
        "3 instances need 2 gpus (the last holds 1)\n"
        "each full gpu strands 0 units (0.00 GiB) and 0 compute slices\n");
}

TEST_CASE("gpus lists a loaded model and where it came from", "[model_file][cli]") {
  const auto t = run_migplan({"gpus", "--gpu-file", example()});
  CHECK(t.code == 0);
  CHECK(t.out.find(
            "\nexample-4u        4       4  46080 MiB  partial      ?           0x123410DE\n") !=
        std::string::npos);
  CHECK(t.out.ends_with("\nloaded with --gpu-file:\n  example-4u    " + example() + "\n"));
  // Without one, the list ends with the table.
  CHECK(run_migplan({"gpus"}).out.find("--gpu-file") == std::string::npos);

  const auto j = run_migplan({"--gpu-file", example(), "gpus", "--json"});
  REQUIRE(j.code == 0);
  const json doc = json::parse(j.out);
  const json& last = doc["gpus"].back();
  CHECK(last["id"] == "example-4u");
  CHECK(last["source"] == "file");
  CHECK(last["file"] == example());
  CHECK(last["coverage"] == "partial");  // its 4g row marks sm_count inferred
  CHECK(doc["gpus"][0]["source"] == "built-in");
  CHECK(doc["gpus"][0]["file"].is_null());
}

TEST_CASE("check applies geometries and device-filters to a loaded model", "[model_file][cli]") {
  const std::string geometry =
      "version: 1\n"
      "gpus:\n"
      "  - model: example-4u\n"
      "    instances: [2x1g.11gb, 2g.22gb]\n"
      "  - model: 0x123410DE\n"
      "    instances: [3x2g.22gb]\n";
  const auto g = run_migplan({"check", "--gpu-file", example(), "-"}, geometry);
  CHECK(g.code == 1);
  CHECK(g.out.find("<stdin>:6:17: error: 'gpus[1]' does not fit on example-4u: 2g.22gb allows at "
                   "most 2 instances on example-4u (the request has 3)\n") != std::string::npos);
  CHECK(g.out.ends_with("checked 1 file: 1 geometry valid, 1 invalid\n"));

  const std::string config =
      "version: v1\n"
      "mig-configs:\n"
      "  mine:\n"
      "    - device-filter: [\"0x123410DE\"]\n"
      "      devices: all\n"
      "      mig-enabled: true\n"
      "      mig-devices:\n"
      "        \"1g.11gb\": 2\n"
      "        \"2g.22gb\": 1\n"
      "  unfiltered:\n"
      "    - devices: all\n"
      "      mig-enabled: true\n"
      "      mig-devices:\n"
      "        \"4g.44gb\": 1\n";
  const auto c = run_migplan({"--gpu-file", example(), "check", "-v", "-"}, config);
  CHECK(c.code == 0);
  CHECK(c.out.find("fits on example-4u") != std::string::npos);
  CHECK(c.out.ends_with("checked 1 file: 2 geometries valid, 0 invalid\n"));
  // Without the file, the filter names no known GPU and 4g.44gb no known profile.
  CHECK(run_migplan({"check", "-"}, config).code == 1);
  // --gpu names a loaded model as a fleet member.
  const auto fleet =
      run_migplan({"check", "--gpu-file", example(), "--gpu", "example-4u", "-"}, config);
  CHECK(fleet.code == 0);
}

TEST_CASE("models loaded in one run are gone in the next", "[model_file]") {
  std::ostringstream out, err;
  std::istringstream in;
  context ctx{out, err, in, false};
  CHECK(run({"migplan", "--gpu-file", example(), "pack", "--gpu", "example-4u", "1g.11gb"}, ctx) ==
        0);
  CHECK(ctx.models == nullptr);  // the run's models do not outlive it
  std::ostringstream out2, err2;
  context ctx2{out2, err2, in, false};
  CHECK(run({"migplan", "pack", "--gpu", "example-4u", "1g.11gb"}, ctx2) == 2);
}

TEST_CASE("a command mistyped after --gpu-file is still named", "[model_file][cli]") {
  const auto r = run_migplan({"--gpu-file", example(), "pakc", "1g.11gb"});
  CHECK(r.code == 2);
  CHECK(r.err ==
        "migplan: unknown command 'pakc' (did you mean pack?); 'migplan --help' lists "
        "them\n");
  // --gpu-file= with the file after the '='.
  const auto eq =
      run_migplan({"--gpu-file=" + example(), "pack", "--gpu", "example-4u", "4g.44gb"});
  CHECK(eq.code == 0);
}

TEST_CASE("plan and simulate resolve names among the loaded models", "[model_file][cli]") {
  const auto p = run_migplan({"--gpu-file", example(), "plan", "--gpu", "example-4u", "3x1g.11gb"});
  CHECK(p.code == 0);
  CHECK(p.out.starts_with("plan: 1 gpu (example-4u x1)\n"));
  const auto s = run_migplan(
      {"simulate", "--gpu-file", example(), "--gpu", "example-4u", "--gpus", "2", "--trace", "-"},
      "name,start,end,count,item\na,0,10,1,1g.11gb\n");
  CHECK(s.code == 0);
  CHECK(s.out.find("fleet: 2 example-4u GPUs") != std::string::npos);
  // Without the file, neither knows the model.
  CHECK(run_migplan({"plan", "--gpu", "example-4u", "3x1g.11gb"}).code == 2);
}

namespace {

// A built-in model as a model file would hold it: the model file's checks
// (io/model_check.cpp) then state the same rules as data/gen_catalog.py and
// catalog.hpp's static_asserts, or this test names the model they disagree on.
model_spec spec_of(const gpu_model& g) {
  model_spec s{.slug = std::string(g.slug),
               .description = std::string(g.description),
               .smi_names = {g.smi_names.begin(), g.smi_names.end()},
               .pci_ids = {g.pci_ids.begin(), g.pci_ids.end()},
               .memory_mib = g.memory_mib,
               .units = g.units,
               .compute_slices = g.compute_slices,
               .source = std::string(g.evidence),
               .profiles = {}};
  for (const profile& p : g.profiles) {
    profile_spec ps{.name = std::string(p.name),
                    .id = p.id,
                    .compute_slices = p.compute_slices,
                    .size = p.size,
                    .starts = {},
                    .max_instances = p.max_instances,
                    .memory_gib_x100 = p.memory_gib_x100,
                    .sm_count = p.sm_count,
                    .engines = p.engines,
                    .min_driver = std::string(p.min_driver),
                    .source = std::string(p.prov.source),
                    .placements_source = std::string(p.prov.placements_source),
                    .inferred = p.prov.inferred,
                    .notes = std::string(p.prov.notes)};
    for (int u = 0; u < max_units; ++u)
      if (p.allows_start(u)) ps.starts.push_back(u);
    s.profiles.push_back(std::move(ps));
  }
  return s;
}

// The built-in models other than `g`: taken, so a model may not reuse their names or IDs.
std::vector<const gpu_model*> catalog_but(const gpu_model& g) {
  std::vector<const gpu_model*> others;
  for (const gpu_model& o : catalog())
    if (&o != &g) others.push_back(&o);
  return others;
}

}  // namespace

TEST_CASE("every built-in model passes the model file's checks", "[model_file][catalog]") {
  for (const gpu_model& g : catalog()) {
    CAPTURE(g.slug);
    const std::optional<spec_problem> p = check_model_spec(spec_of(g), catalog_but(g));
    CHECK((p ? p->message : "(none)") == "(none)");
  }
}

TEST_CASE("a broken copy of a built-in model fails the model file's checks",
          "[model_file][catalog]") {
  // What the test above relies on: check_model_spec sees the copy spec_of()
  // makes, so a rule the catalog broke would be named. Each copy breaks one.
  const gpu_model& g = catalog().front();
  const model_spec good = spec_of(g);
  REQUIRE(good.profiles.size() >= 2);
  REQUIRE_FALSE(check_model_spec(good, catalog_but(g)));
  const auto problem = [&](const model_spec& s, model_list taken) {
    const std::optional<spec_problem> p = check_model_spec(s, taken);
    return p ? p->message : std::string("(none)");
  };

  model_spec past_end = good;  // the first profile also starts past the last unit
  past_end.profiles[0].starts.push_back(good.units);
  CHECK_THAT(problem(past_end, catalog_but(g)),
             Catch::Matchers::Contains("start " + std::to_string(good.units) +
                                       " is not a placement unit of the model"));

  model_spec same_id = good;  // two profiles with one ID
  same_id.profiles[1].id = good.profiles[0].id;
  CHECK_THAT(problem(same_id, catalog_but(g)),
             Catch::Matchers::Contains("id " + std::to_string(good.profiles[0].id) +
                                       " is also profile " + good.profiles[0].name + "'s"));

  // The model itself among the taken ones: its slug is the built-in model's.
  std::vector<const gpu_model*> all = catalog_but(g);
  all.push_back(&g);
  CHECK_THAT(problem(good, all), Catch::Matchers::Contains("is the built-in model"));
}

TEST_CASE("fit with --sms names as the largest only a profile whose SMs are known",
          "[model_file][fit]") {
  // The example's 4g.44gb without its SM count: with --sms it is not
  // considered (the note says so), and it was still named the largest.
  const std::string text = migplan::test::read_file(example());
  const std::string no_4g_sms =
      temp_file("no-4g-sms.json", with(text, "\"sm_count\": 64,", "\"sm_count\": null,"));
  auto r = run_migplan(
      {"fit", "--gpu-file", no_4g_sms, "--gpu", "example-4u", "--memory", "50Gi", "--sms", "1"});
  CHECK(r.code == 1);
  CHECK(r.out.find("; the largest is 2g.22gb (21.50 GiB)\n") != std::string::npos);
  CHECK(r.out.find("note: not considered, values unknown: 4g.44gb\n") != std::string::npos);
  // Without --sms it is considered, and the largest.
  r = run_migplan({"fit", "--gpu-file", no_4g_sms, "--gpu", "example-4u", "--memory", "50Gi"});
  CHECK(r.code == 1);
  CHECK(r.out.find("; the largest is 4g.44gb (43.00 GiB)\n") != std::string::npos);
  // No SM count at all: with --sms nothing is considered, and the message says why.
  std::string none = text;
  for (const std::string_view sms : {"\"sm_count\": 16,", "\"sm_count\": 32,", "\"sm_count\": 64,"})
    none = with(none, sms, "");
  const std::string no_sms = temp_file("no-sms.json", none);
  r = run_migplan(
      {"fit", "--gpu-file", no_sms, "--gpu", "example-4u", "--memory", "1Gi", "--sms", "1"});
  CHECK(r.code == 1);
  CHECK(r.out.starts_with(
      "example-4u: the memory or SM counts of its profiles are unknown, so it cannot be sized"));
  const auto doc = json::parse(run_migplan({"fit", "--gpu-file", no_sms, "--gpu", "example-4u",
                                            "--memory", "1Gi", "--sms", "1", "--json"})
                                   .out);
  CHECK(doc["largest"].is_null());
}

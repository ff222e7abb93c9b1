// SPDX-License-Identifier: Apache-2.0
// migplan import: every full -lgip/-lgipp capture pair a catalog model was
// transcribed from imports as that model's table, and the imported model
// answers every request as the built-in one does; and the command's own
// input handling (stdin, several GPUs, captures given the wrong way round).

#include "io/import.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <migplan/catalog.hpp>
#include <migplan/enumerate.hpp>
#include <migplan/search.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "../core/support.hpp"
#include "io/model_file.hpp"
#include "models.hpp"
#include "render/import.hpp"
#include "run_binary.hpp"

using namespace migplan;
using namespace migplan::cli;
using migplan::test::run_migplan;
using migplan::test::source_path;
using json = nlohmann::json;

namespace {

std::string capture_path(std::string_view name) {
  return source_path("data/captures/" + std::string(name));
}

capture_text capture(std::string_view name) {
  return {capture_path(name), std::string(name), migplan::test::read_file(capture_path(name))};
}

// A file in the temporary directory holding `text`.
std::string temp_path(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "migplan-import-test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// A built-in model and the two captures it was transcribed from.
struct capture_pair {
  const gpu_model* model = nullptr;
  std::string lgip, lgipp;
};

// Every catalog model whose evidence holds an -lgip and an -lgipp capture of
// the whole table (data/models.json lists them as its table sources).
std::vector<capture_pair> full_pairs() {
  std::vector<capture_pair> out;
  for (const gpu_model& m : catalog()) {
    capture_pair p{&m, {}, {}};
    std::string_view rest = m.evidence;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(", ");
      std::string_view file = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 2);
      if (!file.starts_with("data/captures/")) continue;
      file.remove_prefix(14);
      if (file.find("-lgipp") != std::string_view::npos)
        p.lgipp = file;
      else if (file.find("-lgip") != std::string_view::npos)
        p.lgip = file;
    }
    if (!p.lgip.empty() && !p.lgipp.empty() && m.cover == coverage::full) out.push_back(p);
  }
  return out;
}

model_spec imported(const capture_pair& p) {
  import_settings settings;
  settings.slug = std::string(p.model->slug) + "-imported";
  auto spec = import_model(capture(p.lgip), capture(p.lgipp), settings);
  INFO((spec ? "" : spec.error().message));
  REQUIRE(spec);
  const auto problem = check_model_spec(*spec, builtin_models());
  INFO((problem ? problem->message : ""));
  REQUIRE_FALSE(problem);
  return std::move(*spec);
}

// A layout as profile names at starts, by start: comparable across models.
std::string layout_names(const gpu_model& g, const layout& l) {
  std::string out;
  for (const instance& in : l)
    out += std::string(g.profiles[static_cast<std::size_t>(in.profile)].name) + "@" +
           std::to_string(in.start) + " ";
  return out;
}

// A geometry as "name x count" by name: comparable across models.
std::string geometry_names(const gpu_model& g, const profile_counts& c) {
  std::map<std::string, int> n;
  for (std::size_t p = 0; p < g.profiles.size(); ++p)
    if (c[static_cast<int>(p)] > 0) n[std::string(g.profiles[p].name)] = c[static_cast<int>(p)];
  std::string out;
  for (const auto& [name, k] : n) out += name + "x" + std::to_string(k) + " ";
  return out;
}

// " (driver 535.183.01)" when a catalog source names a driver version, else "".
std::string driver_note(std::string_view source) {
  for (std::size_t at = source.find("driver "); at != std::string_view::npos;
       at = source.find("driver ", at + 1)) {
    std::string_view v = source.substr(at + 7);
    v = v.substr(0, v.find_first_not_of("0123456789."));
    if (!v.empty()) return " (driver " + std::string(v) + ")";
  }
  return "";
}

}  // namespace

TEST_CASE("six full capture pairs are there to import", "[import]") {
  std::vector<std::string> slugs;
  for (const capture_pair& p : full_pairs()) slugs.emplace_back(p.model->slug);
  CHECK(slugs == std::vector<std::string>{"a30", "a100-40gb", "h100-80gb", "h100-pcie", "h100-nvl",
                                          "rtx-pro-6000"});
}

TEST_CASE("each full capture pair imports as the built-in table", "[import]") {
  for (const capture_pair& pair : full_pairs()) {
    const gpu_model& built = *pair.model;
    DYNAMIC_SECTION("model " << built.slug) {
      const loaded_model loaded(imported(pair), "test");
      const gpu_model& got = loaded.model();
      CHECK(got.units == built.units);
      CHECK(got.compute_slices == built.compute_slices);
      CHECK(got.cover == coverage::full);
      REQUIRE(got.profiles.size() == built.profiles.size());
      for (std::size_t i = 0; i < built.profiles.size(); ++i) {
        const profile& b = built.profiles[i];
        INFO("profile " << b.name);
        const int at = find_profile(got, b.name);
        REQUIRE(at >= 0);
        const profile& g = got.profiles[static_cast<std::size_t>(at)];
        CHECK(g.name == b.name);  // exactly, case included
        CHECK(g.compute_slices == b.compute_slices);
        const field inferred = b.prov.inferred;
        // Only what the catalog observed is compared; a value it infers may
        // rightly differ from a capture.
        if (!has(inferred, field::id)) CHECK(g.id == b.id);
        if (!has(inferred, field::placements)) {
          CHECK(g.size == b.size);
          CHECK(g.starts == b.starts);
        }
        if (!has(inferred, field::max_instances)) CHECK(g.max_instances == b.max_instances);
        if (!has(inferred, field::memory)) CHECK(g.memory_gib_x100 == b.memory_gib_x100);
        if (!has(inferred, field::sm_count)) CHECK(g.sm_count == b.sm_count);
        for (std::size_t k = 0; k < engine_kinds; ++k) {
          INFO("engine " << engine_names[k]);
          const bool observed =
              !has(inferred, field::engines) &&
              !(k == static_cast<std::size_t>(engine::ce) && has(inferred, field::ce));
          if (observed) CHECK(g.engines[k] == b.engines[k]);
        }
        // The catalog's source names the driver where the capture does.
        CHECK(g.prov.source == pair.lgip + driver_note(b.prov.source));
        CHECK(g.prov.placements_source.starts_with(pair.lgipp));
        CHECK_FALSE(g.inferred());
      }
      // And in -lgip order, which is the catalog's for these models.
      for (std::size_t i = 0; i < built.profiles.size(); ++i)
        CHECK(got.profiles[i].name == built.profiles[i].name);
    }
  }
}

TEST_CASE("an imported model has the built-in model's geometries", "[import]") {
  for (const capture_pair& pair : full_pairs()) {
    const gpu_model& built = *pair.model;
    DYNAMIC_SECTION("model " << built.slug) {
      const loaded_model loaded(imported(pair), "test");
      const geometry_set a = enumerate(built), b = enumerate(loaded.model());
      const auto as_set = [](const gpu_model& g, const geometry_set& s) {
        std::set<std::string> out;
        for (const geometry& x : s.geometries)
          out.insert(geometry_names(g, x.counts) + std::to_string(x.layout_count) +
                     (x.maximal ? " maximal" : ""));
        return out;
      };
      CHECK(a.geometries.size() == b.geometries.size());
      CHECK(a.layout_count == b.layout_count);
      CHECK(a.maximal_count == b.maximal_count);
      CHECK(as_set(built, a) == as_set(loaded.model(), b));
    }
  }
}

TEST_CASE("an imported model answers every multiset as the built-in model does",
          "[import][exhaustive]") {
  for (const capture_pair& pair : full_pairs()) {
    const gpu_model& built = *pair.model;
    DYNAMIC_SECTION("model " << built.slug) {
      const loaded_model loaded(imported(pair), "test");
      const gpu_model& got = loaded.model();
      // Profile index on the built-in model -> on the imported one.
      std::vector<int> to;
      for (const profile& p : built.profiles) to.push_back(find_profile(got, p.name));
      room_memo memo_built(built), memo_got(got);
      std::size_t requests = 0, fits = 0;
      migplan::test::each_multiset(built, [&](const std::vector<item>& items,
                                              const std::vector<int>&) {
        if (items.empty()) return;
        std::vector<item> mapped;
        for (const item& it : items)
          mapped.push_back({to[static_cast<std::size_t>(it.profile)], it.start});
        solve_options a_opt, b_opt;
        a_opt.memo = &memo_built;
        b_opt.memo = &memo_got;
        const solution a = solve(built, items, a_opt), b = solve(got, mapped, b_opt);
        ++requests;
        INFO("request of " << items.size() << " instances; first layout "
                           << (a.layouts.empty() ? "" : layout_names(built, a.layouts[0].where)));
        REQUIRE(a.layout_count == b.layout_count);
        REQUIRE(a.why.code == b.why.code);
        REQUIRE(a.layouts.size() == b.layouts.size());
        for (std::size_t i = 0; i < a.layouts.size(); ++i)
          REQUIRE(layout_names(built, a.layouts[i].where) == layout_names(got, b.layouts[i].where));
        if (a.feasible()) ++fits;
      });
      // Every multiset up to the caps was asked, and some of them fit.
      CHECK(requests > 1);
      CHECK(fits > 0);
    }
  }
}

TEST_CASE("an imported model reads back from the JSON import writes", "[import]") {
  for (const capture_pair& pair : full_pairs()) {
    DYNAMIC_SECTION("model " << pair.model->slug) {
      const model_spec spec = imported(pair);
      const std::string text = render::model_json(spec);
      auto back = parse_model_file(text, "x.json", builtin_models());
      INFO((back ? "" : back.error().message));
      REQUIRE(back);
      CHECK(render::model_json(*back) == text);
    }
  }
}

namespace {

// A capture's text without its '#' header lines (nvidia-smi prints none).
std::string capture_listing(std::string_view name) {
  std::string out;
  std::istringstream in(migplan::test::read_file(capture_path(name)));
  for (std::string line; std::getline(in, line);)
    if (!line.starts_with('#')) out += line + "\n";
  return out;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::vector<std::string> import_args(const std::string& lgip, const std::string& lgipp) {
  return {"import", "--lgip", lgip, "--lgipp", lgipp};
}

}  // namespace

TEST_CASE("import writes the model file on stdout or to -o", "[import][cli]") {
  const std::string lgip = capture_path("a30-lgip.txt"), lgipp = capture_path("a30-lgipp.txt");
  const auto r = run_migplan(import_args(lgip, lgipp));
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.starts_with(
      "{\n"
      "  \"schema_version\": 1,\n"
      "  \"slug\": \"imported-4g-24gb\",\n"
      "  \"description\": \"GPU imported from nvidia-smi mig -lgip and -lgipp (full-GPU profile "
      "4g.24gb)\",\n"
      "  \"smi_names\": [],\n"
      "  \"pci_ids\": [],\n"
      "  \"memory_mib\": null,\n"
      "  \"units\": 4,\n"
      "  \"compute_slices\": 4,\n"
      "  \"source\": \"migplan import of nvidia-smi mig -lgip a30-lgip.txt and -lgipp "
      "a30-lgipp.txt (driver 535.183.01)\",\n"
      "  \"profiles\": [\n"));
  const json j = json::parse(r.out);
  CHECK(j["profiles"][4] == json::parse(R"j({
    "name": "4g.24gb", "id": 0, "compute_slices": 4, "size": 4, "starts": [0],
    "max_instances": 1, "memory_gib": 23.44, "sm_count": 56,
    "engines": {"ce": 4, "dec": 4, "enc": 0, "jpg": 1, "ofa": 1}, "min_driver": null,
    "source": "a30-lgip.txt (driver 535.183.01)",
    "placements_source": "a30-lgipp.txt (driver 535.183.01)", "inferred": [], "notes": ""})j"));

  const std::string out =
      (std::filesystem::temp_directory_path() / "migplan-import-a30.json").string();
  std::vector<std::string> args = import_args(lgip, lgipp);
  args.insert(args.end(), {"-o", out});
  const auto o = run_migplan(args);
  CHECK(o.code == 0);
  CHECK(o.out.empty());
  CHECK(migplan::test::read_file(out) == r.out);

  args.back() = "/nonexistent/dir/model.json";
  const auto w = run_migplan(args);
  CHECK(w.code == 2);
  CHECK(w.err ==
        "migplan: cannot write '/nonexistent/dir/model.json': No such file or directory\n");
}

TEST_CASE("import names the model, its description and PCI IDs as asked", "[import][cli]") {
  std::vector<std::string> args =
      import_args(capture_path("h100-nvl-lgip.txt"), capture_path("h100-nvl-lgipp.txt"));
  args.insert(args.end(), {"--name", "nvl-560", "--description", "H100 NVL, driver 560", "--pci-id",
                           "0x2321", "--pci-id", "0xABCD10DE"});
  // 0x2321 is the built-in h100-nvl's: taken.
  const auto taken = run_migplan(args);
  CHECK(taken.code == 2);
  CHECK(taken.err == "migplan: the model of " + capture_path("h100-nvl-lgip.txt") + " and " +
                         capture_path("h100-nvl-lgipp.txt") +
                         " cannot be used: PCI ID 0x232110DE belongs to the built-in model "
                         "h100-nvl\n");
  args[args.size() - 3] = "0x1234";
  const auto r = run_migplan(args);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j["slug"] == "nvl-560");
  CHECK(j["description"] == "H100 NVL, driver 560");
  CHECK(j["pci_ids"] == json::parse(R"([{"id": "0x123410DE", "inferred": false},
                                        {"id": "0xABCD10DE", "inferred": false}])"));

  args = import_args(capture_path("a30-lgip.txt"), capture_path("a30-lgipp.txt"));
  for (const auto& [extra, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--name", "a30"},
            "the model of " + capture_path("a30-lgip.txt") + " and " +
                capture_path("a30-lgipp.txt") +
                " cannot be used: slug 'a30' is the built-in model a30's: a model file adds a "
                "model and cannot replace one; choose another slug"},
           {{"--name", "A30 copy"},
            "the model of " + capture_path("a30-lgip.txt") + " and " +
                capture_path("a30-lgipp.txt") +
                " cannot be used: slug 'A30 copy' is not a slug: lower-case letters and digits, "
                "in words joined by '-' (a100-40gb, my-gpu-2)"},
           {{"--pci-id", "0xZZ"},
            "--pci-id '0xZZ' is not a PCI device ID: write 0xDEVICE10DE (0x20B010DE) or the "
            "device part alone (0x20B0)"},
       }) {
    std::vector<std::string> a = args;
    a.insert(a.end(), extra.begin(), extra.end());
    const auto bad = run_migplan(a);
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
    CHECK(bad.err == "migplan: " + message + "\n");
  }
}

TEST_CASE("import reads one capture from standard input", "[import][cli]") {
  const auto r = run_migplan({"import", "--lgip", "-", "--lgipp", capture_path("a30-lgipp.txt")},
                             migplan::test::read_file(capture_path("a30-lgip.txt")));
  CHECK(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j["profiles"].size() == 5);
  CHECK(j["profiles"][0]["source"] == "<stdin> (driver 535.183.01)");
  const auto both = run_migplan({"import", "--lgip", "-", "--lgipp", "-"});
  CHECK(both.code == 2);
  CHECK(both.err == "migplan: --lgip and --lgipp cannot both read standard input ('-')\n");
}

TEST_CASE("import picks one GPU of a listing of several", "[import][cli]") {
  // GPU 1 is GPU 0 again, except that it allows three 1g.6gb instead of four.
  const std::string lgip0 = capture_listing("a30-lgip.txt");
  const std::size_t rows = lgip0.find("|   0  MIG");
  const std::string gpu1 =
      replace_all(replace_all(lgip0.substr(rows), "|   0  MIG", "|   1  MIG"), "4/4", "3/3");
  const std::string lgip = temp_path("two-gpus-lgip.txt", lgip0 + gpu1);
  const std::string lgipp0 = capture_listing("a30-lgipp.txt");
  const std::string lgipp =
      temp_path("two-gpus-lgipp.txt", lgipp0 + replace_all(lgipp0, "GPU  0", "GPU  1"));

  const auto r = run_migplan(import_args(lgip, lgipp));
  CHECK(r.code == 2);
  CHECK(r.err == "migplan: " + lgip + ": the listing holds GPUs 0, 1; pick one with --index\n");
  for (const auto& [index, cap] : {std::pair{"0", 4}, std::pair{"1", 3}}) {
    std::vector<std::string> args = import_args(lgip, lgipp);
    args.insert(args.end(), {"--index", index});
    const auto one = run_migplan(args);
    REQUIRE(one.code == 0);
    CHECK(json::parse(one.out)["profiles"][0]["max_instances"] == cap);
  }
  std::vector<std::string> args = import_args(lgip, lgipp);
  args.insert(args.end(), {"--index", "2"});
  const auto none = run_migplan(args);
  CHECK(none.code == 2);
  CHECK(none.err == "migplan: " + lgip + ": the listing has no GPU 2 (it lists GPU 0, 1)\n");
}

TEST_CASE("import refuses captures that do not make a model", "[import][cli]") {
  const std::string a30 = capture_path("a30-lgip.txt"), a30pp = capture_path("a30-lgipp.txt");
  // The two files the other way round.
  auto r = run_migplan(import_args(a30pp, a30));
  CHECK(r.code == 2);
  CHECK(r.err ==
        "migplan: " + a30pp +
            " is nvidia-smi mig -lgipp output; --lgip takes nvidia-smi mig -lgip output\n");
  // A partial capture may lack rows.
  const std::string partial = capture_path("b200-lgip-partial-pr166.txt");
  r = run_migplan(import_args(partial, a30pp));
  CHECK(r.code == 2);
  CHECK(r.err == "migplan: " + partial +
                     ":4: marked '# complete: no' (a partial capture or a fragment): rows may be "
                     "missing; import needs the whole listing of nvidia-smi mig -lgip\n");
  // Captures of two different GPUs: A30 profile 21 (line 12, under three '#' lines) has no
  // A100 placements.
  const std::string a100pp = capture_path("a100-40gb-lgipp.txt");
  r = run_migplan(import_args(a30, a100pp));
  CHECK(r.code == 2);
  CHECK(r.err ==
        "migplan: " + a100pp + ": no placements for profile 1g.6gb+me (ID 21, " + a30 + ":12)\n");
  // The pre-R525 A100 -lgipp lacks 1g.10gb (profile 15), which the -lgip lists.
  r = run_migplan(import_args(capture_path("a100-40gb-lgip.txt"),
                              capture_path("a100-40gb-lgipp-pre-r525.txt")));
  CHECK(r.code == 2);
  CHECK(r.err.find(": no placements for profile 1g.10gb (ID 15, ") != std::string::npos);
  // Garbage is the reader's error, at its line.
  const std::string garbage =
      temp_path("garbage-lgip.txt", capture_listing("a30-lgip.txt") + "hello\n");
  r = run_migplan(import_args(garbage, a30pp));
  CHECK(r.code == 2);
  CHECK(r.err.starts_with("migplan: " + garbage + ":21: "));
}

namespace {

// `text` with every occurrence of `from` replaced by `to`; `from` must occur.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  REQUIRE(text.find(from) != std::string::npos);
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + 1))
    text.replace(at, from.size(), to);
  return text;
}

// `text` without the lines that contain `what`, and for an -lgip table, without the
// continuation and rule lines of the row.
std::string without_lines(const std::string& text, const std::string& what, int also_after) {
  std::istringstream in(text);
  std::string out, line;
  int skip = 0;
  while (std::getline(in, line)) {
    if (skip > 0) {
      --skip;
      continue;
    }
    if (line.find(what) != std::string::npos) {
      skip = also_after;
      continue;
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("a driver version's branch is the number before its first dot", "[import][driver]") {
  CHECK(driver_branch("515.86.01") == 515);
  CHECK(driver_branch("575.64") == 575);
  CHECK(driver_branch("610.43.02") == 610);
  CHECK_FALSE(driver_branch("").has_value());
  CHECK_FALSE(driver_branch("535").has_value());
  CHECK_FALSE(driver_branch("R535").has_value());
  CHECK_FALSE(driver_branch(".86.01").has_value());
}

TEST_CASE("an imported table is matched to the one built-in model it is of", "[import][driver]") {
  for (const capture_pair& p : full_pairs()) {
    INFO(std::string(p.model->slug));
    auto spec = import_model(capture(p.lgip), capture(p.lgipp), {});
    REQUIRE(spec);
    CHECK(catalog_model_of(*spec, catalog()) == p.model);
  }
  // A table no built-in model has: the A30's with another full-GPU profile name.
  auto spec = import_model(capture("a30-lgip.txt"), capture("a30-lgipp.txt"), {});
  REQUIRE(spec);
  for (profile_spec& p : spec->profiles)
    if (p.name == "4g.24gb") p.name = "4g.32gb";
  CHECK(catalog_model_of(*spec, catalog()) == nullptr);
}

TEST_CASE("import warns when a capture lists a profile its driver should not have",
          "[import][driver][cli]") {
  const std::string lgipp = capture_path("a30-lgipp.txt");
  const std::string text = migplan::test::read_file(capture_path("a30-lgip.txt"));
  // The A30's +me profiles came with R470 (1g.6gb+me) and R525 (2g.12gb+me).
  const std::string r460 =
      temp_path("a30-lgip-r460.txt", replaced(text, "535.183.01", "460.91.03"));
  const auto r = run_migplan(import_args(r460, lgipp));
  CHECK(r.code == 0);  // a warning, not an error: the model is written
  CHECK(json::parse(r.out)["profiles"].size() == 5);
  CHECK(r.err ==
        "migplan: warning: " + r460 +
            ": driver 460.91.03 lists 1g.6gb+me, which a30 has from R470 on (NVIDIA's MIG "
            "guide); check the driver the capture names\n"
            "migplan: warning: " +
            r460 +
            ": driver 460.91.03 lists 2g.12gb+me, which a30 has from R525 on (NVIDIA's MIG "
            "guide); check the driver the capture names\n");

  // Older than MIG on the A30 at all.
  const std::string r450 =
      temp_path("a30-lgip-r450.txt", replaced(text, "535.183.01", "450.80.02"));
  const auto old = run_migplan(import_args(r450, lgipp));
  CHECK(old.code == 0);
  CHECK(old.err.starts_with("migplan: warning: " + r450 +
                            ": driver 450.80.02 is older than R460 (>= 460.73.01), the first "
                            "NVIDIA's MIG guide gives for MIG on a30\n"));
}

TEST_CASE("import warns when a capture lacks a profile its driver should have",
          "[import][driver][cli]") {
  // The A30 listings without 2g.12gb+me (profile ID 6): a 535 driver has it, a 515 does not.
  const std::string lgip_text =
      without_lines(migplan::test::read_file(capture_path("a30-lgip.txt")), "MIG 2g.12gb+me", 2);
  const std::string lgipp = temp_path(
      "a30-lgipp-no-6.txt",
      without_lines(migplan::test::read_file(capture_path("a30-lgipp.txt")), "Profile ID  6", 0));
  const std::string r535 = temp_path("a30-lgip-no-6.txt", lgip_text);
  const auto r = run_migplan(import_args(r535, lgipp));
  CHECK(r.code == 0);
  CHECK(json::parse(r.out)["profiles"].size() == 4);
  CHECK(r.err == "migplan: warning: " + r535 +
                     ": driver 535.183.01 does not list 2g.12gb+me, which a30 has from R525 on "
                     "(NVIDIA's MIG guide); the imported model lacks it\n");

  const std::string r515 =
      temp_path("a30-lgip-no-6-r515.txt", replaced(lgip_text, "535.183.01", "515.86.01"));
  const auto ok = run_migplan(import_args(r515, lgipp));
  CHECK(ok.code == 0);
  CHECK(ok.err.empty());

  // No driver line: nothing to compare, nothing said.
  const std::string none =
      temp_path("a30-lgip-no-6-nodriver.txt", replaced(lgip_text, "# driver: 535.183.01\n", ""));
  const auto quiet = run_migplan(import_args(none, lgipp));
  CHECK(quiet.code == 0);
  CHECK(quiet.err.empty());
}

// SPDX-License-Identifier: Apache-2.0
// Names operators type and the messages they get back: partial gpu names, an
// empty --gpu, Kubernetes sizes, totals spelled out, and tokens echoed back
// escaped and short.

#include "io/names.hpp"

#include <catch2/catch.hpp>
#include <migplan/catalog.hpp>
#include <migplan/explain.hpp>
#include <migplan/search.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "io/request.hpp"
#include "messages.hpp"
#include "models.hpp"
#include "quote.hpp"
#include "render/gpus.hpp"
#include "run_binary.hpp"

using namespace migplan;
using namespace migplan::cli;
using migplan::test::run_migplan;

namespace {

std::vector<item> items_of(const gpu_model& gpu, std::vector<std::string> words) {
  auto tokens = parse_items(words);
  REQUIRE(tokens);
  auto items = resolve_items(builtin_models(), gpu, *tokens);
  REQUIRE(items);
  return *items;
}

// Why `words` does not fit on `slug`, as pack and check say it.
std::string why_text(std::string_view slug, std::vector<std::string> words) {
  const gpu_model& gpu = *find_model(slug);
  const std::vector<item> items = items_of(gpu, std::move(words));
  const solution s = solve(gpu, items);
  REQUIRE_FALSE(s.feasible());
  return describe(gpu, explain(gpu, items, s.why), items);
}

}  // namespace

TEST_CASE("four hex digits that start a model name are a name, not a pci device id",
          "[names][gpu]") {
  for (const char* typed : {"a100", "A100", "NVIDIA A100"}) {
    INFO(typed);
    const auto r = run_migplan({"pack", "--gpu", typed, "1g.5gb"});
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "migplan: gpu '" + std::string(typed) +
                       "' is ambiguous: a100-40gb, a100-80gb; pass one of them\n");
  }
  CHECK(resolve_gpu(builtin_models(), "h100").error().message ==
        "gpu 'h100' is ambiguous: h100-80gb, h100-pcie, h100-nvl; pass one of them");
  CHECK(resolve_gpu(builtin_models(), "gh200").error().message ==
        "gpu 'gh200' is ambiguous: gh200-96gb, gh200-144gb; pass one of them");
  // A word inside the names, when no name starts with it.
  CHECK(resolve_gpu(builtin_models(), "pcie").error().message ==
        "gpu 'pcie' is ambiguous: a100-40gb, a100-80gb, h100-pcie; pass one of them");
  CHECK(resolve_gpu(builtin_models(), "rtx").error().message ==
        "gpu 'rtx' is ambiguous: rtx-pro-6000, rtx-pro-5000, rtx-pro-4500; pass one of them");
  // One model: suggested, not silently taken.
  CHECK(resolve_gpu(builtin_models(), "rtx pro 5000").error().message ==
        "unknown gpu 'rtx pro 5000' (did you mean rtx-pro-5000?); 'migplan gpus' lists them");
  CHECK(resolve_gpu(builtin_models(), "gh200-96").error().message ==
        "unknown gpu 'gh200-96' (did you mean gh200-96gb?); 'migplan gpus' lists them");
  // Nothing starts with it or contains it: the nearest spellings.
  CHECK(resolve_gpu(builtin_models(), "h300").error().message ==
        "unknown gpu 'h300' (did you mean h200, b300 or a30?); 'migplan gpus' lists them");
}

TEST_CASE("a pci device id is still one when no model name matches", "[names][gpu]") {
  for (const char* id : {"0x20B0", "20B010DE", "0x20B010DE", "20b0"}) {
    INFO(id);
    auto g = resolve_gpu(builtin_models(), id);
    REQUIRE(g);
    CHECK((*g)->slug == "a100-40gb");
  }
  CHECK(resolve_gpu(builtin_models(), "0xA100").error().message ==
        "no supported gpu has pci device id 0xA10010DE (see 'migplan gpus')");
  // Hex digits without 0x that are near a name: both readings are named.
  CHECK(resolve_gpu(builtin_models(), "b201").error().message ==
        "no supported gpu has pci device id 0xB20110DE, and no model is named 'b201' (did you "
        "mean b200, h20 or h200?); 'migplan gpus' lists them");
  const auto r = run_migplan({"profiles", "--gpu", "20B010DE", "--json"});
  CHECK(r.code == 0);
  CHECK(r.out.find("\"a100-40gb\"") != std::string::npos);
}

TEST_CASE("an empty --gpu is the same error in every command", "[names][gpu]") {
  const std::vector<std::vector<std::string>> commands{
      {"pack", "1g.5gb"},          {"profiles"},  {"check", MIGPLAN_SOURCE_DIR "/examples"},
      {"fit", "--memory", "10Gi"}, {"enumerate"},
  };
  for (const auto& cmd : commands) {
    for (const std::vector<std::string>& gpu :
         {std::vector<std::string>{"--gpu", ""}, std::vector<std::string>{"--gpu", "  "},
          std::vector<std::string>{"--gpu="}}) {
      std::vector<std::string> args{cmd.front()};
      args.insert(args.end(), gpu.begin(), gpu.end());
      args.insert(args.end(), cmd.begin() + 1, cmd.end());
      INFO(Catch::Detail::stringify(args));
      const auto r = run_migplan(args);
      CHECK(r.code == 2);
      CHECK(r.out.empty());
      CHECK(r.err == "migplan: empty gpu name\n");
    }
  }
}

TEST_CASE("fit takes Kubernetes quantities, and G is 10^9 bytes", "[names][fit]") {
  const auto gi = run_migplan({"fit", "--gpu", "h100-80gb", "--memory", "12Gi"});
  CHECK(gi.code == 0);
  CHECK(gi.out.starts_with(
      "h100-80gb: 1g.20gb (19.62 GiB, 26 SMs) is the smallest profile with at least 12288 MiB\n"));
  const auto mi = run_migplan({"fit", "--gpu", "h100-80gb", "--memory", "12288Mi"});
  CHECK(mi.out == gi.out);
  // 10G is 9537 MiB: a 1g.10gb (9.75 GiB = 9984 MiB) holds it; 10Gi does not fit there.
  const auto g = run_migplan({"fit", "--gpu", "h100-80gb", "--memory", "10G"});
  CHECK(g.out.starts_with(
      "h100-80gb: 1g.10gb (9.75 GiB, 16 SMs) is the smallest profile with at least 9537 MiB\n"));
  // --help tells the binary unit from the decimal one; migplan-fit(1) lists them all.
  const auto help = run_migplan({"fit", "--help"});
  CHECK(help.out.find("12Gi (2^30 bytes), 12G (10^9)") != std::string::npos);
}

TEST_CASE("fit says a count that is not a number is not a number", "[names][fit]") {
  const auto r = run_migplan({"fit", "--gpu", "a100-40gb", "--memory", "1Gi", "--count", "abc"});
  CHECK(r.code == 2);
  CHECK(r.err ==
        "migplan: --count 'abc' is not a number: expected a whole number from 1 to 1000000000\n");
  const auto big =
      run_migplan({"fit", "--gpu", "a100-40gb", "--memory", "1Gi", "--count", "5000000000"});
  CHECK(big.err == "migplan: --count 5000000000 is too large (at most 1000000000)\n");
  const auto sms = run_migplan({"fit", "--gpu", "a100-40gb", "--memory", "1Gi", "--sms", "lots"});
  CHECK(sms.err ==
        "migplan: --sms 'lots' is not a number: expected a whole number from 1 to 100000\n");
  const auto empty = run_migplan({"fit", "--gpu", "a100-40gb", "--memory", "1Gi", "--count", ""});
  CHECK(empty.err ==
        "migplan: --count '' is not a number: expected a whole number from 1 to 1000000000\n");
}

TEST_CASE("one instance needs one gpu", "[names][fit]") {
  const auto r = run_migplan({"fit", "--gpu", "a100-40gb", "--memory", "5Gi"});
  CHECK(r.code == 0);
  CHECK(r.out ==
        "a100-40gb: 1g.10gb (9.62 GiB, 14 SMs) is the smallest profile with at least 5120 MiB\n"
        "one gpu holds 4 of it: 1g.10gb@0 1g.10gb@2 1g.10gb@4 1g.10gb@6\n"
        "1 instance needs 1 gpu\n"
        "each full gpu strands 0 units (0.00 GiB) and 3 compute slices\n");
  const auto two = run_migplan({"fit", "--gpu", "a100-40gb", "--memory", "5Gi", "--count", "2"});
  CHECK(two.out.find("\n2 instances need 1 gpu\n") != std::string::npos);
  const auto five = run_migplan({"fit", "--gpu", "a100-40gb", "--memory", "5Gi", "--count", "5"});
  CHECK(five.out.find("\n5 instances need 2 gpus (the last holds 1)\n") != std::string::npos);
}

TEST_CASE("a total that does not fit is spelled out per profile", "[names][messages]") {
  CHECK(why_text("h100-80gb", {"7x1g.10gb", "1g.20gb"}) ==
        "7 x 1g.10gb (1 unit each) + 1 x 1g.20gb (2 units) = 9 placement units but h100-80gb "
        "has 8");
  CHECK(why_text("a100-40gb", {"4g.20gb", "2x2g.10gb"}) ==
        "2 x 2g.10gb (2 slices each) + 1 x 4g.20gb (4 slices) = 8 compute slices but a100-40gb "
        "has 7");
  CHECK(why_text("a30", {"1g.6gb+me", "2g.12gb+me"}) ==
        "1 x 1g.6gb+me (1 JPG engine) + 1 x 2g.12gb+me (1 JPG engine) = 2 JPG engines together "
        "but a30 has 1 (the full-GPU profile's count); they cannot coexist");
  // Reasons that already name their counts read as before.
  CHECK(why_text("h100-80gb", {"3x3g.40gb"}) ==
        "3g.40gb allows at most 2 instances on h100-80gb (the request has 3)");
  // Without the request, the sentence names the profiles only.
  const gpu_model& h100 = *find_model("h100-80gb");
  const std::vector<item> items = items_of(h100, {"7x1g.10gb", "1g.20gb"});
  const reason why = explain(h100, items, solve(h100, items).why);
  CHECK(describe(h100, why) == "1g.10gb and 1g.20gb need 9 placement units but h100-80gb has 8");
}

TEST_CASE("migplan with no arguments prints the usage as a usage error", "[names][app]") {
  const auto r = run_migplan({});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(
      r.err.starts_with("migplan: exact planner for NVIDIA MIG GPU-instance geometries\n"
                        "Usage: migplan [OPTIONS] SUBCOMMAND\n"));
  CHECK(r.err.find("\n  pack ") != std::string::npos);
  CHECK(r.err.find("Exit codes: 0 fits or valid, 1 does not fit or invalid, 2 bad input or "
                   "usage,\n3 no plan found within plan's --time-limit.\n") != std::string::npos);
}

TEST_CASE("a token echoed back is escaped and cut short", "[names][quote]") {
  CHECK(quote_token("1g.5gbb") == "'1g.5gbb'");
  CHECK(quote_token("a\x1b[2Jb\tc\nd\re\\f\x7f") == R"('a\x1b[2Jb\tc\nd\re\\f\x7f')");
  CHECK(quote_token(std::string(100, 'g')) == "'" + std::string(40, 'g') + "...'");
  CHECK(quote_token(std::string(41, 'g'), 40) == "'" + std::string(40, 'g') + "...'");
  CHECK(quote_token(std::string(40, 'g'), 40) == "'" + std::string(40, 'g') + "'");
  CHECK(clip_token("abcdef", 3) == "abc...");
  // UTF-8 passes whole and counts as one character; invalid bytes become U+FFFD
  // (as JSON output has them); invisible and direction marks are named.
  CHECK(clip_token("\xC3\xA9t\xC3\xA9", 2) == "\xC3\xA9t...");
  CHECK(clip_token("a\xFF"
                   "b") ==
        "a\xEF\xBF\xBD"
        "b");
  CHECK(clip_token("a\xE2\x80\xAE"
                   "b\xC2\x9B"
                   "c") == R"(a\u202eb\u009bc)");
}

TEST_CASE("control characters in names typed reach the terminal escaped", "[names][quote]") {
  const auto gpu = run_migplan({"pack", "--gpu", "a\x1b[2J", "1g.5gb"});
  CHECK(gpu.code == 2);
  CHECK(gpu.err == "migplan: unknown gpu 'a\\x1b[2J'; 'migplan gpus' lists them\n");
  const auto prof = run_migplan({"pack", "--gpu", "a100-40gb", "1g.5gb\x1b]0;owned\x07"});
  CHECK(prof.err ==
        "migplan: unknown profile '1g.5gb\\x1b]0;owned\\x07' on a100-40gb; 'migplan profiles --gpu "
        "a100-40gb' lists them\n");
  const auto cmd =
      run_migplan({"pa\x1b"
                   "ck"});
  CHECK(cmd.err ==
        "migplan: unknown command 'pa\\x1bck' (did you mean pack?); 'migplan --help' lists them\n");
  const auto opt = run_migplan({"gpus", "--js\x1bn"});
  CHECK(opt.err ==
        "migplan: the following argument was not expected: --js\\x1bn (did you mean --json?)\n");
  const auto count = run_migplan({"pack", "--gpu", "a100-40gb", "1\tx1g.5gb"});
  CHECK(count.code == 2);
  CHECK(count.err.find('\t') == std::string::npos);
}

TEST_CASE("a huge gpu name is refused quickly and quoted short", "[names][quote]") {
  // 100 KB: about the most one argument may hold (Linux caps one at 128 KiB).
  const std::string word(100000, 'h');
  const auto r = run_migplan({"enumerate", "--gpu", word});
  CHECK(r.code == 2);
  CHECK(r.err ==
        "migplan: unknown gpu '" + std::string(40, 'h') + "...'; 'migplan gpus' lists them\n");
  CHECK(resolve_gpu(builtin_models(), std::string(5000, 'x') + "a100").error().message ==
        "unknown gpu '" + std::string(40, 'x') + "...'; 'migplan gpus' lists them");
}

TEST_CASE("every name nvidia-smi prints for a supported board resolves to its model",
          "[names][gpu]") {
  struct board {
    const char* name;
    const char* slug;
  };
  // Sources: data/models.json (each name's `source`).
  const board boards[] = {
      {"NVIDIA H200", "h200"},
      {"NVIDIA H200 NVL", "h200"},
      {"NVIDIA GH200 480GB", "gh200-96gb"},
      {"NVIDIA GH200 120GB", "gh200-96gb"},
      {"NVIDIA GH200 144G HBM3e", "gh200-144gb"},
      {"NVIDIA H20", "h20"},
      {"NVIDIA B300 SXM6 AC", "b300"},
      {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "rtx-pro-6000"},
      {"NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "rtx-pro-6000"},
      {"NVIDIA RTX PRO 5000 Blackwell", "rtx-pro-5000"},
      {"rtx pro 5000 blackwell", "rtx-pro-5000"},  // case and "NVIDIA " are optional
      {"rtx-pro-5000", "rtx-pro-5000"},
  };
  for (const board& b : boards) {
    INFO(b.name);
    const auto g = resolve_gpu(builtin_models(), b.name);
    REQUIRE(g);
    CHECK((*g)->slug == b.slug);
  }
  // Through the binary, the longest of them.
  const auto r = run_migplan(
      {"profiles", "--gpu", "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "--json"});
  CHECK(r.code == 0);
  CHECK(r.out.find("\"id\": \"rtx-pro-6000\"") != std::string::npos);
  // The 72GB RTX PRO 5000 has another name and no documented table.
  CHECK_FALSE(resolve_gpu(builtin_models(), "NVIDIA RTX PRO 5000 72GB Blackwell"));
  // gpus --json lists every one of them under its model.
  const std::string listed = run_migplan({"gpus", "--json"}).out;
  for (const board& b : boards)
    if (std::string_view(b.name).starts_with("NVIDIA ")) {
      INFO(b.name);
      CHECK(listed.find("\"" + std::string(b.name) + "\"") != std::string::npos);
    }
}

TEST_CASE("pci ids that NVIDIA's configs give a sibling's table resolve, marked inferred",
          "[names][gpu]") {
  struct id_to_model {
    const char* id;
    const char* slug;
  };
  // 0x2322/0x2324 H800 (mig-parted: H100-80GB configs), 0x233D H100 96GB and 0x20B6
  // PG506-96GB (the 96GB configs), 0x233B H200 NVL, 0x2BB1/0x2BB4 RTX PRO 6000
  // Workstation/Max-Q (the guide's RTX PRO 6000 table), 0x2BB3 RTX PRO 5000.
  const id_to_model ids[] = {
      {"0x232410DE", "h100-80gb"},  {"0x232210DE", "h100-pcie"},    {"0x233D10DE", "gh200-96gb"},
      {"0x20B610DE", "gh200-96gb"}, {"0x233B10DE", "h200"},         {"0x2BB110DE", "rtx-pro-6000"},
      {"0x2BB4", "rtx-pro-6000"},   {"0x2BB310DE", "rtx-pro-5000"},
  };
  const std::string gpus = run_migplan({"gpus"}).out;
  for (const id_to_model& x : ids) {
    INFO(x.id);
    const auto g = resolve_gpu(builtin_models(), x.id);
    REQUIRE(g);
    CHECK((*g)->slug == x.slug);
    // `migplan gpus` lists it with the '?' of an inferred mapping.
    std::string full = x.id;
    if (full.size() == 6) full += "10DE";
    CHECK(gpus.find(full + "?") != std::string::npos);
  }
  const auto r = run_migplan({"pack", "--gpu", "0x2BB4", "--json", "4g.96gb"});
  CHECK(r.code == 0);
  CHECK(r.out.find("\"id\": \"rtx-pro-6000\"") != std::string::npos);
}

TEST_CASE("a model without a known nvidia-smi name has a null JSON name", "[names][json]") {
  // No catalog model lacks one today; the renderer must still say null, not prose.
  gpu_model unnamed = *find_model("b300");
  unnamed.smi_names = {};
  std::ostringstream out;
  const migplan::cli::listed_model listed{&unnamed, {}};
  render::gpus_json(out, std::span<const migplan::cli::listed_model>(&listed, 1));
  CHECK(out.str().find("\"name\": null") != std::string::npos);
  CHECK(out.str().find("\"description\": \"B300 (HGX B300, Blackwell Ultra)\"") !=
        std::string::npos);
  CHECK(unnamed.name().empty());
}

TEST_CASE("a profile name only third-party tools use names the real profile", "[names][profile]") {
  // HAMi's and nos's A100-80GB tables say 7g.79gb (data/models.json circulating_names);
  // nvidia-smi prints 7g.80gb. The name is explained, never accepted.
  const std::string why =
      "7g.79gb is not a name nvidia-smi prints; nvidia-smi calls it 7g.80gb on a100-80gb "
      "(profile 0; Kubernetes tooling derived it from NVML's memory size (gpu-operator issue "
      "351); HAMi's and nos's A100-80GB tables still list it)";
  const auto on = run_migplan({"pack", "--gpu", "a100-80gb", "7g.79gb"});
  CHECK(on.code == 2);
  CHECK(on.out.empty());
  CHECK(on.err == "migplan: unknown profile '7g.79gb' on a100-80gb: " + why + "\n");
  const auto any = run_migplan({"pack", "MIG 7G.79GB"});
  CHECK(any.code == 2);
  CHECK(any.err == "migplan: unknown profile '7G.79GB': " + why + "\n");
  CHECK(resolve_profile(builtin_models(), *find_model("h100-80gb"), "7g.79gb").error().message ==
        "unknown profile '7g.79gb' on h100-80gb: " + why);
  // A mig-parted entry for A100-80GB gets the same hint.
  const std::string config =
      "version: v1\n"
      "mig-configs:\n"
      "  k8s:\n"
      "    - device-filter: [\"0x20B210DE\"]\n"
      "      devices: all\n"
      "      mig-enabled: true\n"
      "      mig-devices:\n"
      "        \"7g.79gb\": 1\n";
  const auto check = run_migplan({"check", "-"}, config);
  CHECK(check.code == 1);
  CHECK(check.out.find("unknown profile '7g.79gb' on a100-80gb: " + why + "\n") !=
        std::string::npos);
}

TEST_CASE("a count written after its profile or as a word of its own says where it goes",
          "[names][request]") {
  // The ITEM syntax is [Nx]PROFILE: these spellings read as unknown profiles or as profile
  // ID 3, and the message only said that. Each now names the spelling migplan takes.
  const std::string how = "a count goes before its profile, joined by x: write 3x1g.10gb";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"1g.10gb*3"}, "unknown profile '1g.10gb*3' on a100-80gb: " + how},
      {{"1g.10gb:3"}, "unknown profile '1g.10gb:3' on a100-80gb: " + how},
      {{"1g.10gbx3"}, "unknown profile '1g.10gbx3' on a100-80gb: " + how},
      {{"3*1g.10gb"}, "unknown profile '3*1g.10gb' on a100-80gb: " + how},
      {{"MIG 1g.10gb", "x3"}, "'1g.10gb x3': " + how},
      {{"1g.10gb x3"}, "'1g.10gb x3': " + how},
      {{"3", "x", "1g.10gb"}, "'3 x 1g.10gb': " + how},
  };
  for (const auto& [items, message] : cases) {
    std::vector<std::string> args{"pack", "--gpu", "a100-80gb"};
    args.insert(args.end(), items.begin(), items.end());
    const auto r = run_migplan(args);
    INFO(items.front());
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "migplan: " + message + "\n");
  }
  // Without --gpu, and in plan's demand, the same hint.
  const auto any = run_migplan({"pack", "1g.10gb*3"});
  CHECK(any.code == 2);
  CHECK(any.err == "migplan: unknown profile '1g.10gb*3': " + how + "\n");
  const auto plan = run_migplan({"plan", "--gpu", "h100-80gb", "1g.10gb x3"});
  CHECK(plan.code == 2);
  CHECK(plan.err == "migplan: invalid profile name '1g.10gb x3': " + how + "\n");
  // A count alone has no profile to name.
  const auto lone = run_migplan({"pack", "--gpu", "a100-80gb", "x3"});
  CHECK(lone.code == 2);
  CHECK(lone.err ==
        "migplan: unknown profile 'x3' on a100-80gb: a count goes before its profile, joined "
        "by x: write 3xPROFILE\n");
  // A name that merely ends in digits is no count: the usual did-you-mean.
  const auto typo = run_migplan({"pack", "--gpu", "a100-80gb", "1g.10gb2"});
  CHECK(typo.code == 2);
  CHECK(typo.err.find("a count goes") == std::string::npos);
}

TEST_CASE("a Kubernetes resource name as a profile names the profile it stands for",
          "[names][request]") {
  // The GPU Operator's mixed strategy advertises nvidia.com/mig-<profile>, '+' written
  // as '.' (k8s::label_word); people paste it from pod specs.
  const auto r = run_migplan({"pack", "--gpu", "a100-80gb", "nvidia.com/mig-1g.10gb"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "migplan: unknown profile 'nvidia.com/mig-1g.10gb' on a100-80gb: "
        "nvidia.com/mig-1g.10gb is the Kubernetes resource name of profile 1g.10gb: write "
        "1g.10gb\n");
  const auto me = run_migplan({"pack", "--gpu", "h100-80gb", "mig-1g.10gb.me"});
  CHECK(me.code == 2);
  CHECK(me.err ==
        "migplan: unknown profile 'mig-1g.10gb.me' on h100-80gb: mig-1g.10gb.me is the "
        "Kubernetes resource name of profile 1g.10gb+me: write 1g.10gb+me\n");
  const auto plan = run_migplan({"plan", "--gpu", "h100-80gb", "nvidia.com/mig-3g.40gb"});
  CHECK(plan.code == 2);
  CHECK(plan.err ==
        "migplan: invalid profile name 'nvidia.com/mig-3g.40gb': nvidia.com/mig-3g.40gb is the "
        "Kubernetes resource name of profile 3g.40gb: write 3g.40gb\n");
  // A resource that is no profile gets no such hint.
  const auto none = run_migplan({"pack", "--gpu", "a100-80gb", "nvidia.com/mig-1g.11gb"});
  CHECK(none.code == 2);
  CHECK(none.err.find("resource name") == std::string::npos);
}

TEST_CASE("a board name with words nvidia-smi does not print suggests its family", "[names]") {
  // Spec sheets and vendors write "H200 141GB HBM3e"; nvidia-smi prints "NVIDIA H200".
  // The nearest spellings of the whole were other families' boards.
  const auto r = run_migplan({"pack", "--gpu", "H200 141GB HBM3e", "1g.18gb"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "migplan: unknown gpu 'H200 141GB HBM3e' (did you mean h200?); 'migplan gpus' lists "
        "them\n");
  const auto h100 = run_migplan({"profiles", "--gpu", "NVIDIA H100 SXM5 80GB"});
  CHECK(h100.code == 2);
  CHECK(h100.err ==
        "migplan: unknown gpu 'NVIDIA H100 SXM5 80GB' (did you mean h100-80gb, h100-pcie or "
        "h100-nvl?); 'migplan gpus' lists them\n");
}

TEST_CASE("a hyphenated board name suggests its own family and not another near spelling",
          "[names]") {
  // "h100-sxm5-80gb" is two letters from the A100's nvidia-smi name A100-SXM4-80GB,
  // and "h100-pcie-80gb" from A100-PCIE-40GB: the nearest spellings were A100s.
  const auto sxm = run_migplan({"pack", "--gpu", "h100-sxm5-80gb", "1g.10gb"});
  CHECK(sxm.code == 2);
  CHECK(sxm.out.empty());
  CHECK(sxm.err ==
        "migplan: unknown gpu 'h100-sxm5-80gb' (did you mean h100-80gb, h100-pcie or "
        "h100-nvl?); 'migplan gpus' lists them\n");
  const auto pcie = run_migplan({"fit", "--gpu", "h100-pcie-80gb", "--memory", "10Gi"});
  CHECK(pcie.code == 2);
  CHECK(pcie.err ==
        "migplan: unknown gpu 'h100-pcie-80gb' (did you mean h100-80gb, h100-pcie or "
        "h100-nvl?); 'migplan gpus' lists them\n");
  // "h200-141gb" was offered gh200-144gb.
  const auto h200 = run_migplan({"pack", "--gpu", "h200-141gb", "1g.18gb"});
  CHECK(h200.code == 2);
  CHECK(h200.err ==
        "migplan: unknown gpu 'h200-141gb' (did you mean h200?); 'migplan gpus' lists them\n");
  // A typo inside the family still gets the nearest spelling alone.
  const auto typo = run_migplan({"pack", "--gpu", "a100-40g", "1g.5gb"});
  CHECK(typo.code == 2);
  CHECK(typo.err ==
        "migplan: unknown gpu 'a100-40g' (did you mean a100-40gb?); 'migplan gpus' lists them\n");
}

TEST_CASE("a memory item where a profile is wanted points at fit", "[names]") {
  // plan and simulate take mem=SIZE; pack, like place, takes profiles.
  const auto pack = run_migplan({"pack", "--gpu", "h100-80gb", "2xmem=20Gi"});
  CHECK(pack.code == 2);
  CHECK(pack.out.empty());
  CHECK(pack.err ==
        "migplan: unknown profile 'mem=20Gi' on h100-80gb: a memory size is not a profile (plan "
        "and simulate take mem=SIZE); 'migplan fit --gpu h100-80gb --memory 20Gi' names the "
        "smallest profile with that much\n");
}

TEST_CASE("a gpu is named by its gpu.product label as GPU Feature Discovery writes it", "[names]") {
  // nvidia.com/gpu.product: the nvidia-smi name with '-' for each space.
  const auto h100 = resolve_gpu(builtin_models(), "NVIDIA-H100-80GB-HBM3");
  REQUIRE(h100);
  CHECK((*h100)->slug == "h100-80gb");
  const auto a100 = resolve_gpu(builtin_models(), "nvidia-a100-sxm4-40gb");
  REQUIRE(a100);
  CHECK((*a100)->slug == "a100-40gb");
  const auto bare = resolve_gpu(builtin_models(), "H100-80GB-HBM3");
  REQUIRE(bare);
  CHECK((*bare)->slug == "h100-80gb");
  // The single strategy's suffix names a node's setup, not a model.
  CHECK_FALSE(resolve_gpu(builtin_models(), "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb"));
}

TEST_CASE("a gpu given as a word where --gpu is wanted is pointed at --gpu", "[names]") {
  struct bad {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<bad> cases{
      {{"profiles", "h100-80gb"},
       "migplan: the following argument was not expected: h100-80gb (did you mean --gpu "
       "h100-80gb?)\n"},
      {{"enumerate", "--json", "a30"}, "migplan: --gpu is required (did you mean --gpu a30?)\n"},
      {{"fit", "--memory", "20GiB", "H100-80GB"},
       "migplan: --gpu is required (did you mean --gpu H100-80GB?)\n"},
      // No gpu among the words, or --gpu given: as before.
      {{"profiles", "h100-80"}, "migplan: the following argument was not expected: h100-80\n"},
      {{"enumerate"}, "migplan: --gpu is required\n"},
      {{"profiles", "--gpu", "a30", "a30"},
       "migplan: the following argument was not expected: a30\n"},
  };
  for (const bad& b : cases) {
    INFO("args: " << Catch::Detail::stringify(b.args));
    const auto r = run_migplan(b.args);
    CHECK(r.code == 2);
    CHECK(r.err == b.err);
  }
}

TEST_CASE("a name that differs only in case suggests that one name", "[names]") {
  const std::vector<std::string> names{"pack-first-fit", "pack-best-fit", "spread-first-fit"};
  CHECK(did_you_mean("Pack-First-Fit", names) == " (did you mean pack-first-fit?)");
  CHECK(did_you_mean("pack-frist-fit", names) ==
        " (did you mean pack-first-fit or pack-best-fit?)");
}

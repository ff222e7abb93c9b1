// SPDX-License-Identifier: Apache-2.0
// In-process tests of the CLI's parsers: items, names, sizes.

#include "io/request.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <migplan/catalog.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app.hpp"
#include "io/names.hpp"
#include "io/size.hpp"
#include "models.hpp"

using namespace migplan;
using namespace migplan::cli;

TEST_CASE("an item parses its count, profile and start", "[request]") {
  auto t = parse_item("2x1g.5gb@6");
  REQUIRE(t);
  CHECK(t->count == 2);
  CHECK(t->profile == "1g.5gb");
  REQUIRE(t->start);
  CHECK(*t->start == 6);

  auto plain = parse_item("3g.20gb");
  REQUIRE(plain);
  CHECK(plain->count == 1);
  CHECK_FALSE(plain->start);
}

TEST_CASE("malformed counts and starts are refused with the item named", "[request]") {
  CHECK(parse_item("0x1g.5gb").error().message == "count 0 in '0x1g.5gb' must be at least 1");
  CHECK(parse_item("-1x1g.5gb").error().message == "count -1 in '-1x1g.5gb' must be at least 1");
  CHECK(parse_item("99999999999x1g.5gb").error().message ==
        "count 99999999999 in '99999999999x1g.5gb' is too large (at most 1000)");
  // Past what a 64-bit integer holds it is still a whole number, just too large.
  CHECK(parse_item("99999999999999999999x1g.5gb").error().message ==
        "count 99999999999999999999 in '99999999999999999999x1g.5gb' is too large (at most "
        "1000)");
  CHECK(parse_item("1001x1g.5gb").error().message ==
        "count 1001 in '1001x1g.5gb' is too large (at most 1000)");
  CHECK(parse_item("1g.5gb@x").error().message ==
        "invalid start 'x' in '1g.5gb@x': expected a placement unit number");
  CHECK(parse_item("1g.5gb@").error().message ==
        "invalid start '' in '1g.5gb@': expected a placement unit number");
  CHECK(parse_item("2x").error().message == "missing profile name in '2x'");
  CHECK(parse_item("@3").error().message == "missing profile name in '@3'");
}

TEST_CASE("items split on spaces and commas and a lone MIG joins the next word", "[request]") {
  const std::vector<std::string> words{"MIG", "3g.20gb", "2x1g.5gb,1g.5gb@6"};
  auto toks = parse_items(words);
  REQUIRE(toks);
  REQUIRE(toks->size() == 3);
  CHECK((*toks)[0].profile == "3g.20gb");
  CHECK((*toks)[2].start.value_or(-1) == 6);
  // In the middle too, in order; a MIG with no word after it stays (and is
  // then an unknown profile).
  const std::vector<std::string> mid{"1g.5gb", "mig", "3g.20gb", "2x1g.5gb", "MIG"};
  auto in_order = parse_items(mid);
  REQUIRE(in_order);
  std::vector<std::string> profiles;
  for (const token& t : *in_order) profiles.push_back(t.text);
  CHECK(profiles == std::vector<std::string>{"1g.5gb", "3g.20gb", "2x1g.5gb", "MIG"});
  CHECK(parse_items(std::vector<std::string>{}).error().message == "no profiles given");
  CHECK(parse_items(std::vector<std::string>{" , "}).error().message == "no profiles given");
}

TEST_CASE("profiles resolve by name, MIG prefix, case or id, and pins are range-checked",
          "[request]") {
  const gpu_model& a100 = *find_model("a100-40gb");
  CHECK(*resolve_profile(builtin_models(), a100, "MIG 3G.20GB") == find_profile(a100, "3g.20gb"));
  CHECK(*resolve_profile(builtin_models(), a100, "9") == find_profile(a100, "3g.20gb"));
  CHECK(resolve_profile(builtin_models(), a100, "3g.20g").error().message ==
        "unknown profile '3g.20g' on a100-40gb (did you mean 3g.20gb or 4g.20gb?)");
  CHECK(resolve_profile(builtin_models(), a100, "1g.24gb+me.all").error().message ==
        "unknown profile '1g.24gb+me.all' on a100-40gb (it is a profile of rtx-pro-6000 and "
        "rtx-pro-5000)");
  CHECK(resolve_profile(builtin_models(), a100, "42").error().message ==
        "a100-40gb has no profile id 42 (ids: 19, 20, 15, 14, 9, 5, 0)");
  auto toks = parse_items(std::vector<std::string>{"1g.5gb@8"});
  REQUIRE(toks);
  CHECK(resolve_items(builtin_models(), a100, *toks).error().message ==
        "start 8 in '1g.5gb@8' is outside a100-40gb's placement units 0-7");
}

TEST_CASE("an old driver's profile name points to the current one", "[request]") {
  const gpu_model& gb200 = *find_model("gb200");
  const std::string msg = resolve_profile(builtin_models(), gb200, "3g.95gb").error().message;
  CHECK(
      msg.starts_with("unknown profile '3g.95gb' on gb200: 3g.95gb is what older gb200 drivers "
                      "called 3g.93gb (profile 9;"));
}

TEST_CASE("gpus resolve by slug, nvidia-smi name and PCI device id", "[request]") {
  CHECK((*resolve_gpu(builtin_models(), "A100-40GB"))->slug == "a100-40gb");
  CHECK((*resolve_gpu(builtin_models(), "NVIDIA A100-SXM4-40GB"))->slug == "a100-40gb");
  CHECK((*resolve_gpu(builtin_models(), "a100-sxm4-40gb"))->slug == "a100-40gb");
  CHECK((*resolve_gpu(builtin_models(), "0x20B010DE"))->slug == "a100-40gb");
  CHECK((*resolve_gpu(builtin_models(), "0x20b0"))->slug == "a100-40gb");
  CHECK((*resolve_gpu(builtin_models(), "0x2BB510DE"))->slug == "rtx-pro-6000");
  CHECK(resolve_gpu(builtin_models(), "0x12345678").error().message ==
        "no supported gpu has pci device id 0x12345678 (see 'migplan gpus')");
  CHECK(resolve_gpu(builtin_models(), "a100-40g").error().message ==
        "unknown gpu 'a100-40g' (did you mean a100-40gb?); 'migplan gpus' lists them");
  CHECK(resolve_gpu(builtin_models(), "").error().message == "empty gpu name");
}

TEST_CASE("the models a request could mean are those having every profile", "[request]") {
  auto toks = parse_items(std::vector<std::string>{"4g.20gb", "1g.5gb"});
  REQUIRE(toks);
  const auto c = candidate_models(builtin_models(), *toks);
  REQUIRE(c.size() == 1);
  CHECK(c[0]->slug == "a100-40gb");
  auto mixed = parse_items(std::vector<std::string>{"1g.5gb", "1g.24gb+me.all"});
  REQUIRE(mixed);
  CHECK(candidate_models(builtin_models(), *mixed).empty());
  CHECK(no_common_model(builtin_models(), *mixed).message ==
        "no single gpu has all of these profiles:\n  1g.5gb: a100-40gb\n  1g.24gb+me.all: "
        "rtx-pro-6000, rtx-pro-5000");
  auto typo = parse_items(std::vector<std::string>{"1g.5gbb"});
  REQUIRE(typo);
  CHECK(no_common_model(builtin_models(), *typo)
            .message.starts_with("unknown profile '1g.5gbb' (did you mean 1g.5gb"));
}

TEST_CASE("durations are whole seconds or whole numbers with units, largest first",
          "[request][simulate]") {
  CHECK(*parse_duration_s("600", 1'000'000) == 600);
  CHECK(*parse_duration_s("0", 1'000'000) == 0);
  CHECK(*parse_duration_s("90s", 1'000'000) == 90);
  CHECK(*parse_duration_s("10m", 1'000'000) == 600);
  CHECK(*parse_duration_s("1h30m", 1'000'000) == 5400);
  CHECK(*parse_duration_s("2d", 1'000'000) == 172800);
  CHECK(*parse_duration_s("1d2h3m4s", 1'000'000) == 86400 + 7200 + 180 + 4);
  CHECK(*parse_duration_s("1000000", 1'000'000) == 1'000'000);
  for (const char* bad : {"", "s", "10x", "1m1h", "1m1m", "10m5", "1.5h", "-5", " 5", "5 m"})
    CHECK_FALSE(parse_duration_s(bad, 1'000'000));
  CHECK_FALSE(parse_duration_s("1000001", 1'000'000));
  CHECK_FALSE(parse_duration_s("12d", 1'000'000));
  CHECK_FALSE(parse_duration_s("99999999999999999999999h", 1'000'000));
}

TEST_CASE("sizes take binary units and Kubernetes quantities, rounded up to a MiB",
          "[request][fit]") {
  CHECK(*parse_size_mib("12GiB") == 12288);
  CHECK(*parse_size_mib("12Gi") == 12288);
  CHECK(*parse_size_mib("12gib") == 12288);
  CHECK(*parse_size_mib("12288MiB") == 12288);
  CHECK(*parse_size_mib("12288Mi") == 12288);
  CHECK(*parse_size_mib("1Ti") == 1048576);
  CHECK(*parse_size_mib("1TiB") == 1048576);
  CHECK(*parse_size_mib("1.5Gi") == 1536);
  CHECK(*parse_size_mib("4.75Gi") == 4864);  // exact: no rounding error pushes it to 4865
  CHECK(*parse_size_mib("0.5Mi") == 1);
  CHECK(*parse_size_mib("1Ki") == 1);
  CHECK(*parse_size_mib("1048576Ki") == 1024);
  CHECK(*parse_size_mib("1048577Ki") == 1025);
  // Decimal, as Kubernetes reads them: 12G is 12 * 10^9 bytes = 11444.09 MiB.
  CHECK(*parse_size_mib("12G") == 11445);
  CHECK(*parse_size_mib("12GB") == 11445);
  CHECK(*parse_size_mib("12gb") == 11445);
  CHECK(*parse_size_mib("12000M") == 11445);
  CHECK(*parse_size_mib("12000MB") == 11445);
  CHECK(*parse_size_mib("1T") == 953675);
  CHECK(*parse_size_mib("1048576k") == 1000);
  CHECK(*parse_size_mib("1048577k") == 1001);
  CHECK(*parse_size_mib("1048576000M") == 1000000000);
}

TEST_CASE("a size without a clear unit is refused with what to write", "[request][fit]") {
  const std::string units =
      "Gi or GiB, Mi or MiB, Ti or TiB (powers of 2), or G or GB, M or MB, T or TB (powers of 10)";
  CHECK(parse_size_mib("12").error().message == "size '12' has no unit: use " + units);
  CHECK(parse_size_mib("12x").error().message == "invalid size unit 'x' in '12x': use " + units);
  CHECK(parse_size_mib("12g").error().message ==
        "size unit 'g' in '12g' is ambiguous: use Gi or GiB (2^30 bytes) or G or GB (10^9 bytes)");
  CHECK(parse_size_mib("12m").error().message ==
        "size unit 'm' in '12m' is milli in Kubernetes: use Mi or MiB (2^20 bytes) or M or MB "
        "(10^6 bytes)");
  CHECK(parse_size_mib("GiB").error().message ==
        "invalid size 'GiB': expected a number with a unit, e.g. 12Gi or 12288Mi");
  CHECK(parse_size_mib("-1Gi").error().message ==
        "invalid size '-1Gi': expected a number with a unit, e.g. 12Gi or 12288Mi");
  CHECK(parse_size_mib("0G").error().message == "size '0G' must be more than zero");
  CHECK(parse_size_mib("1048577000M").error().message ==
        "size '1048577000M' is too large (at most 1000000000 MiB)");
  CHECK(parse_size_mib("99999999999999999999Gi").error().message ==
        "size '99999999999999999999Gi' has more than 18 significant digits");
  CHECK(parse_size_mib("0.0000000000000000001Gi").error().message ==
        "size '0.0000000000000000001Gi' has more than 18 digits after the point");
}

TEST_CASE("counts given as options say whether they are numbers at all", "[request][fit]") {
  CHECK(*parse_whole_number("--count", "20", 1, 1000) == 20);
  CHECK(*parse_whole_number("--count", "+20", 1, 1000) == 20);
  CHECK(parse_whole_number("--count", "abc", 1, 1000).error().message ==
        "--count 'abc' is not a number: expected a whole number from 1 to 1000");
  CHECK(parse_whole_number("--count", "", 1, 1000).error().message ==
        "--count '' is not a number: expected a whole number from 1 to 1000");
  CHECK(parse_whole_number("--count", "1.5", 1, 1000).error().message ==
        "--count '1.5' is not a number: expected a whole number from 1 to 1000");
  CHECK(parse_whole_number("--count", "0", 1, 1000).error().message ==
        "--count 0 must be at least 1");
  CHECK(parse_whole_number("--count", "-3", 1, 1000).error().message ==
        "--count -3 must be at least 1");
  CHECK(parse_whole_number("--count", "1001", 1, 1000).error().message ==
        "--count 1001 is too large (at most 1000)");
  CHECK(parse_whole_number("--count", "99999999999999999999", 1, 1000).error().message ==
        "--count 99999999999999999999 is too large (at most 1000)");
}

TEST_CASE("colour is off for NO_COLOR, TERM=dumb and non-terminals", "[style]") {
  ::unsetenv("NO_COLOR");
  ::setenv("TERM", "xterm", 1);
  CHECK(color_allowed(true));
  CHECK_FALSE(color_allowed(false));
  ::setenv("NO_COLOR", "1", 1);
  CHECK_FALSE(color_allowed(true));
  ::unsetenv("NO_COLOR");
  ::setenv("TERM", "dumb", 1);
  CHECK_FALSE(color_allowed(true));
}

TEST_CASE("the application runs in-process on an argument vector", "[app]") {
  std::ostringstream out, err;
  std::istringstream in("7g.40gb\n");
  context ctx{out, err, in, false};
  CHECK(run({"migplan", "pack", "--gpu", "a100-40gb", "--batch", "-", "--brief"}, ctx) == 0);
  CHECK(out.str() == "1\ta100-40gb\tfits\t1\t7g.40gb@0\n");
  CHECK(err.str().empty());

  std::ostringstream out2, err2;
  std::istringstream none;
  context ctx2{out2, err2, none, false};
  CHECK(run({"migplan", "pack", "--gpu"}, ctx2) == 2);
  CHECK(out2.str().empty());
  CHECK(err2.str().starts_with("migplan: "));
}

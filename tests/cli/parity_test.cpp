// SPDX-License-Identifier: Apache-2.0
// mig-parted parity: `migplan check` on the cases NVIDIA mig-parted's own
// tests decide, each with the verdict mig-parted gives and the one migplan
// gives, and why they differ where they do (migplan also checks that a
// geometry fits, which mig-parted leaves to the driver). doc/mig-parted-parity.md
// lists the rules with the source line of each.
//
// Sources (github.com/NVIDIA/mig-parted, at the commits the test cases were read):
//   SPECT  api/spec/v1/spec_test.go          2c4957c2c6123b3e11d6af569032bc991f5cc55a
//   SPEC   api/spec/v1/spec.go               f5e1171a2fda1faa9f4440df1655b379e411bf48
//   CFG    pkg/types/mig_config.go           f5e1171a2fda1faa9f4440df1655b379e411bf48
//   HLPT   api/spec/v1/helpers_test.go       2a081fd0bd3c6b675ae122bc9178894a84e5aea8
//   DEV    pkg/types/device.go               2a081fd0bd3c6b675ae122bc9178894a84e5aea8
//   KCT    pkg/mig/config/known_configs_test.go 2c4957c2c6123b3e11d6af569032bc991f5cc55a
//   ASRT   cmd/nvidia-mig-parted/assert/assert.go 22f3ebf56922475d32a42b167694538bc338c55b
//   GOYAML gopkg.in/yaml.v2 v2.4.0 scannerc.go (yaml_parser_stale_simple_keys), the go-yaml
//          v2 scanner under sigs.k8s.io/yaml, which mig-parted reads configs with
//   NVLIBT github.com/NVIDIA/go-nvlib pkg/nvlib/device/mig_profile_test.go
//          642041d1e044427fac2809732dff7e9c55007d83 (the profile grammar mig-parted uses)

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "run_binary.hpp"

using migplan::test::run_migplan;

namespace {

enum class verdict { accepts, rejects };

struct parity_case {
  const char* source;    // where mig-parted decides it
  const char* name;      // the test's own name there, or what it checks
  std::string yaml;      // the config
  verdict mig_parted;    // what mig-parted does with it
  int migplan_exit;      // what `migplan check -` exits with
  const char* message;   // a part of migplan's diagnostics ("" when silent)
  const char* why = "";  // where migplan deliberately differs, why
};

// An entry of label `all` in a v1 config.
std::string entry(const std::string& body) {
  return "version: v1\nmig-configs:\n  all:\n    - " + body + "\n";
}

// A JSON config with one label of `n` times `letter` (UTF-8), the label's
// closing quote and its ':' written as `colon`.
std::string json_label(int n, const char* colon, const char* letter = "a") {
  std::string label;
  for (int i = 0; i < n; ++i) label += letter;
  return "{\"version\": \"v1\", \"mig-configs\": {\"" + label + colon +
         " [{\"devices\": \"all\", \"mig-enabled\": false}]}}\n";
}

// A YAML config with one plain label of `n` letters.
std::string yaml_label(int n) {
  return "version: v1\nmig-configs:\n  " + std::string(static_cast<std::size_t>(n), 'a') +
         ":\n    - devices: all\n      mig-enabled: false\n";
}

const std::vector<parity_case>& cases() {
  static const std::vector<parity_case> all = {
      // --- TestSpec (SPECT) ---
      {"SPECT:144", "TestSpec Empty", "", verdict::accepts, 0, "warning: empty file"},
      {"SPECT:149", "TestSpec Well formed",
       "version: v1\nmig-configs:\n  all-disabled:\n    - devices: all\n      mig-enabled: false\n",
       verdict::accepts, 0, ""},
      {"SPECT:162", "TestSpec Only version field", "version: v1\n", verdict::accepts, 0,
       "note: no 'mig-configs': nothing to check"},
      {"SPECT:169", "TestSpec Well formed - wrong version",
       "version: v2\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: false\n",
       verdict::rejects, 2, "unsupported version 'v2'"},
      {"SPECT:189", "TestSpec Missing version field",
       "mig-configs:\n  a:\n    - devices: all\n      mig-enabled: false\n", verdict::rejects, 2,
       "missing 'version: v1'"},
      {"SPECT:201", "TestSpec Erroneous field",
       "version: v1\nbogus: 1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: false\n",
       verdict::rejects, 2, "unknown field 'bogus'"},
      {"SPECT:215", "TestSpec Empty 'mig-configs'", "version: v1\nmig-configs: {}\n",
       verdict::rejects, 2, "'mig-configs' is empty"},
      {"SPEC:88", "an empty config list", "version: v1\nmig-configs:\n  a: []\n", verdict::rejects,
       2, "config 'a' has no entries"},
      // --- TestMigConfigSpec (SPECT) ---
      {"SPECT:249", "TestMigConfigSpec Well formed",
       entry("devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.5gb\": 2}"),
       verdict::accepts, 0, ""},
      {"SPECT:260", "TestMigConfigSpec Well formed with filter (a model name, not an id)",
       entry("device-filter: MODEL\n      devices: all\n      mig-enabled: true\n      "
             "mig-devices: {\"1g.5gb\": 2}"),
       verdict::accepts, 0, "warning: device-filter 'MODEL' is not a pci id",
       "mig-parted accepts a filter it cannot read and matches no gpu with it; migplan says so"},
      {"SPECT:272", "TestMigConfigSpec Well formed with multi-filter",
       entry("device-filter: [MODEL1, MODEL2]\n      devices: all\n      mig-enabled: true\n      "
             "mig-devices: {\"1g.5gb\": 2}"),
       verdict::accepts, 0, "warning: device-filter 'MODEL1' is not a pci id"},
      {"SPECT:284", "TestMigConfigSpec Missing 'devices'",
       entry("mig-enabled: true\n      mig-devices: {\"1g.5gb\": 2}"), verdict::rejects, 2,
       "missing required field 'devices'"},
      {"SPECT:294", "TestMigConfigSpec Missing 'mig-enabled'",
       entry("devices: all\n      mig-devices: {\"1g.5gb\": 2}"), verdict::rejects, 2,
       "missing required field 'mig-enabled'"},
      {"SPECT:304", "TestMigConfigSpec Missing 'mig-devices', enabled: false",
       entry("devices: all\n      mig-enabled: false"), verdict::accepts, 0, ""},
      {"SPECT:312", "TestMigConfigSpec Missing 'mig-devices', enabled: true",
       entry("devices: all\n      mig-enabled: true"), verdict::rejects, 2,
       "missing 'mig-devices' in config 'all'"},
      {"SPECT:320", "TestMigConfigSpec 'mig-devices' formatted correctly",
       entry("devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.5gb\": 2}"),
       verdict::accepts, 0, ""},
      {"SPECT:331", "TestMigConfigSpec 'mig-devices' formatted incorrectly",
       entry("devices: all\n      mig-enabled: true\n      mig-devices: {bogus: 2}"),
       verdict::rejects, 2, "invalid profile name 'bogus'"},
      {"SPECT:342", "TestMigConfigSpec Erroneous field",
       entry("devices: all\n      mig-enabled: true\n      mig-devices: {}\n      bogus: 1"),
       verdict::rejects, 2, "unknown field 'bogus'"},
      {"SPECT:351", "TestMigConfigSpec 'devices' string == all",
       entry("devices: all\n      mig-enabled: false"), verdict::accepts, 0, ""},
      {"SPECT:359", "TestMigConfigSpec 'devices' string != all",
       entry("devices: bogus\n      mig-enabled: false"), verdict::rejects, 2,
       "'devices' must be \"all\" or a list of gpu indices"},
      {"SPECT:367", "TestMigConfigSpec 'devices' []int",
       entry("devices: [0, 1, 2, 3]\n      mig-enabled: false"), verdict::accepts, 0, ""},
      {"SPECT:375", "TestMigConfigSpec 'devices' not string for []int",
       entry("devices: {}\n      mig-enabled: false"), verdict::rejects, 2,
       "'devices' must be \"all\" or a list of gpu indices"},
      {"SPECT:37", "TestMarshallUnmarshall: \"0g.0gb\": 100 parses (format only)",
       entry("devices: all\n      mig-enabled: true\n      mig-devices: {\"0g.0gb\": 100}"),
       verdict::accepts, 1, "unknown profile '0g.0gb': no gpu in migplan's catalog has it",
       "migplan checks the profile exists: no gpu has 0g.0gb, so the config cannot be applied"},
      // --- post-checks (SPEC) and MigConfig.AssertValid (CFG) ---
      {"SPEC:176", "mig-enabled true, mig-devices null",
       entry("devices: all\n      mig-enabled: true\n      mig-devices:"), verdict::rejects, 2,
       "'mig-devices' is empty (null)"},
      {"SPEC:176", "mig-enabled true, mig-devices {} (no instances)",
       entry("devices: all\n      mig-enabled: true\n      mig-devices: {}"), verdict::accepts, 0,
       ""},
      {"SPEC:179", "mig-enabled false with devices",
       entry("devices: all\n      mig-enabled: false\n      mig-devices: {\"1g.5gb\": 1}"),
       verdict::rejects, 2, "'mig-devices' must be empty when 'mig-enabled' is false"},
      {"CFG:53", "all counts for all MigProfiles are 0",
       entry("devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.5gb\": 0}"),
       verdict::rejects, 2, "every count in 'mig-devices' of config 'all' is 0"},
      {"CFG:53", "a zero count beside a real one is fine",
       entry("devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.5gb\": 0, "
             "\"3g.20gb\": 1}"),
       verdict::accepts, 0, ""},
      {"CFG:49", "a negative count",
       entry("devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.5gb\": -1}"),
       verdict::rejects, 2, "invalid count -1 for 1g.5gb"},
      // --- known configs on A100-SXM4-40GB (KCT, AssertValidConfiguration) ---
      {"KCT", "1g.5gb: 7 on A100-40GB (its cap)",
       entry("device-filter: \"0x20B010DE\"\n      devices: all\n      mig-enabled: true\n      "
             "mig-devices: {\"1g.5gb\": 7}"),
       verdict::accepts, 0, ""},
      {"KCT", "1g.5gb: 8 on A100-40GB (over its cap)",
       entry("device-filter: \"0x20B010DE\"\n      devices: all\n      mig-enabled: true\n      "
             "mig-devices: {\"1g.5gb\": 8}"),
       verdict::rejects, 1, "1g.5gb allows at most 7 instances on a100-40gb"},
      {"KCT", "1g.5gb: 4 + 2g.10gb: 2 on A100-40GB (8 compute slices)",
       entry("device-filter: \"0x20B010DE\"\n      devices: all\n      mig-enabled: true\n      "
             "mig-devices: {\"1g.5gb\": 4, \"2g.10gb\": 2}"),
       verdict::rejects, 1, "8 compute slices but a100-40gb has 7"},
      {"KCT", "1g.5gb: 3 + 2g.10gb: 2 on A100-40GB",
       entry("device-filter: \"0x20B010DE\"\n      devices: all\n      mig-enabled: true\n      "
             "mig-devices: {\"1g.5gb\": 3, \"2g.10gb\": 2}"),
       verdict::accepts, 0, ""},
      {"KCT", "bogus: 0",
       entry("devices: all\n      mig-enabled: true\n      mig-devices: {bogus: 0}"),
       verdict::rejects, 2, "invalid profile name 'bogus'"},
      // --- device-filter reading and matching (DEV, HLPT) ---
      {"HLPT", "a filter with a subsystem part",
       entry("device-filter: \"0x233010DE:0x16C010DE\"\n      devices: all\n      mig-enabled: "
             "true\n      mig-devices: {\"1g.10gb\": 8}"),
       verdict::rejects, 1, "1g.10gb allows at most 7 instances on h100-80gb",
       "migplan checks the board's model; the subsystem only narrows which boards match"},
      {"HLPT", "malformed filters with extra separators do not match",
       entry("device-filter: \"0x233010DE:0x16C010DE:extra\"\n      devices: all\n      "
             "mig-enabled: true\n      mig-devices: {\"1g.10gb\": 8}"),
       verdict::accepts, 0, "is not a pci id mig-parted can read"},
      {"DEV:70", "hex digits in either case",
       entry("device-filter: \"0x233010de\"\n      devices: all\n      mig-enabled: true\n      "
             "mig-devices: {\"1g.10gb\": 8}"),
       verdict::rejects, 1, "1g.10gb allows at most 7 instances on h100-80gb"},
      {"DEV:70", "no 0x: read as decimal, so not an id",
       entry("device-filter: \"233010DE\"\n      devices: all\n      mig-enabled: true\n      "
             "mig-devices: {\"1g.10gb\": 8}"),
       verdict::accepts, 0, "is not a pci id mig-parted can read"},
      {"SPEC:120", "an unquoted filter is a number, not a string",
       entry("device-filter: 0x233010DE\n      devices: all\n      mig-enabled: false"),
       verdict::rejects, 2, "is read as a number; quote it"},
      // --- profile names (NVLIBT) ---
      {"NVLIBT", "1c.1g.5gb is the gpu-instance profile 1g.5gb",
       entry("device-filter: \"0x20B010DE\"\n      devices: all\n      mig-enabled: true\n      "
             "mig-devices: {\"1c.1g.5gb\": 7}"),
       verdict::accepts, 0, ""},
      {"NVLIBT", "1g.5gb+me,me (an attribute twice)",
       entry("devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.5gb+me,me\": 1}"),
       verdict::rejects, 2, "attribute 'me' appears twice"},
      {"NVLIBT", "1g.5gb+2me (an attribute starting with a digit)",
       entry("devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.5gb+2me\": 1}"),
       verdict::rejects, 2, "attribute '2me' begins with a digit"},
      {"NVLIBT", "1G.5GB (suffixes are lowercase)",
       entry("devices: all\n      mig-enabled: true\n      mig-devices: {\"1G.5GB\": 1}"),
       verdict::rejects, 2, "invalid profile name '1G.5GB'"},
      {"NVLIBT", "1g.5gb+me,you,them (unknown attributes pass the format check)",
       entry("devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.5gb+me,you,them\": "
             "1}"),
       verdict::accepts, 1, "unknown profile",
       "mig-parted fails at apply time, when no gpu has the profile; migplan says so now"},
      // --- YAML as mig-parted reads it (sigs.k8s.io/yaml, go-yaml v2: YAML 1.1) ---
      {"YAML 1.1", "mig-enabled: yes is a boolean",
       entry("devices: all\n      mig-enabled: yes\n      mig-devices: {}"), verdict::accepts, 0,
       ""},
      {"YAML 1.1", "mig-enabled: \"true\" (a string) is not",
       entry("devices: all\n      mig-enabled: \"true\"\n      mig-devices: {}"), verdict::rejects,
       2, "'mig-enabled' must be true or false"},
      {"YAML 1.1", "merge keys are resolved",
       "version: v1\nmig-configs:\n  a:\n    - &b\n      devices: all\n      mig-enabled: "
       "false\n  b:\n    - <<: *b\n      devices: [0]\n",
       verdict::accepts, 0, ""},
      // A key without '?' is a simple key: its ':' on the key's line, at most 1,024
      // characters after its start (GOYAML:835), in JSON too, which mig-parted
      // reads as YAML (ASRT:186, sigs.k8s.io/yaml).
      {"GOYAML:835", "a json key whose ':' is 1,024 characters after its start",
       json_label(1022, "\":"), verdict::accepts, 0, ""},
      {"GOYAML:835", "a json key whose ':' is 1,025 characters after its start",
       json_label(1023, "\":"), verdict::rejects, 2,
       "this key's ':' comes 1025 bytes after its start; mig-parted reads JSON as YAML"},
      {"GOYAML:835", "a json key with a space before its ':'", json_label(1022, "\" :"),
       verdict::rejects, 2, "this key's ':' comes 1025 bytes after its start"},
      {"GOYAML:835", "a json key whose ':' is on the next line", json_label(1, "\"\n:"),
       verdict::rejects, 2, "this key's ':' is on a later line"},
      {"GOYAML:835", "a plain yaml key of 1,024 characters", yaml_label(1024), verdict::accepts, 0,
       ""},
      {"GOYAML:835", "a plain yaml key of 1,025 characters", yaml_label(1025), verdict::rejects, 2,
       "invalid yaml"},
      {"GOYAML:835", "a json key of 600 two-byte characters (1,200 bytes)",
       json_label(600, "\":", "\u00e9"), verdict::accepts, 2, "comes 1202 bytes after its start",
       "go-yaml counts characters, yaml-cpp bytes of UTF-8: such a key of non-ASCII text is "
       "refused here first (doc/mig-parted-parity.md)"},
      // --- where migplan is stricter by design ---
      {"SPEC:144", "a negative gpu index (accepted, matches nothing)",
       entry("devices: [-1]\n      mig-enabled: false"), verdict::accepts, 1,
       "gpu index -1 is negative",
       "an index that selects no gpu is a mistake mig-parted never reports"},
      {"ASRT:218", "two entries of one config claim the same gpu (the later one wins)",
       "version: v1\nmig-configs:\n  a:\n    - devices: [0]\n      mig-enabled: false\n    - "
       "devices: [0]\n      mig-enabled: false\n",
       verdict::accepts, 1, "gpu index 0 is already given to entry 0",
       "mig-parted applies both in order, so the first never holds"},
  };
  return all;
}

}  // namespace

TEST_CASE("check agrees with mig-parted's own test cases, or says why not", "[check][parity]") {
  for (const parity_case& c : cases()) {
    INFO(c.source << " " << c.name);
    const auto r = run_migplan({"check", "-"}, c.yaml);
    INFO(r.out);
    CHECK(r.code == c.migplan_exit);
    CHECK(r.err.empty());
    if (*c.message != '\0') CHECK(r.out.find(c.message) != std::string::npos);
    // A verdict migplan does not share is one the table explains.
    const bool agrees = (c.mig_parted == verdict::accepts) == (c.migplan_exit == 0);
    if (!agrees) CHECK(*c.why != '\0');
  }
}

TEST_CASE("check's exit codes split as mig-parted's verdicts do", "[check][parity]") {
  // Every config mig-parted rejects while reading is malformed here (exit 2);
  // exit 1 is left for what mig-parted cannot see: a geometry that does not fit.
  for (const parity_case& c : cases()) {
    INFO(c.source << " " << c.name);
    if (c.mig_parted == verdict::rejects && c.migplan_exit == 2)
      CHECK(run_migplan({"check", "-"}, c.yaml).out.find("malformed") != std::string::npos);
  }
}

TEST_CASE("check reads counts and gpu indices as go-yaml v2 reads them for mig-parted",
          "[check][parity]") {
  // mig-parted reads its YAML with sigs.k8s.io/yaml over go-yaml v2, whose
  // resolve.go drops every '_' and calls Go's strconv.ParseInt(s, 0, 64):
  // a leading 0 is octal, so "010" is 8. What that refuses but YAML reads
  // as a float (08, 7.0, 3e0) reaches encoding/json written without a
  // fraction when it is whole, and json puts it in the int. Before, check
  // read 010 as ten and refused 0x2, 1_0, 7.0 and 3e0, which mig-parted takes.
  const auto counted = [](const std::string& value) {
    return run_migplan({"check", "--gpu", "a100-40gb", "-"},
                       entry("devices: all\n      mig-enabled: true\n      mig-devices:\n"
                             "        \"1g.5gb\": " +
                             value));
  };
  // 1g.5gb fits 7 times on an A100 40GB: each value below is read as its
  // count, so 7 fits and 8 or more is named in the error.
  for (const auto& [text, n] : std::vector<std::pair<std::string, int>>{{"07", 7},
                                                                        {"010", 8},
                                                                        {"011", 9},
                                                                        {"08", 8},
                                                                        {"0x7", 7},
                                                                        {"0o7", 7},
                                                                        {"0b111", 7},
                                                                        {"+7", 7},
                                                                        {"1_0", 10},
                                                                        {"7_", 7},
                                                                        {"7.0", 7},
                                                                        {"7e0", 7},
                                                                        {"0.9e1", 9}}) {
    INFO(text);
    const auto r = counted(text);
    if (n <= 7) {
      CHECK(r.code == 0);
    } else {
      CHECK(r.code == 1);
      CHECK(r.out.find(fmt::format("(the request has {})", n)) != std::string::npos);
    }
  }
  // What json cannot put in an int: a fraction, a string, a uint64.
  for (const char* bad : {"7.5", "\"7\"", "0x", "0b12", "18446744073709551615"}) {
    INFO(bad);
    CHECK(counted(bad).code == 2);
  }
  // A gpu index the same way: 010 is gpu 8, so the two entries differ.
  const auto r = run_migplan({"check", "-"},
                             "version: v1\nmig-configs:\n  all:\n"
                             "    - devices: [010]\n      mig-enabled: false\n"
                             "    - devices: [10]\n      mig-enabled: false\n");
  CHECK(r.code == 0);
  const auto same = run_migplan({"check", "-"},
                                "version: v1\nmig-configs:\n  all:\n"
                                "    - devices: [010]\n      mig-enabled: false\n"
                                "    - devices: [8]\n      mig-enabled: false\n");
  CHECK(same.code == 1);
}

TEST_CASE("check gives an unreadable mig-enabled as the one reason, as mig-parted does",
          "[check][parity]") {
  // mig-parted returns the error of json.Unmarshal into the bool before it
  // looks at mig-devices (api/spec/v1/spec.go, MigConfigSpec.UnmarshalJSON),
  // so "missing required field 'mig-devices'" is never its reason here.
  // Before, check took the unreadable value for true and said both.
  for (const char* value : {"1", "\"true\"", "[true]"}) {
    INFO(value);
    const auto r = run_migplan({"check", "-"},
                               entry(std::string("devices: all\n      mig-enabled: ") + value));
    CHECK(r.code == 2);
    CHECK(r.out.find("error: 'mig-enabled' must be true or false, not ") != std::string::npos);
    CHECK(r.out.find("mig-devices") == std::string::npos);
  }
}

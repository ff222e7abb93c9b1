// SPDX-License-Identifier: Apache-2.0
// The one YAML scalar writer (render/yaml): tricky strings read back by
// yaml-cpp as the same string, every word and number go-yaml v2 resolves by
// YAML 1.1 rules quoted, and plain names left plain.

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "render/yaml.hpp"

using migplan::cli::render::yaml_quoted;
using migplan::cli::render::yaml_scalar;

namespace {

// The scalar `written` as yaml-cpp reads it, as a value and as a key.
struct read_back {
  std::string value, key;
  bool quoted = false;  // yaml-cpp tags a quoted scalar "!", a plain one "?"
};

read_back read(const std::string& written) {
  const YAML::Node doc = YAML::Load("v: " + written + "\n" + written + ": 1\n");
  read_back r;
  r.value = doc["v"].as<std::string>();
  r.quoted = doc["v"].Tag() == "!";
  for (const auto& kv : doc)
    if (kv.first.as<std::string>() != "v") r.key = kv.first.as<std::string>();
  return r;
}

}  // namespace

TEST_CASE("yaml writer: tricky strings read back unchanged, plain or quoted", "[yaml]") {
  const std::string tricky[] = {"",
                                " ",
                                " a",
                                "a ",
                                "a: b",
                                "a:b",
                                "a #b",
                                "a#b",
                                "- a",
                                "-a",
                                "? a",
                                "?a",
                                ":a",
                                ",a",
                                "[a",
                                "]a",
                                "{a",
                                "}a",
                                "#a",
                                "&a",
                                "*a",
                                "!a",
                                "|a",
                                ">a",
                                "'a",
                                "\"a",
                                "%a",
                                "@a",
                                "`a",
                                "a\"b",
                                "a\\b",
                                "a'b",
                                "tab\there",
                                "new\nline",
                                "cr\rx",
                                "bell\x07",
                                "del\x7f",
                                std::string("nul\0x", 5),
                                "caf\xc3\xa9",
                                "\xe2\x80\xa8sep",
                                "nel\xc2\x85",
                                "bom\xef\xbb\xbf",
                                "zero\xe2\x80\x8bwidth",
                                "1g.5gb",
                                "7g.80gb",
                                "1c.3g.20gb",
                                "nvidia.com/mig-1g.5gb",
                                "all-balanced",
                                "---",
                                "...",
                                "<<",
                                "=",
                                "a,b",
                                "a[0]",
                                "x{y}",
                                "1:20",
                                "190:20:30.15",
                                "0x1F",
                                "0o17",
                                "0b101",
                                "017",
                                "1_000",
                                "1e3",
                                "1E+3",
                                "6.8523015e+5",
                                "1.5",
                                ".5",
                                "-1",
                                "+1",
                                "1.2.3",
                                "2001-12-14",
                                "2001-12-14t21:59:43.10-05:00",
                                "2001-12-14 21:59:43.10 -5",
                                ".inf",
                                "-.Inf",
                                "+.INF",
                                ".nan",
                                ".NaN",
                                "inf",
                                "nan",
                                "0x1p-2",
                                "1__0",
                                "12abc"};
  for (const std::string& s : tricky) {
    CAPTURE(s);
    for (const std::string& w : {yaml_scalar(s), yaml_quoted(s)}) {
      CAPTURE(w);
      const read_back r = read(w);
      CHECK(r.value == s);
      CHECK(r.key == s);
    }
  }
}

TEST_CASE("yaml writer: go-yaml 1.1's booleans, nulls, numbers and dates are quoted", "[yaml]") {
  // go-yaml v2 resolve.go's table (every case form it lists), its numbers
  // (strconv after dropping '_', so 0x, 0o, 0b and 1_000) and timestamps,
  // and YAML 1.1's sexagesimal numbers.
  const std::string_view special[] = {
      "y",    "Y",    "yes",   "Yes",   "YES",   "n",          "N",        "no",    "No",
      "NO",   "true", "True",  "TRUE",  "false", "False",      "FALSE",    "on",    "On",
      "ON",   "off",  "Off",   "OFF",   "~",     "null",       "Null",     "NULL",  ".inf",
      ".Inf", ".INF", "+.inf", "-.inf", ".nan",  ".NaN",       ".NAN",     "<<",    "0",
      "12",   "-12",  "+12",   "012",   "0x1F",  "0X1f",       "0o17",     "0b101", "1_000",
      "1e3",  "1.5",  "1.",    "0x1p3", "1:20",  "2001-12-14", "2001-1-2", "yEs",   "nULL"};
  for (const std::string_view s : special) {
    CAPTURE(s);
    const std::string w = yaml_scalar(s);
    CHECK(w.front() == '"');
    const read_back r = read(w);
    CHECK(r.quoted);
    CHECK(r.value == s);
  }
}

TEST_CASE("yaml writer: names that need no quotes stay plain", "[yaml]") {
  const std::string_view plain[] = {"1g.5gb",
                                    "1g.24gb-me",
                                    "nvidia.com/mig-1g.5gb",
                                    "all-balanced",
                                    "worker-1",
                                    "gpu.nvidia.com",
                                    "migplan-a30-9f3c2a10",
                                    "a100-80gb",
                                    "yesterday",
                                    "nonstop",
                                    "Y2",
                                    "inference"};
  for (const std::string_view s : plain) {
    CAPTURE(s);
    CHECK(yaml_scalar(s) == s);
    CHECK_FALSE(read(std::string(s)).quoted);
  }
}

TEST_CASE("yaml writer: what YAML cannot hold is escaped or replaced", "[yaml]") {
  CHECK(yaml_quoted("a\tb\x01") == "\"a\\x09b\\x01\"");
  CHECK(yaml_quoted("x\xe2\x80\xa8y") == "\"x\\u2028y\"");
  CHECK(yaml_quoted("x\xc2\x85y") == "\"x\\u0085y\"");
  // Not UTF-8: a stream is Unicode text, so the byte becomes U+FFFD.
  CHECK(yaml_scalar("ab\xff") == "\"ab\xef\xbf\xbd\"");
  CHECK(read(yaml_scalar("ab\xff")).value == "ab\xef\xbf\xbd");
}

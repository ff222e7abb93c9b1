// SPDX-License-Identifier: Apache-2.0
// The one JSON writer against nlohmann::json, the library `check` used to
// print with: the same escaping, the same replacement of invalid UTF-8 and the
// same indented layout, on random input.

#include "render/json_writer.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "run_binary.hpp"

using migplan::cli::append_json_string;
using migplan::cli::json_writer;
using ojson = nlohmann::ordered_json;

namespace {

// nlohmann's own text for a string, invalid UTF-8 replaced.
std::string reference(const std::string& s) {
  return ojson(s).dump(-1, ' ', false, ojson::error_handler_t::replace);
}

std::string hex(const std::string& s) {
  std::string out;
  for (const char c : s) out += fmt::format("{:02X} ", static_cast<unsigned char>(c));
  return out;
}

std::string written(const std::string& s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

// Bytes that exercise every branch: controls, quotes, the edges of each
// UTF-8 lead and continuation range, and bytes no UTF-8 has.
constexpr unsigned char interesting[] = {0x00, 0x01, 0x08, 0x09, 0x0A, 0x0C, 0x0D, 0x1F, 0x20,
                                         '"',  '\\', 'a',  '/',  0x7F, 0x80, 0x8F, 0x90, 0x9F,
                                         0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC,
                                         0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};

std::string random_bytes(std::mt19937& rng) {
  std::uniform_int_distribution<std::size_t> len(0, 12), pick(0, std::size(interesting) - 1);
  std::string s(len(rng), '\0');
  for (char& c : s) c = static_cast<char>(interesting[pick(rng)]);
  return s;
}

// Writes the same random document to a json_writer and to an ordered_json.
void random_value(std::mt19937& rng, int depth, json_writer& w, ojson& j) {
  std::uniform_int_distribution<int> kind(0, depth > 3 ? 4 : 6), count(0, 3), number(-500, 500);
  switch (kind(rng)) {
    case 0:
      w.null();
      j = nullptr;
      break;
    case 1:
      w.value(true);
      j = true;
      break;
    case 2: {
      const int v = number(rng);
      w.value(v);
      j = v;
      break;
    }
    case 3: {
      const auto v = static_cast<std::uint64_t>(number(rng)) * 1000003u;
      w.value(v);
      j = v;
      break;
    }
    case 4: {
      const std::string s = random_bytes(rng);
      w.value(s);
      j = s;
      break;
    }
    case 5: {
      w.begin_array();
      j = ojson::array();
      for (int i = count(rng); i > 0; --i) {
        ojson e;
        random_value(rng, depth + 1, w, e);
        j.push_back(e);
      }
      w.end_array();
      break;
    }
    default: {
      w.begin_object();
      j = ojson::object();
      for (int i = count(rng); i > 0; --i) {
        // Unique ASCII keys: ordered_json keeps the first of duplicates.
        const std::string k = "k" + std::to_string(i);
        w.key(k);
        ojson e;
        random_value(rng, depth + 1, w, e);
        j[k] = e;
      }
      w.end_object();
    }
  }
}

}  // namespace

TEST_CASE("strings are escaped and invalid UTF-8 replaced exactly as nlohmann does", "[json]") {
  std::mt19937 rng(20261130);
  for (int i = 0; i < 200000; ++i) {
    const std::string s = random_bytes(rng);
    const std::string want = reference(s), got = written(s);
    if (want != got) FAIL("input " << hex(s) << ": nlohmann " << want << ", json_writer " << got);
  }
  // Whole characters pass unchanged; each maximal invalid subpart is one U+FFFD.
  CHECK(written("4g.20gb \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80") ==
        "\"4g.20gb \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"");
  CHECK(written("a\xFF"
                "b") ==
        "\"a\xEF\xBF\xBD"
        "b\"");
  CHECK(written("\xE2\x82") == "\"\xEF\xBF\xBD\"");
  CHECK(written("\xED\xA0\x80") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
  CHECK(written("\t\x01\"") == "\"\\t\\u0001\\\"\"");
}

TEST_CASE("documents are laid out as nlohmann's dump, compact and indented", "[json]") {
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::string compact, pretty;
    json_writer wc(compact), wp(pretty, 2);
    ojson jc, jp;
    std::mt19937 twin = rng;
    random_value(rng, 0, wc, jc);
    random_value(twin, 0, wp, jp);
    REQUIRE(compact == jc.dump(-1, ' ', false, ojson::error_handler_t::replace));
    REQUIRE(pretty == jp.dump(2, ' ', false, ojson::error_handler_t::replace));
  }
}

TEST_CASE("a flat container is one line of an indented document, the same JSON", "[json]") {
  std::string out;
  json_writer w(out, 2);
  w.begin_object().key("runs").begin_array();
  for (int i = 0; i < 2; ++i) {
    w.flat().begin_object().key("gpus").value(i + 1).key("serves").begin_array();
    w.value(0).null().begin_array().value(2).end_array().begin_object().end_object();
    w.end_array().end_object();
  }
  w.end_array().key("after").begin_array().value(1).end_array().end_object();
  CHECK(out ==
        "{\n"
        "  \"runs\": [\n"
        "    {\"gpus\": 1, \"serves\": [0, null, [2], {}]},\n"
        "    {\"gpus\": 2, \"serves\": [0, null, [2], {}]}\n"
        "  ],\n"
        "  \"after\": [\n"
        "    1\n"
        "  ]\n"
        "}");
  const ojson parsed = ojson::parse(out);
  CHECK(parsed["runs"][1]["serves"] == ojson::parse("[0, null, [2], {}]"));
  // In a compact document flat() changes nothing.
  std::string compact;
  json_writer wc(compact);
  wc.begin_object().key("a").flat().begin_array().value(1).value(2).end_array().end_object();
  CHECK(compact == "{\"a\":[1,2]}");
}

TEST_CASE("GiB figures have two decimals everywhere", "[json]") {
  std::string out;
  json_writer w(out);
  w.begin_array().hundredths(0).hundredths(491).hundredths(1950).hundredths(-5);
  w.hundredths(std::optional<int>()).end_array();
  CHECK(out == "[0.00,4.91,19.50,-0.05,null]");
}

TEST_CASE("invalid UTF-8 in a batch line still gives valid JSON", "[json][cli]") {
  const auto r = migplan::test::run_migplan({"pack", "--gpu", "a100-40gb", "--batch", "-"},
                                            "1g.5gb\xff\n2x3g.20gb\n");
  CHECK(r.code == 2);
  const auto nl = r.out.find('\n');
  REQUIRE(nl != std::string::npos);
  // nlohmann's parser rejects ill-formed UTF-8, so parsing is the check.
  const ojson bad = ojson::parse(r.out.substr(0, nl));
  CHECK(bad["error"]["message"] ==
        "unknown profile '1g.5gb\xEF\xBF\xBD' on a100-40gb (did you mean 1g.5gb or 1g.5gb+me?)");
  CHECK(ojson::parse(r.out.substr(nl + 1))["feasible"] == true);
}

TEST_CASE("pack --json and --batch write the same numbers", "[json][cli]") {
  const auto single =
      migplan::test::run_migplan({"pack", "--json", "4g.20gb", "2g.10gb", "1g.5gb"});
  const auto batch = migplan::test::run_migplan({"pack", "--gpu", "a100-40gb", "--batch", "-"},
                                                "4g.20gb 2g.10gb 1g.5gb\n");
  CHECK(single.out.find("\"memory_gib\": 4.91") != std::string::npos);
  CHECK(batch.out.find("\"memory_gib\":4.91") != std::string::npos);
  ojson a = ojson::parse(single.out), b = ojson::parse(batch.out);
  b.erase("line");
  CHECK(a == b);
}

TEST_CASE("fractional numbers are written shortest, and non-finite ones as null", "[json]") {
  std::string out;
  json_writer w(out);
  w.begin_array().number(2).number(2.5).number(0.125).number(-0.0).number(1e-7);
  w.number(std::numeric_limits<double>::infinity()).number(std::nan("")).end_array();
  CHECK(out == "[2,2.5,0.125,0,1e-07,null,null]");
  CHECK(ojson::parse(out).size() == 7);
}

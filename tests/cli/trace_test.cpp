// SPDX-License-Identifier: Apache-2.0
// The trace reader (src/io/trace): migplan's own rows in CSV, YAML and JSON,
// Alibaba's cluster-trace-gpu-v2023 pod list on rows written here in its
// published format, times, and every error as "FILE:LINE: message".

#include "io/trace.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "models.hpp"

using namespace migplan::cli;

namespace {

trace parsed(const std::string& text, plan_file_format format = plan_file_format::csv) {
  auto t = parse_trace(migplan::cli::builtin_models(), text, "t.csv", format);
  INFO((t ? std::string() : t.error().message));
  REQUIRE(t);
  return *t;
}

std::string failure(const std::string& text, plan_file_format format = plan_file_format::csv) {
  auto t = parse_trace(migplan::cli::builtin_models(), text, "t.csv", format);
  REQUIRE_FALSE(t);
  return t.error().message;
}

}  // namespace

TEST_CASE("a trace csv gives each row's pods, times, count and item", "[trace]") {
  const trace t = parsed(
      "name,start,end,count,item\n"
      "# a comment\n"
      "train,0,3600,2,3g.40gb\n"
      "serve,2023-07-01T00:00:00Z,,1,mem=12GiB\n"
      "big,10,20,1,4xgpu\n"
      "pair,10,20,3,2x1g.10gb\n");
  REQUIRE(t.rows.size() == 4);
  CHECK_FALSE(t.alibaba);
  CHECK(t.rows[0].name == "train");
  CHECK(t.rows[0].start == 0);
  CHECK(t.rows[0].end == 3600);
  CHECK(t.rows[0].count == 2);
  CHECK(t.rows[0].need == trace_need::item);
  CHECK(t.rows[0].item.profile == "3g.40gb");
  CHECK(where(t.rows[0]) == "t.csv:3");
  CHECK(t.rows[1].start == 1688169600);
  CHECK_FALSE(t.rows[1].end.has_value());
  CHECK(t.rows[1].item.memory_mib == 12 * 1024);
  CHECK(t.rows[2].need == trace_need::whole);
  CHECK(t.rows[2].instances == 4);
  CHECK(t.rows[3].instances == 2);
  CHECK(t.rows[3].count == 3);
}

TEST_CASE("a trace in yaml or json reads the same pods", "[trace]") {
  const trace y = parsed(
      "version: 1\n"
      "pods:\n"
      "  - {name: a, start: 5, end: 15, item: 1g.10gb}\n"
      "  - name: b\n"
      "    start: '2023-07-01T02:00:00+02:00'\n"
      "    count: 2\n"
      "    item: gpu\n",
      plan_file_format::yaml);
  REQUIRE(y.rows.size() == 2);
  CHECK(y.rows[0].end == 15);
  CHECK(y.rows[1].start == 1688169600);
  CHECK(y.rows[1].count == 2);
  CHECK(y.rows[1].need == trace_need::whole);
  const trace j = parsed(R"({"version": 1, "pods": [{"start": 1, "item": "2g.20gb"}]})",
                         plan_file_format::json);
  REQUIRE(j.rows.size() == 1);
  CHECK(j.rows[0].item.profile == "2g.20gb");
}

TEST_CASE("an Alibaba pod list is read as published", "[trace]") {
  const trace t = parsed(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n"
      "openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0\n"
      "openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12537496,427061\n"
      "openb-pod-0002,4000,15360,0,0,,BE,Running,1017188,12537496,1017188\n"
      "openb-pod-0003,88000,327680,8,1000,V100M32,LS,Succeeded,9437497,10769854,9437497\n"
      "openb-pod-0004,6000,12288,1,500,,LS,Pending,9500000,,\n");
  CHECK(t.alibaba);
  CHECK(t.skipped == 1);
  REQUIRE(t.rows.size() == 4);
  CHECK(t.rows[0].need == trace_need::whole);
  CHECK(t.rows[0].instances == 1);
  CHECK(t.rows[1].need == trace_need::share);
  CHECK(t.rows[1].milli == 460);
  CHECK(t.rows[1].start == 427061);
  CHECK(t.rows[2].instances == 8);
  CHECK(t.rows[2].end == 10769854);
  CHECK(t.rows[3].name == "openb-pod-0004");
  CHECK_FALSE(t.rows[3].end.has_value());
  CHECK(where(t.rows[2]) == "t.csv:5");
}

TEST_CASE("bad trace rows are reported with their file and line", "[trace]") {
  CHECK(failure("name,start,item\na,0,9g.10gb\n").starts_with("t.csv:2: "));
  CHECK(failure("name,start,end,item\na,10,5,1g.10gb\n") ==
        "t.csv:2: the pod ends (5) before it starts (10)");
  CHECK(failure("name,strat,item\n") ==
        "t.csv:1: unknown column 'strat' in the header (did you mean start?); the columns are "
        "name, start, end, count and item");
  // A demand file's columns and keys, written in a trace: where they go here.
  const std::string item_hint =
      " (a trace names what a pod asks for in item: a profile such as 1g.10gb, "
      "mem=SIZE[:sms=N][:slices=N], or gpu)";
  for (const char* key : {"profile", "memory", "compute_slices", "sms"}) {
    INFO(key);
    CHECK(failure(fmt::format("start,{}\n0,1g.10gb\n", key)) ==
          fmt::format("t.csv:1: unknown column '{}' in the header{}; the columns are name, start, "
                      "end, count and item",
                      key, item_hint));
    CHECK(failure(fmt::format("version: 1\npods:\n  - {{start: 0, {}: 1g.10gb}}\n", key),
                  plan_file_format::yaml) ==
          fmt::format("t.csv:3: unknown key '{}' in a pod{}; the keys are name, start, end, "
                      "count, item, comment",
                      key, item_hint));
  }
  CHECK(failure("start,item\nyesterday,1g.10gb\n") ==
        "t.csv:2: start: 'yesterday' is no time: write whole seconds or RFC 3339, such as "
        "2023-07-01T08:00:00Z");
  CHECK(failure("start,item\n2023-02-29T00:00:00Z,1g.10gb\n") ==
        "t.csv:2: start: '2023-02-29T00:00:00Z' is no date and time of the calendar");
  CHECK(failure("start,item\n0,1g.10gb,x\n") ==
        "t.csv:2: 3 fields where the header (line 1) names 2");
  CHECK(failure("start,item\n0,65xgpu\n").starts_with("t.csv:2: the count of whole GPUs"));
  CHECK(failure("start,item\n") == "t.csv:1: no pods after the header");
  CHECK(failure("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                "deletion_time,scheduled_time\n"
                "p,1,1,2,500,,LS,Running,0,10,0\n") ==
        "t.csv:2: num_gpu 2 with gpu_milli 500: a pod shares at most one GPU; several GPUs are "
        "whole (gpu_milli 1000)");
  CHECK(failure("version: 1\npods:\n  - {start: 1, item: 1g.10gb, ned: 4}\n",
                plan_file_format::yaml) ==
        "t.csv:3: unknown key 'ned' in a pod (did you mean end?); the keys are name, start, end, "
        "count, item, comment");
}

TEST_CASE("a yaml or json trace is walked by the document layer's schema", "[trace]") {
  const auto yaml = [](const std::string& text) { return failure(text, plan_file_format::yaml); };
  const auto json = [](const std::string& text) { return failure(text, plan_file_format::json); };
  CHECK(yaml("version: 1\npods:\n  - start: 1\n    start: 2\n    item: 1g.10gb\n") ==
        "t.csv:4: duplicate key 'start' (first at line 3)");
  CHECK(yaml("version: 1\npod:\n  - {start: 1, item: 1g.10gb}\n") ==
        "t.csv:2: unknown key 'pod' in the top level (did you mean pods?); the keys are version, "
        "pods, comment");
  CHECK(yaml("version: 1\npods:\n  - {start: 1}\n") ==
        "t.csv:3: missing required key 'item' (a pod has a start and an item)");
  CHECK(yaml("version: 1\npods: []\n") == "t.csv:2: 'pods' is empty: list at least one pod");
  CHECK(yaml("pods: []\n") ==
        "t.csv:1: missing required key 'version' (trace files start with 'version: 1')");
  CHECK(yaml("") == "t.csv: empty file: a trace file holds 'version: 1' and 'pods'");
  CHECK(yaml("version: 1\npods:\n  - {start: [1], item: gpu}\n") ==
        "t.csv:3: start must be text, not a list");
  CHECK(yaml("version: 1\npods:\n  - {start: 1, item: }\n") ==
        "t.csv:3: the item is empty: give a profile (such as 1g.10gb), mem=SIZE, or gpu for a "
        "whole GPU");
  CHECK(yaml("version: 1\npods:\n  - {start: 1, item: gpu, count: 0}\n") ==
        "t.csv:3: count 0 must be at least 1");
  CHECK(json("{\"version\": 1,\n \"pods\": [{\"start\": 1, \"item\": \"gpu\", \"end\": 0}]}") ==
        "t.csv:2: the pod ends (0) before it starts (1)");
  CHECK(json("{\"version\": 1, \"pods\": [}").starts_with("t.csv:1: invalid json: "));
  // A quoted count, as CSV cells and JSON writers give it, reads as its text.
  CHECK(parsed(R"({"version": 1, "pods": [{"start": "1", "count": "3", "item": "gpu"}]})",
               plan_file_format::json)
            .rows[0]
            .count == 3);
}

TEST_CASE("a yaml trace nested past the shared depth budget is refused there", "[trace]") {
  std::string deep = "version: 1\npods:\n  - start: 1\n    item: gpu\n    comment: ";
  for (int i = 0; i < 70; ++i) deep += "[";
  for (int i = 0; i < 70; ++i) deep += "]";
  CHECK(failure(deep + "\n", plan_file_format::yaml)
            .starts_with("t.csv:5: values nest more than 64 levels deep"));
}

TEST_CASE("trace times are whole seconds or RFC 3339 with an offset", "[trace]") {
  CHECK(*parse_trace_time("0") == 0);
  CHECK(*parse_trace_time("1970-01-01T00:00:00Z") == 0);
  CHECK(*parse_trace_time("1970-01-01T01:00:00+01:00") == 0);
  CHECK(*parse_trace_time("2000-03-01T00:00:00.5z") == 951868800);
  CHECK_FALSE(parse_trace_time("2000-03-01T00:00:00"));
  CHECK_FALSE(parse_trace_time("2000-13-01T00:00:00Z"));
}

TEST_CASE("an Alibaba pod list with no GPU pod says every row was skipped", "[trace]") {
  const std::string header =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n";
  CHECK(failure(header + "a,1,1,0,0,,BE,Running,0,10,0\nb,1,1,0,0,,BE,Running,5,10,5\n") ==
        "t.csv:1: no pods after the header: all 2 rows have num_gpu 0 (no GPU)");
  CHECK(failure(header) == "t.csv:1: no pods after the header");
}

TEST_CASE("an empty yaml value is reported at its key and not at the token after it", "[trace]") {
  // yaml-cpp places an empty value where the next token starts: the next
  // key's line, or one past the last line of the file.
  CHECK(failure("version: 1\npods:\ncomment: x\n", plan_file_format::yaml) ==
        "t.csv:2: 'pods' must be a list of pods, not empty");
  CHECK(failure("version: 1\npods:\n\n\n", plan_file_format::yaml) ==
        "t.csv:2: 'pods' must be a list of pods, not empty");
  CHECK(failure("version: 1\npods:\n  - start:\n    item: 1g.10gb\n", plan_file_format::yaml)
            .starts_with("t.csv:3: "));
}

TEST_CASE("a trace refuses a pod name with a control character or a byte not UTF-8", "[trace]") {
  // The CSV form took any bytes as a pod's name, and an escape got one past
  // the YAML and JSON parsers' check of UTF-8.
  const std::string header = "name,start,end,count,item\n";
  CHECK(failure(header + "a\x01z,0,10,1,1g.10gb\n") ==
        "t.csv:2: name 'a\\x01z' holds a control character");
  const std::string quoted = header + "ok,0,10,1,1g.10gb\n  \"a\x1bz\",0,10,1,1g.10gb\n";
  CHECK(failure(quoted) == "t.csv:3: name 'a\\x1bz' holds a control character");
  CHECK(failure(header + "a\tz,0,10,1,1g.10gb\n") ==
        "t.csv:2: name 'a\\tz' holds a control character");
  CHECK(failure(header + "a\xffz,0,10,1,1g.10gb\n") ==
        "t.csv:2: name 'a\xEF\xBF\xBDz' holds a byte that is not UTF-8");
  // The column is where the name's field starts, in the diagnostic.
  auto t = parse_trace(migplan::cli::builtin_models(), quoted, "t.csv", plan_file_format::csv);
  REQUIRE_FALSE(t);
  REQUIRE(t.error().where);
  CHECK(t.error().where->line == 3);
  CHECK(t.error().where->column == 3);
  const std::string alibaba =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n";
  CHECK(failure(alibaba + "p\x7f,1,1,1,1000,,BE,Running,0,10,0\n") ==
        "t.csv:2: name 'p\\x7f' holds a control character");
  CHECK(failure("version: 1\npods:\n  - {name: \"a\\x01z\", start: 0, item: 1g.10gb}\n",
                plan_file_format::yaml) == "t.csv:3: name 'a\\x01z' holds a control character");
  CHECK(failure(R"({"version": 1, "pods": [{"name": "a\u0001z", "start": 0, "item": "1g.10gb"}]})",
                plan_file_format::json) == "t.csv:1: name 'a\\x01z' holds a control character");
  // A name of printable UTF-8 stays as it was.
  CHECK(parsed(header + "caf\xc3\xa9 \"x\",0,10,1,1g.10gb\n").rows.front().name ==
        "caf\xc3\xa9 \"x\"");
}

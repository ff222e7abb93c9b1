// SPDX-License-Identifier: Apache-2.0
// Every command's bad input through the one printer (render/diagnostics,
// app.cpp's report_bad_input): a reader's error keeps its file, line and
// column as numbers, and the text on stderr, the JSON error document of
// --json and the GitHub annotation of MIGPLAN_DIAGNOSTICS=github all say the
// same place. The places are found here from the files' own text.

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "app.hpp"
#include "error.hpp"
#include "run_binary.hpp"

using migplan::test::run_migplan;
using migplan::test::run_result;
using migplan::test::temp_file;
using migplan::test::test_path;

// A namespace of its own: the cli tests compile in unity batches.
namespace diagnostics_test {

// The 1-based line and column where `needle` first starts in `text`.
std::pair<int, int> place_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < at; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  return {line, static_cast<int>(at - line_start) + 1};
}

// What one bad input looks like in the three forms.
struct three_forms {
  run_result text, json, github;
};

three_forms run_three(std::vector<std::string> args, const std::string& input = "") {
  three_forms f;
  f.text = run_migplan(args, input);
  args.push_back("--json");
  f.json = run_migplan(args, input);
  args.pop_back();
  f.github = run_migplan(args, input, {"MIGPLAN_DIAGNOSTICS=github"});
  return f;
}

// Checks that the three forms agree on `file`, `line`, `col` (0: null) and
// the message, and returns the message (without its place). The text
// writes the column too where `text_column` says so (the readers of JSON
// files that have always written it).
std::string agree(const three_forms& f, const std::string& file, int line, int col,
                  bool text_column = false) {
  INFO(f.text.err);
  CHECK(f.text.code == 2);
  CHECK(f.json.code == 2);
  CHECK(f.github.code == 2);
  CHECK(f.text.out.empty());
  CHECK(f.github.out.empty());
  // Text: "migplan: FILE:LINE: message".
  const std::string place = file + (line > 0 ? ":" + std::to_string(line) : "") +
                            (text_column && col > 0 ? ":" + std::to_string(col) : "");
  const std::string prefix = "migplan: " + place + ": ";
  REQUIRE(f.text.err.starts_with(prefix));
  REQUIRE(f.text.err.ends_with("\n"));
  const std::string message =
      f.text.err.substr(prefix.size(), f.text.err.size() - prefix.size() - 1);
  CHECK(message.find('\n') == std::string::npos);
  // JSON: the same message, with the place as numbers.
  const auto doc = nlohmann::json::parse(f.json.out);
  const auto& e = doc.at("error");
  CHECK(e.at("code") == "bad_input");
  CHECK(e.at("message") == place + ": " + message);
  CHECK(e.at("file") == file);
  if (line > 0)
    CHECK(e.at("line") == line);
  else
    CHECK(e.at("line").is_null());
  if (col > 0)
    CHECK(e.at("col") == col);
  else
    CHECK(e.at("col").is_null());
  // GitHub: one workflow command, with the place as its properties.
  std::string props = "file=" + file;
  if (line > 0) props += ",line=" + std::to_string(line);
  if (line > 0 && col > 0) props += ",col=" + std::to_string(col);
  CHECK(f.github.err == "::error " + props + "::" + message + "\n");
  return message;
}

}  // namespace diagnostics_test

using namespace diagnostics_test;

TEST_CASE("a demand file's error has one place in text, JSON and annotations", "[diagnostics]") {
  const std::string file = test_path("fixtures/plan/bad-demand.yaml");
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The culprit is the 0 of "count: 0".
  auto [line, col] = place_of(text, "count: 0");
  col += static_cast<int>(std::string("count: ").size());
  const auto f = run_three({"plan", "--demand", file, "--gpu", "h100-80gb"});
  const std::string message = agree(f, file, line, col);
  CHECK(message.find("count 0") != std::string::npos);
}

TEST_CASE("a trace's, a fleet file's and a model file's errors are placed alike", "[diagnostics]") {
  SECTION("a trace row with an unknown profile: a CSV row has no column") {
    const std::string text = "name,start,end,count,item\nok,0,10,1,1g.10gb\nbad,0,10,1,1g.10gbx\n";
    const temp_file t("trace.csv", text);
    const auto f = run_three({"simulate", "--trace", t.path(), "--gpu", "h100-80gb"});
    CHECK(agree(f, t.path(), place_of(text, "bad,").first, 0).find("'1g.10gbx'") !=
          std::string::npos);
  }
  SECTION("a fleet file's unknown gpu") {
    const std::string text = "version: 1\nnodes:\n  - name: a\n    gpu: h100-80gbx\n    gpus: 1\n";
    const temp_file t("fleet.yaml", text);
    const auto f = run_three({"plan", "--fleet", t.path(), "1g.10gb"});
    const auto [line, col] = place_of(text, "h100-80gbx");
    CHECK(agree(f, t.path(), line, col).find("unknown gpu") != std::string::npos);
  }
  SECTION("a model file that is not JSON") {
    const std::string text = "{\n  \"name\": \"x\",\n  oops\n}\n";
    const temp_file m("model.json", text);
    const auto f = run_three({"--gpu-file", m.path(), "gpus"});
    const auto [line, col] = place_of(text, "oops");
    CHECK(agree(f, m.path(), line, col, true).find("invalid json") != std::string::npos);
  }
}

TEST_CASE("a file name with a comma or colon is escaped in the annotation", "[diagnostics]") {
  const std::string text =
      "version: 1\ndemand:\n  - name: a\n    count: -1\n    profile: 1g.10gb\n";
  const temp_file t("a,b:c.yaml", text);
  const auto r = run_migplan({"plan", "--demand", t.path(), "--gpu", "h100-80gb"}, "",
                             {"MIGPLAN_DIAGNOSTICS=github"});
  CHECK(r.code == 2);
  const std::string escaped = std::regex_replace(
      std::regex_replace(t.path(), std::regex(","), "%2C"), std::regex(":"), "%3A");
  INFO(r.err);
  CHECK(r.err.starts_with("::error file=" + escaped +
                          ",line=" + std::to_string(place_of(text, "count: -1").first)));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("bad input without a file is an annotation without a place", "[diagnostics]") {
  const auto text = run_migplan({"plan", "--gpu", "h100-80gb", "1g.10gbx"});
  const auto github =
      run_migplan({"plan", "--gpu", "h100-80gb", "1g.10gbx"}, "", {"MIGPLAN_DIAGNOSTICS=github"});
  const auto as_json = run_migplan({"plan", "--gpu", "h100-80gb", "1g.10gbx", "--json"});
  REQUIRE(text.code == 2);
  CHECK(github.code == 2);
  REQUIRE(text.err.starts_with("migplan: "));
  CHECK(github.err == "::error::" + text.err.substr(9));
  const auto e = nlohmann::json::parse(as_json.out).at("error");
  CHECK_FALSE(e.contains("file"));
  CHECK_FALSE(e.contains("line"));
  // A usage error too.
  const auto usage = run_migplan({"plan", "--bogus"}, "", {"MIGPLAN_DIAGNOSTICS=github"});
  CHECK(usage.code == 2);
  CHECK(usage.err.starts_with("::error::"));
}

TEST_CASE("MIGPLAN_DIAGNOSTICS takes text or github, and nothing else", "[diagnostics]") {
  const auto plain = run_migplan({"gpus"}, "", {"MIGPLAN_DIAGNOSTICS=text"});
  const auto empty = run_migplan({"gpus"}, "", {"MIGPLAN_DIAGNOSTICS="});
  const auto base = run_migplan({"gpus"});
  CHECK(plain.code == 0);
  CHECK(plain.out == base.out);
  CHECK(empty.out == base.out);
  const auto typo = run_migplan({"gpus"}, "", {"MIGPLAN_DIAGNOSTICS=githib"});
  CHECK(typo.code == 2);
  CHECK(typo.out.empty());
  CHECK(typo.err.find("MIGPLAN_DIAGNOSTICS") != std::string::npos);
  CHECK(typo.err.find("(did you mean github?)") != std::string::npos);
}

TEST_CASE("at a terminal, a reader's error shows its line and a caret under the column",
          "[diagnostics]") {
  using namespace migplan::cli;
  const std::string text = "version: 1\ndemand:\n  - count: x\n";
  const temp_file f("caret.yaml", text);
  const auto [line, col] = place_of(text, "x\n");
  diagnostic d = located(f.path(), line, "count 'x' is not a number");
  d.column = col;
  const auto report = [&](bool tty, const diagnostic& what) {
    std::ostringstream out, err;
    std::istringstream in;
    context ctx{out, err, in};
    ctx.err_tty = tty;
    report_bad_input(ctx, error{what});
    CHECK(ctx.code == exit_bad_input);
    return err.str();
  };
  const std::string first =
      "migplan: " + f.path() + ":" + std::to_string(line) + ": count 'x' is not a number\n";
  CHECK(report(true, d) ==
        first + "  - count: x\n" + std::string(static_cast<std::size_t>(col - 1), ' ') + "^\n");
  // Not a terminal: the one line a script or a log reads.
  CHECK(report(false, d) == first);
  // Without a column, the line alone; standard input is not read again.
  d.column = 0;
  CHECK(report(true, d) == first + "  - count: x\n");
  diagnostic piped = d;
  piped.file = "<stdin>";
  CHECK(report(true, piped) ==
        "migplan: <stdin>:" + std::to_string(line) + ": count 'x' is not a number\n");
}

TEST_CASE("notes go through the same printer: one annotation per note line", "[diagnostics]") {
  const std::vector<std::string> args = {"plan",
                                         "--current",
                                         test_path("fixtures/plan/kube-nodes.json"),
                                         "--mig-config",
                                         test_path("fixtures/plan/kube-config.yaml"),
                                         "mem=10GiB"};
  const auto text = run_migplan(args);
  const auto github = run_migplan(args, "", {"MIGPLAN_DIAGNOSTICS=github"});
  CHECK(github.code == text.code);  // (stdout holds the solve time: not compared)
  // Each "migplan: note: X" line becomes "::notice::X", in the same order.
  std::string expected;
  std::size_t notes = 0;
  std::istringstream lines(text.err);
  for (std::string line; std::getline(lines, line);) {
    REQUIRE(line.starts_with("migplan: note: "));
    expected += "::notice::" + line.substr(15) + "\n";
    ++notes;
  }
  CHECK(notes > 0);
  CHECK(github.err == expected);
}

TEST_CASE("a message about one of kubectl's nodes is placed at its metadata.name",
          "[diagnostics]") {
  std::string text = migplan::test::read_file(test_path("fixtures/plan/kube-nodes.json"));
  // Node h100-a's label names no label of the config.
  const std::string label = "\"nvidia.com/mig.config\": \"split\"";
  const std::size_t at = text.find(label);
  REQUIRE(at != std::string::npos);
  text.replace(at, label.size(), "\"nvidia.com/mig.config\": \"splitt\"");
  const temp_file nodes("nodes.json", text);
  const auto f = run_three({"plan", "--current", nodes.path(), "--mig-config",
                            test_path("fixtures/plan/kube-config.yaml"), "1g.10gb"});
  const std::string name = "\"name\": \"h100-a\"";
  auto [line, col] = place_of(text, name);
  col += static_cast<int>(name.find(": ") + 2);  // the value's opening quote
  CHECK(agree(f, nodes.path(), line, col) ==
        "node 'h100-a': its nvidia.com/mig.config label 'splitt' is not in " +
            test_path("fixtures/plan/kube-config.yaml") + " (did you mean split?)");
}

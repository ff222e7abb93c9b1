// SPDX-License-Identifier: Apache-2.0
// Colour on a real terminal: the binary runs with stdout on a pseudo-terminal,
// so isatty(1) is true and only NO_COLOR, TERM and --json can turn colour off.
// Without the terminal, colour is never on and a test of "no colour" passes
// whatever the code does.

#include <catch2/catch.hpp>
#include <cctype>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_binary.hpp"

using migplan::test::run_migplan;
using migplan::test::run_migplan_tty;

namespace {

// One request that fits (diagram, legend, instance letters in colour) and one
// that does not (the "does not fit" line in colour).
const std::vector<std::vector<std::string>> requests{
    {"pack", "4g.20gb", "2g.10gb", "1g.5gb"},
    {"pack", "7x1g.5gb", "3g.20gb"},
};

bool has_escape(const std::string& s) { return s.find('\x1b') != std::string::npos; }

// `s` without its SGR sequences (ESC [ digits and semicolons m).
std::string strip_sgr(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      std::size_t j = i + 2;
      while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == ';')) ++j;
      if (j < s.size() && s[j] == 'm') {
        i = j;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

}  // namespace

TEST_CASE("output on a terminal is coloured when NO_COLOR is unset and TERM is not dumb",
          "[cli][style]") {
  for (const auto& args : requests) {
    INFO(args[1]);
    const auto plain = run_migplan(args);
    const auto tty = run_migplan_tty(args, {"TERM=xterm"});
    CHECK(tty.err.empty());
    CHECK(tty.code == plain.code);
    CHECK(has_escape(tty.out));
    // Colour only decorates: without its escapes the text is the plain text.
    CHECK(strip_sgr(tty.out) == plain.out);
  }
}

TEST_CASE("an empty NO_COLOR does not turn colour off", "[cli][style]") {
  // no-color.org: only a NO_COLOR that is present and not empty counts.
  const auto r = run_migplan_tty(requests[0], {"TERM=xterm", "NO_COLOR="});
  CHECK(r.code == 0);
  CHECK(has_escape(r.out));
}

TEST_CASE("NO_COLOR=1 on a terminal gives exactly the plain output", "[cli][style]") {
  for (const auto& args : requests) {
    INFO(args[1]);
    const auto plain = run_migplan(args);
    const auto tty = run_migplan_tty(args, {"TERM=xterm", "NO_COLOR=1"});
    CHECK(tty.code == plain.code);
    CHECK_FALSE(has_escape(tty.out));
    CHECK(tty.out == plain.out);
  }
}

TEST_CASE("TERM=dumb on a terminal turns colour off", "[cli][style]") {
  for (const auto& args : requests) {
    INFO(args[1]);
    const auto plain = run_migplan(args);
    const auto tty = run_migplan_tty(args, {"TERM=dumb"});
    CHECK(tty.code == plain.code);
    CHECK_FALSE(has_escape(tty.out));
    CHECK(tty.out == plain.out);
  }
}

TEST_CASE("JSON on a terminal has no colour", "[cli][style][json]") {
  for (const auto& args : requests) {
    INFO(args[1]);
    std::vector<std::string> json_args{args[0], "--json"};
    json_args.insert(json_args.end(), args.begin() + 1, args.end());
    const auto tty = run_migplan_tty(json_args, {"TERM=xterm"});
    CHECK(tty.err.empty());
    CHECK_FALSE(has_escape(tty.out));
    // A colour code inside a JSON string would be escaped rather than raw.
    CHECK(tty.out.find("\\u001b") == std::string::npos);
    CHECK(tty.out == run_migplan(json_args).out);
    CHECK_NOTHROW(nlohmann::json::parse(tty.out));
  }
}

TEST_CASE("output that is not a terminal has no colour even with TERM=xterm", "[cli][style]") {
  for (const auto& args : requests) {
    INFO(args[1]);
    const auto r = run_migplan(args, "", {"TERM=xterm"});
    CHECK_FALSE(r.out.empty());
    CHECK_FALSE(has_escape(r.out));
  }
}

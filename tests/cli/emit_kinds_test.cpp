// SPDX-License-Identifier: Apache-2.0
// The one table of --emit kinds (commands/emit_kinds.hpp) against what the
// table cannot reach: the shell completions and the man pages list each
// command's kinds by hand, so a kind added to the table without them (or
// dropped from it and left there) fails here, as does a table whose rows
// break what the commands look up.

#include "commands/emit_kinds.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "run_binary.hpp"

namespace emit = migplan::cli::emit;
using migplan::test::read_file;
using migplan::test::source_path;

namespace {

constexpr emit::command commands[] = {emit::command::pack, emit::command::plan,
                                      emit::command::place};

std::string spaced(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, " "));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("every --emit kind has one name and some command that takes it", "[emit-kinds]") {
  std::set<std::string_view> seen;
  for (const emit::kind& k : emit::kinds()) {
    INFO(k.name);
    CHECK(seen.insert(k.name).second);
    CHECK_FALSE(k.description.empty());
    bool taken = false;
    for (const emit::command c : commands) {
      taken = taken || k.taken_by(c);
      // A command finds exactly the kinds it takes.
      CHECK((emit::find(c, k.name) == &k) == k.taken_by(c));
    }
    CHECK(taken);
    // A check without a writer would never run.
    CHECK((k.pack.problem == nullptr || k.pack.write != nullptr));
    CHECK((k.plan.problem == nullptr || k.plan.write != nullptr));
  }
  for (const emit::command c : commands) CHECK_FALSE(emit::names(c).empty());
}

TEST_CASE("an unknown --emit kind is answered with the command's kinds", "[emit-kinds]") {
  CHECK(emit::unknown(emit::command::pack, "nvml2") ==
        "unknown --emit kind 'nvml2' (did you mean nvml?); kinds: " +
            fmt::format("{}", fmt::join(emit::names(emit::command::pack), ", ")));
  // A command that takes one kind names it.
  if (emit::names(emit::command::place).size() == 1)
    CHECK(emit::unknown(emit::command::place, "yaml") ==
          "unknown --emit kind 'yaml'; place writes " + emit::names(emit::command::place).front());
}

TEST_CASE("zsh completes each command's --emit with the table's kinds", "[emit-kinds]") {
  const std::string text = read_file(source_path("completions/_migplan"));
  for (const emit::command c : commands) {
    const std::string name(emit::command_name(c));
    INFO(name);
    // The command's part: from "(NAME)" to the next "(...)" case label.
    const std::regex part("\\n        \\(" + name + "\\)\\n([\\s\\S]*?)\\n        \\(");
    std::smatch m;
    REQUIRE(std::regex_search(text, m, part));
    const std::string body = m[1].str();
    const std::regex emit_opt("'--emit=\\[[^\\]]*\\]:kind:\\(([^)]*)\\)'");
    std::smatch e;
    REQUIRE(std::regex_search(body, e, emit_opt));
    CHECK(e[1].str() == spaced(emit::names(c)));
  }
}

TEST_CASE("fish completes each command's --emit with the table's kinds", "[emit-kinds]") {
  const std::string text = read_file(source_path("completions/migplan.fish"));
  for (const emit::command c : commands) {
    const std::string name(emit::command_name(c));
    INFO(name);
    const std::regex emit_opt("__fish_seen_subcommand_from " + name + "' -l emit -x -a '([^']*)'");
    std::smatch e;
    REQUIRE(std::regex_search(text, e, emit_opt));
    CHECK(e[1].str() == spaced(emit::names(c)));
  }
}

TEST_CASE("bash completes each command's --emit with the table's kinds", "[emit-kinds]") {
  // The `--emit)` case: `if [[ $cmd == NAME ]]` / `elif ...` branches, each
  // with one `-W 'KINDS'`, and an `else` for the rest.
  const std::vector<std::string> lines =
      lines_of(read_file(source_path("completions/migplan.bash")));
  std::map<std::string, std::string> offered;  // command ("" for else) -> kinds
  bool inside = false;
  std::string branch;
  const std::regex condition("\\$cmd == ([a-z-]+) \\]\\]");
  const std::regex words("-W '([^']*)'");
  for (const std::string& line : lines) {
    if (!inside) {
      inside = std::regex_search(line, std::regex("^\\s*--emit\\)$"));
      continue;
    }
    if (std::regex_search(line, std::regex("^\\s*;;$"))) break;
    std::smatch m;
    if (std::regex_search(line, m, condition))
      branch = m[1].str();
    else if (std::regex_search(line, std::regex("^\\s*else$")))
      branch.clear();
    else if (std::regex_search(line, m, words))
      offered[branch] = m[1].str();
  }
  REQUIRE(inside);
  for (const emit::command c : commands) {
    const std::string name(emit::command_name(c));
    INFO(name);
    const auto it = offered.count(name) != 0 ? offered.find(name) : offered.find("");
    REQUIRE(it != offered.end());
    CHECK(it->second == spaced(emit::names(c)));
  }
}

TEST_CASE("each command's man page names the kinds of its --emit", "[emit-kinds]") {
  std::set<std::string> every;
  for (const emit::kind& k : emit::kinds()) every.emplace(k.name);
  for (const emit::command c : commands) {
    const std::string name(emit::command_name(c));
    INFO(name);
    const std::vector<std::string> lines =
        lines_of(read_file(source_path("doc/man/migplan-" + name + ".1.scd")));
    // The --emit term and its paragraph, up to the next term.
    std::string entry;
    bool inside = false;
    for (const std::string& line : lines) {
      if (line.starts_with("*")) {
        if (inside) break;
        inside = line.starts_with("*--emit*");
      }
      if (inside) entry += line + "\n";
    }
    REQUIRE_FALSE(entry.empty());
    std::set<std::string> named;
    const std::regex bold("\\*([a-z0-9-]+)\\*");
    for (auto it = std::sregex_iterator(entry.begin(), entry.end(), bold);
         it != std::sregex_iterator(); ++it)
      if (every.count((*it)[1].str()) != 0) named.insert((*it)[1].str());
    const std::vector<std::string> kinds = emit::names(c);
    CHECK(named == std::set<std::string>(kinds.begin(), kinds.end()));
  }
}

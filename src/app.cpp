// SPDX-License-Identifier: Apache-2.0
#include "app.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <migplan/detail/strings.hpp>
#include <ostream>
#include <string_view>

#include "error.hpp"
#include "io/names.hpp"

namespace migplan::cli {

bool color_allowed(bool is_tty) {
  if (!is_tty) return false;
  if (const char* nc = std::getenv("NO_COLOR"); nc != nullptr && nc[0] != '\0') return false;
  if (const char* term = std::getenv("TERM"); term != nullptr && std::string_view(term) == "dumb")
    return false;
  return true;
}

void report_bad_input(context& ctx, const std::string& message) {
  ctx.err << "migplan: " << message << "\n";
  ctx.code = exit_bad_input;
}

int run(const std::vector<std::string>& args, context& ctx) {
  CLI::App app{"migplan: exact planner for NVIDIA MIG GPU-instance geometries"};
  app.name("migplan");
  app.set_version_flag("--version", "migplan " MIGPLAN_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 fits or valid, 1 does not fit or invalid, 2 bad input or usage.\n"
      "Run 'migplan COMMAND --help' for a command's options.");
  add_pack(app, ctx);
  add_gpus(app, ctx);
  add_profiles(app, ctx);
  add_enumerate(app, ctx);
  add_fit(app, ctx);
  add_check(app, ctx);

  // An unknown first word is a mistyped command: say so and suggest one.
  if (args.size() > 1 && !args[1].empty() && args[1][0] != '-') {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), args[1]) == names.end()) {
      ctx.err << "migplan: unknown command '" << args[1] << "'" << did_you_mean(args[1], names)
              << "; 'migplan --help' lists them\n";
      return exit_bad_input;
    }
  }
  std::vector<std::string> rev(args.rbegin(), args.rend() - (args.empty() ? 0 : 1));
  try {
    app.parse(rev);
  } catch (const CLI::CallForHelp&) {
    ctx.out << app.help();
    return exit_ok;
  } catch (const CLI::CallForAllHelp&) {
    ctx.out << app.help("", CLI::AppFormatMode::All);
    return exit_ok;
  } catch (const CLI::CallForVersion&) {
    ctx.out << "migplan " MIGPLAN_VERSION "\n";
    return exit_ok;
  } catch (const CLI::ParseError& e) {
    // Subcommand help arrives as CallForHelp from the subcommand: print its help.
    if (e.get_exit_code() == 0) {
      const CLI::App* sub = nullptr;
      for (const CLI::App* s : app.get_subcommands()) sub = s;
      ctx.out << (sub != nullptr ? sub->help() : app.help());
      return exit_ok;
    }
    std::string msg = e.what();
    if (!msg.empty()) msg[0] = detail::ascii_lower(msg[0]);
    ctx.err << "migplan: " << msg << "\n";
    return exit_bad_input;
  }
  return ctx.code;
}

}  // namespace migplan::cli

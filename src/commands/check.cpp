// SPDX-License-Identifier: Apache-2.0
// `migplan check`: validates migplan geometry files and NVIDIA mig-parted
// configs for CI. Reads each file (io/), checks every geometry on the models
// it applies to (check/, the service), and renders the findings (render/check).

#include "render/check.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstddef>
#include <limits>
#include <migplan/gpu.hpp>
#include <optional>
#include <ostream>

#include "app.hpp"
#include "check/checker.hpp"
#include "error.hpp"
#include "io/check_input.hpp"
#include "io/names.hpp"
#include "io/source.hpp"
#include "models.hpp"

namespace migplan::cli {
namespace {

struct check_options {
  std::vector<std::string> gpus;
  std::vector<std::string> configs;
  bool strict = false;
  std::string format = "text";
  bool json = false;  // --json: --format json, as every other command spells it
  const CLI::Option* format_given = nullptr;
  bool verbose = false;
  int max_errors = 50;  // diagnostics shown per file in text and github output
  std::vector<std::string> files;
};

int run_check(const check_options& opt, context& ctx) {
  if (opt.files.empty()) {
    report_bad_input(ctx,
                     "check: no files given (name files or directories, or - for standard input)");
    return exit_bad_input;
  }
  if (std::count(opt.files.begin(), opt.files.end(), "-") > 1) {
    report_bad_input(ctx, "check: '-' (standard input) is named more than once");
    return exit_bad_input;
  }
  if (opt.json && opt.format_given->count() > 0 && opt.format != "json") {
    report_bad_input(ctx, fmt::format("check: --json is --format json; it does not combine with "
                                      "--format {}",
                                      opt.format));
    return exit_bad_input;
  }
  const std::string format = opt.json ? "json" : opt.format;
  check::check_settings settings;
  settings.models = ctx.models->models();
  settings.verbose = opt.verbose;
  settings.strict = opt.strict;
  settings.configs = opt.configs;
  for (const std::string& name : opt.gpus) {
    auto g = resolve_gpu(settings.models, name);
    if (!g) {
      report_bad_input(ctx, g.error());
      return exit_bad_input;
    }
    if (std::find(settings.fleet.begin(), settings.fleet.end(), *g) == settings.fleet.end())
      settings.fleet.push_back(*g);
  }
  // A file at a time: each is printed once checked and then let go, so that
  // memory follows the largest file, not the sum of them.
  const auto max_errors = static_cast<std::size_t>(opt.max_errors);
  std::optional<render::check_json_stream> json;
  if (format == "json") json.emplace(ctx.out);
  check::summary sum;
  for (const source& s : expand_sources(opt.files)) {
    const check::file_check f = check::check_source(s, ctx.in, settings);
    check::tally(sum, f);
    if (json)
      json->file(f);
    else if (format == "github")
      render::check_github(ctx.out, f, max_errors);
    else
      render::check_text(ctx.out, f, max_errors);
  }
  // The report is the result, on stdout in every format (GitHub reads
  // workflow commands there too); stderr keeps migplan's own errors.
  if (json)
    json->finish(sum);
  else
    ctx.out << render::check_summary_line(sum) << "\n";
  return sum.exit_code;
}

}  // namespace

void add_check(CLI::App& app, context& ctx) {
  auto opt = std::make_shared<check_options>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Validate geometry files, mig-parted configs, HAMi MIG templates");
  cmd->add_option("--gpu,-g", opt->gpus, "GPU model of the fleet, repeatable")
      ->type_name("MODEL")
      ->allow_extra_args(false);
  cmd->add_option("-c,--config", opt->configs, "Only this mig-parted config label, repeatable")
      ->type_name("LABEL")
      ->allow_extra_args(false);
  cmd->add_flag("--strict", opt->strict, "Treat warnings as errors (exit 1)");
  opt->format_given =
      cmd->add_option("--format", opt->format, "Output: text, json or github (on stdout)")
          ->check(CLI::IsMember({"text", "json", "github"}));
  cmd->add_flag("--json", opt->json, "Same as --format json");
  add_whole_number(
      *cmd, "--max-errors", 0, std::numeric_limits<int>::max(),
      [opt](int n) { opt->max_errors = n; }, "Diagnostics shown per file (0: all; default 50)");
  cmd->add_flag("-v,--verbose", opt->verbose, "Also note each model a geometry fits on");
  cmd->add_option(
      "FILE", opt->files,
      fmt::format("Files, directories or '-'; at most {} MiB each", check::max_check_bytes >> 20));
  cmd->footer(
      "Example: migplan check --format github configs/\n"
      "Exit codes: 0 valid, 1 a geometry invalid, 2 a file unreadable or malformed.");
  cmd->callback([opt, &ctx] { ctx.code = run_check(*opt, ctx); });
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#pragma once

// The command-line application: builds the CLI11 app, registers every
// command, runs it and maps the outcome to an exit code.

#include <fstream>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace migplan::cli {

struct pack_options;

class model_set;

/// Where a command reads and writes, and how it may decorate its output.
struct context {
  std::ostream& out;     ///< results
  std::ostream& err;     ///< diagnostics
  std::istream& in;      ///< standard input, for "-"
  bool color = false;    ///< ANSI colour allowed on `out` (a terminal, no NO_COLOR, TERM not dumb)
  bool err_tty = false;  ///< `err` is a terminal: a progress line may be shown there
  int code = 0;          ///< exit code the command chose
  /// The output asked for is JSON (--json, --format json, a JSON --batch):
  /// bad input also writes one error document on `out`, so that a pipe
  /// into jq sees the failure.
  bool json_errors = false;
  bool error_written = false;  ///< that document is out (written once)
  /// Bad input on `err` as GitHub workflow commands, which GitHub Actions
  /// shows as annotations of the file and line (MIGPLAN_DIAGNOSTICS=github),
  /// instead of "migplan: MESSAGE".
  bool github_annotations = false;
  /// The GPU models of this run: the catalog and the --gpu-file models,
  /// loaded before any command runs. Set by run() for as long as it runs;
  /// every name a command resolves, it resolves among these.
  const model_set* models = nullptr;
};

/// Registers a command on `app`; its callback writes through `ctx` and sets ctx.code.
void add_pack(CLI::App& app, context& ctx);
void add_gpus(CLI::App& app, context& ctx);       ///< see add_pack
void add_profiles(CLI::App& app, context& ctx);   ///< see add_pack
void add_enumerate(CLI::App& app, context& ctx);  ///< see add_pack
void add_fit(CLI::App& app, context& ctx);        ///< see add_pack
void add_check(CLI::App& app, context& ctx);      ///< see add_pack
void add_import(CLI::App& app, context& ctx);     ///< see add_pack
void add_plan(CLI::App& app, context& ctx);       ///< see add_pack

/// Runs `pack` with options already read (plain_pack_options); the exit code.
int run_pack(const pack_options& o, context& ctx);

/// Registers `emit-config` (see add_pack).
void add_emit_config(CLI::App& app, context& ctx);

/// Prints "migplan: MESSAGE" on ctx.err (with ctx.github_annotations, a
/// GitHub workflow command "::error file=F,line=L,col=C::MESSAGE") and sets
/// ctx.code to exit_bad_input; with ctx.json_errors, also writes
/// {"schema_version":1,"error":{"code":"bad_input","message":MESSAGE}} on
/// ctx.out (once), with "file", "line" and "col" for a reader's error.
void report_bad_input(context& ctx, const error& e);

/// A warning or note on ctx.err, through the same printer:
/// "migplan: LEVEL: MESSAGE", "migplan: FILE:LINE: LEVEL: MESSAGE" for one
/// in a file, or with ctx.github_annotations a workflow command.
void report(context& ctx, const diagnostic& d);
/// A warning or note about no one place (see above).
void report(context& ctx, severity level, std::string_view message);

/// Writes `text` to the file at `path`, or to ctx.out when `path` is "" or
/// "-". A file that cannot be opened or written is bad input ("cannot write
/// FILE: REASON"). Returns the exit code.
int write_output(context& ctx, const std::string& path, std::string_view text);

/// `--plot FILE` of pack, plan and simulate: opened before the work, so that
/// a path that cannot be written fails at once rather than after a long
/// search, and written before the answer on stdout, so that a disk that
/// fills up is the only answer. Errors read "cannot write --plot FILE: REASON".
class plot_file {
 public:
  /// Opens `path` for writing; "" and "-" open nothing (is_open() stays false).
  std::optional<std::string> open(const std::string& path);
  bool is_open() const { return file_.is_open(); }
  /// Draws into the open file and closes it.
  std::optional<std::string> write(const std::function<void(std::ostream&)>& draw);

 private:
  std::string failed(const char* fallback) const;
  std::string path_;
  std::ofstream file_;
};

/// Adds option `name` (type name N) to `cmd`: a whole number from `low` to
/// `high`, read as parse_whole_number() reads every count, so that text that
/// is no whole number in digits ("1e9", "abc", "") is refused as "--index
/// '1e9' is not a number: expected a whole number from 0 to 4095", not with
/// CLI11's "Value 1e9 not in range"; `set` receives the number.
CLI::Option* add_whole_number(CLI::App& cmd, const std::string& name, long long low, long long high,
                              std::function<void(int)> set, const std::string& description);

/// Runs migplan on an argument vector (args[0] is the program name).
int run(const std::vector<std::string>& args, context& ctx);

/// True when colour may be used on a stream that is `is_tty`, given NO_COLOR and TERM.
bool color_allowed(bool is_tty);

}  // namespace migplan::cli

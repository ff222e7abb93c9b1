// SPDX-License-Identifier: Apache-2.0
#include "app.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cassert>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <migplan/catalog.hpp>
#include <migplan/detail/strings.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <string_view>

#include "commands/place.hpp"
#include "commands/simulate.hpp"
#include "error.hpp"
#include "io/names.hpp"
#include "io/pack_options.hpp"
#include "io/size.hpp"
#include "io/source.hpp"
#include "models.hpp"
#include "quote.hpp"
#include "render/diagnostics.hpp"
#include "render/pack.hpp"

namespace migplan::cli {

bool color_allowed(bool is_tty) {
  if (!is_tty) return false;
  if (const char* nc = std::getenv("NO_COLOR"); nc != nullptr && nc[0] != '\0') return false;
  if (const char* term = std::getenv("TERM"); term != nullptr && std::string_view(term) == "dumb")
    return false;
  return true;
}

int write_output(context& ctx, const std::string& path, std::string_view text) {
  if (path.empty() || path == "-") {
    ctx.out << text;
    return exit_ok;
  }
  errno = 0;
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (file) file << text;
  if (file) file.flush();
  if (!file) {
    report_bad_input(ctx, fmt::format("cannot write {}: {}", quote_token(path, 200),
                                      errno != 0 ? std::strerror(errno) : "write failed"));
    return exit_bad_input;
  }
  return exit_ok;
}

std::string plot_file::failed(const char* fallback) const {
  return fmt::format("cannot write --plot {}: {}", quote_token(path_),
                     errno != 0 ? std::strerror(errno) : fallback);
}

std::optional<std::string> plot_file::open(const std::string& path) {
  if (path.empty() || path == "-") return std::nullopt;
  path_ = path;
  errno = 0;
  file_.open(path, std::ios::binary | std::ios::trunc);
  if (!file_) return failed("cannot open it");
  return std::nullopt;
}

std::optional<std::string> plot_file::write(const std::function<void(std::ostream&)>& draw) {
  errno = 0;
  draw(file_);
  file_.close();
  if (!file_) return failed("write failed");
  return std::nullopt;
}

namespace {

// Line `line` of the file at `path`, read again as Python's linecache reads
// a traceback's lines: only from a regular file (a pipe's bytes are gone,
// and reading it again could wait), and only a line of at most 64 KiB.
std::optional<std::string> line_of_file(const std::string& path, int line) {
  struct stat st {};
  if (line <= 0 || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  auto in = open_source(path);
  if (!in) return std::nullopt;
  line_reader lines(**in, std::size_t{64} << 10);
  std::string text;
  while (lines.next(text) == line_reader::status::line)
    if (lines.number() == line) return text;
  return std::nullopt;
}

}  // namespace

void report_bad_input(context& ctx, const error& e) {
  // Whatever a reader put in it, the message leaves as clean lines: no
  // control byte or invalid UTF-8 of the input reaches the terminal or JSON.
  const std::string clean = each_line(e.message);
  const diagnostic* where = e.where && !e.where->file.empty() ? &*e.where : nullptr;
  if (ctx.json_errors && !ctx.error_written) {
    render::pack_error_json(ctx.out, {"bad_input", clean, nullptr, where});
    ctx.error_written = true;
  }
  if (ctx.github_annotations) {
    diagnostic d = where != nullptr ? *where : diagnostic{};
    if (where == nullptr) d.message = clean;
    render::github_annotation(ctx.err, d, d.file);
  } else {
    ctx.err << "migplan: " << clean << "\n";
    // At a terminal, the line of the file and a caret under the culprit; a
    // script or a log keeps one line per error.
    if (ctx.err_tty && where != nullptr && where->file != "<stdin>")
      if (const auto text = line_of_file(where->file, where->line))
        render::source_and_caret(ctx.err, *text, where->column);
  }
  ctx.code = exit_bad_input;
}

CLI::Option* add_whole_number(CLI::App& cmd, const std::string& name, long long low, long long high,
                              std::function<void(int)> set, const std::string& description) {
  assert(high <= std::numeric_limits<int>::max());
  return cmd
      .add_option_function<std::string>(
          name,
          [name, low, high, set = std::move(set)](const std::string& text) {
            // Thrown from the option's callback, CLI11 passes it on as it is,
            // without the "NAME: " a validator's message gets.
            auto n = parse_whole_number(name, text, low, high);
            if (!n) throw CLI::ValidationError(n.error().message);
            set(static_cast<int>(*n));
          },
          description)
      ->type_name("N");
}

void report(context& ctx, const diagnostic& d) {
  if (ctx.github_annotations) {
    render::github_annotation(ctx.err, d, d.file);
    return;
  }
  ctx.err << "migplan: ";
  if (!d.file.empty()) ctx.err << position_text(d.file, d.line) << ": ";
  ctx.err << render::severity_name(d.level) << ": " << each_line(d.message) << "\n";
}

void report(context& ctx, severity level, std::string_view message) {
  diagnostic d;
  d.level = level;
  d.message = message;
  report(ctx, d);
}

namespace {

// Longest CLI11 message shown: its messages are short, but they quote the
// arguments they refuse, and an argument may be a megabyte.
constexpr std::size_t max_parse_message = 300;

// The option every command takes, also before the command's name: model
// files whose models the run may use beside the catalog's.
constexpr std::string_view gpu_file_option = "--gpu-file";
constexpr std::string_view gpu_file_help = "Model file to load (migplan import); repeatable";

// Where the command's name is in `args`: after migplan's own --gpu-file
// options, which may come first ("migplan --gpu-file m.json pack ...").
std::size_t command_at(const std::vector<std::string>& args) {
  std::size_t i = 1;
  while (i < args.size()) {
    if (args[i] == gpu_file_option)
      i += 2;
    else if (args[i].starts_with(std::string(gpu_file_option) + "="))
      i += 1;
    else
      break;
  }
  return i;
}

// Whether --version comes before any command word (a word that is no
// option and no --gpu-file value): then it is the whole request.
bool version_alone(const std::vector<std::string>& args) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--version") return true;
    if (args[i] == gpu_file_option)
      ++i;
    else if (args[i].empty() || args[i][0] != '-' || args[i] == "--")
      return false;
  }
  return false;
}

// The commands, in the order `migplan --help` lists them.
struct command_entry {
  std::string_view name;
  void (*add)(CLI::App&, context&);
};
constexpr command_entry commands[] = {{"pack", add_pack},
                                      {"gpus", add_gpus},
                                      {"profiles", add_profiles},
                                      {"enumerate", add_enumerate},
                                      {"fit", add_fit},
                                      {"check", add_check},
                                      {"emit-config", add_emit_config},
                                      {"import", add_import},
                                      {"plan", add_plan},
                                      {"simulate", add_simulate},
                                      {"place", add_place}};

// A model file could not be loaded: thrown from the parse-complete callback,
// before any command runs, and reported by run().
struct gpu_file_error {
  error what;
};

// CLI11 reads "--gpu=" as "--gpu" waiting for the next argument, so
// "--gpu= 1g.5gb" would take the item as the gpu: an option that takes a
// value, written with "=" and nothing after it, is given the empty value.
std::vector<std::string> split_empty_values(const CLI::App& app, std::vector<std::string> args) {
  const std::size_t at = command_at(args);
  if (at >= args.size()) return args;
  const CLI::App* cmd = nullptr;
  for (const CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == args[at]) cmd = sub;
  if (cmd == nullptr) return args;
  std::vector<std::string> out;
  bool options = true;  // until "--", after which every argument is positional
  for (std::string& a : args) {
    if (a == "--") options = false;
    if (options && a.size() > 3 && a.starts_with("--") && a.back() == '=' &&
        a.find('=') == a.size() - 1) {
      const std::string name = a.substr(0, a.size() - 1);
      const CLI::Option* opt = cmd->get_option_no_throw(name);
      if (opt != nullptr && opt->get_items_expected_max() > 0) {
        out.push_back(name);
        out.emplace_back();
        continue;
      }
    }
    out.push_back(std::move(a));
  }
  return out;
}

// "--gpu ''" names no model: every command refuses it the same way, rather
// than one inferring, one listing all and one ignoring it. Checked once here,
// after parsing and before any command runs. pack is left to itself: it
// resolves --gpu where its --json can also report the error as a document,
// with the same message (resolve_gpu's "empty gpu name").
void refuse_empty_gpu(const CLI::App& app, model_list models) {
  for (const CLI::App* cmd : app.get_subcommands()) {
    if (cmd->get_name() == "pack") continue;
    const CLI::Option* opt = cmd->get_option_no_throw("--gpu");
    if (opt == nullptr || opt->count() == 0) continue;
    for (const std::string& value : opt->results())
      if (std::all_of(value.begin(), value.end(),
                      [](unsigned char c) { return std::isspace(c) != 0; }))
        throw CLI::ValidationError(resolve_gpu(models, value).error().message);
  }
}

// Options whose command reads an empty value itself and says what it
// expected ("--count '' is not a number: expected a whole number from 1 to
// 1000000000"); --gpu is refuse_empty_gpu's.
constexpr std::string_view parses_empty_itself[] = {"--gpu",
                                                    "--gpu-file",
                                                    "--sms",
                                                    "--count",
                                                    "--memory",
                                                    "--policy",
                                                    "--alternatives",
                                                    "--available",
                                                    "--cost",
                                                    "--time-limit",
                                                    "--share",
                                                    "--reject-target",
                                                    "--create-seconds",
                                                    "--keep-idle",
                                                    "--format",
                                                    "--max-errors",
                                                    "--configmap-name",
                                                    "--name",
                                                    "--description",
                                                    "--pci-id",
                                                    "--index",
                                                    "--lgip",
                                                    "--lgipp",
                                                    "--trace"};

// "--plot ''" (or "--plot=") gives no file: most commands keep an option's
// text empty for "not given", so an empty value would be ignored and the run
// would answer another question (no --current: an empty GPU; no --plot: no
// SVG). Every option given an empty value is refused here, after parsing and
// before any command runs, but those whose command refuses it itself.
void refuse_empty_values(const CLI::App& app) {
  for (const CLI::App* cmd : app.get_subcommands()) {
    for (const CLI::Option* opt : cmd->get_options()) {
      if (opt->get_items_expected_max() == 0 || opt->count() == 0) continue;
      const std::string name =
          opt->get_lnames().empty() ? std::string() : "--" + opt->get_lnames().front();
      if (name.empty() || std::find(std::begin(parses_empty_itself), std::end(parses_empty_itself),
                                    name) != std::end(parses_empty_itself))
        continue;
      for (const std::string& value : opt->results())
        if (value.empty()) {
          const std::string type = opt->get_type_name();
          throw CLI::ValidationError(
              name + " is empty" +
              (type.empty() || type == "TEXT" ? std::string() : ": expected " + type));
        }
    }
  }
}

// The options `cmd` takes, as written on the command line: "--json", "-g".
std::vector<std::string> option_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : cmd.get_options()) {
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// " (did you mean --json?)" for the first option of `args` that `cmd` (or
// migplan itself) does not take and that CLI11's `message` names, "" when
// there is none or nothing is close.
std::string option_suggestion(const CLI::App& app, const CLI::App& cmd,
                              const std::vector<std::string>& args, std::string_view message) {
  std::vector<std::string> names = option_names(cmd);
  if (&cmd != &app) {
    const std::vector<std::string> own = option_names(app);
    names.insert(names.end(), own.begin(), own.end());
  }
  for (std::size_t i = 1; i < args.size() && args[i] != "--"; ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-' || (a[1] >= '0' && a[1] <= '9')) continue;
    const std::string name = a.substr(0, a.find('='));
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    if (message.find(name) == std::string_view::npos) continue;
    // One letter is as near every other: "-x" suggests nothing.
    return name.size() > 2 ? did_you_mean(name, names) : std::string();
  }
  return {};
}

// "migplan profiles h100-80gb": a GPU named as a word where the command
// takes it as --gpu. `at` is the command's position in `args`.
std::string gpu_word_hint(const CLI::App& cmd, const std::vector<std::string>& args, std::size_t at,
                          model_list models) {
  if (cmd.get_option_no_throw("--gpu") == nullptr) return {};
  for (std::size_t i = at + 1; i < args.size() && args[i] != "--"; ++i)
    if (args[i] == "--gpu" || args[i].starts_with("--gpu=")) return {};
  for (std::size_t i = at + 1; i < args.size() && args[i] != "--"; ++i) {
    const std::string& a = args[i];
    if (a.empty() || a[0] == '-') continue;
    // The value of the option before it is not a stray word.
    if (const CLI::Option* prev = cmd.get_option_no_throw(args[i - 1]);
        prev != nullptr && prev->get_items_expected_max() > 0)
      continue;
    if (resolve_gpu(models, a)) return " (did you mean --gpu " + clip_token(a, 60) + "?)";
  }
  return {};
}

}  // namespace

int run(const std::vector<std::string>& args, context& ctx) {
  const std::string version =
      fmt::format("migplan {} (catalog data {})", MIGPLAN_VERSION, catalog_revision());
  // A lone --version answers before anything is built: CLI11 answers it by
  // throwing, and the first throw in a static binary sorts every entry of its
  // unwind table (bench/README.md "Start-up").
  const std::size_t at = command_at(args);
  if (at + 1 == args.size() && args[at] == "--version") {
    ctx.out << version << "\n";
    return exit_ok;
  }
  // Asked for JSON (or `pack --batch` without --brief, whose answers are
  // JSON lines): then a usage error is a JSON document too, from an unknown
  // MIGPLAN_DIAGNOSTICS value or command on.
  bool batch = false;
  bool brief = false;
  for (std::size_t i = 1; i < args.size() && args[i] != "--"; ++i) {
    if (args[i] == "--json" || args[i] == "--format=json" ||
        (args[i] == "--format" && i + 1 < args.size() && args[i + 1] == "json"))
      ctx.json_errors = true;
    batch = batch || args[i] == "--batch" || args[i].starts_with("--batch=");
    brief = brief || args[i] == "--brief";
  }
  if (at < args.size() && args[at] == "pack" && batch && !brief) ctx.json_errors = true;
  // MIGPLAN_DIAGNOSTICS: how bad input is written on stderr ("text", the
  // default, or "github"). A value it does not know is refused, not ignored.
  if (const char* how = std::getenv("MIGPLAN_DIAGNOSTICS"); how != nullptr && how[0] != '\0') {
    const std::string_view v(how);
    if (v == "github") {
      ctx.github_annotations = true;
    } else if (v != "text") {
      report_bad_input(ctx, "MIGPLAN_DIAGNOSTICS=" + clip_token(v, 40) +
                                ": expected text or github" +
                                did_you_mean(v, std::vector<std::string>{"text", "github"}));
      return exit_bad_input;
    }
  }
  // --version stands alone (--gpu-file aside): "migplan --version extra"
  // and "migplan --bogus --version" are refused, not answered as if it were.
  // A --version after a command word is CLI11's to refuse.
  if (version_alone(args)) {
    std::vector<std::string> extra;
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "--version") continue;
      if (args[i] == gpu_file_option && i + 1 < args.size()) {
        ++i;
        continue;
      }
      if (args[i].starts_with(std::string(gpu_file_option) + "=")) continue;
      extra.push_back(args[i]);
    }
    if (!extra.empty()) {
      report_bad_input(
          ctx, clip_token(fmt::format("the following argument{} not expected: {}",
                                      extra.size() == 1 ? " was" : "s were", fmt::join(extra, " ")),
                          max_parse_message));
      return exit_bad_input;
    }
    ctx.out << version << "\n";
    return exit_ok;
  }
  // The catalog's models, and the --gpu-file models once loaded: every name
  // a command resolves, it resolves among these.
  model_set models;
  ctx.models = &models;
  struct forget_models {
    context& ctx;
    ~forget_models() { ctx.models = nullptr; }
  } const forget{ctx};
  // A plain one-shot `pack` runs without building the parser, which took
  // most of its instructions and many of its page faults (bench/README.md
  // "Start-up"); every other line, and every mistake, goes to CLI11.
  if (at == 1 && args.size() > 1 && args[1] == "pack")
    if (std::optional<pack_options> o = plain_pack_options(std::span(args).subspan(2))) {
      ctx.json_errors = o->json;
      return run_pack(*o, ctx);
    }
  CLI::App app{"migplan: exact planner for NVIDIA MIG GPU-instance geometries"};
  app.name("migplan");
  app.set_version_flag("--version", version);
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 fits or valid, 1 does not fit or invalid, 2 bad input or usage,\n"
      "3 no plan found within plan's --time-limit.\n"
      "Run 'migplan COMMAND --help' for a command's options.");
  // Only the command that runs is built: each brings dozens of options, and
  // building all eleven was most of a one-shot `pack`'s instructions
  // (bench/README.md "Start-up"). All of them for the usage and --help.
  const std::string_view word = at < args.size() ? std::string_view(args[at]) : "";
  const auto named = std::find_if(std::begin(commands), std::end(commands),
                                  [&](const command_entry& c) { return c.name == word; });
  if (named != std::end(commands)) {
    named->add(app, ctx);
  } else {
    for (const command_entry& c : commands) c.add(app, ctx);
  }
  // --help is a one-screen summary; the man page is the reference.
  for (CLI::App* sub : app.get_subcommands({}))
    sub->footer(sub->get_footer() + "\nSee migplan-" + sub->get_name() + "(1).");

  // --gpu-file on migplan itself (before the command) and on every command
  // (after it), each one's files kept apart so that they load in the order
  // written: migplan's first, then the command's.
  std::vector<std::string> files_before;
  std::map<const CLI::App*, std::vector<std::string>> files_after;
  app.add_option(std::string(gpu_file_option), files_before, std::string(gpu_file_help))
      ->type_name("FILE")
      ->allow_extra_args(false);
  for (CLI::App* sub : app.get_subcommands({}))
    sub->add_option(std::string(gpu_file_option), files_after[sub], std::string(gpu_file_help))
        ->type_name("FILE")
        ->allow_extra_args(false);
  const auto load_gpu_files = [&] {
    std::vector<std::string> files = files_before;
    for (const CLI::App* sub : app.get_subcommands())
      files.insert(files.end(), files_after[sub].begin(), files_after[sub].end());
    for (const std::string& f : files)
      if (auto loaded = models.load(f); !loaded) throw gpu_file_error{loaded.error()};
  };

  // No arguments at all: the usage, as a usage error (exit 2, on stderr, so
  // that a script's output stays empty).
  if (args.size() < 2) {
    ctx.err << app.help();
    return exit_bad_input;
  }
  // An unknown first word is a mistyped command: say so and suggest one.
  if (at < args.size() && !args[at].empty() && args[at][0] != '-') {
    std::vector<std::string> names;
    for (const command_entry& c : commands) names.emplace_back(c.name);
    if (std::find(names.begin(), names.end(), args[at]) == names.end()) {
      report_bad_input(ctx, "unknown command " + quote_token(args[at]) +
                                did_you_mean(args[at], names) + "; 'migplan --help' lists them");
      return exit_bad_input;
    }
  }
  // Before any command runs: --gpu "" is refused, and the model files load,
  // so that every command resolves --gpu and profile names among them too.
  app.parse_complete_callback([&app, &load_gpu_files, &models] {
    refuse_empty_gpu(app, models.models());
    refuse_empty_values(app);
    load_gpu_files();
  });
  const std::vector<std::string> split = split_empty_values(app, args);
  std::vector<std::string> rev(split.rbegin(), split.rend() - 1);
  try {
    app.parse(rev);
  } catch (const gpu_file_error& e) {
    report_bad_input(ctx, e.what);
    return exit_bad_input;
  } catch (const CLI::CallForHelp&) {
    ctx.out << app.help();
    return exit_ok;
  } catch (const CLI::CallForAllHelp&) {
    ctx.out << app.help("", CLI::AppFormatMode::All);
    return exit_ok;
  } catch (const CLI::CallForVersion&) {
    ctx.out << version << "\n";
    return exit_ok;
  } catch (const CLI::ParseError& e) {
    // Subcommand help arrives as CallForHelp from the subcommand: print its help.
    if (e.get_exit_code() == 0) {
      const CLI::App* sub = nullptr;
      for (const CLI::App* s : app.get_subcommands()) sub = s;
      ctx.out << (sub != nullptr ? sub->help() : app.help());
      return exit_ok;
    }
    std::string msg = clip_token(e.what(), max_parse_message);
    if (!msg.empty()) msg[0] = detail::ascii_lower(msg[0]);
    // An option that takes one value, given twice: CLI11 says "--gpu: At
    // Most 1 required but received 2".
    constexpr std::string_view at_most = ": At Most 1 required but received ";
    if (const std::string_view what = e.what();
        dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr &&
        what.find(at_most) != std::string_view::npos && what.starts_with("--")) {
      const std::size_t cut = what.find(at_most);
      msg = fmt::format("{} is given {} times; give it once", what.substr(0, cut),
                        what.substr(cut + at_most.size()));
    }
    // An option the command does not take: the nearest one it does.
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
      const CLI::App* cmd = &app;
      for (const CLI::App* s : app.get_subcommands()) cmd = s;
      msg += option_suggestion(app, *cmd, split, e.what());
    }
    // A GPU given as a word: "--gpu is required" or "not expected".
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr ||
        (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr &&
         std::string_view(e.what()).starts_with("--gpu"))) {
      const CLI::App* cmd = &app;
      for (const CLI::App* s : app.get_subcommands()) cmd = s;
      if (cmd != &app && msg.find("did you mean") == std::string::npos)
        msg += gpu_word_hint(*cmd, split, command_at(split), models.models());
    }
    report_bad_input(ctx, msg);
    return exit_bad_input;
  }
  return ctx.code;
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
// Reading the files `migplan check` validates: the text is read into the
// document layer's tree (document.hpp), whose first document goes to the
// reader of its format (check_geometry.cpp, check_mig_parted.cpp).

#include "io/check_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "io/check_reader.hpp"
#include "io/document.hpp"
#include "io/json_sax.hpp"
#include "io/manifest.hpp"
#include "io/smi.hpp"
#include "io/smi_text.hpp"
#include "io/source.hpp"
#include "io/text_view.hpp"
#include "quote.hpp"

namespace migplan::cli::check {
namespace {

using reading::decimal_int;

std::size_t alias_budget(std::string_view text) { return 4 * text.size() + 100'000; }

// Valid JSON (the syntax check came first) that the YAML reader refused at
// `at`. mig-parted reads JSON as YAML too (sigs.k8s.io/yaml over go-yaml),
// where a mapping key without '?' is a simple key: its ':' must follow on
// the key's own line, within 1,024 characters of its start. yaml-cpp keeps
// that rule, counting bytes of UTF-8 where go-yaml counts characters.
std::string json_refused_as_yaml(std::string_view text, location at, std::string_view why) {
  std::size_t start = 0;
  for (int line = 1; line < at.line && start < text.size(); ++line) {
    const std::size_t nl = text.find('\n', start);
    start = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  start += static_cast<std::size_t>(std::max(at.col, 1) - 1);
  std::size_t close = start + 1;  // the key's closing quote
  while (start < text.size() && text[start] == '"' && close < text.size() && text[close] != '"')
    close += text[close] == '\\' ? std::size_t{2} : std::size_t{1};
  const std::size_t colon = text.find_first_not_of(" \t\r\n", close + 1);
  if (start < text.size() && text[start] == '"' && colon != std::string_view::npos &&
      text[colon] == ':') {
    constexpr std::string_view rule =
        "mig-parted reads JSON as YAML, where a key's ':' must stand on the key's line at most "
        "1,024 characters after its start (counted here in bytes of UTF-8)";
    const std::string_view between = text.substr(close + 1, colon - close - 1);
    if (between.find_first_of("\r\n") != std::string_view::npos)
      return fmt::format("this key's ':' is on a later line; {}", rule);
    if (colon - start > 1024)
      return fmt::format("this key's ':' comes {} bytes after its start; {}", colon - start, rule);
  }
  return fmt::format("json read as yaml, as mig-parted reads it: {}", why);
}

// The one place where the document layer's diagnostic becomes check's: a
// syntax error of JSON (read as YAML flow style) is said as JSON's, and the
// alias budget in the words check has always used.
diagnostic from_document(const cli::diagnostic& d, std::string_view text, bool json) {
  std::string message = d.message;
  constexpr std::string_view yaml_prefix = "invalid yaml: ";
  if (d.code == "aliases")
    message = fmt::format(
        "aliases and merge keys make this file name more than {} values; migplan stops reading it "
        "there",
        alias_budget(text));
  else if (json && message.starts_with(yaml_prefix))
    message = json_refused_as_yaml(text, {d.line, d.column}, message.substr(yaml_prefix.size()));
  return file_diagnostic(severity::error, fault::malformed, {d.line, d.column}, std::move(message));
}

// An nvidia-smi listing given to check, which stops the YAML and JSON
// readers at its table (or at a -lgipp line): said as what it is and which
// command reads it, at its title's line, rather than as a syntax error. Only
// a text that starts as a listing (smi::find_framed_listing) is one.
std::optional<diagnostic> smi_listing_given(std::string_view text) {
  const auto found = smi::find_framed_listing(text);
  if (!found) return std::nullopt;
  std::string_view reader;
  switch (found->kind) {
    case smi::listing_kind::lgi:
      reader = "pack, place and simulate read it with --current";
      break;
    case smi::listing_kind::lci:
      reader = "pack reads it with --current, after the -lgi output";
      break;
    case smi::listing_kind::lgip:
      reader = "import reads it with --lgip";
      break;
    case smi::listing_kind::lgipp:
      reader = "import reads it with --lgipp";
      break;
    case smi::listing_kind::lcip:
    case smi::listing_kind::unknown:
      reader = "no migplan command reads it";
      break;
  }
  return file_diagnostic(
      severity::error, fault::malformed, {found->line, found->column},
      fmt::format("this looks like {}: {}; check reads geometry files, mig-parted configs, HAMi "
                  "and Volcano device configs and ResourceSlices",
                  smi::detail::describe(found->kind), reader));
}

// The first YAML document of `text` and where a second, non-empty one
// starts (doc::first_document). With `sniff`, whether the first document
// that is not empty is a Kubernetes object (`manifest`), looked for up to
// max_manifest_documents empty ones ahead of it (each at a new place, so not
// a stray ','), and for a document that stops parsing, as far as it went.
struct sniffed {
  explicit sniffed(std::string_view text) : doc(text) {}
  doc::first_document doc;
  bool manifest = false;
};

result<sniffed, cli::diagnostic> read_first(std::string_view text, bool sniff = false) {
  sniffed out(text);
  bool decided = !sniff;  // the first document that is not empty was seen
  std::optional<std::size_t> previous_start;
  const auto each = [&](doc::node& root, doc::position start) {
    if (!decided && !root.is_null()) {
      decided = true;
      out.manifest = is_kubernetes_object(root);
      if (out.manifest) return false;
    }
    const bool more = out.doc.take(root);
    if (decided) return more;
    if (previous_start == start.offset) return false;
    previous_start = start.offset;
    return out.doc.seen < max_manifest_documents;
  };
  doc::node partial;
  if (const auto failed =
          doc::read_yaml_stream(text, {}, reading::check_budget(), each, &partial)) {
    if (!decided && is_kubernetes_object(partial)) out.manifest = true;
    if (!out.manifest) return *failed;
  }
  return out;
}

bool has_key(const doc::node& map, std::string_view key) {
  return doc::member(map, key) != nullptr;
}

input_format detect(const doc::node& root) {
  if (has_key(root, "mig-configs")) return input_format::mig_parted;
  for (std::size_t i = 0; i + 1 < root.kids.size(); i += 2) {
    const doc::node& k = root.kids[i];
    const doc::node& v = root.kids[i + 1];
    if (k.is_scalar() && k.text == "version" && v.is_scalar() && v.text == "v1")
      return input_format::mig_parted;
  }
  if (has_key(root, "gpus") || has_key(root, "version")) return input_format::geometry;
  if (reading::is_hami_config(root)) return input_format::hami;
  return input_format::unknown;
}

// True when a document has a key only the two formats have: 'gpus',
// 'mig-configs', or 'version' as the number 1 or "v1". A bare 'version' does
// not count: docker-compose files have one ("3.8").
bool recognized(const doc::node& root) {
  if (!root.is_map()) return false;
  if (reading::is_hami_config(root)) return true;
  for (std::size_t i = 0; i + 1 < root.kids.size(); i += 2) {
    const doc::node& k = root.kids[i];
    const doc::node& v = root.kids[i + 1];
    if (!k.is_scalar()) continue;
    if (k.text == "gpus" || k.text == "mig-configs") return true;
    long long n = 0;
    if (k.text == "version" && v.is_scalar() && (v.text == "v1" || (decimal_int(v, n) && n == 1)))
      return true;
  }
  return false;
}

// One of migplan's other files, which other commands read (plan-files.md,
// simulate's traces): what it is, and who reads it with which option.
struct other_file {
  std::string_view what;     // "a migplan state file (version: 1, nodes: ...)"
  std::string_view is;       // "the fleet as it is"
  std::string_view readers;  // "plan, place and simulate"
  std::string_view option;   // "--current"
};

// The other migplan file `root` is, by a top-level key of its own ('nodes',
// 'demand', 'pods' or 'models') and no 'gpus' or 'mig-configs'; none else.
std::optional<other_file> other_migplan_file(const doc::node& root) {
  if (!root.is_map() || has_key(root, "gpus") || has_key(root, "mig-configs")) return std::nullopt;
  if (has_key(root, "demand"))
    return other_file{"a migplan demand file (version: 1, demand: ...)",
                      "what a workload mix needs", "plan", "--demand"};
  if (has_key(root, "pods"))
    return other_file{"a migplan trace (version: 1, pods: ...)", "pods over time", "simulate",
                      "--trace"};
  // A fleet file may have nodes alone: its nodes count their GPUs (gpus: 8),
  // a state file's list them.
  const doc::node* nodes = doc::member(root, "nodes");
  const doc::node* first = nodes != nullptr && nodes->is_list() && !nodes->kids.empty()
                               ? doc::member(nodes->kids.front(), "gpus")
                               : nullptr;
  if (has_key(root, "models") || (first != nullptr && first->is_scalar()))
    return other_file{"a migplan fleet file (version: 1, models or nodes: ...)",
                      "the GPUs a plan may use", "plan and simulate", "--fleet"};
  if (nodes != nullptr)
    return other_file{"a migplan state file (version: 1, nodes: ...)", "the fleet as it is",
                      "plan, place and simulate", "--current"};
  return std::nullopt;
}

// Reads `root`, the first document of `text`, into `out`.
void read_root(model_list models, parsed_input& out, const doc::node& root, std::string_view text,
               const position_map& to_file) {
  if (root.is_null()) {
    // mig-parted accepts an empty document as a config with no labels
    // (api/spec/v1/spec_test.go, TestSpec "Empty"); `apply -c` then fails
    // for want of the label. Not an error here either, but not silent.
    out.foreign = false;
    out.diagnostics.push_back(
        file_diagnostic(severity::warning, fault::invalid, {},
                        "empty file: nothing to check (mig-parted accepts it as a config "
                        "with no labels; any label selected from it is missing)"));
    return;
  }
  if (!root.is_map()) {
    out.diagnostics.push_back(
        file_diagnostic(severity::error, fault::malformed, reading::at(root),
                        fmt::format("expected a mapping with 'version' at the top level, not {}",
                                    reading::kind_text(root))));
    return;
  }
  out.format = detect(root);
  switch (out.format) {
    case input_format::geometry:
      reading::read_geometry_file(out, root, text, to_file);
      break;
    case input_format::mig_parted:
      reading::read_mig_parted_config(models, out, root, text, to_file);
      break;
    case input_format::hami:
      reading::read_hami_config(out, root, text, to_file);
      break;
    case input_format::resource_slices:  // read_resource_slices() took those
    case input_format::unknown:
      out.diagnostics.push_back(file_diagnostic(severity::error, fault::malformed, {1, 1},
                                                "not " + std::string(formats_read)));
      break;
  }
}

// parse_check_input(), and parse_yaml_or_manifest() with `as_manifest`.
parsed_input read_check_document(model_list models, std::string_view text, bool json,
                                 const position_map& to_file, const manifest_reader& as_manifest) {
  parsed_input out;
  try {
    auto doc = read_first(text, static_cast<bool>(as_manifest));
    if (doc && doc->manifest) return as_manifest();
    if (!doc) {
      const auto listing = smi_listing_given(text);
      out.diagnostics.push_back(listing ? *listing : from_document(doc.error(), text, json));
      return out;
    }
    const doc::node& root = doc->doc.root;
    out.foreign = !recognized(root);
    if (const auto other = other_migplan_file(root)) {
      // Named, an error; found by scanning, skipped with a note.
      const bool many = other->readers.find(' ') != std::string_view::npos;
      out.foreign = true;
      out.other_file = fmt::format("{}, which {} {} with {}", other->what, other->readers,
                                   many ? "read" : "reads", other->option);
      out.diagnostics.push_back(file_diagnostic(
          severity::error, fault::malformed, reading::at(root),
          fmt::format("{}, {}: {} {} it with {}; check reads geometry files and configs",
                      other->what, other->is, other->readers, many ? "read" : "reads",
                      other->option)));
      return out;
    }
    if (doc->doc.second) {
      out.diagnostics.push_back(
          file_diagnostic(severity::error, fault::malformed, reading::at(*doc->doc.second),
                          "a second yaml document starts here; check reads one document "
                          "per file"));
      return out;
    }
    read_root(models, out, root, text, to_file);
  } catch (const std::exception& e) {
    out.diagnostics.push_back(file_diagnostic(severity::error, fault::malformed, {},
                                              std::string("cannot read the file: ") + e.what()));
  }
  return out;
}

}  // namespace

std::string clip(std::string_view text) { return clip_token(text, 64); }

result<std::string> read_check_source(const std::string& path, std::istream& in,
                                      std::size_t limit) {
  bool too_large = false;
  auto text = read_source_bounded(path, in, limit, too_large);
  if (text) return text;
  if (too_large)
    return cli::error{fmt::format("{}, the most check reads of one file", text.error().message)};
  return cli::error{"cannot read file: " + text.error().message};
}

parsed_input parse_check_input(model_list models, std::string_view text, bool json,
                               const position_map& to_file) {
  parsed_input out;
  if (json) {
    // A syntax check that builds nothing, so that a JSON error is said as
    // nlohmann says it; the document is then read as YAML flow style.
    json_sax_base syntax;
    try {
      nlohmann::json::sax_parse(text.begin(), text.end(), &syntax);
    } catch (const std::exception& e) {
      syntax.what = e.what();
    }
    if (!syntax.what.empty()) {
      if (auto listing = smi_listing_given(text)) {
        out.diagnostics.push_back(std::move(*listing));
        return out;
      }
      out.diagnostics.push_back(file_diagnostic(
          severity::error, fault::malformed,
          syntax.byte ? reading::at(doc::json_error_at(text, *syntax.byte)) : location{},
          "invalid json: " + json_error_text(syntax.what)));
      return out;
    }
  }
  return read_check_document(models, text, json, to_file, {});
}

bool looks_like_manifest(std::string_view text) {
  try {
    const auto doc = read_first(text, true);
    return doc && doc->manifest;
  } catch (const std::exception&) {
    return false;
  }
}

parsed_input parse_yaml_or_manifest(model_list models, std::string_view text,
                                    const manifest_reader& as_manifest) {
  return read_check_document(models, text, false, {}, as_manifest);
}

}  // namespace migplan::cli::check

// SPDX-License-Identifier: Apache-2.0
#include "render/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <vector>

#include "diagnostic.hpp"
#include "messages.hpp"
#include "quote.hpp"
#include "render/compute.hpp"
#include "render/diagnostics.hpp"
#include "render/json.hpp"
#include "render/json_writer.hpp"

namespace migplan::cli::render {

// check::diagnostic: diagnostic.hpp's, whose config, entry and notes check sets.
using check::diagnostic;
using namespace check;
namespace {

std::string count_noun(int n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// A file's lines, found once: a lookup per diagnostic that scanned the text
// from its start made many diagnostics on a long file quadratic.
class line_index {
 public:
  explicit line_index(std::string_view text) : text_(text) {}

  // Line `line` (1-based) without its end, or "" when there is none.
  std::string_view line(int line) {
    if (line < 1) return {};
    if (starts_.empty()) {
      starts_.push_back(0);
      for (std::size_t i = text_.find('\n'); i != std::string_view::npos;
           i = text_.find('\n', i + 1))
        starts_.push_back(i + 1);
    }
    const auto n = static_cast<std::size_t>(line);
    if (n > starts_.size()) return {};
    const std::size_t from = starts_[n - 1];
    std::string_view out = text_.substr(from);
    out = out.substr(0, out.find('\n'));
    if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
    return out;
  }

 private:
  std::string_view text_;
  std::vector<std::size_t> starts_;
};

// What a file's diagnostics beyond the first `max` are.
struct hidden {
  int errors = 0, warnings = 0, notes = 0;
  int total() const { return errors + warnings + notes; }
};

hidden count_hidden(const file_check& f, std::size_t max) {
  hidden h;
  if (max == 0 || f.diagnostics.size() <= max) return h;
  for (std::size_t i = max; i < f.diagnostics.size(); ++i) switch (f.diagnostics[i].level) {
      case severity::error:
        ++h.errors;
        break;
      case severity::warning:
        ++h.warnings;
        break;
      case severity::note:
        ++h.notes;
        break;
    }
  return h;
}

// "and 39950 more errors in FILE (--max-errors 0 shows all)"; with several
// kinds, "and 5 more diagnostics in FILE: 3 errors and 2 warnings (...)".
std::string hidden_line(const std::string& path, const hidden& h) {
  std::vector<std::string> kinds;
  if (h.errors > 0) kinds.push_back(count_noun(h.errors, "error", "errors"));
  if (h.warnings > 0) kinds.push_back(count_noun(h.warnings, "warning", "warnings"));
  if (h.notes > 0) kinds.push_back(count_noun(h.notes, "note", "notes"));
  std::string out;
  if (kinds.size() == 1) {
    out = fmt::format("and {} more {} in {}", h.total(),
                      kinds.front().substr(kinds.front().find(' ') + 1), path);
  } else {
    std::string list;
    for (std::size_t i = 0; i < kinds.size(); ++i)
      list += (i == 0 ? "" : i + 1 == kinds.size() ? " and " : ", ") + kinds[i];
    out = fmt::format("and {} more diagnostics in {}: {}", h.total(), path, list);
  }
  return out + " (--max-errors 0 shows all)";
}

std::string position(const std::string& path, location at) {
  return position_text(path, at.line, at.col);
}

// "2x1g.5gb", "3g.20gb@4": a request item as the file wrote it, count folded in.
std::string request_text(const profile_request& r) {
  std::string out = r.count == 1 ? std::string() : fmt::format("{}x", r.count);
  out += r.name;
  if (r.start) out += fmt::format("@{}", *r.start);
  return out;
}

// A 1-based position, or null when unknown.
void write_position(json_writer& w, int v) {
  if (v > 0)
    w.value(v);
  else
    w.null();
}

void write_model(json_writer& w, const model_check& m) {
  const gpu_model& gpu = *m.gpu;
  w.begin_object().key("gpu").value(gpu.slug).key("status").value(status_name(m.status));
  w.key("layout");
  if (m.preferred)
    write_instances(w, gpu, *m.preferred);
  else
    w.null();
  w.key("layout_count").value(m.layout_count);
  w.key("reason");
  if (m.status == model_check::outcome::does_not_fit && m.ci_code != ci_reason_code::none) {
    w.begin_object().key("code").value(ci_reason_name(m.ci_code)).key("message").value(m.message);
    w.key("profiles").begin_array();
    for (const std::string& u : m.unknown) w.value(u);
    w.end_array().end_object();
  } else if (m.status == model_check::outcome::does_not_fit) {
    write_reason(w, gpu, m.why, m.items);
  } else if (m.status == model_check::outcome::unknown_profile) {
    w.begin_object().key("code").value("unknown_profile").key("message").value(m.message);
    w.key("profiles").begin_array();
    for (const std::string& u : m.unknown) w.value(u);
    w.end_array().end_object();
  } else {
    w.null();
  }
  w.key("closest").begin_array();
  for (const closest_fit& c : m.closest) {
    w.begin_object().key("drop").begin_array();
    for (const item& it : c.drop) w.value(item_text(gpu, it));
    w.end_array().key("layout");
    write_instances(w, gpu, c.where.where);
    w.end_object();
  }
  w.end_array().end_object();
}

void write_geometry(json_writer& w, const geometry_check& g, bool mig_parted) {
  const geometry_spec& s = *g.spec;
  // "config" is the label under a name jq's {config} shorthand takes;
  // "label" is the same value, kept for schema_version 1 readers.
  w.begin_object().key("config").value(s.label).key("label").value(s.label);
  w.key("entry").value(s.entry);
  w.key("line");
  write_position(w, s.at.line);
  w.key("col");
  write_position(w, s.at.col);
  w.key("devices");
  if (s.all_devices) {
    w.value("all");
  } else {
    w.begin_array();
    for (long long d : s.devices) w.value(d);
    w.end_array();
  }
  w.key("device_filter");
  if (mig_parted && s.has_filter) {
    w.begin_array();
    for (const filter_id& f : s.filter) w.value(f.text);
    w.end_array();
  } else {
    w.null();
  }
  w.key("configmap").value(s.configmap);
  w.key("mig_enabled").value(s.mig_enabled);
  w.key("request").begin_array();
  for (const profile_request& r : s.items)
    if (r.count > 0) w.value(request_text(r));
  w.end_array();
  w.key("status").value(status_name(g.status));
  w.key("models").begin_array();
  for (const model_check& m : g.models) write_model(w, m);
  w.end_array().end_object();
}

std::string_view format_name(input_format f) {
  switch (f) {
    case input_format::geometry:
      return "migplan";
    case input_format::mig_parted:
      return "mig-parted";
    case input_format::hami:
      return "hami";
    case input_format::resource_slices:
      return "resource-slices";
    case input_format::unknown:
      return "";
  }
  return "";
}

}  // namespace

std::string_view status_name(file_status s) {
  switch (s) {
    case file_status::valid:
      return "valid";
    case file_status::invalid:
      return "invalid";
    case file_status::malformed:
      return "malformed";
    case file_status::unreadable:
      return "unreadable";
    case file_status::skipped:
      return "skipped";
  }
  return "";
}

std::string_view status_name(geometry_status s) {
  switch (s) {
    case geometry_status::valid:
      return "valid";
    case geometry_status::invalid:
      return "invalid";
    case geometry_status::unchecked:
      return "unchecked";
  }
  return "";
}

std::string_view status_name(model_check::outcome s) {
  switch (s) {
    case model_check::outcome::fits:
      return "fits";
    case model_check::outcome::does_not_fit:
      return "does_not_fit";
    case model_check::outcome::unknown_profile:
      return "unknown_profile";
  }
  return "";
}

std::string check_summary_line(const summary& s) {
  std::string out =
      fmt::format("checked {}: {} valid, {} invalid", count_noun(s.files, "file", "files"),
                  count_noun(s.valid, "geometry", "geometries"), s.invalid);
  if (s.unchecked > 0) out += fmt::format(", {} not checked", s.unchecked);
  if (s.slice_gpus > 0)
    out += fmt::format("; {} of ResourceSlices, {} exact", count_noun(s.slice_gpus, "GPU", "GPUs"),
                       s.slice_gpus_exact);
  if (s.malformed_files > 0)
    out += fmt::format("; {} malformed", count_noun(s.malformed_files, "file", "files"));
  if (s.unreadable_files > 0)
    out += fmt::format("; {} unreadable", count_noun(s.unreadable_files, "file", "files"));
  if (s.skipped_files > 0)
    out += fmt::format("; {} skipped", count_noun(s.skipped_files, "file", "files"));
  if (s.warnings > 0) out += fmt::format("; {}", count_noun(s.warnings, "warning", "warnings"));
  return out;
}

void check_text(std::ostream& os, const file_check& f, std::size_t max_per_file) {
  {
    line_index lines(f.text);
    const std::size_t shown =
        max_per_file == 0 ? f.diagnostics.size() : std::min(max_per_file, f.diagnostics.size());
    for (std::size_t i = 0; i < shown; ++i) {
      const diagnostic& d = f.diagnostics[i];
      os << position(f.path, d.at()) << ": " << severity_name(d.level) << ": "
         << one_line(d.message) << "\n";
      if (d.line > 0) {
        const std::string_view line = lines.line(d.line);
        if (!line.empty() || d.column > 0) source_and_caret(os, line, d.column);
      }
      for (const std::string& n : d.notes) os << "  " << one_line(n) << "\n";
    }
    if (const hidden h = count_hidden(f, max_per_file); h.total() > 0)
      os << hidden_line(f.path, h) << "\n";
  }
}

void check_github(std::ostream& os, const file_check& f, std::size_t max_per_file) {
  const std::size_t shown =
      max_per_file == 0 ? f.diagnostics.size() : std::min(max_per_file, f.diagnostics.size());
  for (std::size_t i = 0; i < shown; ++i)
    github_annotation(os, f.diagnostics[i], f.path, f.diagnostics[i].notes);
  if (const hidden h = count_hidden(f, max_per_file); h.total() > 0) {
    cli::diagnostic more;
    more.level = severity::note;
    more.message = hidden_line(f.path, h);
    github_annotation(os, more, f.path);
  }
}

check_json_stream::check_json_stream(std::ostream& os) : os_(os), w_(buf_, 2) {
  w_.begin_object().key("schema_version").value(json_schema_version);
  w_.key("files").begin_array();
}

void check_json_stream::flush() {
  os_ << buf_;
  buf_.clear();
}

void check_json_stream::file(const file_check& f) {
  json_writer& w = w_;
  const bool mig_parted = f.input.format == input_format::mig_parted;
  w.begin_object().key("file").value(f.path).key("format");
  if (const std::string_view format = format_name(f.input.format); format.empty())
    w.null();
  else
    w.value(format);
  w.key("status").value(status_name(f.status));
  w.key("geometries").begin_array();
  for (const geometry_check& g : f.geometries) write_geometry(w, g, mig_parted);
  w.end_array();
  w.key("diagnostics").begin_array();
  for (const diagnostic& d : f.diagnostics) {
    w.begin_object().key("severity").value(severity_name(d.level));
    // config and entry name a geometry, or are both null (doc/json.md): a
    // reader's finding about a whole label, a HAMi entry or a ResourceSlice
    // has a config but no entry, and names none.
    w.key("config");
    if (d.config.empty() || d.entry < 0)
      w.null();
    else
      w.value(d.config);
    w.key("entry");
    if (d.entry >= 0)
      w.value(d.entry);
    else
      w.null();
    w.key("line");
    write_position(w, d.line);
    w.key("col");
    write_position(w, d.line > 0 ? d.column : 0);
    w.key("message").value(one_line(d.message)).key("notes").begin_array();
    for (const std::string& n : d.notes) w.value(one_line(n));
    w.end_array().end_object();
  }
  w.end_array().end_object();
  flush();
}

void check_json_stream::finish(const summary& s) {
  json_writer& w = w_;
  w.end_array();
  w.key("summary").begin_object();
  w.key("files").value(s.files).key("geometries").value(s.geometries);
  w.key("valid").value(s.valid).key("invalid").value(s.invalid);
  w.key("unchecked").value(s.unchecked).key("malformed_files").value(s.malformed_files);
  w.key("unreadable_files").value(s.unreadable_files);
  w.key("skipped_files").value(s.skipped_files).key("errors").value(s.errors);
  w.key("warnings").value(s.warnings).key("notes").value(s.notes);
  w.key("exit_code").value(s.exit_code);
  w.key("slice_gpus").value(s.slice_gpus).key("slice_gpus_exact").value(s.slice_gpus_exact);
  w.end_object();
  w.end_object();
  buf_ += '\n';
  flush();
}

}  // namespace migplan::cli::render

// SPDX-License-Identifier: Apache-2.0
#include "render/check_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "render/json.hpp"
#include "render/messages.hpp"

namespace migplan::cli::check {
namespace {

std::string_view severity_name(severity s) {
  switch (s) {
    case severity::error:
      return "error";
    case severity::warning:
      return "warning";
    case severity::note:
      return "note";
  }
  return "";
}

std::string plural(int n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string_view line_of(std::string_view text, int line) {
  if (line < 1) return {};
  std::size_t from = 0;
  for (int l = 1; l < line; ++l) {
    const std::size_t nl = text.find('\n', from);
    if (nl == std::string_view::npos) return {};
    from = nl + 1;
  }
  std::string_view out = text.substr(from);
  out = out.substr(0, out.find('\n'));
  if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
  return out;
}

// The source line and a caret under column `col` (1-based). Tabs before the
// column are kept so the caret lines up; UTF-8 continuation bytes take no
// column. Very long lines (minified JSON) show a window around the column.
void source_and_caret(std::ostream& os, std::string_view line, int col) {
  constexpr std::size_t max_width = 160, before = 60;
  std::size_t c = col > 0 ? static_cast<std::size_t>(col - 1) : 0;
  c = std::min(c, line.size());
  std::string prefix, suffix;
  if (line.size() > max_width) {
    const std::size_t start = c > before ? c - before : 0;
    const std::size_t end = std::min(line.size(), start + max_width);
    if (start > 0) prefix = "...";
    if (end < line.size()) suffix = "...";
    line = line.substr(start, end - start);
    c -= start;
  }
  os << prefix << line << suffix << "\n";
  if (col <= 0) return;
  std::string caret(prefix.size(), ' ');
  for (std::size_t i = 0; i < c && i < line.size(); ++i) {
    const auto ch = static_cast<unsigned char>(line[i]);
    if (ch == '\t')
      caret += '\t';
    else if ((ch & 0xC0u) != 0x80u)
      caret += ' ';
  }
  os << caret << "^\n";
}

std::string position(const std::string& path, location at) {
  if (at.line <= 0) return path;
  if (at.col <= 0) return fmt::format("{}:{}", path, at.line);
  return fmt::format("{}:{}:{}", path, at.line, at.col);
}

// "2x1g.5gb", "3g.20gb@4": a request item as the file wrote it, count folded in.
std::string request_text(const profile_request& r) {
  std::string out = r.count == 1 ? std::string() : fmt::format("{}x", r.count);
  out += r.name;
  if (r.start) out += fmt::format("@{}", *r.start);
  return out;
}

ojson location_json(int v) { return v > 0 ? ojson(v) : ojson(nullptr); }

ojson model_json(const model_check& m) {
  const gpu_model& gpu = *m.gpu;
  ojson reason = nullptr;
  if (m.status == model_check::outcome::does_not_fit) {
    reason = reason_json(gpu, m.why);
  } else if (m.status == model_check::outcome::unknown_profile) {
    reason = ojson{{"code", "unknown_profile"}, {"message", m.message}, {"profiles", m.unknown}};
  }
  ojson closest = ojson::array();
  for (const closest_fit& c : m.closest) {
    ojson drop = ojson::array();
    for (const item& it : c.drop) drop.push_back(item_text(gpu, it));
    closest.push_back({{"drop", drop}, {"layout", instances_json(gpu, c.where.where)}});
  }
  return ojson{{"gpu", gpu.slug},
               {"status", status_name(m.status)},
               {"layout", m.preferred ? instances_json(gpu, *m.preferred) : ojson(nullptr)},
               {"layout_count", m.layout_count},
               {"reason", reason},
               {"closest", closest}};
}

ojson geometry_json(const geometry_check& g, bool mig_parted) {
  const geometry_spec& s = *g.spec;
  ojson devices = s.all_devices ? ojson("all") : ojson(s.devices);
  ojson filter = nullptr;
  if (mig_parted && s.has_filter) {
    filter = ojson::array();
    for (const filter_id& f : s.filter) filter.push_back(f.text);
  }
  ojson request = ojson::array();
  for (const profile_request& r : s.items)
    if (r.count > 0) request.push_back(request_text(r));
  ojson models = ojson::array();
  for (const model_check& m : g.models) models.push_back(model_json(m));
  return ojson{{"label", s.label},
               {"entry", s.entry},
               {"line", location_json(s.at.line)},
               {"col", location_json(s.at.col)},
               {"devices", devices},
               {"device_filter", filter},
               {"mig_enabled", s.mig_enabled},
               {"request", request},
               {"status", status_name(g.status)},
               {"models", models}};
}

std::string_view format_name(input_format f) {
  switch (f) {
    case input_format::geometry:
      return "migplan";
    case input_format::mig_parted:
      return "mig-parted";
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

summary summarize(std::span<const file_check> files) {
  summary s;
  for (const file_check& f : files) {
    ++s.files;
    for (const geometry_check& g : f.geometries) {
      ++s.geometries;
      switch (g.status) {
        case geometry_status::valid:
          ++s.valid;
          break;
        case geometry_status::invalid:
          ++s.invalid;
          break;
        case geometry_status::unchecked:
          ++s.unchecked;
          break;
      }
    }
    for (const diagnostic& d : f.diagnostics) {
      switch (d.level) {
        case severity::error:
          ++s.errors;
          break;
        case severity::warning:
          ++s.warnings;
          break;
        case severity::note:
          ++s.notes;
          break;
      }
    }
    int code = 0;
    switch (f.status) {
      case file_status::valid:
        break;
      case file_status::invalid:
        code = 1;
        break;
      case file_status::malformed:
        ++s.malformed_files, code = 2;
        break;
      case file_status::unreadable:
        ++s.unreadable_files, code = 2;
        break;
    }
    s.exit_code = std::max(s.exit_code, code);
  }
  return s;
}

std::string summary_line(const summary& s) {
  std::string out =
      fmt::format("checked {}: {} valid, {} invalid", plural(s.files, "file", "files"),
                  plural(s.valid, "geometry", "geometries"), s.invalid);
  if (s.unchecked > 0) out += fmt::format(", {} not checked", s.unchecked);
  if (s.malformed_files > 0)
    out += fmt::format("; {} malformed", plural(s.malformed_files, "file", "files"));
  if (s.unreadable_files > 0)
    out += fmt::format("; {} unreadable", plural(s.unreadable_files, "file", "files"));
  if (s.warnings > 0) out += fmt::format("; {}", plural(s.warnings, "warning", "warnings"));
  return out;
}

void render_text(std::ostream& os, std::span<const file_check> files) {
  for (const file_check& f : files) {
    for (const diagnostic& d : f.diagnostics) {
      os << position(f.path, d.at) << ": " << severity_name(d.level) << ": " << d.message << "\n";
      if (d.at.line > 0) {
        const std::string_view line = line_of(f.text, d.at.line);
        if (!line.empty() || d.at.col > 0) source_and_caret(os, line, d.at.col);
      }
      for (const std::string& n : d.notes) os << "  " << n << "\n";
    }
  }
}

std::string github_escape_data(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string github_escape_property(std::string_view s) {
  std::string out;
  for (char c : github_escape_data(s)) {
    switch (c) {
      case ':':
        out += "%3A";
        break;
      case ',':
        out += "%2C";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void render_github(std::ostream& os, std::span<const file_check> files) {
  for (const file_check& f : files) {
    for (const diagnostic& d : f.diagnostics) {
      const std::string_view command = d.level == severity::error     ? "error"
                                       : d.level == severity::warning ? "warning"
                                                                      : "notice";
      std::string props = "file=" + github_escape_property(f.path);
      if (d.at.line > 0) props += fmt::format(",line={}", d.at.line);
      if (d.at.line > 0 && d.at.col > 0) props += fmt::format(",col={}", d.at.col);
      std::string message = d.message;
      for (const std::string& n : d.notes) message += "\n" + n;
      os << "::" << command << " " << props << "::" << github_escape_data(message) << "\n";
    }
  }
}

void render_json(std::ostream& os, std::span<const file_check> files, const summary& s) {
  ojson out_files = ojson::array();
  for (const file_check& f : files) {
    const bool mig_parted = f.input.format == input_format::mig_parted;
    ojson geometries = ojson::array();
    for (const geometry_check& g : f.geometries) geometries.push_back(geometry_json(g, mig_parted));
    ojson diags = ojson::array();
    for (const diagnostic& d : f.diagnostics)
      diags.push_back({{"severity", severity_name(d.level)},
                       {"line", location_json(d.at.line)},
                       {"col", location_json(d.at.line > 0 ? d.at.col : 0)},
                       {"message", d.message},
                       {"notes", d.notes}});
    const std::string_view format = format_name(f.input.format);
    out_files.push_back({{"file", f.path},
                         {"format", format.empty() ? ojson(nullptr) : ojson(format)},
                         {"status", status_name(f.status)},
                         {"geometries", geometries},
                         {"diagnostics", diags}});
  }
  const ojson doc{{"schema_version", json_schema_version},
                  {"files", out_files},
                  {"summary",
                   {{"files", s.files},
                    {"geometries", s.geometries},
                    {"valid", s.valid},
                    {"invalid", s.invalid},
                    {"unchecked", s.unchecked},
                    {"malformed_files", s.malformed_files},
                    {"unreadable_files", s.unreadable_files},
                    {"errors", s.errors},
                    {"warnings", s.warnings},
                    {"notes", s.notes},
                    {"exit_code", s.exit_code}}}};
  // Invalid UTF-8 in a file (a key, a name) must not stop the report: replace it.
  os << doc.dump(2, ' ', false, ojson::error_handler_t::replace) << "\n";
}

}  // namespace migplan::cli::check

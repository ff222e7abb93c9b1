// SPDX-License-Identifier: Apache-2.0
#include "io/plan_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <istream>
#include <iterator>
#include <map>
#include <migplan/compute.hpp>
#include <migplan/lookup.hpp>
#include <optional>
#include <span>
#include <streambuf>
#include <unordered_map>
#include <utility>

#include "io/check_input.hpp"
#include "io/document.hpp"
#include "io/manifest.hpp"
#include "io/names.hpp"
#include "io/plan_input_util.hpp"
#include "io/schema.hpp"
#include "io/size.hpp"
#include "io/source.hpp"
#include "io/text_view.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli {

namespace plan_io {

error first_error(const doc::walker& r) { return error{r.first()}; }

doc::budget plan_budget(std::string_view key, std::size_t most, std::string_view what) {
  doc::budget b;
  b.bytes = max_plan_file_bytes;
  b.reader = "migplan";  // demand, fleet and state files are read by plan, simulate and place
  b.limited_key = key;
  b.limited_most = most;
  b.limited_what = what;
  return b;
}

}  // namespace plan_io

namespace {

using plan_io::csv_fields;
using plan_io::first_error;
using plan_io::lower;
using plan_io::plan_budget;
using plan_io::q;
using plan_io::shown_path;
using plan_io::stop;
using plan_io::suggest;

// ---------------------------------------------------------------------------
// Documents: YAML and JSON files are read into the document layer's tree
// (io/document.hpp) and walked with its schema walker (io/schema.hpp); each
// reader below is its keys plus the conversion into the model's types. Every
// reader stops at the first diagnostic.

using doc::find;
using doc::node;
using doc::value_text;

// ---------------------------------------------------------------------------
// Demand.

constexpr std::string_view demand_top_keys[] = {"version", "demand", "comment"};
constexpr std::string_view demand_item_keys[] = {"name",           "count", "profile", "memory",
                                                 "compute_slices", "sms",   "comment"};
constexpr std::string_view demand_columns[] = {"name",   "count",          "profile",
                                               "memory", "compute_slices", "sms"};

// A compute-instance profile name ("1c.3g.20gb") that some catalog model's GPU
// instance offers, as the catalog spells it; an empty error when `name` is not of
// the form Nc.GI with GI a profile some model has, else why no model offers it.
result<std::string> demand_ci_profile(model_list models, std::string_view name) {
  const std::size_t dot = name.find('.');
  if (dot < 2 || dot == std::string_view::npos || (name[dot - 1] != 'c' && name[dot - 1] != 'C'))
    return error{""};
  const std::string_view gi_name = name.substr(dot + 1);
  std::vector<std::string> offered;
  bool gi_known = false;
  for (const gpu_model* g : models) {
    const int p = find_profile(*g, gi_name);
    if (p < 0) continue;
    gi_known = true;
    const profile& gi = g->profiles[static_cast<std::size_t>(p)];
    if (const int c = find_ci(gi, name); c >= 0)
      return std::string(gi.ci_profiles[static_cast<std::size_t>(c)].name);
    for (const ci_profile& c : gi.ci_profiles)
      if (std::find(offered.begin(), offered.end(), c.name) == offered.end())
        offered.emplace_back(c.name);
  }
  if (!gi_known) return error{""};
  if (offered.empty())
    return error{
        fmt::format("unknown compute-instance profile {}: no source lists the CI "
                    "profiles of {} on any model",
                    q(name), gi_name)};
  return error{fmt::format("unknown compute-instance profile {}: {} offers {}", q(name), gi_name,
                           fmt::join(offered, ", "))};
}

// A profile name as a demand item gives it: a name some catalog model has,
// returned as the catalog spells it; else why not. A misspelt name gets
// suggestions from the profiles of `fleet` when it is known (a typo is
// nearest one of them, not a profile of some other model), else of `models`.
result<std::string> demand_profile(model_list models, std::string_view text, model_list fleet) {
  const std::string_view name = strip_profile_name(text);
  if (name.empty()) return error{"profile is empty"};
  if (std::all_of(name.begin(), name.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
    return error{
        fmt::format("profile {} is a profile ID, and IDs differ between models: name "
                    "the profile (such as 1g.10gb)",
                    q(name))};
  for (const gpu_model* g : models)
    if (const int p = find_profile(*g, name); p >= 0)
      return std::string(g->profiles[static_cast<std::size_t>(p)].name);
  if (const std::size_t at_sign = name.find('@'); at_sign != std::string_view::npos)
    return error{
        fmt::format("{} pins a start, which is not taken here: migplan chooses every "
                    "instance's start itself; ask for {}",
                    q(name), q(name.substr(0, at_sign)))};
  if (name.find('[') != std::string_view::npos)
    return error{
        fmt::format("{} splits a GPU instance with brackets, which is not taken here: "
                    "ask for compute instances as items of their own, such as "
                    "3x1c.3g.20gb",
                    q(name))};
  if (auto ci = demand_ci_profile(models, name))
    return ci;
  else if (!ci.error().message.empty())
    return ci.error();
  if (const std::string how = profile_spelling_hint(models, name); !how.empty())
    return error{fmt::format("invalid profile name {}: {}", q(name), how)};
  const std::vector<std::string> near = all_profile_names(fleet.empty() ? models : fleet);
  const std::string lowered = lower(name);
  if (const std::string why = check::mig_profile_format_error(lowered); !why.empty())
    return error{fmt::format("invalid profile name {}: {}{}", q(name), why, suggest(name, near))};
  if (const std::string note = former_name_note(models, name); !note.empty())
    return error{fmt::format("unknown profile {}: {}", q(name), note)};
  const std::string hint = suggest(name, near);
  return error{fmt::format("unknown profile {}: no model has it{}", q(name),
                           hint.empty() ? "; 'migplan profiles' lists them" : hint)};
}

// What one demand item says, before the checks across its fields.
struct demand_parts {
  std::optional<std::string> name, profile, memory;
  std::optional<long long> count, slices, sms;
  int line = 0;
};

// The item `parts` describe, or why it is not one.
result<demand_item> make_demand(model_list models, const demand_parts& parts, model_list fleet) {
  demand_item d;
  if (!parts.count) return error{"the item has no count"};
  if (parts.profile && parts.memory)
    return error{"the item gives both a profile and a memory need; give one"};
  if (!parts.profile && !parts.memory)
    return error{"the item needs a profile (such as 1g.10gb) or a memory need (such as 30GiB)"};
  d.count = *parts.count;
  if (parts.profile) {
    if (parts.slices || parts.sms)
      return error{fmt::format("{} is only for items sized by memory: a profile fixes its own",
                               parts.slices ? "compute_slices" : "sms")};
    auto p = demand_profile(models, *parts.profile, fleet);
    if (!p) return p.error();
    d.profile = *p;
    d.name = parts.name ? *parts.name : d.profile;
  } else {
    auto mib = parse_size_mib(trim(*parts.memory));
    if (!mib) return error{"memory: " + mib.error().message};
    d.memory_mib = *mib;
    if (parts.slices) d.compute_slices = static_cast<int>(*parts.slices);
    if (parts.sms) d.sms = static_cast<int>(*parts.sms);
    d.name = parts.name ? *parts.name : "mem=" + std::string(trim(*parts.memory));
  }
  return d;
}

// Adds an item, refusing a name given before.
bool add_demand(doc::walker& r, std::vector<demand_item>& out, std::map<std::string, int>& lines,
                demand_item d, int line) {
  auto [it, fresh] = lines.try_emplace(d.name, line);
  if (!fresh) {
    r.fail(line, fmt::format("demand item {} is given twice (first at line {}); add up the "
                             "counts or give each a distinct name",
                             q(d.name), it->second));
    return false;
  }
  d.where = position_text(r.file(), line);
  out.push_back(std::move(d));
  return true;
}

result<std::vector<demand_item>> demand_from_tree(model_list models, std::string_view text,
                                                  std::string_view shown, bool json,
                                                  model_list fleet) {
  doc::walker r(shown);
  const auto root = doc::read_document(text, shown, json,
                                       plan_budget("demand", max_demand_items, "demand items"));
  if (!root) return error{root.error()};
  if (!r.top_mapping(*root, "demand file", "'version: 1' and 'demand'")) return first_error(r);
  const auto top = r.fields(*root, demand_top_keys, "the top level");
  if (!r.ok() || !r.version(top, "demand files")) return first_error(r);
  const doc::field* list_field = r.need(
      top, "demand", 1, "(a list of items, each with a count and a profile or a memory need)");
  const node* items = list_field ? r.list(*list_field, "a list of demand items") : nullptr;
  if (items == nullptr) return first_error(r);
  if (items->size() == 0)
    return stop(r, list_field->at(), "'demand' is empty: list at least one item");
  std::vector<demand_item> out;
  std::map<std::string, int> lines;
  for (const node& item : items->kids) {
    const int line = item.line_or(list_field->line());
    if (!plan_io::mapping(r, item, line,
                          "each demand item must be a mapping with a count and a profile or a "
                          "memory need"))
      return first_error(r);
    const auto fs = r.fields(item, demand_item_keys, "a demand item", plan_io::demand_key_hints);
    demand_parts parts;
    parts.line = line;
    if (const doc::field* f = find(fs, "name"))
      parts.name = r.name(*f, "name", max_plan_name_length);
    if (const doc::field* f = find(fs, "count"))
      parts.count = r.whole(*f, "count", 1, max_demand_count);
    if (const doc::field* f = find(fs, "profile")) {
      parts.profile = r.text(*f, "profile");
      if (parts.profile)
        if (auto p = demand_profile(models, *parts.profile, fleet); !p)
          r.fail(f->at(), p.error().message);
    }
    if (const doc::field* f = find(fs, "memory")) {
      parts.memory = r.text(*f, "memory");
      if (parts.memory)
        if (auto m = parse_size_mib(trim(*parts.memory)); !m)
          r.fail(f->at(), "memory: " + m.error().message);
    }
    if (const doc::field* f = find(fs, "compute_slices"))
      parts.slices = r.whole(*f, "compute_slices", 1, max_demand_slices);
    if (const doc::field* f = find(fs, "sms")) parts.sms = r.whole(*f, "sms", 1, max_demand_sms);
    if (!r.ok()) return first_error(r);
    auto d = make_demand(models, parts, fleet);
    if (!d) r.fail(line, d.error().message);
    if (!r.ok() || !add_demand(r, out, lines, std::move(*d), line)) return first_error(r);
  }
  return out;
}

result<std::vector<demand_item>> demand_from_csv(model_list models, std::string_view text,
                                                 std::string_view shown, model_list fleet) {
  doc::walker r(shown);
  text = skip_bom(text);
  std::vector<std::string> header;
  int header_line = 0;
  std::vector<demand_item> out;
  std::map<std::string, int> lines;
  const std::vector<std::string> column_names(std::begin(demand_columns), std::end(demand_columns));
  plan_io::data_lines rows(text);
  while (const auto line = rows.next()) {
    const int line_no = rows.number();
    auto cells = csv_fields(*line);
    if (!cells) return stop(r, line_no, cells.error().message);
    if (header.empty()) {
      header_line = line_no;
      for (const std::string& c : *cells) {
        const std::string name = lower(c);
        if (std::find(column_names.begin(), column_names.end(), name) == column_names.end())
          return stop(
              r, line_no,
              fmt::format("unknown column {} in the header{}; the columns are {}", q(c),
                          doc::unknown_key_hint(name, column_names, plan_io::demand_key_hints),
                          fmt::join(demand_columns, ", ")));
        if (std::find(header.begin(), header.end(), name) != header.end())
          return stop(r, line_no, fmt::format("column {} is named twice in the header", q(name)));
        header.push_back(name);
      }
      const auto has = [&](std::string_view c) {
        return std::find(header.begin(), header.end(), c) != header.end();
      };
      if (!has("count") || has("profile") == has("memory"))
        return stop(r, line_no,
                    "the header must name the columns name, count and profile (or memory), such "
                    "as 'name,count,profile'");
      if ((has("compute_slices") || has("sms")) && !has("memory"))
        return stop(r, line_no,
                    "compute_slices and sms columns are only for items sized by memory");
      continue;
    }
    if (cells->size() != header.size())
      return stop(r, line_no,
                  fmt::format("{} field{} where the header (line {}) names {}", cells->size(),
                              plural(cells->size()), header_line, header.size()));
    if (out.size() == max_demand_items)
      return stop(r, line_no,
                  fmt::format("more than {} demand items; the most a file may list is {}",
                              max_demand_items, max_demand_items));
    demand_parts parts;
    parts.line = line_no;
    for (std::size_t c = 0; c < header.size() && r.ok(); ++c) {
      const std::string& col = header[c];
      const std::string& v = (*cells)[c];
      if (col == "name") {
        if (v.empty()) continue;
        if (v.size() > max_plan_name_length)
          r.fail(line_no,
                 fmt::format("name {} is longer than {} characters", q(v), max_plan_name_length));
        else if (const std::string why = doc::name_problem(v); !why.empty())
          r.fail(line_no, fmt::format("name {} holds {}", q(v), why));
        parts.name = v;
        continue;
      }
      const auto number = [&](std::string_view what, long long high) -> std::optional<long long> {
        auto n = parse_whole_number(what, v, 1, high);
        if (n) return *n;
        r.fail(line_no, n.error().message);
        return std::nullopt;
      };
      if (col == "count")
        parts.count = number("count", max_demand_count);
      else if (col == "compute_slices" && !v.empty())
        parts.slices = number("compute_slices", max_demand_slices);
      else if (col == "sms" && !v.empty())
        parts.sms = number("sms", max_demand_sms);
      else if (col == "profile")
        parts.profile = v;
      else if (col == "memory")
        parts.memory = v;
    }
    if (!r.ok()) return first_error(r);
    auto d = make_demand(models, parts, fleet);
    if (!d) return stop(r, line_no, d.error().message);
    if (!add_demand(r, out, lines, std::move(*d), line_no)) return first_error(r);
  }
  if (header.empty())
    return stop(r, 0, "no header: a demand csv starts with a header such as 'name,count,profile'");
  if (out.empty()) return stop(r, header_line, "no demand items after the header");
  return out;
}

}  // namespace

result<std::vector<std::string>> plan_io::csv_fields(std::string_view line,
                                                     std::vector<std::size_t>* starts) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (starts != nullptr) starts->push_back(i);
    std::string value;
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (true) {
        // A line break in quotes (RFC 4180 allows one) is not read: every
        // reader counts a row a line, and a missing quote reads the same.
        if (i >= line.size())
          return error{
              "a quoted field is not closed on the line where it starts: a field may not hold a "
              "line break"};
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            value += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        value += line[i++];
      }
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i < line.size() && line[i] != ',')
        return error{"text after a quoted field; put the whole field in quotes"};
    } else {
      const std::size_t comma = line.find(',', i);
      value =
          std::string(trim(line.substr(i, comma == std::string_view::npos ? comma : comma - i)));
      i = comma == std::string_view::npos ? line.size() : comma;
    }
    out.push_back(std::move(value));
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return out;
}

yaml_kind yaml_kind_of(std::string_view text) {
  static constexpr std::pair<std::string_view, yaml_kind> telling[] = {
      {"demand", yaml_kind::demand}, {"pods", yaml_kind::trace},
      {"models", yaml_kind::fleet},  {"nodes", yaml_kind::nodes},
      {"gpus", yaml_kind::geometry}, {"mig-configs", yaml_kind::mig_parted}};
  text_lines lines(skip_bom(text.substr(0, std::size_t{64} << 10)));
  while (const auto next = lines.next()) {
    const std::string_view line = *next;
    // A top-level key starts its line: not indented, no list item, no comment.
    if (line.empty() || line.front() == ' ' || line.front() == '\t' || line.front() == '#' ||
        line.front() == '-')
      continue;
    if (line.front() == '{' || line.front() == '[') return yaml_kind::unknown;  // flow style
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, colon));
    if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'') && key.back() == key.front())
      key = key.substr(1, key.size() - 2);
    for (const auto& [name, kind] : telling)
      if (key == name) return kind;
  }
  return yaml_kind::unknown;
}

std::string_view describe(yaml_kind kind) {
  switch (kind) {
    case yaml_kind::demand:
      return "a migplan demand file (version: 1, demand: ...)";
    case yaml_kind::trace:
      return "a migplan trace (version: 1, pods: ...)";
    case yaml_kind::fleet:
      return "a migplan fleet file (version: 1, models: ...)";
    case yaml_kind::nodes:
      return "a migplan state or fleet file (version: 1, nodes: ...)";
    case yaml_kind::geometry:
      return "a migplan geometry file (version: 1, gpus: ...)";
    case yaml_kind::mig_parted:
      return "a mig-parted config (version: v1, mig-configs: ...)";
    case yaml_kind::unknown:
      break;
  }
  return "a file of unknown kind";
}

std::optional<error> wrong_kind(std::string_view text, plan_file_format format,
                                std::string_view shown, std::initializer_list<yaml_kind> takes,
                                std::string_view wanted) {
  if (format != plan_file_format::yaml) return std::nullopt;
  const yaml_kind kind = yaml_kind_of(text);
  if (kind == yaml_kind::unknown || std::find(takes.begin(), takes.end(), kind) != takes.end())
    return std::nullopt;
  return error{fmt::format("{} is {}; {}", q(shown), describe(kind), wanted)};
}

plan_file_format plan_format_of(const std::string& path, std::string_view text) {
  if (path != "-") {
    const std::string ext = lower(std::filesystem::path(path).extension().string());
    if (ext == ".json") return plan_file_format::json;
    if (ext == ".csv") return plan_file_format::csv;
    if (ext == ".yaml" || ext == ".yml") return plan_file_format::yaml;
  }
  const std::string_view t = skip_bom(text);
  const std::size_t first = t.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (t[first] == '{' || t[first] == '['))
    return plan_file_format::json;
  // The first line that is not blank or a comment: a CSV header has commas
  // and no ':' (a YAML mapping line has a ':').
  if (const auto line = plan_io::data_lines(t).next())
    if (line->find(',') != std::string_view::npos && line->find(':') == std::string_view::npos)
      return plan_file_format::csv;
  return plan_file_format::yaml;
}

result<std::string> read_plan_file(const std::string& path, std::istream& in,
                                   std::string_view command, std::size_t limit) {
  const std::string shown = shown_path(path);
  bool too_large = false;
  auto text = read_source_bounded(path, in, limit, too_large);
  if (text) return text;
  if (too_large)
    return error{fmt::format("{} is {}, the most {} reads of one file", q(shown),
                             text.error().message, command)};
  return error{fmt::format("cannot read {}: {}", q(shown), text.error().message)};
}

result<std::vector<demand_item>> parse_demand(model_list models, std::string_view text,
                                              std::string_view shown, plan_file_format format,
                                              model_list fleet) {
  if (format == plan_file_format::csv) return demand_from_csv(models, text, shown, fleet);
  return demand_from_tree(models, text, shown, format == plan_file_format::json, fleet);
}

result<std::vector<demand_item>> read_demand(model_list models, const std::string& path,
                                             std::istream& in, model_list fleet) {
  auto text = read_plan_file(path, in, "plan");
  if (!text) return text.error();
  const plan_file_format format = plan_format_of(path, *text);
  if (auto e = wrong_kind(*text, format, shown_path(path), {yaml_kind::demand},
                          "--demand takes a demand file (version: 1, demand: ...)"))
    return *e;
  return parse_demand(models, *text, shown_path(path), format, fleet);
}

result<demand_item> parse_demand_word(model_list models, std::string_view word, model_list fleet) {
  std::string_view rest = word;
  long long count = 1;
  // A count is digits before the 'x', a sign allowed so that "-3x1g.10gb"
  // is told its count is out of range, not that it is no profile name.
  const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  if (const std::size_t x = rest.find_first_of("xX");
      x != std::string_view::npos && x + 1 < rest.size() &&
      x > (rest[0] == '-' || rest[0] == '+' ? 1u : 0u) &&
      std::all_of(rest.begin() + (rest[0] == '-' || rest[0] == '+' ? 1 : 0),
                  rest.begin() + static_cast<std::ptrdiff_t>(x), is_digit)) {
    auto n = parse_whole_number("count", rest.substr(0, x), 1, max_demand_count);
    if (!n) return n.error();
    count = *n;
    rest.remove_prefix(x + 1);
  }
  demand_parts parts;
  parts.count = count;
  const std::string low = lower(rest);
  if (low.starts_with("mem=")) {
    std::string_view spec = rest.substr(4);
    const std::size_t colon = spec.find(':');
    parts.memory = std::string(spec.substr(0, colon));
    std::string_view opts = colon == std::string_view::npos ? "" : spec.substr(colon + 1);
    while (!opts.empty()) {
      const std::size_t next = opts.find(':');
      const std::string_view opt = opts.substr(0, next);
      opts = next == std::string_view::npos ? "" : opts.substr(next + 1);
      const std::size_t eq = opt.find('=');
      const std::string key = lower(opt.substr(0, eq));
      const std::string_view value = eq == std::string_view::npos ? "" : opt.substr(eq + 1);
      if (key == "sms") {
        auto v = parse_whole_number("sms", value, 1, max_demand_sms);
        if (!v) return v.error();
        parts.sms = *v;
      } else if (key == "slices") {
        auto v = parse_whole_number("slices", value, 1, max_demand_slices);
        if (!v) return v.error();
        parts.slices = *v;
      } else {
        return error{
            fmt::format("unknown option {} in {}: a memory item is "
                        "[Nx]mem=SIZE[:sms=N][:slices=N]",
                        q(opt), q(word))};
      }
    }
    parts.name = "mem=" + std::string(spec);
  } else {
    parts.profile = std::string(rest);
  }
  auto d = make_demand(models, parts, fleet);
  if (!d) return d.error();
  return d;
}

}  // namespace migplan::cli

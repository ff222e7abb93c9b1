// SPDX-License-Identifier: Apache-2.0
#include "io/trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "io/document.hpp"
#include "io/plan_input_util.hpp"
#include "io/schema.hpp"
#include "io/size.hpp"
#include "io/source.hpp"
#include "io/text_view.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

using plan_io::lower;
using plan_io::q;
using plan_io::suggest;

// Days from 1970-01-01 to a civil date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool digits(std::string_view s, std::size_t from, std::size_t n, int& out) {
  if (from + n > s.size()) return false;
  out = 0;
  for (std::size_t i = from; i < from + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// What an item word asks for: parse_demand_word's item, or "[Nx]gpu".
struct parsed_item {
  trace_need need = trace_need::item;
  demand_item item;
  int instances = 1;
};

result<parsed_item> parse_trace_item(model_list models, std::string_view word, model_list fleet) {
  if (word.empty())
    return error{
        "the item is empty: give a profile (such as 1g.10gb), "
        "mem=SIZE, or gpu for a whole GPU"};
  parsed_item out;
  const std::string low = lower(word);
  const std::size_t x = low.find('x');
  std::string_view rest = word;
  if (low == "gpu" || (x != std::string::npos && low.substr(x + 1) == "gpu")) {
    if (low != "gpu") {
      auto n =
          parse_whole_number("the count of whole GPUs", word.substr(0, x), 1, max_pod_instances);
      if (!n) return n.error();
      out.instances = static_cast<int>(*n);
    }
    out.need = trace_need::whole;
    return out;
  }
  auto d = parse_demand_word(models, rest, fleet);
  if (!d) return d.error();
  if (d->count > max_pod_instances)
    return error{fmt::format("{} asks for {} instances in one pod; the most is {}", q(word),
                             d->count, max_pod_instances)};
  out.instances = static_cast<int>(d->count);
  out.item = std::move(*d);
  out.item.count = 1;
  return out;
}

// Reads rows into a trace. Each step returns false once it keeps a problem in
// the walker (the first is the reader's error).
struct reader {
  reader(model_list known, model_list replayed, std::string_view shown)
      : models(known), fleet(replayed), w(shown) {}
  model_list models;  // what an item's profile names resolve among
  model_list fleet;   // the models replayed, when known: a misspelt profile's suggestions
  doc::walker w;
  std::unordered_map<std::string, parsed_item> items;  // each distinct word parsed once
  long long pods = 0;

  bool fail(doc::position at, std::string message) {
    w.fail(at, std::move(message));
    return false;
  }
  bool fail(int line, std::string message) { return fail({line, 0, 0}, std::move(message)); }
  bool time(doc::position at, std::string_view what, std::string_view text, std::int64_t& out) {
    auto t = parse_trace_time(text);
    if (!t) return fail(at, fmt::format("{}: {}", what, t.error().message));
    out = *t;
    // Which form it was written in, as parse_trace_time tells them apart.
    const bool seconds = trim(text).find_first_not_of("0123456789-+") == std::string_view::npos;
    int& first = seconds ? first_seconds : first_date;
    if (first == 0) first = at.line;
    // A fraction of a second that is not zero ("08:00:00.5Z") is dropped:
    // the replay counts whole seconds.
    if (const std::size_t dot = text.find('.'); !seconds && dot != std::string_view::npos) {
      const std::size_t end = text.find_first_not_of("0123456789", dot + 1);
      if (text.find_first_of("123456789", dot) < end) {
        if (first_fraction == 0) first_fraction = at.line;
        ++fractions;
      }
    }
    return true;
  }
  bool count(doc::position at, std::string_view text, trace_row& row) {
    auto n = parse_whole_number("count", text, 1, max_trace_pods);
    if (!n) return fail(at, n.error().message);
    row.count = *n;
    return true;
  }
  bool item(doc::position at, std::string_view text, trace_row& row) {
    auto it = items.find(std::string(text));
    if (it == items.end()) {
      auto p = parse_trace_item(models, text, fleet);
      if (!p) return fail(at, p.error().message);
      it = items.emplace(std::string(text), std::move(*p)).first;
    }
    row.need = it->second.need;
    row.item = it->second.item;
    row.instances = it->second.instances;
    return true;
  }
  bool add(trace& out, trace_row row, int line) {
    if (row.end && *row.end < row.start)
      return fail(line,
                  fmt::format("the pod ends ({}) before it starts ({})", *row.end, row.start));
    if ((pods += row.count) > max_trace_pods)
      return fail(line, fmt::format("more than {} pods; the most a trace may hold is {}",
                                    max_trace_pods, max_trace_pods));
    row.file = w.file();
    row.line = line;
    out.rows.push_back(std::move(row));
    return true;
  }
  // The trace, or the first problem as the one-line error plan's readers give.
  result<trace> answer(trace&& t) const {
    if (!w.ok()) return error{w.first()};
    // Seconds count from 1970 once a date is in the trace: "600" beside
    // "2023-07-01T00:10:00Z" is 53 years before it, not ten minutes.
    // The span is said only where it is a year or more: seconds that are
    // themselves epoch times (1688170000) lie beside the dates.
    if (first_seconds != 0 && first_date != 0 && !t.rows.empty()) {
      std::int64_t lo = t.rows.front().start, hi = lo;
      for (const trace_row& r : t.rows) {
        lo = std::min(lo, r.start);
        hi = std::max(hi, r.end.value_or(r.start));
      }
      constexpr std::int64_t year = 31'557'600;  // 365.25 days
      const std::int64_t years = (hi - lo) / year;
      t.warnings.push_back(fmt::format(
          "{}: times mix whole seconds (line {}) and RFC 3339 dates (line {}); seconds count "
          "from 1970-01-01T00:00:00Z{}: write every time one way",
          w.file(), first_seconds, first_date,
          years > 0 ? fmt::format(", so the trace spans {} year{}", years, plural(years)) : ""));
    }
    if (fractions > 0)
      t.warnings.push_back(fmt::format(
          "{}:{}: {} time{} with a fraction of a second, taken as the whole second it is in: "
          "simulate replays whole seconds",
          w.file(), first_fraction, fractions, plural(fractions)));
    return std::move(t);
  }
  int first_seconds = 0;   // line of the first time in whole seconds; 0: none yet
  int first_date = 0;      // line of the first RFC 3339 time
  int first_fraction = 0;  // line of the first time with a fraction of a second
  long long fractions = 0;
};

constexpr std::array<std::string_view, 5> trace_columns{"name", "start", "end", "count", "item"};
constexpr std::array<std::string_view, 11> alibaba_columns{
    "name", "cpu_milli", "memory_mib",    "num_gpu",       "gpu_milli",     "gpu_spec",
    "qos",  "pod_phase", "creation_time", "deletion_time", "scheduled_time"};
using columns = std::array<int, alibaba_columns.size()>;  // each known name's column, or -1

bool header_columns(reader& r, const std::vector<std::string>& header, bool alibaba, int line,
                    columns& col) {
  const auto known = alibaba ? std::span<const std::string_view>(alibaba_columns)
                             : std::span<const std::string_view>(trace_columns);
  col.fill(-1);
  for (std::size_t i = 0; i < header.size(); ++i) {
    const auto it = std::find(known.begin(), known.end(), header[i]);
    if (it == known.end() && alibaba) continue;  // a later release may add columns
    if (it == known.end())
      return r.fail(
          line, fmt::format("unknown column {} in the header{}; the columns are {}", q(header[i]),
                            doc::unknown_key_hint(
                                header[i], std::vector<std::string>(known.begin(), known.end()),
                                plan_io::trace_key_hints),
                            "name, start, end, count and item"));
    int& c = col[static_cast<std::size_t>(it - known.begin())];
    if (c >= 0) return r.fail(line, fmt::format("column {} is named twice in the header", q(*it)));
    c = static_cast<int>(i);
  }
  if (alibaba) {
    for (const std::size_t k : {3u, 4u, 8u})
      if (col[k] < 0)
        return r.fail(line, fmt::format("an Alibaba pod list needs the column {} (num_gpu, "
                                        "gpu_milli and creation_time at least){}",
                                        q(alibaba_columns[k]),
                                        k == 8 ? "; a list without times, such as "
                                                 "openb_pod_list_multigpu50.csv, does not replay"
                                               : ""));
  } else if (col[1] < 0 || col[4] < 0) {
    return r.fail(line,
                  "the header must name the columns start and item (and may name name, end and "
                  "count), such as 'name,start,end,count,item'");
  }
  return true;
}

// One Alibaba pod-list row into `row`: false when it is skipped (no GPU) or
// wrong.
bool alibaba_row(reader& r, trace& out, trace_row& row, auto cell, int line) {
  auto gpus = parse_whole_number("num_gpu", cell(3), 0, max_pod_instances);
  if (!gpus) return r.fail(line, gpus.error().message);
  if (*gpus == 0) {
    ++out.skipped;
    return false;
  }
  auto milli = parse_whole_number("gpu_milli", cell(4), 1, 1000);
  if (!milli) return r.fail(line, milli.error().message);
  if (*milli < 1000 && *gpus > 1)
    return r.fail(line, fmt::format("num_gpu {} with gpu_milli {}: a pod shares at most one GPU; "
                                    "several GPUs are whole (gpu_milli 1000)",
                                    *gpus, *milli));
  if (*milli == 1000) {
    row.need = trace_need::whole;
    row.instances = static_cast<int>(*gpus);
  } else {
    row.need = trace_need::share;
    row.milli = static_cast<int>(*milli);
  }
  return r.time({line, 0, 0}, "creation_time", cell(8), row.start) &&
         (cell(9).empty() || r.time({line, 0, 0}, "deletion_time", cell(9), row.end.emplace()));
}

// One row of migplan's own columns into `row`, or false.
bool own_row(reader& r, trace_row& row, auto cell, int line) {
  const doc::position at{line, 0, 0};
  return r.time(at, "start", cell(1), row.start) &&
         (cell(2).empty() || r.time(at, "end", cell(2), row.end.emplace())) &&
         (cell(3).empty() || r.count(at, cell(3), row)) && r.item(at, cell(4), row);
}

result<trace> trace_from_csv(model_list models, std::string_view text, std::string_view shown,
                             model_list fleet) {
  reader r(models, fleet, shown);
  text = skip_bom(text);
  trace out;
  std::vector<std::string> header;
  columns col{};
  int header_line = 0;
  plan_io::data_lines rows(text);
  while (r.w.ok()) {
    const auto line = rows.next();
    if (!line) break;
    const int line_no = rows.number();
    std::vector<std::size_t> starts;
    auto cells = plan_io::csv_fields(*line, &starts);
    if (!cells) {
      r.fail(line_no, cells.error().message);
    } else if (header.empty()) {
      header_line = line_no;
      for (const std::string_view c : *cells) header.push_back(lower(c));
      out.alibaba = std::find(header.begin(), header.end(), "gpu_milli") != header.end();
      header_columns(r, header, out.alibaba, line_no, col);
    } else if (cells->size() != header.size()) {
      r.fail(line_no, fmt::format("{} field{} where the header (line {}) names {}", cells->size(),
                                  plural(cells->size()), header_line, header.size()));
    } else {
      const auto cell = [&](std::size_t k) -> std::string_view {
        return col[k] < 0 ? std::string_view{} : (*cells)[static_cast<std::size_t>(col[k])];
      };
      trace_row row;
      row.name = std::string(cell(0));
      // A pod's name reaches the report and --json: no control character or
      // byte that is not UTF-8, at the column where its field starts.
      if (const std::string why = doc::name_problem(row.name); !why.empty()) {
        const std::size_t at = static_cast<std::size_t>(line->data() - text.data()) +
                               starts[static_cast<std::size_t>(col[0])];
        const text_position p = line_table(text).position(at);
        r.fail({p.line, p.column, at}, fmt::format("name {} holds {}", q(row.name), why));
      } else if (out.alibaba ? alibaba_row(r, out, row, cell, line_no)
                             : own_row(r, row, cell, line_no)) {
        r.add(out, std::move(row), line_no);
      }
    }
  }
  if (r.w.ok() && header.empty())
    r.fail(0, "no header: a trace csv starts with a header such as 'name,start,end,count,item'");
  if (r.w.ok() && out.rows.empty()) {
    // An Alibaba list of CPU pods alone says so, not only that none is left.
    std::string why = "no pods after the header";
    if (out.skipped == 1) why += ": its one row has num_gpu 0 (no GPU)";
    if (out.skipped > 1) why += fmt::format(": all {} rows have num_gpu 0 (no GPU)", out.skipped);
    r.fail(header_line, why);
  }
  return r.answer(std::move(out));
}

constexpr std::string_view top_keys[] = {"version", "pods", "comment"};
constexpr std::string_view pod_keys[] = {"name", "start", "end", "count", "item", "comment"};

// One pod of a YAML or JSON trace, or false. Times, counts and items are
// read from their text, quoted or not, as the CSV cells are.
bool pod_row(reader& r, trace& out, const doc::node& pod, int line) {
  doc::walker& w = r.w;
  if (!plan_io::mapping(w, pod, line, "each pod must be a mapping with a start and an item"))
    return false;
  const auto fs = w.fields(pod, pod_keys, "a pod", plan_io::trace_key_hints);
  const doc::field* start = w.need(fs, "start", line, "(a pod has a start and an item)");
  const doc::field* item = w.need(fs, "item", line, "(a pod has a start and an item)");
  const doc::field* name = doc::find(fs, "name");
  const doc::field* end = doc::find(fs, "end");
  const doc::field* count = doc::find(fs, "count");
  if (!w.ok()) return false;
  trace_row row;
  std::optional<std::string> s;
  if (name != nullptr && !name->value->is_null() && (s = w.text(*name, "name"))) {
    // An escape ("\u0001") gets past the parser's check of UTF-8.
    if (const std::string why = doc::name_problem(*s); !why.empty())
      return r.fail(name->at(), fmt::format("name {} holds {}", q(*s), why));
    row.name = *s;
  }
  if (!w.ok() || !(s = w.text(*start, "start")) || !r.time(start->at(), "start", *s, row.start))
    return false;
  if (end != nullptr && !end->value->is_null() &&
      (!(s = w.text(*end, "end")) || !r.time(end->at(), "end", *s, row.end.emplace())))
    return false;
  if (count != nullptr && (!(s = w.text(*count, "count")) || !r.count(count->at(), *s, row)))
    return false;
  // An empty item reaches parse_trace_item, whose message says what an item is.
  s = item->value->is_null() ? std::optional<std::string>("") : w.text(*item, "item");
  return s && r.item(item->at(), *s, row) && r.add(out, std::move(row), line);
}

result<trace> trace_from_document(model_list models, std::string_view text, std::string_view shown,
                                  bool json, model_list fleet) {
  reader r(models, fleet, shown);
  doc::walker& w = r.w;
  doc::budget limits;
  limits.bytes = max_trace_bytes;
  limits.reader = "simulate";
  limits.limited_key = "pods";
  limits.limited_most = static_cast<std::size_t>(max_trace_pods);
  limits.limited_what = "pods";
  const auto root = doc::read_document(text, shown, json, limits);
  if (!root) return error{root.error()};
  trace out;
  if (!w.top_mapping(*root, "trace file", "'version: 1' and 'pods'")) return r.answer({});
  const auto top = w.fields(*root, top_keys, "the top level");
  if (!w.ok() || !w.version(top, "trace files")) return r.answer({});
  const doc::field* list =
      w.need(top, "pods", 1, "(a list of pods, each with a start and an item)");
  const doc::node* pods = list ? w.list(*list, "a list of pods") : nullptr;
  if (pods != nullptr && pods->size() == 0)
    r.fail(list->at(), "'pods' is empty: list at least one pod");
  for (std::size_t i = 0; w.ok() && i < pods->kids.size(); ++i)
    pod_row(r, out, pods->kids[i], pods->kids[i].line_or(list->line()));
  return r.answer(std::move(out));
}

}  // namespace

result<std::int64_t> parse_trace_time(std::string_view text) {
  text = trim(text);
  if (text.empty()) return error{"the time is empty"};
  if (text.find_first_not_of("0123456789-+") == std::string_view::npos) {
    std::int64_t v = 0;
    const char* first = text.data() + (text.front() == '+' ? 1 : 0);
    const auto [p, ec] = std::from_chars(first, text.data() + text.size(), v);
    if (ec != std::errc{} || p != text.data() + text.size() || v > max_trace_time ||
        v < -max_trace_time)
      return error{
          fmt::format("{} is no whole number of seconds within {}", q(text), max_trace_time)};
    return v;
  }
  // RFC 3339: YYYY-MM-DD(T|t| )hh:mm:ss[.frac](Z|z|(+|-)hh:mm)
  const std::string bad = fmt::format(
      "{} is no time: write whole seconds or RFC 3339, such as 2023-07-01T08:00:00Z", q(text));
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (text.size() < 20 || !digits(text, 0, 4, y) || text[4] != '-' || !digits(text, 5, 2, mo) ||
      text[7] != '-' || !digits(text, 8, 2, d) ||
      (text[10] != 'T' && text[10] != 't' && text[10] != ' ') || !digits(text, 11, 2, h) ||
      text[13] != ':' || !digits(text, 14, 2, mi) || text[16] != ':' || !digits(text, 17, 2, s))
    return error{bad};
  std::size_t i = 19;
  if (i < text.size() && text[i] == '.') {
    ++i;
    const std::size_t from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == from) return error{bad};
  }
  int offset = 0;
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z')) {
    ++i;
  } else if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    int oh = 0, om = 0;
    if (!digits(text, i + 1, 2, oh) || i + 3 >= text.size() || text[i + 3] != ':' ||
        !digits(text, i + 4, 2, om) || oh > 23 || om > 59)
      return error{bad};
    offset = (text[i] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    i += 6;
  } else {
    return error{bad + " (the offset, Z or +hh:mm, is missing)"};
  }
  if (i != text.size()) return error{bad};
  constexpr std::array<int, 12> month_days{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo < 1 || mo > 12 || d < 1 || d > month_days[static_cast<std::size_t>(mo - 1)] ||
      (mo == 2 && d == 29 && !leap) || h > 23 || mi > 59 || s > 60)
    return error{fmt::format("{} is no date and time of the calendar", q(text))};
  return days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
         h * 3600 + mi * 60 + std::min(s, 59) - offset;
}

result<trace> parse_trace(model_list models, std::string_view text, std::string_view shown,
                          plan_file_format format, model_list fleet) {
  if (format == plan_file_format::csv) return trace_from_csv(models, text, shown, fleet);
  return trace_from_document(models, text, shown, format == plan_file_format::json, fleet);
}

result<trace> read_trace(model_list models, const std::string& path, std::istream& in,
                         model_list fleet) {
  auto text = read_plan_file(path, in, "simulate", max_trace_bytes);
  if (!text) return text.error();
  const plan_file_format format = plan_format_of(path, *text);
  if (auto e = wrong_kind(*text, format, plan_io::shown_path(path), {yaml_kind::trace},
                          "--trace takes a trace (version: 1, pods: ...)"))
    return *e;
  return parse_trace(models, *text, plan_io::shown_path(path), format, fleet);
}

}  // namespace migplan::cli

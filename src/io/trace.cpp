// SPDX-License-Identifier: Apache-2.0
#include "io/trace.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <unordered_map>
#include <utility>
#include <vector>

#include "io/plan_input_util.hpp"
#include "io/size.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

using plan_io::at;
using plan_io::lower;
using plan_io::q;
using plan_io::stop;
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

result<parsed_item> parse_item(std::string_view word) {
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
  auto d = parse_demand_word(rest);
  if (!d) return d.error();
  if (d->count > max_pod_instances)
    return error{fmt::format("{} asks for {} instances in one pod; the most is {}", q(word),
                             d->count, max_pod_instances)};
  out.instances = static_cast<int>(d->count);
  out.item = std::move(*d);
  out.item.count = 1;
  return out;
}

class reader {
 public:
  explicit reader(std::string_view shown) : shown_(shown) {}
  [[noreturn]] void fail(int line, std::string_view message) const {
    throw stop{at(shown_, line, message)};
  }
  std::int64_t time(int line, std::string_view what, std::string_view text) const {
    auto t = parse_trace_time(text);
    if (!t) fail(line, fmt::format("{}: {}", what, t.error().message));
    return *t;
  }
  const parsed_item& item(int line, std::string_view text) {
    auto it = items_.find(std::string(text));
    if (it != items_.end()) return it->second;
    auto p = parse_item(text);
    if (!p) fail(line, p.error().message);
    return items_.emplace(std::string(text), std::move(*p)).first->second;
  }
  void add(trace& out, trace_row row, int line) {
    if (row.end && *row.end < row.start)
      fail(line, fmt::format("the pod ends ({}) before it starts ({})", *row.end, row.start));
    pods_ += row.count;
    if (pods_ > max_trace_pods)
      fail(line, fmt::format("more than {} pods; the most a trace may hold is {}", max_trace_pods,
                             max_trace_pods));
    row.where = fmt::format("{}:{}", shown_, line);
    out.rows.push_back(std::move(row));
  }
  void apply(trace_row& row, const parsed_item& p) const {
    row.need = p.need;
    row.item = p.item;
    row.instances = p.instances;
  }

 private:
  std::string shown_;
  std::unordered_map<std::string, parsed_item> items_;
  long long pods_ = 0;
};

constexpr std::array<std::string_view, 5> trace_columns{"name", "start", "end", "count", "item"};
constexpr std::array<std::string_view, 11> alibaba_columns{
    "name", "cpu_milli", "memory_mib",    "num_gpu",       "gpu_milli",     "gpu_spec",
    "qos",  "pod_phase", "creation_time", "deletion_time", "scheduled_time"};

std::vector<std::string> names_of(std::span<const std::string_view> v) {
  return {v.begin(), v.end()};
}

trace trace_from_csv(std::string_view text, std::string_view shown) {
  reader r(shown);
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  trace out;
  std::vector<std::string> header;
  std::array<int, alibaba_columns.size()> col{};  // column of each known name, -1
  int header_line = 0;
  int line_no = 0;
  for (std::size_t from = 0; from <= text.size();) {
    const std::size_t nl = text.find('\n', from);
    const std::string_view raw =
        text.substr(from, nl == std::string_view::npos ? std::string_view::npos : nl - from);
    from = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    auto cells = plan_io::csv_fields(line);
    if (!cells) r.fail(line_no, cells.error().message);
    if (header.empty()) {
      header_line = line_no;
      for (const std::string_view c : *cells) header.push_back(lower(c));
      out.alibaba = std::find(header.begin(), header.end(), "gpu_milli") != header.end();
      const auto known = out.alibaba ? std::span<const std::string_view>(alibaba_columns)
                                     : std::span<const std::string_view>(trace_columns);
      col.fill(-1);
      for (std::size_t i = 0; i < header.size(); ++i) {
        const auto it = std::find(known.begin(), known.end(), header[i]);
        if (it == known.end()) {
          if (out.alibaba) continue;  // a later release may add columns
          r.fail(line_no, fmt::format("unknown column {} in the header{}; the columns are {}",
                                      q(header[i]), suggest(header[i], names_of(known)),
                                      "name, start, end, count and item"));
        }
        const auto k = static_cast<std::size_t>(it - known.begin());
        if (col[k] >= 0)
          r.fail(line_no, fmt::format("column {} is named twice in the header", q(header[i])));
        col[k] = static_cast<int>(i);
      }
      if (out.alibaba) {
        for (const std::size_t k : {3u, 4u, 8u})
          if (col[k] < 0)
            r.fail(line_no, fmt::format("an Alibaba pod list needs the column {} "
                                        "(num_gpu, gpu_milli and creation_time at least)",
                                        q(alibaba_columns[k])));
      } else if (col[1] < 0 || col[4] < 0) {
        r.fail(line_no,
               "the header must name the columns start and item (and may name name, end and "
               "count), such as 'name,start,end,count,item'");
      }
      continue;
    }
    if (cells->size() != header.size())
      r.fail(line_no, fmt::format("{} field{} where the header (line {}) names {}", cells->size(),
                                  cells->size() == 1 ? "" : "s", header_line, header.size()));
    const auto cell = [&](std::size_t k) -> std::string_view {
      return col[k] < 0 ? std::string_view{} : (*cells)[static_cast<std::size_t>(col[k])];
    };
    trace_row row;
    row.name = std::string(cell(0));
    if (out.alibaba) {
      auto gpus = parse_whole_number("num_gpu", cell(3), 0, max_pod_instances);
      if (!gpus) r.fail(line_no, gpus.error().message);
      if (*gpus == 0) {
        ++out.skipped;
        continue;
      }
      auto milli = parse_whole_number("gpu_milli", cell(4), 1, 1000);
      if (!milli) r.fail(line_no, milli.error().message);
      if (*milli < 1000 && *gpus > 1)
        r.fail(line_no, fmt::format("num_gpu {} with gpu_milli {}: a pod shares at most one GPU; "
                                    "several GPUs are whole (gpu_milli 1000)",
                                    *gpus, *milli));
      row.start = r.time(line_no, "creation_time", cell(8));
      if (!cell(9).empty()) row.end = r.time(line_no, "deletion_time", cell(9));
      if (*milli == 1000) {
        row.need = trace_need::whole;
        row.instances = static_cast<int>(*gpus);
      } else {
        row.need = trace_need::share;
        row.milli = static_cast<int>(*milli);
      }
      r.add(out, std::move(row), line_no);
      continue;
    }
    row.start = r.time(line_no, "start", cell(1));
    if (!cell(2).empty()) row.end = r.time(line_no, "end", cell(2));
    if (!cell(3).empty()) {
      auto n = parse_whole_number("count", cell(3), 1, max_trace_pods);
      if (!n) r.fail(line_no, n.error().message);
      row.count = *n;
    }
    r.apply(row, r.item(line_no, cell(4)));
    r.add(out, std::move(row), line_no);
  }
  if (header.empty())
    r.fail(0, "no header: a trace csv starts with a header such as 'name,start,end,count,item'");
  if (out.rows.empty()) r.fail(header_line, "no pods after the header");
  return out;
}

int line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

trace trace_from_yaml(std::string_view text, std::string_view shown) {
  reader r(shown);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    r.fail(e.mark.line >= 0 ? e.mark.line + 1 : 0, e.msg);
  }
  if (!root.IsMap())
    r.fail(line_of(root), "a trace file is a mapping with 'version: 1' and 'pods'");
  const std::vector<std::string> top_keys{"version", "pods", "comment"};
  const std::vector<std::string> pod_keys{"name", "start", "end", "count", "item", "comment"};
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (std::find(top_keys.begin(), top_keys.end(), key) == top_keys.end())
      r.fail(line_of(kv.first),
             fmt::format("unknown key {} at the top level{}", q(key), suggest(key, top_keys)));
  }
  const YAML::Node version = root["version"];
  if (!version || version.as<std::string>() != "1")
    r.fail(version ? line_of(version) : line_of(root), "'version: 1' is required");
  const YAML::Node pods = root["pods"];
  if (!pods || !pods.IsSequence() || pods.size() == 0)
    r.fail(pods ? line_of(pods) : line_of(root), "'pods' must be a non-empty list of pods");
  trace out;
  for (const YAML::Node& pod : pods) {
    const int line = line_of(pod);
    if (!pod.IsMap()) r.fail(line, "each pod is a mapping with a start and an item");
    for (const auto& kv : pod) {
      const std::string key = kv.first.as<std::string>();
      if (std::find(pod_keys.begin(), pod_keys.end(), key) == pod_keys.end())
        r.fail(line_of(kv.first),
               fmt::format("unknown key {} in a pod{}", q(key), suggest(key, pod_keys)));
      if (!kv.second.IsScalar() && key != "comment")
        r.fail(line_of(kv.second), fmt::format("{} must be a single value", q(key)));
    }
    trace_row row;
    if (pod["name"]) row.name = pod["name"].as<std::string>();
    if (!pod["start"]) r.fail(line, "the pod has no start");
    if (!pod["item"]) r.fail(line, "the pod has no item");
    row.start = r.time(line_of(pod["start"]), "start", pod["start"].as<std::string>());
    if (pod["end"] && !pod["end"].IsNull())
      row.end = r.time(line_of(pod["end"]), "end", pod["end"].as<std::string>());
    if (pod["count"]) {
      auto n = parse_whole_number("count", pod["count"].as<std::string>(), 1, max_trace_pods);
      if (!n) r.fail(line_of(pod["count"]), n.error().message);
      row.count = *n;
    }
    r.apply(row, r.item(line_of(pod["item"]), pod["item"].as<std::string>()));
    r.add(out, std::move(row), line);
  }
  return out;
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

result<trace> parse_trace(std::string_view text, std::string_view shown, plan_file_format format) {
  try {
    if (format == plan_file_format::csv) return trace_from_csv(text, shown);
    return trace_from_yaml(text, shown);
  } catch (const stop& s) {
    return error{s.message};
  } catch (const std::exception& e) {
    return error{at(shown, 0, std::string("cannot read the file: ") + e.what())};
  }
}

result<trace> read_trace(const std::string& path, std::istream& in) {
  auto text = read_plan_file(path, in, max_trace_bytes);
  if (!text) return text.error();
  return parse_trace(*text, plan_io::shown_path(path), plan_format_of(path, *text));
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
// The profile listings: GPU-instance profiles (-lgip), their possible
// placements (-lgipp) and compute-instance profiles (-lcip).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "io/smi.hpp"
#include "io/smi_text.hpp"
#include "quote.hpp"

namespace migplan::cli::smi {

using namespace detail;

read_result<lgip_listing> read_lgip(std::string_view text) {
  std::map<std::pair<int, int>, int> first_at;  // (GPU, profile ID) -> line
  return read_boxed<lgip_listing>(text, listing_kind::lgip, [&](row_cells& c, const lgip_listing&) {
    lgip_row r;
    r.gpu = c.whole(0, "GPU index");
    r.name = c.name(1);
    r.suffix = suffix_of(r.name);
    r.id = c.whole(2, "profile ID");
    std::tie(r.free, r.total) = c.free_total(3);
    r.memory_gib_x100 = c.gib_x100(4);
    r.memory_gib = std::string(c.text(4));
    c.columns(r.columns);
    c.once(first_at, {r.gpu, r.id}, fmt::format("GPU {} profile ID {}", r.gpu, r.id));
    return r;
  });
}

read_result<lcip_listing> read_lcip(std::string_view text) {
  std::map<std::tuple<int, int, int>, int> id_at;  // (GPU, GI, profile) -> line
  return read_boxed<lcip_listing>(text, listing_kind::lcip, [&](row_cells& c, const lcip_listing&) {
    lcip_row r;
    read_ci_head(c, r);
    std::string_view id_text = c.text(3);
    // '*' marks the GPU instance's default compute-instance profile.
    if (id_text.size() > 1 && id_text.back() == '*') {
      r.is_default = true;
      id_text.remove_suffix(1);
    }
    r.profile_id = c.whole(id_text, "compute instance profile ID");
    std::tie(r.free, r.total) = c.free_total(4);
    c.columns(r.columns);
    c.once(id_at, {r.gpu, r.gi_id, r.profile_id},
           fmt::format("GPU {} GPU instance {} profile ID {}", r.gpu, r.gi_id, r.profile_id));
    return r;
  });
}

read_result<lgipp_listing> read_lgipp(std::string_view text) {
  auto in = prepare(text);
  if (!in) return in.error();
  lgipp_listing out;
  note_partial(*in, out);
  std::set<int> gpus;
  std::map<std::pair<int, int>, int> first_at;  // (GPU, profile ID) -> line
  messages_seen seen;
  constexpr std::string_view form = "'GPU N Profile ID N Placements: {START,...}:SIZE'";
  for (std::size_t i = 0; i < in->lines.size(); ++i) {
    const text_line& l = in->lines[i];
    const line_type type = classify(l.text);
    if (type == line_type::blank || type == line_type::comment) continue;
    if (type == line_type::frame && i + 1 < in->lines.size()) {
      // A table: say which listing it is rather than calling its frame garbage.
      const text_line& next = in->lines[i + 1];
      if (classify(next.text) == line_type::cells) {
        if (const listing_kind k = kind_of_title(cell_text(next.text)); k != listing_kind::unknown)
          return fail(next.number, fmt::format("this is {}, not -lgipp", describe(k)));
      }
    }
    const tokens t = type == line_type::other ? split(l.text) : tokens{};
    if (!is_lgipp_line(t)) {
      if (type != line_type::other)
        return fail(l.number, fmt::format("not part of an nvidia-smi mig -lgipp listing: {}",
                                          quote_token(l.text, 64)));
      if (auto e = take_message(l, listing_kind::lgipp, out, seen)) return *e;
      continue;
    }
    if (out.rows.size() == max_smi_rows)
      return fail(l.number, fmt::format("more than {} rows, the most read", max_smi_rows));
    lgipp_row r;
    r.line = l.number;
    auto gpu = number(l.number, "GPU index", t[1]);
    if (!gpu) return gpu.error();
    if (t.size() < 5) return fail(l.number, fmt::format("line cut short: expected {}", form));
    auto id = number(l.number, "profile ID", t[4]);
    if (!id) return id.error();
    // "Placements: {0,2,4}:2", or "Placement : {0}:8" for a single start.
    std::size_t at = 5;
    if (at < t.size() && (t[at] == "Placements:" || t[at] == "Placement:")) {
      at += 1;
    } else if (at + 1 < t.size() && (t[at] == "Placements" || t[at] == "Placement") &&
               t[at + 1] == ":") {
      at += 2;
    } else {
      return fail(l.number, fmt::format("expected 'Placements:' after the profile ID: {}",
                                        quote_token(l.text, 64)));
    }
    if (at >= t.size()) return fail(l.number, fmt::format("line cut short: expected {}", form));
    if (at + 1 < t.size())
      return fail(l.number,
                  fmt::format("unexpected {} after the placements", quote_token(t[at + 1])));
    const std::string_view set = t[at];
    const auto close = set.find('}');
    if (set.front() != '{' || close == std::string_view::npos || close + 1 >= set.size() ||
        set[close + 1] != ':')
      return fail(l.number,
                  fmt::format("placements {} are not {{START,...}}:SIZE", quote_token(set)));
    auto size = number(l.number, "placement size", set.substr(close + 2));
    if (!size) return size.error();
    std::string_view list = set.substr(1, close - 1);
    while (true) {
      const auto comma = list.find(',');
      auto start = number(l.number, "placement start", list.substr(0, comma));
      if (!start) return start.error();
      if (auto e = check_placement(l.number, set, *start, *size)) return *e;
      if (std::any_of(r.placements.begin(), r.placements.end(),
                      [&](const placement& p) { return p.start == *start; }))
        return fail(l.number,
                    fmt::format("start {} is listed twice in {}", *start, quote_token(set)));
      r.placements.push_back({*start, *size});
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
    r.gpu = *gpu;
    r.id = *id;
    if (auto e = listed_twice(first_at, {r.gpu, r.id}, l.number,
                              fmt::format("GPU {} profile ID {}", r.gpu, r.id)))
      return *e;
    add_gpu(out, gpus, r.gpu);
    out.rows.push_back(std::move(r));
  }
  note_progress(out, seen);
  if (out.rows.empty() && !seen.listed_nothing) {
    const int last = std::max(1, last_content_line(*in));
    return fail(last, "end of input before any nvidia-smi mig -lgipp output");
  }
  return out;
}

}  // namespace migplan::cli::smi

// SPDX-License-Identifier: Apache-2.0
// The boxed tables of -lgip, -lgi, -lci and -lcip: their framing (scan), their
// column headings, and the row reader every one of them reads its rows with.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "io/smi_text.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli::smi::detail {
namespace {

// Most columns a heading line may name (-lgip has 9).
constexpr std::size_t max_columns = 16;

// ---------------------------------------------------------------------------------------------
// Boxed tables (-lgip, -lgi, -lci, -lcip):
//
//   +--------------------+   frame
//   | GPU instances:     |   title
//   | GPU   Name   ...   |   column heading, two or three lines
//   |====================|   separator
//   |   0  MIG 1g.5gb ...|   row (two lines in -lgip and -lcip)
//   +--------------------+   frame after every row

struct table {
  std::optional<text_line> title;  // absent in a fragment
  std::vector<text_line> heading;
  int separator_line = 0;
  std::vector<std::vector<text_line>> rows;
};

struct scanned {
  std::vector<table> tables;
  messages_seen seen;
  // Set when a partial capture stops inside a table: the row there may be cut short.
  bool cut_at_end = false;
};

// Splits the input into tables, taking messages between them. In a partial
// capture a table may start without its title and heading (a fragment) and
// stop without its closing frame; both become notes.
read_result<scanned> scan(const input& in, listing_kind kind, listing_base& base) {
  scanned out;
  enum class state { outside, opened, heading, rows };
  state st = state::outside;
  bool after_frame = false;  // in rows: the next cells line starts a row
  bool closed = false;       // in rows: the last table line was a frame
  int last_table_line = 0;
  std::size_t row_count = 0;
  const int last = last_content_line(in);

  const auto start_table = [&](state s) {
    out.tables.emplace_back();
    st = s;
    after_frame = closed = false;
  };
  const auto start_row = [&](const text_line& l) -> std::optional<diagnostic> {
    if (++row_count > max_smi_rows)
      return fail(l.number, fmt::format("more than {} rows, the most read", max_smi_rows));
    out.tables.back().rows.push_back({l});
    after_frame = closed = false;
    return std::nullopt;
  };
  const auto fragment = [&](const text_line& l) -> std::optional<diagnostic> {
    if (in.complete)
      return fail(l.number, fmt::format("table row before the table's title ('{}') and column "
                                        "heading",
                                        title_of(kind)));
    base.notes.push_back(note_at(
        l.number, fmt::format("no title or column heading (a fragment): read as the usual {} "
                              "columns",
                              listing_option(kind))));
    return std::nullopt;
  };
  // A table that stops before its closing frame is cut short.
  const auto cut_short = [&](int at_line) -> std::optional<diagnostic> {
    if (st == state::outside || (st == state::rows && closed)) return std::nullopt;
    if (!in.complete && at_line > last) {
      base.notes.push_back(
          note_at(last_table_line, "the table stops here, without its closing frame"));
      out.cut_at_end = true;
      return std::nullopt;
    }
    return fail(last_table_line, "table cut short here: no closing +---+ frame");
  };
  const auto take_title = [&](const text_line& l) -> std::optional<diagnostic> {
    const listing_kind k = kind_of_title(cell_text(l.text));
    if (k == kind) {
      out.tables.back().title = l;
      st = state::heading;
      return std::nullopt;
    }
    if (k != listing_kind::unknown)
      return fail(l.number, fmt::format("this is {}, not {}", describe(k), listing_option(kind)));
    return fail(l.number, fmt::format("unknown table {}: expected '{}'",
                                      quote_token(cell_text(l.text), 64), title_of(kind)));
  };

  for (const text_line& l : in.lines) {
    const line_type type = classify(l.text);
    if (type == line_type::comment) continue;
    if (type == line_type::blank || type == line_type::other) {
      if (auto e = cut_short(l.number)) return *e;
      st = state::outside;
      if (type == line_type::other) {
        if (auto e = take_message(l, kind, base, out.seen)) return *e;
      }
      continue;
    }
    if (type == line_type::cut) {
      if (!in.complete && l.number == last) {
        base.notes.push_back(note_at(l.number, "line cut short, not read"));
        if (auto e = cut_short(l.number + 1)) return *e;
        st = state::outside;
        continue;
      }
      return fail(l.number, "line cut short: no closing '|'");
    }
    switch (st) {
      case state::outside:
        if (type == line_type::frame) {
          start_table(state::opened);
        } else if (type == line_type::cells) {
          // A fragment that starts inside a table.
          start_table(state::rows);
          if (auto e = fragment(l)) return *e;
          if (auto e = start_row(l)) return *e;
        } else {
          return fail(l.number, "'=====' line outside a table");
        }
        break;
      case state::opened:
        if (type == line_type::cells) {
          if (!in.complete && !cell_text(l.text).ends_with(':')) {
            if (auto e = fragment(l)) return *e;
            st = state::rows;
            if (auto e = start_row(l)) return *e;
          } else if (auto e = take_title(l)) {
            return *e;
          }
        } else if (type == line_type::frame) {
          return fail(l.number, "empty table: a frame follows the opening frame");
        } else {
          return fail(l.number,
                      fmt::format("'=====' line before the table's title ('{}')", title_of(kind)));
        }
        break;
      case state::heading:
        if (type == line_type::cells) {
          if (out.tables.back().heading.size() == 3)
            return fail(l.number, "column heading longer than 3 lines");
          out.tables.back().heading.push_back(l);
        } else if (type == line_type::separator) {
          out.tables.back().separator_line = l.number;
          st = state::rows;
          after_frame = true;  // no row yet: the next cells line starts one
        } else {
          return fail(l.number, "frame inside the column heading: no '=====' line after it");
        }
        break;
      case state::rows:
        if (type == line_type::frame) {
          after_frame = closed = true;
        } else if (type == line_type::cells) {
          if (after_frame && cell_text(l.text).ends_with(':')) {
            // A second table, as when the listings of two commands are pasted together.
            start_table(state::opened);
            if (auto e = take_title(l)) return *e;
          } else if (after_frame) {
            if (auto e = start_row(l)) return *e;
          } else {
            out.tables.back().rows.back().push_back(l);
            if (out.tables.back().rows.back().size() > 2)
              return fail(l.number, "row of more than two lines: a +---+ frame is missing");
          }
        } else {
          return fail(l.number, "'=====' line after the column heading");
        }
        break;
    }
    last_table_line = l.number;
  }
  if (auto e = cut_short(last + 1)) return *e;
  note_progress(base, out.seen);
  return out;
}

// The heading's extra columns (P2P, SM, engines) from `from` on.
read_result<std::vector<std::string>> extra_columns(const text_line& l, const tokens& t,
                                                    std::size_t from,
                                                    std::vector<std::string>& seen) {
  std::vector<std::string> out;
  if (t.size() - from > max_columns)
    return fail(l.number, fmt::format("more than {} columns", max_columns));
  for (std::size_t i = from; i < t.size(); ++i) {
    if (t[i].size() > max_word)
      return fail(l.number, fmt::format("unknown column {}", quote_token(t[i])));
    if (std::find(seen.begin(), seen.end(), t[i]) != seen.end())
      return fail(l.number, fmt::format("column {} appears twice", quote_token(t[i])));
    seen.emplace_back(t[i]);
    out.emplace_back(t[i]);
  }
  return out;
}

diagnostic bad_heading(const text_line& l, std::string_view expected) {
  return fail(l.number, fmt::format("unexpected column heading {}: expected '{}'",
                                    quote_token(join(split(cell_text(l.text))), 64), expected));
}

diagnostic heading_cut(const table& t, std::string_view expected) {
  return fail(t.separator_line,
              fmt::format("column heading cut short: expected '{}' before this line", expected));
}

// One line of a column heading: its words (the first ones when `prefix`:
// more columns may follow), and the line as a message shows it.
struct heading_line {
  std::vector<std::string_view> words;
  bool prefix = false;
  std::string_view shown;
};

// Checks a heading line by line: each line there and as described, and no
// line after the last described.
std::optional<diagnostic> check_heading(const table& t, const std::vector<tokens>& words,
                                        const std::vector<heading_line>& lines) {
  const auto& h = t.heading;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const heading_line& want = lines[i];
    if (i >= h.size()) return heading_cut(t, want.shown);
    const tokens& got = words[i];
    const bool ok =
        (want.prefix ? got.size() >= want.words.size() : got.size() == want.words.size()) &&
        std::equal(want.words.begin(), want.words.end(), got.begin());
    if (!ok) return bad_heading(h[i], want.shown);
  }
  if (h.size() > lines.size()) return bad_heading(h[lines.size()], "=====");
  return std::nullopt;
}

// The P2P, SM and engine columns of a two-line row: those heading line `at`
// names from skip[0] on (the row's first line) and those the next heading line
// names from skip[1] on (its second), or in a fragment `first` and `second`,
// the usual ones.
std::optional<diagnostic> engine_columns(const table& t, const std::vector<tokens>& words,
                                         std::size_t at, std::array<std::size_t, 2> skip,
                                         std::vector<std::string> first,
                                         std::vector<std::string> second, row_layout& lay) {
  if (t.title) {
    std::vector<std::string> seen;
    auto x = extra_columns(t.heading[at], words[at], skip[0], seen);
    if (!x) return x.error();
    auto y = extra_columns(t.heading[at + 1], words[at + 1], skip[1], seen);
    if (!y) return y.error();
    first = std::move(*x);
    second = std::move(*y);
  }
  lay.first.insert(lay.first.end(), first.begin(), first.end());
  lay.second = std::move(second);
  return std::nullopt;
}

// The row layout a table's heading names; the usual one for a fragment.
// For -lci, `placement_column` says whether the heading has Placement.
read_result<row_layout> read_heading(const table& t, listing_kind kind, bool& placement_column) {
  row_layout lay;
  const auto& h = t.heading;
  const bool fragment = !t.title.has_value();
  if (!fragment && h.empty())
    return fail(t.separator_line, fmt::format("table '{}' has no column heading", title_of(kind)));
  std::vector<tokens> words;
  for (const auto& l : h) words.push_back(split(cell_text(l.text)));
  switch (kind) {
    case listing_kind::lgip:
      lay.first = {"GPU", "Name", "ID", "Free/Total", "Memory"};
      if (!fragment) {
        if (auto e = check_heading(t, words,
                                   {{{"GPU", "Name", "ID", "Instances", "Memory"},
                                     true,
                                     "GPU Name ID Instances Memory ..."},
                                    {{"Free/Total", "GiB"}, true, "Free/Total GiB ..."}}))
          return *e;
      }
      if (auto e = engine_columns(t, words, 0, {5, 2}, {"P2P", "SM", "DEC", "ENC"},
                                  {"CE", "JPEG", "OFA"}, lay))
        return *e;
      break;
    case listing_kind::lgi:
      lay.first = {"GPU", "Name", "Profile-ID", "Instance-ID", "Start:Size"};
      if (!fragment) {
        if (auto e = check_heading(t, words,
                                   {{{"GPU", "Name", "Profile", "Instance", "Placement"},
                                     false,
                                     "GPU Name Profile Instance Placement"},
                                    {{"ID", "ID", "Start:Size"}, false, "ID ID Start:Size"}}))
          return *e;
      }
      break;
    case listing_kind::lci:
      lay.name_at = 2;
      lay.first = {"GPU", "GI-ID", "Name", "Profile-ID", "Instance-ID"};
      if (!fragment) {
        // The old layout has no Placement column.
        placement_column = words[0].size() == 6;
        std::vector<heading_line> lines{{{"GPU", "GPU", "Name", "Profile", "Instance"},
                                         false,
                                         "GPU GPU Name Profile Instance [Placement]"},
                                        {{"Instance", "ID", "ID"}, false, "Instance ID ID"},
                                        {{"ID"}, false, "ID"}};
        if (placement_column) {
          lines[0].words.emplace_back("Placement");
          lines[1].words.emplace_back("Start:Size");
          lines[1].shown = "Instance ID ID Start:Size";
        }
        if (auto e = check_heading(t, words, lines)) return *e;
      }
      if (placement_column) lay.first.emplace_back("Start:Size");
      break;
    case listing_kind::lcip:
      lay.name_at = 2;
      lay.first = {"GPU", "GI-ID", "Name", "Profile-ID", "Free/Total"};
      if (!fragment) {
        if (auto e = check_heading(
                t, words,
                {{{"GPU", "GPU", "Name", "Profile", "Instances", "Exclusive", "Shared"},
                  false,
                  "GPU GPU Name Profile Instances Exclusive Shared"},
                 {{"Instance", "ID", "Free/Total"}, true, "Instance ID Free/Total ..."},
                 {{"ID"}, true, "ID ..."}}))
          return *e;
      }
      if (auto e =
              engine_columns(t, words, 1, {3, 1}, {"SM", "DEC", "ENC", "OFA"}, {"CE", "JPEG"}, lay))
        return *e;
      break;
    default:
      break;
  }
  return lay;
}

// The values of one row line: white-space separated, "MIG" before the name dropped.
read_result<tokens> row_values(const text_line& l, const std::vector<std::string>& names,
                               std::size_t name_at) {
  tokens t = split(cell_text(l.text));
  if (name_at > 0 && t.size() > name_at + 1 && t[name_at] == "MIG")
    t.erase(t.begin() + static_cast<std::ptrdiff_t>(name_at));
  if (t.size() != names.size()) {
    std::string expected;
    for (const auto& n : names) expected += (expected.empty() ? "" : " ") + n;
    return fail(l.number, fmt::format("row of {} value{}, expected {} ({})", t.size(),
                                      plural(t.size()), names.size(), expected));
  }
  return t;
}

// Fills the P2P, SM and engine columns named names[from...] from values[from...].
std::optional<diagnostic> read_columns(const text_line& l, const std::vector<std::string>& names,
                                       const tokens& values, std::size_t from, row_columns& out) {
  for (std::size_t i = from; i < names.size(); ++i) {
    const std::string& n = names[i];
    const std::string_view v = values[i];
    if (n == "P2P") {
      if (v != "Yes" && v != "No")
        return fail(l.number, fmt::format("P2P {} is neither Yes nor No", quote_token(v)));
      out.p2p = v == "Yes";
      continue;
    }
    std::optional<int>* slot = n == "SM"                     ? &out.sm
                               : n == "DEC"                  ? &out.dec
                               : n == "ENC"                  ? &out.enc
                               : n == "CE"                   ? &out.ce
                               : (n == "JPEG" || n == "JPG") ? &out.jpeg
                               : n == "OFA"                  ? &out.ofa
                                                             : nullptr;
    if (slot == nullptr) {
      if (v.size() > max_word)
        return fail(l.number, fmt::format("{} {} is too long", n, quote_token(v)));
      out.other.emplace_back(n, std::string(v));
      continue;
    }
    auto x = number(l.number, n, v);
    if (!x) return x.error();
    *slot = *x;
  }
  return std::nullopt;
}

// Reads the second line of a two-line row; a row cut off at the end of a
// partial capture keeps those columns empty.
std::optional<diagnostic> read_second_line(const std::vector<text_line>& row, const row_layout& lay,
                                           bool last_row_of_cut_table, listing_base& base,
                                           row_columns& out) {
  if (row.size() < 2) {
    std::string names;
    for (const auto& n : lay.second) names += (names.empty() ? "" : " ") + n;
    if (last_row_of_cut_table) {
      base.notes.push_back(note_at(
          row[0].number, fmt::format("the row stops after its first line: {} unknown", names)));
      return std::nullopt;
    }
    return fail(row[0].number,
                fmt::format("row cut short: its second line ({}) is missing", names));
  }
  auto v = row_values(row[1], lay.second, 0);
  if (!v) return v.error();
  return read_columns(row[1], lay.second, *v, 0, out);
}

}  // namespace

void row_cells::columns(row_columns& out) {
  if (failed) return;
  check(read_columns(row_[0], lay_.first, values_, 5, out));
  if (!failed) check(read_second_line(row_, lay_, cut_last_, base_, out));
}

std::optional<diagnostic> read_tables(std::string_view text, listing_kind kind, listing_base& out,
                                      const std::function<void(row_cells&)>& take_row) {
  auto in = prepare(text);
  if (!in) return in.error();
  note_partial(*in, out);
  auto sc = scan(*in, kind, out);
  if (!sc) return sc.error();
  if (sc->tables.empty() && !sc->seen.listed_nothing) {
    const int last = std::max(1, last_content_line(*in));
    return fail(last, fmt::format("end of input before any nvidia-smi mig {} output",
                                  listing_option(kind)));
  }
  // -lgi and -lci rows have one line, -lgip and -lcip rows two.
  const bool one_line = kind == listing_kind::lgi || kind == listing_kind::lci;
  for (std::size_t ti = 0; ti < sc->tables.size(); ++ti) {
    const table& t = sc->tables[ti];
    // A partial capture that stops inside a table's heading has no rows there
    // (scan noted where it stops).
    if (t.title && t.separator_line == 0) continue;
    bool placement_column = true;
    if (kind == listing_kind::lci && !t.title && !t.rows.empty()) {
      // A fragment says nothing of its heading: the first row shows whether it
      // has a Placement column (the old layout has none).
      tokens w = split(cell_text(t.rows[0][0].text));
      placement_column = !w.empty() && w.back().find(':') != std::string_view::npos;
    }
    auto lay = read_heading(t, kind, placement_column);
    if (!lay) return lay.error();
    for (std::size_t ri = 0; ri < t.rows.size(); ++ri) {
      const std::vector<text_line>& row = t.rows[ri];
      if (one_line && row.size() > 1)
        return fail(row[1].number, "row of more than one line: a +---+ frame is missing");
      auto v = row_values(row[0], lay->first, lay->name_at);
      if (!v) return v.error();
      const bool cut_last =
          sc->cut_at_end && ti + 1 == sc->tables.size() && ri + 1 == t.rows.size();
      row_cells cells(row, *lay, cut_last, out, std::move(*v));
      take_row(cells);
      if (cells.failed) return *cells.failed;
    }
  }
  return std::nullopt;
}

}  // namespace migplan::cli::smi::detail

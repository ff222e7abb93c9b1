// SPDX-License-Identifier: Apache-2.0
#include "io/smi.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "io/text_view.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli::smi {
namespace {

using tokens = std::vector<std::string_view>;

constexpr std::string_view blanks = " \t\r\f\v";

// Most characters of a name or column heading a reader keeps: the longest
// profile name is 16 characters ("2g.48gb+me.all"), so anything longer is garbage.
constexpr std::size_t max_word = 32;
// Most columns a heading line may name (-lgip has 9).
constexpr std::size_t max_columns = 16;
// Largest number a column may hold: IDs, indices and counts are small; a
// larger one is garbage, refused before it could overflow anything.
constexpr int max_number = 65535;

tokens split(std::string_view s) {
  tokens out;
  std::size_t i = 0;
  while (true) {
    i = s.find_first_not_of(blanks, i);
    if (i == std::string_view::npos) break;
    const auto end = s.find_first_of(blanks, i);
    out.push_back(s.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i));
    if (end == std::string_view::npos) break;
    i = end;
  }
  return out;
}

std::string join(const tokens& t) {
  std::string out;
  for (const auto& w : t) {
    if (!out.empty()) out += ' ';
    out.append(w);
  }
  return out;
}

bool equals(const tokens& t, std::initializer_list<std::string_view> words) {
  return t.size() == words.size() && std::equal(t.begin(), t.end(), words.begin());
}

bool starts_with(const tokens& t, std::initializer_list<std::string_view> words) {
  return t.size() >= words.size() && std::equal(words.begin(), words.end(), t.begin());
}

error fail(int line, std::string_view message) {
  return error{fmt::format("line {}: {}", line, message)};
}

std::string_view title_of(listing_kind kind) {
  switch (kind) {
    case listing_kind::lgip:
      return "GPU instance profiles:";
    case listing_kind::lgi:
      return "GPU instances:";
    case listing_kind::lci:
      return "Compute instances:";
    case listing_kind::lcip:
      return "Compute instance profiles:";
    default:
      return "";
  }
}

// What the listing is, for messages: "nvidia-smi mig -lgi output (GPU instances)".
std::string describe(listing_kind kind) {
  const std::string_view what =
      kind == listing_kind::lgipp ? "possible placements" : trim(title_of(kind));
  return fmt::format("nvidia-smi mig {} output ({})", listing_option(kind),
                     what.substr(0, what.find(':')));
}

listing_kind kind_of_title(std::string_view cells) {
  const std::string t = join(split(cells));
  for (listing_kind k :
       {listing_kind::lgip, listing_kind::lgi, listing_kind::lci, listing_kind::lcip}) {
    if (t == title_of(k)) return k;
  }
  return listing_kind::unknown;
}

// ---------------------------------------------------------------------------------------------
// Lines.

struct text_line {
  int number = 0;         // 1-based
  std::string_view text;  // without surrounding white space
};

enum class line_type {
  blank,
  comment,    // '#': our captures' heading, never printed by nvidia-smi
  frame,      // +-----+
  separator,  // |=====|
  cells,      // | ... |
  cut,        // '|' or '+' without the closing one
  other,      // a message, a -lgipp line or garbage
};

line_type classify(std::string_view t) {
  if (t.empty()) return line_type::blank;
  if (t.front() == '#') return line_type::comment;
  if (t.front() == '+') {
    const bool dashes = t.find_first_not_of("+-") == std::string_view::npos;
    if (!dashes) return line_type::other;
    return t.size() >= 3 && t.back() == '+' && t.find('-') != std::string_view::npos
               ? line_type::frame
               : line_type::cut;
  }
  if (t.front() == '|') {
    if (t.size() < 2 || t.back() != '|') return line_type::cut;
    const std::string_view inner = t.substr(1, t.size() - 2);
    if (!inner.empty() && inner.find_first_not_of('=') == std::string_view::npos)
      return line_type::separator;
    // More '|' inside: a table of several columns (nvidia-smi's own status
    // table), which no MIG listing is.
    return inner.find('|') == std::string_view::npos ? line_type::cells : line_type::other;
  }
  return line_type::other;
}

std::string_view cell_text(std::string_view t) { return trim(t.substr(1, t.size() - 2)); }

// Messages nvidia-smi prints instead of a listing, or that come before one
// when the outputs of several commands are pasted together.
enum class message {
  none,
  no_devices,            // "No MIG-enabled devices found."
  no_gpu_instances,      // "No GPU instances found: Not Found"
  no_compute_instances,  // "No compute instances found: Not Found"
  progress,              // "Successfully created GPU instance ID  2 on GPU  0 ..."
  failure,               // "Failed to display GPU instances: Insufficient Permissions"
};

message classify_message(std::string_view t) {
  const auto is = [&](std::string_view what) {
    if (!t.starts_with(what)) return false;
    const std::string_view rest = t.substr(what.size());
    return rest.empty() || rest == "." || rest == ": Not Found";
  };
  if (is("No MIG-enabled devices found")) return message::no_devices;
  if (is("No GPU instances found")) return message::no_gpu_instances;
  if (is("No compute instances found")) return message::no_compute_instances;
  if (t.starts_with("Successfully ")) return message::progress;
  if (t.starts_with("Failed to ") || t.starts_with("Unable to ") ||
      (t.starts_with("No ") && t.find(" found: ") != std::string_view::npos))
    return message::failure;
  return message::none;
}

bool is_lgipp_line(const tokens& t) {
  return t.size() >= 4 && t[0] == "GPU" && t[2] == "Profile" && t[3] == "ID";
}

struct input {
  std::vector<text_line> lines;
  bool complete = true;
  int marked_at = 0;  // the "# complete: no" line
};

result<input> prepare(std::string_view text) {
  text = skip_bom(text);
  if (text.size() > max_smi_bytes)
    return error{fmt::format("input of {} bytes is larger than {} MiB, the most read", text.size(),
                             max_smi_bytes >> 20)};
  input in;
  int n = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto nl = text.find('\n', pos);
    const std::string_view raw =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    ++n;
    const std::string_view t = trim(raw);
    in.lines.push_back({n, t});
    if (t.starts_with("#") && trim(t.substr(1)) == "complete: no" && in.complete) {
      in.complete = false;
      in.marked_at = n;
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  // A final newline ends the last line; it does not start another.
  if (!in.lines.empty() && in.lines.back().text.empty() && !text.empty() && text.back() == '\n')
    in.lines.pop_back();
  return in;
}

// The last line that holds anything but white space and '#' lines.
int last_content_line(const input& in) {
  for (auto it = in.lines.rbegin(); it != in.lines.rend(); ++it) {
    const line_type t = classify(it->text);
    if (t != line_type::blank && t != line_type::comment) return it->number;
  }
  return 0;
}

// A partial capture says so first: whatever else it lacks, rows may be missing.
void note_partial(const input& in, listing_base& base) {
  base.complete = in.complete;
  if (!in.complete)
    base.notes.push_back(fmt::format(
        "line {}: marked '# complete: no' (a partial capture or a fragment): rows may be missing",
        in.marked_at));
}

void add_gpu(listing_base& base, std::set<int>& seen, int gpu) {
  if (seen.insert(gpu).second) base.gpus.push_back(gpu);
}

// Messages taken so far.
struct messages_seen {
  int progress = 0;        // "Successfully ..." lines skipped
  int first_progress = 0;  // the line of the first
  bool listed_nothing = false;
};

// What every reader does with a line outside its rows: a message, or an error.
// Returns an error, or nothing when the line is taken.
std::optional<error> take_message(const text_line& l, listing_kind kind, listing_base& base,
                                  messages_seen& seen) {
  const message m = classify_message(l.text);
  const auto quoted = quote_token(l.text, 64);
  switch (m) {
    case message::no_devices:
      base.mig_disabled = true;
      seen.listed_nothing = true;
      base.notes.push_back(fmt::format("line {}: nvidia-smi listed nothing: {}", l.number, quoted));
      return std::nullopt;
    case message::no_gpu_instances:
      // Without GPU instances there are no compute instances or their profiles either.
      if (kind == listing_kind::lgi || kind == listing_kind::lci || kind == listing_kind::lcip) {
        seen.listed_nothing = true;
        base.notes.push_back(
            fmt::format("line {}: nvidia-smi listed nothing: {}", l.number, quoted));
        return std::nullopt;
      }
      return fail(l.number, fmt::format("{} is what nvidia-smi mig -lgi prints, not {}", quoted,
                                        listing_option(kind)));
    case message::no_compute_instances:
      if (kind == listing_kind::lci) {
        seen.listed_nothing = true;
        base.notes.push_back(
            fmt::format("line {}: nvidia-smi listed nothing: {}", l.number, quoted));
        return std::nullopt;
      }
      return fail(l.number, fmt::format("{} is what nvidia-smi mig -lci prints, not {}", quoted,
                                        listing_option(kind)));
    case message::progress:
      if (seen.progress++ == 0) seen.first_progress = l.number;
      return std::nullopt;
    case message::failure:
      return fail(l.number, fmt::format("nvidia-smi reported an error: {}", quoted));
    case message::none:
      break;
  }
  const tokens t = split(l.text);
  if (kind != listing_kind::lgipp && is_lgipp_line(t))
    return fail(l.number, fmt::format("this is {}, not {}", describe(listing_kind::lgipp),
                                      listing_option(kind)));
  return fail(l.number, fmt::format("not part of an nvidia-smi mig {} listing: {}",
                                    listing_option(kind), quoted));
}

void note_progress(listing_base& base, const messages_seen& seen) {
  const int count = seen.progress, first = seen.first_progress;
  if (count == 0) return;
  base.notes.push_back(fmt::format(
      "line {}: skipped {} line{} that nvidia-smi prints when it creates or destroys instances",
      first, count, count == 1 ? "" : "s"));
}

// ---------------------------------------------------------------------------------------------
// Values.

result<int> number(int line, std::string_view what, std::string_view tok) {
  if (tok.empty() || tok.find_first_not_of("0123456789") != std::string_view::npos)
    return fail(line, fmt::format("{} {} is not a number", what, quote_token(tok)));
  int v = 0;
  const auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec != std::errc{} || v > max_number)
    return fail(
        line, fmt::format("{} {} is out of range (at most {})", what, clip_token(tok), max_number));
  return v;
}

// Checks a start and size against the 16 units: start 0-15, start + size at most 16.
std::optional<error> check_placement(int line, std::string_view text, int start, int size) {
  if (start >= smi_units)
    return fail(line, fmt::format("placement {} starts at {}, outside units 0-{}",
                                  quote_token(text), start, smi_units - 1));
  if (size < 1) return fail(line, fmt::format("placement {} has size 0", quote_token(text)));
  if (start + size > smi_units)
    return fail(line,
                fmt::format("placement {} runs past unit {}", quote_token(text), smi_units - 1));
  return std::nullopt;
}

result<placement> read_placement(int line, std::string_view tok) {
  const auto colon = tok.find(':');
  const std::string_view a = tok.substr(0, colon);
  const std::string_view b =
      colon == std::string_view::npos ? std::string_view{} : tok.substr(colon + 1);
  const auto digits = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (!digits(a) || !digits(b))
    return fail(line, fmt::format("placement {} is not START:SIZE", quote_token(tok)));
  auto start = number(line, "placement start", a);
  if (!start) return start.error();
  auto size = number(line, "placement size", b);
  if (!size) return size.error();
  if (auto e = check_placement(line, tok, *start, *size)) return *e;
  return placement{*start, *size};
}

// "7/7" -> free and total.
result<std::pair<int, int>> read_free_total(int line, std::string_view tok) {
  const auto slash = tok.find('/');
  if (slash == std::string_view::npos)
    return fail(line, fmt::format("instances {} are not FREE/TOTAL", quote_token(tok)));
  auto free = number(line, "free instances", tok.substr(0, slash));
  if (!free) return free.error();
  auto total = number(line, "total instances", tok.substr(slash + 1));
  if (!total) return total.error();
  if (*free > *total)
    return fail(line, fmt::format("instances {}: more free than total", quote_token(tok)));
  return std::pair{*free, *total};
}

// "4.75" -> 475; at most two decimals, as nvidia-smi prints GiB.
result<int> read_gib_x100(int line, std::string_view tok) {
  const auto dot = tok.find('.');
  const std::string_view whole = tok.substr(0, dot);
  const std::string_view frac =
      dot == std::string_view::npos ? std::string_view{} : tok.substr(dot + 1);
  const auto digits = [](std::string_view s) {
    return s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (whole.empty() || whole.size() > 6 || !digits(whole) || !digits(frac) || frac.size() > 2 ||
      (dot != std::string_view::npos && frac.empty()))
    return fail(line, fmt::format("memory {} is not a number of GiB", quote_token(tok)));
  int v = 0;
  for (char c : whole) v = v * 10 + (c - '0');
  int f = 0;
  for (char c : frac) f = f * 10 + (c - '0');
  if (frac.size() == 1) f *= 10;
  return v * 100 + f;
}

// A profile name as nvidia-smi prints it: "1g.5gb", "1c.3g.20gb", "1g.24gb+me.all".
result<std::string> read_name(int line, std::string_view tok) {
  const bool ok =
      !tok.empty() && tok.size() <= max_word && std::all_of(tok.begin(), tok.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '+' || c == '-' || c == '_';
      });
  if (!ok) return fail(line, fmt::format("invalid profile name {}", quote_token(tok)));
  return std::string(tok);
}

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
result<scanned> scan(const input& in, listing_kind kind, listing_base& base) {
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
  const auto start_row = [&](const text_line& l) -> std::optional<error> {
    if (++row_count > max_smi_rows)
      return fail(l.number, fmt::format("more than {} rows, the most read", max_smi_rows));
    out.tables.back().rows.push_back({l});
    after_frame = closed = false;
    return std::nullopt;
  };
  const auto fragment = [&](const text_line& l) -> std::optional<error> {
    if (in.complete)
      return fail(l.number, fmt::format("table row before the table's title ('{}') and column "
                                        "heading",
                                        title_of(kind)));
    base.notes.push_back(
        fmt::format("line {}: no title or column heading (a fragment): read as the usual {} "
                    "columns",
                    l.number, listing_option(kind)));
    return std::nullopt;
  };
  // A table that stops before its closing frame is cut short.
  const auto cut_short = [&](int at_line) -> std::optional<error> {
    if (st == state::outside || (st == state::rows && closed)) return std::nullopt;
    if (!in.complete && at_line > last) {
      base.notes.push_back(
          fmt::format("line {}: the table stops here, without its closing frame", last_table_line));
      out.cut_at_end = true;
      return std::nullopt;
    }
    return fail(last_table_line, "table cut short here: no closing +---+ frame");
  };
  const auto take_title = [&](const text_line& l) -> std::optional<error> {
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
        base.notes.push_back(fmt::format("line {}: line cut short, not read", l.number));
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

// The values of a row's first and second line, named as the heading names them.
struct row_layout {
  std::vector<std::string> first;
  std::vector<std::string> second;  // empty: rows have one line
  std::size_t name_at = 1;          // the profile name ("MIG " is dropped before it)
};

// The heading's extra columns (P2P, SM, engines) from `from` on.
result<std::vector<std::string>> extra_columns(const text_line& l, const tokens& t,
                                               std::size_t from, std::vector<std::string>& seen) {
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

error bad_heading(const text_line& l, std::string_view expected) {
  return fail(l.number, fmt::format("unexpected column heading {}: expected '{}'",
                                    quote_token(join(split(cell_text(l.text))), 64), expected));
}

error heading_cut(const table& t, std::string_view expected) {
  return fail(t.separator_line,
              fmt::format("column heading cut short: expected '{}' before this line", expected));
}

// The row layout a table's heading names; the usual one for a fragment.
// For -lci, `placement_column` says whether the heading has Placement.
result<row_layout> read_heading(const table& t, listing_kind kind, bool& placement_column) {
  row_layout lay;
  std::vector<std::string> seen;
  const auto& h = t.heading;
  const bool fragment = !t.title.has_value();
  if (!fragment && h.empty())
    return fail(t.separator_line, fmt::format("table '{}' has no column heading", title_of(kind)));
  std::vector<tokens> words;
  for (const auto& l : h) words.push_back(split(cell_text(l.text)));
  switch (kind) {
    case listing_kind::lgip: {
      lay.first = {"GPU", "Name", "ID", "Free/Total", "Memory"};
      std::vector<std::string> a{"P2P", "SM", "DEC", "ENC"}, b{"CE", "JPEG", "OFA"};
      if (!fragment) {
        constexpr std::string_view e1 = "GPU Name ID Instances Memory ...";
        constexpr std::string_view e2 = "Free/Total GiB ...";
        if (!starts_with(words[0], {"GPU", "Name", "ID", "Instances", "Memory"}))
          return bad_heading(h[0], e1);
        if (h.size() < 2) return heading_cut(t, e2);
        if (!starts_with(words[1], {"Free/Total", "GiB"})) return bad_heading(h[1], e2);
        if (h.size() > 2) return bad_heading(h[2], "=====");
        auto x = extra_columns(h[0], words[0], 5, seen);
        if (!x) return x.error();
        auto y = extra_columns(h[1], words[1], 2, seen);
        if (!y) return y.error();
        a = std::move(*x);
        b = std::move(*y);
      }
      lay.first.insert(lay.first.end(), a.begin(), a.end());
      lay.second = std::move(b);
      break;
    }
    case listing_kind::lgi:
      lay.first = {"GPU", "Name", "Profile-ID", "Instance-ID", "Start:Size"};
      if (!fragment) {
        constexpr std::string_view e1 = "GPU Name Profile Instance Placement";
        constexpr std::string_view e2 = "ID ID Start:Size";
        if (!equals(words[0], {"GPU", "Name", "Profile", "Instance", "Placement"}))
          return bad_heading(h[0], e1);
        if (h.size() < 2) return heading_cut(t, e2);
        if (!equals(words[1], {"ID", "ID", "Start:Size"})) return bad_heading(h[1], e2);
        if (h.size() > 2) return bad_heading(h[2], "=====");
      }
      break;
    case listing_kind::lci:
      lay.name_at = 2;
      lay.first = {"GPU", "GI-ID", "Name", "Profile-ID", "Instance-ID"};
      if (!fragment) {
        placement_column = words[0].size() == 6;
        const std::string_view e2 =
            placement_column ? "Instance ID ID Start:Size" : "Instance ID ID";
        if (!(placement_column
                  ? equals(words[0], {"GPU", "GPU", "Name", "Profile", "Instance", "Placement"})
                  : equals(words[0], {"GPU", "GPU", "Name", "Profile", "Instance"})))
          return bad_heading(h[0], "GPU GPU Name Profile Instance [Placement]");
        if (h.size() < 2) return heading_cut(t, e2);
        if (!(placement_column ? equals(words[1], {"Instance", "ID", "ID", "Start:Size"})
                               : equals(words[1], {"Instance", "ID", "ID"})))
          return bad_heading(h[1], e2);
        if (h.size() < 3) return heading_cut(t, "ID");
        if (!equals(words[2], {"ID"})) return bad_heading(h[2], "ID");
      }
      if (placement_column) lay.first.emplace_back("Start:Size");
      break;
    case listing_kind::lcip: {
      lay.name_at = 2;
      lay.first = {"GPU", "GI-ID", "Name", "Profile-ID", "Free/Total"};
      std::vector<std::string> a{"SM", "DEC", "ENC", "OFA"}, b{"CE", "JPEG"};
      if (!fragment) {
        constexpr std::string_view e1 = "GPU GPU Name Profile Instances Exclusive Shared";
        constexpr std::string_view e2 = "Instance ID Free/Total ...";
        constexpr std::string_view e3 = "ID ...";
        if (!equals(words[0],
                    {"GPU", "GPU", "Name", "Profile", "Instances", "Exclusive", "Shared"}))
          return bad_heading(h[0], e1);
        if (h.size() < 2) return heading_cut(t, e2);
        if (!starts_with(words[1], {"Instance", "ID", "Free/Total"})) return bad_heading(h[1], e2);
        if (h.size() < 3) return heading_cut(t, e3);
        if (!starts_with(words[2], {"ID"})) return bad_heading(h[2], e3);
        auto x = extra_columns(h[1], words[1], 3, seen);
        if (!x) return x.error();
        auto y = extra_columns(h[2], words[2], 1, seen);
        if (!y) return y.error();
        a = std::move(*x);
        b = std::move(*y);
      }
      lay.first.insert(lay.first.end(), a.begin(), a.end());
      lay.second = std::move(b);
      break;
    }
    default:
      break;
  }
  return lay;
}

// The values of one row line: white-space separated, "MIG" before the name dropped.
result<tokens> row_values(const text_line& l, const std::vector<std::string>& names,
                          std::size_t name_at) {
  tokens t = split(cell_text(l.text));
  if (name_at > 0 && t.size() > name_at + 1 && t[name_at] == "MIG")
    t.erase(t.begin() + static_cast<std::ptrdiff_t>(name_at));
  if (t.size() != names.size()) {
    std::string expected;
    for (const auto& n : names) expected += (expected.empty() ? "" : " ") + n;
    return fail(l.number, fmt::format("row of {} value{}, expected {} ({})", t.size(),
                                      t.size() == 1 ? "" : "s", names.size(), expected));
  }
  return t;
}

// Fills the P2P, SM and engine columns named names[from...] from values[from...].
std::optional<error> read_columns(const text_line& l, const std::vector<std::string>& names,
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
std::optional<error> read_second_line(const std::vector<text_line>& row, const row_layout& lay,
                                      bool last_row_of_cut_table, listing_base& base,
                                      row_columns& out) {
  if (row.size() < 2) {
    std::string names;
    for (const auto& n : lay.second) names += (names.empty() ? "" : " ") + n;
    if (last_row_of_cut_table) {
      base.notes.push_back(fmt::format("line {}: the row stops after its first line: {} unknown",
                                       row[0].number, names));
      return std::nullopt;
    }
    return fail(row[0].number,
                fmt::format("row cut short: its second line ({}) is missing", names));
  }
  auto v = row_values(row[1], lay.second, 0);
  if (!v) return v.error();
  return read_columns(row[1], lay.second, *v, 0, out);
}

// "WHAT is listed twice (first at line N)" when `key` was listed before line `line`.
template <class Key>
std::optional<error> listed_twice(std::map<Key, int>& first_at, const Key& key, int line,
                                  std::string_view what) {
  const auto [it, fresh] = first_at.try_emplace(key, line);
  if (fresh) return std::nullopt;
  return fail(line, fmt::format("{} is listed twice (first at line {})", what, it->second));
}

std::string suffix_of(std::string_view name) {
  const auto at = name.find_first_of("+-");
  return at == std::string_view::npos ? std::string{} : std::string(name.substr(at));
}

// The row reader of the boxed tables: the values of one row, read in turn as
// typed cells. The first error is kept; cells read after it come back empty,
// and the row is refused with that error.
class row_cells {
 public:
  row_cells(const std::vector<text_line>& row, const row_layout& lay, bool cut_last,
            listing_base& base, tokens values)
      : row_(row), lay_(lay), cut_last_(cut_last), base_(base), values_(std::move(values)) {}

  int line() const { return row_[0].number; }
  std::size_t size() const { return values_.size(); }
  std::string_view text(std::size_t i) const { return values_[i]; }

  /// Keeps `e` unless an error came first.
  void check(std::optional<error> e) {
    if (!failed && e) failed = std::move(e);
  }
  int whole(std::string_view tok, std::string_view what) { return take(number(line(), what, tok)); }
  int whole(std::size_t i, std::string_view what) { return whole(values_[i], what); }
  std::string name(std::size_t i) { return take(read_name(line(), values_[i])); }
  placement place(std::size_t i) { return take(read_placement(line(), values_[i])); }
  std::pair<int, int> free_total(std::size_t i) {
    return take(read_free_total(line(), values_[i]));
  }
  int gib_x100(std::size_t i) { return take(read_gib_x100(line(), values_[i])); }
  /// The P2P, SM and engine columns: the first line's after the five fixed
  /// ones, and the second line's.
  void columns(row_columns& out) {
    if (failed) return;
    check(read_columns(row_[0], lay_.first, values_, 5, out));
    if (!failed) check(read_second_line(row_, lay_, cut_last_, base_, out));
  }
  /// "WHAT is listed twice (first at line N)" when `key` was listed before.
  template <class Key>
  void once(std::map<Key, int>& first_at, const Key& key, std::string_view what) {
    if (!failed) check(listed_twice(first_at, key, line(), what));
  }

  std::optional<error> failed;

 private:
  template <class T>
  T take(result<T> r) {
    if (failed) return T{};
    if (!r) {
      failed = r.error();
      return T{};
    }
    return std::move(*r);
  }

  const std::vector<text_line>& row_;
  const row_layout& lay_;
  bool cut_last_;
  listing_base& base_;
  tokens values_;
};

// Runs `read_row(cells, out)` on every row of every table: a row read into
// its listing, or the first error of its cells.
template <class Listing, class ReadRow>
result<Listing> read_boxed(std::string_view text, listing_kind kind, ReadRow read_row) {
  auto in = prepare(text);
  if (!in) return in.error();
  Listing out;
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
  std::set<int> gpus;
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
      auto r = read_row(cells, std::as_const(out));
      if (cells.failed) return *cells.failed;
      r.line = cells.line();
      add_gpu(out, gpus, r.gpu);
      out.rows.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace

std::string_view listing_option(listing_kind kind) noexcept {
  switch (kind) {
    case listing_kind::lgip:
      return "-lgip";
    case listing_kind::lgipp:
      return "-lgipp";
    case listing_kind::lgi:
      return "-lgi";
    case listing_kind::lci:
      return "-lci";
    case listing_kind::lcip:
      return "-lcip";
    case listing_kind::unknown:
      break;
  }
  return "";
}

listing_kind detect_listing(std::string_view text) {
  text = skip_bom(text);
  int n = 0;
  std::size_t pos = 0;
  while (pos < text.size() && n++ < 256) {
    const auto nl = text.find('\n', pos);
    const std::string_view l =
        trim(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    switch (classify(l)) {
      case line_type::blank:
      case line_type::comment:
      case line_type::frame:
      case line_type::separator:
        continue;
      case line_type::cells: {
        if (const listing_kind k = kind_of_title(cell_text(l)); k != listing_kind::unknown)
          return k;
        // A fragment's row: -lgip and -lcip rows hold FREE/TOTAL; -lgi and
        // -lgip have the name second, -lci and -lcip third (after the GI ID).
        const tokens t = split(cell_text(l));
        const auto mig = std::find(t.begin(), t.end(), "MIG") - t.begin();
        const bool counts = std::any_of(t.begin(), t.end(), [](std::string_view w) {
          return w.find('/') != std::string_view::npos;
        });
        if (mig == 1) return counts ? listing_kind::lgip : listing_kind::lgi;
        if (mig == 2) return counts ? listing_kind::lcip : listing_kind::lci;
        return listing_kind::unknown;
      }
      case line_type::cut:
        return listing_kind::unknown;
      case line_type::other:
        break;
    }
    switch (classify_message(l)) {
      case message::progress:
        continue;
      case message::no_gpu_instances:
        return listing_kind::lgi;
      case message::no_compute_instances:
        return listing_kind::lci;
      default:
        break;
    }
    return is_lgipp_line(split(l)) ? listing_kind::lgipp : listing_kind::unknown;
  }
  return listing_kind::unknown;
}

result<lgip_listing> read_lgip(std::string_view text) {
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

result<lgi_listing> read_lgi(std::string_view text) {
  // Per GPU: which row holds each unit, and where each instance ID was first listed.
  std::map<int, std::array<int, smi_units>> owner;
  std::map<std::pair<int, int>, int> id_at;
  return read_boxed<lgi_listing>(
      text, listing_kind::lgi, [&](row_cells& c, const lgi_listing& out) {
        lgi_row r;
        r.gpu = c.whole(0, "GPU index");
        r.name = c.name(1);
        r.profile_id = c.whole(2, "profile ID");
        r.instance_id = c.whole(3, "instance ID");
        r.at = c.place(4);
        c.once(id_at, {r.gpu, r.instance_id},
               fmt::format("GPU {} instance ID {}", r.gpu, r.instance_id));
        if (c.failed) return r;
        auto [o, created] = owner.try_emplace(r.gpu);
        if (created) o->second.fill(-1);
        for (int u = r.at.start; u < r.at.start + r.at.size; ++u) {
          const int other = o->second[static_cast<std::size_t>(u)];
          if (other < 0) continue;
          const lgi_row& x = out.rows[static_cast<std::size_t>(other)];
          c.check(fail(
              c.line(),
              fmt::format("GPU {} instance {} at {}:{} overlaps instance {} at {}:{} (line {})",
                          r.gpu, r.instance_id, r.at.start, r.at.size, x.instance_id, x.at.start,
                          x.at.size, x.line)));
          return r;
        }
        for (int u = r.at.start; u < r.at.start + r.at.size; ++u)
          o->second[static_cast<std::size_t>(u)] = static_cast<int>(out.rows.size());
        return r;
      });
}

result<lci_listing> read_lci(std::string_view text) {
  std::map<std::tuple<int, int, int>, int> id_at;  // (GPU, GI, CI) -> line
  return read_boxed<lci_listing>(text, listing_kind::lci, [&](row_cells& c, const lci_listing&) {
    lci_row r;
    r.gpu = c.whole(0, "GPU index");
    r.gi_id = c.whole(1, "GPU instance ID");
    r.name = c.name(2);
    r.profile_id = c.whole(3, "compute instance profile ID");
    r.ci_id = c.whole(4, "compute instance ID");
    if (c.size() > 5) r.at = c.place(5);
    c.once(id_at, {r.gpu, r.gi_id, r.ci_id},
           fmt::format("GPU {} GPU instance {} compute instance ID {}", r.gpu, r.gi_id, r.ci_id));
    return r;
  });
}

result<lcip_listing> read_lcip(std::string_view text) {
  std::map<std::tuple<int, int, int>, int> id_at;  // (GPU, GI, profile) -> line
  return read_boxed<lcip_listing>(text, listing_kind::lcip, [&](row_cells& c, const lcip_listing&) {
    lcip_row r;
    r.gpu = c.whole(0, "GPU index");
    r.gi_id = c.whole(1, "GPU instance ID");
    r.name = c.name(2);
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

result<lgipp_listing> read_lgipp(std::string_view text) {
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

std::string at_file(std::string_view shown, const std::string& message) {
  constexpr std::string_view prefix = "line ";
  const std::size_t colon = message.find(':');
  if (message.starts_with(prefix) && colon != std::string::npos && colon > prefix.size())
    return fmt::format("{}:{}{}", shown, message.substr(prefix.size(), colon - prefix.size()),
                       message.substr(colon));
  return fmt::format("{}: {}", shown, message);
}

}  // namespace migplan::cli::smi

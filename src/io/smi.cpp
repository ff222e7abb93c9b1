// SPDX-License-Identifier: Apache-2.0
// The lines of an nvidia-smi listing, the messages nvidia-smi prints between
// listings and the typed values of a cell: what every reader of smi_table.cpp,
// smi_profiles.cpp and smi_instances.cpp shares.
#include "io/smi.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <utility>

#include "io/smi_text.hpp"
#include "io/text_view.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli::smi {
namespace detail {
namespace {

constexpr std::string_view blanks = " \t\r\f\v";

// Largest number a column may hold: IDs, indices and counts are small; a
// larger one is garbage, refused before it could overflow anything.
constexpr int max_number = 65535;

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

}  // namespace

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

diagnostic fail(int line, std::string_view message) {
  return {{}, line, 0, {}, severity::error, std::string(message)};
}

diagnostic note_at(int line, std::string message) {
  return {{}, line, 0, {}, severity::note, std::move(message)};
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

bool is_lgipp_line(const tokens& t) {
  return t.size() >= 4 && t[0] == "GPU" && t[2] == "Profile" && t[3] == "ID";
}

read_result<input> prepare(std::string_view text) {
  text = skip_bom(text);
  if (text.size() > max_smi_bytes)
    return fail(0, fmt::format("input of {} bytes is larger than {} MiB, the most read",
                               text.size(), max_smi_bytes >> 20));
  input in;
  text_lines lines(text);
  while (const auto raw = lines.next()) {
    const int n = lines.number();
    const std::string_view t = trim(*raw);
    in.lines.push_back({n, t});
    if (t.starts_with("#") && trim(t.substr(1)) == "complete: no" && in.complete) {
      in.complete = false;
      in.marked_at = n;
    }
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
    base.notes.push_back(
        note_at(in.marked_at,
                "marked '# complete: no' (a partial capture or a fragment): rows may be missing"));
}

void add_gpu(listing_base& base, std::set<int>& seen, int gpu) {
  if (seen.insert(gpu).second) base.gpus.push_back(gpu);
}

// Messages taken so far.
std::optional<diagnostic> take_message(const text_line& l, listing_kind kind, listing_base& base,
                                       messages_seen& seen) {
  const message m = classify_message(l.text);
  const auto quoted = quote_token(l.text, 64);
  switch (m) {
    case message::no_devices:
      base.mig_disabled = true;
      seen.listed_nothing = true;
      base.notes.push_back(note_at(l.number, "nvidia-smi listed nothing: " + quoted));
      return std::nullopt;
    case message::no_gpu_instances:
      // Without GPU instances there are no compute instances or their profiles either.
      if (kind == listing_kind::lgi || kind == listing_kind::lci || kind == listing_kind::lcip) {
        seen.listed_nothing = true;
        base.notes.push_back(note_at(l.number, "nvidia-smi listed nothing: " + quoted));
        return std::nullopt;
      }
      return fail(l.number, fmt::format("{} is what nvidia-smi mig -lgi prints, not {}", quoted,
                                        listing_option(kind)));
    case message::no_compute_instances:
      if (kind == listing_kind::lci) {
        seen.listed_nothing = true;
        base.notes.push_back(note_at(l.number, "nvidia-smi listed nothing: " + quoted));
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
  base.notes.push_back(note_at(
      first, fmt::format("skipped {} line{} that nvidia-smi prints when it creates or destroys "
                         "instances",
                         count, plural(count))));
}

read_result<int> number(int line, std::string_view what, std::string_view tok) {
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
std::optional<diagnostic> check_placement(int line, std::string_view text, int start, int size) {
  if (start >= smi_units)
    return fail(line, fmt::format("placement {} starts at {}, outside units 0-{}",
                                  quote_token(text), start, smi_units - 1));
  if (size < 1) return fail(line, fmt::format("placement {} has size 0", quote_token(text)));
  if (start + size > smi_units)
    return fail(line,
                fmt::format("placement {} runs past unit {}", quote_token(text), smi_units - 1));
  return std::nullopt;
}

read_result<placement> read_placement(int line, std::string_view tok) {
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
read_result<std::pair<int, int>> read_free_total(int line, std::string_view tok) {
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
read_result<int> read_gib_x100(int line, std::string_view tok) {
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
read_result<std::string> read_name(int line, std::string_view tok) {
  const bool ok =
      !tok.empty() && tok.size() <= max_word && std::all_of(tok.begin(), tok.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '+' || c == '-' || c == '_';
      });
  if (!ok) return fail(line, fmt::format("invalid profile name {}", quote_token(tok)));
  return std::string(tok);
}

std::string suffix_of(std::string_view name) {
  const auto at = name.find_first_of("+-");
  return at == std::string_view::npos ? std::string{} : std::string(name.substr(at));
}

}  // namespace detail

using namespace detail;

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
  text_lines lines(skip_bom(text));
  for (auto raw = lines.next(); raw && lines.number() <= 256; raw = lines.next()) {
    const std::string_view l = trim(*raw);
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

std::optional<framed_listing> find_framed_listing(std::string_view text) {
  // `trimmed` is a view into `raw`: its 1-based column there.
  const auto column_of = [](std::string_view raw, std::string_view trimmed) {
    return static_cast<int>(trimmed.data() - raw.data()) + 1;
  };
  text_lines lines(skip_bom(text));
  bool after_frame = false;
  for (auto raw = lines.next(); raw && lines.number() <= 256; raw = lines.next()) {
    const std::string_view l = trim(*raw);
    const line_type type = classify(l);
    if (after_frame) {
      const listing_kind k =
          type == line_type::cells ? kind_of_title(cell_text(l)) : listing_kind::unknown;
      if (k == listing_kind::unknown) return std::nullopt;
      return framed_listing{k, lines.number(), column_of(*raw, l)};
    }
    if (type == line_type::blank || type == line_type::comment) continue;
    if (type == line_type::frame) {
      after_frame = true;
      continue;
    }
    if (type != line_type::other) return std::nullopt;
    if (classify_message(l) == message::progress) continue;
    if (!is_lgipp_line(split(l))) return std::nullopt;
    return framed_listing{listing_kind::lgipp, lines.number(), column_of(*raw, l)};
  }
  return std::nullopt;
}

}  // namespace migplan::cli::smi

// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the readers of nvidia-smi's listings share (internal to src/io): the
// lines of a text and the messages nvidia-smi prints between listings
// (smi.cpp), the typed values of a cell (smi.cpp), and the boxed tables of
// -lgip, -lgi, -lci and -lcip with their one row reader, row_cells
// (smi_table.cpp). The readers themselves are smi_profiles.cpp (-lgip, -lcip,
// -lgipp) and smi_instances.cpp (-lgi, -lci).

#include <fmt/format.h>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/smi.hpp"
#include "text.hpp"

namespace migplan::cli::smi::detail {

using tokens = std::vector<std::string_view>;

/// Most characters of a name or column heading a reader keeps: the longest
/// profile name is 16 characters ("2g.48gb+me.all"), so anything longer is garbage.
inline constexpr std::size_t max_word = 32;

/// The words of `s`, split on white space.
tokens split(std::string_view s);
/// The words joined by one space.
std::string join(const tokens& t);
/// An error at line `line` of the text.
diagnostic fail(int line, std::string_view message);
/// A note at line `line` of the text.
diagnostic note_at(int line, std::string message);

/// A boxed table's title: "GPU instances:"; "" for -lgipp, which has none.
std::string_view title_of(listing_kind kind);
/// What the listing is, for messages: "nvidia-smi mig -lgi output (GPU instances)".
std::string describe(listing_kind kind);
/// The listing a table's title names; unknown for any other text.
listing_kind kind_of_title(std::string_view cells);

// ---------------------------------------------------------------------------------------------
// Lines.

/// One line of the text.
struct text_line {
  int number = 0;         ///< 1-based
  std::string_view text;  ///< without surrounding white space
};

/// What a line is, by its first and last characters.
enum class line_type {
  blank,
  comment,    ///< '#': our captures' heading, never printed by nvidia-smi
  frame,      ///< +-----+
  separator,  ///< |=====|
  cells,      ///< | ... |
  cut,        ///< '|' or '+' without the closing one
  other,      ///< a message, a -lgipp line or garbage
};

/// What `t` (a trimmed line) is.
line_type classify(std::string_view t);

/// The text between a cells line's borders, trimmed.
inline std::string_view cell_text(std::string_view t) { return trim(t.substr(1, t.size() - 2)); }

/// A -lgipp line: "GPU N Profile ID ...".
bool is_lgipp_line(const tokens& t);

/// The text as lines, and whether it is marked "# complete: no".
struct input {
  std::vector<text_line> lines;
  bool complete = true;
  int marked_at = 0;  ///< the "# complete: no" line
};

/// The lines of `text`, or an error for a text over max_smi_bytes.
read_result<input> prepare(std::string_view text);

/// The last line that holds anything but white space and '#' lines; 0 for none.
int last_content_line(const input& in);

/// A partial capture says so first: whatever else it lacks, rows may be missing.
void note_partial(const input& in, listing_base& base);

/// Adds `gpu` to base.gpus the first time it is seen.
void add_gpu(listing_base& base, std::set<int>& seen, int gpu);

/// Messages taken so far.
struct messages_seen {
  int progress = 0;        ///< "Successfully ..." lines skipped
  int first_progress = 0;  ///< the line of the first
  bool listed_nothing = false;
};

/// What every reader does with a line outside its rows: a message, or an error.
/// Returns an error, or nothing when the line is taken.
std::optional<diagnostic> take_message(const text_line& l, listing_kind kind, listing_base& base,
                                       messages_seen& seen);

/// The note on the progress lines skipped, if any.
void note_progress(listing_base& base, const messages_seen& seen);

// ---------------------------------------------------------------------------------------------
// Values.

/// A number of at most 65535; `what` names it in the error.
read_result<int> number(int line, std::string_view what, std::string_view tok);

/// Checks a start and size against the 16 units: start 0-15, start + size at
/// most 16; `text` is the placement as printed.
std::optional<diagnostic> check_placement(int line, std::string_view text, int start, int size);

/// "START:SIZE".
read_result<placement> read_placement(int line, std::string_view tok);

/// "7/7" -> free and total.
read_result<std::pair<int, int>> read_free_total(int line, std::string_view tok);

/// "4.75" -> 475; at most two decimals, as nvidia-smi prints GiB.
read_result<int> read_gib_x100(int line, std::string_view tok);

/// A profile name as nvidia-smi prints it: "1g.5gb", "1c.3g.20gb", "1g.24gb+me.all".
read_result<std::string> read_name(int line, std::string_view tok);

/// The attributes after a profile's size: "+me.all" of "1g.24gb+me.all"; "" for none.
std::string suffix_of(std::string_view name);

/// "WHAT is listed twice (first at line N)" when `key` was listed before line `line`.
template <class Key>
std::optional<diagnostic> listed_twice(std::map<Key, int>& first_at, const Key& key, int line,
                                       std::string_view what) {
  const auto [it, fresh] = first_at.try_emplace(key, line);
  if (fresh) return std::nullopt;
  return fail(line, fmt::format("{} is listed twice (first at line {})", what, it->second));
}

// ---------------------------------------------------------------------------------------------
// Boxed tables (smi_table.cpp).

/// The values of a row's first and second line, named as the heading names them.
struct row_layout {
  std::vector<std::string> first;
  std::vector<std::string> second;  ///< empty: rows have one line
  std::size_t name_at = 1;          ///< the profile name ("MIG " is dropped before it)
};

/// The row reader of the boxed tables: the values of one row, read in turn as
/// typed cells. The first error is kept; cells read after it come back empty,
/// and the row is refused with that error.
class row_cells {
 public:
  row_cells(const std::vector<text_line>& row, const row_layout& lay, bool cut_last,
            listing_base& base, tokens values)
      : row_(row), lay_(lay), cut_last_(cut_last), base_(base), values_(std::move(values)) {}

  int line() const { return row_[0].number; }
  std::size_t size() const { return values_.size(); }
  std::string_view text(std::size_t i) const { return values_[i]; }

  /// Keeps `e` unless an error came first.
  void check(std::optional<diagnostic> e) {
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
  void columns(row_columns& out);
  /// "WHAT is listed twice (first at line N)" when `key` was listed before.
  template <class Key>
  void once(std::map<Key, int>& first_at, const Key& key, std::string_view what) {
    if (!failed) check(listed_twice(first_at, key, line(), what));
  }

  std::optional<diagnostic> failed;

 private:
  template <class T>
  T take(read_result<T> r) {
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

/// Reads the boxed tables of `text` (-lgip, -lgi, -lci or -lcip, as `kind`
/// says) and hands every row to `take_row`. Returns the first error: of the
/// text, of its tables, or of a row's cells.
std::optional<diagnostic> read_tables(std::string_view text, listing_kind kind, listing_base& out,
                                      const std::function<void(row_cells&)>& take_row);

/// Runs `read_row(cells, out)` on every row of every table: a row read into
/// its listing, or the first error of its cells.
template <class Listing, class ReadRow>
read_result<Listing> read_boxed(std::string_view text, listing_kind kind, ReadRow read_row) {
  Listing out;
  std::set<int> gpus;
  auto failed = read_tables(text, kind, out, [&](row_cells& cells) {
    auto r = read_row(cells, std::as_const(out));
    if (cells.failed) return;
    r.line = cells.line();
    add_gpu(out, gpus, r.gpu);
    out.rows.push_back(std::move(r));
  });
  if (failed) return *failed;
  return out;
}

/// The first cells of a -lci or -lcip row: GPU index, GPU instance ID and
/// profile name.
template <class Row>
void read_ci_head(row_cells& c, Row& r) {
  r.gpu = c.whole(0, "GPU index");
  r.gi_id = c.whole(1, "GPU instance ID");
  r.name = c.name(2);
}

}  // namespace migplan::cli::smi::detail

// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one way migplan reads its inputs: a named file, or the context's input
// stream for "-"; and the list of files a `check` argument stands for.

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"

namespace migplan::cli {

/// A smaller limit that only some inputs may pass: once more than `at` bytes
/// are read, `may_pass` is asked once, with the text so far, whether reading
/// goes on (to the whole limit) or stops there. No soft limit when `at` is 0.
struct soft_limit {
  std::size_t at = 0;                                 ///< bytes; 0: none
  bool (*may_pass)(std::string_view head) = nullptr;  ///< asked once past `at`
};

/// Reads a file, or `in` for "-", of at most `limit` bytes. Every kind of
/// file (a regular file, a pipe, a character device such as /dev/zero, a
/// /proc file) is read the same way, no further than one byte past `limit`
/// (or past `soft.at`, when `soft.may_pass` says no), and memory follows the
/// bytes read: never more than `limit` + 1. A regular file whose size is
/// already too large is refused unread. A longer input sets `too_large` and
/// the error is "larger than 1 MiB" (or "larger than N bytes"); the caller
/// says whose limit it is. Otherwise the error says why not ("No such file
/// or directory", "is a directory"); the caller names the file. A file is
/// opened without waiting: a named pipe that no writer holds open reads as
/// empty instead of blocking until one comes. The first NUL byte ends the
/// read with an error naming its line and column: no input migplan reads is
/// binary, and /dev/zero is refused at once.
result<std::string> read_source_bounded(const std::string& path, std::istream& in,
                                        std::size_t limit, bool& too_large,
                                        const soft_limit& soft = {});

/// read_source_bounded() of a stream buffer already open.
result<std::string> read_bounded(std::streambuf& buf, std::size_t limit, bool& too_large,
                                 const soft_limit& soft = {});

/// Opens a file for reading line by line (for "-", the caller reads its own
/// input stream), without waiting, as read_source_bounded() does. The error
/// says why not.
result<std::unique_ptr<std::istream>> open_source(const std::string& path);

/// Reads lines one at a time, as they arrive: a request written to a pipe is
/// answered before the next one is read. A UTF-8 byte-order mark at the start
/// is skipped; a line ends at "\n" (a "\r" before it is dropped).
class line_reader {
 public:
  /// What next() found.
  enum class status {
    line,      ///< a line, in `line`
    end,       ///< the end of the input
    too_long,  ///< a line longer than the limit (nothing more is read)
    failed,    ///< a read failed (nothing more is read): failure() says why
  };
  /// Reads `in`, refusing lines longer than `max_line` bytes (not counting the
  /// byte-order mark and "\r" it drops).
  line_reader(std::istream& in, std::size_t max_line) : in_(in), max_line_(max_line) {}
  /// The next line, without its end.
  status next(std::string& line);
  /// Number of the line next() returned last (1-based).
  long long number() const noexcept { return number_; }
  /// Bytes read so far.
  long long bytes() const noexcept { return bytes_; }
  /// Why the read failed, after next() said status::failed ("Bad file
  /// descriptor"); number() is then the last whole line read.
  const std::string& failure() const noexcept { return failure_; }
  /// True when the next line can be read without waiting for more input:
  /// a caller flushes its answers before it would block.
  bool ready() const;

 private:
  std::istream& in_;
  std::size_t max_line_;
  long long number_ = 0;
  long long bytes_ = 0;
  std::string failure_;
};

/// Where a byte of a text is: its 1-based line and 1-based byte column.
struct text_position {
  int line = 1;
  int column = 1;
};

/// The lines of a text, found on first use: the one way from a byte offset
/// to a line and column. Lines end at '\n' (a "\r\n" is one break, a lone
/// '\r' none, as yaml-cpp and nlohmann count); columns are in bytes. With
/// `bom` skipped, a UTF-8 byte-order mark at the start is not counted in the
/// first line's columns (as yaml-cpp counts them). The text must outlive it.
class line_table {
 public:
  enum class bom : bool { counted, skipped };
  explicit line_table(std::string_view text, bom b = bom::counted) : text_(text), bom_(b) {}
  /// Number of lines (a text without '\n' has one).
  std::size_t count() const { return starts().size(); }
  /// Byte where 0-based line `line0` starts.
  std::size_t start(std::size_t line0) const { return starts()[line0]; }
  /// Bytes of 0-based line `line0`, without its break (nor a '\r' before it).
  std::size_t length(std::size_t line0) const;
  /// 0-based line of byte `at`.
  std::size_t line_of(std::size_t at) const;
  /// Line and column of byte `at` (at most the text's size).
  text_position position(std::size_t at) const;

 private:
  const std::vector<std::size_t>& starts() const;
  std::string_view text_;
  bom bom_;
  mutable std::vector<std::size_t> starts_;  // empty until first asked
};

/// One input to check: named on the command line, or found under a directory.
struct source {
  std::string path;             ///< to open ("-" for standard input)
  std::string shown;            ///< for diagnostics ("<stdin>" for "-")
  std::string empty_dir_error;  ///< set for a directory with nothing to check
  bool scanned = false;         ///< found under a directory, not named
};

/// The inputs `args` stand for: files and "-" as given, each directory as
/// every *.yaml, *.yml and *.json file under it, sorted. Hidden entries (a
/// name starting with '.') under a directory are skipped, as ripgrep skips
/// them; named on the command line, they are read.
std::vector<source> expand_sources(const std::vector<std::string>& args);

/// True when a source is JSON: by its extension, or for standard input by its
/// first character ('{' or '[').
bool looks_json(const source& s, std::string_view text);

}  // namespace migplan::cli

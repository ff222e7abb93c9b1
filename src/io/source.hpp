// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one way migplan reads its inputs: a named file, or the context's input
// stream for "-"; and the list of files a `check` argument stands for.

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"

namespace migplan::cli {

/// Reads a whole file, or all of `in` for "-". The error says why not
/// ("No such file or directory", "is a directory"); the caller names the file.
result<std::string> read_source(const std::string& path, std::istream& in);

/// Reads like read_source, but at most `limit` bytes: a regular file larger
/// than that is refused unread, a pipe or a device is read to `limit` + 1
/// bytes and refused. Then `too_large` is set and the error is "larger than
/// 1 MiB" (or "larger than N bytes"); the caller says whose limit it is.
result<std::string> read_source_bounded(const std::string& path, std::istream& in,
                                        std::size_t limit, bool& too_large);

/// Opens a file for reading line by line (for "-", the caller reads its own
/// input stream). The error says why not.
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
  };
  /// Reads `in`, refusing lines longer than `max_line` bytes.
  line_reader(std::istream& in, std::size_t max_line) : in_(in), max_line_(max_line) {}
  /// The next line, without its end.
  status next(std::string& line);
  /// Number of the line next() returned last (1-based).
  long long number() const noexcept { return number_; }
  /// Bytes read so far.
  long long bytes() const noexcept { return bytes_; }
  /// True when the next line can be read without waiting for more input:
  /// a caller flushes its answers before it would block.
  bool ready() const;

 private:
  std::istream& in_;
  std::size_t max_line_;
  long long number_ = 0;
  long long bytes_ = 0;
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

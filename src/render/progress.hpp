// SPDX-License-Identifier: Apache-2.0
#pragma once

// A progress line for long work: one line on a terminal's standard error,
// rewritten in place and cleared at the end, so that nothing of it is left
// in what the terminal shows, and nothing at all is written where standard
// error is not a terminal (a file, a pipe, a test).

#include <chrono>
#include <iosfwd>
#include <string_view>

namespace migplan::cli::render {

/// One updating line on `err`, shown only when enabled and once the work has
/// run for a second, rewritten at most ten times a second.
class progress_line {
 public:
  using clock = std::chrono::steady_clock;
  /// The time now: steady_clock's, or a test's own, which it moves by hand.
  using clock_source = clock::time_point (*)();

  /// `enabled`: standard error is a terminal and nothing asks for quiet
  /// (JSON output). `now` tells the time (null: the steady clock).
  progress_line(std::ostream& err, bool enabled, clock_source now = nullptr);
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;
  /// Clears the line.
  ~progress_line();
  /// True when a call to show() now would be seen (cheap enough to ask every few thousand steps).
  bool due();
  /// Writes `text` over the line (plain ASCII, no escape sequences: it works on a dumb terminal).
  void show(std::string_view text);
  /// Blanks the line and returns the cursor to its start, if anything was shown.
  void clear();

 private:
  clock::time_point current_time() const { return now_ != nullptr ? now_() : clock::now(); }
  std::ostream* err_;
  clock_source now_;
  bool enabled_;
  clock::time_point start_;
  clock::time_point last_;
  std::size_t shown_ = 0;  // characters on the line now
};

}  // namespace migplan::cli::render

// SPDX-License-Identifier: Apache-2.0
#include "render/progress.hpp"

#include <ostream>
#include <string>

namespace migplan::cli::render {

namespace {
// Work shorter than this shows no line; a line rewritten more often only flickers.
constexpr auto quiet_for = std::chrono::seconds(1);
constexpr auto every = std::chrono::milliseconds(100);
}  // namespace

progress_line::progress_line(std::ostream& err, bool enabled, clock_source now)
    : err_(&err), now_(now), enabled_(enabled), start_(current_time()), last_(start_ - every) {}

progress_line::~progress_line() { clear(); }

bool progress_line::due() {
  if (!enabled_) return false;
  const clock::time_point now = current_time();
  return now - start_ >= quiet_for && now - last_ >= every;
}

void progress_line::show(std::string_view text) {
  if (!enabled_) return;
  last_ = current_time();
  std::string line = "\r";
  line += text;
  if (text.size() < shown_) line.append(shown_ - text.size(), ' ');
  shown_ = text.size();
  *err_ << line << std::flush;
}

void progress_line::clear() {
  if (shown_ == 0) return;
  *err_ << '\r' << std::string(shown_, ' ') << '\r' << std::flush;
  shown_ = 0;
}

}  // namespace migplan::cli::render

// SPDX-License-Identifier: Apache-2.0
#pragma once

// `pack --batch`: a stream of requests, one per line ('#' starts a comment,
// blank lines are skipped), each answered as it is read. The loop reads and
// answers; what becomes of each answer (a JSON line, a TSV line) is the
// caller's sink, so answers stream out as fast as requests stream in.

#include <cstddef>
#include <istream>
#include <string>

#include "model/pack.hpp"

namespace migplan::cli::pack {

/// Input limits of --batch (documented in migplan-pack(1)).
inline constexpr std::size_t max_batch_line = 65536;     ///< bytes in one line
inline constexpr long long max_batch_bytes = 1LL << 30;  ///< bytes in all

/// Where a batch's answers go, line by line.
class batch_sink {
 public:
  virtual ~batch_sink() = default;
  /// The answer to the request on line `line`.
  virtual void answer(long long line, const pack_answer& a) = 0;
  /// The request on line `line` is bad input, and why; or, with `ambiguity`
  /// set (and `message` empty), it names profiles that several models answer
  /// differently, without --gpu. A failure that ends
  /// the input (a line or input too long) comes with `final` set.
  virtual void failure(long long line, const std::string& message, const pack_ambiguity* ambiguity,
                       bool final) = 0;
  /// Writes what was answered so far; false when the output is gone (a full
  /// disk, a closed pipe), which ends the batch.
  virtual bool flush(bool before_wait) = 0;
};

/// How a batch went.
struct batch_result {
  bool any_input = false;    ///< a line was read
  bool bad_input = false;    ///< some line was bad input
  bool no_fit = false;       ///< some request did not fit
  bool output_lost = false;  ///< flush() failed: the batch stopped
};

/// Answers every request of `in` on `gpu` (or on the models each request's
/// profiles name, when null), with explanations unless `brief`.
batch_result run_batch(std::istream& in, const gpu_model* gpu, bool brief, batch_sink& sink);

}  // namespace migplan::cli::pack

// SPDX-License-Identifier: Apache-2.0
#pragma once

// `pack --batch`: a stream of requests, one per line ('#' starts a comment,
// blank lines are skipped), each answered as it is read. The loop reads and
// answers; what becomes of each answer (a JSON line, a TSV line) is the
// caller's sink (model/pack.hpp), so answers stream out as fast as requests stream in.

#include <cstddef>
#include <istream>
#include <migplan/lookup.hpp>
#include <string>

#include "error.hpp"
#include "model/pack.hpp"

namespace migplan::cli::pack {

/// Input limits of --batch (documented in migplan-pack(1)).
inline constexpr std::size_t max_batch_line = 65536;     ///< bytes in one line
inline constexpr long long max_batch_bytes = 1LL << 30;  ///< bytes in all

/// How a batch went.
struct batch_result {
  bool any_input = false;    ///< a line was read
  bool bad_input = false;    ///< some line was bad input
  bool no_fit = false;       ///< some request did not fit
  bool output_lost = false;  ///< flush() failed: the batch stopped
  std::string stopped;       ///< why the input was not read to its end (a line too long)
  bool read_failed = false;  ///< a read failed: `stopped` says why

  /// Nothing was read (an empty file or stream): bad input of its own.
  bool empty() const { return !any_input && !bad_input; }
  /// The batch's exit code: bad input (2) when the output was lost, the
  /// input was empty or some line was bad input; else 1 when some request
  /// did not fit; else 0.
  int exit_code() const {
    if (output_lost || empty() || bad_input) return exit_bad_input;
    return no_fit ? exit_no_fit : exit_ok;
  }
  /// What to report of the batch as a whole, `name` being --batch's value:
  /// why the input stopped, or that there was none; empty when neither.
  std::string problem(std::string_view name) const;
};

/// Answers every request of `in` on `gpu` (or on the models each request's
/// profiles name, when null), with explanations and spare capacity unless
/// `brief` (of every layout with `all`, else of the preferred one).
batch_result run_batch(model_list models, std::istream& in, const gpu_model* gpu, bool brief,
                       bool all, pack_batch_sink& sink);

}  // namespace migplan::cli::pack

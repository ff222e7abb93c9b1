// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan simulate` replays: the rows of a trace as src/io/trace reads
// them (times in seconds, items in plan's demand grammar, not yet resolved to
// a model's profiles). One contract between the trace reader, the command and
// the writers.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "diagnostic.hpp"
#include "model/plan.hpp"

namespace migplan::cli {

/// What one pod of a row asks for.
enum class trace_need : std::uint8_t {
  item,   ///< `item`: a profile, a CI profile (served by its GPU instance) or a memory need
  whole,  ///< `instances` whole GPUs (the full-GPU profile), one node, all or nothing
  share,  ///< a share of one GPU, `milli` thousandths (Alibaba's gpu_milli below 1000)
};

/// One row of a trace: `count` identical pods.
struct trace_row {
  std::string name;                 ///< as the file names it; may be empty
  std::int64_t start = 0;           ///< arrival, seconds (since the epoch for RFC 3339 times)
  std::optional<std::int64_t> end;  ///< departure; none runs to the end of the trace
  long long count = 1;              ///< pods
  trace_need need = trace_need::item;
  demand_item item;   ///< for trace_need::item (its count is 1)
  int instances = 1;  ///< instances per pod, all on one node (the `Nx` of the item)
  int milli = 0;      ///< for trace_need::share: thousandths of a GPU (1..999)
  std::string file;   ///< the file it is in, as messages name it
  int line = 0;       ///< its line there
};

/// "FILE:LINE", as every message names a row.
inline std::string where(const trace_row& row) { return position_text(row.file, row.line); }

/// An error about `row`: "FILE:LINE: message", with the file and line kept
/// for --json's error document.
inline diagnostic row_diagnostic(const trace_row& row, std::string message) {
  return diagnostic{row.file, row.line, 0, {}, severity::error, std::move(message)};
}

/// A trace as read.
struct trace {
  std::vector<trace_row> rows;        ///< in file order (the order of arrivals at one time)
  bool alibaba = false;               ///< read as Alibaba's cluster-trace-gpu-v2023 pod list
  long long skipped = 0;              ///< Alibaba rows without a GPU (num_gpu 0), skipped
  std::vector<std::string> warnings;  ///< what the trace reads as but likely does not mean
};

}  // namespace migplan::cli

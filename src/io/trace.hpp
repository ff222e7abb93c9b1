// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading a trace for `migplan simulate` (doc/simulate.md "Traces"): rows of
// pods with a start, an optional end, a count and an item in plan's demand
// grammar, as CSV, YAML or JSON; or Alibaba's cluster-trace-gpu-v2023
// `openb_pod_list_*.csv` pod lists as published. YAML and JSON are read
// through the document layer (io/document.hpp) and its schema walker; every
// error is one line, "FILE:LINE: message", as plan's readers write them. It
// shares plan's item parser (parse_demand_word) and CSV splitter.

#include <cstddef>
#include <iosfwd>
#include <migplan/lookup.hpp>
#include <string>
#include <string_view>

#include "error.hpp"
#include "io/plan_input.hpp"
#include "model/trace.hpp"

namespace migplan::cli {

/// The most bytes read of a trace file.
inline constexpr std::size_t max_trace_bytes = std::size_t{256} << 20;
/// The most pods of a trace, counts summed.
inline constexpr long long max_trace_pods = 5'000'000;
/// The most instances (or whole GPUs) of one pod: the most GPUs of a node.
inline constexpr int max_pod_instances = 64;
/// The largest time, in seconds either side of zero (about 31,700 years).
inline constexpr std::int64_t max_trace_time = 1'000'000'000'000;

/// Parses a trace. CSV: a header naming the columns start and item, and
/// optionally name, end and count (or Alibaba's pod-list header); YAML and
/// JSON: `version: 1` and `pods:`, a list of {name?, start, end?, count?,
/// item}. Times are whole seconds or RFC 3339 ("2023-07-01T08:00:00Z").
/// A misspelt profile gets suggestions from the profiles of `fleet`, the
/// models replayed, when the caller knows them (else of `models`).
/// Never throws.
result<trace> parse_trace(model_list models, std::string_view text, std::string_view shown,
                          plan_file_format format, model_list fleet = {});

/// Reads a trace file ("-" reads `in`), the format by plan_format_of().
result<trace> read_trace(model_list models, const std::string& path, std::istream& in,
                         model_list fleet = {});

/// Parses an RFC 3339 time or a whole number of seconds into seconds since
/// the epoch; the error says what is wrong.
result<std::int64_t> parse_trace_time(std::string_view text);

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#pragma once

// Memory sizes and counts as people type them: "12Gi", "12GiB", "12288Mi",
// "1.5GiB", "12G" (10^9 bytes, as in Kubernetes), "20".

#include <cstdint>
#include <optional>
#include <string_view>

#include "error.hpp"

namespace migplan::cli {

/// Largest size parse_size_mib() accepts, in MiB (about 1 PiB: far beyond any GPU).
inline constexpr std::int64_t max_size_mib = 1'000'000'000;

/// Parses a size into MiB, rounded up to a whole MiB. Binary units, any case:
/// Ki/KiB, Mi/MiB, Gi/GiB, Ti/TiB (2^10 ... 2^40 bytes). Decimal units as
/// Kubernetes spells them: k, M, G, T (10^3 ... 10^12 bytes), and kB/KB, MB,
/// GB, TB in any case. A bare number, or "m", "g", "t" (milli in Kubernetes,
/// or a guess at binary or decimal), is refused; the error says what to write.
result<std::int64_t> parse_size_mib(std::string_view text);

/// Parses the value of option `option` (e.g. "--count") as a whole number
/// from `low` to `high`; the error says whether it is not a number, too
/// small or too large.
result<long long> parse_whole_number(std::string_view option, std::string_view text, long long low,
                                     long long high);

/// A finite decimal as std::from_chars reads one, a leading '+' allowed; nothing
/// when `text` is not one.
std::optional<double> parse_decimal(std::string_view text);

/// Parses the value of `what` ("--cost h100-80gb") as a decimal more than 0
/// and at most `high`; the error says whether it is not a number or out of range.
result<double> parse_positive(std::string_view what, std::string_view text, double high);

/// Parses a duration into whole seconds, at most `most`: whole seconds
/// ("600"), or whole numbers each with a unit, s, m, h or d, largest first
/// ("90s", "10m", "1h30m", "2d"). The error says what to write.
result<std::int64_t> parse_duration_s(std::string_view text, std::int64_t most);

/// Parses the value of option `option` as seconds with at most three
/// decimals ("1.5", "0.25", "2") into thousandths of a second, at most
/// `most_s` seconds; the error says what to write.
result<std::int64_t> parse_milliseconds(std::string_view option, std::string_view text,
                                        std::int64_t most_s);

}  // namespace migplan::cli

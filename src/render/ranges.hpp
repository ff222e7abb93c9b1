// SPDX-License-Identifier: Apache-2.0
#pragma once

// Lists of numbers and names written as ranges, for reports at cluster scale:
// GPU indexes as "0-3,5", node names as Slurm writes host lists,
// "gpu-a[0-3,5],login".

#include <string>
#include <vector>

namespace migplan::cli::render {

/// "0-3,5": the numbers ascending, each run of consecutive ones as FIRST-LAST,
/// duplicates once; "" for none.
std::string number_ranges(std::vector<long long> v);

/// Node names as a host list: names that end in a number and share what comes
/// before it are one "PREFIX[RANGES]" ("gpu-a0".."gpu-a3", "gpu-a5" ->
/// "gpu-a[0-3,5]"), zero padding kept ("n08", "n09", "n10" -> "n[08-10]");
/// a name alone of its prefix, a name without a number and a name holding
/// '[', ']' or ',' are written as they are. Entries are joined by ',', in the
/// order each prefix first appears; duplicates once.
std::string name_ranges(const std::vector<std::string>& names);

}  // namespace migplan::cli::render

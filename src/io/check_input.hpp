// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading the files `migplan check` validates: migplan's own geometry files
// (YAML or JSON, `version: 1`, `gpus:`) and NVIDIA mig-parted configs
// (`version: v1`, `mig-configs:`). This layer only reads and checks the
// schema, with a line and column for everything; resolving names against the
// catalog and checking feasibility is the command's job.

#include <cstdint>
#include <string>
#include <string_view>

#include "model/check.hpp"

namespace migplan::cli::check {

/// Reads `text` (JSON syntax is checked first when `json`): syntax, schema and
/// mig-parted's own parse-time rules. Never throws.
parsed_input parse_check_input(std::string_view text, bool json);

/// The keys each mapping of the two formats accepts (for suggestions and docs).
inline constexpr std::string_view geometry_top_keys[] = {"version", "gpus", "comment"};
inline constexpr std::string_view geometry_entry_keys[] = {"model", "index", "name", "comment",
                                                           "instances"};
inline constexpr std::string_view mig_parted_top_keys[] = {"version", "mig-configs"};
inline constexpr std::string_view mig_parted_entry_keys[] = {"device-filter", "devices",
                                                             "mig-enabled", "mig-devices"};

/// Checks a mig-devices key the way mig-parted does before it touches a GPU
/// ([Cc.]Gg.MEMgb, then +attr or -attr, attributes alphanumeric or '.');
/// returns "" when valid, else why not.
std::string mig_profile_format_error(std::string_view name);

/// Reads a device-filter ID the way mig-parted does ("0x20B010DE", decimal,
/// an optional ":SUBSYSTEM" part); false when it cannot.
bool parse_filter_id(std::string_view text, std::uint32_t& out);

}  // namespace migplan::cli::check

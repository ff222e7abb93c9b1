// SPDX-License-Identifier: Apache-2.0
#pragma once

// Memory sizes as people type them: "12GiB", "12G", "12288MiB", "1.5GiB".

#include <cstdint>
#include <string_view>

#include "error.hpp"

namespace migplan::cli {

/// Parses a size into MiB, rounded up. Units: GiB or G, MiB or M, TiB or T
/// (binary, case-insensitive); the error says what is wrong.
result<std::int64_t> parse_size_mib(std::string_view text);

}  // namespace migplan::cli

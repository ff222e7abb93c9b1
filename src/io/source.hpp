// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

#include "error.hpp"

namespace migplan::cli {

/// Reads a whole file, or standard input for "-".
result<std::string> read_source(const std::string& path);

/// The name diagnostics use for a path ("<stdin>" for "-").
std::string display_path(std::string_view path);

}  // namespace migplan::cli

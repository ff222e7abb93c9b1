// SPDX-License-Identifier: Apache-2.0
// Fuzz target: a file for `migplan check`, read as YAML and as JSON. The
// reader must report, never throw or crash.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/check_input.hpp"
#include "models.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)migplan::cli::check::parse_check_input(migplan::cli::builtin_models(), text, false);
  (void)migplan::cli::check::parse_check_input(migplan::cli::builtin_models(), text, true);
  return 0;
}

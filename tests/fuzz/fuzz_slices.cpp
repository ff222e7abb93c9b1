// SPDX-License-Identifier: Apache-2.0
// Fuzz target: DRA ResourceSlices for `migplan check`, read as YAML and as
// JSON, and what reads as slices checked (limits, names, the counters'
// admission walk within its budget). The reader and the checker must
// report, never throw, crash or hang.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "check/checker.hpp"
#include "io/check_input.hpp"
#include "models.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  migplan::cli::check::check_settings settings;
  settings.models = migplan::cli::builtin_models();
  for (const bool json : {false, true}) {
    std::optional<migplan::cli::check::parsed_input> read =
        migplan::cli::check::read_resource_slices(text, json);
    if (!read) continue;
    migplan::cli::check::file_check f;
    f.path = "fuzz";
    f.text = std::string(text);
    f.input = std::move(*read);
    migplan::cli::check::check_slices(f, settings);
  }
  return 0;
}

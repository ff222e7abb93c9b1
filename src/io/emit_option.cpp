// SPDX-License-Identifier: Apache-2.0
#include "io/emit_option.hpp"

#include <fmt/format.h>

#include "io/names.hpp"
#include "quote.hpp"

namespace migplan::cli {

std::string unknown_emit_kind(std::string_view given, std::string_view command,
                              std::span<const std::string> kinds) {
  const std::string listed = kinds.size() == 1 ? fmt::format("{} writes {}", command, kinds.front())
                                               : fmt::format("kinds: {}", fmt::join(kinds, ", "));
  return fmt::format("unknown --emit kind {}{}; {}", quote_token(given), did_you_mean(given, kinds),
                     listed);
}

}  // namespace migplan::cli

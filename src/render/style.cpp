// SPDX-License-Identifier: Apache-2.0
#include "render/style.hpp"

#include <fmt/format.h>

#include <array>

namespace migplan::cli {

std::string paint(bool on, tone t, std::string_view text, int index) {
  if (!on) return std::string(text);
  // Instance colours cycle through six distinguishable foregrounds.
  static constexpr std::array<std::string_view, 6> instance_codes{"36", "35", "33",
                                                                  "32", "34", "31"};
  std::string_view code;
  switch (t) {
    case tone::bold:
      code = "1";
      break;
    case tone::dim:
      code = "2";
      break;
    case tone::good:
      code = "32";
      break;
    case tone::bad:
      code = "31";
      break;
    case tone::instance:
      code = instance_codes[static_cast<std::size_t>(index) % instance_codes.size()];
      break;
  }
  return fmt::format("\x1b[{}m{}\x1b[0m", code, text);
}

std::string gib_text(std::optional<int> gib_x100) {
  if (!gib_x100) return "?";
  return fmt::format("{}.{:02} GiB", *gib_x100 / 100, *gib_x100 % 100);
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#include "io/size.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <migplan/detail/strings.hpp>

namespace migplan::cli {

result<std::int64_t> parse_size_mib(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  const std::string_view num = text.substr(0, i), unit = text.substr(i);
  double v = 0;
  auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  if (num.empty() || ec != std::errc() || p != num.data() + num.size())
    return error{fmt::format(
        "invalid size '{}': expected a number with a unit, e.g. 12GiB or 12288MiB", text)};
  const auto is = [&](std::string_view name) { return detail::iequals(unit, name); };
  double mib = 0;
  if (is("gib") || is("g"))
    mib = v * 1024;
  else if (is("mib") || is("m"))
    mib = v;
  else if (is("tib") || is("t"))
    mib = v * 1024 * 1024;
  else
    return error{fmt::format("invalid size unit in '{}': use GiB (or G), MiB (or M) or TiB", text)};
  if (mib <= 0) return error{fmt::format("size '{}' must be more than zero", text)};
  if (mib > 1e9) return error{fmt::format("size '{}' is too large", text)};
  const auto whole = static_cast<std::int64_t>(mib);
  return static_cast<double>(whole) < mib ? whole + 1 : whole;
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#include "io/size.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cctype>
#include <charconv>
#include <cmath>
#include <migplan/detail/strings.hpp>

#include "quote.hpp"

namespace migplan::cli {
namespace {

// Exact arithmetic: a size is a decimal mantissa times a power of ten times
// the unit's bytes, and the answer rounds up, so a double's rounding could
// move a size that is exactly N MiB to N+1 ("4.75Gi" is 4864 MiB, no more).
__extension__ using u128 = unsigned __int128;

constexpr u128 mib_bytes = u128{1} << 20;

// Significant digits a size may carry: 18 fit a 64-bit mantissa, and no
// MIG memory figure has more than 5.
constexpr std::size_t max_digits = 18;

struct unit {
  std::string_view name;
  bool any_case;
  u128 bytes;
};

constexpr u128 pow10(int n) {
  u128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

constexpr std::array<unit, 16> size_units{{
    {"Ki", true, u128{1} << 10},
    {"KiB", true, u128{1} << 10},
    {"Mi", true, u128{1} << 20},
    {"MiB", true, u128{1} << 20},
    {"Gi", true, u128{1} << 30},
    {"GiB", true, u128{1} << 30},
    {"Ti", true, u128{1} << 40},
    {"TiB", true, u128{1} << 40},
    {"k", false, pow10(3)},
    {"kB", true, pow10(3)},
    {"M", false, pow10(6)},
    {"MB", true, pow10(6)},
    {"G", false, pow10(9)},
    {"GB", true, pow10(9)},
    {"T", false, pow10(12)},
    {"TB", true, pow10(12)},
}};

constexpr std::string_view units_hint =
    "Gi or GiB, Mi or MiB, Ti or TiB (powers of 2), or G or GB, M or MB, T or TB (powers of 10)";

// Suffixes people type that Kubernetes either reads otherwise ("m" is milli)
// or does not have, and that could mean either a binary or a decimal unit.
struct near_miss {
  std::string_view suffix, hint;
};
constexpr std::array<near_miss, 4> near_misses{{
    {"m", "is milli in Kubernetes: use Mi or MiB (2^20 bytes) or M or MB (10^6 bytes)"},
    {"g", "is ambiguous: use Gi or GiB (2^30 bytes) or G or GB (10^9 bytes)"},
    {"t", "is ambiguous: use Ti or TiB (2^40 bytes) or T or TB (10^12 bytes)"},
    {"K", "is ambiguous: use Ki or KiB (2^10 bytes) or k or kB (10^3 bytes)"},
}};

const unit* find_unit(std::string_view name) {
  for (const unit& u : size_units)
    if (u.any_case ? detail::iequals(u.name, name) : u.name == name) return &u;
  return nullptr;
}

}  // namespace

result<std::int64_t> parse_size_mib(std::string_view text) {
  // NUMBER = DIGITS [ "." DIGITS ] | "." DIGITS
  u128 mantissa = 0;
  std::size_t i = 0, digits = 0, fraction = 0;
  bool dot = false, any = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    any = true;
    if (dot && ++fraction > max_digits)
      return error{fmt::format("size {} has more than {} digits after the point", quote_token(text),
                               max_digits)};
    if (mantissa == 0 && c == '0') continue;  // leading zeros carry nothing
    if (++digits > max_digits)
      return error{fmt::format("size {} has more than {} significant digits", quote_token(text),
                               max_digits)};
    mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
  }
  if (!any)
    return error{fmt::format("invalid size {}: expected a number with a unit, e.g. 12Gi or 12288Mi",
                             quote_token(text))};
  const std::string_view suffix = text.substr(i);
  if (suffix.empty())
    return error{fmt::format("size {} has no unit: use {}", quote_token(text), units_hint)};
  const unit* u = find_unit(suffix);
  if (u == nullptr) {
    for (const near_miss& m : near_misses)
      if (suffix == m.suffix)
        return error{
            fmt::format("size unit {} in {} {}", quote_token(suffix), quote_token(text), m.hint)};
    return error{fmt::format("invalid size unit {} in {}: use {}", quote_token(suffix),
                             quote_token(text), units_hint)};
  }
  // bytes = mantissa * unit / 10^fraction; MiB rounds up. mantissa < 10^18 and
  // unit <= 2^40, so the product stays far below 2^128.
  const u128 num = mantissa * u->bytes;
  const u128 den = pow10(static_cast<int>(fraction)) * mib_bytes;
  const u128 mib = num / den + (num % den != 0 ? 1 : 0);
  if (mib == 0) return error{fmt::format("size {} must be more than zero", quote_token(text))};
  if (mib > static_cast<u128>(max_size_mib))
    return error{
        fmt::format("size {} is too large (at most {} MiB)", quote_token(text), max_size_mib)};
  return static_cast<std::int64_t>(mib);
}

result<long long> parse_whole_number(std::string_view option, std::string_view text, long long low,
                                     long long high) {
  assert(0 <= low && low <= high);
  const bool negative = !text.empty() && text[0] == '-';
  std::string_view digits = text;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
  const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), is_digit))
    return error{fmt::format("{} {} is not a number: expected a whole number from {} to {}", option,
                             quote_token(text), low, high)};
  // All digits: a value that overflows is a whole number, just too large.
  unsigned long long v = 0;
  const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (negative && (ec != std::errc() || v > 0 || low > 0))
    return error{fmt::format("{} {} must be at least {}", option, clip_token(text), low)};
  if (ec != std::errc() || v > static_cast<unsigned long long>(high))
    return error{fmt::format("{} {} is too large (at most {})", option, clip_token(text), high)};
  if (static_cast<long long>(v) < low)
    return error{fmt::format("{} {} must be at least {}", option, clip_token(text), low)};
  return static_cast<long long>(v);
}

std::optional<double> parse_decimal(std::string_view text) {
  if (text.starts_with('+')) text.remove_prefix(1);
  double v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

result<double> parse_positive(std::string_view what, std::string_view text, double high) {
  const std::optional<double> v = parse_decimal(text);
  if (!v) return error{fmt::format("{} {} is not a number", what, quote_token(text))};
  if (!(*v > 0) || *v > high)
    return error{
        fmt::format("{} {} must be more than 0 and at most {}", what, clip_token(text), high)};
  return *v;
}

result<std::int64_t> parse_milliseconds(std::string_view option, std::string_view text,
                                        std::int64_t most_s) {
  const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  const std::size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view part = dot == std::string_view::npos ? "" : text.substr(dot + 1);
  if (whole.empty() || !std::all_of(whole.begin(), whole.end(), is_digit) ||
      (dot != std::string_view::npos && part.empty()) ||
      !std::all_of(part.begin(), part.end(), is_digit))
    return error{fmt::format("{} {} is no number of seconds: write 1.5, 0.25 or 2", option,
                             quote_token(text))};
  if (part.size() > 3)
    return error{
        fmt::format("{} {}: at most three decimals (a millisecond)", option, clip_token(text))};
  std::uint64_t n = 0;
  const auto [p, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), n);
  if (ec != std::errc() || n > static_cast<std::uint64_t>(most_s) ||
      (n == static_cast<std::uint64_t>(most_s) && part.find_first_not_of('0') != part.npos))
    return error{fmt::format("{} {} is more than {} seconds", option, clip_token(text), most_s)};
  std::int64_t milli = static_cast<std::int64_t>(n) * 1000;
  std::int64_t scale = 100;
  for (const char c : part) {
    milli += (c - '0') * scale;
    scale /= 10;
  }
  return milli;
}

result<std::int64_t> parse_duration_s(std::string_view text, std::int64_t most) {
  const auto bad = [&] {
    return error{fmt::format(
        "{} is no duration: write whole seconds (600) or whole numbers with s, m, h or d, "
        "largest first (10m, 1h30m)",
        quote_token(text))};
  };
  const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  if (text.empty()) return bad();
  const bool bare = std::all_of(text.begin(), text.end(), is_digit);
  std::int64_t total = 0;
  std::int64_t previous = 0;  // the unit before, in seconds (0: none yet)
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = at;
    while (end < text.size() && is_digit(text[end])) ++end;
    if (end == at) return bad();
    std::uint64_t n = 0;
    const auto [p, ec] = std::from_chars(text.data() + at, text.data() + end, n);
    if (ec != std::errc() || n > static_cast<std::uint64_t>(most))
      return error{fmt::format("{} is more than {} seconds", clip_token(text), most)};
    std::int64_t unit = 1;
    if (!bare) {
      if (end == text.size()) return bad();
      switch (text[end]) {
        case 's':
          unit = 1;
          break;
        case 'm':
          unit = 60;
          break;
        case 'h':
          unit = 3600;
          break;
        case 'd':
          unit = 86400;
          break;
        default:
          return bad();
      }
      if (previous != 0 && unit >= previous) return bad();
      previous = unit;
      ++end;
    }
    total += static_cast<std::int64_t>(n) * unit;
    if (total > most)
      return error{fmt::format("{} is more than {} seconds", clip_token(text), most)};
    at = end;
  }
  return total;
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#include "io/ci_request.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <migplan/detail/strings.hpp>
#include <migplan/lookup.hpp>

#include "io/names.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

// "12" -> 12, or nullopt when it is not a whole number up to `limit`.
std::optional<long long> small_number(std::string_view s, long long limit) {
  if (!all_digits(s)) return std::nullopt;
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || v > limit) return std::nullopt;
  return v;
}

// "1c.3g.20gb" -> (1, "3g.20gb"); "3g.20gb" -> nullopt. "MIG " already stripped.
std::optional<std::pair<std::string_view, std::string_view>> ci_name_parts(std::string_view name) {
  std::size_t i = 0;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
  if (i == 0 || i + 2 > name.size() || (name[i] != 'c' && name[i] != 'C') || name[i + 1] != '.')
    return std::nullopt;
  return std::pair{name.substr(0, i), name.substr(i + 2)};
}

// The CI profile names of GI profile `gi`, in order.
std::vector<std::string> ci_names(const profile& gi) {
  std::vector<std::string> names;
  for (const ci_profile& c : gi.ci_profiles) names.emplace_back(c.name);
  return names;
}

}  // namespace

result<ci_lookup> lookup_ci(const gpu_model& gpu, int p, const ci_token& c, std::string_view item) {
  const profile& gi = prof(gpu, p);
  std::string wanted;  // the CI profile name asked for, as the data would spell it
  int slices = 0;
  if (c.slices) {
    slices = *c.slices;
    wanted =
        slices == gi.compute_slices ? std::string(gi.name) : fmt::format("{}c.{}", slices, gi.name);
  } else {
    const std::string_view name = strip_profile_name(c.name);
    if (detail::iequals(name, gi.name)) {
      slices = gi.compute_slices;
      wanted = std::string(gi.name);
    } else if (const auto parts = ci_name_parts(name)) {
      if (!detail::iequals(parts->second, gi.name))
        return error{fmt::format("{} in {} is a compute instance of {}, not of {}",
                                 quote_token(name), quote_token(item), clip_token(parts->second),
                                 gi.name)};
      slices = static_cast<int>(small_number(parts->first, 1000).value_or(1001));
      wanted = fmt::format("{}c.{}", clip_token(parts->first), gi.name);
    } else {
      return error{fmt::format(
          "unknown compute instance {} in {}: expected Nc (1c, 2c, ...) or "
          "a compute-instance profile name of {}{}",
          quote_token(name), quote_token(item), gi.name, did_you_mean(name, ci_names(gi)))};
    }
  }
  if (gi.ci_profiles.empty()) return ci_lookup{-1, unknown_ci_data(gpu, gi)};
  const int ci = find_ci_by_slices(gi, slices);
  if (ci >= 0) return ci_lookup{ci, std::nullopt};
  return ci_lookup{-1, ci_not_offered(gpu, gi, wanted)};
}

ci_rejection unknown_ci_data(const gpu_model& gpu, const profile& gi) {
  return {ci_reason_code::unknown_ci_profile,
          fmt::format("CI profiles unknown for {} on {}: no capture or document lists them, so "
                      "migplan does not guess; 'migplan profiles --gpu {} --ci' shows which GPU "
                      "instances have them",
                      gi.name, gpu.slug, gpu.slug),
          std::string(gi.name),
          {}};
}

ci_rejection ci_not_offered(const gpu_model& gpu, const profile& gi, std::string_view wanted) {
  return {ci_reason_code::unknown_ci_profile,
          fmt::format("{} is not a compute-instance profile of {} on {} ({} offers {})", wanted,
                      gi.name, gpu.slug, gi.name, join_and(ci_names(gi))),
          std::string(gi.name),
          {std::string(wanted)}};
}

result<std::vector<ci_token>> parse_ci_brackets(std::string_view item, std::string_view brackets,
                                                std::string& after) {
  const std::size_t close = brackets.find(']');
  if (close == std::string_view::npos)
    return error{fmt::format("unclosed '[' in {}", quote_token(item))};
  const std::string_view inside = brackets.substr(1, close - 1);
  const std::string_view tail = brackets.substr(close + 1);
  if (inside.find('[') != std::string_view::npos || tail.find_first_of("[]") != std::string::npos)
    return error{fmt::format("more than one '[...]' in {}", quote_token(item))};
  if (!tail.empty() && tail.front() != '@')
    return error{fmt::format("unexpected {} after ']' in {}; only @START may follow",
                             quote_token(tail), quote_token(item))};
  after = std::string(tail);
  if (trim(inside).empty())
    return error{fmt::format("no compute instances inside '[]' in {}", quote_token(item))};
  std::vector<ci_token> out;
  std::size_t from = 0;
  for (;;) {
    const std::size_t comma = inside.find(',', from);
    const std::string_view part = trim(inside.substr(from, comma - from));
    if (part.empty())
      return error{
          fmt::format("an empty compute instance inside '[...]' in {}", quote_token(item))};
    ci_token c;
    c.text = std::string(part);
    std::string_view rest = part;
    if (const std::size_t x = rest.find_first_of("xX");
        x != std::string_view::npos && x > 0 && all_digits(rest.substr(0, x))) {
      const auto n = small_number(rest.substr(0, x), max_item_count);
      if (!n || *n < 1)
        return error{fmt::format("count {} in {} must be a whole number from 1 to {}",
                                 clip_token(rest.substr(0, x)), quote_token(item), max_item_count)};
      c.count = *n;
      rest.remove_prefix(x + 1);
    }
    if (rest.find('@') != std::string_view::npos)
      return error{
          fmt::format("{} in {}: compute instances take no start, migplan places "
                      "them inside their GPU instance (an @START after ']' pins the "
                      "GPU instance)",
                      quote_token(part), quote_token(item))};
    if (rest.size() >= 2 && (rest.back() == 'c' || rest.back() == 'C') &&
        all_digits(rest.substr(0, rest.size() - 1))) {
      const auto n = small_number(rest.substr(0, rest.size() - 1), 1000);
      if (!n)
        return error{
            fmt::format("compute instance {} in {} has more compute slices than any "
                        "GPU instance",
                        quote_token(part), quote_token(item))};
      if (*n < 1)
        return error{fmt::format("compute instance {} in {} has no compute slices",
                                 quote_token(part), quote_token(item))};
      c.slices = static_cast<int>(*n);
    } else if (rest.find('.') != std::string_view::npos) {
      c.name = std::string(rest);
    } else {
      return error{
          fmt::format("invalid compute instance {} in {}: expected Nc (1c, 2c, ...) "
                      "or a compute-instance profile name such as 1c.3g.20gb",
                      quote_token(part), quote_token(item))};
    }
    out.push_back(std::move(c));
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
  return out;
}

result<bool> split_ci_name(token& t, std::string_view name) {
  const std::string_view ci_name = strip_profile_name(name);
  const auto parts = ci_name_parts(ci_name);
  if (!parts) return false;
  if (!t.cis.empty())
    return error{
        fmt::format("{} is a compute instance, and '[...]' splits a GPU instance: "
                    "write {}[{}c]",
                    quote_token(ci_name), clip_token(parts->second), clip_token(parts->first))};
  if (t.start)
    return error{fmt::format(
        "a compute instance on its own has no start: {}; to pin its GPU instance, write "
        "{}[{}c]@{}",
        quote_token(t.text), clip_token(parts->second), clip_token(parts->first), *t.start)};
  const auto n = small_number(parts->first, 1000);
  if (!n)
    return error{fmt::format("compute instance {} has more compute slices than any GPU instance",
                             quote_token(ci_name))};
  if (*n < 1)
    return error{fmt::format("compute instance {} has no compute slices", quote_token(ci_name))};
  ci_token c;
  c.text = std::string(ci_name);
  c.count = 1;
  c.name = std::string(ci_name);
  t.ci = std::move(c);
  t.profile = std::string(parts->second);
  return true;
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#include "io/place_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <migplan/detail/strings.hpp>

#include "io/emit_option.hpp"
#include "io/names.hpp"
#include "io/plan_input.hpp"
#include "io/policies.hpp"
#include "io/size.hpp"
#include "quote.hpp"

namespace migplan::cli {

result<place_settings> read_place_options(const place_options& o,
                                          std::span<const std::string> emit_kinds) {
  // --emit first: its refusals name no number.
  if (!o.emit.empty()) {
    if (std::find(emit_kinds.begin(), emit_kinds.end(), o.emit) == emit_kinds.end())
      return error{unknown_emit_kind(o.emit, "place", emit_kinds)};
    if (o.json) return error{"--emit writes its own format; it does not combine with --json"};
    if (o.policies.size() > 1)
      return error{"--emit writes one policy's choice; give at most one --policy"};
  }
  place_settings s;
  auto alternatives =
      parse_whole_number("--alternatives", o.alternatives, 0, max_place_alternatives);
  if (!alternatives) return alternatives.error();
  s.alternatives = static_cast<int>(*alternatives);
  if (!o.allow_moves.empty()) {
    auto k = parse_whole_number("--allow-moves", o.allow_moves, 0, max_place_moves);
    if (!k) return k.error();
    s.allow_moves = static_cast<int>(*k);
  }
  std::vector<std::string> chosen = o.policies;
  if (chosen.empty()) chosen = policy_list(true);
  auto named = parse_policies(chosen, true, "place");
  if (!named) return named.error();
  for (const policy_name& p : *named) s.policies.push_back({std::string(p.name), p.policy, {}});
  return s;
}

result<std::string> read_place_profile(model_list models, std::span<const std::string> words,
                                       std::span<const fleet_now_node> nodes) {
  const std::string joined = fmt::format("{}", fmt::join(words, " "));
  const std::string_view word = joined;
  const auto one_at_a_time = "place them one at a time, or replay them with simulate";
  if (words.size() > 1) {
    if (const std::string how = profile_spelling_hint(models, word); !how.empty())
      return error{fmt::format("{}: {}; but place answers one instance: {}", quote_token(word), how,
                               one_at_a_time)};
    if (words.size() > 2 || !detail::iequals(words.front(), "MIG"))
      return error{fmt::format("place takes one PROFILE, and {} is {} words: {}", quote_token(word),
                               words.size(), one_at_a_time)};
  }
  std::vector<const gpu_model*> fleet;  // a misspelt profile is suggested among these
  for (const fleet_now_node& n : nodes)
    if (std::find(fleet.begin(), fleet.end(), n.gpu) == fleet.end()) fleet.push_back(n.gpu);
  auto d = parse_demand_word(models, word, fleet);
  if (!d) return d.error();
  if (d->profile.empty())
    return error{
        fmt::format("place takes a profile name ({}); a memory size is plan's", quote_token(word))};
  if (d->count != 1)
    return error{fmt::format(
        "place answers one instance, and {} asks for {}; place them one at a time, or replay "
        "them with simulate",
        quote_token(word), d->count)};
  std::vector<std::string> names;
  for (const fleet_now_node& n : nodes) {
    if (find_profile(*n.gpu, d->profile) >= 0) return d->profile;
    for (const profile& p : n.gpu->profiles)
      if (std::find(names.begin(), names.end(), p.name) == names.end()) names.emplace_back(p.name);
  }
  std::vector<std::string> slugs;
  for (const fleet_now_node& n : nodes)
    if (std::find(slugs.begin(), slugs.end(), n.gpu->slug) == slugs.end())
      slugs.emplace_back(n.gpu->slug);
  return error{fmt::format("no GPU of the fleet ({}) has profile {}{}", fmt::join(slugs, ", "),
                           quote_token(d->profile), did_you_mean(d->profile, names))};
}

}  // namespace migplan::cli

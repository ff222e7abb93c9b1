// SPDX-License-Identifier: Apache-2.0
#include "io/policies.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "io/names.hpp"
#include "quote.hpp"

namespace migplan::cli {

std::vector<std::string> policy_list(bool dynamic_only) {
  std::vector<std::string> names;
  for (const policy_name& p : policy_names)
    if (!dynamic_only || (p.policy.mode == replay_mode::dynamic && !p.baseline))
      names.emplace_back(p.name);
  return names;
}

std::string policy_help(bool dynamic_only) {
  constexpr std::size_t width = 80;
  std::string text = "Policies (--policy):";
  std::size_t line_start = 0;
  const std::vector<std::string> names = policy_list(dynamic_only);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string word = names[i] + (i + 1 < names.size() ? "," : ".");
    if (text.size() - line_start + 1 + word.size() > width) {
      text += "\n ";
      line_start = text.size() - 1;
    }
    text += " " + word;
  }
  return text + "\n";
}

result<std::vector<policy_name>> parse_policies(std::span<const std::string> given,
                                                bool dynamic_only, std::string_view command) {
  const std::vector<std::string> names = policy_list(dynamic_only);
  std::vector<policy_name> out;
  for (const std::string& c : given) {
    const auto it = std::find_if(std::begin(policy_names), std::end(policy_names),
                                 [&](const policy_name& p) { return p.name == c; });
    if (it == std::end(policy_names))
      return error{fmt::format(
          "unknown --policy {}{}; {}policies: {}", quote_token(c), did_you_mean(c, names),
          dynamic_only ? fmt::format("{}'s ", command) : std::string(), fmt::join(names, ", "))};
    if (dynamic_only && it->policy.mode != replay_mode::dynamic)
      return error{
          fmt::format("--policy {} keeps a static geometry; {}'s policies are the dynamic ones: {}",
                      quote_token(c), command, fmt::join(names, ", "))};
    if (dynamic_only && it->baseline)
      return error{fmt::format(
          "--policy {} is a scheduler's rule that simulate replays; {}'s policies are: {}",
          quote_token(c), command, fmt::join(names, ", "))};
    if (std::any_of(out.begin(), out.end(), [&](const policy_name& p) { return p.name == c; }))
      return error{fmt::format("--policy {} is given twice", c)};
    out.push_back(*it);
  }
  return out;
}

}  // namespace migplan::cli

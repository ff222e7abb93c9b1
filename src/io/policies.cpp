// SPDX-License-Identifier: Apache-2.0
#include "io/policies.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "io/names.hpp"
#include "quote.hpp"

namespace migplan::cli {

result<std::vector<policy_name>> parse_policies(std::span<const std::string> given,
                                                bool dynamic_only, std::string_view command) {
  std::vector<std::string> names;
  for (const policy_name& p : policy_names)
    if (!dynamic_only || p.policy.mode == replay_mode::dynamic) names.emplace_back(p.name);
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
    if (std::any_of(out.begin(), out.end(), [&](const policy_name& p) { return p.name == c; }))
      return error{fmt::format("--policy {} is given twice", c)};
    out.push_back(*it);
  }
  return out;
}

}  // namespace migplan::cli

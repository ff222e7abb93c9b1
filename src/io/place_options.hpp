// SPDX-License-Identifier: Apache-2.0
// `migplan place`'s options as given, what they say once read (the
// combinations refused, numbers in range, policies by name), and the
// profile of the arriving instance, resolved among the fleet's models.
#pragma once

#include <migplan/lookup.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "io/fleet_now.hpp"
#include "model/place.hpp"

namespace migplan::cli {

/// place's options as given.
struct place_options {
  std::vector<std::string> request;  ///< PROFILE, as its words ("MIG 1g.10gb" may be two)
  fleet_now_source fleet;
  std::vector<std::string> policies;  ///< --policy, repeatable; none: every dynamic one
  std::string alternatives = "3";
  std::string allow_moves;  ///< empty: no moves
  bool json = false;
  std::string emit;  ///< --emit KIND; empty: none
};

/// What place's options say.
struct place_settings {
  int alternatives = 3;
  std::optional<int> allow_moves;      ///< --allow-moves K
  std::vector<place_policy> policies;  ///< their rankings empty
};

/// The most alternatives listed per policy.
inline constexpr long long max_place_alternatives = 1000;
/// The most moves --allow-moves takes: the search is exponential in them, and
/// a defragmentation of more steps is a re-plan (`plan`), not an arrival's.
inline constexpr long long max_place_moves = 6;

/// Reads `o`, or says why it cannot run (one sentence naming the option):
/// an --emit kind not among `emit_kinds` (the names place takes), --emit
/// with --json or with more than one --policy, a number out of range, an
/// unknown policy. Nothing here reads a file.
result<place_settings> read_place_options(const place_options& o,
                                          std::span<const std::string> emit_kinds);

/// The profile `words` ask for, as the catalog spells it: one instance
/// (not a count, not a memory size) of a profile some model of `nodes` has.
/// Several words are one profile after a "MIG" word; a count written as a
/// word of its own ("1g.10gb x3") gets pack's hint on where a count goes.
result<std::string> read_place_profile(model_list models, std::span<const std::string> words,
                                       std::span<const fleet_now_node> nodes);

}  // namespace migplan::cli

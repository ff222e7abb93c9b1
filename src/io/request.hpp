// SPDX-License-Identifier: Apache-2.0
#pragma once

// The request syntax shared by `pack`, `--batch` and geometry files:
// ITEM = [Nx]PROFILE[@START], e.g. "3g.20gb", "2x1g.5gb", "1g.5gb@6".

#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"

namespace migplan::cli {

/// Largest count one item may carry: no GPU holds more than 16 instances, so
/// anything above this is a typo, refused before any work is done.
inline constexpr long long max_item_count = 1000;

/// Longest item, in bytes: the longest profile name is 16 characters, so a
/// longer word is not a typo but garbage, refused before it is looked up.
inline constexpr std::size_t max_item_length = 256;

/// Most instances one request may hold once counts are added up (no GPU holds
/// more than 16, and no model's profiles' caps sum to 1024), so a request of
/// many large counts is refused before it is expanded.
inline constexpr long long max_request_instances = 1024;

/// One parsed ITEM, not yet resolved against a model.
struct token {
  std::string text;          ///< the item as written
  long long count = 1;       ///< N of "Nx"
  std::string profile;       ///< PROFILE as written ("MIG " kept; stripped when resolved)
  std::optional<int> start;  ///< START of "@START"
};

/// Parses one ITEM.
result<token> parse_item(std::string_view text);

/// Parses a list of ITEMs (words; commas also separate items).
result<std::vector<token>> parse_items(std::span<const std::string> words);

/// Splits a line into ITEM words on spaces, tabs and commas.
std::vector<std::string> split_items(std::string_view line);

/// Resolves tokens against a model: profile names or IDs, starts in range.
result<std::vector<item>> resolve_items(const gpu_model& gpu, std::span<const token> tokens);

/// The models on which every token's profile resolves (names exactly, or IDs).
std::vector<const gpu_model*> candidate_models(std::span<const token> tokens);

/// A message for tokens that resolve on no single model, naming what is wrong.
error no_common_model(std::span<const token> tokens);

}  // namespace migplan::cli

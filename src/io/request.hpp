// SPDX-License-Identifier: Apache-2.0
#pragma once

// The request syntax shared by `pack`, `--batch` and geometry files:
// ITEM = [Nx]PROFILE[\[CI,...\]][@START], e.g. "3g.20gb", "2x1g.5gb", "1g.5gb@6",
// "3g.20gb[2c,1c]" (one GI split into CIs), or a CI on its own, "3x1c.3g.20gb"
// (pack/resolve.hpp resolves the CIs).

#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/lookup.hpp>
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

/// A compute instance as an ITEM writes it: "1c" (the CI of 1 compute slice of its GI)
/// or a CI profile name ("1c.3g.20gb", or the GI's own name for its full CI).
struct ci_token {
  std::string text;           ///< as written
  long long count = 1;        ///< N of "Nx" ("3x1c")
  std::optional<int> slices;  ///< the N of "Nc"
  std::string name;           ///< a CI profile name, when not "Nc"
};

/// One parsed ITEM, not yet resolved against a model.
struct token {
  std::string text;              ///< the item as written
  long long count = 1;           ///< N of "Nx"
  std::string profile;           ///< PROFILE as written ("MIG " kept; stripped when resolved);
                                 ///< for a CI on its own, the name of its GI ("3g.20gb")
  std::optional<int> start;      ///< START of "@START"
  std::vector<ci_token> cis{};   ///< "3g.20gb[2c,1c]": the CIs the GI is split into
  std::optional<ci_token> ci{};  ///< "1c.3g.20gb": a CI on its own (count: `count`)
};

/// Parses one ITEM.
result<token> parse_item(std::string_view text);

/// Parses a list of ITEMs (words; commas also separate items).
result<std::vector<token>> parse_items(std::span<const std::string> words);

/// Splits a line into ITEM words on spaces, tabs and commas, except inside "[...]"
/// ("3g.20gb[1c, 2c]" is one word; the spaces inside are dropped).
std::vector<std::string> split_items(std::string_view line);

/// Resolves tokens against a model: profile names or IDs, starts in range. GPU instances
/// only: a token with CIs is an error here (pack/resolve.hpp resolves those).
result<std::vector<item>> resolve_items(model_list models, const gpu_model& gpu,
                                        std::span<const token> tokens);

/// The models on which every token's profile resolves (names exactly, or IDs).
std::vector<const gpu_model*> candidate_models(model_list models, std::span<const token> tokens);

/// A message for tokens that resolve on no single model, naming what is wrong.
error no_common_model(model_list models, std::span<const token> tokens);

}  // namespace migplan::cli

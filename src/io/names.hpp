// SPDX-License-Identifier: Apache-2.0
#pragma once

// Resolving what people type to the models of a run (a model_list: the
// catalog and the models loaded with --gpu-file, models.hpp): GPU models by slug,
// nvidia-smi name or PCI device ID; profiles by name ("MIG " prefix and case
// ignored) or profile ID; with "did you mean" suggestions, a model's own
// family first ("h100": the H100 boards), then by edit distance. Messages
// quote what was typed through quote_token() (quote.hpp).

#include <migplan/gpu.hpp>
#include <migplan/lookup.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"

namespace migplan::cli {

/// Case-insensitive Levenshtein distance (adjacent transpositions count 1).
int edit_distance(std::string_view a, std::string_view b);

/// The candidates nearest to `input` (at most `n`, only reasonably close ones).
std::vector<std::string> nearest(std::string_view input, std::span<const std::string> candidates,
                                 std::size_t n = 3);

/// " (did you mean a, b or c?)" or "" when there is nothing close.
std::string did_you_mean(std::string_view input, std::span<const std::string> candidates);

/// Parses a PCI device ID: "0x20B010DE", "20B010DE", "0x20B0" (case-insensitive).
bool parse_pci_id(std::string_view text, std::uint32_t& out);

/// A GPU model by slug, nvidia-smi name ("NVIDIA " optional) or PCI device ID,
/// ignoring case. A partial name is never taken: one that starts the slug or
/// nvidia-smi name of several models ("a100", "h100"), or failing that is
/// contained in them ("pcie"), is an error listing them ("gpu 'a100' is
/// ambiguous: a100-40gb, a100-80gb; pass one of them"); of one model, an error
/// suggesting it. A word is a PCI device ID only when no model name matches,
/// so "a100" is not device 0xA10010DE. Blank text is "empty gpu name".
result<const gpu_model*> resolve_gpu(model_list models, std::string_view text);

/// GPU Feature Discovery's nvidia.com/gpu.product label of a model, without
/// the -MIG-/-SHARED suffixes a node's setup adds: an nvidia-smi name with
/// spaces as '-' (internal/lm/resource.go, productLabel), with and without
/// the "NVIDIA-" that newer drivers' names start with.
struct product_name {
  std::string key;  ///< lower case
  std::string shown;
  const gpu_model* gpu;
};

/// The product labels of every model of `models`.
std::vector<product_name> product_names(model_list models);

/// The model whose product label is `label` (any case), or nullptr.
const gpu_model* model_of_product(const std::vector<product_name>& names, std::string_view label);

/// The profile name with a leading "MIG " removed and surrounding spaces trimmed.
std::string_view strip_profile_name(std::string_view text);

/// A profile of `gpu` by name or ID; the error names the nearest valid names,
/// and which of `models` have the profile when `gpu` does not.
result<int> resolve_profile(model_list models, const gpu_model& gpu, std::string_view text);

/// What resolve_profile() finds, without the message when it finds nothing
/// (-1): for asking many models whether they have a profile, where building
/// each refusal's did-you-mean was most of a one-shot `pack`'s time.
int profile_index(const gpu_model& gpu, std::string_view text);

/// "3g.95gb is what older gb200 drivers called 3g.93gb (profile 9; NOTE)":
/// `name` must be a former name of profile `p` of `gpu`.
std::string former_name_text(const gpu_model& gpu, int p, std::string_view name);

/// "7g.79gb is not a name nvidia-smi prints; nvidia-smi calls it 7g.80gb on
/// a100-80gb (profile 0; NOTE)": `name` must be a circulating name of profile
/// `p` of `gpu` (a name third-party tools use, from data/models.json).
std::string circulating_name_text(const gpu_model& gpu, int p, std::string_view name);

/// A note on a name that is no current profile: former_name_text() for the
/// first of `models` where `name` is a former name, else
/// circulating_name_text() for the first where tools use it; "" when neither.
std::string former_name_note(model_list models, std::string_view name);

/// How to write `name` when it is a profile of `models` written another way,
/// "" when it is not: a count after the profile or joined by '*' or ':'
/// ("1g.10gb x3", "1g.10gb*3", "3*1g.10gb": "a count goes before its profile,
/// joined by x: write 3x1g.10gb"), a count alone ("x3"), or Kubernetes'
/// resource name ("nvidia.com/mig-1g.10gb": "write 1g.10gb").
std::string profile_spelling_hint(model_list models, std::string_view name);

/// Every profile name of `models`, unique, for suggestions.
std::vector<std::string> all_profile_names(model_list models);

}  // namespace migplan::cli

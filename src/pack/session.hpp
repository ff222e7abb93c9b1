// SPDX-License-Identifier: Apache-2.0
#pragma once

// `pack`'s service: answering a request on one model, or on every model the
// request's profiles name (inference), and on a GPU as it is (--current). A
// session keeps what a run's requests share: a room memo per model and the
// candidate models of each set of profile names (--batch answers thousands
// of requests). It computes and never prints; render/pack.* writes answers.

#include <cstddef>
#include <map>
#include <migplan/lookup.hpp>
#include <migplan/search.hpp>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "error.hpp"
#include "io/current.hpp"
#include "io/request.hpp"
#include "model/emit.hpp"
#include "model/pack.hpp"
#include "pack/capacity.hpp"

namespace migplan::cli::pack {

/// What a request comes to: an answer, a GPU that must be named, or bad input.
using outcome = std::variant<pack_answer, pack_ambiguity, error>;

/// A GPU of a listing whose instances do not fit together: they, and why.
struct listing_misfit {
  std::vector<item> items;  ///< its instances, as pinned items
  reason why;               ///< why they do not fit
};

/// The state one run of `pack` shares across its requests.
class session {
 public:
  /// A session over `models` (the catalog and --gpu-file's): where a
  /// request without a model is inferred, and names resolve. With
  /// `all_layouts` (--all) an answer carries every layout's spare capacity,
  /// else the preferred layout's only.
  explicit session(model_list models, bool all_layouts = false) noexcept
      : models_(models), all_layouts_(all_layouts) {}

  /// Answers `tokens` on `gpu`, or, with no gpu, on every model that has
  /// their profiles: one answer when they all answer alike, else an
  /// ambiguity. With `explain` false (--brief) a request that does not fit
  /// gets its reason code only, no explanation or closest fits, and no
  /// layout gets its spare capacity.
  outcome answer(const gpu_model* gpu, std::span<const token> tokens, bool explain = true);

  /// The answer on one GPU of a listing: its instances pinned where they are
  /// (first in the items, keeping their compute instances), then `added`.
  /// Says which instances block `added` when they alone stand in its way.
  pack_answer answer_on(const gpu_model& g, current_listing_gpu& now,
                        const std::vector<item>& added, const compute_request& added_compute);

  /// The request `words` adds, answered on each GPU of `listing` in listed
  /// order, its instances pinned first. An error when they do not fit
  /// together on the listing's model (the file, shown as `shown`, is not of
  /// it), or when `words` are not a request on that model.
  result<std::vector<pack_answer>> answer_listing(current_listing& listing,
                                                  std::span<const std::string> words,
                                                  std::string_view shown);

  /// The first GPU of `listing` whose instances cannot be on its model
  /// together (the file is not of that model), or nothing when all can.
  std::optional<listing_misfit> misfit(const current_listing& listing);

  /// The layout (or search) of `items` on `g`, through this session's memo.
  solution solve_on(const gpu_model& g, const std::vector<item>& items);

 private:
  room_memo* memo(const gpu_model& g);
  const std::vector<const gpu_model*>& candidates(std::span<const token> tokens);
  void explain(pack_answer& a);
  void fill_capacity(pack_answer& a) const;
  std::vector<std::size_t> blocking(const gpu_model& g,
                                    const std::vector<current_instance>& current,
                                    const std::vector<item>& added);

  model_list models_;
  bool all_layouts_ = false;
  std::map<const gpu_model*, room_memo> memos_;
  std::set<const gpu_model*> seen_;  // models asked for a memo once
  // Candidate models per sorted set of profile names; cleared when full, so
  // memory stays flat over a long batch.
  static constexpr std::size_t max_inferences = 4096;
  std::map<std::string, std::vector<const gpu_model*>> inferred_;
};

/// What `--emit` realizes of a fitting answer's preferred layout: the new
/// instances in an order the driver accepts, their compute instances, and
/// the existing ones; `index` is the GPU nvidia-smi -i targets, `node` the
/// node of --emit dra; `models` are those whose observed creation orders
/// may back the order (core: find_creation_order).
emit_plan emit_plan_of(model_list models, const pack_answer& a, int index, const std::string& node);

}  // namespace migplan::cli::pack

// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan pack` answers for one request: filled by the command from the
// core's results, printed by render/pack.

#include <migplan/explain.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/search.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/compute.hpp"
#include "model/current.hpp"
#include "model/layout_capacity.hpp"

namespace migplan::cli {

/// One answered request.
struct pack_answer {
  const gpu_model* gpu = nullptr;             ///< the model it was answered on
  std::vector<item> items;                    ///< the request, resolved on `gpu`
  solution sol;                               ///< layouts, or why none exists
  std::vector<closest_fit> closest;           ///< the nearest requests that fit (no fit only)
  std::vector<const gpu_model*> also_fits;    ///< models it fits on as requested (no fit only)
  std::vector<const gpu_model*> same_answer;  ///< other models giving the same answer
  /// With --current: the existing instances, pinned first in `items`; unset without it.
  std::optional<std::vector<current_instance>> current;
  /// The request does not fit with `current`, and its new items alone would fit.
  bool blocked_by_current = false;
  /// With blocked_by_current: the fewest existing instances (indices into
  /// `current`) whose removal would let the new items fit.
  std::vector<std::size_t> blocking;
  /// With --current: the GPU's index in the listing, when it has one.
  std::optional<int> gpu_index;
  /// The compute instances of each item (parallel to `items`), or why they cannot be
  /// had; then `sol` is empty: the GPU-instance search did not run.
  compute_request compute{};
  /// The spare capacity of the layouts shown, parallel to the front of
  /// `sol.layouts`: the preferred one, or every one when the session shows
  /// all; empty for an answer without detail (--brief).
  std::vector<layout_capacity> capacity{};
  /// The spare capacity of each closest fit, parallel to `closest`.
  std::vector<layout_capacity> closest_capacity{};
};

/// A request without --gpu whose profiles exist on several models that
/// answer it differently: each candidate's answer, best-verified model first.
struct pack_ambiguity {
  std::vector<pack_answer> candidates;  ///< at least two, with different answers
  /// Parallel to `candidates`: the index of the first candidate that answers
  /// alike (its own index for the first of each answer).
  std::vector<std::size_t> alike{};
};

/// Where `pack --batch`'s answers go, line by line (render/pack writes them).
class pack_batch_sink {
 public:
  virtual ~pack_batch_sink() = default;
  /// The answer to the request on line `line`.
  virtual void answer(long long line, const pack_answer& a) = 0;
  /// The request on line `line` is bad input, and why; or, with `ambiguity`
  /// set (and `message` empty), it names profiles that several models answer
  /// differently, without --gpu.
  virtual void failure(long long line, const std::string& message,
                       const pack_ambiguity* ambiguity) = 0;
  /// Writes what was answered so far; false when the output is gone (a full
  /// disk, a closed pipe), which ends the batch.
  virtual bool flush(bool before_wait) = 0;
};

/// For each instance of `l` (by start), the index of the item of `items` it places:
/// a pinned item its own instance, the others the remaining instances of their
/// profile in start order, in request order (instances of a profile are interchangeable
/// to the GI search, and the CIs inside one never change where it may go).
/// (A derivation of the data both the pack service and render/ need.)
inline std::vector<int> items_of(std::span<const item> items, const layout& l) {
  std::vector<int> owner(static_cast<std::size_t>(l.size()), -1);
  std::vector<bool> taken(items.size(), false);
  // Pinned items first: each owns the instance of its profile at its start.
  for (std::size_t k = 0; k < items.size(); ++k) {
    if (items[k].start == item::any_start) continue;
    for (int i = 0; i < l.size(); ++i)
      if (owner[static_cast<std::size_t>(i)] < 0 && l[i].profile == items[k].profile &&
          l[i].start == items[k].start) {
        owner[static_cast<std::size_t>(i)] = static_cast<int>(k);
        taken[k] = true;
        break;
      }
  }
  for (std::size_t k = 0; k < items.size(); ++k) {
    if (taken[k]) continue;
    for (int i = 0; i < l.size(); ++i)
      if (owner[static_cast<std::size_t>(i)] < 0 && l[i].profile == items[k].profile) {
        owner[static_cast<std::size_t>(i)] = static_cast<int>(k);
        break;
      }
  }
  return owner;
}

}  // namespace migplan::cli

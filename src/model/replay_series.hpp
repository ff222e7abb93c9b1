// SPDX-License-Identifier: Apache-2.0
#pragma once

// simulate --plot's series: a replay watcher (replay_watch's members) that
// keeps the fleet's use over time, and on a fleet of several models each
// model's, in a bounded number of buckets.

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace migplan::cli {

/// A replay's use of the fleet over time, small enough to plot: the trace's
/// span cut into at most `most` equal spans (buckets), each with the lowest,
/// highest and last compute slices and GPUs in use in it and the pods
/// rejected in it. Its size is bounded by `most` however many events the
/// trace has, and, as each bucket keeps its highest value, its highest is the
/// replay's peak however coarse the cut. On a fleet of several models it
/// keeps each model's use too, in buckets of the same spans (model_step();
/// none on a fleet of one model). A replay watcher (replay_watch).
class replay_series {
 public:
  /// Lowest, highest and last value of one quantity within a bucket.
  struct level {
    int low = 0;   ///< lowest
    int high = 0;  ///< highest
    int last = 0;  ///< at the bucket's end
    friend bool operator==(const level&, const level&) = default;
  };
  /// One span of the trace.
  struct bucket {
    level slices;               ///< compute slices in use
    level gpus;                 ///< GPUs holding a busy instance
    std::int64_t rejected = 0;  ///< pods rejected in the span
  };
  /// One span of the trace on the GPUs of one fleet model.
  struct model_bucket {
    level slices;  ///< compute slices in use
    level gpus;    ///< GPUs holding a busy instance
  };
  /// At most `most` (>= 1) buckets.
  explicit replay_series(std::size_t most = 2000) : most_(std::max<std::size_t>(most, 1)) {}

  /// The trace's first time.
  std::int64_t start() const noexcept { return start_; }
  /// The trace's last time.
  std::int64_t end() const noexcept { return end_; }
  /// Time units per bucket: bucket i spans [start + i * width, start + (i + 1) * width).
  std::int64_t width() const noexcept { return width_; }
  /// The buckets, covering start to end.
  std::span<const bucket> buckets() const noexcept { return buckets_; }
  /// The fleet models heard (model_step()): 0 on a fleet of one model.
  std::size_t models() const noexcept { return tracks_.size(); }
  /// Fleet model `m`'s buckets (m < models()), of the same spans as buckets().
  std::span<const model_bucket> model_buckets(std::size_t m) const noexcept {
    return tracks_[m].buckets;
  }

  /// replay_watch's members.
  void begin(std::int64_t start, std::int64_t end) {
    start_ = start;
    end_ = end;
    const auto span = static_cast<std::uint64_t>(end - start) + 1;
    width_ = static_cast<std::int64_t>((span + most_ - 1) / most_);
    buckets_.assign(static_cast<std::size_t>((end - start) / width_) + 1, bucket{});
    at_ = 0;
    tracks_.clear();
  }
  void step(std::int64_t time, int slices, int gpus) noexcept {
    bucket& b = reach(buckets_, at_, time);
    mark(b.slices, slices);
    mark(b.gpus, gpus);
  }
  /// A fleet model's use, heard from its first step on (before it, none).
  void model_step(std::int64_t time, std::size_t model, int slices, int gpus) {
    if (model >= tracks_.size()) {
      tracks_.resize(model + 1);
      for (track& t : tracks_)
        if (t.buckets.empty()) t.buckets.assign(buckets_.size(), model_bucket{});
    }
    track& t = tracks_[model];
    model_bucket& b = reach(t.buckets, t.at, time);
    mark(b.slices, slices);
    mark(b.gpus, gpus);
  }
  void reject(std::int64_t time) noexcept { ++reach(buckets_, at_, time).rejected; }
  void started(std::uint32_t /*pod*/, std::int64_t /*arrival*/, std::int64_t /*time*/) noexcept {}
  void finish() noexcept {
    reach(buckets_, at_, end_);
    for (track& t : tracks_) reach(t.buckets, t.at, end_);
  }

 private:
  // One fleet model's buckets and the last one reached.
  struct track {
    std::vector<model_bucket> buckets;
    std::size_t at = 0;
  };
  static void mark(level& l, int v) noexcept {
    l.low = std::min(l.low, v);
    l.high = std::max(l.high, v);
    l.last = v;
  }
  // The bucket of `time` in `buckets`, the buckets before it (from the last
  // one reached, `at`) holding the last values throughout.
  template <class Bucket>
  Bucket& reach(std::vector<Bucket>& buckets, std::size_t& at, std::int64_t time) noexcept {
    const auto i = static_cast<std::size_t>((time - start_) / width_);
    assert(i < buckets.size() && i >= at);
    for (; at < i; ++at) {
      const Bucket& from = buckets[at];
      Bucket& to = buckets[at + 1];
      to.slices = {from.slices.last, from.slices.last, from.slices.last};
      to.gpus = {from.gpus.last, from.gpus.last, from.gpus.last};
    }
    return buckets[i];
  }

  std::size_t most_;
  std::int64_t start_ = 0;
  std::int64_t end_ = 0;
  std::int64_t width_ = 1;
  std::vector<bucket> buckets_;
  std::size_t at_ = 0;         // the last bucket reached
  std::vector<track> tracks_;  // per fleet model (several)
};

}  // namespace migplan::cli

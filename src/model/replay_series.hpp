// SPDX-License-Identifier: Apache-2.0
#pragma once

// simulate --plot's series: a replay watcher (replay_watch's members) that
// keeps the fleet's use over time in a bounded number of buckets.

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
/// replay's peak however coarse the cut. A replay watcher (replay_watch).
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

  /// replay_watch's members.
  void begin(std::int64_t start, std::int64_t end) {
    start_ = start;
    end_ = end;
    const auto span = static_cast<std::uint64_t>(end - start) + 1;
    width_ = static_cast<std::int64_t>((span + most_ - 1) / most_);
    buckets_.assign(static_cast<std::size_t>((end - start) / width_) + 1, bucket{});
    at_ = 0;
  }
  void step(std::int64_t time, int slices, int gpus) noexcept {
    bucket& b = reach(time);
    mark(b.slices, slices);
    mark(b.gpus, gpus);
  }
  void reject(std::int64_t time) noexcept { ++reach(time).rejected; }
  void started(std::uint32_t /*pod*/, std::int64_t /*arrival*/, std::int64_t /*time*/) noexcept {}
  void finish() noexcept { reach(end_); }

 private:
  static void mark(level& l, int v) noexcept {
    l.low = std::min(l.low, v);
    l.high = std::max(l.high, v);
    l.last = v;
  }
  // The bucket of `time`, the buckets before it (from the last one reached)
  // holding the last values throughout.
  bucket& reach(std::int64_t time) noexcept {
    const auto i = static_cast<std::size_t>((time - start_) / width_);
    assert(i < buckets_.size() && i >= at_);
    for (; at_ < i; ++at_) {
      const bucket& from = buckets_[at_];
      bucket& to = buckets_[at_ + 1];
      to.slices = {from.slices.last, from.slices.last, from.slices.last};
      to.gpus = {from.gpus.last, from.gpus.last, from.gpus.last};
    }
    return buckets_[i];
  }

  std::size_t most_;
  std::int64_t start_ = 0;
  std::int64_t end_ = 0;
  std::int64_t width_ = 1;
  std::vector<bucket> buckets_;
  std::size_t at_ = 0;  // the last bucket reached
};

}  // namespace migplan::cli

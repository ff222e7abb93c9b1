// SPDX-License-Identifier: Apache-2.0
#pragma once

// What is left of one layout, for the renderers: the free capacity no further
// instance can use and the instances that can still be added. Services fill it
// (pack/capacity.hpp); render/ prints it and never works it out.

#include <migplan/capacity.hpp>
#include <vector>

namespace migplan::cli {

/// The spare capacity of one layout.
struct layout_capacity {
  stranded strands;              ///< free, but no further instance can use it
  std::vector<addable> can_add;  ///< each profile that still fits, where and how many
};

}  // namespace migplan::cli

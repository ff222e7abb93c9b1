// SPDX-License-Identifier: Apache-2.0
#pragma once

// The compute instances of a request, as the commands pass them from pack/resolve to
// the renderers: for each requested GPU instance, the CIs asked of it and where they sit
// inside it, or why they cannot be had. Plain data only.

#include <cstdint>
#include <migplan/compute.hpp>
#include <optional>
#include <string>
#include <vector>

namespace migplan::cli {

/// The CIs of one requested GPU instance.
struct gi_compute {
  /// CIs asked of it (indices into its profile's ci_profiles, as written); empty when
  /// none were: it gets its default CI.
  std::vector<int> asked;
  /// Where its CIs sit inside it: the asked ones, or the default CI at slice 0. Empty
  /// when its CI profiles are unknown and none were asked (`-C` still creates the full
  /// CI, but its profile ID is unknown).
  std::vector<ci_instance> where;
  std::uint64_t layout_count = 0;  ///< distinct CI layouts of `asked` (1 for the default)
  std::string shown;               ///< the GI as migplan writes it: "3g.20gb[2c,1c]@4"
  /// The ITEM it came from ("3g.20gb[1c,1c]"); for CIs asked on their own, every ITEM
  /// that shared the GIs ("4x1c.3g.20gb").
  std::string from;
  bool existing = false;  ///< an instance that exists already (pack --current)
};

/// Why the CIs of a request cannot be had.
struct ci_rejection {
  ci_reason_code code = ci_reason_code::none;
  std::string message;                   ///< one sentence naming the culprit
  std::string gi_profile;                ///< the GI profile involved
  std::vector<std::string> ci_profiles;  ///< the CI profiles involved
};

/// The CIs of a whole request, parallel to its GPU-instance items.
struct compute_request {
  /// One per item; empty when no ITEM named a CI (each GI then has its default CI).
  std::vector<gi_compute> gis;
  /// True when any ITEM named a CI (brackets or a CI on its own): text output then
  /// shows the CI level.
  bool any = false;
  /// "4x1c.3g.20gb take 2 x 3g.20gb": how CIs asked on their own became GIs.
  std::vector<std::string> implied;
  /// Set when some GI cannot hold what is asked of it: the request does not fit.
  std::optional<ci_rejection> rejected;
};

}  // namespace migplan::cli

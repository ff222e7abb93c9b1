// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan plan`'s request assembled from its options: the demand (a file
// and the command line's items), the fleet (--gpu, --fleet or --current),
// --available, --cost and --time-limit, each checked, into one plan_request.

#include <iosfwd>
#include <migplan/lookup.hpp>
#include <optional>
#include <string>
#include <vector>

#include "error.hpp"
#include "model/plan.hpp"

namespace migplan::cli {

/// The longest --time-limit, in seconds: an hour.
inline constexpr double max_time_limit_s = 3600;

/// `migplan plan`'s options that make its request, as typed.
struct plan_request_options {
  std::vector<std::string> items;      ///< ITEM words: 300x1g.10gb, 20xmem=30GiB
  std::string demand;                  ///< --demand FILE ('-': standard input)
  std::vector<std::string> gpus;       ///< --gpu MODEL, each
  std::vector<std::string> available;  ///< --available MODEL=N, each
  std::vector<std::string> costs;      ///< --cost MODEL=X, each
  std::string fleet;                   ///< --fleet FILE
  std::string current;                 ///< --current FILE
  std::string mig_config;              ///< --mig-config FILE
  bool allow_evict = false;
  std::optional<std::string> time_limit;  ///< --time-limit SECONDS; unset when not given
};

/// Builds the request from the options, reading the files they name (`in`
/// for '-'); the error is the whole message. The notes of the state reader
/// (a node it skips, say) are appended to `notes`, one message each. Model
/// and profile names resolve among `models`.
result<plan_request> plan_request_of(model_list models, const plan_request_options& o,
                                     std::istream& in, std::vector<std::string>& notes);

}  // namespace migplan::cli

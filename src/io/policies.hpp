// SPDX-License-Identifier: Apache-2.0
// Reading `--policy` (simulate, place): names of the placement policies of
// model/policies.hpp, each at most once.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "model/policies.hpp"

namespace migplan::cli {

/// The names --policy takes, in policy_names' order; with `dynamic_only`
/// (place) only the dynamic ones that are no scheduler's baseline. The one list that help, errors
/// and the parser share.
std::vector<std::string> policy_list(bool dynamic_only);

/// "Policies (--policy): a, b, ...\n" for a command's --help: policy_list,
/// its lines broken within 80 columns.
std::string policy_help(bool dynamic_only);

/// The policies `given` names, in order; with `dynamic_only` (place) only the
/// dynamic ones that are no baseline are accepted. An error says which name
/// is unknown (with the nearest and the list; "place's policies" when
/// `command` is "place"), is static or a baseline where only dynamic ones are
/// taken, or is given twice.
result<std::vector<policy_name>> parse_policies(std::span<const std::string> given,
                                                bool dynamic_only, std::string_view command);

}  // namespace migplan::cli

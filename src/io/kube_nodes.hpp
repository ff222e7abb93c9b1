// SPDX-License-Identifier: Apache-2.0
#pragma once

// kubectl's nodes (`kubectl get nodes -o json`), as much of them as `--current`
// needs: the names and labels of the nodes. Internal to src/io: kube_state.cpp
// reads the labels into the fleet.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "error.hpp"

namespace migplan::cli {

/// One node of kubectl's output: its name, kind and labels.
struct kube_node {
  std::string name;
  std::string kind;
  std::vector<std::pair<std::string, std::string>> labels;
  std::string bad_label;  ///< the first label whose value is not a string
};

/// The nodes of `text`: a List or NodeList of Nodes, or one Node. Read
/// through nlohmann's SAX interface so that a cluster's worth of node status
/// (images, conditions) is never built in memory: kubectl's JSON for nodes
/// may hold max_nodes_json_bytes, far past what the document layer
/// (io/document.hpp) builds a tree of. At most max_plan_nodes nodes.
result<std::vector<kube_node>> read_kube_nodes(std::string_view text, std::string_view shown);

}  // namespace migplan::cli

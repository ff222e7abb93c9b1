// SPDX-License-Identifier: Apache-2.0
#pragma once

// kubectl's nodes (`kubectl get nodes -o json`), as much of them as `--current`
// needs: the names and labels of the nodes. Internal to src/io: kube_state.cpp
// reads the labels into the fleet.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "diagnostic.hpp"
#include "error.hpp"

namespace migplan::cli {

/// One node of kubectl's output: its name, kind and labels, and where it is.
struct kube_node {
  std::string name;
  std::string kind;
  std::vector<std::pair<std::string, std::string>> labels;
  std::string bad_label;  ///< the first label whose value is not a string
  location at;            ///< its metadata.name's value: where messages about it point
  location bad_label_at;  ///< bad_label's value
};

/// The nodes of `text`: a List or NodeList of Nodes, or one Node, of at most
/// max_nodes_json_bytes and max_plan_nodes nodes. Read through the document
/// layer (io/document.hpp), which keeps only the entries a node's kind, name
/// and labels need (budget::keep): a cluster's worth of node status (images,
/// conditions: most of the bytes) is parsed but never built in memory
/// (bench/README.md, "kubectl's nodes").
result<std::vector<kube_node>> read_kube_nodes(std::string_view text, std::string_view shown);

}  // namespace migplan::cli

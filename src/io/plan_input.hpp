// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading what `migplan plan` is asked (doc/plan-files.md): demand files
// (YAML, JSON or CSV), fleet files, and the fleet as it is now, either as
// migplan's own state file or as `kubectl get nodes -o json` output with the
// mig-parted config that defines the nodes' `nvidia.com/mig.config` labels.
// Every error is one line, "FILE:LINE: message" where a line is known
// ("FILE:LINE: node NAME: message" for a node of kubectl's output, at its
// metadata.name), naming the culprit with a did-you-mean for unknown names.
// Demand is read for syntax only: which profile serves a memory need is the
// solver's question, per model.

#include <cstddef>
#include <initializer_list>
#include <iosfwd>
#include <migplan/lookup.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "model/plan.hpp"

namespace migplan::cli {

/// The most bytes read of a demand, fleet, state or mig-parted config file.
inline constexpr std::size_t max_plan_file_bytes = std::size_t{16} << 20;
/// The most bytes read of `kubectl get nodes -o json` output. Only node
/// names and labels are kept, so memory stays far below the file's size.
inline constexpr std::size_t max_nodes_json_bytes = std::size_t{512} << 20;
/// The most values kept of it (kinds, names, labels and their keys): the
/// bound of the tree built of it (io/kube_nodes.hpp), 20,000 nodes of 250
/// labels each.
inline constexpr std::size_t max_nodes_json_values = 10'000'000;
/// The most items of one demand file.
inline constexpr std::size_t max_demand_items = 10'000;
/// The largest count of one demand item: 100,000 GPUs of the densest
/// geometry (16 instances) is 1,600,000 instances, so this leaves room.
inline constexpr long long max_demand_count = 10'000'000;
/// The most nodes of a fleet file, a state file or kubectl's output.
inline constexpr std::size_t max_plan_nodes = 100'000;
/// The most GPUs of one node (and one more than the largest GPU index).
inline constexpr int max_node_gpus = 64;
/// The largest `available` of a fleet model.
inline constexpr long long max_model_available = 10'000'000;
/// The largest `cost` of one GPU of a fleet model.
inline constexpr double max_model_cost = 1e9;
/// The largest `compute_slices` and `sms` of a memory-sized demand item.
inline constexpr long long max_demand_slices = 64;
inline constexpr long long max_demand_sms = 100'000;  ///< see max_demand_slices
/// The longest demand item or node name.
inline constexpr std::size_t max_plan_name_length = 253;

/// How a file is written.
enum class plan_file_format { yaml, json, csv };

/// The format of a file: by its extension (.json, .csv; anything else is
/// YAML), or for standard input ("-") by its text: '{' or '[' first is JSON,
/// a first line with commas and no ':' is CSV, anything else YAML.
plan_file_format plan_format_of(const std::string& path, std::string_view text);

/// The kinds of YAML file migplan reads, as their top-level keys tell them.
enum class yaml_kind { unknown, demand, trace, fleet, nodes, geometry, mig_parted };

/// What a YAML file is by its first top-level keys, read no further than the
/// first key that tells (demand, pods, models, nodes, gpus, mig-configs), and
/// no further than its first 64 KiB: a file given to the wrong option is
/// named without parsing it whole. JSON, and a file whose first keys tell
/// nothing, are unknown.
yaml_kind yaml_kind_of(std::string_view text);

/// What a kind is, for messages: "a migplan demand file (version: 1,
/// demand: ...)".
std::string_view describe(yaml_kind kind);

/// The error for a YAML file (by `format`) whose first keys show it to be of
/// a kind other than `takes` (unknown always passes): "'FILE' is KIND;
/// WANTED", `wanted` saying what the option takes.
std::optional<error> wrong_kind(std::string_view text, plan_file_format format,
                                std::string_view shown, std::initializer_list<yaml_kind> takes,
                                std::string_view wanted);

/// Reads a whole file (or `in` for "-") of at most `limit` bytes; the error
/// is the whole message ("cannot read 'FILE': No such file or directory",
/// "'FILE' is larger than 16 MiB, the most plan reads of one file"), naming
/// `command`, the command that reads it.
result<std::string> read_plan_file(const std::string& path, std::istream& in,
                                   std::string_view command,
                                   std::size_t limit = max_plan_file_bytes);

/// Parses a demand file. YAML and JSON: `version: 1` and `demand:`, a list of
/// {name?, count, profile | memory, compute_slices?, sms?, comment?}. CSV: a
/// header naming the columns (name and count, then profile or memory, and
/// with memory optionally compute_slices and sms), then one item a line;
/// blank lines and lines starting with '#' are skipped. `shown` names the
/// file in messages. Profiles are checked for syntax and for being a profile
/// of one of `models` (stored as the model spells them); memory is
/// parsed to MiB. A misspelt profile gets suggestions from the profiles of
/// `fleet`, the models the demand is for, when the caller knows them (else
/// from `models`). Never throws.
result<std::vector<demand_item>> parse_demand(model_list models, std::string_view text,
                                              std::string_view shown, plan_file_format format,
                                              model_list fleet = {});

/// read_plan_file() then parse_demand(), the format told by plan_format_of().
result<std::vector<demand_item>> read_demand(model_list models, const std::string& path,
                                             std::istream& in, model_list fleet = {});

/// One demand item as typed on the command line: `[Nx]PROFILE` or
/// `[Nx]mem=SIZE[:sms=N][:slices=N]` ("20xmem=30GiB:sms=40"); N from 1 to
/// max_demand_count. The item's `where` is empty. Suggestions as parse_demand's.
result<demand_item> parse_demand_word(model_list models, std::string_view word,
                                      model_list fleet = {});

/// A fleet file, read.
struct plan_fleet {
  /// The candidate models. With nodes: each model the nodes have, in order
  /// of first appearance, with its `models` entry's cost and limit if any.
  std::vector<fleet_model> models;
  std::vector<fleet_node> nodes;  ///< empty: GPUs without nodes
};

/// Parses a fleet file (YAML or JSON): `version: 1`, then `nodes:` [{name,
/// gpu, gpus}] and/or `models:` [{gpu, available?, cost?}]. Node names are
/// unique; every model resolves among `models` (resolve_gpu, with did-you-mean). Never throws.
result<plan_fleet> parse_fleet(model_list models, std::string_view text, std::string_view shown,
                               bool json);

/// read_plan_file() then parse_fleet().
result<plan_fleet> read_fleet(model_list models, const std::string& path, std::istream& in,
                              std::string_view command);

/// Parses migplan's state file (YAML or JSON): `version: 1`, `nodes:`
/// [{name, gpu, label?, gpus: [{index, label?, instances: [{profile, start?,
/// in_use?}]}]}]. Each GPU's instances must name profiles of the node's
/// model at allowed starts; whether they fit together is the service's to
/// decide (pack/current_fit.hpp settle, at current_gpu::origin). Never throws.
result<std::vector<current_node>> parse_state(model_list models, std::string_view text,
                                              std::string_view shown, bool json);

/// The fleet as kubectl and mig-parted describe it.
struct kube_state {
  std::vector<current_node> nodes;  ///< nodes with MIG-capable GPUs, in kubectl's order
  /// Lines for the user (not errors): nodes skipped and why, nodes whose
  /// nvidia.com/mig.config.state is pending or rebooting.
  std::vector<std::string> notes;
};

/// Reads `kubectl get nodes -o json` output (a List or NodeList of nodes, or
/// one Node) and the mig-parted config (a file, or a Kubernetes ConfigMap
/// manifest holding one as `config.yaml`) that defines the nodes'
/// `nvidia.com/mig.config` labels. Per node: the model from GPU Feature
/// Discovery's `nvidia.com/gpu.product`, the GPU count from
/// `nvidia.com/gpu.count` (under the single MIG strategy, which counts MIG
/// devices, from that count and the label's geometry), each GPU's instances
/// from the label's entries in the config, counts only (starts are
/// item::any_start, nothing is marked in use). doc/plan-files.md has the
/// rules. Never throws.
result<kube_state> parse_kube_state(model_list models, std::string_view nodes_json,
                                    std::string_view nodes_shown, std::string_view config_text,
                                    std::string_view config_shown, bool config_json);

/// True when `text` is kubectl's JSON for nodes: a JSON object whose `kind`
/// is List, NodeList or Node. Reads no further than it must.
bool looks_like_kube_nodes(std::string_view text);

/// `--current FILE [--mig-config CONFIG]`: kubectl's nodes (which need
/// `config_path`) or migplan's state file (which must come without it).
/// "-" reads `in` (for one of the two at most). `command` names the reader in
/// the message for a file too large.
result<kube_state> read_current_state(model_list models, const std::string& path,
                                      const std::string& config_path, std::istream& in,
                                      std::string_view command);

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
// kubectl's nodes read through the document layer, which builds only the
// entries a node's kind, name and labels need (io/kube_nodes.hpp says why).
#include "io/kube_nodes.hpp"

#include <fmt/format.h>

#include <exception>
#include <nlohmann/json.hpp>
#include <span>

#include "io/document.hpp"
#include "io/json_sax.hpp"
#include "io/plan_input.hpp"
#include "io/plan_input_util.hpp"
#include "io/schema.hpp"
#include "io/text_view.hpp"

namespace migplan::cli {
namespace {

using plan_io::q;

// The entries of kubectl's output a reader needs: the kind, and each node's
// kind, name and labels (of the List's items, or of the one Node).
bool needed(std::span<const std::string> keys) {
  const auto is = [&](std::size_t i, std::string_view k) { return keys[i] == k; };
  std::size_t at = 0;  // where a Node's keys start
  if (keys.size() >= 2 && is(0, "items") && is(1, "")) at = 2;
  if (keys.size() == 1 && is(0, "items")) return true;
  if (keys.size() <= at) return true;
  if (keys.size() == at + 1) return is(at, "kind") || is(at, "metadata");
  if (!is(at, "metadata")) return false;
  if (keys.size() == at + 2) return is(at + 1, "name") || is(at + 1, "labels");
  return is(at + 1, "labels");  // each label, and what a label's value holds
}

// A string's text, or "" for anything else (kubectl writes names and kinds as strings).
std::string text_of(const doc::node* n) {
  return n != nullptr && n->is_scalar() && n->quoted ? n->text : std::string();
}

// The node of a Node's object: its kind, name and labels, and where its name is.
kube_node node_of(const doc::node& object) {
  kube_node out;
  out.kind = text_of(doc::member(object, "kind"));
  const doc::node* meta = doc::member(object, "metadata");
  if (meta == nullptr || !meta->is_map()) return out;
  if (const doc::node* name = doc::member(*meta, "name"); name != nullptr) {
    out.name = text_of(name);
    out.at = doc::at(*name);
  }
  const doc::node* labels = doc::member(*meta, "labels");
  if (labels == nullptr || !labels->is_map()) return out;
  for (std::size_t i = 0; i + 1 < labels->kids.size(); i += 2) {
    const doc::node& value = labels->kids[i + 1];
    if (value.is_scalar() && value.quoted)
      out.labels.emplace_back(labels->kids[i].text, value.text);
    else if (out.bad_label.empty()) {
      out.bad_label = labels->kids[i].text;
      out.bad_label_at = doc::at(value);
    }
  }
  return out;
}

// Stops at the first key of the top-level object: kubectl's output starts
// with apiVersion (its keys are sorted), migplan's state file with version.
class first_key final : public json_sax_base {
 public:
  std::string found;
  int depth = 0;
  bool start_object(std::size_t) override { return ++depth == 1; }
  bool key(string_t& k) override {
    if (depth != 1) return true;
    found = k;
    return false;
  }
  bool end_object() override { return --depth > 0; }
  bool start_array(std::size_t) override { return depth > 0; }
};

}  // namespace

result<std::vector<kube_node>> read_kube_nodes(std::string_view text, std::string_view shown) {
  doc::budget limits;
  limits.bytes = max_nodes_json_bytes;
  limits.keep = needed;
  limits.values = max_nodes_json_values;
  limits.limited_key = "items";
  limits.limited_most = max_plan_nodes;
  limits.limited_what = "nodes";
  auto root = doc::read_json(text, shown, limits);
  if (!root) return error{root.error()};
  if (!root->is_map())
    return error{located(shown, 1, "expected the JSON object `kubectl get nodes -o json` prints")};
  const doc::node* kind = doc::member(*root, "kind");
  const std::string kind_text = text_of(kind);
  if (kind_text == "Node") {
    kube_node n = node_of(*root);
    if (n.name.empty()) return error{located(shown, 1, "the Node has no metadata.name")};
    return std::vector<kube_node>{std::move(n)};
  }
  if (kind_text != "List" && kind_text != "NodeList")
    return error{
        located(shown, kind != nullptr ? kind->at.line : 0,
                kind_text.empty()
                    ? std::string("not kubectl's output for nodes: it has no 'kind' (expected "
                                  "`kubectl get nodes -o json`)")
                    : fmt::format("not kubectl's output for nodes: its kind is {} (expected "
                                  "List, NodeList or Node)",
                                  q(kind_text)))};
  std::vector<kube_node> nodes;
  const doc::node* items = doc::member(*root, "items");
  if (items != nullptr && !items->is_list() && !items->is_null())
    return error{located(shown, items->at.line,
                         fmt::format("'items' is {}, not a list of Nodes (expected `kubectl get "
                                     "nodes -o json`)",
                                     doc::value_text(*items)))};
  if (items == nullptr || !items->is_list()) return nodes;
  nodes.reserve(items->kids.size());
  for (std::size_t i = 0; i < items->kids.size(); ++i) {
    const doc::node& item = items->kids[i];
    if (!item.is_map())
      return error{located(shown, item.at.line,
                           fmt::format("item {} is {}, not a Node (expected `kubectl get nodes -o "
                                       "json`)",
                                       i, doc::value_text(item)))};
    kube_node n = node_of(item);
    if (!n.kind.empty() && n.kind != "Node")
      return error{located(shown, doc::member(item, "kind")->at.line,
                           fmt::format("item {} is a {}, not a Node (expected `kubectl get "
                                       "nodes -o json`)",
                                       i, q(n.kind)))};
    if (n.name.empty())
      return error{located(shown, item.at.line, fmt::format("item {} has no metadata.name", i))};
    nodes.push_back(std::move(n));
  }
  return nodes;
}

bool looks_like_kube_nodes(std::string_view text) {
  first_key k;
  try {
    nlohmann::json::sax_parse(text.begin(), text.end(), &k);
  } catch (const std::exception&) {
    return false;
  }
  return k.found == "apiVersion" || k.found == "kind" || k.found == "items" ||
         k.found == "metadata";
}

}  // namespace migplan::cli

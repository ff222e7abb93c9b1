// SPDX-License-Identifier: Apache-2.0
// kubectl's nodes read through nlohmann's SAX interface: only the names and
// labels of the nodes are kept (io/kube_nodes.hpp says why).
#include "io/kube_nodes.hpp"

#include <fmt/format.h>

#include <exception>
#include <nlohmann/json.hpp>

#include "io/json_sax.hpp"
#include "io/plan_input.hpp"
#include "io/plan_input_util.hpp"
#include "io/text_view.hpp"

namespace migplan::cli {
namespace {

using plan_io::q;

class kube_reader final : public json_sax_base {
 public:
  std::string kind;
  kube_node root;                // the document as one Node
  std::vector<kube_node> items;  // a List's or NodeList's items
  bool root_is_object = false;
  bool too_many = false;

  bool null() override { return other(); }
  bool boolean(bool) override { return other(); }
  bool number_integer(number_integer_t) override { return other(); }
  bool number_unsigned(number_unsigned_t) override { return other(); }
  bool number_float(number_float_t, const string_t&) override { return other(); }
  bool string(string_t& v) override {
    if (kube_node* n = label_owner()) {
      n->labels.emplace_back(st_.back().key, v);
      return true;
    }
    if (st_.size() == 1 && st_[0].key == "kind") kind = v;
    if (in_item(3) && st_[2].key == "kind") items.back().kind = v;
    if (in_item(4) && st_[2].key == "metadata" && st_[3].object && st_[3].key == "name")
      items.back().name = v;
    if (st_.size() == 2 && st_[0].key == "metadata" && st_[1].object && st_[1].key == "name")
      root.name = v;
    return true;
  }
  bool start_object(std::size_t) override {
    if (st_.empty()) root_is_object = true;
    if (st_.size() == 2 && st_[0].key == "items" && !st_[1].object) {
      if (items.size() == max_plan_nodes) {
        too_many = true;
        return false;
      }
      items.emplace_back();
    }
    other();
    st_.push_back({true, {}});
    return true;
  }
  bool key(string_t& k) override {
    st_.back().key = k;
    return true;
  }
  bool end_object() override {
    st_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    other();
    st_.push_back({false, {}});
    return true;
  }
  bool end_array() override {
    st_.pop_back();
    return true;
  }

 private:
  struct frame {
    bool object;
    std::string key;
  };
  std::vector<frame> st_;

  // True when the value now read lies in a List item, `depth` frames deep.
  bool in_item(std::size_t depth) const {
    return st_.size() == depth && st_[0].key == "items" && !st_[1].object && st_[2].object;
  }
  // The node whose metadata.labels holds the value now read, if any.
  kube_node* label_owner() {
    if (in_item(5) && st_[2].key == "metadata" && st_[3].key == "labels" && st_[4].object)
      return &items.back();
    if (st_.size() == 3 && st_[0].key == "metadata" && st_[1].key == "labels" && st_[2].object)
      return &root;
    return nullptr;
  }
  // A value other than a string: a label's value must be one.
  bool other() {
    if (kube_node* n = label_owner(); n != nullptr && n->bad_label.empty())
      n->bad_label = st_.back().key;
    return true;
  }
};

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
  kube_reader r;
  try {
    nlohmann::json::sax_parse(text.begin(), text.end(), &r);
  } catch (const std::exception& e) {
    if (r.what.empty()) r.what = e.what();
  }
  if (r.too_many)
    return error{located(shown, 0,
                         fmt::format("more than {} nodes; the most migplan reads is {}",
                                     max_plan_nodes, max_plan_nodes))};
  if (!r.what.empty())
    return error{located(shown, r.byte ? doc::json_error_at(text, *r.byte).line : 0,
                         "invalid json: " + json_error_text(r.what))};
  if (!r.root_is_object)
    return error{located(shown, 1, "expected the JSON object `kubectl get nodes -o json` prints")};
  if (r.kind == "Node") {
    if (r.root.name.empty()) return error{located(shown, 0, "the Node has no metadata.name")};
    return std::vector<kube_node>{std::move(r.root)};
  }
  if (r.kind != "List" && r.kind != "NodeList")
    return error{located(
        shown, 0,
        r.kind.empty() ? std::string("not kubectl's output for nodes: it has no 'kind' (expected "
                                     "`kubectl get nodes -o json`)")
                       : fmt::format("not kubectl's output for nodes: its kind is {} (expected "
                                     "List, NodeList or Node)",
                                     q(r.kind)))};
  for (std::size_t i = 0; i < r.items.size(); ++i) {
    const kube_node& n = r.items[i];
    if (!n.kind.empty() && n.kind != "Node")
      return error{located(shown, 0,
                           fmt::format("item {} is a {}, not a Node (expected `kubectl get "
                                       "nodes -o json`)",
                                       i, q(n.kind)))};
    if (n.name.empty())
      return error{located(shown, 0, fmt::format("item {} has no metadata.name", i))};
  }
  return std::move(r.items);
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

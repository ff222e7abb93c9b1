// SPDX-License-Identifier: Apache-2.0
#include "io/manifest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <optional>

#include "io/check_input.hpp"
#include "io/check_reader.hpp"
#include "io/document.hpp"
#include "io/source.hpp"

namespace migplan::cli::check {
namespace {

using reading::at;
using reading::q;

// The documents of a manifest are read by the document layer, one at a time
// (doc::read_yaml_stream): a tree with positions per document, aliases
// copied within its alias budget.

using doc::node;

// The value of `key` in mapping `map` (the last one written, as Kubernetes
// reads a key given twice), or null, also for a null `map`.
const node* k8s_member(const node* map, std::string_view key) {
  return map == nullptr ? nullptr : doc::member(*map, key);
}

std::string_view k8s_scalar(const node* n) {
  return n != nullptr && n->is_scalar() ? std::string_view(n->text) : std::string_view();
}

// A Kubernetes object: a mapping whose apiVersion and kind are non-empty scalars.
bool is_object(const node* n) {
  return !k8s_scalar(k8s_member(n, "apiVersion")).empty() &&
         !k8s_scalar(k8s_member(n, "kind")).empty();
}

// What reading a manifest may cost: nesting as deep as yaml-cpp itself reads
// (it refuses more than 2,000 levels), aliases within the document layer's
// alias budget.
doc::budget manifest_budget() {
  doc::budget limits;
  limits.depth = 2'001;
  limits.reader = "migplan";  // manifests are read by check, plan and place
  return limits;
}

// ---------------------------------------------------------------------------
// Tracing a value back to the file.

constexpr bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The byte of `text` at a position, or nothing.
std::optional<std::size_t> offset(const line_table& lines, doc::position p) {
  if (p.line <= 0 || p.column <= 0) return std::nullopt;
  const auto line = static_cast<std::size_t>(p.line - 1);
  if (line >= lines.count()) return std::nullopt;
  const auto col = static_cast<std::size_t>(p.column - 1);
  if (col >= lines.length(line)) return std::nullopt;
  return lines.start(line) + col;
}

int to_int(std::size_t v) { return static_cast<int>(v); }

// The runs of `value` in `text`, when the characters of `value` other than
// white space are, in order, those of `text` from byte `from` on (white space
// aside); empty otherwise. That holds from the line after a block scalar's
// indicator, since indentation, line breaks, folding and chomping are all
// white space, and from just after the quote of a quoted scalar or at a plain
// one, until an escape ('\n' in a JSON string, '' in single quotes) differs.
std::vector<embedded_config::span> trace(std::string_view text, const line_table& lines,
                                         std::size_t from, std::string_view value) {
  std::vector<embedded_config::span> spans;
  std::size_t cur = from;
  std::size_t file_line = lines.line_of(std::min(from, text.size()));
  int line = 1, col = 1;  // in value
  for (const char c : value) {
    if (c == '\n') {
      ++line;
      col = 1;
      continue;
    }
    if (!blank(c)) {
      while (cur < text.size() && blank(text[cur])) {
        if (text[cur] == '\n') ++file_line;
        ++cur;
      }
      if (cur >= text.size() || text[cur] != c) return {};
      const int file_col = to_int(cur - lines.start(file_line)) + 1;
      const bool extends = !spans.empty() && spans.back().at.line == line &&
                           spans.back().file_at.line == to_int(file_line) + 1 &&
                           col - spans.back().at.col == file_col - spans.back().file_at.col;
      if (!extends)
        spans.push_back(
            {{line, col}, {to_int(file_line) + 1, file_col}, to_int(lines.length(file_line)) + 1});
      ++cur;
    }
    ++col;
  }
  return spans;
}

// Where tracing a scalar starts, from the byte its position points at.
std::optional<std::size_t> trace_start(std::string_view text, const line_table& lines,
                                       doc::position p) {
  std::optional<std::size_t> at = offset(lines, p);
  if (!at) return std::nullopt;
  // An anchor or a tag before the value ("&cfg |", "!!str |"): the mark is at it.
  for (int props = 0; props < 2 && (text[*at] == '&' || text[*at] == '!'); ++props) {
    while (*at < text.size() && !blank(text[*at])) ++*at;
    while (*at < text.size() && (text[*at] == ' ' || text[*at] == '\t')) ++*at;
    if (*at == text.size()) return std::nullopt;
  }
  switch (text[*at]) {
    case '|':
    case '>': {  // a block scalar: its content starts on the next line
      const auto line = static_cast<std::size_t>(p.line);  // the next one, 0-based
      return line < lines.count() ? lines.start(line) : text.size();
    }
    case '"':
    case '\'':
      return *at + 1;
    default:
      return *at;
  }
}

// True when `text` reads as a mig-parted config: a mapping with 'mig-configs'.
bool mig_parted_like(const std::string& text) {
  if (text.find("mig-configs") == std::string::npos) return false;
  const auto root = doc::read_yaml(text, {}, manifest_budget());
  return root && k8s_member(&*root, "mig-configs") != nullptr;
}

class reader {
 public:
  reader(std::string_view text, manifest& out)
      : text_(text), lines_(text, line_table::bom::skipped), out_(out) {}

  void read() {
    std::optional<doc::position> previous_start;
    int n = 0;
    const auto each = [&](node& root, doc::position start) {
      const int index = n++;
      if (index == max_manifest_documents) {
        diag(severity::error, at(start),
             fmt::format("more than {} yaml documents; check reads the first {}",
                         max_manifest_documents, max_manifest_documents));
        return false;
      }
      // yaml-cpp 0.7 reads a stray ',' as an empty document, endlessly.
      if (root.is_null() && previous_start && previous_start->offset == start.offset) {
        const std::optional<std::size_t> byte = offset(lines_, start);
        diag(severity::error, at(start),
             byte ? fmt::format("invalid yaml: unexpected {}", q(text_.substr(*byte, 1)))
                  : std::string("invalid yaml: no document can be read here"));
        return false;
      }
      previous_start = start;
      if (!root.is_null()) document(root, index);
      return true;
    };
    try {
      if (const auto failed = doc::read_yaml_stream(text_, {}, manifest_budget(), each))
        diag(severity::error, {failed->line, failed->column}, failed->message);
    } catch (const std::exception& e) {
      diag(severity::error, {}, std::string("cannot read the file: ") + e.what());
    }
    if (foreign_ > 0)
      out_.diagnostics.insert(
          out_.diagnostics.begin() + static_cast<std::ptrdiff_t>(foreign_index_),
          file_diagnostic(
              severity::warning, fault::invalid, foreign_at_,
              foreign_ == 1
                  ? std::string("this yaml document is not a kubernetes object (it has no "
                                "'apiVersion' and 'kind'); check skips it")
                  : fmt::format("this yaml document and {} more are not kubernetes objects "
                                "(they have no 'apiVersion' and 'kind'); check skips them",
                                foreign_ - 1)));
  }

 private:
  void diag(severity s, location where, std::string message) {
    out_.diagnostics.push_back(file_diagnostic(s, fault::malformed, where, std::move(message)));
  }

  void document(const node& root, int doc) {
    if (!seen_content_) {
      seen_content_ = true;
      out_.is_manifest = is_object(&root);
    }
    if (!is_object(&root)) {
      if (foreign_++ == 0) {
        foreign_at_ = at(root.at);
        foreign_index_ = out_.diagnostics.size();
      }
      return;
    }
    const std::string_view kind = k8s_scalar(k8s_member(&root, "kind"));
    const node* items = k8s_member(&root, "items");
    if (kind != "ConfigMap" && kind.ends_with("List") && items != nullptr && items->is_list()) {
      for (const node& item : items->kids)
        if (is_object(&item)) object(&item, doc);
      return;
    }
    object(&root, doc);
  }

  void object(const node* obj, int doc) {
    if (k8s_scalar(k8s_member(obj, "kind")) != "ConfigMap" || !configmap(obj, doc)) ++out_.skipped;
  }

  // Reads one ConfigMap; false when it has neither config.yaml nor
  // device-config.yaml (HAMi's and Volcano's device config).
  bool configmap(const node* obj, int doc) {
    const node* data = k8s_member(obj, "data");
    if (data == nullptr || !data->is_map()) return false;
    const std::string name(k8s_scalar(k8s_member(k8s_member(obj, "metadata"), "name")));
    const node* key = nullptr;
    const node* value = nullptr;
    std::string_view key_name;
    for (const std::string_view wanted : {"config.yaml", "device-config.yaml"}) {
      for (std::size_t i = 0; i + 1 < data->kids.size(); i += 2) {
        const node* k = &data->kids[i];
        if (k8s_scalar(k) != wanted) continue;
        if (key != nullptr)
          out_.diagnostics.push_back(
              file_diagnostic(severity::warning, fault::invalid, at(k->at),
                              fmt::format("duplicate key '{}' in configmap {} (first at line {}); "
                                          "check reads the last one",
                                          wanted, q(name), key->at.line)));
        key = k;
        value = &data->kids[i + 1];
      }
      key_name = wanted;
      if (key != nullptr) break;
    }
    if (key == nullptr) {
      other_configs(data, name);
      return false;
    }
    if (value->is_list() || value->is_map()) {
      diag(severity::error, at(value->at),
           fmt::format("'{}' in configmap {} is {}, not a string; write '{}: |' and indent the "
                       "{} below it",
                       key_name, q(name), doc::value_text(*value), key_name,
                       key_name == "config.yaml" ? "mig-parted config" : "device config"));
      return true;
    }
    embedded_config c;
    c.key = std::string(key_name);
    c.configmap = name;
    c.document = doc;
    c.key_at = at(key->at);
    if (value->is_scalar()) {
      c.text = value->text;
      if (const std::optional<std::size_t> from = trace_start(text_, lines_, value->at))
        c.spans = trace(text_, lines_, *from, c.text);
    }
    out_.configs.push_back(std::move(c));
    return true;
  }

  // A ConfigMap without config.yaml: a note for each other key holding a
  // mig-parted config, which the operator would not read.
  void other_configs(const node* data, const std::string& name) {
    for (std::size_t i = 0; i + 1 < data->kids.size(); i += 2) {
      const node& k = data->kids[i];
      const node& v = data->kids[i + 1];
      if (!k.is_scalar() || !v.is_scalar() || !mig_parted_like(v.text)) continue;
      out_.diagnostics.push_back(file_diagnostic(
          severity::note, fault::invalid, at(k.at),
          fmt::format("configmap {} holds a mig-parted config under {}, not 'config.yaml'; the "
                      "gpu operator reads only 'config.yaml', so check does not check it",
                      q(name), q(k.text))));
    }
  }

  std::string_view text_;
  line_table lines_;
  manifest& out_;
  bool seen_content_ = false;
  int foreign_ = 0;  // non-empty documents that are not Kubernetes objects
  location foreign_at_;
  std::size_t foreign_index_ = 0;  // where their warning goes among the diagnostics
};

}  // namespace

bool is_kubernetes_object(const node& n) { return is_object(&n); }

location embedded_config::map(location inside) const {
  if (inside.line <= 0 || spans.empty()) return key_at;
  const location in{inside.line, std::max(inside.col, 1)};
  const auto next = std::upper_bound(spans.begin(), spans.end(), in, [](location a, const span& s) {
    return a.line != s.at.line ? a.line < s.at.line : a.col < s.at.col;
  });
  const auto col = [&](const span& s) {
    return inside.col <= 0 ? 0 : std::clamp(s.file_at.col + (in.col - s.at.col), 1, s.file_end);
  };
  if (next != spans.begin() && std::prev(next)->at.line == in.line) {
    const span& s = *std::prev(next);
    return {s.file_at.line, col(s)};
  }
  if (next != spans.end() && next->at.line == in.line) return {next->file_at.line, col(*next)};
  // A line of white space only: as many lines from the nearest run as in
  // `text`, never past the next run (exact in a literal block, where every
  // line of `text` is one of the file's).
  const int c = inside.col <= 0 ? 0 : 1;
  if (next == spans.begin())
    return {std::max(1, next->file_at.line - (next->at.line - in.line)), c};
  const span& p = *std::prev(next);
  const int bound = next != spans.end() ? next->file_at.line : p.file_at.line;
  return {std::min(p.file_at.line + (in.line - p.at.line), bound), c};
}

manifest read_manifest(std::string_view text) {
  manifest out;
  reader(text, out).read();
  return out;
}

void map_diagnostics(std::vector<diagnostic>& diagnostics, const embedded_config& config) {
  for (diagnostic& d : diagnostics) {
    const location in_file = config.map(d.at());
    d.line = in_file.line;
    d.column = in_file.col;
  }
}

void map_input(parsed_input& input, const embedded_config& config) {
  map_diagnostics(input.diagnostics, config);
  // A position left unknown here means "absent" (no 'model' key), not "somewhere".
  const auto known = [&](location& l) {
    if (l.line > 0) l = config.map(l);
  };
  for (geometry_spec& g : input.geometries) {
    for (location* l : {&g.at, &g.items_at, &g.model_at, &g.filter_at}) known(*l);
    for (filter_id& f : g.filter) known(f.at);
    for (profile_request& r : g.items) {
      known(r.at);
      known(r.memory_at);
    }
  }
  for (table_entry& e : input.table) {
    known(e.at);
    for (table_entry::model_text& m : e.models) known(m.at);
  }
}

}  // namespace migplan::cli::check

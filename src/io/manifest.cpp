// SPDX-License-Identifier: Apache-2.0
#include "io/manifest.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstddef>
#include <deque>
#include <istream>
#include <iterator>
#include <optional>
#include <streambuf>
#include <unordered_map>

#include "io/check_input.hpp"
#include "io/text_view.hpp"

namespace migplan::cli::check {
namespace {

std::string q(std::string_view s) { return fmt::format("'{}'", clip(s)); }

// ---------------------------------------------------------------------------
// A document as a small tree, built from yaml-cpp's events rather than with
// YAML::LoadAll, which yaml-cpp 0.7 sends into an endless run of empty
// documents on a stray top-level ','. Only the top few levels are kept
// (a ConfigMap's data entries are at depth 2, a List item's at depth 4);
// deeper nodes are counted but not stored, except under an anchor, which an
// alias anywhere may name. An alias is a pointer to its anchor's node, never
// a copy, so no file expands.

struct ynode {
  enum class type : unsigned char { null, scalar, sequence, mapping };
  type kind = type::null;
  YAML::Mark mark;
  std::string value;               // scalars
  std::vector<const ynode*> kids;  // a mapping's keys and values in turn, a sequence's items
};

class tree_builder final : public YAML::EventHandler {
 public:
  const ynode* root() const { return root_; }
  YAML::Mark start() const { return start_; }

  void OnDocumentStart(const YAML::Mark& m) override {
    arena_.clear();
    open_.clear();
    anchors_.clear();
    root_ = nullptr;
    start_ = m;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t anchor) override {
    add(ynode::type::null, m, anchor);
  }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t anchor) override {
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {  // yaml-cpp throws first
      add(ynode::type::null, m, YAML::NullAnchor);
      return;
    }
    if (open_.empty())
      root_ = it->second;
    else if (open_.back().keep)
      open_.back().node->kids.push_back(it->second);
  }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    if (ynode* n = add(ynode::type::scalar, m, anchor); n != nullptr && kept(anchor))
      n->value = value;
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    start_collection(ynode::type::sequence, m, anchor);
  }
  void OnSequenceEnd() override { open_.pop_back(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    start_collection(ynode::type::mapping, m, anchor);
  }
  void OnMapEnd() override { open_.pop_back(); }

 private:
  static constexpr std::size_t keep_depth = 4;

  struct frame {
    ynode* node;     // null when not stored
    bool keep;       // its children are stored
    bool in_anchor;  // it or a collection around it has an anchor
  };

  bool in_anchor(YAML::anchor_t anchor) const {
    return anchor != YAML::NullAnchor || (!open_.empty() && open_.back().in_anchor);
  }
  // Whether a node starting now keeps its value or children.
  bool kept(YAML::anchor_t anchor) const { return open_.size() <= keep_depth || in_anchor(anchor); }

  // A node starting now, stored when its parent keeps its children (a
  // parent's mapping keys and values stay paired) or an alias may name it.
  ynode* add(ynode::type kind, const YAML::Mark& m, YAML::anchor_t anchor) {
    const bool parent_keeps = open_.empty() || open_.back().keep;
    if (!parent_keeps && anchor == YAML::NullAnchor) return nullptr;
    ynode& n = arena_.emplace_back();
    n.kind = kind;
    n.mark = m;
    if (anchor != YAML::NullAnchor) anchors_[anchor] = &n;
    if (open_.empty())
      root_ = &n;
    else if (parent_keeps)
      open_.back().node->kids.push_back(&n);
    return &n;
  }

  void start_collection(ynode::type kind, const YAML::Mark& m, YAML::anchor_t anchor) {
    const bool keep = kept(anchor), anchored = in_anchor(anchor);
    ynode* n = add(kind, m, anchor);
    open_.push_back({keep ? n : nullptr, keep && n != nullptr, anchored});
  }

  std::deque<ynode> arena_;  // stable addresses
  std::vector<frame> open_;
  std::unordered_map<YAML::anchor_t, const ynode*> anchors_;
  const ynode* root_ = nullptr;
  YAML::Mark start_;
};

location at(const YAML::Mark& m) {
  if (m.is_null()) return {};
  return {m.line + 1, m.column + 1};
}

bool is(const ynode* n, ynode::type t) { return n != nullptr && n->kind == t; }

// The value of `key` in mapping `map` (the last one written), or null.
const ynode* get(const ynode* map, std::string_view key) {
  if (!is(map, ynode::type::mapping)) return nullptr;
  const ynode* found = nullptr;
  for (std::size_t i = 0; i + 1 < map->kids.size(); i += 2)
    if (is(map->kids[i], ynode::type::scalar) && map->kids[i]->value == key)
      found = map->kids[i + 1];
  return found;
}

std::string_view scalar(const ynode* n) {
  return is(n, ynode::type::scalar) ? std::string_view(n->value) : std::string_view();
}

// A Kubernetes object: a mapping whose apiVersion and kind are non-empty scalars.
bool is_object(const ynode* n) {
  return !scalar(get(n, "apiVersion")).empty() && !scalar(get(n, "kind")).empty();
}

// ---------------------------------------------------------------------------
// Tracing a value back to the file.

constexpr bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Where each line of a file starts, and how long it is (without "\r\n"),
// as yaml-cpp counts: lines at '\n' (a "\r\n" is one break, a lone '\r'
// none), columns in bytes, a UTF-8 byte-order mark not counted.
class line_table {
 public:
  explicit line_table(std::string_view text) : text_(text) {
    starts_.push_back(text.starts_with("\xEF\xBB\xBF") ? 3 : 0);
    for (std::size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1))
      starts_.push_back(i + 1);
  }
  std::size_t count() const { return starts_.size(); }
  std::size_t start(std::size_t line0) const { return starts_[line0]; }
  // 0-based line of byte `at`.
  std::size_t line_of(std::size_t at) const {
    const auto after = std::upper_bound(starts_.begin(), starts_.end(), at);
    return after == starts_.begin() ? 0 : static_cast<std::size_t>(after - starts_.begin()) - 1;
  }
  std::size_t length(std::size_t line0) const {
    const std::size_t from = starts_[line0];
    std::size_t end = line0 + 1 < starts_.size() ? starts_[line0 + 1] - 1 : text_.size();
    if (end > from && text_[end - 1] == '\r') --end;
    return end - from;
  }

 private:
  std::string_view text_;
  std::vector<std::size_t> starts_;
};

// The byte of `text` at a yaml-cpp mark, or nothing.
std::optional<std::size_t> offset(const line_table& lines, const YAML::Mark& m) {
  if (m.is_null() || m.line < 0 || m.column < 0) return std::nullopt;
  const auto line = static_cast<std::size_t>(m.line);
  if (line >= lines.count()) return std::nullopt;
  const auto col = static_cast<std::size_t>(m.column);
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

// Where tracing a scalar starts, from the byte its mark points at.
std::optional<std::size_t> trace_start(std::string_view text, const line_table& lines,
                                       const YAML::Mark& m) {
  std::optional<std::size_t> at = offset(lines, m);
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
      const std::size_t line = static_cast<std::size_t>(m.line) + 1;
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
  try {
    const YAML::Node root = YAML::Load(text);
    return root.IsMap() && root["mig-configs"].IsDefined();
  } catch (const std::exception&) {
    return false;
  }
}

std::string_view kind_name(const ynode* n) {
  return is(n, ynode::type::sequence) ? "a list" : "a mapping";
}

class reader {
 public:
  reader(std::string_view text, manifest& out) : text_(text), lines_(text), out_(out) {}

  void read() {
    view_buf buf(text_);
    std::istream stream(&buf);
    tree_builder tree;
    std::optional<YAML::Mark> previous_start;
    try {
      YAML::Parser parser(stream);
      for (int doc = 0;; ++doc) {
        if (!parser.HandleNextDocument(tree)) break;
        if (doc == max_manifest_documents) {
          diag(severity::error, at(tree.start()),
               fmt::format("more than {} yaml documents; check reads the first {}",
                           max_manifest_documents, max_manifest_documents));
          break;
        }
        const ynode* root = tree.root();
        const bool empty = root == nullptr || root->kind == ynode::type::null;
        // yaml-cpp 0.7 reads a stray ',' as an empty document, endlessly.
        if (empty && previous_start && previous_start->pos == tree.start().pos) {
          const std::optional<std::size_t> byte = offset(lines_, tree.start());
          diag(severity::error, at(tree.start()),
               byte ? fmt::format("invalid yaml: unexpected {}", q(text_.substr(*byte, 1)))
                    : std::string("invalid yaml: no document can be read here"));
          break;
        }
        previous_start = tree.start();
        if (!empty) document(root, doc);
      }
    } catch (const YAML::Exception& e) {
      diag(severity::error, at(e.mark), "invalid yaml: " + yaml_error_text(e));
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

  void document(const ynode* root, int doc) {
    if (!seen_content_) {
      seen_content_ = true;
      out_.is_manifest = is_object(root);
    }
    if (!is_object(root)) {
      if (foreign_++ == 0) {
        foreign_at_ = at(root->mark);
        foreign_index_ = out_.diagnostics.size();
      }
      return;
    }
    const std::string_view kind = scalar(get(root, "kind"));
    const ynode* items = get(root, "items");
    if (kind != "ConfigMap" && kind.ends_with("List") && is(items, ynode::type::sequence)) {
      for (const ynode* item : items->kids)
        if (is_object(item)) object(item, doc);
      return;
    }
    object(root, doc);
  }

  void object(const ynode* obj, int doc) {
    if (scalar(get(obj, "kind")) != "ConfigMap" || !configmap(obj, doc)) ++out_.skipped;
  }

  // Reads one ConfigMap; false when it has no config.yaml.
  bool configmap(const ynode* obj, int doc) {
    const ynode* data = get(obj, "data");
    if (!is(data, ynode::type::mapping)) return false;
    const std::string name(scalar(get(get(obj, "metadata"), "name")));
    const ynode* key = nullptr;
    const ynode* value = nullptr;
    for (std::size_t i = 0; i + 1 < data->kids.size(); i += 2) {
      const ynode* k = data->kids[i];
      if (scalar(k) != "config.yaml") continue;
      if (key != nullptr)
        out_.diagnostics.push_back(file_diagnostic(
            severity::warning, fault::invalid, at(k->mark),
            fmt::format("duplicate key 'config.yaml' in configmap {} (first at line {}); "
                        "check reads the last one",
                        q(name), at(key->mark).line)));
      key = k;
      value = data->kids[i + 1];
    }
    if (key == nullptr) {
      other_configs(data, name);
      return false;
    }
    if (is(value, ynode::type::sequence) || is(value, ynode::type::mapping)) {
      diag(severity::error, at(value->mark),
           fmt::format("'config.yaml' in configmap {} is {}, not a string; write 'config.yaml: |' "
                       "and indent the mig-parted config below it",
                       q(name), kind_name(value)));
      return true;
    }
    embedded_config c;
    c.configmap = name;
    c.document = doc;
    c.key_at = at(key->mark);
    if (is(value, ynode::type::scalar)) {
      c.text = value->value;
      if (const std::optional<std::size_t> from = trace_start(text_, lines_, value->mark))
        c.spans = trace(text_, lines_, *from, c.text);
    }
    out_.configs.push_back(std::move(c));
    return true;
  }

  // A ConfigMap without config.yaml: a note for each other key holding a
  // mig-parted config, which the operator would not read.
  void other_configs(const ynode* data, const std::string& name) {
    for (std::size_t i = 0; i + 1 < data->kids.size(); i += 2) {
      const ynode* k = data->kids[i];
      const ynode* v = data->kids[i + 1];
      if (!is(k, ynode::type::scalar) || !is(v, ynode::type::scalar) || !mig_parted_like(v->value))
        continue;
      out_.diagnostics.push_back(file_diagnostic(
          severity::note, fault::invalid, at(k->mark),
          fmt::format("configmap {} holds a mig-parted config under {}, not 'config.yaml'; the "
                      "gpu operator reads only 'config.yaml', so check does not check it",
                      q(name), q(k->value))));
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

// The first non-empty document's top-level keys, from events alone.
class object_sniffer final : public YAML::EventHandler {
 public:
  struct found {};  // thrown once both keys are seen

  bool content = false;            // the document is not empty
  bool api = false, kind = false;  // it has a non-empty apiVersion / kind
  YAML::Mark start;

  void OnDocumentStart(const YAML::Mark& m) override {
    content = api = kind = root_map_ = false;
    depth_ = key_ = 0;
    index_ = 0;
    start = m;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { item(false, {}); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { item(true, {}); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string& value) override {
    item(true, value);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    item(true, {});
    ++depth_;
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    if (depth_ == 0) root_map_ = true;
    item(true, {});
    ++depth_;
  }
  void OnMapEnd() override { --depth_; }

 private:
  // One node starting at the current depth; `value` for a scalar.
  void item(bool not_null, std::string_view value) {
    if (depth_ == 0) {
      content = not_null;
      return;
    }
    if (depth_ != 1 || !root_map_) return;
    if (index_++ % 2 == 0) {
      key_ = value == "apiVersion" ? 1 : value == "kind" ? 2 : 0;
      return;
    }
    if (key_ == 1) api = !value.empty();
    if (key_ == 2) kind = !value.empty();
    if (api && kind) throw found{};  // the rest of a large document is not needed
  }

  int depth_ = 0;
  bool root_map_ = false;
  std::size_t index_ = 0;  // nodes seen in the root mapping
  int key_ = 0;            // 1: the value of apiVersion comes next, 2: of kind
};

}  // namespace

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

bool looks_like_manifest(std::string_view text) {
  object_sniffer s;
  try {
    view_buf buf(text);
    std::istream stream(&buf);
    YAML::Parser parser(stream);
    std::optional<YAML::Mark> previous_start;
    for (int doc = 0; doc < max_manifest_documents && parser.HandleNextDocument(s); ++doc) {
      if (s.content) return s.api && s.kind;
      if (previous_start && previous_start->pos == s.start.pos) return false;  // a stray ','
      previous_start = s.start;
    }
  } catch (const object_sniffer::found&) {
    return true;
  } catch (const std::exception&) {
    // A syntax error after the first document's apiVersion and kind is the
    // manifest's to report.
    return s.content && s.api && s.kind;
  }
  return false;
}

void map_diagnostics(std::vector<diagnostic>& diagnostics, const embedded_config& config) {
  for (diagnostic& d : diagnostics) d.at = config.map(d.at);
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
    for (profile_request& r : g.items) known(r.at);
  }
}

}  // namespace migplan::cli::check

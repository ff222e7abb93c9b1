// SPDX-License-Identifier: Apache-2.0
#include "io/document.hpp"

#include <fmt/format.h>
#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cctype>
#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_set>
#include <utility>

#include "io/json_sax.hpp"
#include "io/source.hpp"
#include "io/text_view.hpp"
#include "quote.hpp"

namespace migplan::cli::doc {
namespace {

constexpr std::string_view str_tag = "tag:yaml.org,2002:str";

bool all_of(std::string_view s, std::string_view allowed) {
  return !s.empty() && s.find_first_not_of(allowed) == std::string_view::npos;
}

diagnostic problem(std::string_view file, position at, std::string_view code, std::string message) {
  return {std::string(file), at.line,         at.column,
          std::string(code), severity::error, std::move(message)};
}

// Builds a tree from a parser's events, checking the budget as it goes. A
// limit passed is kept in `failed`; the parser is then stopped by its
// driver (nlohmann's SAX by returning false, yaml-cpp's events, which have
// no way to say stop, by the yaml reader's own exception, caught at its
// entry point).
class tree_sink {
 public:
  tree_sink(std::string_view file, const budget& limits) : file_(file), limits_(limits) {}

  node root;
  std::optional<diagnostic> failed;

  // A new value, in the container open now (or the root); nullptr once a
  // limit is passed.
  node* add(node::type kind, position at) {
    if (failed) return nullptr;
    if (skipping_ > 0 || left_out()) return &(scratch_ = node{});
    if (++values_ > limits_.values)
      return fail(at, "values",
                  fmt::format("the file holds more than {} values; {} stops reading it there",
                              limits_.values, limits_.reader));
    node* n = &root;
    if (!open_.empty()) {
      node& parent = *open_.back();
      if (&parent == limited_ && parent.kids.size() == limits_.limited_most)
        return fail(at, "list-limit",
                    fmt::format("more than {} {}; the most a file may list is {}",
                                limits_.limited_most, limits_.limited_what, limits_.limited_most));
      parent.kids.emplace_back();
      n = &parent.kids.back();
    }
    n->kind = kind;
    n->at = at;
    return n;
  }
  // A new list or mapping, open until close().
  node* open(node::type kind, position at) {
    if (failed) return nullptr;
    if (open_.size() + skipping_ >= limits_.depth)
      return fail(
          at, "depth",
          fmt::format("values nest more than {} levels deep{}", limits_.depth, limits_.depth_note));
    if (skipping_ > 0 || left_out()) {
      ++skipping_;
      return &(scratch_ = node{});
    }
    // The list limited: the value of the limited key in the top-level mapping.
    const bool limited = kind == node::type::list && open_.size() == 1 && open_[0]->is_map() &&
                         open_[0]->kids.size() % 2 == 1 && !limits_.limited_key.empty() &&
                         open_[0]->kids.back().is_scalar() &&
                         open_[0]->kids.back().text == limits_.limited_key;
    node* n = add(kind, at);
    if (n == nullptr) return nullptr;
    if (limited) limited_ = n;
    if (limits_.keep != nullptr) {
      const node* parent = open_.empty() ? nullptr : open_.back();
      keys_.push_back(parent != nullptr && parent->is_map()
                          ? parent->kids[parent->kids.size() - 2].text
                          : std::string());
    }
    open_.push_back(n);
    return n;
  }
  // Closes the innermost list or mapping, and returns it.
  node* close() {
    if (failed) return nullptr;
    if (skipping_ > 0) {
      --skipping_;
      return &scratch_;
    }
    if (open_.empty()) return nullptr;
    node* n = open_.back();
    open_.pop_back();
    if (limits_.keep != nullptr) keys_.pop_back();
    return n;
  }
  // Starts the next document of a stream: an empty tree, the budget spent so
  // far kept.
  void restart() {
    root = node{};
    open_.clear();
    keys_.clear();
    skipping_ = 0;
    limited_ = nullptr;
  }
  // Counts one value copied by an alias; false once the budget is spent.
  bool spend_alias(std::size_t& left) {
    if (failed) return false;
    if (left == 0) {
      fail({}, "aliases",
           fmt::format("aliases make this file name too many values; {} stops reading it there",
                       limits_.reader));
      return false;
    }
    --left;
    return true;
  }

 private:
  // True when the value now read is an entry limits_.keep leaves out; then
  // its key, already in the tree, is taken out again.
  bool left_out() {
    if (limits_.keep == nullptr || open_.empty()) return false;
    node& parent = *open_.back();
    if (!parent.is_map() || parent.kids.size() % 2 == 0) return false;  // a key, or an item
    keys_.push_back(parent.kids.back().text);
    const std::span<const std::string> path(keys_.begin() + 1, keys_.end());  // not the root's
    const bool out = !limits_.keep(path);
    keys_.pop_back();
    if (out) {
      parent.kids.pop_back();
      --values_;
    }
    return out;
  }

  node* fail(position at, std::string_view code, std::string message) {
    failed = problem(file_, at, code, std::move(message));
    return nullptr;
  }

  std::string_view file_;
  const budget& limits_;
  std::size_t values_ = 0;
  std::vector<node*> open_;  // the containers being filled, outermost first
  const node* limited_ = nullptr;
  // With limits_.keep: the key of each container of open_ ("" for the root
  // and a list's items), and how deep inside an entry left out the reading
  // is (its values go to scratch_, never into the tree).
  std::vector<std::string> keys_;
  std::size_t skipping_ = 0;
  node scratch_;
};

// Thrown by yaml_tree to stop yaml-cpp's parser once a limit is passed (its
// event handler cannot refuse an event); caught in read_yaml(), never
// further.
struct stop_parsing {};

// A YAML document as a tree, from yaml-cpp's parser events: the file is never
// held as yaml-cpp's own nodes. Aliases are copied, each copied value spent
// from the alias budget.
class yaml_tree final : public YAML::EventHandler {
 public:
  yaml_tree(std::string_view text, std::string_view file, const budget& limits,
            std::size_t alias_values)
      : text_(text),
        lines_(text, line_table::bom::skipped),
        sink_(file, limits),
        aliases_left_(alias_values) {}

  tree_sink& sink() { return sink_; }
  position start() const { return start_; }

  // Anchors name values of their own document only.
  void OnDocumentStart(const YAML::Mark& m) override {
    sink_.restart();
    anchors_.clear();
    open_anchors_.clear();
    start_ = at(m);
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t anchor) override {
    keep(anchor, checked(sink_.add(node::type::null, empty_value_at(m))));
  }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t anchor) override {
    node* n = checked(sink_.add(node::type::null, at(m)));
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) return;  // yaml-cpp refuses an unknown alias first
    *n = copy(it->second);
  }
  void OnScalar(const YAML::Mark& m, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    node* n = checked(sink_.add(node::type::scalar, at(m)));
    n->text = value;
    n->quoted = tag == "!" || tag == str_tag;
    keep(anchor, n);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    checked(sink_.open(node::type::list, at(m)));
    open_anchors_.push_back(anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    checked(sink_.open(node::type::map, at(m)));
    open_anchors_.push_back(anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  static position at(const YAML::Mark& m) {
    if (m.is_null()) return {};
    return {m.line + 1, m.column + 1, static_cast<std::size_t>(m.pos)};
  }
  // Where a null is. A written one ("~", "null") is where yaml-cpp marks it;
  // an empty one ("key:", a lone "-") it marks at the token after it, lines
  // below or past the end of the file: it is at the ':' or '-' before, the
  // last thing ahead of that token other than blanks and comments.
  position empty_value_at(const YAML::Mark& m) const {
    if (m.is_null() || m.pos < 0) return at(m);
    // yaml-cpp counts bytes from after a byte-order mark (and, at the end of
    // a file without a last line break, a column of 0).
    const std::size_t bom = text_.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    const std::size_t next = std::min(static_cast<std::size_t>(m.pos) + bom, text_.size());
    const std::string_view rest = text_.substr(next);
    // A written null is the whole word ("nullable:" is a key) and no key.
    for (const std::string_view word : {"~", "null", "Null", "NULL"}) {
      if (!rest.starts_with(word)) continue;
      const std::size_t end = rest.find_first_of(" \t\r\n,]}#:", word.size());
      if (end != std::string_view::npos && end != word.size()) continue;
      const std::size_t after = rest.find_first_not_of(" \t", word.size());
      if (after == std::string_view::npos || rest[after] != ':') return at(m);
    }
    std::size_t end = next;
    while (true) {
      const std::size_t begin = end == 0 ? 0 : text_.rfind('\n', end - 1) + 1;
      std::string_view part = text_.substr(begin, end - begin);
      part = part.substr(0, comment_start(part));
      const std::size_t last = part.find_last_not_of(" \t\r");
      if (last != std::string_view::npos) {
        const text_position p = lines_.position(begin + last);
        return {p.line, p.column, begin + last};
      }
      if (begin == 0) return at(m);
      end = begin - 1;
    }
  }
  // Where a comment starts in a line's text (its size when none): a '#' at
  // the start or after a blank, outside quotes.
  static std::size_t comment_start(std::string_view line) {
    char quote = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quote != 0) {
        if (c == quote) quote = 0;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
        return i;
      }
    }
    return line.size();
  }
  node* checked(node* n) {
    if (n == nullptr) throw stop_parsing{};
    return n;
  }
  // A copy of an anchored value, each of its values spent from the budget.
  node copy(const node& from) {
    if (!sink_.spend_alias(aliases_left_)) throw stop_parsing{};
    node t;
    t.kind = from.kind;
    t.quoted = from.quoted;
    t.at = from.at;
    t.text = from.text;
    t.kids.reserve(from.kids.size());
    for (const node& k : from.kids) t.kids.push_back(copy(k));
    return t;
  }
  void keep(YAML::anchor_t anchor, const node* n) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = copy(*n);
  }
  void close() {
    const YAML::anchor_t anchor = open_anchors_.back();
    open_anchors_.pop_back();
    keep(anchor, checked(sink_.close()));
  }

  std::string_view text_;
  line_table lines_;
  tree_sink sink_;
  std::size_t aliases_left_;
  std::map<YAML::anchor_t, node> anchors_;
  std::vector<YAML::anchor_t> open_anchors_;
  position start_;
};

// A JSON document as a tree, from nlohmann's SAX events. nlohmann tells no
// positions: a counting iterator says how far its lexer has read, and each
// value's start is found back from there.
class json_tree final : public json_sax_base {
 public:
  json_tree(std::string_view text, std::string_view file, const budget& limits)
      : text_(text), sink_(file, limits) {}

  tree_sink& sink() { return sink_; }

  // False on a syntax error or a limit passed.
  bool parse() {
    const counting_iterator first(text_.data(), &taken_),
        last(text_.data() + text_.size(), &taken_);
    try {
      nlohmann::json::sax_parse(first, last, this);
    } catch (const std::exception& e) {
      if (what.empty() && !sink_.failed) what = e.what();
    }
    return what.empty() && !sink_.failed;
  }

  bool null() override { return add(node::type::null, literal_start(4), {}, false); }
  bool boolean(bool v) override {
    return add(node::type::scalar, literal_start(v ? 4 : 5), v ? "true" : "false", false);
  }
  bool number_integer(number_integer_t) override { return number(); }
  bool number_unsigned(number_unsigned_t) override { return number(); }
  bool number_float(number_float_t, const string_t&) override { return number(); }
  bool string(string_t& s) override { return add(node::type::scalar, string_start(), s, true); }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override {
    return sink_.open(node::type::map, at(last_byte())) != nullptr;
  }
  bool key(string_t& k) override { return add(node::type::scalar, string_start(), k, true); }
  bool end_object() override { return sink_.close() != nullptr; }
  bool start_array(std::size_t) override {
    return sink_.open(node::type::list, at(last_byte())) != nullptr;
  }
  bool end_array() override { return sink_.close() != nullptr; }

 private:
  static constexpr std::string_view number_chars = "0123456789+-.eE";

  std::size_t last_byte() const { return taken_ > 0 ? taken_ - 1 : 0; }
  // A true, false or null just read ends at the last byte taken.
  std::size_t literal_start(std::size_t length) const {
    return taken_ >= length ? taken_ - length : 0;
  }
  // A string just read ends at its closing quote: its opening quote is the
  // nearest one before that no backslash escapes.
  std::size_t string_start() const {
    std::size_t i = last_byte();
    while (i > 0) {
      --i;
      if (text_[i] != '"') continue;
      std::size_t slashes = 0;
      while (i > slashes && text_[i - 1 - slashes] == '\\') ++slashes;
      if (slashes % 2 == 0) return i;
    }
    return 0;
  }
  // The position of byte `offset`; offsets asked for only grow.
  position at(std::size_t offset) {
    for (; counted_ < offset && counted_ < text_.size(); ++counted_)
      if (text_[counted_] == '\n') {
        ++line_;
        line_start_ = counted_ + 1;
      }
    return {line_, static_cast<int>(offset - line_start_) + 1, offset};
  }
  // A number as written in the text: the lexer has read one byte past it
  // (or more, white space), so its text is found back from there.
  bool number() {
    std::size_t from = taken_;
    while (from > 0 && number_chars.find(text_[from - 1]) == std::string_view::npos) --from;
    const std::size_t end = from;
    while (from > 0 && number_chars.find(text_[from - 1]) != std::string_view::npos) --from;
    return add(node::type::scalar, from, std::string(text_.substr(from, end - from)), false);
  }
  bool add(node::type kind, std::size_t start, std::string text, bool quoted) {
    node* n = sink_.add(kind, at(start));
    if (n == nullptr) return false;
    n->text = std::move(text);
    n->quoted = quoted;
    return true;
  }

  std::string_view text_;
  std::size_t taken_ = 0;  // bytes the lexer has read (counting_iterator)
  tree_sink sink_;
  std::size_t counted_ = 0, line_start_ = 0;
  int line_ = 1;
};

std::optional<diagnostic> too_large(std::string_view text, std::string_view file,
                                    const budget& limits) {
  if (text.size() <= limits.bytes) return std::nullopt;
  return problem(file, {}, "too-large",
                 fmt::format("the file is larger than {} bytes, the most {} reads of it",
                             limits.bytes, limits.reader));
}

// YAML is Unicode text: a byte that is no part of a UTF-8 character is
// refused where it stands, as go-yaml (mig-parted's and Kubernetes' parser)
// refuses it, and is not carried into keys and names.
std::optional<diagnostic> invalid_utf8(std::string_view text, std::string_view file) {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    std::uint32_t cp = 0;
    bool valid = false;
    const std::size_t n = quote_detail::utf8_step(text, i, cp, valid);
    if (!valid) {
      const text_position p = line_table(text, line_table::bom::skipped).position(i);
      return problem(file, {p.line, p.column, i}, "syntax",
                     fmt::format("invalid UTF-8: byte 0x{:02X} is no part of a UTF-8 character "
                                 "(YAML files are UTF-8 text)",
                                 static_cast<unsigned char>(text[i])));
    }
    i += n;
  }
  return std::nullopt;
}

}  // namespace

position json_error_at(std::string_view text, std::size_t byte) {
  const text_position p = line_table(text).position(std::min(byte > 0 ? byte - 1 : 0, text.size()));
  return {p.line, p.column, byte};
}

std::optional<diagnostic> read_yaml_stream(
    std::string_view text, std::string_view file, const budget& limits,
    const std::function<bool(node& root, position start)>& each, node* partial) {
  if (auto big = too_large(text, file, limits)) return big;
  if (auto bad = invalid_utf8(text, file)) return bad;
  budget whole = limits;  // an anchor could name an entry left out: YAML keeps every one
  whole.keep = nullptr;
  yaml_tree t(text, file, whole,
              limits.alias_values > 0 ? limits.alias_values : 4 * text.size() + 100'000);
  try {
    view_buf buf(text);
    std::istream stream(&buf);
    YAML::Parser parser(stream);
    while (parser.HandleNextDocument(t))
      if (!each(t.sink().root, t.start())) break;
  } catch (const stop_parsing&) {
    if (partial != nullptr) *partial = std::move(t.sink().root);
    return t.sink().failed;
  } catch (const YAML::Exception& e) {
    if (partial != nullptr) *partial = std::move(t.sink().root);
    const position at = e.mark.is_null() ? position{}
                                         : position{e.mark.line + 1, e.mark.column + 1,
                                                    static_cast<std::size_t>(e.mark.pos)};
    return problem(file, at, "syntax", "invalid yaml: " + yaml_error_text(e));
  }
  return std::nullopt;
}

bool may_have_second_document(std::string_view text, const node& root) {
  const bool flow = root.at.offset < text.size() && text[root.at.offset] == '{';
  if (!root.is_map() || flow) return true;
  for (std::size_t at = 0; at < text.size();) {
    const std::string_view line = text.substr(at, 3);
    if (line == "---" || line == "..." || line.starts_with('%')) return true;
    const std::size_t end = text.find_first_of("\r\n", at);
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  return false;
}

bool first_document::take(node& doc) {
  if (++seen == 1) {
    root = std::move(doc);
    return may_have_second_document(text, root);
  }
  if (!doc.is_null() && !second) second = doc.at;
  return !second && seen < 4;
}

result<node, diagnostic> read_yaml(std::string_view text, std::string_view file,
                                   const budget& limits) {
  first_document one(text);
  auto failed =
      read_yaml_stream(text, file, limits, [&](node& doc, position) { return one.take(doc); });
  if (failed) return *std::move(failed);
  if (one.second)
    return problem(file, *one.second, "syntax",
                   "a second yaml document starts here; migplan reads one document per file");
  return std::move(one.root);
}

result<node, diagnostic> read_json(std::string_view text, std::string_view file,
                                   const budget& limits) {
  if (auto big = too_large(text, file, limits)) return *big;
  json_tree t(text, file, limits);
  if (t.parse()) return std::move(t.sink().root);
  if (t.sink().failed) return *t.sink().failed;
  const position at = t.byte ? json_error_at(text, *t.byte) : position{};
  return problem(file, at, "syntax", "invalid json: " + json_error_text(t.what));
}

result<node, diagnostic> read_document(std::string_view text, std::string_view file, bool json,
                                       const budget& limits) {
  return json ? read_json(text, file, limits) : read_yaml(text, file, limits);
}

const node* member(const node& map, std::string_view key) {
  if (!map.is_map()) return nullptr;
  const node* found = nullptr;
  for (std::size_t i = 0; i + 1 < map.kids.size(); i += 2)
    if (map.kids[i].is_scalar() && map.kids[i].text == key) found = &map.kids[i + 1];
  return found;
}

const node* repeated_key(const node& root) {
  std::unordered_set<std::string_view> keys;  // of this mapping, so far
  for (std::size_t i = 0; i < root.kids.size(); ++i) {
    const node& k = root.kids[i];
    if (root.is_map() && i % 2 == 0 && k.is_scalar() && !keys.insert(k.text).second) return &k;
    if (const node* r = k.kids.empty() ? nullptr : repeated_key(k)) return r;
  }
  return nullptr;
}

bool yaml11_int(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    return all_of(s.substr(2), "0123456789abcdefABCDEF_");
  if (s.size() > 2 && s[0] == '0' && s[1] == 'b') return all_of(s.substr(2), "01_");
  return !s.empty() && std::isdigit(static_cast<unsigned char>(s[0])) && all_of(s, "0123456789_");
}

bool yaml11_float(std::string_view s) {
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == ".nan" || s == ".NaN" || s == ".NAN" ||
      s == "-.inf" || s == "+.inf" || s == "-.Inf" || s == "+.Inf")
    return true;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  const std::size_t e = s.find_first_of("eE");
  std::string_view mant = s.substr(0, e);
  if (e != std::string_view::npos) {
    std::string_view exp = s.substr(e + 1);
    if (!exp.empty() && (exp[0] == '-' || exp[0] == '+')) exp.remove_prefix(1);
    if (!all_of(exp, "0123456789")) return false;
  }
  const std::size_t dot = mant.find('.');
  if (dot == std::string_view::npos) return false;
  return all_of(mant, "0123456789_.") && mant.find_first_of("0123456789") != std::string_view::npos;
}

bool yaml11_bool(std::string_view s, bool& v) {
  static constexpr std::string_view yes[] = {"y",  "Y",  "yes",  "Yes",  "YES", "on",
                                             "On", "ON", "true", "True", "TRUE"};
  static constexpr std::string_view no[] = {"n",   "N",   "no",    "No",    "NO",   "off",
                                            "Off", "OFF", "false", "False", "FALSE"};
  if (std::find(std::begin(yes), std::end(yes), s) != std::end(yes)) return v = true, true;
  if (std::find(std::begin(no), std::end(no), s) != std::end(no)) return v = false, true;
  return false;
}

bool core_bool(std::string_view s, bool& v) {
  if (s == "true" || s == "True" || s == "TRUE") return v = true, true;
  if (s == "false" || s == "False" || s == "FALSE") return v = false, true;
  return false;
}

scalar_type type_of(const node& n) {
  if (n.is_null()) return scalar_type::null;
  if (!n.is_scalar() || n.quoted) return scalar_type::string;
  const std::string& s = n.text;
  if (s == "~" || s == "null" || s == "Null" || s == "NULL") return scalar_type::null;
  bool b = false;
  if (yaml11_bool(s, b)) return scalar_type::boolean;
  if (yaml11_int(s)) return scalar_type::integer;
  if (yaml11_float(s)) return scalar_type::number;
  return scalar_type::string;
}

std::string value_text(const node& n) {
  if (n.is_null()) return "empty";
  if (n.is_list()) return "a list";
  if (n.is_map()) return "a mapping";
  if (n.quoted) return fmt::format("the string \"{}\"", clip_token(n.text));
  return quote_token(n.text);
}

}  // namespace migplan::cli::doc

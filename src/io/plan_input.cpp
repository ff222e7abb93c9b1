// SPDX-License-Identifier: Apache-2.0
#include "io/plan_input.hpp"

#include <fmt/format.h>
#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <istream>
#include <iterator>
#include <map>
#include <migplan/catalog.hpp>
#include <migplan/compute.hpp>
#include <migplan/search.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <streambuf>
#include <unordered_map>
#include <utility>

#include "io/check_input.hpp"
#include "io/json_sax.hpp"
#include "io/manifest.hpp"
#include "io/names.hpp"
#include "io/plan_input_util.hpp"
#include "io/size.hpp"
#include "io/source.hpp"
#include "io/text_view.hpp"
#include "models.hpp"
#include "quote.hpp"

namespace migplan::cli {

std::string plan_io::why_not(const gpu_model& g, std::span<const item> items) {
  const rules r(g);
  const reason why = check_totals(r, items);
  const auto name = [&](int p) { return g.profiles[static_cast<std::size_t>(p)].name; };
  switch (why.code) {
    case reason_code::instance_cap:
      return fmt::format("{} {} instances, but {} allows at most {}", why.needed,
                         name(why.profiles.front()), g.slug, why.available);
    case reason_code::memory_units:
      return fmt::format("they take {} placement units; {} has {}", why.needed, g.slug,
                         why.available);
    case reason_code::compute_slices:
      return fmt::format("they take {} compute slices; {} has {}", why.needed, g.slug,
                         why.available);
    case reason_code::engines:
      return fmt::format("they need {} {} engines; {} has {}", why.needed,
                         engine_names[static_cast<std::size_t>(why.engine)], g.slug, why.available);
    case reason_code::bad_start:
      return "an instance is pinned at a start its profile does not allow";
    case reason_code::none:
    case reason_code::placement:
      break;
  }
  return "no arrangement of their allowed starts holds them all (instances overlap, or a pinned "
         "one blocks the others)";
}

namespace {

using plan_io::at;
using plan_io::line_at;
using plan_io::lower;
using plan_io::q;
using plan_io::shown_path;
using plan_io::stop;
using plan_io::suggest;
using plan_io::why_not;

std::string join(std::span<const std::string_view> v) {
  std::string out;
  for (std::string_view s : v) out += fmt::format("{}{}", out.empty() ? "" : ", ", s);
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Names go into messages, YAML and shell commands: no control characters.
bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7F;
  });
}

// ---------------------------------------------------------------------------
// Documents. YAML files are read by yaml-cpp, JSON files by nlohmann's SAX
// parser (ten times faster than yaml-cpp on a large state file), both into
// one small tree that keeps each value's line; the readers walk that tree.

// One value of a document.
struct tnode {
  enum class type : unsigned char { null, scalar, list, map };
  type kind = type::null;
  bool quoted = false;      // a quoted scalar: always a string
  int line = 0;             // 1-based; 0 when unknown
  std::string text;         // a scalar's text
  std::vector<tnode> kids;  // a list's items; a map's keys and values in turn

  bool is_null() const { return kind == type::null; }
  bool is_scalar() const { return kind == type::scalar; }
  bool is_list() const { return kind == type::list; }
  bool is_map() const { return kind == type::map; }
  std::size_t size() const { return kind == type::map ? kids.size() / 2 : kids.size(); }
};

// Deeper than any of the formats goes; a limit keeps a hostile file's tree
// from exhausting the stack when it is destroyed.
constexpr int max_depth = 64;

constexpr std::string_view str_tag = "tag:yaml.org,2002:str";

// The longest list a file may hold under one key of its top level (`demand`
// of a demand file, `nodes` of a fleet or state file): checked as the file is
// parsed, so that a file of 100,000 items is refused at the first item too
// many, in the time and memory of the limit, not of the file.
struct list_limit {
  std::string_view key;   // the top-level key; empty: no limit
  std::size_t most = 0;   // items
  std::string_view what;  // "demand items": "more than 10000 demand items"
};

// Builds a tree from a parser's events (yaml-cpp's, nlohmann's SAX), checking
// depth, the list limit and, for YAML aliases, a budget of values as it goes.
class tree_sink {
 public:
  tree_sink(std::string_view shown, list_limit limit) : shown_(shown), limit_(limit) {}

  tnode root;

  // A new value, in the container open now (or the root); its text is set
  // by the caller.
  tnode& add(tnode::type kind, int line) {
    tnode* n = &root;
    if (!open_.empty()) {
      tnode& parent = *open_.back();
      if (&parent == limited_ && parent.kids.size() == limit_.most)
        throw stop{at(shown_, line,
                      fmt::format("more than {} {}; the most a file may list is {}", limit_.most,
                                  limit_.what, limit_.most))};
      parent.kids.emplace_back();
      n = &parent.kids.back();
    }
    n->kind = kind;
    n->line = line;
    return *n;
  }
  // A new list or mapping, open until close().
  tnode& open(tnode::type kind, int line) {
    if (open_.size() >= static_cast<std::size_t>(max_depth))
      throw stop{at(shown_, line, fmt::format("values nest more than {} levels deep", max_depth))};
    // The list limited: the value of the limit's key in the top-level mapping.
    const bool limited = kind == tnode::type::list && open_.size() == 1 && open_[0]->is_map() &&
                         open_[0]->kids.size() % 2 == 1 && !limit_.key.empty() &&
                         open_[0]->kids.back().is_scalar() &&
                         open_[0]->kids.back().text == limit_.key;
    tnode& n = add(kind, line);
    if (limited) limited_ = &n;
    open_.push_back(&n);
    return n;
  }
  // Closes the innermost list or mapping, and returns it.
  tnode& close() {
    tnode& n = *open_.back();
    open_.pop_back();
    return n;
  }

 private:
  std::string_view shown_;
  list_limit limit_;
  std::vector<tnode*> open_;  // the containers being filled, outermost first
  const tnode* limited_ = nullptr;
};

// A YAML document as a tree, from yaml-cpp's parser events: the file is never
// held as yaml-cpp's own nodes. Aliases are copied, so the copies are counted
// against a budget proportional to the file: a few aliases of aliases cannot
// make it expand without bound.
class yaml_tree final : public YAML::EventHandler {
 public:
  yaml_tree(std::string_view shown, std::size_t budget, list_limit limit)
      : shown_(shown), budget_(budget), sink_(shown, limit) {}

  tnode take() { return std::move(sink_.root); }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t anchor) override {
    keep(anchor, sink_.add(tnode::type::null, line(m)));
  }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t anchor) override {
    const auto it = anchors_.find(anchor);
    tnode& n = sink_.add(tnode::type::null, line(m));
    if (it == anchors_.end()) return;  // yaml-cpp refuses an unknown alias first
    n = copy(it->second);
  }
  void OnScalar(const YAML::Mark& m, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    tnode& n = sink_.add(tnode::type::scalar, line(m));
    n.text = value;
    n.quoted = tag == "!" || tag == str_tag;
    keep(anchor, n);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    sink_.open(tnode::type::list, line(m));
    open_anchors_.push_back(anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    sink_.open(tnode::type::map, line(m));
    open_anchors_.push_back(anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  static int line(const YAML::Mark& m) { return m.is_null() ? 0 : m.line + 1; }
  void spend() {
    if (budget_ == 0)
      throw stop{at(shown_, 0,
                    "aliases make this file name too many values; plan stops reading "
                    "it there")};
    --budget_;
  }
  // A copy of an anchored value, each of its values spent from the budget.
  tnode copy(const tnode& from) {
    spend();
    tnode t;
    t.kind = from.kind;
    t.quoted = from.quoted;
    t.line = from.line;
    t.text = from.text;
    t.kids.reserve(from.kids.size());
    for (const tnode& k : from.kids) t.kids.push_back(copy(k));
    return t;
  }
  void keep(YAML::anchor_t anchor, const tnode& n) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = copy(n);
  }
  void close() {
    const YAML::anchor_t anchor = open_anchors_.back();
    open_anchors_.pop_back();
    keep(anchor, sink_.close());
  }

  std::string_view shown_;
  std::size_t budget_;
  tree_sink sink_;
  std::map<YAML::anchor_t, tnode> anchors_;
  std::vector<YAML::anchor_t> open_anchors_;
};

// A JSON document as a tree, built from nlohmann's SAX events.
class json_tree final : public nlohmann::json_sax<nlohmann::json> {
 public:
  json_tree(std::string_view text, std::string_view shown, list_limit limit)
      : text_(text), sink_(shown, limit) {}

  std::optional<std::size_t> byte;
  std::string what;

  tnode take() { return std::move(sink_.root); }

  // False on a syntax error (`byte` and `what` say where and what); a limit
  // passed throws its stop.
  bool parse() {
    const counting_iterator first(text_.data(), &taken_),
        last(text_.data() + text_.size(), &taken_);
    try {
      nlohmann::json::sax_parse(first, last, this);
    } catch (const stop&) {
      throw;
    } catch (const std::exception& e) {
      if (what.empty()) what = e.what();
    }
    return what.empty();
  }

  bool null() override { return add(tnode::type::null, {}, false); }
  bool boolean(bool v) override { return add(tnode::type::scalar, v ? "true" : "false", false); }
  bool number_integer(number_integer_t) override { return number(); }
  bool number_unsigned(number_unsigned_t) override { return number(); }
  bool number_float(number_float_t, const string_t& s) override {
    return add(tnode::type::scalar, s, false);
  }
  bool string(string_t& s) override { return add(tnode::type::scalar, s, true); }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override {
    sink_.open(tnode::type::map, line_now());
    return true;
  }
  bool key(string_t& k) override { return add(tnode::type::scalar, k, true); }
  bool end_object() override {
    sink_.close();
    return true;
  }
  bool start_array(std::size_t) override {
    sink_.open(tnode::type::list, line_now());
    return true;
  }
  bool end_array() override {
    sink_.close();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    byte = position;
    what = e.what();
    return false;
  }

 private:
  // The line of the last character the lexer read: a token's last (or, after
  // a number, the character that ended it, still on the number's line).
  int line_now() {
    const std::size_t last = taken_ > 0 ? taken_ - 1 : 0;
    for (; counted_ < last; ++counted_)
      if (text_[counted_] == '\n') ++line_;
    return line_;
  }
  // A number as written in the text: nlohmann passes the raw text of floats
  // only, so integers are taken from the text the lexer just read.
  bool number() {
    std::size_t end = taken_, from = taken_;
    while (from > 0 &&
           std::string_view("0123456789+-.eE").find(text_[from - 1]) == std::string_view::npos)
      --from;
    end = from;
    while (from > 0 &&
           std::string_view("0123456789+-.eE").find(text_[from - 1]) != std::string_view::npos)
      --from;
    return add(tnode::type::scalar, std::string(text_.substr(from, end - from)), false);
  }
  bool add(tnode::type kind, std::string text, bool quoted) {
    tnode& n = sink_.add(kind, line_now());
    n.text = std::move(text);
    n.quoted = quoted;
    return true;
  }

  std::string_view text_;
  std::size_t taken_ = 0;  // bytes the lexer has read (counting_iterator)
  tree_sink sink_;
  std::size_t counted_ = 0;
  int line_ = 1;
};

tnode load_tree(std::string_view text, std::string_view shown, bool json, list_limit limit = {}) {
  if (json) {
    json_tree t(text, shown, limit);
    if (!t.parse())
      throw stop{at(shown, t.byte ? line_at(text, *t.byte) : 0,
                    "invalid json: " + json_error_text(t.what))};
    return t.take();
  }
  yaml_tree t(shown, 4 * text.size() + 100'000, limit);
  try {
    view_buf buf(text);
    std::istream stream(&buf);
    YAML::Parser parser(stream);
    parser.HandleNextDocument(t);  // the first document, as YAML::Load reads
  } catch (const YAML::Exception& e) {
    throw stop{
        at(shown, e.mark.is_null() ? 0 : e.mark.line + 1, "invalid yaml: " + yaml_error_text(e))};
  }
  return t.take();
}

// A value as a message names it: empty, a list, a mapping, 'text', the string "text".
std::string value_text(const tnode& n) {
  if (n.is_null()) return "empty";
  if (n.is_list()) return "a list";
  if (n.is_map()) return "a mapping";
  if (n.quoted) return fmt::format("the string \"{}\"", clip_token(n.text));
  return q(n.text);
}

// One key of a mapping and its value.
struct field {
  std::string key;
  int key_line = 0;
  const tnode* value = nullptr;
  // The value's line, or the key's where the value has none (an empty value).
  int line() const { return value->line > 0 ? value->line : key_line; }
};

const field* find(const std::vector<field>& fs, std::string_view key) {
  for (const field& f : fs)
    if (f.key == key) return &f;
  return nullptr;
}

// Reads the mappings and scalars of one file, failing with "FILE:LINE: ...".
class doc_reader {
 public:
  explicit doc_reader(std::string_view shown) : shown_(shown) {}

  [[noreturn]] void fail(int line, std::string_view message) const {
    throw stop{at(shown_, line, message)};
  }

  // The entries of mapping `map` (`what` names it in messages: "a demand
  // item"); a key not in `allowed` or given twice is an error.
  std::vector<field> fields(const tnode& map, std::span<const std::string_view> allowed,
                            std::string_view what) const {
    std::vector<field> out;
    for (std::size_t i = 0; i + 1 < map.kids.size(); i += 2) {
      const tnode& k = map.kids[i];
      if (!k.is_scalar())
        fail(k.line, fmt::format("a key of {} must be a name, not {}", what, value_text(k)));
      const std::string& key = k.text;
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        const std::vector<std::string> names(allowed.begin(), allowed.end());
        fail(k.line, fmt::format("unknown key {} in {}{}; the keys are {}", q(key), what,
                                 suggest(key, names), join(allowed)));
      }
      if (const field* first = find(out, key))
        fail(k.line, fmt::format("duplicate key {} (first at line {})", q(key), first->key_line));
      out.push_back({key, k.line, &map.kids[i + 1]});
    }
    return out;
  }

  // Checks that the document is a mapping; `expected` says what it should hold.
  void expect_mapping(const tnode& root, std::string_view kind, std::string_view expected) const {
    if (root.is_null()) fail(0, fmt::format("empty file: a {} holds {}", kind, expected));
    if (!root.is_map())
      fail(root.line, fmt::format("expected a mapping with {} at the top level, not {}", expected,
                                  value_text(root)));
  }

  // `version: 1`, the number.
  void version(const std::vector<field>& top, std::string_view kinds) const {
    const field* v = find(top, "version");
    if (v == nullptr)
      fail(1, fmt::format("missing required key 'version' ({} start with 'version: 1')", kinds));
    const tnode& n = *v->value;
    if (n.is_scalar() && !n.quoted && n.text == "1") return;
    if (n.is_scalar() && n.quoted && n.text == "1")
      fail(v->line(), "version must be the number 1, not the string \"1\"");
    fail(v->line(), fmt::format("unsupported version {}: {} are version 1", value_text(n), kinds));
  }

  // A list value; `what` describes its items ("a list of demand items").
  const tnode& list(const field& f, std::string_view what) const {
    if (!f.value->is_list())
      fail(f.line(), fmt::format("{} must be {}, not {}", q(f.key), what, value_text(*f.value)));
    return *f.value;
  }

  std::string text(const field& f, std::string_view what) const {
    const tnode& n = *f.value;
    if (n.is_null() || (n.is_scalar() && n.text.empty()))
      fail(f.line(), fmt::format("{} is empty", what));
    if (!n.is_scalar()) fail(f.line(), fmt::format("{} must be text, not {}", what, value_text(n)));
    return n.text;
  }

  long long whole(const field& f, std::string_view what, long long low, long long high) const {
    const tnode& n = *f.value;
    if (n.is_null())
      fail(f.line(),
           fmt::format("{} is empty: expected a whole number from {} to {}", what, low, high));
    if (!n.is_scalar())
      fail(f.line(), fmt::format("{} must be a whole number from {} to {}, not {}", what, low, high,
                                 value_text(n)));
    if (n.quoted)
      fail(f.line(),
           fmt::format("{} must be a number, not the string \"{}\"", what, clip_token(n.text)));
    auto v = parse_whole_number(what, n.text, low, high);
    if (!v) fail(f.line(), v.error().message);
    return *v;
  }

  bool flag(const field& f, std::string_view what) const {
    const tnode& n = *f.value;
    if (n.is_scalar() && !n.quoted) {
      const std::string& s = n.text;
      if (s == "true" || s == "True" || s == "TRUE") return true;
      if (s == "false" || s == "False" || s == "FALSE") return false;
    }
    fail(f.line(), fmt::format("{} must be true or false, not {}", what, value_text(n)));
  }

  // A name of a node or demand item: text, not too long, no control characters.
  std::string name(const field& f, std::string_view what) const {
    std::string s = text(f, what);
    if (s.size() > max_plan_name_length)
      fail(f.line(),
           fmt::format("{} {} is longer than {} characters", what, q(s), max_plan_name_length));
    if (has_control(s)) fail(f.line(), fmt::format("{} {} holds a control character", what, q(s)));
    return s;
  }

  // The value of `key` of an item that must have it.
  const field& need(const std::vector<field>& fs, std::string_view key, int line,
                    std::string_view why) const {
    const field* f = find(fs, key);
    if (f == nullptr) fail(line, fmt::format("missing required key {} {}", q(key), why));
    return *f;
  }

  std::string_view shown() const { return shown_; }

 private:
  std::string shown_;
};

// Checks that a list has at most `most` items, before they are read.
void check_size(const doc_reader& r, const field& f, std::size_t most, std::string_view what) {
  if (f.value->size() > most)
    r.fail(f.line(), fmt::format("{} lists {} {}; the most a file may list is {}", q(f.key),
                                 f.value->size(), what, most));
}

// ---------------------------------------------------------------------------
// Demand.

constexpr std::string_view demand_top_keys[] = {"version", "demand", "comment"};
constexpr std::string_view demand_item_keys[] = {"name",           "count", "profile", "memory",
                                                 "compute_slices", "sms",   "comment"};
constexpr std::string_view demand_columns[] = {"name",   "count",          "profile",
                                               "memory", "compute_slices", "sms"};

// A compute-instance profile name ("1c.3g.20gb") that some catalog model's GPU
// instance offers, as the catalog spells it; an empty error when `name` is not of
// the form Nc.GI with GI a profile some model has, else why no model offers it.
result<std::string> demand_ci_profile(std::string_view name) {
  const std::size_t dot = name.find('.');
  if (dot < 2 || dot == std::string_view::npos || (name[dot - 1] != 'c' && name[dot - 1] != 'C'))
    return error{""};
  const std::string_view gi_name = name.substr(dot + 1);
  std::vector<std::string> offered;
  bool gi_known = false;
  for (const gpu_model* g : all_models()) {
    const int p = find_profile(*g, gi_name);
    if (p < 0) continue;
    gi_known = true;
    const profile& gi = g->profiles[static_cast<std::size_t>(p)];
    if (const int c = find_ci(gi, name); c >= 0)
      return std::string(gi.ci_profiles[static_cast<std::size_t>(c)].name);
    for (const ci_profile& c : gi.ci_profiles)
      if (std::find(offered.begin(), offered.end(), c.name) == offered.end())
        offered.emplace_back(c.name);
  }
  if (!gi_known) return error{""};
  if (offered.empty())
    return error{
        fmt::format("unknown compute-instance profile {}: no source lists the CI "
                    "profiles of {} on any model",
                    q(name), gi_name)};
  return error{fmt::format("unknown compute-instance profile {}: {} offers {}", q(name), gi_name,
                           fmt::join(offered, ", "))};
}

// A profile name as a demand item gives it: a name some catalog model has,
// returned as the catalog spells it; else why not.
result<std::string> demand_profile(std::string_view text) {
  const std::string_view name = strip_profile_name(text);
  if (name.empty()) return error{"profile is empty"};
  if (std::all_of(name.begin(), name.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
    return error{
        fmt::format("profile {} is a profile ID, and IDs differ between models: name "
                    "the profile (such as 1g.10gb)",
                    q(name))};
  for (const gpu_model* g : all_models())
    if (const int p = find_profile(*g, name); p >= 0)
      return std::string(g->profiles[static_cast<std::size_t>(p)].name);
  if (const std::size_t at_sign = name.find('@'); at_sign != std::string_view::npos)
    return error{
        fmt::format("{} pins a start, which plan does not take: plan places every "
                    "instance itself; ask for {}",
                    q(name), q(name.substr(0, at_sign)))};
  if (name.find('[') != std::string_view::npos)
    return error{
        fmt::format("{} splits a GPU instance with brackets, which plan does not take: "
                    "ask for compute instances as items of their own, such as "
                    "3x1c.3g.20gb",
                    q(name))};
  if (auto ci = demand_ci_profile(name))
    return ci;
  else if (!ci.error().message.empty())
    return ci.error();
  const std::string lowered = lower(name);
  if (const std::string why = check::mig_profile_format_error(lowered); !why.empty())
    return error{fmt::format("invalid profile name {}: {}{}", q(name), why,
                             suggest(name, all_profile_names()))};
  if (const std::string note = former_name_note(name); !note.empty())
    return error{fmt::format("unknown profile {}: {}", q(name), note)};
  const std::string hint = suggest(name, all_profile_names());
  return error{fmt::format("unknown profile {}: no model has it{}", q(name),
                           hint.empty() ? "; 'migplan profiles' lists them" : hint)};
}

// What one demand item says, before the checks across its fields.
struct demand_parts {
  std::optional<std::string> name, profile, memory;
  std::optional<long long> count, slices, sms;
  int line = 0;
};

// The item `parts` describe, or why it is not one.
result<demand_item> make_demand(const demand_parts& parts) {
  demand_item d;
  if (!parts.count) return error{"the item has no count"};
  if (parts.profile && parts.memory)
    return error{"the item gives both a profile and a memory need; give one"};
  if (!parts.profile && !parts.memory)
    return error{"the item needs a profile (such as 1g.10gb) or a memory need (such as 30GiB)"};
  d.count = *parts.count;
  if (parts.profile) {
    if (parts.slices || parts.sms)
      return error{fmt::format("{} is only for items sized by memory: a profile fixes its own",
                               parts.slices ? "compute_slices" : "sms")};
    auto p = demand_profile(*parts.profile);
    if (!p) return p.error();
    d.profile = *p;
    d.name = parts.name ? *parts.name : d.profile;
  } else {
    auto mib = parse_size_mib(trim(*parts.memory));
    if (!mib) return error{"memory: " + mib.error().message};
    d.memory_mib = *mib;
    if (parts.slices) d.compute_slices = static_cast<int>(*parts.slices);
    if (parts.sms) d.sms = static_cast<int>(*parts.sms);
    d.name = parts.name ? *parts.name : "mem=" + std::string(trim(*parts.memory));
  }
  return d;
}

// Adds an item, refusing a name given before.
void add_demand(std::vector<demand_item>& out, std::map<std::string, int>& lines, demand_item d,
                int line, std::string_view shown) {
  auto [it, fresh] = lines.try_emplace(d.name, line);
  if (!fresh)
    throw stop{at(shown, line,
                  fmt::format("demand item {} is given twice (first at line {}); add up the "
                              "counts or give each a distinct name",
                              q(d.name), it->second))};
  d.where = fmt::format("{}:{}", shown, line);
  out.push_back(std::move(d));
}

std::vector<demand_item> demand_from_yaml(std::string_view text, std::string_view shown,
                                          bool json) {
  doc_reader r(shown);
  const tnode root = load_tree(text, shown, json, {"demand", max_demand_items, "demand items"});
  r.expect_mapping(root, "demand file", "'version: 1' and 'demand'");
  const auto top = r.fields(root, demand_top_keys, "the top level");
  r.version(top, "demand files");
  const field& list_field = r.need(
      top, "demand", 1, "(a list of items, each with a count and a profile or a memory need)");
  const tnode& items = r.list(list_field, "a list of demand items");
  if (items.size() == 0) r.fail(list_field.line(), "'demand' is empty: list at least one item");
  std::vector<demand_item> out;
  std::map<std::string, int> lines;
  for (const tnode& item : items.kids) {
    const int line = item.line > 0 ? item.line : list_field.line();
    if (!item.is_map())
      r.fail(line, fmt::format("each demand item must be a mapping with a count and a profile "
                               "or a memory need, not {}",
                               value_text(item)));
    const auto fs = r.fields(item, demand_item_keys, "a demand item");
    demand_parts parts;
    parts.line = line;
    if (const field* f = find(fs, "name")) parts.name = r.name(*f, "name");
    if (const field* f = find(fs, "count")) parts.count = r.whole(*f, "count", 1, max_demand_count);
    if (const field* f = find(fs, "profile")) {
      parts.profile = r.text(*f, "profile");
      if (auto p = demand_profile(*parts.profile); !p) r.fail(f->line(), p.error().message);
    }
    if (const field* f = find(fs, "memory")) {
      parts.memory = r.text(*f, "memory");
      if (auto m = parse_size_mib(trim(*parts.memory)); !m)
        r.fail(f->line(), "memory: " + m.error().message);
    }
    if (const field* f = find(fs, "compute_slices"))
      parts.slices = r.whole(*f, "compute_slices", 1, max_demand_slices);
    if (const field* f = find(fs, "sms")) parts.sms = r.whole(*f, "sms", 1, max_demand_sms);
    auto d = make_demand(parts);
    if (!d) r.fail(line, d.error().message);
    add_demand(out, lines, std::move(*d), line, shown);
  }
  return out;
}

// One CSV line's fields: separated by commas, each trimmed of spaces; a field
// in double quotes may hold commas, and "" for a quote.
result<std::vector<std::string>> csv_fields(std::string_view line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::string value;
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (true) {
        if (i >= line.size()) return error{"a quoted field has no closing quote"};
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            value += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        value += line[i++];
      }
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i < line.size() && line[i] != ',')
        return error{"text after a quoted field; put the whole field in quotes"};
    } else {
      const std::size_t comma = line.find(',', i);
      value =
          std::string(trim(line.substr(i, comma == std::string_view::npos ? comma : comma - i)));
      i = comma == std::string_view::npos ? line.size() : comma;
    }
    out.push_back(std::move(value));
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return out;
}

std::vector<demand_item> demand_from_csv(std::string_view text, std::string_view shown) {
  doc_reader r(shown);
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<std::string> header;
  int header_line = 0;
  std::vector<demand_item> out;
  std::map<std::string, int> lines;
  const std::vector<std::string> column_names(std::begin(demand_columns), std::end(demand_columns));
  int line_no = 0;
  for (std::size_t from = 0; from <= text.size();) {
    const std::size_t nl = text.find('\n', from);
    const std::string_view raw =
        text.substr(from, nl == std::string_view::npos ? std::string_view::npos : nl - from);
    from = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    auto cells = csv_fields(line);
    if (!cells) r.fail(line_no, cells.error().message);
    if (header.empty()) {
      header_line = line_no;
      for (const std::string& c : *cells) {
        const std::string name = lower(c);
        if (std::find(column_names.begin(), column_names.end(), name) == column_names.end())
          r.fail(line_no, fmt::format("unknown column {} in the header{}; the columns are {}", q(c),
                                      suggest(c, column_names), join(demand_columns)));
        if (std::find(header.begin(), header.end(), name) != header.end())
          r.fail(line_no, fmt::format("column {} is named twice in the header", q(name)));
        header.push_back(name);
      }
      const auto has = [&](std::string_view c) {
        return std::find(header.begin(), header.end(), c) != header.end();
      };
      if (!has("count") || has("profile") == has("memory"))
        r.fail(line_no,
               "the header must name the columns name, count and profile (or memory), such as "
               "'name,count,profile'");
      if ((has("compute_slices") || has("sms")) && !has("memory"))
        r.fail(line_no, "compute_slices and sms columns are only for items sized by memory");
      continue;
    }
    if (cells->size() != header.size())
      r.fail(line_no, fmt::format("{} field{} where the header (line {}) names {}", cells->size(),
                                  cells->size() == 1 ? "" : "s", header_line, header.size()));
    if (out.size() == max_demand_items)
      r.fail(line_no, fmt::format("more than {} demand items; the most a file may list is {}",
                                  max_demand_items, max_demand_items));
    demand_parts parts;
    parts.line = line_no;
    for (std::size_t c = 0; c < header.size(); ++c) {
      const std::string& col = header[c];
      const std::string& v = (*cells)[c];
      if (col == "name") {
        if (v.empty()) continue;
        if (v.size() > max_plan_name_length || has_control(v))
          r.fail(line_no, fmt::format("name {} is longer than {} characters or holds a control "
                                      "character",
                                      q(v), max_plan_name_length));
        parts.name = v;
        continue;
      }
      const auto number = [&](std::string_view what, long long high) {
        auto n = parse_whole_number(what, v, 1, high);
        if (!n) r.fail(line_no, n.error().message);
        return *n;
      };
      if (col == "count")
        parts.count = number("count", max_demand_count);
      else if (col == "compute_slices" && !v.empty())
        parts.slices = number("compute_slices", max_demand_slices);
      else if (col == "sms" && !v.empty())
        parts.sms = number("sms", max_demand_sms);
      else if (col == "profile")
        parts.profile = v;
      else if (col == "memory")
        parts.memory = v;
    }
    auto d = make_demand(parts);
    if (!d) r.fail(line_no, d.error().message);
    add_demand(out, lines, std::move(*d), line_no, shown);
  }
  if (header.empty())
    r.fail(0, "no header: a demand csv starts with a header such as 'name,count,profile'");
  if (out.empty()) r.fail(header_line, "no demand items after the header");
  return out;
}

// ---------------------------------------------------------------------------
// Fleet files.

constexpr std::string_view fleet_top_keys[] = {"version", "models", "nodes", "comment"};
constexpr std::string_view fleet_model_keys[] = {"gpu", "available", "cost", "comment"};
constexpr std::string_view fleet_node_keys[] = {"name", "gpu", "gpus", "comment"};

const gpu_model* model_of(const doc_reader& r, const field& f) {
  auto g = resolve_gpu(r.text(f, "gpu"));
  if (!g) r.fail(f.line(), g.error().message);
  return *g;
}

double cost_of(const doc_reader& r, const field& f) {
  const tnode& n = *f.value;
  double v = 0;
  bool ok = n.is_scalar() && !n.quoted && !n.text.empty();
  if (ok) {
    const std::string& s = n.text;
    const char* b = s.data() + (s[0] == '+' ? 1 : 0);
    const auto [p, ec] = std::from_chars(b, s.data() + s.size(), v);
    ok = ec == std::errc() && p == s.data() + s.size() && std::isfinite(v);
  }
  if (!ok) r.fail(f.line(), fmt::format("cost must be a number, not {}", value_text(n)));
  if (!(v > 0) || v > max_model_cost)
    r.fail(f.line(),
           fmt::format("cost {} must be more than 0 and at most {}", n.text, max_model_cost));
  return v;
}

plan_fleet fleet_from_yaml(std::string_view text, std::string_view shown, bool json) {
  doc_reader r(shown);
  const tnode root = load_tree(text, shown, json, {"nodes", max_plan_nodes, "nodes"});
  r.expect_mapping(root, "fleet file", "'version: 1' and 'nodes' or 'models'");
  const auto top = r.fields(root, fleet_top_keys, "the top level");
  r.version(top, "fleet files");
  const field* models = find(top, "models");
  const field* nodes = find(top, "nodes");
  if (models == nullptr && nodes == nullptr)
    r.fail(1, "a fleet file needs 'nodes' (name, gpu, gpus) or 'models' (gpu, available, cost)");
  plan_fleet out;
  struct model_line {
    int line;
    bool has_nodes;
  };
  std::map<const gpu_model*, model_line> model_at;
  if (models != nullptr) {
    const tnode& list = r.list(*models, "a list of models (gpu, available, cost)");
    if (list.size() == 0) r.fail(models->line(), "'models' is empty: list at least one model");
    check_size(r, *models, all_models().size(), "models");
    for (const tnode& m : list.kids) {
      const int line = m.line > 0 ? m.line : models->line();
      if (!m.is_map())
        r.fail(line, fmt::format("each model must be a mapping with 'gpu' (and 'available', "
                                 "'cost'), not {}",
                                 value_text(m)));
      const auto fs = r.fields(m, fleet_model_keys, "a model");
      fleet_model fm;
      fm.gpu = model_of(r, r.need(fs, "gpu", line, "(a slug, nvidia-smi name or PCI device ID)"));
      if (const field* f = find(fs, "available"))
        fm.available = r.whole(*f, "available", 0, max_model_available);
      if (const field* f = find(fs, "cost")) fm.cost = cost_of(r, *f);
      auto [it, fresh] = model_at.try_emplace(fm.gpu, model_line{line, false});
      if (!fresh)
        r.fail(line, fmt::format("model {} is listed twice (first at line {})", fm.gpu->slug,
                                 it->second.line));
      out.models.push_back(fm);
    }
  }
  if (nodes != nullptr) {
    const tnode& list = r.list(*nodes, "a list of nodes (name, gpu, gpus)");
    if (list.size() == 0) r.fail(nodes->line(), "'nodes' is empty: list at least one node");
    std::unordered_map<std::string, int> names;
    std::vector<fleet_model> from_nodes;
    for (const tnode& n : list.kids) {
      const int line = n.line > 0 ? n.line : nodes->line();
      if (!n.is_map())
        r.fail(line,
               fmt::format("each node must be a mapping with 'name', 'gpu' and 'gpus', not {}",
                           value_text(n)));
      const auto fs = r.fields(n, fleet_node_keys, "a node");
      fleet_node fn;
      fn.name = r.name(r.need(fs, "name", line, "(the node's name)"), "node name");
      fn.gpu = model_of(r, r.need(fs, "gpu", line, "(a slug, nvidia-smi name or PCI device ID)"));
      fn.gpu_count = static_cast<int>(
          r.whole(r.need(fs, "gpus", line, "(how many GPUs it has)"), "gpus", 1, max_node_gpus));
      fn.where = fmt::format("{}:{}", shown, line);
      auto [it, fresh] = names.try_emplace(fn.name, line);
      if (!fresh)
        r.fail(line,
               fmt::format("node {} is listed twice (first at line {})", q(fn.name), it->second));
      auto m = model_at.find(fn.gpu);
      if (m == model_at.end()) {
        model_at.emplace(fn.gpu, model_line{line, true});
        from_nodes.push_back({fn.gpu, std::nullopt, 1.0});
      } else if (!m->second.has_nodes) {
        m->second.has_nodes = true;
        from_nodes.push_back(*std::find_if(out.models.begin(), out.models.end(),
                                           [&](const fleet_model& x) { return x.gpu == fn.gpu; }));
      }
      out.nodes.push_back(std::move(fn));
    }
    // With nodes the fleet is theirs: a model no node has cannot be used.
    for (const fleet_model& fm : out.models)
      if (!model_at[fm.gpu].has_nodes)
        r.fail(model_at[fm.gpu].line,
               fmt::format("model {} is listed under 'models' but no node has it", fm.gpu->slug));
    out.models = std::move(from_nodes);
  }
  return out;
}

std::string starts_text(const profile& p, int units) {
  std::string out;
  for (int s = 0; s < units; ++s)
    if (p.allows_start(s)) out += fmt::format("{}{}", out.empty() ? "" : ", ", s);
  return out;
}

// ---------------------------------------------------------------------------
// migplan's state file.

constexpr std::string_view state_top_keys[] = {"version", "nodes", "comment"};
constexpr std::string_view state_node_keys[] = {"name", "gpu", "label", "gpus", "comment"};
constexpr std::string_view state_gpu_keys[] = {"index", "label", "instances", "comment"};
constexpr std::string_view state_instance_keys[] = {"profile", "start", "in_use", "comment"};

current_gpu state_gpu(const doc_reader& r, const tnode& node, int fallback,
                      const current_node& owner) {
  const gpu_model& g = *owner.gpu;
  const int line = node.line > 0 ? node.line : fallback;
  if (!node.is_map())
    r.fail(line, fmt::format("each gpu must be a mapping with 'index' and 'instances', not {}",
                             value_text(node)));
  const auto fs = r.fields(node, state_gpu_keys, "a gpu");
  current_gpu out;
  out.index = static_cast<int>(r.whole(r.need(fs, "index", line, "(the GPU's index on its node)"),
                                       "index", 0, max_node_gpus - 1));
  if (const field* f = find(fs, "label")) out.label = r.name(*f, "label");
  const field& inst = r.need(fs, "instances", line, "(a list, empty for none)");
  const tnode& list = r.list(inst, "a list of instances (profile, start, in_use)");
  if (list.size() > static_cast<std::size_t>(max_units))
    r.fail(inst.line(),
           fmt::format("gpu {} of node {} lists {} instances; no GPU holds more than {}", out.index,
                       q(owner.name), list.size(), max_units));
  std::vector<item> items;
  for (const tnode& i : list.kids) {
    const int iline = i.line > 0 ? i.line : inst.line();
    if (!i.is_map())
      r.fail(iline, fmt::format("each instance must be a mapping with 'profile' (and 'start', "
                                "'in_use'), not {}",
                                value_text(i)));
    const auto ifs = r.fields(i, state_instance_keys, "an instance");
    current_gi gi;
    const field& pf = r.need(ifs, "profile", iline, "(a profile name such as 1g.10gb)");
    auto p = resolve_profile(g, r.text(pf, "profile"));
    if (!p) r.fail(pf.line(), p.error().message);
    gi.profile = *p;
    const profile& pr = g.profiles[static_cast<std::size_t>(gi.profile)];
    if (const field* f = find(ifs, "start")) {
      gi.start = static_cast<int>(r.whole(*f, "start", 0, g.units - 1));
      if (!pr.allows_start(gi.start))
        r.fail(f->line(), fmt::format("{} cannot start at {} on {} (its starts are {})", pr.name,
                                      gi.start, g.slug, starts_text(pr, g.units)));
    }
    if (const field* f = find(ifs, "in_use")) gi.in_use = r.flag(*f, "in_use");
    items.push_back({gi.profile, gi.start});
    out.instances.push_back(gi);
  }
  if (!items.empty() && !fits(rules(g), items))
    r.fail(inst.line(), fmt::format("the instances of gpu {} of node {} do not fit on {}: {}",
                                    out.index, q(owner.name), g.slug, why_not(g, items)));
  return out;
}

std::vector<current_node> state_from_yaml(std::string_view text, std::string_view shown,
                                          bool json) {
  doc_reader r(shown);
  const tnode root = load_tree(text, shown, json, {"nodes", max_plan_nodes, "nodes"});
  r.expect_mapping(root, "state file", "'version: 1' and 'nodes'");
  const auto top = r.fields(root, state_top_keys, "the top level");
  r.version(top, "state files");
  const field& nodes = r.need(top, "nodes", 1, "(a list of nodes with name, gpu and gpus)");
  const tnode& list = r.list(nodes, "a list of nodes (name, gpu, gpus)");
  if (list.size() == 0) r.fail(nodes.line(), "'nodes' is empty: list at least one node");
  std::vector<current_node> out;
  std::unordered_map<std::string, int> names;
  for (const tnode& n : list.kids) {
    const int line = n.line > 0 ? n.line : nodes.line();
    if (!n.is_map())
      r.fail(line, fmt::format("each node must be a mapping with 'name', 'gpu' and 'gpus', not {}",
                               value_text(n)));
    const auto fs = r.fields(n, state_node_keys, "a node");
    current_node cn;
    cn.name = r.name(r.need(fs, "name", line, "(the node's name)"), "node name");
    cn.gpu = model_of(r, r.need(fs, "gpu", line, "(a slug, nvidia-smi name or PCI device ID)"));
    if (const field* f = find(fs, "label")) cn.label = r.name(*f, "label");
    cn.where = fmt::format("{}:{}", shown, line);
    auto [it, fresh] = names.try_emplace(cn.name, line);
    if (!fresh)
      r.fail(line,
             fmt::format("node {} is listed twice (first at line {})", q(cn.name), it->second));
    const field& gf = r.need(fs, "gpus", line, "(a list of its GPUs with index and instances)");
    const tnode& gpus = r.list(gf, "a list of GPUs (index, instances)");
    if (gpus.size() == 0) r.fail(gf.line(), fmt::format("node {} lists no gpus", q(cn.name)));
    if (gpus.size() > static_cast<std::size_t>(max_node_gpus))
      r.fail(gf.line(), fmt::format("node {} lists {} gpus; the most a node may have is {}",
                                    q(cn.name), gpus.size(), max_node_gpus));
    std::map<int, int> index_line;
    for (const tnode& gn : gpus.kids) {
      current_gpu g = state_gpu(r, gn, gf.line(), cn);
      const int gline = gn.line > 0 ? gn.line : gf.line();
      auto [at_index, new_index] = index_line.try_emplace(g.index, gline);
      if (!new_index)
        r.fail(gline, fmt::format("gpu {} of node {} is listed twice (first at line {})", g.index,
                                  q(cn.name), at_index->second));
      if (g.label.empty()) g.label = cn.label;
      cn.gpus.push_back(std::move(g));
    }
    out.push_back(std::move(cn));
  }
  return out;
}

}  // namespace

plan_file_format plan_format_of(const std::string& path, std::string_view text) {
  if (path != "-") {
    const std::string ext = lower(std::filesystem::path(path).extension().string());
    if (ext == ".json") return plan_file_format::json;
    if (ext == ".csv") return plan_file_format::csv;
    if (ext == ".yaml" || ext == ".yml") return plan_file_format::yaml;
  }
  const std::string_view t = skip_bom(text);
  const std::size_t first = t.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (t[first] == '{' || t[first] == '['))
    return plan_file_format::json;
  // The first line that is not blank or a comment: a CSV header has commas
  // and no ':' (a YAML mapping line has a ':').
  for (std::size_t from = 0; from < t.size();) {
    const std::size_t nl = t.find('\n', from);
    const std::string_view line =
        trim(t.substr(from, nl == std::string_view::npos ? nl : nl - from));
    from = nl == std::string_view::npos ? t.size() : nl + 1;
    if (line.empty() || line.front() == '#') continue;
    if (line.find(',') != std::string_view::npos && line.find(':') == std::string_view::npos)
      return plan_file_format::csv;
    break;
  }
  return plan_file_format::yaml;
}

result<std::string> read_plan_file(const std::string& path, std::istream& in, std::size_t limit) {
  const std::string shown = shown_path(path);
  bool too_large = false;
  auto text = read_source_bounded(path, in, limit, too_large);
  if (text) return text;
  if (too_large)
    return error{
        fmt::format("{} is {}, the most plan reads of one file", q(shown), text.error().message)};
  return error{fmt::format("cannot read {}: {}", q(shown), text.error().message)};
}

result<std::vector<demand_item>> parse_demand(std::string_view text, std::string_view shown,
                                              plan_file_format format) {
  try {
    if (format == plan_file_format::csv) return demand_from_csv(text, shown);
    return demand_from_yaml(text, shown, format == plan_file_format::json);
  } catch (const stop& s) {
    return error{s.message};
  } catch (const std::exception& e) {
    return error{at(shown, 0, std::string("cannot read the file: ") + e.what())};
  }
}

result<std::vector<demand_item>> read_demand(const std::string& path, std::istream& in) {
  auto text = read_plan_file(path, in);
  if (!text) return text.error();
  return parse_demand(*text, shown_path(path), plan_format_of(path, *text));
}

result<demand_item> parse_demand_word(std::string_view word) {
  std::string_view rest = word;
  long long count = 1;
  // A count is digits before the 'x', a sign allowed so that "-3x1g.10gb"
  // is told its count is out of range, not that it is no profile name.
  const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  if (const std::size_t x = rest.find_first_of("xX");
      x != std::string_view::npos && x + 1 < rest.size() &&
      x > (rest[0] == '-' || rest[0] == '+' ? 1u : 0u) &&
      std::all_of(rest.begin() + (rest[0] == '-' || rest[0] == '+' ? 1 : 0),
                  rest.begin() + static_cast<std::ptrdiff_t>(x), is_digit)) {
    auto n = parse_whole_number("count", rest.substr(0, x), 1, max_demand_count);
    if (!n) return n.error();
    count = *n;
    rest.remove_prefix(x + 1);
  }
  demand_parts parts;
  parts.count = count;
  const std::string low = lower(rest);
  if (low.starts_with("mem=")) {
    std::string_view spec = rest.substr(4);
    const std::size_t colon = spec.find(':');
    parts.memory = std::string(spec.substr(0, colon));
    std::string_view opts = colon == std::string_view::npos ? "" : spec.substr(colon + 1);
    while (!opts.empty()) {
      const std::size_t next = opts.find(':');
      const std::string_view opt = opts.substr(0, next);
      opts = next == std::string_view::npos ? "" : opts.substr(next + 1);
      const std::size_t eq = opt.find('=');
      const std::string key = lower(opt.substr(0, eq));
      const std::string_view value = eq == std::string_view::npos ? "" : opt.substr(eq + 1);
      if (key == "sms") {
        auto v = parse_whole_number("sms", value, 1, max_demand_sms);
        if (!v) return v.error();
        parts.sms = *v;
      } else if (key == "slices") {
        auto v = parse_whole_number("slices", value, 1, max_demand_slices);
        if (!v) return v.error();
        parts.slices = *v;
      } else {
        return error{
            fmt::format("unknown option {} in {}: a memory item is "
                        "[Nx]mem=SIZE[:sms=N][:slices=N]",
                        q(opt), q(word))};
      }
    }
    parts.name = "mem=" + std::string(spec);
  } else {
    parts.profile = std::string(rest);
  }
  auto d = make_demand(parts);
  if (!d) return d.error();
  return d;
}

result<plan_fleet> parse_fleet(std::string_view text, std::string_view shown, bool json) {
  try {
    return fleet_from_yaml(text, shown, json);
  } catch (const stop& s) {
    return error{s.message};
  } catch (const std::exception& e) {
    return error{at(shown, 0, std::string("cannot read the file: ") + e.what())};
  }
}

result<plan_fleet> read_fleet(const std::string& path, std::istream& in) {
  auto text = read_plan_file(path, in);
  if (!text) return text.error();
  return parse_fleet(*text, shown_path(path),
                     plan_format_of(path, *text) == plan_file_format::json);
}

result<std::vector<current_node>> parse_state(std::string_view text, std::string_view shown,
                                              bool json) {
  try {
    return state_from_yaml(text, shown, json);
  } catch (const stop& s) {
    return error{s.message};
  } catch (const std::exception& e) {
    return error{at(shown, 0, std::string("cannot read the file: ") + e.what())};
  }
}

}  // namespace migplan::cli

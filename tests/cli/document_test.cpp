// SPDX-License-Identifier: Apache-2.0
// The document layer (io/document.hpp) and the schema walker (io/schema.hpp)
// under every reader of YAML and JSON: positions, budgets, YAML 1.1 scalars,
// and the walker's keys, types, ranges and lists.

#include "io/document.hpp"

#include <catch2/catch.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/schema.hpp"

using namespace migplan::cli;
using doc::node;

namespace {

node read(std::string_view text, bool json, const doc::budget& limits = {}) {
  auto d = doc::read_document(text, "f", json, limits);
  REQUIRE(d);
  return std::move(d).value();
}

diagnostic refused(std::string_view text, bool json, const doc::budget& limits = {}) {
  auto d = doc::read_document(text, "f", json, limits);
  REQUIRE_FALSE(d);
  return d.error();
}

// The value of `key` in mapping `map`.
const node& at_key(const node& map, std::string_view key) {
  for (std::size_t i = 0; i + 1 < map.kids.size(); i += 2)
    if (map.kids[i].text == key) return map.kids[i + 1];
  FAIL("no key " << key);
  return map;
}

constexpr std::string_view item_keys[] = {"name", "count", "profile", "comment"};

}  // namespace

TEST_CASE("yaml values keep their line, column and byte offset", "[doc]") {
  const node root = read("a: 1\nlist:\n  - x\n  - 'y'\n", false);
  REQUIRE(root.is_map());
  CHECK(root.at.line == 1);
  const node& a = at_key(root, "a");
  CHECK(a.at.line == 1);
  CHECK(a.at.column == 4);
  CHECK(a.at.offset == 3);
  const node& list = at_key(root, "list");
  REQUIRE(list.is_list());
  REQUIRE(list.size() == 2);
  CHECK(list.kids[1].at.line == 4);
  CHECK(list.kids[1].at.column == 5);
  CHECK(list.kids[1].at.offset == 21);
  CHECK(list.kids[1].quoted);
  CHECK_FALSE(list.kids[0].quoted);
}

TEST_CASE("json values keep the position where they start", "[doc]") {
  const std::string_view text = "{\"a\": 12,\n \"b\": [true, \"x\\\"y\", null],\n \"c\": {}}";
  const node root = read(text, true);
  REQUIRE(root.is_map());
  CHECK(root.at.line == 1);
  CHECK(root.at.column == 1);
  const node& a = at_key(root, "a");
  CHECK(a.text == "12");
  CHECK_FALSE(a.quoted);
  CHECK(a.at.column == 7);
  CHECK(a.at.offset == 6);
  const node& b = at_key(root, "b");
  REQUIRE(b.size() == 3);
  CHECK(b.at.line == 2);
  CHECK(b.at.column == 7);
  CHECK(b.kids[0].text == "true");
  CHECK(b.kids[0].at.column == 8);
  CHECK(b.kids[1].text == "x\"y");
  CHECK(b.kids[1].quoted);
  CHECK(b.kids[1].at.column == 14);
  CHECK(b.kids[2].is_null());
  CHECK(b.kids[2].at.column == 22);
  CHECK(at_key(root, "c").at.line == 3);
  CHECK(text[at_key(root, "c").at.offset] == '{');
}

TEST_CASE("syntax errors are one diagnostic with the parser's line", "[doc]") {
  const diagnostic y = refused("a: [1, 2\nb: 3\n", false);
  CHECK(y.code == "syntax");
  CHECK(y.message.starts_with("invalid yaml: "));
  CHECK(y.line > 0);
  const diagnostic j = refused("{\n\"a\": 1,\n}", true);
  CHECK(j.code == "syntax");
  CHECK(j.line == 3);
  CHECK(j.column == 1);
  CHECK(to_text(j).starts_with("f:3: invalid json: syntax error while parsing object key"));
  // The column too: a JSON document may be written on one line.
  const diagnostic one = refused(R"({"a": 1,, "b": 2})", true);
  CHECK(one.line == 1);
  CHECK(one.column == 9);
}

TEST_CASE("nesting past the depth budget is refused where it passes the budget", "[doc]") {
  doc::budget limits;
  limits.depth = 3;
  CHECK(to_text(refused("a:\n  b:\n    c:\n      d: 1\n", false, limits)) ==
        "f:4: values nest more than 3 levels deep");
  limits.depth_note = " (this format nests 2)";
  const diagnostic j = refused("[[[[1]]]]", true, limits);
  CHECK(j.code == "depth");
  CHECK(j.message == "values nest more than 3 levels deep (this format nests 2)");
  CHECK(j.column == 4);
  CHECK(read("[[[1]]]", true, limits).is_list());
}

TEST_CASE("aliases of aliases are refused once their copies pass the alias budget", "[doc]") {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'j'; ++c, ++prev)
    bomb += fmt::format("{}: &{} [*{}, *{}, *{}, *{}, *{}, *{}, *{}, *{}, *{}, *{}]\n", c, c, prev,
                        prev, prev, prev, prev, prev, prev, prev, prev, prev);
  doc::budget limits;
  limits.reader = "plan";
  const diagnostic d = refused(bomb, false, limits);
  CHECK(d.code == "aliases");
  CHECK(to_text(d) ==
        "f: aliases make this file name too many values; plan stops reading it there");
  // A few aliases within the budget are copied, positions and all.
  const node ok = read("a: &x {k: v}\nb: *x\n", false);
  CHECK(at_key(at_key(ok, "b"), "k").text == "v");
  CHECK(at_key(ok, "b").at.line == 1);
}

TEST_CASE("the value and byte budgets refuse a document that passes them", "[doc]") {
  doc::budget limits;
  limits.values = 4;
  CHECK(refused("[1, 2, 3, 4]", true, limits).message ==
        "the file holds more than 4 values; migplan stops reading it there");
  CHECK(read("[1, 2, 3]", true, limits).size() == 3);
  limits = {};
  limits.bytes = 4;
  CHECK(refused("[1, 2]", true, limits).code == "too-large");
}

TEST_CASE("a limited top-level list is refused at its first item too many", "[doc]") {
  doc::budget limits;
  limits.limited_key = "demand";
  limits.limited_most = 2;
  limits.limited_what = "demand items";
  CHECK(to_text(refused("demand:\n  - a\n  - b\n  - c\n  - d\n", false, limits)) ==
        "f:4: more than 2 demand items; the most a file may list is 2");
  CHECK(refused(R"({"demand": [1, 2, 3]})", true, limits).code == "list-limit");
  // Only that key's list, at the top level.
  CHECK(read("other: [1, 2, 3]\n", false, limits).is_map());
}

TEST_CASE("a yaml stream hands over each document with where it starts", "[doc]") {
  std::vector<std::string> kinds;
  std::vector<int> lines;
  const auto each = [&](node& root, doc::position start) {
    kinds.push_back(root.is_null() ? "" : doc::member(root, "kind")->text);
    lines.push_back(start.line);
    return kinds.size() < 3;
  };
  CHECK_FALSE(doc::read_yaml_stream("kind: a\n---\n---\nkind: c\n---\nkind: d\n", "f", {}, each));
  CHECK(kinds == std::vector<std::string>{"a", "", "c"});  // stopped after the third
  CHECK(lines == std::vector<int>{1, 2, 3});               // a document starts at its "---"
  // Anchors are the document's own; a syntax error ends the stream.
  kinds.clear();
  const auto failed = doc::read_yaml_stream("kind: &k a\n---\nkind: *k\n", "f", {}, each);
  REQUIRE(failed);
  CHECK(failed->code == "syntax");
  CHECK(kinds == std::vector<std::string>{"a"});
}

TEST_CASE("member takes a key's last value and repeated_key finds the first repeat", "[doc]") {
  const node root = read(R"({"a": 1, "b": {"x": 1, "y": 2, "x": 3}, "a": 2})", true);
  CHECK(doc::member(root, "a")->text == "2");
  CHECK(doc::member(root, "c") == nullptr);
  CHECK(doc::member(*doc::member(root, "a"), "a") == nullptr);  // not a mapping
  const node* twice = doc::repeated_key(root);
  REQUIRE(twice != nullptr);
  CHECK(twice->text == "x");
  CHECK(twice->at.column == 32);
  CHECK(doc::repeated_key(read(R"([{"a": 1}, {"a": 2}])", true)) == nullptr);
}

TEST_CASE("plain scalars read as mig-parted's YAML 1.1 library reads them", "[doc]") {
  const node root = read(
      "a: yes\nb: 'yes'\nc: 0x20B010DE\nd: 1_000\ne: 1.5e+3\nf: ~\ng: Off\nh: 1g.10gb\n"
      "i: .inf\nj:\n",
      false);
  CHECK(doc::type_of(at_key(root, "a")) == doc::scalar_type::boolean);
  CHECK(doc::type_of(at_key(root, "b")) == doc::scalar_type::string);
  CHECK(doc::type_of(at_key(root, "c")) == doc::scalar_type::integer);
  CHECK(doc::type_of(at_key(root, "d")) == doc::scalar_type::integer);
  CHECK(doc::type_of(at_key(root, "e")) == doc::scalar_type::number);
  CHECK(doc::type_of(at_key(root, "f")) == doc::scalar_type::null);
  CHECK(doc::type_of(at_key(root, "g")) == doc::scalar_type::boolean);
  CHECK(doc::type_of(at_key(root, "h")) == doc::scalar_type::string);
  CHECK(doc::type_of(at_key(root, "i")) == doc::scalar_type::number);
  CHECK(doc::type_of(at_key(root, "j")) == doc::scalar_type::null);
  bool v = true;
  CHECK(doc::yaml11_bool("off", v));
  CHECK_FALSE(v);
  CHECK_FALSE(doc::core_bool("yes", v));
  CHECK(doc::core_bool("TRUE", v));
  CHECK(v);
  // JSON strings are quoted, its literals plain.
  const node j = read(R"({"a": "true", "b": true, "c": 10})", true);
  CHECK(doc::type_of(at_key(j, "a")) == doc::scalar_type::string);
  CHECK(doc::type_of(at_key(j, "b")) == doc::scalar_type::boolean);
  CHECK(doc::type_of(at_key(j, "c")) == doc::scalar_type::integer);
}

TEST_CASE("the walker refuses an unknown key with a did-you-mean and the known keys", "[doc]") {
  const node root = read("name: a\ncuont: 3\n", false);
  doc::walker w("f");
  const auto fs = w.fields(root, item_keys, "a demand item");
  CHECK(fs.size() == 1);
  REQUIRE_FALSE(w.ok());
  CHECK(to_text(w.first()) ==
        "f:2: unknown key 'cuont' in a demand item (did you mean count?); the keys are name, "
        "count, profile, comment");
  CHECK(w.first().code == "unknown-key");
  CHECK(w.first().column == 1);
}

TEST_CASE("the walker refuses a key given twice, naming the first", "[doc]") {
  const node root = read("name: a\ncount: 1\nname: b\n", false);
  doc::walker w("f");
  w.fields(root, item_keys, "a demand item");
  REQUIRE_FALSE(w.ok());
  CHECK(to_text(w.first()) == "f:3: duplicate key 'name' (first at line 1)");
  CHECK(w.first().code == "duplicate-key");
}

TEST_CASE("the walker reads required keys, whole numbers in range, names and flags", "[doc]") {
  const node root = read("name: \"a\\x01\"\ncount: 0\nprofile: [x]\ncomment: maybe\n", false);
  doc::walker w("f", doc::walker::mode::all);
  const auto fs = w.fields(root, item_keys, "a demand item");
  REQUIRE(fs.size() == 4);
  CHECK_FALSE(w.name(*doc::find(fs, "name"), "name", 10));
  CHECK_FALSE(w.whole(*doc::find(fs, "count"), "count", 1, 5));
  CHECK_FALSE(w.text(*doc::find(fs, "profile"), "profile"));
  CHECK_FALSE(w.flag(*doc::find(fs, "comment"), "comment"));
  CHECK(w.need(fs, "missing", 1, "(needed)") == nullptr);
  std::vector<std::string> got;
  for (const diagnostic& d : w.diagnostics()) got.push_back(to_text(d));
  CHECK(got == std::vector<std::string>{
                   "f:1: name 'a\\x01' holds a control character",
                   "f:2: count 0 must be at least 1",
                   "f:3: profile must be text, not a list",
                   "f:4: comment must be true or false, not 'maybe'",
                   "f:1: missing required key 'missing' (needed)",
               });
}

TEST_CASE("the walker refuses a quoted number and takes a plain one", "[doc]") {
  const node root = read(R"({"count": "3", "name": 3})", true);
  doc::walker w("f");
  const auto fs = w.fields(root, item_keys, "a demand item");
  CHECK_FALSE(w.whole(*doc::find(fs, "count"), "count", 1, 5));
  CHECK(to_text(w.first()) == "f:1: count must be a number, not the string \"3\"");
  doc::walker ok("f");
  CHECK(ok.whole(*doc::find(fs, "name"), "name", 1, 5) == 3);
  CHECK(ok.ok());
}

TEST_CASE("the walker checks a version, a top-level mapping and a list's most", "[doc]") {
  doc::walker w("f");
  CHECK_FALSE(w.top_mapping(read("", false), "demand file", "'version: 1' and 'demand'"));
  CHECK(to_text(w.first()) == "f: empty file: a demand file holds 'version: 1' and 'demand'");
  constexpr std::string_view top_keys[] = {"version", "demand"};
  const node root = read("version: '1'\ndemand: [a, b, c]\n", false);
  doc::walker v("f", doc::walker::mode::all);
  const auto fs = v.fields(root, top_keys, "the top level");
  CHECK_FALSE(v.version(fs, "demand files"));
  CHECK(v.list(*doc::find(fs, "demand"), "a list of items", 2, "demand items") == nullptr);
  REQUIRE(v.diagnostics().size() == 2);
  CHECK(to_text(v.diagnostics()[0]) == "f:1: version must be the number 1, not the string \"1\"");
  CHECK(to_text(v.diagnostics()[1]) ==
        "f:2: 'demand' lists 3 demand items; the most a file may list is 2");
  doc::walker first("f");
  first.fail(3, "one");
  first.fail(4, "two");
  CHECK(first.diagnostics().size() == 1);
}

namespace {

// What budget::keep should leave of `full`: the same tree with the entries
// `keep` refuses taken out, written here apart from the document layer.
node kept_of(const node& full, bool (*keep)(std::span<const std::string>),
             std::vector<std::string>& keys) {
  node out = full;
  out.kids.clear();
  if (full.is_map()) {
    for (std::size_t i = 0; i + 1 < full.kids.size(); i += 2) {
      keys.push_back(full.kids[i].text);
      if (keep(keys)) {
        out.kids.push_back(full.kids[i]);
        out.kids.push_back(kept_of(full.kids[i + 1], keep, keys));
      }
      keys.pop_back();
    }
  } else if (full.is_list()) {
    keys.emplace_back();
    for (const node& k : full.kids) out.kids.push_back(kept_of(k, keep, keys));
    keys.pop_back();
  }
  return out;
}

void same_tree(const node& a, const node& b) {
  REQUIRE(a.kind == b.kind);
  CHECK(a.text == b.text);
  CHECK(a.quoted == b.quoted);
  CHECK(a.at.line == b.at.line);
  CHECK(a.at.column == b.at.column);
  CHECK(a.at.offset == b.at.offset);
  REQUIRE(a.kids.size() == b.kids.size());
  for (std::size_t i = 0; i < a.kids.size(); ++i) same_tree(a.kids[i], b.kids[i]);
}

// Keeps `kind`, and under `items`' entries only `metadata.name` and
// `metadata.labels` (kubectl's nodes, as io/kube_nodes.cpp reads them).
bool names_and_labels(std::span<const std::string> k) {
  if (k.size() == 1) return k[0] == "kind" || k[0] == "items";
  if (k[0] != "items") return false;
  if (k.size() == 3) return k[2] == "metadata";
  if (k.size() == 4) return k[3] == "name" || k[3] == "labels";
  return k.size() > 4 && k[3] == "labels";
}

}  // namespace

TEST_CASE("budget::keep builds only the entries it keeps, positions and all", "[doc]") {
  const std::vector<std::string> docs = {
      R"({"kind": "List", "items": [{"metadata": {"name": "a", "labels": {"x": "1", "y": 2}},)"
      R"( "status": {"images": [{"names": ["i", "j"]}, 3, null]}}, 7, []], "extra": {"z": [1]}})",
      "{\n  \"status\": {\"a\": [[[1]]]},\n  \"items\": [\n    {\"metadata\": {\"uid\": \"u\",\n"
      "      \"name\": \"b\", \"labels\": {\"k\": {\"deep\": [true, false]}}}}\n  ],\n"
      "  \"kind\": \"NodeList\", \"kind\": \"List\"\n}",
      R"([{"items": 1}, {"kind": "x"}])",
      R"({"items": {"metadata": {"name": "not a list"}}})",
  };
  doc::budget limits;
  limits.keep = names_and_labels;
  for (const std::string& text : docs) {
    INFO(text);
    const node full = read(text, true);
    std::vector<std::string> keys;
    same_tree(read(text, true, limits), kept_of(full, names_and_labels, keys));
  }
}

TEST_CASE("budget::keep counts only kept values, and depth everywhere", "[doc]") {
  std::string big = R"({"kind": "List", "status": [)";
  for (int i = 0; i < 1000; ++i) big += (i == 0 ? "" : ", ") + std::to_string(i);
  big += "]}";
  doc::budget limits;
  limits.keep = names_and_labels;
  limits.values = 5;  // the root, "kind" and its value: 3 kept; the 1,000 numbers are left out
  CHECK(read(big, true, limits).kids.size() == 2);
  limits.keep = nullptr;
  CHECK(refused(big, true, limits).code == "values");
  // An entry left out is still read: nesting past the depth is refused in it.
  limits = {};
  limits.keep = names_and_labels;
  limits.depth = 4;
  CHECK(refused(R"({"status": [[[[[1]]]]]})", true, limits).code == "depth");
  CHECK(refused(R"({"status": [1, }})", true, limits).code == "syntax");
  // YAML keeps every entry: an anchor may name one that would be left out.
  CHECK(read("status: &s [1]\nkind: *s\n", false, limits).kids.size() == 4);
}

// A key written, then merged in by '<<' after it, then a key written twice:
// YAML keeps the written key over the merged one wherever '<<' stands;
// go-yaml v2 (mig-parted) applies the entries in order, so the merged value
// replaces the written one. Either way the last of two written keys is kept.
TEST_CASE("the walker resolves merge keys as YAML and as mig-parted", "[doc]") {
  const std::string text = "base: &b {a: 1, b: 2}\nm:\n  a: 0\n  <<: *b\n  c: 3\n  c: 4\n";
  const node root = read(text, false);
  const node& m = *doc::member(root, "m");
  const auto values = [](const std::vector<doc::field>& fs) {
    std::vector<std::string> out;
    for (const doc::field& f : fs) out.push_back(f.key + "=" + f.value->text);
    return out;
  };
  doc::walker w({}, doc::walker::mode::all);
  // Positions in the text lie 10 lines further down the file.
  w.source(text, [](location l) { return location{l.line + 10, l.col}; });
  w.reading("cfg", 2);
  SECTION("as YAML") {
    CHECK(values(w.entries(m, doc::merging::yaml, "m")) ==
          std::vector<std::string>{"a=0", "b=2", "c=4"});
    REQUIRE(w.diagnostics().size() == 1);
    const diagnostic& d = w.first();
    CHECK(d.message == "duplicate key 'c' (first at line 15)");
    CHECK(d.at() == location{6, 3});
    CHECK(d.level == severity::error);
    CHECK(d.kind == fault::malformed);
    CHECK(d.config == "cfg");
    CHECK(d.entry == 2);
    CHECK(w.malformed() == 1);
  }
  SECTION("as mig-parted") {
    CHECK(values(w.entries(m, doc::merging::mig_parted, "m")) ==
          std::vector<std::string>{"a=1", "b=2", "c=4"});
    std::vector<std::string> got;
    for (const diagnostic& d : w.diagnostics()) {
      CHECK(d.level == severity::warning);
      got.push_back(d.message);
    }
    CHECK(got == std::vector<std::string>{
                     "duplicate key 'c' (first at line 15); mig-parted keeps only the last one",
                     "'a' is replaced by the value merged in by '<<' at line 14: mig-parted "
                     "applies a merge key where it stands, so write '<<' before the keys it "
                     "must not replace",
                 });
    CHECK(w.malformed() == 0);
  }
}

TEST_CASE("read_yaml refuses a second document instead of dropping it", "[doc]") {
  // Empty documents around the one document are let be.
  for (const std::string_view text : {"a: 1\n", "---\na: 1\n", "a: 1\n---\n", "a: 1\n...\n"}) {
    INFO(text);
    const auto one = doc::read_yaml(text, "f");
    REQUIRE(one);
    CHECK(doc::member(*one, "a")->text == "1");
  }
  // A second document that is not empty: refused at its first value.
  const std::pair<std::string_view, int> twos[] = {
      {"a: 1\n---\nb: 2\n", 3}, {"{a: 1}\n{b: 2}\n", 2}, {"a: 1\n---\n---\nb: 2\n", 4}};
  for (const auto& [text, line] : twos) {
    INFO(text);
    const auto two = doc::read_yaml(text, "f");
    REQUIRE_FALSE(two);
    CHECK(two.error().code == "syntax");
    CHECK(two.error().message ==
          "a second yaml document starts here; migplan reads one document per file");
    CHECK(two.error().line == line);
  }
  // A syntax error past the first document is no longer passed over.
  const auto broken = doc::read_yaml("a: 1\n---\n[[\n", "f");
  REQUIRE_FALSE(broken);
  CHECK(broken.error().message.starts_with("invalid yaml: "));
}

TEST_CASE("read_yaml places an empty value at its key or dash", "[doc]") {
  // yaml-cpp marks an empty value at the token after it; the node is where
  // the ':' or '-' that opens it stands.
  const auto line_of = [](std::string_view text, std::string_view key, int item) {
    const auto t = doc::read_yaml(text, "f");
    REQUIRE(t);
    const doc::node* v = doc::member(*t, key);
    REQUIRE(v != nullptr);
    if (item >= 0) {
      REQUIRE(v->is_list());
      REQUIRE(static_cast<std::size_t>(item) < v->kids.size());
      v = &v->kids[static_cast<std::size_t>(item)];
    }
    CHECK(v->is_null());
    return v->at.line;
  };
  CHECK(line_of("a:\nb: 1\n", "a", -1) == 1);
  CHECK(line_of("b: 1\na:\n", "a", -1) == 2);
  CHECK(line_of("b: 1\na:", "a", -1) == 2);
  CHECK(line_of("a:   # none\n\n# more\nb: 1\n", "a", -1) == 1);
  CHECK(line_of("a: ~\nb: 1\n", "a", -1) == 1);
  CHECK(line_of("a:\nnull: 3\n", "a", -1) == 1);
  CHECK(line_of("a:\nnullable: 3\n", "a", -1) == 1);
  CHECK(line_of("a:\n~x: 3\n", "a", -1) == 1);
  CHECK(line_of("l:\n  - 1\n  -\n  - 2\n", "l", 1) == 3);
  CHECK(line_of("l:\n  -   # nothing here\n\n  - 2\n", "l", 0) == 2);
  CHECK(line_of("l:\n  - 1\n  -\n", "l", 1) == 3);
  CHECK(line_of("\xEF\xBB\xBFl:\n  -\n  - 2\n", "l", 0) == 2);
  CHECK(line_of("l:\n  - 'a # b'\n  -\n  - 2\n", "l", 1) == 3);
  // A written null stays where it is written.
  const auto t = doc::read_yaml("l:\n  - null\n", "f");
  REQUIRE(t);
  const doc::node* l = doc::member(*t, "l");
  REQUIRE(l != nullptr);
  REQUIRE(l->kids.size() == 1);
  CHECK(l->kids[0].at.line == 2);
  CHECK(l->kids[0].at.column == 5);
}

TEST_CASE("read_yaml refuses a byte that is not UTF-8 at its line and column", "[doc]") {
  const auto bad = doc::read_yaml("a: 1\nb: \"x\xff\"\n", "f");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == "syntax");
  CHECK(bad.error().line == 2);
  CHECK(bad.error().column == 6);
  CHECK(bad.error().message ==
        "invalid UTF-8: byte 0xFF is no part of a UTF-8 character (YAML files are UTF-8 text)");
  // A cut sequence, an overlong form, a surrogate, past U+10FFFF, a stray
  // continuation byte: each at its first byte.
  for (const std::string_view text :
       {"a: \xC3\n", "a: \xC0\xAF\n", "a: \xED\xA0\x80\n", "a: \xF4\x90\x80\x80\n", "a: \x80\n"}) {
    INFO(text);
    const auto r = doc::read_yaml(text, "f");
    REQUIRE_FALSE(r);
    CHECK(r.error().line == 1);
    CHECK(r.error().column == 4);
  }
  // UTF-8 of every length, after a byte-order mark, is read.
  const auto ok = doc::read_yaml(
      "\xEF\xBB\xBF"
      "a: caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\n",
      "f");
  REQUIRE(ok);
  CHECK(doc::member(*ok, "a")->text == "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
}

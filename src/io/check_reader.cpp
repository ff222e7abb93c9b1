// SPDX-License-Identifier: Apache-2.0
#include "io/check_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <utility>

#include "io/names.hpp"
#include "io/schema.hpp"

namespace migplan::cli::check::reading {

kind kind_of(const doc::node& n) {
  switch (n.kind) {
    case doc::node::type::list:
      return kind::list;
    case doc::node::type::map:
      return kind::mapping;
    case doc::node::type::null:
      return kind::null;
    case doc::node::type::scalar:
      break;
  }
  switch (doc::type_of(n)) {
    case doc::scalar_type::null:
      return kind::null;
    case doc::scalar_type::boolean:
      return kind::boolean;
    case doc::scalar_type::integer:
      return kind::integer;
    case doc::scalar_type::number:
      return kind::number;
    case doc::scalar_type::string:
      break;
  }
  return kind::string;
}

std::string_view kind_name(kind k) {
  switch (k) {
    case kind::null:
      return "empty";
    case kind::string:
      return "a string";
    case kind::integer:
      return "an integer";
    case kind::number:
      return "a number";
    case kind::boolean:
      return "a boolean";
    case kind::list:
      return "a list";
    case kind::mapping:
      return "a mapping";
  }
  return "";
}

bool decimal_int(const doc::node& n, long long& v) {
  if (kind_of(n) != kind::integer) return false;
  const std::string& s = n.text;
  const char* b = s.data() + (s[0] == '+' ? 1 : 0);
  auto [p, ec] = std::from_chars(b, s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string q(std::string_view s) { return fmt::format("'{}'", clip(s)); }

std::string shown(const doc::node& n) {
  const kind k = kind_of(n);
  if (k == kind::string && n.quoted) return fmt::format("the string \"{}\"", clip(n.text));
  if (k == kind::string || k == kind::integer || k == kind::number || k == kind::boolean)
    return q(n.text);
  return std::string(kind_name(k));
}

location at(const doc::node& n) { return {n.at.line, n.at.column}; }

namespace {

std::string join_names(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view n : names) out += fmt::format("{}{}", out.empty() ? "" : ", ", n);
  return out;
}

// The tag written before the value at `offset` of `text` ("" when none):
// a value's position is that of its first property (anchor or tag).
std::string_view tag_at(std::string_view text, std::size_t offset) {
  while (offset < text.size() && (text[offset] == '&' || text[offset] == '!')) {
    std::size_t end = text.find_first_of(" \t\r\n", offset);
    if (end == std::string_view::npos) end = text.size();
    if (text[offset] == '!') return text.substr(offset, end - offset);
    offset = text.find_first_not_of(" \t", end);
  }
  return {};
}

// Merge keys nested deeper than this are refused.
constexpr std::size_t max_merge_depth = 32;

}  // namespace

// A merge key: a plain '<<', untagged or tagged !!merge; a quoted "<<"
// (and every JSON key), or one with another tag, is an ordinary key, as in
// go-yaml.
bool reader::is_merge_key(const doc::node& k) const {
  if (!k.is_scalar() || k.quoted || k.text != "<<") return false;
  const std::string_view tag = tag_at(text_, k.at.offset);
  return tag.empty() || tag == "!!merge" || tag == "!<tag:yaml.org,2002:merge>";
}

void reader::error(location where, std::string message, fault kind) {
  if (kind == fault::malformed) ++malformed_;
  push(severity::error, kind, where, std::move(message));
}

void reader::warning(location where, std::string message) {
  push(severity::warning, fault::invalid, where, std::move(message));
}

void reader::note(location where, std::string message) {
  push(severity::note, fault::invalid, where, std::move(message));
}

void reader::push(severity s, fault k, location where, std::string message) {
  out_.diagnostics.push_back(
      check_diagnostic(s, k, where, std::move(message), {}, config_, entry_));
}

// A mapping's entries in order, merge keys resolved. Each key keeps one
// value: for mig-parted configs the last one applied, as go-yaml v2 (which
// mig-parted reads YAML with, through sigs.k8s.io/yaml) applies them: in
// the order written, a merge key standing for the entries of the mapping
// it names, or of each mapping in the list it names from last to first,
// so that earlier ones win. For migplan files a key written in the mapping
// wins over a merged one wherever the '<<' stands (YAML's merge-key rule).
// Duplicate keys written in the mapping are reported (an error for migplan
// files; for mig-parted, which keeps the last silently, a warning).
std::vector<entry> reader::entries(const doc::node& map, bool dup_is_error, std::string_view what) {
  std::vector<entry> all;
  std::vector<const doc::node*> open{&map};
  flatten(map, what, all, open, {});
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  struct key_state {
    std::size_t first_written = none, winner = none;
  };
  std::unordered_map<std::string_view, key_state> keys;
  keys.reserve(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const entry& e = all[i];
    key_state& k = keys[e.key];
    if (!e.merged && k.first_written != none) {
      const std::string msg = fmt::format("duplicate key {} (first at line {})", q(e.key),
                                          file_line(at(*all[k.first_written].key_node)));
      if (dup_is_error)
        error(at(*e.key_node), msg);
      else
        warning(at(*e.key_node), msg + "; mig-parted keeps only the last one");
    }
    if (!e.merged && k.first_written == none) k.first_written = i;
    if (!dup_is_error || !e.merged || k.winner == none || all[k.winner].merged) k.winner = i;
  }
  std::vector<entry> out;
  out.reserve(keys.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const key_state& k = keys[all[i].key];
    if (k.winner != i) continue;
    if (all[i].merged && k.first_written != none && k.first_written < i) {
      // Only for mig-parted: in a migplan file the written key has won.
      const entry& written = all[k.first_written];
      warning(at(*written.key_node),
              fmt::format("{} is replaced by the value merged in by '<<' at line {}: "
                          "mig-parted applies a merge key where it stands, so write '<<' "
                          "before the keys it must not replace",
                          q(written.key), file_line(all[i].merge_at)));
    }
    out.push_back(all[i]);
  }
  return out;
}

std::vector<std::string> reader::unknown_keys(const std::vector<entry>& es,
                                              std::span<const std::string_view> allowed,
                                              std::string_view what, std::string_view suffix) {
  std::vector<std::string> names(allowed.begin(), allowed.end()), suggested;
  for (const entry& e : es) {
    if (std::find(allowed.begin(), allowed.end(), e.key) != allowed.end()) continue;
    std::string hint = doc::suggest(e.key, names);
    if (hint.empty()) hint = fmt::format(" (expected {})", join_names(allowed));
    if (e.key.size() <= 64)
      for (std::string& n : nearest(e.key, names, 1)) suggested.push_back(std::move(n));
    error(at(*e.key_node), fmt::format("unknown {} {}{}{}", what, q(e.key), hint, suffix));
  }
  return suggested;
}

bool reader::contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

const entry* reader::find(const std::vector<entry>& es, std::string_view key) {
  for (const entry& e : es)
    if (e.key == key) return &e;
  return nullptr;
}

// An alias of a value still being read (one that contains the alias): the
// document layer leaves it empty, at the alias's '*'.
bool reader::unresolved_alias(const doc::node& n) const {
  return n.is_null() && n.at.line > 0 && n.at.offset < text_.size() && text_[n.at.offset] == '*';
}

// Appends `map`'s entries to `out` in the order go-yaml applies them, each
// merge key replaced by what it merges. `open`: the mappings being
// flattened, for the depth of merges.
void reader::flatten(const doc::node& map, std::string_view what, std::vector<entry>& out,
                     std::vector<const doc::node*>& open, std::optional<location> merge_at) {
  for (std::size_t i = 0; i + 1 < map.kids.size(); i += 2) {
    const doc::node& k = map.kids[i];
    const doc::node& v = map.kids[i + 1];
    if (!k.is_scalar()) {
      // A merged mapping's own keys are reported where that mapping is read.
      if (!merge_at)
        error(at(k), fmt::format("{} keys must be strings, not {}", what, kind_name(kind_of(k))));
      continue;
    }
    if (is_merge_key(k)) {
      merge(v, what, out, open, merge_at.value_or(at(k)));
      continue;
    }
    out.push_back({k.text, &k, &v, merge_at.has_value(), merge_at.value_or(location{})});
  }
}

void reader::merge(const doc::node& value, std::string_view what, std::vector<entry>& out,
                   std::vector<const doc::node*>& open, location merge_at) {
  const auto bad = [&](const doc::node& n) {
    error(at(n).line > 0 ? at(n) : merge_at,
          fmt::format("the value of a merge key '<<' must be a mapping or a list of mappings, "
                      "not {}",
                      kind_name(kind_of(n))));
  };
  const auto one = [&](const doc::node& m) {
    if (unresolved_alias(m)) {
      error(merge_at, "merge key '<<' names a mapping that contains it");
      return;
    }
    if (!m.is_map()) return bad(m);
    if (open.size() > max_merge_depth) {
      error(merge_at, fmt::format("merge keys nest more than {} deep", max_merge_depth));
      return;
    }
    open.push_back(&m);
    flatten(m, what, out, open, merge_at);
    open.pop_back();
  };
  if (value.is_map() || unresolved_alias(value)) return one(value);
  if (!value.is_list()) return bad(value);
  for (auto it = value.kids.rbegin(); it != value.kids.rend(); ++it) one(*it);
}

}  // namespace migplan::cli::check::reading

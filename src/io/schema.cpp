// SPDX-License-Identifier: Apache-2.0
#include "io/schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "io/names.hpp"
#include "io/size.hpp"
#include "quote.hpp"

namespace migplan::cli::doc {

const field* find(std::span<const field> fields, std::string_view key) {
  for (const field& f : fields)
    if (f.key == key) return &f;
  return nullptr;
}

namespace {

// The longest key suggest() looks for a near name of, and the characters of
// a key check's messages quote (as check_input.hpp's clip()).
constexpr std::size_t long_key = 64;

}  // namespace

std::string suggest(std::string_view s, std::span<const std::string> names) {
  return s.size() > long_key ? std::string() : did_you_mean(s, names);
}

std::string unknown_key_hint(std::string_view key, std::span<const std::string> names,
                             std::span<const key_hint> hints) {
  for (const key_hint& h : hints)
    if (h.key == key) return fmt::format(" ({})", h.hint);
  return suggest(key, names);
}

std::string_view kind_text(const node& n) {
  if (n.is_list()) return "a list";
  if (n.is_map()) return "a mapping";
  // By scalar_type: null, boolean, integer, number, string.
  constexpr std::string_view scalars[] = {"empty", "a boolean", "an integer", "a number",
                                          "a string"};
  return scalars[static_cast<std::size_t>(type_of(n))];
}

bool reads_as(const node& n, scalar_type t) {
  return !n.is_list() && !n.is_map() && type_of(n) == t;
}

std::string name_problem(std::string_view s, bool invisible) {
  for (std::size_t i = 0; i < s.size();) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u < 0x20 || u == 0x7F) return "a control character";
    if (u < 0x80) {
      ++i;
      continue;
    }
    std::uint32_t cp = 0;
    bool valid = false;
    const std::size_t n = quote_detail::utf8_step(s, i, cp, valid);
    if (!valid) return "a byte that is not UTF-8";
    if (invisible && quote_detail::invisible(cp))
      return fmt::format("the invisible character U+{:04X}", cp);
    i += n;
  }
  return {};
}

void walker::fail(position at, std::string message, std::string_view code) {
  diagnostic d(file_, at.line, at.column, std::string(code), severity::error, std::move(message));
  d.kind = fault::malformed;
  fail(std::move(d));
}

void walker::fail(int line, std::string message, std::string_view code) {
  fail(position{line, 0, 0}, std::move(message), code);
}

void walker::fail(location at, std::string message, fault kind) {
  diagnostic d(file_, at.line, at.col, {}, severity::error, std::move(message));
  d.kind = kind;
  fail(std::move(d));
}

void walker::warn(location at, std::string message) {
  fail({file_, at.line, at.col, {}, severity::warning, std::move(message)});
}

void walker::note(location at, std::string message) {
  fail({file_, at.line, at.col, {}, severity::note, std::move(message)});
}

void walker::must_be(location at, std::string_view subject, std::string_view what,
                     const node& value) {
  fail(at, fmt::format("{} must be {}, not {}", subject, what, kind_text(value)));
}

void walker::must_be(const field& f, std::string_view what) {
  must_be(value_at(f), quote_token(f.key), what, *f.value);
}

void walker::fail(diagnostic d) {
  if (mode_ == mode::first && !found_.empty()) return;
  if (d.level == severity::error && d.kind == fault::malformed) ++malformed_;
  d.config = config_;
  d.entry = entry_;
  found_.push_back(std::move(d));
}

void walker::take(std::vector<diagnostic>& into) {
  into.insert(into.end(), std::make_move_iterator(found_.begin()),
              std::make_move_iterator(found_.end()));
  found_.clear();
}

int walker::file_line(location at) const {
  return to_file_ && at.line > 0 ? to_file_(at).line : at.line;
}

std::vector<field> walker::fields(const node& map, std::span<const std::string_view> known,
                                  std::string_view what, std::span<const key_hint> hints) {
  std::vector<field> out;
  for (std::size_t i = 0; i + 1 < map.kids.size(); i += 2) {
    const node& k = map.kids[i];
    if (!k.is_scalar()) {
      fail(k.at, fmt::format("a key of {} must be a name, not {}", what, value_text(k)),
           "key-type");
      if (mode_ == mode::first) return out;
      continue;
    }
    const std::string& key = k.text;
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      const std::vector<std::string> names(known.begin(), known.end());
      fail(k.at,
           fmt::format("unknown key {} in {}{}; the keys are {}", quote_token(key), what,
                       unknown_key_hint(key, names, hints), fmt::join(known, ", ")),
           "unknown-key");
      if (mode_ == mode::first) return out;
      continue;
    }
    if (const field* earlier = find(out, key)) {
      fail(k.at,
           fmt::format("duplicate key {} (first at line {})", quote_token(key),
                       earlier->key_at.line),
           "duplicate-key");
      if (mode_ == mode::first) return out;
      continue;
    }
    out.push_back({key, k.at, &map.kids[i + 1]});
  }
  return out;
}

namespace {

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

// A mapping's entries in the order go-yaml applies them, each merge key
// replaced by what it merges, for entries().
struct flattener {
  struct flat {
    field f;
    bool merged = false;  // brought in by a merge key
    location merge_at;    // that merge key, when merged
  };
  walker& w;
  std::string_view text;  // the document's, for tags and aliases
  std::string_view what;
  std::vector<flat> out;
  std::vector<const node*> open;  // the mappings being flattened, for the depth of merges

  // A merge key: a plain '<<', untagged or tagged !!merge; a quoted "<<"
  // (and every JSON key), or one with another tag, is an ordinary key, as
  // in go-yaml.
  bool is_merge_key(const node& k) const {
    if (!k.is_scalar() || k.quoted || k.text != "<<") return false;
    const std::string_view tag = tag_at(text, k.at.offset);
    return tag.empty() || tag == "!!merge" || tag == "!<tag:yaml.org,2002:merge>";
  }

  // An alias of a value still being read (one that contains the alias): the
  // document layer leaves it empty, at the alias's '*'.
  bool unresolved_alias(const node& n) const {
    return n.is_null() && n.at.line > 0 && n.at.offset < text.size() && text[n.at.offset] == '*';
  }

  void map(const node& m, std::optional<location> merge_at) {
    for (std::size_t i = 0; i + 1 < m.kids.size(); i += 2) {
      const node& k = m.kids[i];
      const node& v = m.kids[i + 1];
      if (!k.is_scalar()) {
        // A merged mapping's own keys are reported where that mapping is read.
        if (!merge_at)
          w.fail(at(k), fmt::format("{} keys must be strings, not {}", what, kind_text(k)));
        continue;
      }
      if (is_merge_key(k)) {
        merge(v, merge_at.value_or(at(k)));
        continue;
      }
      out.push_back({{k.text, k.at, &v}, merge_at.has_value(), merge_at.value_or(location{})});
    }
  }

  void merge(const node& value, location merge_at) {
    const auto bad = [&](const node& n) {
      w.fail(at(n).line > 0 ? at(n) : merge_at,
             fmt::format("the value of a merge key '<<' must be a mapping or a list of mappings, "
                         "not {}",
                         kind_text(n)));
    };
    const auto one = [&](const node& m) {
      if (unresolved_alias(m)) {
        w.fail(merge_at, "merge key '<<' names a mapping that contains it");
        return;
      }
      if (!m.is_map()) return bad(m);
      if (open.size() > max_merge_depth) {
        w.fail(merge_at, fmt::format("merge keys nest more than {} deep", max_merge_depth));
        return;
      }
      open.push_back(&m);
      map(m, merge_at);
      open.pop_back();
    };
    if (value.is_map() || unresolved_alias(value)) return one(value);
    if (!value.is_list()) return bad(value);
    for (auto it = value.kids.rbegin(); it != value.kids.rend(); ++it) one(*it);
  }
};

}  // namespace

// Each key keeps one value: with merging::mig_parted the last one applied,
// as go-yaml v2 (which mig-parted reads YAML with, through sigs.k8s.io/yaml)
// applies them: in the order written, a merge key standing for the entries
// of the mapping it names, or of each mapping in the list it names from last
// to first, so that earlier ones win. With merging::yaml a key written in
// the mapping wins over a merged one wherever the '<<' stands. Duplicate
// keys written in the mapping are reported (an error for migplan files; for
// mig-parted, which keeps the last silently, a warning).
std::vector<field> walker::entries(const node& map, merging rule, std::string_view what) {
  const bool yaml = rule == merging::yaml;
  flattener flat{*this, text_, what, {}, {&map}};
  flat.map(map, std::nullopt);
  const auto& all = flat.out;
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  struct key_state {
    std::size_t first_written = none, winner = none;
  };
  std::unordered_map<std::string_view, key_state> keys;
  keys.reserve(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& e = all[i];
    key_state& k = keys[e.f.key];
    if (!e.merged && k.first_written != none) {
      const std::string msg =
          fmt::format("duplicate key {} (first at line {})", quote_token(e.f.key, long_key),
                      file_line(at(all[k.first_written].f.key_at)));
      if (yaml)
        fail(at(e.f.key_at), msg);
      else
        warn(at(e.f.key_at), msg + "; mig-parted keeps only the last one");
    }
    if (!e.merged && k.first_written == none) k.first_written = i;
    if (!yaml || !e.merged || k.winner == none || all[k.winner].merged) k.winner = i;
  }
  std::vector<field> out;
  out.reserve(keys.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const key_state& k = keys[all[i].f.key];
    if (k.winner != i) continue;
    if (all[i].merged && k.first_written != none && k.first_written < i) {
      // Only for mig-parted: in a migplan file the written key has won.
      const field& written = all[k.first_written].f;
      warn(at(written.key_at),
           fmt::format("{} is replaced by the value merged in by '<<' at line {}: "
                       "mig-parted applies a merge key where it stands, so write '<<' "
                       "before the keys it must not replace",
                       quote_token(written.key, long_key), file_line(all[i].merge_at)));
    }
    out.push_back(all[i].f);
  }
  return out;
}

std::vector<std::string> walker::unknown_keys(std::span<const field> fields,
                                              std::span<const std::string_view> known,
                                              std::string_view what, std::string_view suffix) {
  const std::vector<std::string> names(known.begin(), known.end());
  std::vector<std::string> suggested;
  for (const field& f : fields) {
    if (std::find(known.begin(), known.end(), f.key) != known.end()) continue;
    std::string hint = suggest(f.key, names);
    if (hint.empty()) hint = fmt::format(" (expected {})", fmt::join(known, ", "));
    if (f.key.size() <= long_key)
      for (std::string& n : nearest(f.key, names, 1)) suggested.push_back(std::move(n));
    fail(at(f.key_at),
         fmt::format("unknown {} {}{}{}", what, quote_token(f.key, long_key), hint, suffix));
  }
  return suggested;
}

bool walker::top_mapping(const node& root, std::string_view kind, std::string_view expected) {
  if (root.is_null()) {
    fail(0, fmt::format("empty file: a {} holds {}", kind, expected), "empty");
    return false;
  }
  if (!root.is_map()) {
    fail(root.at,
         fmt::format("expected a mapping with {} at the top level, not {}", expected,
                     value_text(root)),
         "type");
    return false;
  }
  return true;
}

bool walker::version(std::span<const field> top, std::string_view kinds) {
  const field* v = find(top, "version");
  if (v == nullptr) {
    fail(1, fmt::format("missing required key 'version' ({} start with 'version: 1')", kinds),
         "missing-key");
    return false;
  }
  const node& n = *v->value;
  if (n.is_scalar() && n.text == "1") {
    if (!n.quoted) return true;
    fail(v->at(), "version must be the number 1, not the string \"1\"", "type");
    return false;
  }
  fail(v->at(), fmt::format("unsupported version {}: {} are version 1", value_text(n), kinds),
       "version");
  return false;
}

const field* walker::need(std::span<const field> fields, std::string_view key, int line,
                          std::string_view why) {
  const field* f = find(fields, key);
  if (f == nullptr)
    fail(line, fmt::format("missing required key {} {}", quote_token(key), why), "missing-key");
  return f;
}

const node* walker::list(const field& f, std::string_view what, std::size_t most,
                         std::string_view items) {
  if (!f.value->is_list()) {
    fail(f.at(),
         fmt::format("{} must be {}, not {}", quote_token(f.key), what, value_text(*f.value)),
         "type");
    return nullptr;
  }
  if (f.value->size() > most) {
    fail(f.at(),
         fmt::format("{} lists {} {}; the most a file may list is {}", quote_token(f.key),
                     f.value->size(), items, most),
         "list-limit");
    return nullptr;
  }
  return f.value;
}

std::optional<std::string> walker::text(const field& f, std::string_view what) {
  const node& n = *f.value;
  if (n.is_null() || (n.is_scalar() && n.text.empty())) {
    fail(f.at(), fmt::format("{} is empty", what), "empty");
    return std::nullopt;
  }
  if (!n.is_scalar()) {
    fail(f.at(), fmt::format("{} must be text, not {}", what, value_text(n)), "type");
    return std::nullopt;
  }
  return n.text;
}

std::optional<std::string> walker::name(const field& f, std::string_view what,
                                        std::size_t longest) {
  auto s = text(f, what);
  if (!s) return s;
  if (s->size() > longest) {
    fail(f.at(), fmt::format("{} {} is longer than {} characters", what, quote_token(*s), longest),
         "range");
    return std::nullopt;
  }
  if (const std::string why = name_problem(*s); !why.empty()) {
    fail(f.at(), fmt::format("{} {} holds {}", what, quote_token(*s), why), "range");
    return std::nullopt;
  }
  return s;
}

std::optional<long long> walker::whole(const field& f, std::string_view what, long long low,
                                       long long high) {
  const node& n = *f.value;
  if (n.is_null()) {
    fail(f.at(), fmt::format("{} is empty: expected a whole number from {} to {}", what, low, high),
         "empty");
    return std::nullopt;
  }
  if (!n.is_scalar()) {
    fail(f.at(),
         fmt::format("{} must be a whole number from {} to {}, not {}", what, low, high,
                     value_text(n)),
         "type");
    return std::nullopt;
  }
  if (n.quoted) {
    fail(f.at(),
         fmt::format("{} must be a number, not the string \"{}\"", what, clip_token(n.text)),
         "type");
    return std::nullopt;
  }
  auto v = parse_whole_number(what, n.text, low, high);
  if (!v) {
    fail(f.at(), v.error().message, "range");
    return std::nullopt;
  }
  return *v;
}

std::optional<bool> walker::flag(const field& f, std::string_view what) {
  const node& n = *f.value;
  bool v = false;
  if (n.is_scalar() && !n.quoted && core_bool(n.text, v)) return v;
  fail(f.at(), fmt::format("{} must be true or false, not {}", what, value_text(n)), "type");
  return std::nullopt;
}

}  // namespace migplan::cli::doc

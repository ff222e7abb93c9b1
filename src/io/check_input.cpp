// SPDX-License-Identifier: Apache-2.0
#include "io/check_input.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <streambuf>
#include <unordered_map>
#include <utility>

#include "io/document.hpp"
#include "io/json_sax.hpp"
#include "io/names.hpp"
#include "io/request.hpp"
#include "io/source.hpp"
#include "io/text_view.hpp"
#include "quote.hpp"

namespace migplan::cli::check {
namespace {

// ---------------------------------------------------------------------------
// Scalars. Both formats are read with YAML 1.1's plain-scalar rules, because
// mig-parted reads its configs through go-yaml v2 (YAML 1.1), which turns an
// unquoted 0x20B010DE into a number and `yes` into a boolean; quoted scalars
// are always strings. JSON arrives here through the same YAML reader (JSON is
// YAML flow style), so its strings are quoted and its numbers plain.

enum class kind { null, string, integer, number, boolean, list, mapping };

constexpr std::string_view str_tag = "tag:yaml.org,2002:str";

bool is_quoted(const YAML::Node& n) { return n.Tag() == "!" || n.Tag() == str_tag; }

bool all_of(std::string_view s, std::string_view allowed) {
  return !s.empty() && s.find_first_not_of(allowed) == std::string_view::npos;
}

using doc::yaml11_bool;

kind kind_of(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Sequence:
      return kind::list;
    case YAML::NodeType::Map:
      return kind::mapping;
    case YAML::NodeType::Scalar:
      break;
    default:
      return kind::null;
  }
  if (is_quoted(n)) return kind::string;
  const std::string& s = n.Scalar();
  if (s == "~" || s == "null" || s == "Null" || s == "NULL") return kind::null;
  bool b = false;
  if (yaml11_bool(s, b)) return kind::boolean;
  if (doc::yaml11_int(s)) return kind::integer;
  if (doc::yaml11_float(s)) return kind::number;
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

// A plain decimal integer (what both formats accept for counts and indices).
bool decimal_int(const YAML::Node& n, long long& v) {
  if (kind_of(n) != kind::integer) return false;
  const std::string& s = n.Scalar();
  const char* b = s.data() + (s[0] == '+' ? 1 : 0);
  auto [p, ec] = std::from_chars(b, s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

// Text from the file as a message quotes it: a hostile key or value a
// megabyte long comes back as its first 64 bytes (cut on a UTF-8 boundary).
constexpr std::size_t max_quoted = 64;

std::string q(std::string_view s) { return fmt::format("'{}'", clip(s)); }

// " (did you mean ...?)": no name is longer than max_quoted, so a longer
// text is no typo of one (and the edit distance would cost its length squared).
std::string suggest(std::string_view s, std::span<const std::string> names) {
  return s.size() > max_quoted ? std::string() : did_you_mean(s, names);
}

// A value as a message names it: '2', the string "true", a list.
std::string shown(const YAML::Node& n) {
  const kind k = kind_of(n);
  if (k == kind::string && is_quoted(n)) return fmt::format("the string \"{}\"", clip(n.Scalar()));
  if (k == kind::string || k == kind::integer || k == kind::number || k == kind::boolean)
    return q(n.Scalar());
  return std::string(kind_name(k));
}

std::string join_names(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view n : names) out += fmt::format("{}{}", out.empty() ? "" : ", ", n);
  return out;
}

// ---------------------------------------------------------------------------

// Thrown when aliases and merge keys make a file expand past its work
// budget; parse_check_input turns it into one error.
struct too_much_work {};

// A merge key: a plain '<<' (or one tagged !!merge); a quoted "<<" (and every
// JSON key) is an ordinary key, as in go-yaml.
bool is_merge_key(const YAML::Node& k) {
  return k.IsScalar() && k.Scalar() == "<<" &&
         (k.Tag() == "?" || k.Tag() == "tag:yaml.org,2002:merge");
}

class reader {
 public:
  // `budget`: how many mapping entries and list items the reader may visit.
  // Aliases let a small file name the same list or mapping many times over;
  // the budget keeps the work proportional to the file.
  reader(parsed_input& out, std::size_t budget) : out_(out), budget_(budget) {}

  // Where a position of the text lies in the file, for the line numbers a
  // message quotes (the text may be a config embedded in a manifest).
  void map_positions(const position_map& to_file) { to_file_ = to_file; }
  int file_line(location l) const { return to_file_ && l.line > 0 ? to_file_(l).line : l.line; }

  static location at(const YAML::Node& n) {
    const YAML::Mark m = n.Mark();
    if (m.is_null()) return {};
    return {m.line + 1, m.column + 1};
  }

  void error(location where, std::string message, fault kind = fault::malformed) {
    if (kind == fault::malformed) ++malformed_;
    push(severity::error, kind, where, std::move(message));
  }
  void warning(location where, std::string message) {
    push(severity::warning, fault::invalid, where, std::move(message));
  }
  void note(location where, std::string message) {
    push(severity::note, fault::invalid, where, std::move(message));
  }
  // What is being read, for the diagnostics' config and entry fields.
  void reading(std::string config, int index = -1) {
    config_ = std::move(config);
    entry_ = index;
  }
  void push(severity s, fault k, location where, std::string message) {
    out_.diagnostics.push_back({s, k, where, std::move(message), {}, config_, entry_});
  }
  std::string config_;
  int entry_ = -1;
  position_map to_file_;

  // Counts one visited value against the budget.
  void tick() {
    if (budget_ == 0) throw too_much_work{};
    --budget_;
  }

  /// One key of a mapping and its value.
  struct entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
    bool merged = false;  ///< brought in by a merge key
    location merge_at;    ///< that merge key, when merged
  };

  // A mapping's entries in order, merge keys resolved. Each key keeps one
  // value: for mig-parted configs the last one applied, as go-yaml v2 (which
  // mig-parted reads YAML with, through sigs.k8s.io/yaml) applies them: in
  // the order written, a merge key standing for the entries of the mapping
  // it names, or of each mapping in the list it names from last to first,
  // so that earlier ones win. For migplan files a key written in the mapping
  // wins over a merged one wherever the '<<' stands (YAML's merge-key rule).
  // Duplicate keys written in the mapping are reported (an error for migplan
  // files; for mig-parted, which keeps the last silently, a warning).
  // YAML::Node's assignment writes through to the document, so entries are
  // only ever copy-constructed (push_back), never assigned (erase, sort).
  std::vector<entry> entries(const YAML::Node& map, bool dup_is_error, std::string_view what) {
    std::vector<entry> all;
    std::vector<YAML::Node> open{map};
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
                                            file_line(at(all[k.first_written].key_node)));
        if (dup_is_error)
          error(at(e.key_node), msg);
        else
          warning(at(e.key_node), msg + "; mig-parted keeps only the last one");
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
        warning(at(written.key_node),
                fmt::format("{} is replaced by the value merged in by '<<' at line {}: "
                            "mig-parted applies a merge key where it stands, so write '<<' "
                            "before the keys it must not replace",
                            q(written.key), file_line(all[i].merge_at)));
      }
      out.push_back(all[i]);
    }
    return out;
  }

  // Reports keys not in `allowed`, suggesting the nearest; returns the
  // suggestions, so that a misspelt required key is reported once, as
  // misspelt, rather than also as missing.
  std::vector<std::string> unknown_keys(const std::vector<entry>& es,
                                        std::span<const std::string_view> allowed,
                                        std::string_view what, std::string_view suffix) {
    std::vector<std::string> names(allowed.begin(), allowed.end()), suggested;
    for (const entry& e : es) {
      if (std::find(allowed.begin(), allowed.end(), e.key) != allowed.end()) continue;
      std::string hint = suggest(e.key, names);
      if (hint.empty()) hint = fmt::format(" (expected {})", join_names(allowed));
      if (e.key.size() <= max_quoted)
        for (std::string& n : nearest(e.key, names, 1)) suggested.push_back(std::move(n));
      error(at(e.key_node), fmt::format("unknown {} {}{}{}", what, q(e.key), hint, suffix));
    }
    return suggested;
  }

  static bool contains(const std::vector<std::string>& v, std::string_view s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  }

  static const entry* find(const std::vector<entry>& es, std::string_view key) {
    for (const entry& e : es)
      if (e.key == key) return &e;
    return nullptr;
  }

  // Where a key's value is: the value itself, or the key when the value is empty.
  static location value_at(const entry& e) {
    return e.value.IsNull() || !e.value.IsDefined() ? at(e.key_node) : at(e.value);
  }

  parsed_input& out_;
  std::size_t malformed_ = 0;  // malformed errors (schema, syntax) reported so far

 private:
  // Appends `map`'s entries to `out` in the order go-yaml applies them, each
  // merge key replaced by what it merges. `open`: the mappings being
  // flattened (an alias can name a mapping from inside itself).
  void flatten(const YAML::Node& map, std::string_view what, std::vector<entry>& out,
               std::vector<YAML::Node>& open, std::optional<location> merge_at) {
    for (auto it = map.begin(); it != map.end(); ++it) {
      tick();
      const YAML::Node k = it->first;
      if (!k.IsScalar()) {
        // A merged mapping's own keys are reported where that mapping is read.
        if (!merge_at)
          error(at(k), fmt::format("{} keys must be strings, not {}", what, kind_name(kind_of(k))));
        continue;
      }
      if (is_merge_key(k)) {
        merge(it->second, what, out, open, merge_at.value_or(at(k)));
        continue;
      }
      out.push_back(
          {k.Scalar(), k, it->second, merge_at.has_value(), merge_at.value_or(location{})});
    }
  }

  void merge(const YAML::Node& value, std::string_view what, std::vector<entry>& out,
             std::vector<YAML::Node>& open, location merge_at) {
    const auto bad = [&](const YAML::Node& n) {
      error(at(n).line > 0 ? at(n) : merge_at,
            fmt::format("the value of a merge key '<<' must be a mapping or a list of mappings, "
                        "not {}",
                        kind_name(kind_of(n))));
    };
    const auto one = [&](const YAML::Node& m) {
      if (!m.IsMap()) return bad(m);
      for (const YAML::Node& o : open)
        if (o.is(m)) {
          error(merge_at, "merge key '<<' names a mapping that contains it");
          return;
        }
      if (open.size() > max_merge_depth) {
        error(merge_at, fmt::format("merge keys nest more than {} deep", max_merge_depth));
        return;
      }
      open.push_back(m);
      flatten(m, what, out, open, merge_at);
      open.pop_back();
    };
    if (value.IsMap()) return one(value);
    if (!value.IsSequence()) return bad(value);
    std::vector<YAML::Node> list;
    for (const YAML::Node& n : value) {
      tick();
      list.push_back(n);
    }
    for (auto it = list.rbegin(); it != list.rend(); ++it) one(*it);
  }

  static constexpr std::size_t max_merge_depth = 32;
  std::size_t budget_;
};

// ---------------------------------------------------------------------------
// migplan geometry files.

void locate_tokens(std::string_view line_text, location start, std::size_t scalar_size,
                   std::vector<token>& tokens, std::vector<location>& where) {
  // Each token's column: its text searched on the source line from the
  // scalar's start, within the scalar's extent (a JSON escape such as \u0067
  // takes 6 bytes for 1). A token not found there (escaped) stops the search:
  // the rest keep the scalar's position, and a long line is never rescanned.
  std::size_t from = start.col > 0 ? static_cast<std::size_t>(start.col - 1) : 0;
  const std::string_view scalar =
      line_text.substr(0, std::min(line_text.size(), from + 6 * scalar_size + 2));
  bool found = true;
  for (const token& t : tokens) {
    location l = start;
    const std::size_t pos =
        found && from < scalar.size() ? scalar.find(t.text, from) : std::string_view::npos;
    found = pos != std::string_view::npos;
    if (found) {
      l.col = static_cast<int>(pos) + 1;
      from = pos + t.text.size();
    }
    where.push_back(l);
  }
}

class geometry_reader : public reader {
 public:
  geometry_reader(parsed_input& out, std::size_t budget, std::span<const std::string_view> lines)
      : reader(out, budget), lines_(lines) {}

  void read(const YAML::Node& root) {
    const auto top = entries(root, true, "top-level");
    const auto misspelt = unknown_keys(top, geometry_top_keys, "key", "");
    const entry* version = find(top, "version");
    if (version == nullptr) {
      if (!contains(misspelt, "version"))
        error({1, 1},
              "missing required key 'version' (a migplan geometry file starts with 'version: 1')");
    } else {
      long long v = 0;
      const YAML::Node& value = version->value;
      if (!(decimal_int(value, v) && v == 1)) {
        std::string why;
        if (value.IsNull())
          why = "version is empty: migplan geometry files are version 1";
        else if (kind_of(value) == kind::string && is_quoted(value) && value.Scalar() == "1")
          why = "version must be the number 1, not the string \"1\"";
        else
          why = fmt::format("unsupported version {}: migplan geometry files are version 1",
                            shown(value));
        error(value_at(*version), why);
        return;  // another version's schema: nothing below can be trusted
      }
    }
    if (const entry* c = find(top, "comment"); c != nullptr) check_comment(*c);
    const entry* gpus = find(top, "gpus");
    if (gpus == nullptr) {
      if (!contains(misspelt, "gpus"))
        error({1, 1},
              "missing required key 'gpus' (a list of gpu entries with 'model' and 'instances')");
      return;
    }
    if (!gpus->value.IsSequence()) {
      error(value_at(*gpus), fmt::format("'gpus' must be a list of gpu entries, not {}",
                                         kind_name(kind_of(gpus->value))));
      return;
    }
    if (gpus->value.size() == 0) {
      error(value_at(*gpus), "'gpus' is empty: list at least one gpu entry");
      return;
    }
    int i = 0;
    for (const YAML::Node& g : gpus->value) {
      tick();
      read_entry(g, i++);
    }
  }

 private:
  void check_comment(const entry& e) {
    if (!e.value.IsScalar() && !e.value.IsNull())
      error(value_at(e),
            fmt::format("'comment' must be a string, not {}", kind_name(kind_of(e.value))));
  }

  void read_entry(const YAML::Node& node, int index) {
    geometry_spec g;
    g.entry = index;
    g.label = fmt::format("gpus[{}]", index);
    g.at = at(node);
    g.items_at = g.at;
    reading(g.label, index);
    if (!node.IsMap()) {
      error(at(node), fmt::format("each entry of 'gpus' must be a mapping with 'model' and "
                                  "'instances', not {}",
                                  kind_name(kind_of(node))));
      return;
    }
    const std::size_t errors_before = malformed_;
    const auto es = entries(node, true, "gpu entry");
    if (const entry* n = find(es, "name"); n != nullptr) {
      if (n->value.IsScalar() && !n->value.Scalar().empty()) {
        g.label = n->value.Scalar();
        reading(g.label, index);
      } else {
        error(value_at(*n),
              fmt::format("'name' must be a string, not {}", kind_name(kind_of(n->value))));
      }
    }
    const auto misspelt = unknown_keys(es, geometry_entry_keys, "key", "");
    if (const entry* c = find(es, "comment"); c != nullptr) check_comment(*c);
    if (const entry* m = find(es, "model"); m != nullptr) {
      if (m->value.IsScalar() && !m->value.Scalar().empty()) {
        g.model = m->value.Scalar();
        g.model_at = at(m->value);
      } else {
        error(value_at(*m), fmt::format("'model' must be a gpu name, slug or pci id, not {}",
                                        kind_name(kind_of(m->value))));
      }
    }
    if (const entry* ix = find(es, "index"); ix != nullptr) read_index(*ix, g);
    const entry* inst = find(es, "instances");
    if (inst == nullptr) {
      if (!contains(misspelt, "instances"))
        error(g.at, fmt::format("missing required key 'instances' in {} (a list such as "
                                "[\"3g.20gb\", \"2x1g.5gb\"])",
                                q(g.label)));
    } else {
      g.items_at = at(inst->key_node);
      read_instances(*inst, g);
    }
    g.broken = malformed_ > errors_before;
    if (!g.broken) claim_indices(g);
    index_at_.clear();
    out_.geometries.push_back(std::move(g));
    reading("");
  }

  void read_index(const entry& e, geometry_spec& g) {
    const auto bad = [&](location l) {
      error(l, "'index' must be a gpu index (0, 1, ...) or a list of them");
    };
    long long v = 0;
    if (e.value.IsScalar()) {
      if (!decimal_int(e.value, v) || v < 0) return bad(at(e.value));
      g.all_devices = false;
      g.devices.push_back(v);
      index_at_.push_back(at(e.value));
      return;
    }
    if (!e.value.IsSequence() || e.value.size() == 0) return bad(value_at(e));
    g.all_devices = false;
    for (const YAML::Node& n : e.value) {
      tick();
      if (!decimal_int(n, v) || v < 0) {
        bad(at(n));
        continue;
      }
      g.devices.push_back(v);
      index_at_.push_back(at(n));
    }
  }

  // A GPU of a node has one geometry: an index given twice is a conflict.
  void claim_indices(geometry_spec& g) {
    for (std::size_t i = 0; i < g.devices.size(); ++i) {
      const location l = i < index_at_.size() ? index_at_[i] : g.at;
      auto [it, fresh] = claimed_.try_emplace(g.devices[i], claim{g.entry, g.label, file_line(l)});
      if (fresh) continue;
      g.conflict = true;
      if (it->second.entry == g.entry)
        error(l, fmt::format("gpu index {} is listed twice", g.devices[i]), fault::invalid);
      else
        error(l,
              fmt::format("gpu index {} is already given to {} (line {}); a gpu has one geometry",
                          g.devices[i], q(it->second.label), it->second.line),
              fault::invalid);
    }
  }

  void read_instances(const entry& e, geometry_spec& g) {
    if (!e.value.IsSequence()) {
      error(value_at(e), fmt::format("'instances' must be a list of strings such as \"2x1g.5gb\", "
                                     "not {}",
                                     kind_name(kind_of(e.value))));
      return;
    }
    for (const YAML::Node& n : e.value) {
      tick();
      const location l = at(n);
      if (!n.IsScalar()) {
        error(l, fmt::format("each instance must be a string such as \"2x1g.5gb\" or "
                             "\"1g.5gb@6\", not {}",
                             kind_name(kind_of(n))));
        continue;
      }
      const std::string& text = n.Scalar();
      const std::vector<std::string> words = split_items(text);
      if (words.empty()) {
        error(l, "empty instance: expected [Nx]PROFILE[@START], e.g. \"2x1g.5gb\"");
        continue;
      }
      auto tokens = parse_items(words);
      if (!tokens) {
        error(l, tokens.error().message);
        continue;
      }
      std::vector<location> where;
      const std::string_view line_text =
          l.line >= 1 && static_cast<std::size_t>(l.line) <= lines_.size()
              ? lines_[static_cast<std::size_t>(l.line - 1)]
              : std::string_view();
      locate_tokens(line_text, l, text.size(), *tokens, where);
      for (std::size_t i = 0; i < tokens->size(); ++i) {
        const token& t = (*tokens)[i];
        g.items.push_back(
            {t.text, t.profile, t.count, t.start, where[i], t.ci.has_value() || !t.cis.empty()});
      }
    }
  }

  std::span<const std::string_view> lines_;
  std::vector<location> index_at_;
  struct claim {
    int entry;
    std::string label;
    int line;
  };
  std::map<long long, claim> claimed_;
};

// ---------------------------------------------------------------------------
// NVIDIA mig-parted configs, as api/spec/v1 reads them.

class mig_parted_reader : public reader {
 public:
  using reader::reader;

  void read(const YAML::Node& root) {
    const auto top = entries(root, false, "top-level");
    const auto misspelt =
        unknown_keys(top, mig_parted_top_keys, "field", "; mig-parted rejects unknown fields");
    const entry* version = find(top, "version");
    if (version == nullptr) {
      if (!contains(misspelt, "version"))
        error({1, 1}, "missing 'version: v1'; mig-parted refuses a config without it");
    } else if (kind_of(version->value) != kind::string || version->value.Scalar() != "v1") {
      const kind k = kind_of(version->value);
      error(value_at(*version),
            fmt::format("unsupported version {}: mig-parted configs must say version: v1",
                        k == kind::list || k == kind::mapping || k == kind::null
                            ? std::string(kind_name(k))
                            : q(version->value.Scalar())));
      return;  // another version's schema: nothing below can be trusted
    }
    const entry* configs = find(top, "mig-configs");
    if (configs == nullptr) {
      if (!contains(misspelt, "mig-configs")) note({1, 1}, "no 'mig-configs': nothing to check");
      return;
    }
    if (configs->value.IsNull() || (configs->value.IsMap() && configs->value.size() == 0)) {
      error(value_at(*configs), "'mig-configs' is empty; mig-parted requires at least one config");
      return;
    }
    if (!configs->value.IsMap()) {
      error(value_at(*configs),
            fmt::format("'mig-configs' must be a mapping from config label to a list of entries, "
                        "not {}",
                        kind_name(kind_of(configs->value))));
      return;
    }
    for (const entry& c : entries(configs->value, false, "config label")) read_config(c);
  }

 private:
  void read_config(const entry& c) {
    out_.labels.push_back(c.key);
    reading(c.key);
    if (c.value.IsNull() || (c.value.IsSequence() && c.value.size() == 0)) {
      error(at(c.key_node),
            fmt::format("config {} has no entries; mig-parted requires at least one", q(c.key)));
      return;
    }
    if (!c.value.IsSequence()) {
      error(value_at(c), fmt::format("config {} must be a list of entries, not {}", q(c.key),
                                     kind_name(kind_of(c.value))));
      return;
    }
    int i = 0;
    claims_.clear();  // a gpu index is claimed within one config
    for (const YAML::Node& n : c.value) {
      tick();
      reading(c.key, i);
      read_entry(c.key, n, i++);
    }
    reading("");
  }

  void read_entry(const std::string& label, const YAML::Node& node, int index) {
    geometry_spec g;
    g.label = label;
    g.entry = index;
    g.at = at(node);
    g.items_at = g.at;
    if (!node.IsMap()) {
      error(at(node), fmt::format("entry {} of config {} must be a mapping with 'devices' and "
                                  "'mig-enabled', not {}",
                                  index, q(label), kind_name(kind_of(node))));
      return;
    }
    const std::size_t errors_before = malformed_;
    device_at_.clear();
    const auto es = entries(node, false, "entry");
    const auto misspelt =
        unknown_keys(es, mig_parted_entry_keys, "field", "; mig-parted rejects unknown fields");
    for (std::string_view required : {"devices", "mig-enabled"})
      if (find(es, required) == nullptr && !contains(misspelt, required))
        error(g.at, fmt::format("missing required field '{}' in config {}", required, q(label)));
    if (const entry* f = find(es, "device-filter"); f != nullptr) read_filter(*f, g);
    if (const entry* d = find(es, "devices"); d != nullptr) read_devices(*d, g);
    if (const entry* e = find(es, "mig-enabled"); e != nullptr) {
      bool v = false;
      if (e->value.IsNull()) {
        warning(at(e->key_node), "'mig-enabled' is empty; mig-parted reads it as false");
        g.mig_enabled = false;
      } else if (kind_of(e->value) == kind::boolean && yaml11_bool(e->value.Scalar(), v)) {
        g.mig_enabled = v;
      } else {
        error(at(e->value),
              fmt::format("'mig-enabled' must be true or false, not {}", shown(e->value)));
      }
    }
    const entry* md = find(es, "mig-devices");
    if (md != nullptr) {
      g.items_at = at(md->key_node);
      read_mig_devices(*md, g);
    }
    // mig-parted: "missing required field 'mig-devices' when 'mig-enabled'
    // is true", for an absent key and for a null value alike
    // (api/spec/v1/spec.go, MigConfigSpec.UnmarshalJSON; doc/mig-parted-parity.md).
    if (g.mig_enabled && md == nullptr && find(es, "mig-enabled") != nullptr &&
        !contains(misspelt, "mig-devices"))
      error(g.at, fmt::format("missing 'mig-devices' in config {}: mig-parted requires it when "
                              "'mig-enabled' is true (write mig-devices: {{}} for none)",
                              q(label)));
    if (g.mig_enabled && md != nullptr && md->value.IsNull())
      error(at(md->key_node),
            fmt::format("'mig-devices' is empty (null) in config {}: mig-parted reads that as a "
                        "missing field, which it requires when 'mig-enabled' is true (write "
                        "mig-devices: {{}} for none)",
                        q(label)));
    if (!g.mig_enabled && md != nullptr && md->value.IsMap() && md->value.size() != 0)
      error(at(md->key_node), fmt::format("'mig-devices' must be empty when 'mig-enabled' is "
                                          "false; mig-parted rejects config {}",
                                          q(label)));
    g.broken = malformed_ > errors_before;
    if (!g.broken) claim_devices(label, g);
    out_.geometries.push_back(std::move(g));
  }

  // Two entries of one config that give the same gpu index, and that both
  // match a gpu of some model (no device-filter, or a PCI ID in common), set
  // it twice: mig-parted walks the entries in order and applies each to every
  // gpu it matches (WalkSelectedMigConfigForEachGPU in
  // cmd/nvidia-mig-parted/assert/assert.go, called by apply/mode.go and
  // apply/config.go), so the later entry replaces the earlier one there.
  // `devices: all` is left alone: an entry for every gpu beside one for a
  // few is how configs give a node's gpus different roles.
  void claim_devices(const std::string& label, geometry_spec& g) {
    std::vector<std::uint32_t> ids;
    for (const filter_id& f : g.filter)
      if (f.readable) ids.push_back(f.value);
    if (g.has_filter && ids.empty()) return;  // matches no gpu (already warned)
    std::set<long long> mine;
    for (std::size_t i = 0; i < g.devices.size(); ++i) {
      const long long d = g.devices[i];
      const location l = i < device_at_.size() ? device_at_[i] : g.at;
      if (d < 0) continue;  // reported by read_devices
      if (!mine.insert(d).second) {
        warning(l, fmt::format("gpu index {} is listed twice", d));
        continue;
      }
      index_claims& c = claims_[d];
      std::optional<device_claim> prior = g.has_filter ? c.unfiltered : c.first;
      for (std::uint32_t id : ids)
        if (auto it = c.by_filter.find(id);
            it != c.by_filter.end() && (!prior || it->second.entry < prior->entry))
          prior = it->second;
      if (prior) {
        g.conflict = true;
        error(l,
              fmt::format("gpu index {} is already given to entry {} of config {} (line {}); "
                          "mig-parted applies the entries in order, so this one replaces it on "
                          "gpu {}",
                          d, prior->entry, q(label), prior->line, d),
              fault::invalid);
      }
      const device_claim me{g.entry, file_line(g.at)};
      if (!c.first) c.first = me;
      if (!g.has_filter && !c.unfiltered) c.unfiltered = me;
      for (std::uint32_t id : ids) c.by_filter.try_emplace(id, me);
    }
  }

  void read_filter(const entry& e, geometry_spec& g) {
    g.filter_at = at(e.key_node);
    std::vector<YAML::Node> ids;
    if (e.value.IsNull()) return;  // mig-parted reads null as "": no filter
    const auto bad_type = [&](const YAML::Node& n) {
      const kind k = kind_of(n);
      if (k == kind::integer || k == kind::number)
        error(at(n), fmt::format("device-filter {} is read as a number; quote it (\"{}\"): "
                                 "mig-parted wants a string",
                                 clip(n.Scalar()), clip(n.Scalar())));
      else
        error(at(n), fmt::format("device-filter must be a pci id string or a list of them, not {}",
                                 kind_name(k)));
    };
    const bool list = e.value.IsSequence();
    if (list) {
      for (const YAML::Node& n : e.value) {
        tick();
        if (kind_of(n) != kind::string) {
          bad_type(n);
          continue;
        }
        ids.push_back(n);
      }
    } else if (kind_of(e.value) == kind::string) {
      ids.push_back(e.value);
    } else {
      bad_type(e.value);
      return;
    }
    for (const YAML::Node& n : ids) {
      const std::string& text = n.Scalar();
      if (text.empty() && !list) continue;  // a lone "" matches every device, like no filter
      filter_id f{text, 0, false, at(n)};
      if (!parse_filter_id(text, f.value)) {
        warning(f.at, fmt::format("device-filter {} is not a pci id mig-parted can read "
                                  "(such as 0x20B010DE); it matches no gpu",
                                  q(text)));
      } else if (f.value <= 0xFFFFu) {
        warning(f.at, fmt::format("device-filter {} has no vendor part: mig-parted reads it as "
                                  "device 0x0000 of vendor 0x{:04X}, which matches no gpu; "
                                  "write 0x{:04X}10DE",
                                  q(text), f.value, f.value));
      } else {
        f.readable = true;
      }
      g.filter.push_back(std::move(f));
    }
    g.has_filter = !g.filter.empty();
  }

  void read_devices(const entry& e, geometry_spec& g) {
    const YAML::Node& v = e.value;
    const kind k = kind_of(v);
    if (k == kind::string && v.Scalar() == "all") return;
    if (k == kind::integer) {
      error(at(v), fmt::format("'devices' must be \"all\" or a list of gpu indices; mig-parted "
                               "rejects a bare integer (write [{}])",
                               clip(v.Scalar())));
      return;
    }
    if (k == kind::list) {
      g.all_devices = false;
      for (const YAML::Node& n : v) {
        tick();
        long long d = 0;
        if (!decimal_int(n, d)) {
          error(at(n), fmt::format("'devices' must list gpu indices, not {}", shown(n)));
          continue;
        }
        if (d < 0) {
          // mig-parted reads it ([]int) and compares it with the index of
          // each gpu (0, 1, ...): it never matches (MatchesDevices in
          // api/spec/v1/helpers.go).
          g.conflict = true;
          error(at(n),
                fmt::format("gpu index {} is negative: mig-parted accepts it but it matches no gpu",
                            d),
                fault::invalid);
        }
        g.devices.push_back(d);
        device_at_.push_back(at(n));
      }
      return;
    }
    error(value_at(e),
          fmt::format("'devices' must be \"all\" or a list of gpu indices, not {}", shown(v)));
  }

  void read_mig_devices(const entry& e, geometry_spec& g) {
    if (e.value.IsNull()) return;  // mig-parted reads null as an empty map
    if (!e.value.IsMap()) {
      error(value_at(e), fmt::format("'mig-devices' must be a mapping from profile name to count, "
                                     "not {}",
                                     kind_name(kind_of(e.value))));
      return;
    }
    for (const entry& d : entries(e.value, false, "mig-devices")) {
      const location l = at(d.key_node);
      if (const std::string why = mig_profile_format_error(d.key); !why.empty()) {
        error(l, fmt::format("invalid profile name {}: {}; mig-parted rejects it{}", q(d.key), why,
                             suggest(d.key, all_profile_names())));
        continue;
      }
      long long n = 0;
      if (!decimal_int(d.value, n)) {
        // Digits past the largest count: a whole number, too large (mig-parted
        // reads counts as Go's int, 64 bits).
        const std::string& digits = d.value.Scalar();
        if (kind_of(d.value) == kind::integer && !digits.empty() &&
            std::all_of(digits.begin() + (digits[0] == '+' ? 1 : 0), digits.end(),
                        [](char c) { return c >= '0' && c <= '9'; }))
          error(value_at(d), fmt::format("count of {} {} is too large (at most {})", clip(d.key),
                                         clip(digits), std::numeric_limits<long long>::max()));
        else
          error(value_at(d), fmt::format("count of {} must be a whole number, not {}", clip(d.key),
                                         shown(d.value)));
        continue;
      }
      if (n < 0) {
        error(at(d.value),
              fmt::format("invalid count {} for {}: counts must be 0 or more", n, clip(d.key)));
        continue;
      }
      g.items.push_back({d.key, d.key, n, std::nullopt, l});
    }
    // mig-parted: "all counts for all MigProfiles are 0" (pkg/types/mig_config.go,
    // MigConfig.AssertValid): a mapping that lists profiles only to ask for none of them.
    if (!g.items.empty() && std::all_of(g.items.begin(), g.items.end(),
                                        [](const profile_request& r) { return r.count == 0; }))
      error(at(e.key_node),
            fmt::format("every count in 'mig-devices' of config {} is 0; "
                        "mig-parted rejects that (write mig-devices: {{}} for none)",
                        q(g.label)));
  }

  struct device_claim {
    int entry;
    int line;
  };
  // Who first gave a gpu index: any entry, an entry without a device-filter,
  // and an entry naming each PCI ID.
  struct index_claims {
    std::optional<device_claim> first, unfiltered;
    std::map<std::uint32_t, device_claim> by_filter;
  };
  std::map<long long, index_claims> claims_;  // of the config being read
  std::vector<location> device_at_;           // of the entry being read, as its devices
};

// ---------------------------------------------------------------------------

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t nl = text.find('\n', from);
    std::string_view line =
        text.substr(from, nl == std::string_view::npos ? std::string_view::npos : nl - from);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    from = nl + 1;
  }
  return out;
}

// nlohmann reports a byte offset; a caret needs a line and a column.
location offset_location(std::string_view text, std::size_t byte) {
  const std::size_t off = std::min(byte > 0 ? byte - 1 : 0, text.size());
  location l{1, 1};
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < off; ++i)
    if (text[i] == '\n') {
      ++l.line;
      line_start = i + 1;
    }
  l.col = static_cast<int>(off - line_start) + 1;
  return l;
}

// Where a second, non-empty YAML document starts, if there is one. Not
// YAML::LoadAll: yaml-cpp 0.7 turns a stray top-level ',' into an endless run
// of empty documents, so the documents are counted here, a bounded few.
class document_counter : public YAML::EventHandler {
 public:
  std::optional<location> content;  // first content of the current document
  void OnDocumentStart(const YAML::Mark&) override { content.reset(); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { saw(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                const std::string&) override {
    saw(m);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    saw(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    saw(m);
  }
  void OnMapEnd() override {}

 private:
  void saw(const YAML::Mark& m) {
    if (!content) content = location{m.line + 1, m.column + 1};
  }
};

std::optional<location> second_document(std::string_view text) {
  view_buf buf(text);
  std::istream in(&buf);
  YAML::Parser parser(in);
  document_counter counter;
  for (int doc = 0; doc < 4 && parser.HandleNextDocument(counter); ++doc)
    if (doc > 0 && counter.content) return counter.content;
  return std::nullopt;
}

// False when no second document can follow `root`, so that the text is not
// scanned a second time (a third of the time on a large file): a block
// mapping ends only where a line starts with a document marker ("---",
// "...") or a directive ('%'). After a flow collection or a scalar, yaml-cpp
// starts another document without a marker ("{a: 1} {b: 2}"). Checked
// against the full scan on a million random block-mapping documents.
bool may_have_second_document(std::string_view text, const YAML::Node& root) {
  if (!root.IsMap() || root.Style() != YAML::EmitterStyle::Block) return true;
  for (std::size_t at = 0; at < text.size();) {
    const std::string_view line = text.substr(at, 3);
    if (line == "---" || line == "..." || line.starts_with('%')) return true;
    const std::size_t end = text.find_first_of("\r\n", at);
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  return false;
}

bool has_key(const YAML::Node& map, std::string_view key) {
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == key) return true;
  return false;
}

input_format detect(const YAML::Node& root) {
  if (has_key(root, "mig-configs")) return input_format::mig_parted;
  for (auto it = root.begin(); it != root.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == "version" && it->second.IsScalar() &&
        it->second.Scalar() == "v1")
      return input_format::mig_parted;
  if (has_key(root, "gpus") || has_key(root, "version")) return input_format::geometry;
  return input_format::unknown;
}

// True when a document has a key only the two formats have: 'gpus',
// 'mig-configs', or 'version' as the number 1 or "v1". A bare 'version' does
// not count: docker-compose files have one ("3.8").
bool recognized(const YAML::Node& root) {
  if (!root.IsMap()) return false;
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    const std::string& k = it->first.Scalar();
    if (k == "gpus" || k == "mig-configs") return true;
    long long v = 0;
    if (k == "version" && it->second.IsScalar() &&
        (it->second.Scalar() == "v1" || (decimal_int(it->second, v) && v == 1)))
      return true;
  }
  return false;
}

// A JSON syntax check that builds nothing (nlohmann's document would cost
// many times the file): every event is accepted, the first error kept.
using json_syntax = json_sax_base;

}  // namespace

std::string clip(std::string_view text) { return clip_token(text, max_quoted); }

std::string mig_profile_format_error(std::string_view name) {
  if (name.empty()) return "the name is empty";
  const std::size_t plus = name.find('+'), minus = name.find('-');
  if (plus != std::string_view::npos && minus != std::string_view::npos)
    return "it has both '+' and '-' attributes";
  const std::size_t split = plus != std::string_view::npos ? plus : minus;
  const std::string_view fields = name.substr(0, split);
  const std::string_view expected = "expected [Cc.]Gg.MEMgb such as 1g.5gb or 1c.3g.20gb";
  std::vector<std::string_view> parts;
  std::size_t from = 0;
  while (parts.size() < 2) {
    const std::size_t dot = fields.find('.', from);
    if (dot == std::string_view::npos) break;
    parts.push_back(fields.substr(from, dot - from));
    from = dot + 1;
  }
  parts.push_back(fields.substr(from));
  if (parts.size() < 2) return std::string(expected);
  const std::string_view suffixes3[] = {"c", "g", "gb"};
  const std::string_view suffixes2[] = {"g", "gb"};
  const std::span<const std::string_view> want = parts.size() == 3
                                                     ? std::span<const std::string_view>(suffixes3)
                                                     : std::span<const std::string_view>(suffixes2);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string_view p = parts[i];
    if (p.size() <= want[i].size() || p.substr(p.size() - want[i].size()) != want[i] ||
        !all_of(p.substr(0, p.size() - want[i].size()), "0123456789"))
      return std::string(expected);
  }
  if (split == std::string_view::npos) return "";
  std::string_view attrs = name.substr(split + 1);
  std::vector<std::string_view> seen;
  while (true) {
    const std::size_t comma = attrs.find(',');
    const std::string_view a = attrs.substr(0, comma);
    if (a.empty()) return "an attribute after '+' or '-' is empty";
    if (std::isdigit(static_cast<unsigned char>(a[0])))
      return fmt::format("attribute '{}' begins with a digit", a);
    if (a.front() == '.' || a.back() == '.')
      return fmt::format("attribute '{}' begins or ends with a dot", a);
    if (!all_of(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789."))
      return fmt::format("attribute '{}' has a character other than letters, digits and '.'", a);
    if (std::find(seen.begin(), seen.end(), a) != seen.end())
      return fmt::format("attribute '{}' appears twice", a);
    seen.push_back(a);
    if (comma == std::string_view::npos) break;
    attrs.remove_prefix(comma + 1);
  }
  return "";
}

namespace {

// strconv.ParseUint(s, 0, 32), as mig-parted reads each part of a
// device-filter (pkg/types/device.go, NewDeviceIDFromString): a 0x, 0o or 0b
// prefix or a leading 0 (octal) picks the base, otherwise decimal; digits in
// either case; '_' only between digits or after a prefix; at most 32 bits.
bool go_parse_uint32(std::string_view text, std::uint32_t& out) {
  int base = 10;
  bool prefixed = false;
  if (text.size() >= 2 && text[0] == '0') {
    const char p = static_cast<char>(text[1] | 0x20);
    if (p == 'x' || p == 'o' || p == 'b') {
      base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
      text.remove_prefix(2);
      prefixed = true;
    } else {
      base = 8;
      text.remove_prefix(1);
      prefixed = true;
    }
  }
  std::string digits;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '_') {
      digits += text[i];
      continue;
    }
    // Go: an underscore must follow a digit or the base prefix, and precede a digit.
    const bool after_ok = i > 0 ? text[i - 1] != '_' : prefixed;
    if (!after_ok || i + 1 == text.size() || text[i + 1] == '_') return false;
  }
  if (digits.empty()) return false;  // "0x", "0b"
  std::uint32_t v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (ec != std::errc() || p != digits.data() + digits.size()) return false;
  out = v;
  return true;
}

}  // namespace

bool parse_filter_id(std::string_view text, std::uint32_t& out) {
  // "DEVICEVENDOR" or "DEVICEVENDOR:SUBSYSTEM", each part read by
  // go_parse_uint32; more parts are an error in mig-parted.
  const std::size_t colon = text.find(':');
  if (colon != std::string_view::npos) {
    std::uint32_t sub = 0;
    if (text.find(':', colon + 1) != std::string_view::npos ||
        !go_parse_uint32(text.substr(colon + 1), sub))
      return false;
    text = text.substr(0, colon);
  }
  return go_parse_uint32(text, out);
}

result<std::string> read_check_source(const std::string& path, std::istream& in,
                                      std::size_t limit) {
  bool too_large = false;
  auto text = read_source_bounded(path, in, limit, too_large);
  if (text) return text;
  if (too_large)
    return cli::error{fmt::format("{}, the most check reads of one file", text.error().message)};
  return cli::error{"cannot read file: " + text.error().message};
}

parsed_input parse_check_input(std::string_view text, bool json, const position_map& to_file) {
  parsed_input out;
  if (json) {
    json_syntax syntax;
    try {
      nlohmann::json::sax_parse(text.begin(), text.end(), &syntax);
    } catch (const std::exception& e) {
      syntax.what = e.what();
    }
    if (!syntax.what.empty()) {
      out.diagnostics.push_back(
          file_diagnostic(severity::error, fault::malformed,
                          syntax.byte ? offset_location(text, *syntax.byte) : location{},
                          "invalid json: " + json_error_text(syntax.what)));
      return out;
    }
  }
  // Mapping entries and list items the readers may visit: every one takes a
  // few bytes of the file, so a file without aliases stays far below this.
  const std::size_t budget = 4 * text.size() + 100'000;
  try {
    view_buf buf(text);
    std::istream stream(&buf);
    const YAML::Node root = YAML::Load(stream);  // the first document
    out.foreign = !recognized(root);
    if (const std::optional<location> second =
            may_have_second_document(text, root) ? second_document(text) : std::nullopt) {
      out.diagnostics.push_back(
          file_diagnostic(severity::error, fault::malformed, *second,
                          "a second yaml document starts here; check reads one document "
                          "per file"));
      return out;
    }
    if (root.IsNull() || !root.IsDefined()) {
      // mig-parted accepts an empty document as a config with no labels
      // (api/spec/v1/spec_test.go, TestSpec "Empty"); `apply -c` then fails
      // for want of the label. Not an error here either, but not silent.
      out.foreign = false;
      out.diagnostics.push_back(
          file_diagnostic(severity::warning, fault::invalid, {},
                          "empty file: nothing to check (mig-parted accepts it as a config "
                          "with no labels; any label selected from it is missing)"));
      return out;
    }
    if (!root.IsMap()) {
      out.diagnostics.push_back(
          file_diagnostic(severity::error, fault::malformed, reader::at(root),
                          fmt::format("expected a mapping with 'version' at the top level, not {}",
                                      kind_name(kind_of(root)))));
      return out;
    }
    out.format = detect(root);
    switch (out.format) {
      case input_format::geometry: {
        const std::vector<std::string_view> lines = split_lines(text);  // r keeps a view
        geometry_reader r(out, budget, lines);
        r.map_positions(to_file);
        r.read(root);
        break;
      }
      case input_format::mig_parted: {
        mig_parted_reader r(out, budget);
        r.map_positions(to_file);
        r.read(root);
        break;
      }
      case input_format::unknown:
        out.diagnostics.push_back(
            file_diagnostic(severity::error, fault::malformed, {1, 1},
                            "not a migplan geometry file (version: 1, gpus: ...) or a "
                            "mig-parted config (version: v1, mig-configs: ...)"));
        break;
    }
  } catch (const too_much_work&) {
    out.diagnostics.push_back(file_diagnostic(
        severity::error, fault::malformed, {},
        fmt::format("aliases and merge keys make this file name more than {} values; check "
                    "stops reading it there",
                    budget)));
  } catch (const YAML::Exception& e) {
    location l;
    if (!e.mark.is_null()) l = {e.mark.line + 1, e.mark.column + 1};
    out.diagnostics.push_back(
        file_diagnostic(severity::error, fault::malformed, l,
                        (json ? "invalid json: " : "invalid yaml: ") + yaml_error_text(e)));
  } catch (const std::exception& e) {
    out.diagnostics.push_back(file_diagnostic(severity::error, fault::malformed, {},
                                              std::string("cannot read the file: ") + e.what()));
  }
  return out;
}

}  // namespace migplan::cli::check

// SPDX-License-Identifier: Apache-2.0
#pragma once

// The schema walker: what every reader asks of a document tree (document.hpp)
// in one place, each answer a value or a diagnostic. A mapping's keys are
// checked against the known ones (an unknown key gets a did-you-mean from the
// nearest known names, a key given twice is refused), required keys are
// asked for, scalars are read as text, names, whole numbers in a range or
// booleans, lists as lists with a most. The walker keeps its diagnostics:
// stopping at the first (every reader but check's: a failed call returns
// nothing and later failures are not kept) or collecting all of them
// (check's readers, which walk with it too: their warnings and notes, each
// stamped with the config and entry being read, a mapping's entries with
// merge keys resolved as YAML or as mig-parted's go-yaml v2 resolves them,
// and the line numbers of a config embedded in a manifest). Internal to
// src/io.

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostic.hpp"
#include "io/document.hpp"

namespace migplan::cli::doc {

/// The line and column of `p`, as a diagnostic keeps them.
inline location at(position p) { return {p.line, p.column}; }
/// Where `n` starts; {} when unknown.
inline location at(const node& n) { return at(n.at); }

/// One key of a mapping and its value.
struct field {
  std::string key;              ///< the key's text
  position key_at;              ///< where the key is
  const node* value = nullptr;  ///< its value, in the tree
  /// The value's line, or the key's where the value is empty: yaml-cpp
  /// places an empty value at the token after it, often the next key's line
  /// or one past the end of the file.
  int line() const { return at().line; }
  /// The value's position, or the key's (see line()).
  position at() const { return value->is_null() || value->at.line <= 0 ? key_at : value->at; }
};

/// Where a key's value is: the value itself, or the key when the value is empty.
inline location value_at(const field& f) {
  return f.value->is_null() ? at(f.key_at) : at(*f.value);
}

/// The field named `key` of `fields`, or nullptr.
const field* find(std::span<const field> fields, std::string_view key);

/// A key that is not known in one format but is in a sibling format (a
/// trace's `profile`, a demand file's `item`): its message says where that
/// belongs here instead of a did-you-mean.
struct key_hint {
  std::string_view key;   ///< the unknown key, lower case
  std::string_view hint;  ///< what to write instead, shown in parentheses
};

/// " (did you mean 'y'?)" for `key` among `names`, or " (HINT)" where `hints`
/// has the key.
std::string unknown_key_hint(std::string_view key, std::span<const std::string> names,
                             std::span<const key_hint> hints = {});

/// Where a position of a document's text lies in the file it came from (a
/// config embedded in a Kubernetes manifest, manifest.hpp).
using position_map = std::function<location(location)>;

/// How entries() resolves merge keys ('<<', a plain or !!merge-tagged key;
/// a quoted one is an ordinary key) and a key written twice.
enum class merging : bool {
  /// YAML's rule (migplan's files): a key written in the mapping wins over a
  /// merged one wherever the '<<' stands; a key written twice is an error.
  yaml,
  /// go-yaml v2's (mig-parted's): in the order written, the last one applied
  /// wins; a key written twice is a warning.
  mig_parted,
};

/// Walks one file's tree, keeping what it finds wrong.
class walker {
 public:
  /// How many diagnostics a walker keeps.
  enum class mode : unsigned char {
    first,  ///< the first only: a reader that stops there
    all,    ///< every one (check's)
  };
  /// A walker of the file shown as `file`.
  explicit walker(std::string_view file, mode m = mode::first) : file_(file), mode_(m) {}

  /// No diagnostic so far.
  bool ok() const { return found_.empty(); }
  /// What was found, in order.
  const std::vector<diagnostic>& diagnostics() const { return found_; }
  /// The first diagnostic (the walker must not be ok()).
  const diagnostic& first() const { return found_.front(); }
  /// The file's name as shown.
  std::string_view file() const { return file_; }

  /// Keeps a diagnostic at `at` (in mode::first, only the first one).
  void fail(position at, std::string message, std::string_view code = {});
  /// Keeps a diagnostic at a line (CSV and other line-based text).
  void fail(int line, std::string message, std::string_view code = {});
  /// Keeps a diagnostic made elsewhere (a document's syntax error); every
  /// diagnostic is kept through here, stamped as reading() says.
  void fail(diagnostic d);

  /// The document's text (entries() reads merge keys' tags and aliases in
  /// it) and where its positions lie in the file (`to_file`: line numbers
  /// quoted in messages go through it).
  void source(std::string_view text, position_map to_file = {}) {
    text_ = text;
    to_file_ = std::move(to_file);
  }
  /// What is being read: every diagnostic kept from here on carries it
  /// (check's geometry label and entry index; "" and -1: the file's).
  void reading(std::string config, int entry = -1) {
    config_ = std::move(config);
    entry_ = entry;
  }
  /// Keeps an error at a line and column; `kind`: what it does to check's
  /// exit code (a malformed one makes the entry being read broken).
  void fail(location at, std::string message, fault kind = fault::malformed);
  /// Keeps a warning.
  void warn(location at, std::string message);
  /// Keeps a note.
  void note(location at, std::string message);
  /// Keeps the error of a value of the wrong kind: "SUBJECT must be WHAT,
  /// not KIND" at `at`, KIND as kind_text() names `value` ("each device
  /// must be a mapping with 'name', not a list").
  void must_be(location at, std::string_view subject, std::string_view what, const node& value);
  /// The same of a key's value: "'KEY' must be WHAT, not KIND" at value_at(f).
  void must_be(const field& f, std::string_view what);
  /// Malformed errors kept so far.
  std::size_t malformed() const { return malformed_; }
  /// The file's line of `at` (see source()).
  int file_line(location at) const;
  /// Appends what was found to `into`, keeping none.
  void take(std::vector<diagnostic>& into);

  /// The entries of mapping `map` in order, merge keys resolved by `rule`
  /// (check's readers; `what` names the mapping: "gpu entry"). A key that
  /// is no scalar, a merge key's value that is no mapping, and a key
  /// written twice are diagnostics; every key keeps one value.
  std::vector<field> entries(const node& map, merging rule, std::string_view what);

  /// Reports each key of `fields` not in `known` ("unknown WHAT 'x' (did
  /// you mean 'y'?)SUFFIX", or "(expected a, b)" with no near name);
  /// returns the names suggested, so that a misspelt required key is
  /// reported once, as misspelt, rather than also as missing.
  std::vector<std::string> unknown_keys(std::span<const field> fields,
                                        std::span<const std::string_view> known,
                                        std::string_view what, std::string_view suffix);

  /// The entries of mapping `map` (`what` names it in messages: "a demand
  /// item"). A key that is no name, not in `known` ("unknown key 'x' in WHAT
  /// (did you mean 'y'?); the keys are a, b") or given twice ("duplicate key
  /// 'x' (first at line N)") is a diagnostic; the entries before it are
  /// returned (in mode::all, every good entry).
  std::vector<field> fields(const node& map, std::span<const std::string_view> known,
                            std::string_view what, std::span<const key_hint> hints = {});

  /// True when the document is a mapping; else "empty file: a KIND holds
  /// EXPECTED" or "expected a mapping with EXPECTED at the top level, not ...".
  bool top_mapping(const node& root, std::string_view kind, std::string_view expected);

  /// `version: 1`: true when it is there as the number 1 (`kinds`: "demand
  /// files", for "demand files start with 'version: 1'").
  bool version(std::span<const field> top, std::string_view kinds);

  /// The value of a required key, or nullptr and "missing required key 'K'
  /// WHY" at `line`.
  const field* need(std::span<const field> fields, std::string_view key, int line,
                    std::string_view why);

  /// A list value (`what` describes it: "a list of demand items"), of at
  /// most `most` items (`items` names them in the message: "'demand' lists N
  /// demand items; the most a file may list is M").
  const node* list(const field& f, std::string_view what,
                   std::size_t most = std::numeric_limits<std::size_t>::max(),
                   std::string_view items = {});

  /// A scalar's text, not empty (`what` names it: "profile").
  std::optional<std::string> text(const field& f, std::string_view what);

  /// A name: text of at most `longest` bytes without control characters
  /// (names go into messages, YAML and shell commands).
  std::optional<std::string> name(const field& f, std::string_view what, std::size_t longest);

  /// A whole number from `low` to `high`, written as a number (a quoted "1"
  /// is refused as a string).
  std::optional<long long> whole(const field& f, std::string_view what, long long low,
                                 long long high);

  /// true or false (YAML 1.2's spellings, as migplan's own formats take them).
  std::optional<bool> flag(const field& f, std::string_view what);

 private:
  std::string file_;
  mode mode_;
  std::vector<diagnostic> found_;
  std::size_t malformed_ = 0;
  std::string_view text_;
  position_map to_file_;
  std::string config_;
  int entry_ = -1;
};

/// " (did you mean ...?)" for a misspelt name among `names`; nothing for a
/// long text, which is no typo of a name (and would cost its length squared).
std::string suggest(std::string_view s, std::span<const std::string> names);

/// What a value is, in check's words: "a list", "a mapping", or a scalar as
/// type_of() reads it by YAML 1.1's rules (mig-parted reads its configs
/// through go-yaml v2, which turns an unquoted 0x20B010DE into a number and
/// `yes` into a boolean; a quoted scalar, and so every JSON string, is a
/// string): "empty", "a boolean", "an integer", "a number" or "a string".
std::string_view kind_text(const node& n);
/// True when `n` is no list or mapping and type_of() reads it as `t` (an
/// empty value reads as null).
bool reads_as(const node& n, scalar_type t);

/// Why `s` cannot be a name, or "": "a control character" (below 0x20, or
/// 0x7F) or "a byte that is not UTF-8" (which a renderer would print raw);
/// with `invisible`, also "the invisible character U+200B" for invisible or
/// direction-changing code points (a model file's strings).
std::string name_problem(std::string_view s, bool invisible = false);

}  // namespace migplan::cli::doc

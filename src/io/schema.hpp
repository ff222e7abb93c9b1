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
// (check's). Internal to src/io.

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostic.hpp"
#include "io/document.hpp"

namespace migplan::cli::doc {

/// One key of a mapping and its value.
struct field {
  std::string key;              ///< the key's text
  position key_at;              ///< where the key is
  const node* value = nullptr;  ///< its value, in the tree
  /// The value's line, or the key's where the value has none (an empty value).
  int line() const { return value->at.line > 0 ? value->at.line : key_at.line; }
  /// The value's position, or the key's (see line()).
  position at() const { return value->at.line > 0 ? value->at : key_at; }
};

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
  /// Keeps a diagnostic made elsewhere (a document's syntax error).
  void fail(diagnostic d);

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
};

/// " (did you mean ...?)" for a misspelt name among `names`; nothing for a
/// long text, which is no typo of a name (and would cost its length squared).
std::string suggest(std::string_view s, std::span<const std::string> names);

/// True when `s` holds a control character (below 0x20, or 0x7F).
bool has_control(std::string_view s);

}  // namespace migplan::cli::doc

// SPDX-License-Identifier: Apache-2.0
#pragma once

// The document layer: every YAML or JSON input is read into one tree whose
// values keep their position (line, column, byte offset), built from
// yaml-cpp's parser events or nlohmann's SAX events, never from either
// library's own DOM, under one budget (bytes, depth, values, alias copies).
// Scalars keep their text and whether they were quoted; how a plain scalar
// reads (null, boolean, integer, number or string) is decided here once, the
// way mig-parted's Go YAML library (YAML 1.1) reads it. Readers walk the tree
// with the schema walker (schema.hpp). Internal to src/io.

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostic.hpp"
#include "error.hpp"

namespace migplan::cli::doc {

/// Where a value starts in its file.
struct position {
  int line = 0;            ///< 1-based; 0 when unknown
  int column = 0;          ///< 1-based, in bytes; 0 when unknown
  std::size_t offset = 0;  ///< bytes from the start of the text
};

/// One value of a document.
struct node {
  /// What the value is.
  enum class type : unsigned char { null, scalar, list, map };
  type kind = type::null;  ///< what the value is
  bool quoted = false;     ///< a quoted YAML scalar or a JSON string: always a string
  position at;             ///< where it starts
  std::string text;        ///< a scalar's text (JSON numbers as written)
  std::vector<node> kids;  ///< a list's items; a map's keys and values in turn

  bool is_null() const { return kind == type::null; }      ///< empty (~, null, nothing)
  bool is_scalar() const { return kind == type::scalar; }  ///< text, a number or a boolean
  bool is_list() const { return kind == type::list; }      ///< a sequence or array
  bool is_map() const { return kind == type::map; }        ///< a mapping or object
  /// Items of a list, entries of a map.
  std::size_t size() const { return kind == type::map ? kids.size() / 2 : kids.size(); }
  /// The line, or `fallback` where the value has none (an empty value).
  int line_or(int fallback) const { return at.line > 0 ? at.line : fallback; }
};

/// What one document may cost to read. Each limit passed is one diagnostic
/// at the value where it was passed; the text is never read further.
struct budget {
  std::size_t bytes = std::size_t{16} << 20;  ///< the longest text
  std::size_t depth = 64;                     ///< lists and mappings open at once
  /// Values in the tree, alias copies included.
  std::size_t values = std::numeric_limits<std::size_t>::max();
  /// Values aliases may copy; 0: 4 per byte of text plus 100,000, so that a
  /// few aliases of aliases cannot make a small file expand without bound.
  std::size_t alias_values = 0;
  std::string_view reader = "migplan";  ///< who stops reading, in messages ("plan")
  std::string_view depth_note;          ///< appended to the depth message
  /// The longest list under one key of the top-level mapping (`demand` of a
  /// demand file), refused at its first item too many, in the time and
  /// memory of the limit, not of the file.
  std::string_view limited_key;
  std::size_t limited_most = 0;   ///< items of the limited list
  std::string_view limited_what;  ///< "demand items": "more than 10000 demand items"
  /// Which entries of mappings the tree keeps (read_json() only): given the
  /// keys from the root to an entry, a list's item standing as "", false
  /// leaves the entry out, key and value, read but never built. A reader
  /// that needs a few keys of a large document (kubectl's nodes, whose
  /// status is most of their bytes) builds only those; the limits above
  /// count what is kept, and the depth all of it. Null: every entry.
  bool (*keep)(std::span<const std::string> keys) = nullptr;
};

/// The line and column of nlohmann's byte position in `text` (it counts
/// from 1, at the byte after the error's start).
position json_error_at(std::string_view text, std::size_t byte);

/// False when no second YAML document can follow `root`, the first of
/// `text`, so that the text after it need not be parsed (yaml-cpp may refuse
/// what follows a first document it accepted): a block mapping ends only
/// where a line starts with a document marker ("---", "...") or a directive
/// ('%'). After a flow collection or a scalar, yaml-cpp starts another
/// document without a marker ("{a: 1} {b: 2}").
bool may_have_second_document(std::string_view text, const node& root);

/// What read_yaml keeps of a stream, one document at a time: the first
/// document, and where a second one that is not empty starts. Empty
/// documents after the first (a trailing "---") are let be; at most four are
/// looked at: yaml-cpp turns a stray top-level ',' into an endless run of
/// them.
struct first_document {
  explicit first_document(std::string_view stream) : text(stream) {}
  std::string_view text;  ///< the whole stream
  node root;              ///< the first document; null when there is none
  std::optional<position> second;
  int seen = 0;  ///< documents taken
  /// Takes the stream's next document; false when no more need reading.
  bool take(node& doc);
};

/// The one YAML document of `text`, or the first problem: a syntax error
/// ("invalid yaml: ...", anywhere in the stream), a budget passed, or a
/// second document that is not empty ("a second yaml document starts
/// here"), which would otherwise be ignored.
result<node, diagnostic> read_yaml(std::string_view text, std::string_view file,
                                   const budget& limits = {});

/// Reads the YAML documents of a stream (a Kubernetes manifest's) in turn,
/// handing each one's root (null for an empty document) and start to `each`,
/// which may take the root and returns false to stop. Returns the first
/// problem, which ends the reading (a syntax error, a budget passed: the
/// alias budget is the stream's), or nothing. Then `partial` (when given)
/// receives the document being read, as far as it was read.
std::optional<diagnostic> read_yaml_stream(
    std::string_view text, std::string_view file, const budget& limits,
    const std::function<bool(node& root, position start)>& each, node* partial = nullptr);

/// The JSON document `text`, or the first problem ("invalid json: ...", a
/// budget passed). Strings are quoted scalars; numbers keep their text.
result<node, diagnostic> read_json(std::string_view text, std::string_view file,
                                   const budget& limits = {});

/// read_json() or read_yaml().
result<node, diagnostic> read_document(std::string_view text, std::string_view file, bool json,
                                       const budget& limits = {});

/// The value of `key` in mapping `map`, the last one where the key is given
/// twice (as yaml-cpp's and nlohmann's own trees keep it), or nullptr (also
/// when `map` is no mapping).
const node* member(const node& map, std::string_view key);

/// The first key, in the order of the text, given a second time in its
/// mapping anywhere in the tree (the second one), or nullptr.
const node* repeated_key(const node& root);

/// How a scalar reads, as mig-parted's Go YAML library (YAML 1.1) reads it.
enum class scalar_type : unsigned char { null, boolean, integer, number, string };

/// A YAML 1.1 integer: decimal, 0x hex, 0b binary or 0 octal, '_' separators.
bool yaml11_int(std::string_view s);
/// A YAML 1.1 float: [-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+][0-9]+)? or .inf/.nan.
bool yaml11_float(std::string_view s);
/// A YAML 1.1 boolean (y, yes, on, true and their negations, three casings
/// each), its value in `v`.
bool yaml11_bool(std::string_view s, bool& v);
/// A YAML 1.2 core-schema boolean (true, True, TRUE and the negations): what
/// migplan's own formats accept, its value in `v`.
bool core_bool(std::string_view s, bool& v);

/// How a value's scalar reads: a quoted one is always a string; a plain one
/// is null (~, null), a boolean, an integer, a number or else a string.
/// Lists and maps read as strings here: ask node::kind first.
scalar_type type_of(const node& n);

/// A value as a message names it: empty, a list, a mapping, 'text', or
/// the string "text" for a quoted scalar.
std::string value_text(const node& n);

}  // namespace migplan::cli::doc

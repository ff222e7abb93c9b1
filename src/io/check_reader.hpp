// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the two readers of `migplan check` share (io/check_geometry.cpp for
// migplan geometry files, io/check_mig_parted.cpp for mig-parted configs):
// how a value of the document tree (document.hpp) reads, and a reader that
// walks a mapping's keys with merge keys resolved as mig-parted's YAML
// library resolves them, keeping every diagnostic with the config and entry
// it belongs to. Internal to src/io.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/check_input.hpp"
#include "io/document.hpp"
#include "model/check.hpp"

namespace migplan::cli::check::reading {

/// How a value reads. Both formats are read with YAML 1.1's plain-scalar
/// rules, because mig-parted reads its configs through go-yaml v2 (YAML 1.1),
/// which turns an unquoted 0x20B010DE into a number and `yes` into a boolean;
/// quoted scalars are always strings. JSON arrives here through the same YAML
/// parser (JSON is YAML flow style), so its strings are quoted and its
/// numbers plain.
enum class kind { null, string, integer, number, boolean, list, mapping };

/// What `n` is, as above.
kind kind_of(const doc::node& n);
/// "empty", "a string", "an integer", ...
std::string_view kind_name(kind k);
/// A plain decimal integer (what both formats accept for counts and indices).
bool decimal_int(const doc::node& n, long long& v);
/// Text from the file in quotes, clipped (clip()).
std::string q(std::string_view s);
/// A value as a message names it: '2', the string "true", a list.
std::string shown(const doc::node& n);
/// Where `n` starts; {} when unknown.
location at(const doc::node& n);

/// One key of a mapping and its value.
struct entry {
  std::string key;
  const doc::node* key_node = nullptr;
  const doc::node* value = nullptr;
  bool merged = false;  ///< brought in by a merge key
  location merge_at;    ///< that merge key, when merged
};

/// The reader of one file's tree: keeps its diagnostics in `out`.
class reader {
 public:
  /// Reads into `out`; `text` is the document's text, `to_file` maps its
  /// positions into the file (a config embedded in a manifest).
  reader(parsed_input& out, std::string_view text, const position_map& to_file)
      : out_(out), text_(text), to_file_(to_file) {}

 protected:
  /// The file's line of `l`, for the line numbers a message quotes.
  int file_line(location l) const { return to_file_ && l.line > 0 ? to_file_(l).line : l.line; }

  /// An error (malformed ones make the entry being read broken).
  void error(location where, std::string message, fault kind = fault::malformed);
  /// A warning.
  void warning(location where, std::string message);
  /// A note.
  void note(location where, std::string message);
  /// What is being read, for the diagnostics' config and entry fields.
  void reading(std::string config, int index = -1) {
    config_ = std::move(config);
    entry_ = index;
  }

  /// A mapping's entries in order, merge keys resolved (see check_reader.cpp).
  std::vector<entry> entries(const doc::node& map, bool dup_is_error, std::string_view what);

  /// Reports keys not in `allowed`, suggesting the nearest; returns the
  /// suggestions, so that a misspelt required key is reported once, as
  /// misspelt, rather than also as missing.
  std::vector<std::string> unknown_keys(const std::vector<entry>& es,
                                        std::span<const std::string_view> allowed,
                                        std::string_view what, std::string_view suffix);

  /// True when `v` holds `s`.
  static bool contains(const std::vector<std::string>& v, std::string_view s);
  /// The entry of `key`, or nullptr.
  static const entry* find(const std::vector<entry>& es, std::string_view key);
  /// Where a key's value is: the value itself, or the key when the value is empty.
  static location value_at(const entry& e) {
    return e.value->is_null() ? at(*e.key_node) : at(*e.value);
  }

  parsed_input& out_;
  std::size_t malformed_ = 0;  ///< malformed errors (schema, syntax) reported so far

 private:
  void push(severity s, fault k, location where, std::string message);
  void flatten(const doc::node& map, std::string_view what, std::vector<entry>& out,
               std::vector<const doc::node*>& open, std::optional<location> merge_at);
  void merge(const doc::node& value, std::string_view what, std::vector<entry>& out,
             std::vector<const doc::node*>& open, location merge_at);
  bool unresolved_alias(const doc::node& n) const;
  bool is_merge_key(const doc::node& k) const;

  std::string_view text_;
  position_map to_file_;
  std::string config_;
  int entry_ = -1;
};

/// Reads a migplan geometry file's tree (`version: 1`, `gpus:`) into `out`.
void read_geometry_file(parsed_input& out, const doc::node& root, std::string_view text,
                        const position_map& to_file);

/// True when `root` is a HAMi or Volcano device config with MIG templates
/// (a mapping whose `nvidia` holds `knownMigGeometries`).
bool is_hami_config(const doc::node& root);

/// Reads a HAMi or Volcano device config's `nvidia.knownMigGeometries` into
/// `out`: its entries into `out.table`, each geometry into `out.geometries`.
void read_hami_config(parsed_input& out, const doc::node& root, std::string_view text,
                      const position_map& to_file);

/// Reads a mig-parted config's tree (`version: v1`, `mig-configs:`) into `out`.
/// A profile name mig-parted rejects gets a did-you-mean among `models`'.
void read_mig_parted_config(model_list models, parsed_input& out, const doc::node& root,
                            std::string_view text, const position_map& to_file);

}  // namespace migplan::cli::check::reading

// SPDX-License-Identifier: Apache-2.0
#pragma once

// The readers of `migplan check`'s formats (check_geometry.cpp,
// check_mig_parted.cpp, check_hami.cpp; check_slices.cpp's too), which walk
// the document tree with the schema walker (schema.hpp) in mode::all, and
// what their messages share: a value shown by its YAML 1.1 kind, text quoted
// up to 64 characters, the cost of reading a file. Internal to src/io.

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "io/check_input.hpp"
#include "io/schema.hpp"
#include "model/check.hpp"

namespace migplan::cli::check::reading {

using doc::at;
using doc::field;
using doc::kind_text;
using doc::reads_as;
using doc::scalar_type;
using doc::value_at;

/// Text from the file in quotes, clipped as clip() clips it.
inline std::string q(std::string_view s) { return quote_token(s, 64); }

/// A plain decimal integer (what the formats accept for counts and indices).
inline bool decimal_int(const doc::node& n, long long& v) {
  if (!reads_as(n, scalar_type::integer)) return false;
  const std::string& s = n.text;
  const char* b = s.data() + (s[0] == '+' ? 1 : 0);
  auto [p, ec] = std::from_chars(b, s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

/// A value as a message names it: '2', the string "true", a list.
inline std::string shown(const doc::node& n) {
  if (n.quoted) return fmt::format("the string \"{}\"", clip(n.text));
  if (!n.is_scalar() || reads_as(n, scalar_type::null)) return std::string(kind_text(n));
  return q(n.text);
}

/// True when `v` holds `s`.
inline bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

/// What reading a file for check may cost: nesting as deep as yaml-cpp
/// itself reads (it refuses more first, in its own words), no more bytes
/// than the caller read (read_check_source bounds it), and the document
/// layer's alias budget: 4 values per byte of text plus 100,000, so that
/// aliases and merge keys cannot make a small file expand without bound.
inline doc::budget check_budget() {
  doc::budget limits;
  limits.bytes = std::numeric_limits<std::size_t>::max();
  limits.depth = 2'001;
  limits.reader = "migplan";  // mig-parted configs are read by check, plan and place
  return limits;
}

/// Reads a migplan geometry file's tree (`version: 1`, `gpus:`) into `out`;
/// `text` is the document's text, `to_file` maps its positions into the
/// file (a config embedded in a manifest).
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

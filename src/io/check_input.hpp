// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading the files `migplan check` validates: migplan's own geometry files
// (YAML or JSON, `version: 1`, `gpus:`) and NVIDIA mig-parted configs
// (`version: v1`, `mig-configs:`). This layer only reads and checks the
// schema, with a line and column for everything, through the document layer
// (document.hpp) and its schema walker (schema.hpp); resolving names against
// the catalog and checking feasibility is the checker's job (src/check/).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <migplan/lookup.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "error.hpp"
#include "model/check.hpp"

namespace migplan::cli::check {

/// The most `check` reads of one file (documented in migplan-check(1)). The
/// document tree takes tens of bytes of memory per byte of YAML (a 1.8 MB
/// config: 75 MB at the peak, where yaml-cpp's own nodes took 130 MB); NVIDIA's
/// default config (tests/fixtures/mig-parted) is 12 KB.
inline constexpr std::size_t max_check_bytes = std::size_t{16} << 20;

/// Every format `check` reads, as its messages list them after "not" (a
/// file of none of them named on the command line) or "skipped: not" (one
/// met in a directory scan).
inline constexpr std::string_view formats_read =
    "a migplan geometry file (version: 1, gpus: ...), a mig-parted config (version: v1, "
    "mig-configs: ...), a HAMi or Volcano device config (nvidia: knownMigGeometries: ...) or "
    "Kubernetes DRA ResourceSlices (kind: ResourceSlice)";

/// Reads one file for `check`, or all of `in` for "-", refusing more than
/// `limit` bytes without reading further (a regular file's size is looked at
/// first; a pipe or a device such as /dev/zero is read to limit + 1 bytes).
/// The error is the whole message: "cannot read file: No such file or
/// directory", "larger than 16 MiB, the most check reads of one file".
result<std::string> read_check_source(const std::string& path, std::istream& in,
                                      std::size_t limit = max_check_bytes);

/// Where a position of a text lies in the file it came from.
using position_map = std::function<location(location)>;

/// Reads `text` (JSON syntax is checked first when `json`): syntax, schema and
/// mig-parted's own parse-time rules. YAML merge keys ('<<') are resolved as
/// mig-parted's YAML reader resolves them. Positions are those of `text`;
/// the line numbers quoted inside messages ("first at line 4") go through
/// `to_file` when given (a config embedded in a manifest). A profile name
/// mig-parted rejects gets a did-you-mean among the profiles of `models`.
/// Never throws.
parsed_input parse_check_input(model_list models, std::string_view text, bool json,
                               const position_map& to_file = {});

/// How parse_yaml_or_manifest reads a Kubernetes manifest (mig_parted.cpp's
/// reader of the ConfigMaps in it).
using manifest_reader = std::function<parsed_input()>;

/// True when the first document of YAML `text` that is not empty is a
/// Kubernetes object (manifest::is_manifest, manifest.hpp), or is one as far
/// as it parses (read_manifest then reports the syntax error); reads no
/// further than that document. Never throws.
bool looks_like_manifest(std::string_view text);

/// parse_check_input() of YAML `text`, unless looks_like_manifest(text): then
/// `as_manifest()`. The text is parsed once up to that decision, which a
/// config then goes on from.
parsed_input parse_yaml_or_manifest(model_list models, std::string_view text,
                                    const manifest_reader& as_manifest);

/// Kubernetes DRA ResourceSlices (check_slices.cpp): a ResourceSlice, a
/// `kind: List` of them (kubectl get -o yaml|json) or a YAML stream of them,
/// resource.k8s.io/v1 or v1beta2, read into `slices`; nothing when the first
/// document that is not empty holds no ResourceSlice (then the text is some
/// other format). Never throws.
std::optional<parsed_input> read_resource_slices(std::string_view text, bool json);

/// Text from a file as a message quotes it: at most its first 64 characters,
/// then "...", so that a hostile value never comes back whole, with control
/// characters, invisible code points and invalid bytes escaped (clip_token).
std::string clip(std::string_view text);

/// The keys each mapping of the two formats accepts (for suggestions and docs).
inline constexpr std::string_view geometry_top_keys[] = {"version", "gpus", "comment"};
inline constexpr std::string_view geometry_entry_keys[] = {"model", "index", "name", "comment",
                                                           "instances"};
inline constexpr std::string_view mig_parted_top_keys[] = {"version", "mig-configs"};
inline constexpr std::string_view mig_parted_entry_keys[] = {"device-filter", "devices",
                                                             "mig-enabled", "mig-devices"};

/// Checks a mig-devices key the way mig-parted does before it touches a GPU
/// ([Cc.]Gg.MEMgb, then +attr or -attr, attributes alphanumeric or '.');
/// returns "" when valid, else why not.
std::string mig_profile_format_error(std::string_view name);

/// Reads a device-filter ID the way mig-parted does ("0x20B010DE", decimal,
/// an optional ":SUBSYSTEM" part); false when it cannot.
bool parse_filter_id(std::string_view text, std::uint32_t& out);

}  // namespace migplan::cli::check

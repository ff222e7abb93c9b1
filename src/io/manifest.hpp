// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading Kubernetes manifests for `migplan check`. The NVIDIA GPU Operator
// takes a custom mig-parted config as a ConfigMap whose data key `config.yaml`
// holds the config as a string: its mig-manager daemonset mounts the ConfigMap
// at /mig-parted-config and reads CONFIG_FILE=/mig-parted-config/config.yaml,
// so no other key is read. HAMi's scheduler (ConfigMap hami-scheduler-device)
// and Volcano's vGPU plugin (volcano-vgpu-device-config) read their device
// config, MIG templates included, from the key `device-config.yaml`; a
// ConfigMap without `config.yaml` is read for that key instead. This layer
// finds those strings in a stream of YAML
// documents and says where each character of one lies in the file, so that
// the config's diagnostics point into the manifest; reading the config itself
// is check_input's job.
//
// Read: ConfigMaps at the top of a document, and the items of a `kind: List`
// (or any kind ending in "List", as kubectl prints them). Not read: merge
// keys ('<<') inside a ConfigMap, `binaryData`, Helm templates (`{{ ... }}`
// is not YAML: a syntax error like any other).

#include <string>
#include <string_view>
#include <vector>

#include "model/check.hpp"

namespace migplan::cli::doc {
struct node;
}

namespace migplan::cli::check {

/// The most YAML documents read_manifest reads of one file.
inline constexpr int max_manifest_documents = 10'000;

/// One mig-parted config embedded in a manifest: a ConfigMap's data["config.yaml"].
struct embedded_config {
  /// A run of `text` copied unchanged from one line of the file.
  struct span {
    location at;       ///< where the run starts in `text`
    location file_at;  ///< where it starts in the file
    int file_end = 0;  ///< that file line's last column + 1 (its length without "\r\n", + 1)
  };

  std::string configmap;  ///< metadata.name ("" when absent)
  /// The data key it is under: "config.yaml" (a mig-parted config, as the GPU
  /// Operator reads it) or "device-config.yaml" (a HAMi or Volcano device
  /// config, as hami-scheduler-device and volcano-vgpu-device-config hold it).
  std::string key = "config.yaml";
  int document = 0;  ///< 0-based index of the YAML document in the file
  std::string text;  ///< the value, exactly as YAML reads it ("" for a null value)
  location key_at;   ///< the `config.yaml` key in the file
  /// How `text` lies in the file, in order; empty when it cannot be traced.
  std::vector<span> spans;

  /// Where a position in `text` (1-based, as check_input reports it) lies in
  /// the file. A value's characters other than white space appear in the file
  /// unchanged and in order when it is a block scalar (`|`, `|-`, `>+`, `|2`:
  /// indentation, folding and chomping change only white space), or a plain or
  /// quoted scalar without escapes; then each such character maps to itself
  /// in the file, and white space or a column past a line's end maps beside
  /// the nearest one on its line (a line of white space only: its file line
  /// in a literal block, near it in a folded one, column 1). Such a result is
  /// always inside the file. Otherwise (escapes, as in a JSON manifest), and
  /// for line 0 (unknown), everything maps to key_at.
  location map(location inside) const;
};

/// What a stream of YAML documents holds for `check`.
struct manifest {
  /// The first document that is not empty is a Kubernetes object: a mapping
  /// whose 'apiVersion' and 'kind' are scalars that are not empty (the rule
  /// looks_like_manifest applies). Documents read after it that are not
  /// Kubernetes objects are skipped with one warning.
  bool is_manifest = false;
  std::vector<embedded_config> configs;  ///< ConfigMaps with data["config.yaml"], in file order
  /// In file order: YAML syntax errors (reading stops there; `configs` keeps
  /// what came before), a `config.yaml` that is a list or mapping (error), a
  /// duplicate `config.yaml` (warning; the last is read), documents that are
  /// not Kubernetes objects (one warning), a ConfigMap without `config.yaml`
  /// but with another key holding a mig-parted config (a note at that key),
  /// more than max_manifest_documents documents (error).
  std::vector<diagnostic> diagnostics;
  /// Kubernetes objects read that are not ConfigMaps with `config.yaml` (each
  /// item of a List counts, the List itself does not); no diagnostic names them.
  int skipped = 0;
};

/// Reads `text` as a stream of YAML documents (JSON is YAML too) through the
/// document layer. Never throws; the work is linear in the size of `text`:
/// aliases are copied, at most 4 values per byte of text plus 100,000 in all
/// (as every file check reads), and one error stops the reading past that.
manifest read_manifest(std::string_view text);

/// A Kubernetes object: a mapping whose 'apiVersion' and 'kind' are scalars
/// that are not empty.
bool is_kubernetes_object(const doc::node& n);

/// Moves each diagnostic found in `config.text` to the file (`at` through config.map).
void map_diagnostics(std::vector<diagnostic>& diagnostics, const embedded_config& config);

/// Moves every location of a parsed_input read from `config.text` to the file:
/// its diagnostics (map_diagnostics) and each geometry's, item's and device
/// filter's positions (those unknown, meaning absent, stay unknown).
void map_input(parsed_input& input, const embedded_config& config);

}  // namespace migplan::cli::check

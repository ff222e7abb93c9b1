// SPDX-License-Identifier: Apache-2.0
#pragma once

// Model files: a GPU model written as JSON (schema/model.schema.json), by hand
// or by `migplan import`, loaded at run time with --gpu-file. A model file
// gets the checks the built-in catalog gets from data/gen_catalog.py and
// catalog.hpp's static_asserts, and a few more a hand-written file needs
// (names and IDs that must not collide with a known model's). Every error is
// one message naming the file and the line: "FILE:LINE: ...", or
// "FILE:LINE:COLUMN: invalid json: ..." for a syntax error.

#include <cstddef>
#include <memory>
#include <migplan/gpu.hpp>
#include <migplan/lookup.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "model/model_spec.hpp"

namespace migplan::cli {

/// The most bytes a model file may hold (a 16-profile model is about 10 KB).
inline constexpr std::size_t max_model_file_bytes = std::size_t{1} << 20;

/// Longest slug, profile name and other string of a model file, in bytes.
inline constexpr std::size_t max_slug_length = 64;
inline constexpr std::size_t max_profile_name_length = 32;  ///< see max_slug_length
inline constexpr std::size_t max_text_length = 1000;        ///< see max_slug_length

/// The N of a profile name written as nvidia-smi prints it, <N>g.<M>gb then
/// at most one +attr or -attr of lower-case words joined by '.' (1g.10gb,
/// 1g.24gb+me.all, 2g.48gb-me): the pattern of schema/common.schema.json's
/// profile_name. 0 when the name is not of that form.
int profile_name_slices(std::string_view name);

/// A model read from a model file. It owns every string and table its
/// gpu_model points into, so it is neither copied nor moved: keep it (in a
/// unique_ptr) as long as anything uses the model.
class loaded_model {
 public:
  /// `spec` must have passed check_model_spec(); `file` names it ("models/x.json").
  loaded_model(model_spec spec, std::string file);
  loaded_model(const loaded_model&) = delete;
  loaded_model& operator=(const loaded_model&) = delete;

  const gpu_model& model() const noexcept { return model_; }  ///< the model, for the core
  const model_spec& spec() const noexcept { return spec_; }   ///< as the file gives it
  const std::string& file() const noexcept { return file_; }  ///< where it was read from

 private:
  model_spec spec_;
  std::string file_;
  std::string coverage_note_;
  std::vector<std::string_view> smi_names_;
  std::vector<profile> profiles_;
  gpu_model model_;
};

/// Where a problem check_model_spec() finds lies in the spec.
struct spec_problem {
  int profile = -1;      ///< index in `profiles`, or -1 for the model itself
  std::string_view key;  ///< the member at fault ("starts"), or empty for the whole object
  int element = -1;      ///< index in that member's list, or -1 for the whole member
  std::string message;   ///< what is wrong, naming the profile where there is one
};

/// The first problem of `spec`, or nothing when it is a model migplan can plan
/// on: the slug ([a-z0-9] words joined by '-', at most 64 bytes) and its
/// nvidia-smi names and PCI IDs belong to no model of `taken`; 1 to 16 units,
/// 1 to `units` compute slices, 1 to 16 profiles with distinct names (ignoring
/// case) and IDs, every start inside the units with room for the size, caps
/// that fit the starts, the units and the compute slices, a full-GPU profile,
/// at most 64 placements.
std::optional<spec_problem> check_model_spec(const model_spec& spec, model_list taken);

/// Reads a model file's text: JSON syntax, the schema (unknown keys with the
/// nearest known one, types, ranges) and check_model_spec(). `shown` names the
/// file in messages.
result<model_spec> parse_model_file(std::string_view text, std::string_view shown,
                                    model_list taken);

/// Reads the model file at `path` (at most max_model_file_bytes) and loads it.
result<std::unique_ptr<loaded_model>> load_model_file(const std::string& path, model_list taken);

}  // namespace migplan::cli

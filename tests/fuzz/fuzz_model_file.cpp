// SPDX-License-Identifier: Apache-2.0
// Fuzz target: any text as a model file (--gpu-file), and, split at its first
// NUL byte, as the -lgip and -lgipp captures `migplan import` reads. The
// readers must report, never throw or crash; an error names the file and a
// line the text has; a model they accept keeps the core's limits, has a full
// profile that fits alone, and reads back unchanged from the JSON import writes.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <migplan/gpu.hpp>
#include <migplan/search.hpp>
#include <string>
#include <string_view>

#include "io/import.hpp"
#include "io/model_file.hpp"
#include "models.hpp"
#include "render/import.hpp"

namespace {

using namespace migplan;
using namespace migplan::cli;

void require(bool ok) {
  if (!ok) std::abort();
}

int line_count(std::string_view text) {
  int n = 1;
  for (char c : text) n += c == '\n';
  return n;
}

// A model migplan accepted: within the core's fixed-size tables, and plannable.
void check_model(const model_spec& spec) {
  const loaded_model loaded(spec, "fuzz.json");
  const gpu_model& m = loaded.model();
  require(m.units >= 1 && m.units <= max_units);
  require(m.compute_slices >= 1 && m.compute_slices <= m.units);
  require(!m.profiles.empty() && m.profiles.size() <= static_cast<std::size_t>(max_profiles));
  require(placement_count(m) <= max_placements);
  const int full = full_profile(m);
  require(full >= 0);
  const item alone[] = {{full}};
  require(solve(m, alone).layout_count == 1);
  // What import would write reads back as the same model.
  const std::string json = render::model_json(spec);
  const auto back = parse_model_file(json, "back.json", builtin_models());
  require(back.has_value());
  require(render::model_json(*back) == json);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const auto model = parse_model_file(text, "fuzz.json", builtin_models());
  if (model) {
    check_model(*model);
  } else {
    const std::string& m = model.error().message;
    require(m.starts_with("fuzz.json:"));
    const char* after = m.c_str() + 10;
    if (*after >= '0' && *after <= '9') {
      const int line = std::atoi(after);
      require(line >= 1 && line <= line_count(text));
    }
  }

  const std::size_t nul = text.find('\0');
  if (nul != std::string_view::npos) {
    const capture_text lgip{"lgip.txt", "lgip.txt", std::string(text.substr(0, nul))};
    const capture_text lgipp{"lgipp.txt", "lgipp.txt", std::string(text.substr(nul + 1))};
    import_settings settings;
    settings.slug = "fuzzed";
    const auto spec = import_model(lgip, lgipp, settings);
    if (spec) {
      for (const profile_spec& p : spec->profiles) require(!p.starts.empty());
      if (!check_model_spec(*spec, builtin_models())) check_model(*spec);
    } else {
      const std::string& m = spec.error().message;
      require(m.starts_with("lgip.txt") || m.starts_with("lgipp.txt"));
    }
  }
  return 0;
}

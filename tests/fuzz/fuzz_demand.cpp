// SPDX-License-Identifier: Apache-2.0
// Fuzz target: a demand file for `migplan plan` (YAML, JSON and CSV), the
// first line as a command-line demand item, and the text as a fleet file.
// The readers must report, never throw or crash, and what they accept must
// keep their promises: counts in range, a profile of some model or a memory
// need, unique names, nodes with a model and a GPU count.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <migplan/catalog.hpp>
#include <set>
#include <string>
#include <string_view>

#include "io/plan_input.hpp"
#include "io/size.hpp"
#include "models.hpp"

namespace {

using namespace migplan;
using namespace migplan::cli;

void require(bool ok) {
  if (!ok) std::abort();
}

bool some_model_has(std::string_view name) {
  for (const gpu_model& g : catalog())
    if (find_profile(g, name) >= 0) return true;
  return false;
}

void check_item(const demand_item& d) {
  require(d.count >= 1 && d.count <= max_demand_count);
  require(!d.name.empty());
  require(d.profile.empty() != !d.memory_mib.has_value());
  if (!d.profile.empty()) {
    require(some_model_has(d.profile));
    require(!d.compute_slices && !d.sms);
  } else {
    require(*d.memory_mib > 0 && *d.memory_mib <= max_size_mib);
    require(!d.compute_slices ||
            (*d.compute_slices >= 1 && *d.compute_slices <= max_demand_slices));
    require(!d.sms || (*d.sms >= 1 && *d.sms <= max_demand_sms));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const plan_file_format f :
       {plan_file_format::yaml, plan_file_format::json, plan_file_format::csv}) {
    const auto d = parse_demand(builtin_models(), text, "fuzz", f);
    if (!d) {
      require(d.error().message.starts_with("fuzz"));
      continue;
    }
    require(!d->empty() && d->size() <= max_demand_items);
    std::set<std::string> names;
    for (const demand_item& item : *d) {
      check_item(item);
      require(item.where.starts_with("fuzz:"));
      require(names.insert(item.name).second);
    }
  }
  const std::string_view word = text.substr(0, std::min<std::size_t>(text.find('\n'), 300));
  if (const auto w = parse_demand_word(builtin_models(), word)) check_item(*w);
  (void)plan_format_of("-", text);
  for (const bool json : {false, true}) {
    const auto f = parse_fleet(builtin_models(), text, "fuzz", json);
    if (!f) continue;
    require(!f->models.empty() || !f->nodes.empty());
    std::set<std::string> nodes;
    for (const fleet_node& n : f->nodes) {
      require(n.gpu != nullptr && n.gpu_count >= 1 && n.gpu_count <= max_node_gpus);
      require(nodes.insert(n.name).second);
    }
    for (const fleet_model& m : f->models) {
      require(m.gpu != nullptr && m.cost > 0 && m.cost <= max_model_cost);
      require(!m.available || (*m.available >= 0 && *m.available <= max_model_available));
    }
  }
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
#include "render/import.hpp"

#include <fmt/format.h>

#include <sstream>
#include <string_view>

#include "render/json.hpp"

namespace migplan::cli::render {
namespace {

// Engine keys of a model file, in `engine` order (CE, DEC, ENC, JPG, OFA).
constexpr std::string_view engine_keys[engine_kinds] = {"ce", "dec", "enc", "jpg", "ofa"};

void write_profile_spec(json_writer& w, const profile_spec& p) {
  w.begin_object().key("name").value(p.name).key("id").value(p.id);
  w.key("compute_slices").value(p.compute_slices).key("size").value(p.size);
  w.key("starts").begin_array();
  for (int s : p.starts) w.value(s);
  w.end_array();
  w.key("max_instances").value(p.max_instances);
  w.key("memory_gib").hundredths(p.memory_gib_x100).key("sm_count").value(p.sm_count);
  w.key("engines").begin_object();
  for (std::size_t k = 0; k < engine_kinds; ++k) {
    w.key(engine_keys[k]);
    if (p.engines[k])
      w.value(static_cast<int>(*p.engines[k]));
    else
      w.null();
  }
  w.end_object();
  if (p.min_driver.empty())
    w.key("min_driver").null();
  else
    w.key("min_driver").value(p.min_driver);
  w.key("source").value(p.source).key("placements_source").value(p.placements_source);
  w.key("inferred").begin_array();
  for (std::string_view f : inferred_field_names(p.inferred)) w.value(f);
  w.end_array();
  w.key("notes").value(p.notes).end_object();
}

}  // namespace

std::string model_json(const model_spec& spec) {
  std::ostringstream os;
  write_document(os, [&](json_writer& w) {
    w.key("slug").value(spec.slug).key("description").value(spec.description);
    w.key("smi_names").begin_array();
    for (const std::string& n : spec.smi_names) w.value(n);
    w.end_array().key("pci_ids").begin_array();
    for (const pci_id& id : spec.pci_ids) {
      w.begin_object().key("id").value(fmt::format("0x{:08X}", id.value));
      w.key("inferred").value(id.inferred).end_object();
    }
    w.end_array();
    w.key("memory_mib").value(spec.memory_mib).key("units").value(spec.units);
    w.key("compute_slices").value(spec.compute_slices).key("source").value(spec.source);
    w.key("profiles").begin_array();
    for (const profile_spec& p : spec.profiles) write_profile_spec(w, p);
    w.end_array();
  });
  return os.str();
}

}  // namespace migplan::cli::render

// SPDX-License-Identifier: Apache-2.0
#pragma once

// JSON fragments that several commands' documents share (a layout, a reason,
// a profile row), written with the one json_writer. Every document carries
// "schema_version": json_schema_version first; keys keep a stable order.

#include <functional>
#include <migplan/capacity.hpp>
#include <migplan/explain.hpp>
#include <migplan/gpu.hpp>
#include <migplan/search.hpp>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/layout_capacity.hpp"
#include "render/json_writer.hpp"

namespace migplan::cli {

/// Writes one indented document to `os`: an object whose first member is
/// "schema_version" (`version`), then the members `body(w)` writes, then a newline.
template <class F>
void write_document(std::ostream& os, int version, F&& body) {
  std::string out;
  json_writer w(out, 2);
  w.begin_object().key("schema_version").value(version);
  body(w);
  w.end_object();
  out += '\n';
  os << out;
}

/// write_document() at json_schema_version.
template <class F>
void write_document(std::ostream& os, F&& body) {
  write_document(os, json_schema_version, std::forward<F>(body));
}

/// [0, 3]: the units of a mask.
void write_units(json_writer& w, unit_mask m);
/// {"id": slug, "name": display name}.
void write_gpu(json_writer& w, const gpu_model& gpu);
/// Writes further members into the object of the layout's i-th instance (by start).
using instance_extra = std::function<void(json_writer&, int)>;
/// [{"profile","profile_id","start","size"}] by start, each with what `extra` adds.
void write_instances(json_writer& w, const gpu_model& gpu, const layout& l,
                     const instance_extra& extra = {});
/// A layout: instances, free units and compute, score, and its spare capacity
/// (stranded and addable, as the service worked them out).
void write_layout(json_writer& w, const gpu_model& gpu, const scored_layout& sl,
                  const layout_capacity& cap, const instance_extra& extra = {});
/// {"units","compute_slices","memory_gib"} of stranded capacity.
void write_stranded(json_writer& w, const stranded& st);
/// null, or {"code","message","profiles"}.
void write_reason(json_writer& w, const gpu_model& gpu, const reason& why,
                  std::span<const item> items = {});
/// [{"drop": [...items], "layout": layout}]; `caps` parallel to `closest`.
void write_closest(json_writer& w, const gpu_model& gpu, std::span<const closest_fit> closest,
                   std::span<const layout_capacity> caps);
/// A profile row as `migplan profiles --json` prints it, with what `extra` adds last.
void write_profile(json_writer& w, const profile& p,
                   const std::function<void(json_writer&)>& extra = {});

/// The model's first driver with MIG: "min_driver" ("R450") and "min_driver_version"
/// ("450.80.02"), each null when unknown.
void write_min_driver(json_writer& w, const gpu_model& gpu);

/// Names of the inferred fields in a flag set ("id", "placements", ...).
std::vector<std::string_view> inferred_field_names(field f);

}  // namespace migplan::cli

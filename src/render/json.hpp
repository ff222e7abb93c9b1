// SPDX-License-Identifier: Apache-2.0
#pragma once

// JSON building blocks shared by the commands. Every document carries
// "schema_version": 1; keys keep a stable order (ordered_json).

#include <migplan/capacity.hpp>
#include <migplan/explain.hpp>
#include <migplan/gpu.hpp>
#include <migplan/search.hpp>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>
#include <vector>

#include "render/json_writer.hpp"

namespace migplan::cli {

using ojson = nlohmann::ordered_json;

/// Version of every JSON document migplan writes.
inline constexpr int json_schema_version = 1;

/// Writers for the hot path; the ojson functions below give the same JSON as trees.
void write_units(json_writer& w, unit_mask m);  ///< [0, 3]
void write_instances(json_writer& w, const gpu_model& gpu,
                     const layout& l);  ///< see instances_json
void write_layout(json_writer& w, const gpu_model& gpu,
                  const scored_layout& sl);                                  ///< see layout_json
void write_reason(json_writer& w, const gpu_model& gpu, const reason& why);  ///< see reason_json
void write_closest(json_writer& w, const gpu_model& gpu,
                   std::span<const closest_fit> closest);  ///< see closest_json

/// {"id": slug, "name": display name}.
ojson gpu_json(const gpu_model& gpu);

/// Start units of a mask as a JSON array.
ojson units_json(unit_mask m);

/// [{"profile","profile_id","start","size"}] by start.
ojson instances_json(const gpu_model& gpu, const layout& l);

/// A layout: instances, free_units, score, stranded and addable.
ojson layout_json(const gpu_model& gpu, const scored_layout& sl);

/// null, or {"code","message","profiles"}.
ojson reason_json(const gpu_model& gpu, const reason& why);

/// [{"drop": [...names], "layout": layout_json}].
ojson closest_json(const gpu_model& gpu, std::span<const closest_fit> closest);

/// Expanded profile names of a request.
ojson request_json(const gpu_model& gpu, std::span<const item> items);

/// Pinned starts of a request, null where unpinned (parallel to request_json).
ojson request_starts_json(std::span<const item> items);

/// Names of the inferred fields in a flag set ("id", "placements", ...).
std::vector<std::string_view> inferred_field_names(field f);

/// A profile row as `migplan profiles --json` prints it.
ojson profile_json(const profile& p);

}  // namespace migplan::cli

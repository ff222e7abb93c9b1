// SPDX-License-Identifier: Apache-2.0
#include "render/json.hpp"

#include <migplan/detail/strings.hpp>
#include <optional>
#include <string_view>

#include "messages.hpp"

namespace migplan::cli {

std::vector<std::string_view> inferred_field_names(field f) {
  static constexpr std::pair<field, std::string_view> names[] = {
      {field::id, "id"},
      {field::sm_count, "sm_count"},
      {field::memory, "memory"},
      {field::engines, "engines"},
      {field::ce, "ce"},
      {field::max_instances, "max_instances"},
      {field::placements, "placements"},
      {field::default_ci, "default"}};
  std::vector<std::string_view> out;
  for (const auto& [flag, name] : names)
    if (has(f, flag)) out.push_back(name);
  return out;
}

void write_units(json_writer& w, unit_mask m) {
  w.begin_array();
  for (int u = 0; u < max_units; ++u)
    if ((m >> u) & 1u) w.value(u);
  w.end_array();
}

void write_gpu(json_writer& w, const gpu_model& gpu) {
  // `name` is one --gpu accepts (an nvidia-smi name) or null; `description` is prose.
  const std::optional<std::string_view> name =
      gpu.name().empty() ? std::nullopt : std::optional(gpu.name());
  w.begin_object().key("id").value(gpu.slug).key("name").value(name);
  w.key("description").value(gpu.description).end_object();
}

void write_instances(json_writer& w, const gpu_model& gpu, const layout& l,
                     const instance_extra& extra) {
  w.begin_array();
  for (int i = 0; i < l.size(); ++i) {
    const instance& in = l[i];
    const profile& p = gpu.profiles[static_cast<std::size_t>(in.profile)];
    w.begin_object().key("profile").value(p.name).key("profile_id").value(p.id);
    w.key("start").value(in.start).key("size").value(p.size);
    if (extra) extra(w, i);
    w.end_object();
  }
  w.end_array();
}

void write_stranded(json_writer& w, const stranded& st) {
  w.begin_object();
  w.key("units").value(st.units).key("compute_slices").value(st.compute_slices);
  w.key("memory_gib").hundredths(st.memory_gib_x100);
  w.end_object();
}

void write_layout(json_writer& w, const gpu_model& gpu, const scored_layout& sl,
                  const layout_capacity& cap, const instance_extra& extra) {
  w.begin_object();
  w.key("instances");
  write_instances(w, gpu, sl.where, extra);
  w.key("free_units");
  write_units(w, sl.left.free_mask);
  w.key("free_compute_slices").value(sl.left.free_compute);
  w.key("score").begin_object();
  w.key("reachable_units").value(sl.rank.reachable_units);
  w.key("reachable_compute_slices").value(sl.rank.reachable_compute);
  w.key("extensions").value(sl.rank.extensions);
  w.end_object();
  w.key("stranded");
  write_stranded(w, cap.strands);
  w.key("addable").begin_array();
  for (const addable& a : cap.can_add) {
    w.begin_object().key("profile").value(gpu.profiles[static_cast<std::size_t>(a.profile)].name);
    w.key("starts");
    write_units(w, a.starts);
    w.key("max_more").value(a.max_more).end_object();
  }
  w.end_array();
  w.end_object();
}

void write_reason(json_writer& w, const gpu_model& gpu, const reason& why,
                  std::span<const item> items) {
  if (why.code == reason_code::none) {
    w.null();
    return;
  }
  w.begin_object().key("code").value(reason_name(why.code));
  w.key("message").value(describe(gpu, why, items));
  w.key("profiles").begin_array();
  for (int p : why.profiles) w.value(gpu.profiles[static_cast<std::size_t>(p)].name);
  w.end_array().end_object();
}

void write_closest(json_writer& w, const gpu_model& gpu, std::span<const closest_fit> closest,
                   std::span<const layout_capacity> caps) {
  w.begin_array();
  for (std::size_t i = 0; i < closest.size(); ++i) {
    const closest_fit& c = closest[i];
    w.begin_object().key("drop").begin_array();
    for (const item& it : c.drop) w.value(item_text(gpu, it));
    w.end_array().key("layout");
    write_layout(w, gpu, c.where, caps[i]);
    w.end_object();
  }
  w.end_array();
}

void write_min_driver(json_writer& w, const gpu_model& gpu) {
  const auto known = [](std::string_view s) {
    return s.empty() ? std::nullopt : std::optional<std::string_view>(s);
  };
  w.key("min_driver").value(known(gpu.min_driver));
  w.key("min_driver_version").value(known(gpu.min_driver_version));
}

void write_profile(json_writer& w, const profile& p,
                   const std::function<void(json_writer&)>& extra) {
  w.begin_object();
  w.key("name").value(p.name).key("id").value(p.id);
  w.key("compute_slices").value(p.compute_slices).key("size").value(p.size);
  w.key("starts");
  write_units(w, p.starts);
  w.key("max_instances").value(p.max_instances);
  w.key("memory_gib").hundredths(p.memory_gib_x100);
  w.key("sm_count").value(p.sm_count);
  w.key("engines").begin_object();
  for (std::size_t e = 0; e < engine_kinds; ++e) {
    // Keys are the -lgip column names in lower case: "ce", "dec", ...
    std::string key(engine_names[e]);
    for (char& c : key) c = detail::ascii_lower(c);
    w.key(key);
    if (p.engines[e])
      w.value(static_cast<int>(*p.engines[e]));
    else
      w.null();
  }
  w.end_object();
  w.key("min_driver");
  if (p.min_driver.empty())
    w.null();
  else
    w.value(p.min_driver);
  w.key("inferred").begin_array();
  for (std::string_view f : inferred_field_names(p.prov.inferred)) w.value(f);
  w.end_array();
  w.key("source").value(p.prov.source).key("placements_source").value(p.prov.placements_source);
  if (extra) extra(w);
  w.end_object();
}

}  // namespace migplan::cli

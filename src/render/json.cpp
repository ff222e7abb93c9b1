// SPDX-License-Identifier: Apache-2.0
#include "render/json.hpp"

#include "render/messages.hpp"
#include "render/style.hpp"

namespace migplan::cli {
namespace {

template <class T>
ojson opt(const std::optional<T>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

ojson inferred_fields(field f) {
  ojson out = ojson::array();
  const std::pair<field, const char*> names[] = {{field::id, "id"},
                                                 {field::sm_count, "sm_count"},
                                                 {field::memory, "memory"},
                                                 {field::engines, "engines"},
                                                 {field::ce, "ce"},
                                                 {field::max_instances, "max_instances"},
                                                 {field::placements, "placements"}};
  for (const auto& [flag, name] : names)
    if (has(f, flag)) out.push_back(name);
  return out;
}

}  // namespace

ojson gpu_json(const gpu_model& gpu) { return ojson{{"id", gpu.slug}, {"name", gpu.display_name}}; }

ojson units_json(unit_mask m) {
  ojson out = ojson::array();
  for (int u = 0; u < max_units; ++u)
    if ((m >> u) & 1u) out.push_back(u);
  return out;
}

ojson instances_json(const gpu_model& gpu, const layout& l) {
  ojson out = ojson::array();
  for (const instance& in : l) {
    const profile& p = gpu.profiles[static_cast<std::size_t>(in.profile)];
    out.push_back(
        {{"profile", p.name}, {"profile_id", p.id}, {"start", in.start}, {"size", p.size}});
  }
  return out;
}

ojson layout_json(const gpu_model& gpu, const scored_layout& sl) {
  const stranded st = stranded_of(gpu, sl.left);
  ojson add = ojson::array();
  for (const addable& a : addable_to(gpu, rules(gpu), sl.where))
    add.push_back({{"profile", gpu.profiles[static_cast<std::size_t>(a.profile)].name},
                   {"starts", units_json(a.starts)},
                   {"max_more", a.max_more}});
  return ojson{{"instances", instances_json(gpu, sl.where)},
               {"free_units", units_json(sl.left.free_mask)},
               {"free_compute_slices", sl.left.free_compute},
               {"score",
                {{"reachable_units", sl.rank.reachable_units},
                 {"reachable_compute_slices", sl.rank.reachable_compute},
                 {"extensions", sl.rank.extensions}}},
               {"stranded",
                {{"units", st.units},
                 {"compute_slices", st.compute_slices},
                 {"memory_gib",
                  st.memory_gib_x100 ? ojson(gib_value(*st.memory_gib_x100)) : ojson(nullptr)}}},
               {"addable", add}};
}

ojson reason_json(const gpu_model& gpu, const reason& why) {
  if (why.code == reason_code::none) return nullptr;
  ojson profiles = ojson::array();
  for (int p : why.profiles) profiles.push_back(gpu.profiles[static_cast<std::size_t>(p)].name);
  return ojson{
      {"code", reason_name(why.code)}, {"message", describe(gpu, why)}, {"profiles", profiles}};
}

ojson closest_json(const gpu_model& gpu, std::span<const closest_fit> closest) {
  ojson out = ojson::array();
  for (const closest_fit& c : closest) {
    ojson drop = ojson::array();
    for (const item& it : c.drop) drop.push_back(item_text(gpu, it));
    out.push_back({{"drop", drop}, {"layout", layout_json(gpu, c.where)}});
  }
  return out;
}

ojson request_json(const gpu_model& gpu, std::span<const item> items) {
  ojson out = ojson::array();
  for (const item& it : items)
    out.push_back(gpu.profiles[static_cast<std::size_t>(it.profile)].name);
  return out;
}

ojson request_starts_json(std::span<const item> items) {
  ojson out = ojson::array();
  for (const item& it : items)
    out.push_back(it.start == item::any_start ? ojson(nullptr) : ojson(it.start));
  return out;
}

ojson profile_json(const gpu_model& gpu, const profile& p) {
  (void)gpu;
  ojson eng = ojson::object();
  for (std::size_t e = 0; e < engine_kinds; ++e) {
    std::string key(engine_names[e]);
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    eng[key] = p.engines[e] ? ojson(*p.engines[e]) : ojson(nullptr);
  }
  return ojson{
      {"name", p.name},
      {"id", p.id},
      {"compute_slices", p.compute_slices},
      {"size", p.size},
      {"starts", units_json(p.starts)},
      {"max_instances", p.max_instances},
      {"memory_gib", p.memory_gib_x100 ? ojson(gib_value(*p.memory_gib_x100)) : ojson(nullptr)},
      {"sm_count", opt(p.sm_count)},
      {"engines", eng},
      {"min_driver", p.min_driver.empty() ? ojson(nullptr) : ojson(p.min_driver)},
      {"inferred", inferred_fields(p.prov.inferred)},
      {"source", p.prov.source},
      {"placements_source", p.prov.placements_source}};
}

}  // namespace migplan::cli

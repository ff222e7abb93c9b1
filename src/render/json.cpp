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

}  // namespace

std::vector<std::string_view> inferred_field_names(field f) {
  static constexpr std::pair<field, std::string_view> names[] = {
      {field::id, "id"},
      {field::sm_count, "sm_count"},
      {field::memory, "memory"},
      {field::engines, "engines"},
      {field::ce, "ce"},
      {field::max_instances, "max_instances"},
      {field::placements, "placements"}};
  std::vector<std::string_view> out;
  for (const auto& [flag, name] : names)
    if (has(f, flag)) out.push_back(name);
  return out;
}

ojson gpu_json(const gpu_model& gpu) { return ojson{{"id", gpu.slug}, {"name", gpu.display_name}}; }

ojson units_json(unit_mask m) {
  ojson out = ojson::array();
  for (int u = 0; u < max_units; ++u)
    if ((m >> u) & 1u) out.push_back(u);
  return out;
}

void write_units(json_writer& w, unit_mask m) {
  w.begin_array();
  for (int u = 0; u < max_units; ++u)
    if ((m >> u) & 1u) w.value(u);
  w.end_array();
}

void write_instances(json_writer& w, const gpu_model& gpu, const layout& l) {
  w.begin_array();
  for (const instance& in : l) {
    const profile& p = gpu.profiles[static_cast<std::size_t>(in.profile)];
    w.begin_object().key("profile").value(p.name).key("profile_id").value(p.id);
    w.key("start").value(in.start).key("size").value(p.size).end_object();
  }
  w.end_array();
}

void write_layout(json_writer& w, const gpu_model& gpu, const scored_layout& sl) {
  const stranded st = stranded_of(gpu, sl.left);
  w.begin_object();
  w.key("instances");
  write_instances(w, gpu, sl.where);
  w.key("free_units");
  write_units(w, sl.left.free_mask);
  w.key("free_compute_slices").value(sl.left.free_compute);
  w.key("score").begin_object();
  w.key("reachable_units").value(sl.rank.reachable_units);
  w.key("reachable_compute_slices").value(sl.rank.reachable_compute);
  w.key("extensions").value(static_cast<unsigned long long>(sl.rank.extensions));
  w.end_object();
  w.key("stranded").begin_object();
  w.key("units").value(st.units).key("compute_slices").value(st.compute_slices);
  w.key("memory_gib");
  if (st.memory_gib_x100)
    w.hundredths(*st.memory_gib_x100);
  else
    w.null();
  w.end_object();
  w.key("addable").begin_array();
  for (const addable& a : addable_to(gpu, rules(gpu), sl.where)) {
    w.begin_object().key("profile").value(gpu.profiles[static_cast<std::size_t>(a.profile)].name);
    w.key("starts");
    write_units(w, a.starts);
    w.key("max_more").value(a.max_more).end_object();
  }
  w.end_array();
  w.end_object();
}

void write_reason(json_writer& w, const gpu_model& gpu, const reason& why) {
  if (why.code == reason_code::none) {
    w.null();
    return;
  }
  w.begin_object().key("code").value(reason_name(why.code));
  w.key("message").value(describe(gpu, why));
  w.key("profiles").begin_array();
  for (int p : why.profiles) w.value(gpu.profiles[static_cast<std::size_t>(p)].name);
  w.end_array().end_object();
}

void write_closest(json_writer& w, const gpu_model& gpu, std::span<const closest_fit> closest) {
  w.begin_array();
  for (const closest_fit& c : closest) {
    w.begin_object().key("drop").begin_array();
    for (const item& it : c.drop) w.value(item_text(gpu, it));
    w.end_array().key("layout");
    write_layout(w, gpu, c.where);
    w.end_object();
  }
  w.end_array();
}

namespace {
template <class F>
ojson via_writer(F&& f) {
  std::string buf;
  json_writer w(buf);
  f(w);
  return ojson::parse(buf);
}
}  // namespace

ojson instances_json(const gpu_model& gpu, const layout& l) {
  return via_writer([&](json_writer& w) { write_instances(w, gpu, l); });
}

ojson layout_json(const gpu_model& gpu, const scored_layout& sl) {
  return via_writer([&](json_writer& w) { write_layout(w, gpu, sl); });
}

ojson reason_json(const gpu_model& gpu, const reason& why) {
  return via_writer([&](json_writer& w) { write_reason(w, gpu, why); });
}

ojson closest_json(const gpu_model& gpu, std::span<const closest_fit> closest) {
  return via_writer([&](json_writer& w) { write_closest(w, gpu, closest); });
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

ojson profile_json(const profile& p) {
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
      {"inferred", inferred_field_names(p.prov.inferred)},
      {"source", p.prov.source},
      {"placements_source", p.prov.placements_source}};
}

}  // namespace migplan::cli

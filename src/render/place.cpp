// SPDX-License-Identifier: Apache-2.0
#include "render/place.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <migplan/lookup.hpp>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "model/policies.hpp"
#include "render/inferred.hpp"
#include "render/json.hpp"
#include "text.hpp"

namespace migplan::cli::render {
namespace {

const fleet_now_gpu& gpu_of(const place_result& r, int g) {
  return r.gpus[static_cast<std::size_t>(g)];
}
const fleet_now_node& node_of(const place_result& r, int g) {
  return r.nodes[static_cast<std::size_t>(gpu_of(r, g).node)];
}

int lost_units(const place_option& o) { return o.before.reachable_units - o.after.reachable_units; }
int lost_compute(const place_option& o) {
  return o.before.reachable_compute - o.after.reachable_compute;
}

std::string node_name(const place_result& r, int g) { return node_of(r, g).name; }

void write_option(json_writer& w, const place_result& r, const place_option& o) {
  const gpu_model& gpu = *node_of(r, o.gpu).gpu;
  const profile& p = gpu.profiles[static_cast<std::size_t>(o.where.profile)];
  w.flat().begin_object();
  w.key("node").value(node_name(r, o.gpu)).key("gpu").value(gpu_of(r, o.gpu).index);
  w.key("model").value(gpu.slug).key("profile_id").value(p.id).key("start").value(o.where.start);
  w.key("node_score").value(o.node_score);
  w.key("reachable_units_before").value(o.before.reachable_units);
  w.key("reachable_units_after").value(o.after.reachable_units);
  w.key("reachable_compute_before").value(o.before.reachable_compute);
  w.key("reachable_compute_after").value(o.after.reachable_compute);
  w.end_object();
}

}  // namespace

std::vector<int> nearest_gpus(const place_result& r) {
  std::vector<int> out;
  if (r.policies.empty()) return out;
  const std::vector<room>& rooms = r.policies.front().ranking.rooms;
  for (std::size_t g = 0; g < r.gpus.size(); ++g)
    if (find_profile(*r.nodes[static_cast<std::size_t>(r.gpus[g].node)].gpu, r.profile) >= 0)
      out.push_back(static_cast<int>(g));
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
    const room& x = rooms[static_cast<std::size_t>(a)];
    const room& y = rooms[static_cast<std::size_t>(b)];
    return std::tie(y.reachable_units, y.reachable_compute) <
           std::tie(x.reachable_units, x.reachable_compute);
  });
  if (out.size() > static_cast<std::size_t>(r.alternatives))
    out.resize(static_cast<std::size_t>(r.alternatives));
  return out;
}

namespace {

// Per model of the fleet, in node order, the profile asked for where its
// values there are inferred.
std::vector<std::pair<const gpu_model*, std::vector<int>>> asked_inferred(const place_result& r) {
  std::vector<std::pair<const gpu_model*, std::vector<int>>> out;
  std::vector<const gpu_model*> seen;
  for (const fleet_now_node& n : r.nodes) {
    if (std::find(seen.begin(), seen.end(), n.gpu) != seen.end()) continue;
    seen.push_back(n.gpu);
    const int asked[] = {find_profile(*n.gpu, r.profile)};
    std::vector<int> inferred = inferred_among(*n.gpu, asked);
    if (!inferred.empty()) out.emplace_back(n.gpu, std::move(inferred));
  }
  return out;
}

}  // namespace

namespace {

// Why a GPU cannot take one more instance of `p`: the units or compute
// slices further instances can reach, where they fall short; else the
// starts, where none of the profile's allowed starts is free.
std::string why_not_here(const gpu_model& gpu, const profile& p, const room& rm) {
  std::vector<std::string> short_of;
  if (rm.reachable_units < p.size)
    short_of.push_back(
        fmt::format("{} of the {} unit{}", rm.reachable_units, p.size, plural(p.size)));
  if (rm.reachable_compute < p.compute_slices)
    short_of.push_back(fmt::format("{} of the {} compute slice{}", rm.reachable_compute,
                                   p.compute_slices, plural(p.compute_slices)));
  if (!short_of.empty()) return fmt::format("{} it needs", fmt::join(short_of, " and "));
  std::vector<int> starts;
  bool start_free = false;
  for (int s = 0; s < gpu.units; ++s) {
    if (!p.allows_start(s)) continue;
    starts.push_back(s);
    start_free = start_free || (p.mask_at(s) & ~rm.free_mask) == 0;
  }
  const std::string room =
      fmt::format("{} unit{} and {} compute slice{} within reach", rm.reachable_units,
                  plural(rm.reachable_units), rm.reachable_compute, plural(rm.reachable_compute));
  if (!start_free)
    return fmt::format(
        "{}, but the start is the cause: {} starts only at unit{} {}, and none is free", room,
        p.name, plural(static_cast<long long>(starts.size())), fmt::join(starts, ", "));
  return fmt::format("{}, but a rule of the driver refuses it here (pack --current shows which)",
                     room);
}

}  // namespace

void place_text(std::ostream& os, const place_result& r) {
  std::string out;
  std::vector<std::string> models;
  for (const fleet_now_node& n : r.nodes)
    if (std::find(models.begin(), models.end(), n.gpu->slug) == models.end())
      models.emplace_back(n.gpu->slug);
  std::size_t held = 0;
  for (const fleet_now_gpu& g : r.gpus) held += static_cast<std::size_t>(g.held.size());
  out += fmt::format("one {} on {} node{}, {} GPU{} ({}), {} instance{} held\n", r.profile,
                     r.nodes.size(), r.nodes.size() == 1 ? "" : "s", r.gpus.size(),
                     r.gpus.size() == 1 ? "" : "s", fmt::join(models, ", "), held,
                     held == 1 ? "" : "s");
  for (const std::string& n : r.notes) out += fmt::format("note: {}\n", n);
  // Inferred values are shown, never hidden (the note without its blank line).
  for (const auto& [gpu, inferred] : asked_inferred(r))
    out += inferred_note(*gpu, inferred).substr(1);
  if (!r.placed()) {
    out += fmt::format("\nno GPU can take a {}.", r.profile);
    const std::vector<int> near = nearest_gpus(r);
    if (near.empty()) {
      out += " No model of the fleet has the profile.\n";
    } else {
      out += " Nearest, by the room a further instance can still reach:\n";
      const std::vector<room>& rooms = r.policies.front().ranking.rooms;
      for (const int g : near) {
        const gpu_model& gpu = *node_of(r, g).gpu;
        const profile& p = gpu.profiles[static_cast<std::size_t>(find_profile(gpu, r.profile))];
        const room& rm = rooms[static_cast<std::size_t>(g)];
        out += fmt::format("  {} GPU {}: {}\n", node_name(r, g), gpu_of(r, g).index,
                           why_not_here(gpu, p, rm));
      }
    }
    os << out;
    return;
  }
  for (const place_policy& p : r.policies) {
    const std::vector<place_option>& opts = p.ranking.options;
    const place_option& c = opts.front();
    out += fmt::format("\n{}: {} GPU {} start {}\n", p.name, node_name(r, c.gpu),
                       gpu_of(r, c.gpu).index, c.where.start);
    out += fmt::format("  {:>2}  {:<20} {:>3} {:>5} {:>10} {:>12} {:>12}\n", "#", "node", "GPU",
                       "start", "node score", "units lost", "slices lost");
    const std::size_t shown = std::min(opts.size(), static_cast<std::size_t>(r.alternatives) + 1);
    for (std::size_t k = 0; k < shown; ++k) {
      const place_option& o = opts[k];
      out += fmt::format("  {:>2}  {:<20} {:>3} {:>5} {:>10} {:>12} {:>12}\n", k + 1,
                         node_name(r, o.gpu), gpu_of(r, o.gpu).index, o.where.start, o.node_score,
                         lost_units(o), lost_compute(o));
    }
    if (opts.size() > shown)
      out += fmt::format("  ({} more place{})\n", opts.size() - shown,
                         opts.size() - shown == 1 ? "" : "s");
  }
  os << out;
}

void place_json(std::ostream& os, const place_result& r) {
  write_document(os, [&](json_writer& w) {
    w.key("profile").value(r.profile);
    w.key("fleet").begin_object();
    w.key("nodes").value(r.nodes.size()).key("gpus").value(r.gpus.size());
    w.end_object();
    w.key("placed").value(r.placed());
    w.key("notes").begin_array();
    for (const std::string& n : r.notes) w.value(n);
    w.end_array();
    w.key("inferred").begin_array();
    for (const auto& [gpu, inferred] : asked_inferred(r)) write_inferred(w, *gpu, inferred, true);
    w.end_array();
    w.key("policies").begin_array();
    for (const place_policy& p : r.policies) {
      const std::vector<place_option>& opts = p.ranking.options;
      w.begin_object();
      w.key("name").value(p.name);
      w.key("nodes").value(node_choice_name(p.policy.nodes));
      w.key("placement").value(gpu_choice_name(p.policy.placement));
      w.key("places").value(opts.size());
      w.key("choice");
      if (opts.empty())
        w.null();
      else
        write_option(w, r, opts.front());
      w.key("alternatives").begin_array();
      for (std::size_t k = 1; k < opts.size() && k <= static_cast<std::size_t>(r.alternatives); ++k)
        write_option(w, r, opts[k]);
      w.end_array();
      w.end_object();
    }
    w.end_array();
    w.key("nearest").begin_array();
    if (!r.placed()) {
      const std::vector<room>& rooms = r.policies.front().ranking.rooms;
      for (const int g : nearest_gpus(r)) {
        const room& rm = rooms[static_cast<std::size_t>(g)];
        w.flat().begin_object();
        w.key("node").value(node_name(r, g)).key("gpu").value(gpu_of(r, g).index);
        w.key("model").value(node_of(r, g).gpu->slug);
        w.key("reachable_units").value(rm.reachable_units);
        w.key("reachable_compute").value(rm.reachable_compute);
        w.end_object();
      }
    }
    w.end_array();
  });
}

}  // namespace migplan::cli::render

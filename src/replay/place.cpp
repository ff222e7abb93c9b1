// SPDX-License-Identifier: Apache-2.0
#include "replay/place.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <migplan/driver_order.hpp>
#include <migplan/lookup.hpp>
#include <migplan/moves.hpp>
#include <migplan/replay.hpp>
#include <optional>
#include <tuple>
#include <vector>

namespace migplan::cli {
namespace {

// The GPUs whose model has the profile, most reachable room first (the
// first policy's rooms: every policy sees the same fleet), at most
// `r.alternatives`, each with what keeps it from taking one.
std::vector<place_near> nearest_places(const place_result& r) {
  std::vector<place_near> out;
  if (r.policies.empty()) return out;
  const std::vector<room>& rooms = r.policies.front().ranking.rooms;
  for (std::size_t g = 0; g < r.gpus.size(); ++g) {
    const gpu_model& gpu = *r.nodes[static_cast<std::size_t>(r.gpus[g].node)].gpu;
    const int p = find_profile(gpu, r.profile);
    if (p >= 0) out.push_back({static_cast<int>(g), p, rooms[g], {}, false});
  }
  std::stable_sort(out.begin(), out.end(), [](const place_near& x, const place_near& y) {
    return std::tie(y.reach.reachable_units, y.reach.reachable_compute) <
           std::tie(x.reach.reachable_units, x.reach.reachable_compute);
  });
  if (out.size() > static_cast<std::size_t>(r.alternatives))
    out.resize(static_cast<std::size_t>(r.alternatives));
  for (place_near& n : out) {
    const gpu_model& gpu =
        *r.nodes[static_cast<std::size_t>(r.gpus[static_cast<std::size_t>(n.gpu)].node)].gpu;
    const profile& p = gpu.profiles[static_cast<std::size_t>(n.profile)];
    for (int s = 0; s < gpu.units; ++s) {
      if (!p.allows_start(s)) continue;
      n.starts.push_back(s);
      n.start_free = n.start_free || (p.mask_at(s) & ~n.reach.free_mask) == 0;
    }
  }
  return out;
}

}  // namespace

result<place_result> place_fleet(fleet_now now, const std::vector<std::string>& mig_off,
                                 std::string_view shown) {
  place_result res;
  for (const fleet_now_gpu& g : now.gpus)
    if (g.mig_enabled) res.gpus.push_back(g);
  res.nodes = std::move(now.nodes);
  res.notes = std::move(now.notes);
  if (!mig_off.empty())
    res.notes.push_back(fmt::format(
        "MIG is off on {} (mig-enabled: false in the mig-parted config): left out, since an "
        "instance there needs MIG mode turned on first",
        fmt::join(mig_off, ", ")));
  if (res.gpus.empty()) return error{fmt::format("{} has no GPU with MIG on to place on", shown)};
  return res;
}

void rank_places(place_result& r) {
  // The fleet in the replay's terms: its models, each node's model and GPUs,
  // what each GPU holds, and the request on each model.
  replay_fleet rf;
  replay_item want;
  for (const fleet_now_node& n : r.nodes) {
    auto m = std::find(rf.models.begin(), rf.models.end(), n.gpu);
    if (m == rf.models.end()) {
      rf.models.push_back(n.gpu);
      want.profile.push_back(find_profile(*n.gpu, r.profile));
      m = rf.models.end() - 1;
    }
    rf.nodes.push_back({static_cast<int>(m - rf.models.begin()), 0});
  }
  std::vector<layout> held;
  for (const fleet_now_gpu& g : r.gpus) {
    ++rf.nodes[static_cast<std::size_t>(g.node)].gpus;
    held.push_back(g.held);
  }
  replay_tables tables;
  for (place_policy& p : r.policies) p.ranking = rank_placements(rf, want, held, p.policy, tables);
  r.nearest.clear();
  if (!r.placed()) r.nearest = nearest_places(r);
}

place_moves find_moves(const place_result& r, int most) {
  std::vector<moves_gpu> fleet;
  for (const fleet_now_gpu& g : r.gpus) {
    const gpu_model* m = r.nodes[static_cast<std::size_t>(g.node)].gpu;
    fleet.push_back({m, find_profile(*m, r.profile), g.held});
  }
  return {most, fewest_moves(fleet, most)};
}

emit_plan choice_plan(model_list models, const place_result& r) {
  const place_option& c = r.policies.front().ranking.options.front();
  const fleet_now_gpu& pg = r.gpus[static_cast<std::size_t>(c.gpu)];
  const fleet_now_node& node = r.nodes[static_cast<std::size_t>(pg.node)];
  emit_plan plan;
  plan.gpu = node.gpu;
  plan.index = pg.index;
  plan.whole = pg.held;
  plan.whole.add(c.where);
  unit_mask occupied = 0;
  for (const instance& in : pg.held) {
    plan.existing.push_back(current_instance::at(in.profile, in.start));
    occupied |= node.gpu->profiles[static_cast<std::size_t>(in.profile)].mask_at(in.start);
  }
  plan.create = {c.where};
  plan.cis.assign(1, {});
  plan.fallback = find_creation_order(*node.gpu, occupied, plan.create, models);
  plan.command = "place";
  if (node.name != listing_node) plan.host = node.name;
  return plan;
}

}  // namespace migplan::cli

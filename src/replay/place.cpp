// SPDX-License-Identifier: Apache-2.0
#include "replay/place.hpp"

#include <algorithm>
#include <migplan/driver_order.hpp>
#include <migplan/lookup.hpp>
#include <migplan/moves.hpp>
#include <migplan/replay.hpp>
#include <optional>

namespace migplan::cli {

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

// SPDX-License-Identifier: Apache-2.0
#include "render/place.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <migplan/lookup.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "model/policies.hpp"
#include "render/emit.hpp"
#include "render/inferred.hpp"
#include "render/json.hpp"
#include "render/mig_parted.hpp"
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

// Why a GPU cannot take one more instance of `p`: the units or compute
// slices further instances can reach, where they fall short; else the
// starts, where none of the profile's allowed starts is free.
std::string why_not_here(const profile& p, const place_near& n) {
  const room& rm = n.reach;
  std::vector<std::string> short_of;
  if (rm.reachable_units < p.size)
    short_of.push_back(
        fmt::format("{} of the {} unit{}", rm.reachable_units, p.size, plural(p.size)));
  if (rm.reachable_compute < p.compute_slices)
    short_of.push_back(fmt::format("{} of the {} compute slice{}", rm.reachable_compute,
                                   p.compute_slices, plural(p.compute_slices)));
  if (!short_of.empty()) return fmt::format("{} it needs", fmt::join(short_of, " and "));
  const std::string room =
      fmt::format("{} unit{} and {} compute slice{} within reach", rm.reachable_units,
                  plural(rm.reachable_units), rm.reachable_compute, plural(rm.reachable_compute));
  if (!n.start_free)
    return fmt::format(
        "{}, but the start is the cause: {} starts only at unit{} {}, and none is free", room,
        p.name, plural(static_cast<long long>(n.starts.size())), fmt::join(n.starts, ", "));
  return fmt::format("{}, but a rule of the driver refuses it here (pack --current shows which)",
                     room);
}

const profile& profile_on(const place_result& r, int g, int p) {
  return node_of(r, g).gpu->profiles[static_cast<std::size_t>(p)];
}

// "node-a GPU 0".
std::string gpu_name(const place_result& r, int g) {
  return fmt::format("{} GPU {}", node_name(r, g), gpu_of(r, g).index);
}

// "move 1g.10gb on node-a GPU 0 from start 3 to node-b GPU 1 start 0".
std::string step_text(const place_result& r, const move_step& m) {
  const std::string_view name = profile_on(r, m.from, m.what.profile).name;
  if (m.from == m.to)
    return fmt::format("move {} on {} from start {} to start {}", name, gpu_name(r, m.from),
                       m.what.start, m.to_start);
  return fmt::format("move {} on {} from start {} to {} start {}", name, gpu_name(r, m.from),
                     m.what.start, gpu_name(r, m.to), m.to_start);
}

// Why no sequence of at most K moves makes room, in one sentence.
std::string no_moves_reason(const place_result& r, const place_moves& mv) {
  const moves_plan& p = mv.plan;
  const int k = mv.allowed;
  switch (p.failure) {
    case moves_failure::too_many_shed:
      return fmt::format(
          "no sequence of at most {} move{} makes room: every GPU would have to shed more than "
          "{} instance{} for a {} to fit",
          k, plural(k), k, plural(k), r.profile);
    case moves_failure::nowhere_to_go:
      return fmt::format(
          "no sequence of at most {} move{} makes room: {} needs the fewest moved off ({} "
          "instance{}), but no order of at most {} move{} finds them room on GPUs of its model",
          k, plural(k), gpu_name(r, p.fewest_shed_gpu), p.fewest_shed, plural(p.fewest_shed), k,
          plural(k));
    case moves_failure::no_model:
    case moves_failure::none:
      break;
  }
  return fmt::format("no sequence of at most {} move{} makes room: no GPU of the fleet has {}", k,
                     plural(k), r.profile);
}

std::string moves_text(const place_result& r) {
  const place_moves& mv = *r.moves;
  const moves_plan& p = mv.plan;
  if (r.placed())
    return fmt::format("\n--allow-moves {}: 0 moves; the {} fits as the fleet is\n", mv.allowed,
                       r.profile);
  if (!p.found) return fmt::format("\n{}.\n", no_moves_reason(r, mv));
  const std::size_t n = p.steps.size();
  std::string out = fmt::format("\n{} move{} make{} room (--allow-moves {}):\n", n, plural(n),
                                n == 1 ? "s" : "", mv.allowed);
  for (std::size_t i = 0; i < n; ++i)
    out += fmt::format("  {}. {}\n", i + 1, step_text(r, p.steps[i]));
  out += fmt::format("  {}. create {} on {} start {}\n", n + 1, r.profile, gpu_name(r, p.gpu),
                     p.where.start);
  out += fmt::format(
      "{} GPU{} touched. A move destroys the instance, stopping what runs on it, and creates it "
      "again; each step needs the room the steps before it free.\n",
      p.gpus_touched, plural(p.gpus_touched));
  return out;
}

void write_spot(json_writer& w, const place_result& r, int g, int start) {
  w.flat().begin_object();
  w.key("node").value(node_name(r, g)).key("gpu").value(gpu_of(r, g).index);
  w.key("start").value(start);
  w.end_object();
}

void write_moves(json_writer& w, const place_result& r) {
  const place_moves& mv = *r.moves;
  const moves_plan& p = mv.plan;
  const bool none_needed = r.placed();
  w.begin_object();
  w.key("allowed").value(mv.allowed);
  w.key("found").value(none_needed || p.found);
  w.key("count");
  if (none_needed)
    w.value(0);
  else if (p.found)
    w.value(p.steps.size());
  else
    w.null();
  w.key("steps").begin_array();
  if (!none_needed && p.found)
    for (const move_step& m : p.steps) {
      const profile& pr = profile_on(r, m.from, m.what.profile);
      w.begin_object();
      w.key("profile").value(pr.name).key("profile_id").value(pr.id);
      w.key("from");
      write_spot(w, r, m.from, m.what.start);
      w.key("to");
      write_spot(w, r, m.to, m.to_start);
      w.end_object();
    }
  w.end_array();
  w.key("create");
  if (!none_needed && p.found) {
    const gpu_model& gpu = *node_of(r, p.gpu).gpu;
    w.flat().begin_object();
    w.key("node").value(node_name(r, p.gpu)).key("gpu").value(gpu_of(r, p.gpu).index);
    w.key("model").value(gpu.slug);
    w.key("profile_id").value(profile_on(r, p.gpu, p.where.profile).id);
    w.key("start").value(p.where.start);
    w.end_object();
  } else {
    w.null();
  }
  w.key("gpus_touched");
  if (!none_needed && p.found)
    w.value(p.gpus_touched);
  else
    w.null();
  w.key("reason");
  if (none_needed || p.found)
    w.null();
  else
    w.value(no_moves_reason(r, mv));
  w.end_object();
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
                     r.nodes.size(), plural(r.nodes.size()), r.gpus.size(), plural(r.gpus.size()),
                     fmt::join(models, ", "), held, plural(held));
  for (const std::string& n : r.notes) out += fmt::format("note: {}\n", n);
  // Inferred values are shown, never hidden (the note without its blank line).
  for (const auto& [gpu, inferred] : asked_inferred(r))
    out += inferred_note(*gpu, inferred).substr(1);
  if (!r.placed() && r.moves && r.moves->plan.found) {
    out += fmt::format("\nno GPU can take a {} as the fleet is.\n", r.profile);
    out += moves_text(r).substr(1);
    os << out;
    return;
  }
  if (!r.placed()) {
    out += fmt::format("\nno GPU can take a {}.", r.profile);
    if (r.nearest.empty()) {
      out += " No model of the fleet has the profile.\n";
    } else {
      out += " Nearest, by the room a further instance can still reach:\n";
      for (const place_near& n : r.nearest)
        out += fmt::format("  {} GPU {}: {}\n", node_name(r, n.gpu), gpu_of(r, n.gpu).index,
                           why_not_here(profile_on(r, n.gpu, n.profile), n));
    }
    if (r.moves) out += moves_text(r);
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
      out += fmt::format("  ({} more place{})\n", opts.size() - shown, plural(opts.size() - shown));
  }
  if (r.moves) out += moves_text(r);
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
    for (const place_near& n : r.nearest) {
      w.flat().begin_object();
      w.key("node").value(node_name(r, n.gpu)).key("gpu").value(gpu_of(r, n.gpu).index);
      w.key("model").value(node_of(r, n.gpu).gpu->slug);
      w.key("reachable_units").value(n.reach.reachable_units);
      w.key("reachable_compute").value(n.reach.reachable_compute);
      w.end_object();
    }
    w.end_array();
    if (r.moves) {
      w.key("moves");
      write_moves(w, r);
    }
  });
}

namespace {

void emit_moves_nvidia_smi(std::ostream& os, const place_result& r) {
  const moves_plan& p = r.moves->plan;
  const gpu_model& gpu = *node_of(r, p.gpu).gpu;
  std::vector<std::string> nodes;
  const auto note_node = [&](int g) {
    const std::string n = node_name(r, g);
    if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
  };
  for (const move_step& m : p.steps) {
    note_node(m.from);
    note_node(m.to);
  }
  note_node(p.gpu);
  const std::size_t n = p.steps.size();
  std::string out = "#!/bin/sh\n";
  out += comment_lines(fmt::format(
      "Moves {} GPU instance{} to make room for a {} on {} ({}, {}). Written by migplan place "
      "--allow-moves {} --emit nvidia-smi.",
      n, plural(n), r.profile, gpu_name(r, p.gpu), gpu.slug, model_name(gpu), r.moves->allowed));
  out += "#\n";
  out += comment_lines(
      "Each move destroys a GPU instance (its compute instances first), stopping what runs on "
      "it, and creates it again at its new start with its default compute instance (-C): "
      "restart its workload there. Run the steps in order: each needs the room the steps "
      "before it free.");
  out += comment_lines(
      nodes.size() == 1
          ? fmt::format("Every step is on node {}: run the script there.", nodes.front())
          : fmt::format("The steps span nodes {}: one script cannot reach them all, so run each "
                        "step's lines on the node named above them, in step order.",
                        fmt::join(nodes, ", ")));
  out += comment_lines(
      "gi_at GPU PROFILE_ID START: the ID of the GPU instance of that profile at that start, as "
      "nvidia-smi mig -lgi lists it (empty when there is none, which stops the script).");
  out +=
      "gi_at() { nvidia-smi mig -i \"$1\" -lgi | awk -v p=\"$2\" -v s=\"$3\" "
      "'$5 == p && $7 ~ \"^\" s \":\" { print $6 }'; }\n";
  out += "set -e\n";
  const auto on = [&](int g) { out += fmt::format("# on node {}:\n", node_name(r, g)); };
  for (std::size_t i = 0; i < n; ++i) {
    const move_step& m = p.steps[i];
    const profile& pr = profile_on(r, m.from, m.what.profile);
    const int from = gpu_of(r, m.from).index;
    const int to = gpu_of(r, m.to).index;
    out += fmt::format("\n# Step {} of {}: {}.\n", i + 1, n + 1, step_text(r, m));
    on(m.from);
    out += fmt::format("gi=$(gi_at {} {} {}); test -n \"$gi\"\n", from, pr.id, m.what.start);
    out += fmt::format("nvidia-smi mig -i {} -gi \"$gi\" -dci\n", from);
    out += fmt::format("nvidia-smi mig -i {} -gi \"$gi\" -dgi\n", from);
    if (node_name(r, m.to) != node_name(r, m.from)) on(m.to);
    out += fmt::format("nvidia-smi mig -i {} -cgi {}:{} -C\n", to, pr.id, m.to_start);
  }
  const profile& arrival = profile_on(r, p.gpu, p.where.profile);
  out += fmt::format("\n# Step {} of {}: create {} on {} start {}.\n", n + 1, n + 1, r.profile,
                     gpu_name(r, p.gpu), p.where.start);
  on(p.gpu);
  out += fmt::format("nvidia-smi mig -i {} -cgi {}:{} -C\n", gpu_of(r, p.gpu).index, arrival.id,
                     p.where.start);
  os << out;
}

}  // namespace

void place_nvidia_smi(std::ostream& os, const place_result& r) {
  if (r.choice)
    emit_nvidia_smi(os, *r.choice);
  else
    emit_moves_nvidia_smi(os, r);
}

}  // namespace migplan::cli::render

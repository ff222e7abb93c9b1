// SPDX-License-Identifier: Apache-2.0
#include "render/simulate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <migplan/lookup.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "model/policies.hpp"
#include "render/inferred.hpp"
#include "render/json.hpp"
#include "text.hpp"

namespace migplan::cli::render {

std::string span_text(std::int64_t s) {
  if (s < 0) return "-" + span_text(-s);
  if (s >= 86400) return fmt::format("{}d {}h", s / 86400, s % 86400 / 3600);
  if (s >= 3600) return fmt::format("{}h {:02}m", s / 3600, s % 3600 / 60);
  if (s >= 60) return fmt::format("{}m {:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

namespace {

std::string hours(std::int64_t seconds) {
  return fmt::format("{:.1f}", static_cast<double>(seconds) / 3600.0);
}

std::string percent(std::int64_t part, std::int64_t whole) {
  return whole == 0 ? "0.0%"
                    : fmt::format("{:.1f}%",
                                  100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

// A fraction as a percentage with `decimals` decimals. Rounding never
// claims all or none where it is not: 2999 of 3000 is ">99.9%", not
// "100.0%", and 1 of 3000 at one decimal "<0.1%", not "0.0%".
std::string share_text(double fraction, int decimals = 1) {
  const double step = std::pow(10.0, -decimals);
  const double pct = 100.0 * fraction;
  if (fraction < 1 && pct >= 100 - step / 2) return fmt::format(">{:.{}f}%", 100 - step, decimals);
  if (fraction > 0 && pct < step / 2) return fmt::format("<{:.{}f}%", step, decimals);
  return fmt::format("{:.{}f}%", pct, decimals);
}

std::string policy_label(const simulate_policy& p) {
  if (p.replan) return p.name;
  if (p.policy.defrag > 0) {
    simulate_policy plain = p;
    plain.policy.defrag = 0;
    return fmt::format("{}+defrag:{}", policy_label(plain), p.policy.defrag);
  }
  if (p.policy.mode == replay_mode::static_geometry)
    return p.policy.nodes == node_choice::spread ? "static" : "static/pack";
  if (p.policy.placement == gpu_choice::name_order) return "dra/first-fit";
  if (p.policy.placement == gpu_choice::hami) return "hami";
  return fmt::format("{}/{}", p.policy.nodes == node_choice::spread ? "spread" : "pack",
                     p.policy.placement == gpu_choice::first_fit ? "first-fit" : "best-fit");
}

// What --size met: "at most 0% of pods rejected", or with a wait target
// "wait p99 at most 10m 00s, at most 0% of pods refused".
std::string size_goal(const simulate_result& r) {
  if (!r.wait) return fmt::format("at most {}% of pods rejected", r.reject_target);
  return fmt::format("wait {} at most {}, at most {}% of pods refused", r.wait->name,
                     span_text(r.wait->seconds), r.reject_target);
}

// --size on several models: a column per model, "> N" where none within
// its limit of N GPUs does.
void sizing_table(std::ostream& os, const simulate_result& r) {
  os << fmt::format("\nfewest GPUs of each model with {} (nodes of {}):\n", size_goal(r),
                    r.per_node);
  std::vector<std::size_t> widths;
  for (const simulate_sizing& s : r.sizing)
    widths.push_back(std::max<std::size_t>(s.gpu->slug.size() + 2, 10));
  std::string line = fmt::format("  {:<20}", "");
  for (std::size_t m = 0; m < r.sizing.size(); ++m)
    line += fmt::format("{:>{}}", r.sizing[m].gpu->slug, widths[m]);
  os << line << "\n";
  for (std::size_t p = 0; p < r.policies.size(); ++p) {
    line = fmt::format("  {:<20}", policy_label(r.policies[p]));
    for (std::size_t m = 0; m < r.sizing.size(); ++m) {
      const std::optional<int>& n = r.sizing[m].sized[p];
      line += fmt::format("{:>{}}", n ? std::to_string(*n) : fmt::format("> {}", r.sizing[m].limit),
                          widths[m]);
    }
    os << line << "\n";
  }
  line = fmt::format("  {:<20}", "plan at the peaks");
  for (std::size_t m = 0; m < r.sizing.size(); ++m)
    line += fmt::format("{:>{}}", r.sizing[m].plan_gpus, widths[m]);
  os << line << "\n";
}

}  // namespace

namespace {

// The replayed profiles (those with a peak; on a fleet of several models,
// those serving a pod on the first) with inferred values on the model.
std::vector<int> replayed_inferred(const simulate_result& r) {
  if (r.fleet_models.size() > 1) return inferred_among(*r.gpu, r.fleet_models.front().replayed);
  std::vector<int> replayed;
  for (const auto& [name, n] : r.peaks) replayed.push_back(find_profile(*r.gpu, name));
  return inferred_among(*r.gpu, replayed);
}

// On a fleet of several models, each model's geometries (`which`), each
// entry naming its gpu.
void write_model_geometries(
    json_writer& w, const simulate_result& r,
    std::vector<std::pair<std::string, long long>> simulate_fleet_model::*which) {
  if (r.fleet_models.size() < 2) return;
  for (const simulate_fleet_model& m : r.fleet_models)
    for (const auto& [text, n] : m.*which) {
      w.flat().begin_object().key("gpu").value(m.gpu->slug).key("count").value(n);
      w.key("instances").value(text).end_object();
    }
}

// A fleet of several models: "8 h100-80gb on 1 node, 16 a30 on 2 nodes".
std::string models_text(const simulate_result& r) {
  std::string out;
  for (const simulate_fleet_model& m : r.fleet_models)
    out += fmt::format("{}{} {} on {} node{}", out.empty() ? "" : ", ", m.gpus, m.gpu->slug,
                       m.nodes, plural(m.nodes));
  return out;
}

}  // namespace

// Milliseconds as seconds with only the decimals they need: "1.5", "2", "0.25".
std::string milli_text(std::int64_t ms) {
  std::string s = fmt::format("{}.{:03}", ms / 1000, ms % 1000);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

// A policy whose instances are created with a cost or kept idle.
bool on_demand(const simulate_policy& p) {
  return p.policy.mode == replay_mode::dynamic &&
         (p.policy.create_milli > 0 || p.policy.keep_idle >= 0);
}

void simulate_text(std::ostream& os, const simulate_result& r) {
  const replay_metrics& any = r.policies.front().metrics;
  os << fmt::format("trace {}: {} pod{}, {} instance{} over {}", r.trace, r.pods, plural(r.pods),
                    r.instances, plural(r.instances), span_text(any.end - any.start));
  if (r.alibaba)
    os << fmt::format(" (Alibaba pod list; {} row{} without a GPU skipped)", r.skipped,
                      plural(r.skipped));
  os << "\n";
  const int nodes = r.nodes;
  const bool mixed = r.fleet_models.size() > 1;
  const std::string as_it_is = r.current.empty() ? "" : fmt::format(", as {} has it", r.current);
  if (mixed)
    os << fmt::format("fleet: {} GPUs of {} models, {} node{} of up to {}: {}{}\n", r.gpus,
                      r.fleet_models.size(), nodes, plural(nodes), r.per_node, models_text(r),
                      as_it_is);
  else
    os << fmt::format("fleet: {} {} GPU{}, {} node{} of up to {}{}\n", r.gpus, r.gpu->slug,
                      plural(r.gpus), nodes, plural(nodes), r.per_node, as_it_is);
  const bool queued = r.pending != pending_rule::reject;
  if (queued)
    os << (r.pending == pending_rule::backfill
               ? "queue: a pod that does not fit waits; later ones that fit may go first\n"
               : "queue: a pod that does not fit waits, first in first out\n");
  if (std::any_of(r.policies.begin(), r.policies.end(),
                  [](const simulate_policy& p) { return p.replan.has_value(); }))
    os << fmt::format(
        "re-plan: from the static geometry, plan's fewest changes for the window's peaks; a "
        "changed GPU's pods are evicted{} and it is out for {}\n",
        queued ? " to the queue" : " (lost)", span_text(r.reconfigure_s));
  const bool lifecycle = std::any_of(r.policies.begin(), r.policies.end(), on_demand);
  if (lifecycle)
    os << fmt::format(
        "on demand: {}; {}\n",
        r.create_milli == 0
            ? std::string("an instance is created at once")
            : fmt::format("an instance takes {} s to create", milli_text(r.create_milli)),
        r.keep_idle_s < 0
            ? std::string("it is destroyed when its pod ends")
            : fmt::format("an idle one is kept {} for reuse", span_text(r.keep_idle_s)));
  if (!r.peaks.empty() && !mixed) {
    os << "peak instances at once:";
    for (const auto& [name, n] : r.peaks) os << fmt::format(" {}x{}", n, name);
    os << "\n";
    os << fmt::format("static geometry: plan for the peaks, {} GPU{}{}\n", r.plan_gpus,
                      plural(r.plan_gpus), r.plan_optimal ? "" : " (not proven least)");
    for (const auto& [text, n] : r.geometries) os << fmt::format("  {:>5} x {}\n", n, text);
  }
  if (!r.peaks.empty() && mixed) {
    // A kind is a profile per model: one a line.
    os << "peak instances at once:\n";
    for (const auto& [name, n] : r.peaks) os << fmt::format("  {:>5} x {}\n", n, name);
    os << fmt::format("static geometry: plan for the peaks within the fleet's GPUs, {} GPU{}{}{}\n",
                      r.plan_gpus, plural(r.plan_gpus), r.plan_optimal ? "" : " (not proven least)",
                      r.plan_unmet == 0 ? std::string()
                                        : fmt::format("; {} peak instance{} the fleet cannot hold",
                                                      r.plan_unmet, plural(r.plan_unmet)));
    for (const simulate_fleet_model& m : r.fleet_models)
      for (const auto& [text, n] : m.plan_geometries)
        os << fmt::format("  {:>5} x {}: {}\n", n, m.gpu->slug, text);
  }
  if (r.static_from != "plan" || r.static_subset || (mixed && !r.peaks.empty())) {
    std::string from = r.static_from == "current" ? std::string("its own")
                       : r.static_from == "static-plan"
                           ? fmt::format("the plan in {}", r.static_file)
                       : mixed ? std::string("each model's planned GPUs, round and round")
                               : std::string("the plan's");
    if (r.static_subset)
      from += ", the planned GPUs that keep each profile nearest its share of the peak";
    os << (r.gpus == 1 ? fmt::format("static geometry on this GPU: {}\n", from)
                       : fmt::format("static geometry on these {} GPUs: {}\n", r.gpus, from));
    for (const auto& [text, n] : r.static_geometries) os << fmt::format("  {:>5} x {}\n", n, text);
    if (mixed)
      for (const simulate_fleet_model& m : r.fleet_models)
        for (const auto& [text, n] : m.static_geometries)
          os << fmt::format("  {:>5} x {}: {}\n", n, m.gpu->slug, text);
  }
  os << "\n";
  // The rows are gathered first: a column is 13 wide, or wider where a cell
  // (a rejection count of millions, say) needs it, so cells never touch.
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  const auto row = [&](std::string_view label,
                       const std::function<std::string(const simulate_policy&)>& f) {
    std::vector<std::string> cells;
    for (const simulate_policy& p : r.policies) cells.push_back(f(p));
    rows.emplace_back(std::string(label), std::move(cells));
  };
  // The policy's name on two lines ("spread" over "first-fit"), so that four
  // policies fit 80 columns.
  row("", [](const simulate_policy& p) {
    const std::string label = policy_label(p);
    return label.substr(0, label.find('/'));
  });
  row("", [](const simulate_policy& p) {
    const std::string label = policy_label(p);
    const std::size_t slash = label.find('/');
    return slash == std::string::npos ? std::string() : label.substr(slash + 1);
  });
  row(queued ? "pods started" : "pods accepted",
      [](const simulate_policy& p) { return std::to_string(p.metrics.pods_accepted); });
  if (queued)
    row("pods pending at end",
        [](const simulate_policy& p) { return std::to_string(p.metrics.pods_pending); });
  row(queued ? "pods refused" : "pods rejected", [&](const simulate_policy& p) {
    return fmt::format("{} ({})", p.metrics.pods_rejected,
                       percent(p.metrics.pods_rejected, r.pods));
  });
  row(queued ? "instances refused" : "instances rejected", [&](const simulate_policy& p) {
    return fmt::format("{} ({})", p.metrics.instances_rejected,
                       percent(p.metrics.instances_rejected, r.instances));
  });
  row("acceptance rate", [](const simulate_policy& p) { return share_text(p.rates.acceptance); });
  row("instance-hours", [](const simulate_policy& p) { return hours(p.metrics.instance_time); });
  row("GPU-hours in use", [](const simulate_policy& p) { return hours(p.metrics.gpu_time); });
  row("GPUs in use, peak",
      [](const simulate_policy& p) { return std::to_string(p.metrics.peak_gpus_in_use); });
  row("GPUs in use, mean",
      [](const simulate_policy& p) { return fmt::format("{:.1f}", p.rates.mean_gpus_active); });
  row("stranded slice-hours",
      [](const simulate_policy& p) { return hours(p.metrics.stranded_slice_time); });
  row("makespan", [](const simulate_policy& p) { return span_text(p.metrics.makespan); });
  const bool replans = std::any_of(r.policies.begin(), r.policies.end(),
                                   [](const simulate_policy& p) { return p.replan.has_value(); });
  if (replans) {
    row("re-plans", [](const simulate_policy& p) { return std::to_string(p.metrics.replans); });
    row("GPU reconfigurations",
        [](const simulate_policy& p) { return std::to_string(p.metrics.reconfigurations); });
    row("pods evicted",
        [](const simulate_policy& p) { return std::to_string(p.metrics.pods_evicted); });
    row("GPU-hours unavailable",
        [](const simulate_policy& p) { return hours(p.metrics.unavailable_time); });
    row("pods ever evicted", [](const simulate_policy& p) {
      return fmt::format("{} ({})", p.metrics.pods_evicted_once, share_text(p.rates.evicted));
    });
    row("reconfig overhead",
        [](const simulate_policy& p) { return share_text(p.rates.reconfiguration_overhead, 2); });
  }
  row("instances created",
      [](const simulate_policy& p) { return std::to_string(p.metrics.creations); });
  row("instances destroyed",
      [](const simulate_policy& p) { return std::to_string(p.metrics.destructions); });
  if (lifecycle && r.keep_idle_s >= 0) {
    const auto dynamic = [](const std::function<std::string(const simulate_policy&)>& f) {
      return [f](const simulate_policy& p) { return on_demand(p) ? f(p) : std::string("-"); };
    };
    row("instances reused",
        dynamic([](const simulate_policy& p) { return std::to_string(p.metrics.reuses); }));
    row("idle reclaimed",
        dynamic([](const simulate_policy& p) { return std::to_string(p.metrics.reclaims); }));
    row("idle instance-hours",
        dynamic([](const simulate_policy& p) { return hours(p.metrics.idle_instance_time); }));
  }
  if (lifecycle && r.create_milli > 0)
    row("creation wait, hours", [](const simulate_policy& p) {
      return on_demand(p) ? hours(p.metrics.create_time) : std::string("-");
    });
  if (std::any_of(r.policies.begin(), r.policies.end(),
                  [](const simulate_policy& p) { return p.policy.defrag > 0; })) {
    const auto moving = [](const std::function<std::string(const simulate_policy&)>& f) {
      return
          [f](const simulate_policy& p) { return p.policy.defrag > 0 ? f(p) : std::string("-"); };
    };
    row("instances moved",
        moving([](const simulate_policy& p) { return std::to_string(p.metrics.moves); }));
    row("pods moved", moving([&](const simulate_policy& p) {
          return fmt::format("{} ({})", p.metrics.pods_moved,
                             percent(p.metrics.pods_moved, r.pods));
        }));
    row("started by moves",
        moving([](const simulate_policy& p) { return std::to_string(p.metrics.defrag_starts); }));
  }
  row(queued ? "first refusal" : "first rejection", [](const simulate_policy& p) {
    return p.metrics.first_rejection ? "+" + span_text(*p.metrics.first_rejection - p.metrics.start)
                                     : std::string("-");
  });
  if (queued) {
    row("wait p50", [](const simulate_policy& p) { return span_text(p.metrics.waits.p50); });
    row("wait p95", [](const simulate_policy& p) { return span_text(p.metrics.waits.p95); });
    row("wait p99", [](const simulate_policy& p) { return span_text(p.metrics.waits.p99); });
    row("wait max", [](const simulate_policy& p) { return span_text(p.metrics.waits.max); });
    row("pods waiting, peak",
        [](const simulate_policy& p) { return std::to_string(p.metrics.queue_peak); });
    row("pods waiting, mean",
        [](const simulate_policy& p) { return fmt::format("{:.1f}", p.rates.mean_queue); });
  }
  // A fleet of several models: what each served, under a line naming it.
  if (mixed)
    for (std::size_t m = 0; m < r.fleet_models.size(); ++m) {
      const simulate_fleet_model& fm = r.fleet_models[m];
      rows.emplace_back(fmt::format("{}, {} GPU{}:", fm.gpu->slug, fm.gpus, plural(fm.gpus)),
                        std::vector<std::string>(r.policies.size()));
      const auto of = [m](const simulate_policy& p) -> const replay_model_metrics& {
        return p.metrics.models[m];
      };
      row(queued ? "  pods started" : "  pods accepted",
          [&](const simulate_policy& p) { return std::to_string(of(p).pods_accepted); });
      row("  instances",
          [&](const simulate_policy& p) { return std::to_string(of(p).instances_accepted); });
      row("  instance-hours", [&](const simulate_policy& p) { return hours(of(p).instance_time); });
      row("  GPU-hours in use", [&](const simulate_policy& p) { return hours(of(p).gpu_time); });
      row("  GPUs in use, peak",
          [&](const simulate_policy& p) { return std::to_string(of(p).peak_gpus_in_use); });
      row("  stranded slice-hours",
          [&](const simulate_policy& p) { return hours(of(p).stranded_slice_time); });
    }
  constexpr std::size_t label_width = 22;
  std::vector<std::size_t> widths(r.policies.size(), 13);
  for (const auto& [label, cells] : rows)
    for (std::size_t c = 0; c < cells.size(); ++c)
      widths[c] = std::max(widths[c], cells[c].size() + 2);
  for (const auto& [label, cells] : rows) {
    std::string line = fmt::format("{:<{}}", label, label_width);
    for (std::size_t c = 0; c < cells.size(); ++c)
      line += fmt::format("{:>{}}", cells[c], widths[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    os << line << "\n";
  }
  if (r.size && r.sizing.size() > 1) {
    sizing_table(os, r);
  } else if (r.size) {
    os << fmt::format("\nfewest GPUs with {} (nodes of {}):\n", size_goal(r), r.per_node);
    for (const simulate_policy& p : r.policies)
      os << fmt::format(
          "  {:<20}{}\n", policy_label(p),
          p.sized ? std::to_string(*p.sized)
                  : fmt::format("none within {} GPU{}", r.size_limit, plural(r.size_limit)));
    os << fmt::format("  {:<20}{}\n", "plan at the peaks", r.plan_gpus);
  }
  // Inferred values are shown, never hidden: the replayed model's, then
  // those of each other model --size sized.
  os << inferred_note(*r.gpu, replayed_inferred(r));
  for (const simulate_sizing& m : r.sizing)
    if (m.gpu != r.gpu) os << inferred_note(*m.gpu, inferred_among(*m.gpu, m.replayed));
  if (mixed)
    for (const simulate_fleet_model& m : r.fleet_models)
      if (m.gpu != r.gpu) os << inferred_note(*m.gpu, inferred_among(*m.gpu, m.replayed));
}

void simulate_json(std::ostream& os, const simulate_result& r) {
  write_document(os, [&](json_writer& w) {
    w.key("gpu");
    write_gpu(w, *r.gpu);
    w.key("trace").begin_object();
    w.key("file").value(r.trace).key("format").value(r.alibaba ? "alibaba" : "migplan");
    w.key("skipped").value(r.skipped).key("pods").value(r.pods).key("instances").value(r.instances);
    const replay_metrics& any = r.policies.front().metrics;
    w.key("start").value(any.start).key("end").value(any.end);
    w.key("peaks").begin_array();
    for (std::size_t k = 0; k < r.peaks.size(); ++k) {
      w.flat().begin_object();
      if (k < r.peak_kinds.size()) {  // a kind of several models: its profile on each
        w.key("profiles").begin_array();
        for (const auto& [gpu, p] : r.peak_kinds[k]) {
          w.begin_object().key("gpu").value(gpu->slug);
          w.key("profile").value(gpu->profiles[static_cast<std::size_t>(p)].name).end_object();
        }
        w.end_array();
      } else {
        w.key("profile").value(r.peaks[k].first);
      }
      w.key("instances").value(r.peaks[k].second).end_object();
    }
    w.end_array().end_object();
    w.key("fleet").begin_object();
    w.key("gpus").value(r.gpus).key("gpus_per_node").value(r.per_node);
    w.key("nodes").value(r.nodes);
    if (!r.current.empty()) w.key("current").value(r.current);
    w.key("models").begin_array();
    for (const simulate_fleet_model& m : r.fleet_models) {
      w.begin_object();
      w.key("gpu").value(m.gpu->slug).key("gpus").value(m.gpus).key("nodes").value(m.nodes);
      w.key("inferred").begin_array();
      write_inferred(w, *m.gpu, inferred_among(*m.gpu, m.replayed));
      w.end_array().end_object();
    }
    w.end_array();
    w.end_object();
    w.key("static_plan").begin_object();
    w.key("gpus").value(r.plan_gpus).key("optimal").value(r.plan_optimal);
    if (r.fleet_models.size() > 1) w.key("unmet_instances").value(r.plan_unmet);
    w.key("geometries").begin_array();
    for (const auto& [text, n] : r.geometries)
      w.flat().begin_object().key("count").value(n).key("instances").value(text).end_object();
    write_model_geometries(w, r, &simulate_fleet_model::plan_geometries);
    w.end_array().end_object();
    w.key("static_geometry").begin_object();
    w.key("from").value(r.static_from);
    w.key("subset").value(r.static_subset);
    if (!r.static_file.empty()) w.key("file").value(r.static_file);
    w.key("geometries").begin_array();
    for (const auto& [text, n] : r.static_geometries)
      w.flat().begin_object().key("count").value(n).key("instances").value(text).end_object();
    write_model_geometries(w, r, &simulate_fleet_model::static_geometries);
    w.end_array().end_object();
    w.key("policies").begin_array();
    for (const simulate_policy& p : r.policies) {
      const replay_metrics& m = p.metrics;
      w.begin_object();
      w.key("name").value(p.name);
      w.key("mode").value(p.policy.mode == replay_mode::dynamic ? "dynamic" : "static");
      w.key("nodes").value(node_choice_name(p.policy.nodes));
      w.key("placement").value(gpu_choice_name(p.policy.placement));
      w.key("pods_accepted").value(m.pods_accepted).key("pods_rejected").value(m.pods_rejected);
      w.key("instances_accepted").value(m.instances_accepted);
      w.key("instances_rejected").value(m.instances_rejected);
      w.key("instance_seconds").value(m.instance_time);
      w.key("gpu_seconds").value(m.gpu_time);
      w.key("peak_gpus_in_use").value(m.peak_gpus_in_use);
      w.key("mean_gpus_in_use").number(p.rates.mean_gpus_active);
      w.key("stranded_slice_seconds").value(m.stranded_slice_time);
      w.key("creations").value(m.creations).key("destructions").value(m.destructions);
      w.key("first_rejection").value(m.first_rejection);
      w.key("acceptance_rate").number(p.rates.acceptance);
      w.key("makespan_seconds").value(m.makespan);
      w.key("models").begin_array();
      for (std::size_t k = 0; k < m.models.size() && k < r.fleet_models.size(); ++k) {
        const replay_model_metrics& x = m.models[k];
        w.flat().begin_object();
        w.key("gpu").value(r.fleet_models[k].gpu->slug).key("gpus").value(r.fleet_models[k].gpus);
        w.key("pods_accepted").value(x.pods_accepted);
        w.key("instances_accepted").value(x.instances_accepted);
        w.key("instance_seconds").value(x.instance_time).key("gpu_seconds").value(x.gpu_time);
        w.key("peak_gpus_in_use").value(x.peak_gpus_in_use);
        w.key("stranded_slice_seconds").value(x.stranded_slice_time);
        w.end_object();
      }
      w.end_array();
      if (r.pending != pending_rule::reject) {
        w.key("queue").begin_object();
        w.key("backfill").value(r.pending == pending_rule::backfill);
        w.key("pods_started").value(m.pods_accepted).key("pods_pending").value(m.pods_pending);
        w.key("pods_refused").value(m.pods_rejected);
        w.key("wait_seconds").begin_object();
        w.key("p50").value(m.waits.p50).key("p95").value(m.waits.p95);
        w.key("p99").value(m.waits.p99).key("max").value(m.waits.max);
        w.end_object();
        w.key("peak").value(m.queue_peak);
        w.key("mean").number(p.rates.mean_queue);
        w.key("pod_seconds").value(m.queue_time);
        w.end_object();
      }
      if (p.policy.defrag > 0) {
        w.key("defrag").begin_object();
        w.key("most_moves").value(p.policy.defrag);
        w.key("moves").value(m.moves).key("pods_moved").value(m.pods_moved);
        w.key("moved_share")
            .number(m.pods == 0 ? 0.0
                                : static_cast<double>(m.pods_moved) / static_cast<double>(m.pods));
        w.key("starts").value(m.defrag_starts);
        w.end_object();
      }
      if (on_demand(p)) {
        w.key("on_demand").begin_object();
        w.key("create_seconds").number(static_cast<double>(p.policy.create_milli) / 1000.0);
        w.key("keep_idle_seconds");
        if (p.policy.keep_idle < 0)
          w.null();
        else
          w.value(p.policy.keep_idle);
        w.key("reuses").value(m.reuses).key("reclaims").value(m.reclaims);
        w.key("idle_instance_seconds").value(m.idle_instance_time);
        w.key("creation_wait_seconds").value(m.create_time);
        w.end_object();
      }
      if (p.replan) {
        w.key("replan").begin_object();
        w.key("period_seconds").value(p.replan->period_s);
        w.key("window").value(p.replan->oracle ? "next" : "last");
        w.key("reconfigure_seconds").value(r.reconfigure_s);
        w.key("replans").value(m.replans);
        w.key("reconfigurations").value(m.reconfigurations);
        w.key("pods_evicted").value(m.pods_evicted);
        w.key("unavailable_gpu_seconds").value(m.unavailable_time);
        w.key("pods_evicted_once").value(m.pods_evicted_once);
        w.key("evicted_share").number(p.rates.evicted);
        w.key("unavailable_makespan_gpu_seconds").value(m.unavailable_makespan_time);
        w.key("reconfiguration_overhead").number(p.rates.reconfiguration_overhead);
        w.end_object();
      }
      if (r.size) w.key("sized_gpus").value(p.sized);
      w.end_object();
    }
    w.end_array();
    if (r.size) {
      w.key("sizing").begin_object();
      w.key("reject_target_percent").number(r.reject_target);
      if (r.wait) {
        w.key("wait_target").flat().begin_object();
        w.key("percentile").value(r.wait->name).key("seconds").value(r.wait->seconds);
        w.end_object();
      }
      w.key("limit").value(r.size_limit);
      w.key("models").begin_array();
      for (const simulate_sizing& m : r.sizing) {
        w.begin_object();
        w.key("gpu").value(m.gpu->slug).key("limit").value(m.limit);
        w.key("plan_gpus").value(m.plan_gpus).key("plan_optimal").value(m.plan_optimal);
        w.key("policies").begin_array();
        for (std::size_t p = 0; p < r.policies.size(); ++p)
          w.flat()
              .begin_object()
              .key("name")
              .value(r.policies[p].name)
              .key("sized_gpus")
              .value(m.sized[p])
              .end_object();
        w.end_array();
        w.key("inferred").begin_array();
        write_inferred(w, *m.gpu, inferred_among(*m.gpu, m.replayed));
        w.end_array().end_object();
      }
      w.end_array();
      w.end_object();
    }
    w.key("inferred").begin_array();
    write_inferred(w, *r.gpu, replayed_inferred(r));
    w.end_array();
  });
}

}  // namespace migplan::cli::render

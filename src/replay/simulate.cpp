// SPDX-License-Identifier: Apache-2.0
#include "replay/simulate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstddef>
#include <memory>
#include <migplan/lookup.hpp>
#include <migplan/replay.hpp>
#include <migplan/rules.hpp>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "plan/solver.hpp"
#include "replay/trace_replay.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

// plan's time limit for the static geometry (as plan's default).
constexpr double static_plan_time_limit_s = 60;

// Buckets of a plotted series: more than the plot has pixels across, so a
// step is never wider than a pixel, and a line has at most about 4,000
// points (tens of kilobytes) however many pods the trace has.
constexpr std::size_t plot_buckets = 1000;

// Hears a replay (replay_watch): keeps the series for --plot, and shows how
// far the replay has come.
struct simulate_watch {
  simulate_watch(replay_series* s, replay_progress& p, std::string what)
      : series(s), progress(&p), label(std::move(what)) {}
  replay_series* series;
  replay_progress* progress;
  std::string label;
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::uint32_t ticks = 0;

  void begin(std::int64_t s, std::int64_t e) {
    start = s;
    end = e;
    if (series) series->begin(s, e);
  }
  void step(std::int64_t time, int slices, int gpus) {
    if (series) series->step(time, slices, gpus);
    // The clock is read every 4096 events only: a replay does millions a second.
    if ((++ticks & 0xFFFu) == 0 && progress->due())
      progress->show(fmt::format("migplan simulate: {}: {}% of the trace", label,
                                 (time - start) * 100 / std::max<std::int64_t>(end - start, 1)));
  }
  void model_step(std::int64_t time, std::size_t model, int slices, int gpus) {
    if (series) series->model_step(time, model, slices, gpus);
  }
  void reject(std::int64_t time) {
    if (series) series->reject(time);
  }
  void started(std::uint32_t /*pod*/, std::int64_t /*arrival*/, std::int64_t /*time*/) {}
  void finish() {
    if (series) series->finish();
  }
};

// The fleet as it is: its nodes, and each GPU's instances as its static
// geometry (a GPU with MIG off serves whole-GPU pods alone: its geometry
// is the full-GPU instance).
// Models in order of first appearance on the nodes. An nvidia-smi listing
// or a fleet of one model gives one.
replay_fleet fleet_now_replayed(const fleet_now& now, std::vector<layout>& geometry,
                                simulate_result& res) {
  replay_fleet fleet;
  int widest = 0;
  for (const fleet_now_node& n : now.nodes) {
    auto at = std::find(fleet.models.begin(), fleet.models.end(), n.gpu);
    if (at == fleet.models.end()) at = fleet.models.insert(at, n.gpu);
    fleet.nodes.push_back({static_cast<int>(at - fleet.models.begin()), 0});
  }
  for (const fleet_now_gpu& g : now.gpus) {
    widest = std::max(widest, ++fleet.nodes[static_cast<std::size_t>(g.node)].gpus);
    if (g.mig_enabled) {
      geometry.push_back(g.held);
      continue;
    }
    const gpu_model& gpu = *now.nodes[static_cast<std::size_t>(g.node)].gpu;
    const int full = full_profile(gpu);
    layout whole;
    whole.add({full, std::countr_zero(gpu.profiles[static_cast<std::size_t>(full)].starts)});
    geometry.push_back(whole);
  }
  res.gpus = static_cast<int>(now.gpus.size());
  res.per_node = widest;
  res.nodes = static_cast<int>(now.nodes.size());
  res.static_from = "current";
  return fleet;
}

// A re-planned policy's choice of geometries (replay_replan::choose): plan's
// fewest-changes re-plan of the fleet as it is for the window's demand
// (replan_demand(): its peaks, and under a queue the pods waiting), each
// GPU taken as idle (every pod on a GPU that changes is evicted anyway).
// Where the demand does not fit the fleet, the target is what static takes for
// a fleet smaller than its plan: the plan for the demand, and of it
// the GPUs that keep each profile nearest its share of the demand
// (trace_replay::geometry()); the re-plan then meets that target's instances
// per profile with the fewest changes. A window without demand, or a plan
// that finds nothing in its time limit, keeps every GPU as it is. Then each
// item waiting in the queue gets a node that holds a pod of it
// (colocate()). Times each re-plan into `p`.
class replanner {
 public:
  replanner(const gpu_model& gpu, const replay_fleet& fleet, std::span<const replay_item> items,
            simulate_policy& p)
      : gpu_(&gpu), fleet_(&fleet), items_(items), policy_(&p) {
    std::size_t at = 0;
    for (const replay_node& n : fleet.nodes) {
      first_gpu_.push_back(at);
      at += static_cast<std::size_t>(n.gpus);
    }
    first_gpu_.push_back(at);
  }

  std::vector<layout> operator()(const replan_window& w) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<layout> next(w.geometry.begin(), w.geometry.end());
    const std::vector<std::int64_t>& demand = w.demand.front();
    std::vector<std::int64_t> target = demand;  // the instances per profile the plan meets
    plan_request req;
    req.models.push_back({gpu_, std::nullopt, 1.0});
    req.time_limit_s = static_plan_time_limit_s;
    req.demand = demand_of(demand);
    if (!req.demand.empty()) {
      // The plan for the demand on as many GPUs as it needs comes first:
      // where it proves it needs more GPUs than the fleet has, a re-plan
      // for it could only say so (unmet), and is not run.
      const plan_result whole = solver_->solve(req);
      const bool too_few =
          whole.feasible && whole.optimal && whole.gpu_count > static_cast<long long>(next.size());
      req.allow_evict = true;
      req.current = current_of(next);
      std::optional<plan_result> plan;
      if (!too_few) plan = solver_->solve(req);
      if ((!plan || plan->status == plan_status::unmet) && whole.feasible) {
        trace_replay subset;
        subset.gpu = gpu_;
        subset.peaks = demand;
        subset.set_static(whole.groups);
        std::vector<std::int64_t> held(gpu_->profiles.size(), 0);
        for (const layout& l : subset.geometry(static_cast<int>(next.size())))
          for (const instance& in : l) ++held[static_cast<std::size_t>(in.profile)];
        req.demand = demand_of(held);
        target = held;
        plan = solver_->solve(req);
      }
      if (plan && plan->feasible) apply(*plan, next);
    }
    colocate(w, target, next);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    policy_->replan_seconds += took;
    policy_->replan_longest_s = std::max(policy_->replan_longest_s, took);
    return next;
  }

 private:
  // Instances of profile `p` in `l`.
  static int count_of(const layout& l, int p) {
    int n = 0;
    for (const instance& in : l) n += in.profile == p ? 1 : 0;
    return n;
  }
  // The layout of the most instances of profile `p` alone on one GPU (the
  // earliest starts first: instances of one size block no more so).
  layout densest(int p) const {
    const rules r(*gpu_);
    usage u;
    layout l;
    for (int s = 0; s < gpu_->units; ++s)
      if (r.can_add(u, p, s)) {
        u.add(gpu_->profiles[static_cast<std::size_t>(p)], p, s);
        l.add({p, s});
      }
    return l;
  }

  // A pod asks for its instances on one node, which per-profile demand does
  // not say: a plan can spread them over nodes, and a pod waiting at a FIFO
  // queue's head then never starts, nor does any pod behind it. So each
  // item waiting (w.waiting, the head's first) whose profile `next` holds
  // on no node as many times as one of its pods asks, where some node could
  // (its GPUs that many times at most, each alone), gets such a node: the
  // plan's geometries rearranged, a node's GPUs that hold the fewest of the
  // profile swapping geometries with the GPUs elsewhere that hold the most
  // (the instances per profile stay the plan's); else, where no swap
  // suffices, the node's GPUs holding the fewest take its densest geometry
  // (their geometry now where that holds as many) and the plan is made
  // again around them for `target`, kept where it meets it. Of the nodes
  // that would do, the one with the fewest GPUs changed, then the fewest
  // GPUs moved, then the first. The GPUs of the profile on the node each
  // item takes (or found) are held as they are for the items after it.
  void colocate(const replan_window& w, const std::vector<std::int64_t>& target,
                std::vector<layout>& next) {
    std::vector<std::uint8_t> locked(next.size(), 0);
    const auto differs = [&](std::size_t g, const layout& l) { return l == w.geometry[g] ? 0 : 1; };
    bool pinned = false;
    for (const replan_waiting& q : w.waiting) {
      const int p = items_[static_cast<std::size_t>(q.item)].profile.front();
      if (p < 0) continue;
      const layout dense = densest(p);
      const auto nodes = fleet_->nodes.size();
      const auto lock = [&](std::size_t n) {
        for (std::size_t g = first_gpu_[n]; g < first_gpu_[n + 1]; ++g)
          if (count_of(next[g], p) > 0) locked[g] = 1;
      };
      const auto holding = [&](std::size_t n) {
        int have = 0;
        for (std::size_t g = first_gpu_[n]; g < first_gpu_[n + 1]; ++g)
          have += count_of(next[g], p);
        return have;
      };
      std::optional<std::size_t> holds;
      bool could = false;
      for (std::size_t n = 0; n < nodes && !holds; ++n) {
        could = could || fleet_->nodes[n].gpus * dense.size() >= q.count;
        if (holding(n) >= q.count) holds = n;
      }
      if (holds) {
        lock(*holds);
        continue;
      }
      if (!could) continue;  // no geometry holds it: it waits whatever the plan
      // The unlocked GPUs by the instances of the profile, most first.
      std::vector<std::size_t> pool;
      for (std::size_t g = 0; g < next.size(); ++g)
        if (locked[g] == 0) pool.push_back(g);
      std::stable_sort(pool.begin(), pool.end(), [&](std::size_t a, std::size_t b) {
        return count_of(next[a], p) > count_of(next[b], p);
      });
      struct way {
        int changes = 0;                                    // GPUs changed, less before
        std::vector<std::pair<std::size_t, layout>> moves;  // GPU, its new geometry
      };
      std::optional<way> best;
      std::optional<std::size_t> best_node;
      const auto consider = [&](std::size_t n, way&& v) {
        const auto key = [](const way& x) { return std::pair(x.changes, x.moves.size()); };
        if (!best || key(v) < key(*best)) {
          best = std::move(v);
          best_node = n;
        }
      };
      for (int pass = 0; pass < 2 && !best; ++pass) {
        for (std::size_t n = 0; n < nodes; ++n) {
          if (fleet_->nodes[n].gpus * dense.size() < q.count) continue;
          // The node's unlocked GPUs, fewest of the profile first.
          std::vector<std::size_t> own;
          for (std::size_t g = first_gpu_[n]; g < first_gpu_[n + 1]; ++g)
            if (locked[g] == 0) own.push_back(g);
          std::stable_sort(own.begin(), own.end(), [&](std::size_t a, std::size_t b) {
            return count_of(next[a], p) < count_of(next[b], p);
          });
          int have = holding(n);
          way v;
          std::size_t o = 0;  // the next GPU of the pool to swap with
          for (const std::size_t g : own) {
            if (have >= q.count) break;
            const int mine = count_of(next[g], p);
            if (pass == 0) {
              while (o < pool.size() && pool[o] >= first_gpu_[n] && pool[o] < first_gpu_[n + 1])
                ++o;
              if (o == pool.size() || count_of(next[pool[o]], p) <= mine) break;
              const std::size_t h = pool[o++];
              v.changes += differs(g, next[h]) + differs(h, next[g]) - differs(g, next[g]) -
                           differs(h, next[h]);
              v.moves.emplace_back(g, next[h]);
              v.moves.emplace_back(h, next[g]);
              have += count_of(next[h], p) - mine;
            } else {
              const layout& now = w.geometry[g];
              const layout& to =
                  count_of(now, p) > mine && (count_of(now, p) == dense.size() ||
                                              have - mine + count_of(now, p) >= q.count)
                      ? now
                      : dense;
              if (count_of(to, p) <= mine) break;
              v.changes += differs(g, to) - differs(g, next[g]);
              v.moves.emplace_back(g, to);
              have += count_of(to, p) - mine;
            }
          }
          if (have >= q.count) consider(n, std::move(v));
        }
        pinned = pinned || (pass == 1 && best);
      }
      if (!best) continue;  // the items before hold every node that could
      for (auto& [g, l] : best->moves) next[g] = l;
      lock(*best_node);
    }
    if (!pinned) return;
    // The plan again, around the GPUs held: their instances taken as in use.
    plan_request req;
    req.models.push_back({gpu_, std::nullopt, 1.0});
    req.time_limit_s = static_plan_time_limit_s;
    req.demand = demand_of(target);
    req.current = current_of(next);
    std::size_t g = 0;
    for (current_node& node : *req.current)
      for (current_gpu& cg : node.gpus) {
        for (current_instance& in : cg.instances) in.in_use = locked[g] != 0;
        ++g;
      }
    if (req.demand.empty()) return;
    const plan_result again = solver_->solve(req);
    if (again.feasible) apply(again, next);
  }

  // One demand item per profile with instances in `counts`.
  std::vector<demand_item> demand_of(const std::vector<std::int64_t>& counts) const {
    std::vector<demand_item> out;
    for (std::size_t p = 0; p < counts.size(); ++p) {
      if (counts[p] == 0) continue;
      demand_item d;
      d.name = std::string(gpu_->profiles[p].name);
      d.profile = d.name;
      d.count = counts[p];
      out.push_back(d);
    }
    return out;
  }
  // The fleet's nodes ("n0", "n1", ...) with `geometry`'s instances, none in use.
  std::vector<current_node> current_of(const std::vector<layout>& geometry) const {
    std::vector<current_node> nodes;
    std::size_t g = 0;
    for (std::size_t n = 0; n < fleet_->nodes.size(); ++n) {
      current_node node;
      node.name = fmt::format("n{}", n);
      node.gpu = gpu_;
      for (int k = 0; k < fleet_->nodes[n].gpus; ++k, ++g) {
        current_gpu cg;
        cg.index = k;
        for (const instance& in : geometry[g])
          cg.instances.push_back(current_instance::at(in.profile, in.start));
        node.gpus.push_back(std::move(cg));
      }
      nodes.push_back(std::move(node));
    }
    return nodes;
  }
  // The plan's changed GPUs take their new geometries in `geometry`.
  void apply(const plan_result& plan, std::vector<layout>& geometry) const {
    for (const plan_change& c : plan.changes) {
      const std::size_t node = std::stoul(c.node.substr(1));
      layout l;
      for (const planned_instance& in : plan.groups[static_cast<std::size_t>(c.to_group)].instances)
        l.add(in.where);
      geometry[first_gpu_[node] + static_cast<std::size_t>(c.index)] = l;
    }
  }

  const gpu_model* gpu_;
  const replay_fleet* fleet_;
  std::span<const replay_item> items_;
  simulate_policy* policy_;
  std::vector<std::size_t> first_gpu_;  // per node: its first GPU of the fleet; then the GPUs
  // Shared: std::function copies the replanner; its geometries are built once.
  std::shared_ptr<plan::solver> solver_ = std::make_shared<plan::solver>();
};

// The fewest GPUs of each model each policy needs to meet the target.
std::optional<error> size_models(const simulate_request& r, const trace_replay& main,
                                 simulate_result& res, replay_tables& tables,
                                 replay_progress& progress) {
  for (const simulate_model& m : r.models) {
    std::optional<trace_replay> other;
    if (m.gpu != r.models.front().gpu) {
      auto p = prepare_replay(r.pods, *m.gpu, r.by_memory, static_plan_time_limit_s);
      if (!p) return unserved_on_one_of_several(p.error());
      other = std::move(*p);
    }
    const trace_replay& tr = other ? *other : main;
    // A pod that no node holds is rejected at every size: when such pods
    // alone pass the target, no size meets it, and the replays would only
    // count up to the limit to say so.
    const unholdable_pods unheld = pods_no_node_holds(r.pods, tr, res.per_node);
    if (static_cast<double>(unheld.pods) * 100.0 >
        r.reject_target * static_cast<double>(res.pods)) {
      diagnostic d = unheld.first;
      d.message = fmt::format(
          "{} (pods no node holds: {} of {}); no number of {} GPUs rejects at most {}% of "
          "pods (--gpus-per-node sets a node's GPUs)",
          d.message, unheld.pods, res.pods, m.gpu->slug, r.reject_target);
      return error{std::move(d)};
    }
    simulate_sizing s;
    s.gpu = m.gpu;
    s.limit =
        static_cast<int>(std::min(m.available.value_or(max_simulate_gpus), max_simulate_gpus));
    s.plan_gpus = tr.plan_gpus;
    s.plan_optimal = tr.plan_optimal;
    for (std::size_t p = 0; p < tr.peaks.size(); ++p)
      if (tr.peaks[p] > 0) s.replayed.push_back(static_cast<int>(p));
    for (simulate_policy& p : res.policies) {
      const std::optional<int> sized = fewest_gpus(
          [&](int n) {
            simulate_watch watch(
                nullptr, progress,
                fmt::format("sizing {} at {} {} GPU{}", p.name, n, m.gpu->slug, plural(n)));
            const replay_metrics got = replay(fleet_of(*m.gpu, n, res.per_node), tr.items, tr.pods,
                                              p.policy, tr.geometry(n), tables, watch);
            return meets_targets(got, res.pods, r.reject_target, r.wait);
          },
          s.limit);
      if (m.gpu == r.models.front().gpu) p.sized = sized;
      s.sized.push_back(sized);
    }
    res.sizing.push_back(std::move(s));
  }
  res.size_limit = res.sizing.front().limit;
  return std::nullopt;
}

// What every replay of the request reports as it was asked: the trace, the
// settings of the queue and of the instances' life.
simulate_result result_of_request(const simulate_request& r) {
  simulate_result res;
  res.trace = r.trace_shown;
  res.alibaba = r.pods.alibaba;
  res.skipped = r.pods.skipped;
  res.metric = r.metric;
  res.pending = r.pending;
  res.wait = r.wait;
  res.reconfigure_s = r.reconfigure_s;
  res.create_milli = r.create_milli;
  res.keep_idle_s = r.keep_idle_s;
  return res;
}

// The trace replayed on a fleet of several models (r.mixed, or --current's)
// under each policy: each row resolved on each model; the static geometry
// the fleet's as it is (--current) or plan's for the peaks of the trace's
// kinds within each model's GPUs (plan_mixed_static()).
result<simulate_result> simulate_mixed(const simulate_request& r, replay_progress& progress) {
  simulate_result res = result_of_request(r);
  std::vector<layout> geometry;
  const replay_fleet fleet = r.now ? fleet_now_replayed(*r.now, geometry, res) : *r.mixed;
  auto built = pods_of(r.pods, fleet.models, r.by_memory);
  if (!built) return built.error();
  const auto& [items, pods] = *built;
  std::vector<plan_group> planned;
  if (!r.now) {
    auto plan = plan_mixed_static(fleet, items, pods, static_plan_time_limit_s);
    if (!plan) return plan.error();
    res.peaks = std::move(plan->peaks);
    res.peak_kinds = std::move(plan->kinds);
    res.plan_gpus = plan->plan_gpus;
    res.plan_optimal = plan->plan_optimal;
    res.plan_unmet = plan->unmet;
    geometry = std::move(plan->geometry);
    planned = std::move(plan->groups);
  }
  res.pods = static_cast<long long>(pods.size());
  for (const replay_pod& p : pods) res.instances += items[static_cast<std::size_t>(p.item)].count;
  res.gpu = fleet.models.front();
  res.gpus = fleet.gpu_count();
  res.nodes = static_cast<int>(fleet.nodes.size());
  if (r.now) res.current = r.current_shown;
  for (std::size_t m = 0; m < fleet.models.size(); ++m) {
    simulate_fleet_model fm;
    fm.gpu = fleet.models[m];
    std::vector<layout> held;  // the static geometry of the model's GPUs
    std::ptrdiff_t gpu = 0;
    for (const replay_node& n : fleet.nodes) {
      res.per_node = std::max(res.per_node, n.gpus);
      const std::ptrdiff_t next = gpu + n.gpus;
      if (static_cast<std::size_t>(n.model) == m) {
        fm.gpus += n.gpus;
        ++fm.nodes;
        if (!geometry.empty())
          held.insert(held.end(), geometry.begin() + gpu, geometry.begin() + next);
      }
      gpu = next;
    }
    fm.static_geometries = geometries_of(*fm.gpu, held);
    for (const plan_group& g : planned)
      if (g.gpu == fm.gpu)
        fm.plan_geometries.emplace_back(geometry_text(*g.gpu, g.instances), g.count);
    for (const replay_item& it : items)
      if (it.profile[m] >= 0 &&
          std::find(fm.replayed.begin(), fm.replayed.end(), it.profile[m]) == fm.replayed.end())
        fm.replayed.push_back(it.profile[m]);
    std::sort(fm.replayed.begin(), fm.replayed.end());
    res.fleet_models.push_back(std::move(fm));
  }
  replay_tables tables;
  for (const simulate_choice& c : r.policies) {
    simulate_policy p;
    p.name = c.name;
    p.policy = c.policy;
    if (r.plot) p.series.emplace(plot_buckets);
    simulate_watch watch(p.series ? &*p.series : nullptr, progress, p.name);
    p.metrics = replay(fleet, items, pods, p.policy, geometry, tables, watch);
    p.rates = replay_rates_of(p.metrics, res.gpus);
    res.policies.push_back(std::move(p));
  }
  return res;
}

// A re-planned policy re-plans at every period from the trace's first time
// to its last: replan:1s over a trace of years is billions of re-plans, a
// run that never ends. Past max_replans it is refused before it starts.
std::optional<error> too_many_replans(std::span<const simulate_choice> policies,
                                      std::span<const replay_pod> pods) {
  if (pods.empty()) return std::nullopt;
  std::int64_t first = pods.front().start;
  std::int64_t last = first;
  for (const replay_pod& p : pods) {
    first = std::min(first, p.start);
    last = std::max({last, p.start, p.end});
  }
  for (const simulate_choice& p : policies) {
    if (!p.replan || p.replan->period_s <= 0) continue;
    const std::int64_t replans = last > first ? (last - first - 1) / p.replan->period_s : 0;
    if (replans > max_replans)
      return error{fmt::format(
          "--policy {} re-plans {} times over the trace's {} s; at most {}: give a period of {}s "
          "or more",
          p.name, replans, last - first, max_replans, (last - first - 1) / (max_replans + 1) + 1)};
  }
  return std::nullopt;
}

}  // namespace

result<simulate_result> simulate(const simulate_request& r, replay_progress& progress) {
  if (r.mixed || (r.now && r.models.size() > 1)) return simulate_mixed(r, progress);
  const gpu_model& gpu = *r.models.front().gpu;
  auto prepared = prepare_replay(r.pods, gpu, r.by_memory, static_plan_time_limit_s);
  if (!prepared)
    return r.models.size() > 1 ? unserved_on_one_of_several(prepared.error()) : prepared.error();
  if (r.static_plan) prepared->set_static(*r.static_plan);
  const trace_replay& main = *prepared;
  if (auto too_many = too_many_replans(r.policies, main.pods)) return *too_many;
  simulate_result res = result_of_request(r);
  for (const simulate_choice& p : r.policies) {
    simulate_policy out;
    out.name = p.name;
    out.policy = p.policy;
    out.replan = p.replan;
    res.policies.push_back(std::move(out));
  }
  res.static_file = r.static_shown;
  res.pods = static_cast<long long>(main.pods.size());
  for (const replay_pod& p : main.pods)
    res.instances += main.items[static_cast<std::size_t>(p.item)].count;
  res.gpu = &gpu;
  res.per_node = r.per_node;  // --current: its widest node, below
  for (std::size_t p = 0; p < main.peaks.size(); ++p)
    if (main.peaks[p] > 0) res.peaks.emplace_back(std::string(gpu.profiles[p].name), main.peaks[p]);
  res.plan_gpus = main.plan_gpus;
  res.plan_optimal = main.plan_optimal;
  for (const plan_group& grp : main.groups)
    res.geometries.emplace_back(geometry_text(gpu, grp.instances), grp.count);

  replay_fleet fleet;
  std::vector<layout> geometry;
  if (r.now) {
    fleet = fleet_now_replayed(*r.now, geometry, res);
    res.current = r.current_shown;
  } else {
    const long long planned = main.static_gpus();
    res.gpus =
        r.gpus ? *r.gpus : static_cast<int>(std::clamp<long long>(planned, 1, max_simulate_gpus));
    res.nodes = (res.gpus + res.per_node - 1) / res.per_node;
    fleet = fleet_of(gpu, res.gpus, res.per_node);
    geometry = main.geometry(res.gpus);
    res.static_from = r.static_plan ? "static-plan" : "plan";
    res.static_subset = static_cast<long long>(res.gpus) < planned;
  }
  res.static_geometries = geometries_of(gpu, geometry);
  {
    simulate_fleet_model fm{&gpu, res.gpus, res.nodes, {}, {}, {}};
    for (std::size_t p = 0; p < main.peaks.size(); ++p)
      if (main.peaks[p] > 0) fm.replayed.push_back(static_cast<int>(p));
    res.fleet_models.push_back(std::move(fm));
  }

  replay_tables tables;
  for (simulate_policy& p : res.policies) {
    if (r.plot) p.series.emplace(plot_buckets);
    simulate_watch watch(p.series ? &*p.series : nullptr, progress, p.name);
    if (!p.replan) {
      p.metrics = replay(fleet, main.items, main.pods, p.policy, geometry, tables, watch);
      continue;
    }
    replay_replan replan;
    replan.period = p.replan->period_s;
    replan.reconfigure = r.reconfigure_s;
    replan.next_window = p.replan->oracle;
    replan.choose = replanner(gpu, fleet, main.items, p);
    p.metrics = replay(fleet, main.items, main.pods, p.policy, geometry, tables, watch, &replan);
  }
  for (simulate_policy& p : res.policies) p.rates = replay_rates_of(p.metrics, res.gpus);
  res.size = r.size;
  res.reject_target = r.reject_target;
  if (r.size) {
    if (auto failed = size_models(r, main, res, tables, progress)) return *failed;
  }
  return res;
}

}  // namespace migplan::cli

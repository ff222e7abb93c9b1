// SPDX-License-Identifier: Apache-2.0
#include "replay/trace_replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <map>
#include <migplan/compute.hpp>
#include <migplan/lookup.hpp>
#include <migplan/search.hpp>
#include <migplan/sizing.hpp>
#include <optional>
#include <span>
#include <tuple>

#include "model/simulate.hpp"
#include "plan/solver.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

// The profile of `gpu` that serves a share of `milli` thousandths of a GPU:
// the smallest (fewest compute slices, then fewest units, then catalog
// order) whose share of compute slices (or, by memory, of the full GPU's
// memory) is at least milli / 1000; -1 when none.
int share_profile(const gpu_model& gpu, int milli, bool by_memory) {
  const int full = full_profile(gpu);
  // 0 when the full profile's memory is unknown (an optional here raised
  // GCC 12's false -Wmaybe-uninitialized at -O2).
  const int full_memory =
      full >= 0 ? gpu.profiles[static_cast<std::size_t>(full)].memory_gib_x100.value_or(0) : 0;
  int best = -1;
  std::tuple<int, int, int> best_key{};
  for (std::size_t i = 0; i < gpu.profiles.size(); ++i) {
    const profile& p = gpu.profiles[i];
    if (p.max_instances < 1) continue;
    if (by_memory) {
      if (!p.memory_gib_x100 || full_memory <= 0 ||
          static_cast<long long>(*p.memory_gib_x100) * 1000 <
              static_cast<long long>(milli) * full_memory)
        continue;
    } else if (p.compute_slices * 1000 < milli * gpu.compute_slices) {
      continue;
    }
    const std::tuple<int, int, int> key =
        by_memory ? std::tuple{*p.memory_gib_x100, p.compute_slices, p.size}
                  : std::tuple{p.compute_slices, p.size, 0};
    if (best < 0 || key < best_key) {
      best = static_cast<int>(i);
      best_key = key;
    }
  }
  return best;
}

// The GPU-instance profile of `gpu` serving a demand item: the named profile,
// the GPU instance of a named CI profile, or the smallest meeting a memory
// need (as plan sizes it); -1 when none.
int item_profile(const gpu_model& gpu, const demand_item& d) {
  if (!d.profile.empty()) {
    if (const int p = find_profile(gpu, d.profile); p >= 0) return p;
    for (std::size_t i = 0; i < gpu.profiles.size(); ++i)
      if (find_ci(gpu.profiles[i], d.profile) >= 0) return static_cast<int>(i);
    return -1;
  }
  if (!d.memory_mib) return -1;
  const need n{*d.memory_mib, d.sms, 1};
  if (!d.compute_slices) return size_for(gpu, n).profile;
  int best = -1;
  std::tuple<int, int, int> best_key{};
  for (std::size_t i = 0; i < gpu.profiles.size(); ++i) {
    const profile& p = gpu.profiles[i];
    if (!meets(p, n) || p.compute_slices < *d.compute_slices || p.max_instances < 1) continue;
    const std::tuple<int, int, int> key{p.size, p.compute_slices, -p.max_instances};
    if (best < 0 || key < best_key) {
      best = static_cast<int>(i);
      best_key = key;
    }
  }
  return best;
}

std::string describe_row(const trace_row& row) {
  switch (row.need) {
    case trace_need::whole:
      return row.instances == 1 ? "a whole GPU" : fmt::format("{} whole GPUs", row.instances);
    case trace_need::share:
      return fmt::format("gpu_milli {}", row.milli);
    case trace_need::item:
      break;
  }
  return quote_token(row.item.name);
}

// The profile of `gpu` that serves `row`'s pods; -1 when none.
int row_profile(const gpu_model& gpu, const trace_row& row, bool share_by_memory) {
  switch (row.need) {
    case trace_need::whole:
      return full_profile(gpu);
    case trace_need::share:
      return share_profile(gpu, row.milli, share_by_memory);
    case trace_need::item:
      break;
  }
  return item_profile(gpu, row.item);
}

}  // namespace

result<std::pair<std::vector<replay_item>, std::vector<replay_pod>>> pods_of(
    const trace& t, std::span<const gpu_model* const> gpus, bool share_by_memory) {
  std::vector<replay_item> items;
  std::map<std::pair<std::vector<int>, int>, int> index;  // (profiles, instances) -> item
  std::pair<std::vector<int>, int> key;                   // reused: no allocation per row
  std::vector<replay_pod> pods;
  std::int64_t last = t.rows.front().start;
  for (const trace_row& row : t.rows) last = std::max({last, row.start, row.end.value_or(last)});
  for (const trace_row& row : t.rows) {
    key.first.clear();
    key.second = row.instances;
    bool served = false;
    for (const gpu_model* gpu : gpus) {
      key.first.push_back(row_profile(*gpu, row, share_by_memory));
      served = served || key.first.back() >= 0;
    }
    if (!served) {
      if (gpus.size() == 1)
        return error{row_diagnostic(
            row, fmt::format("no profile of {} serves {}", gpus.front()->slug, describe_row(row)))};
      std::vector<std::string_view> slugs;
      for (const gpu_model* gpu : gpus) slugs.push_back(gpu->slug);
      return error{
          row_diagnostic(row, fmt::format("no model of the fleet ({}) has a profile that serves {}",
                                          fmt::join(slugs, ", "), describe_row(row)))};
    }
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, static_cast<int>(items.size())).first;
      items.push_back({key.first, row.instances});
    }
    for (long long k = 0; k < row.count; ++k)
      pods.push_back({row.start, row.end.value_or(last), it->second});
  }
  return std::pair{std::move(items), std::move(pods)};
}

namespace {

// A profile's share of its peak, capped at the whole peak: served / peak.
struct peak_share {
  std::int64_t served = 0;
  std::int64_t peak = 1;
  friend bool operator<(const peak_share& a, const peak_share& b) {
    return a.served * b.peak < b.served * a.peak;  // exactly, in integers
  }
};

// The shares after adding `adds` (instances per profile) to `served`,
// least first: the vector the choice below compares.
std::vector<peak_share> shares_after(const std::vector<std::int64_t>& served,
                                     const std::vector<int>& adds,
                                     const std::vector<std::int64_t>& peaks,
                                     const std::vector<std::size_t>& with_peak) {
  std::vector<peak_share> out;
  out.reserve(with_peak.size());
  for (const std::size_t p : with_peak)
    out.push_back({std::min(served[p] + adds[p], peaks[p]), peaks[p]});
  std::sort(out.begin(), out.end());
  return out;
}

// The order in which a fleet smaller than the static plan takes the plan's
// GPUs. Each next GPU is of the geometry (a plan group with GPUs left) that
// leaves the profiles' shares of their peaks (each capped at the whole peak)
// best, least share first, compared as sorted vectors (leximin): the least
// served profile is served most, then the next; ties go to the geometry with
// the most compute slices in use, then to the first. A fleet of n GPUs takes
// the first n of this order, so every profile keeps a share of its peak as
// near to the others' as the planned geometries allow.
//
// Groups that hold the same instances per profile score alike, so they are
// one candidate, whose GPUs go in group order (the first group wins their
// ties); a GPU has at most a few hundred such kinds (127 geometries on an
// H100), so a step costs the kinds, not the groups. No fleet is larger than
// `most` GPUs, so the order stops there: time is linear in the groups plus
// `most` steps, however many GPUs the plan has.
std::vector<int> subset_order(const gpu_model& gpu, const std::vector<plan_group>& groups,
                              const std::vector<std::int64_t>& peaks, long long most) {
  const std::size_t np = gpu.profiles.size();
  struct kind {
    std::vector<int> held;        // instances per profile on one GPU
    int slices = 0;               // compute slices in use on one GPU
    std::vector<std::size_t> of;  // its groups, in plan order
    std::size_t next = 0;         // the first of them with GPUs left
    long long left_in_next = 0;   // GPUs left in that group
  };
  std::vector<kind> kinds;
  std::map<std::vector<int>, std::size_t> kind_of;
  long long total = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].count <= 0) continue;
    std::vector<int> held(np, 0);
    int slices = 0;
    for (const planned_instance& in : groups[g].instances) {
      ++held[static_cast<std::size_t>(in.where.profile)];
      slices += gpu.profiles[static_cast<std::size_t>(in.where.profile)].compute_slices;
    }
    const auto [it, fresh] = kind_of.try_emplace(held, kinds.size());
    if (fresh) kinds.push_back({std::move(held), slices, {}, 0, groups[g].count});
    kinds[it->second].of.push_back(g);
    total += groups[g].count;
  }
  std::vector<std::size_t> with_peak;
  for (std::size_t p = 0; p < np; ++p)
    if (p < peaks.size() && peaks[p] > 0) with_peak.push_back(p);
  std::vector<std::int64_t> served(np, 0);
  std::vector<int> order;
  const long long steps = std::min(total, most);
  order.reserve(static_cast<std::size_t>(std::max<long long>(steps, 0)));
  std::vector<peak_share> best;
  for (long long k = 0; k < steps; ++k) {
    std::size_t pick = kinds.size();
    for (std::size_t c = 0; c < kinds.size(); ++c) {
      const kind& kc = kinds[c];
      if (kc.next == kc.of.size()) continue;
      std::vector<peak_share> after = shares_after(served, kc.held, peaks, with_peak);
      bool better = pick == kinds.size() || best < after;
      if (!better && !(after < best)) {  // equal shares: the fuller GPU, then the first group
        const kind& kp = kinds[pick];
        better =
            kc.slices > kp.slices || (kc.slices == kp.slices && kc.of[kc.next] < kp.of[kp.next]);
      }
      if (better) {
        pick = c;
        best = std::move(after);
      }
    }
    kind& kp = kinds[pick];
    order.push_back(static_cast<int>(kp.of[kp.next]));
    for (std::size_t p = 0; p < np; ++p) served[p] += kp.held[p];
    if (--kp.left_in_next == 0 && ++kp.next < kp.of.size())
      kp.left_in_next = groups[kp.of[kp.next]].count;
  }
  return order;
}

}  // namespace

unholdable_pods pods_no_node_holds(const trace& t, const trace_replay& tr, int per_node) {
  const gpu_model& gpu = *tr.gpu;
  const rules r(gpu);
  std::vector<int> per_gpu(gpu.profiles.size(), -1);  // instances of a profile alone, once each
  const auto most_on_one_gpu = [&](int p) {
    int& k = per_gpu[static_cast<std::size_t>(p)];
    if (k >= 0) return k;
    const std::vector<item> alone(
        static_cast<std::size_t>(gpu.profiles[static_cast<std::size_t>(p)].max_instances), item{p});
    for (k = static_cast<int>(alone.size());
         k > 0 && !fits(r, std::span<const item>(alone.data(), static_cast<std::size_t>(k))); --k) {
    }
    return k;
  };
  unholdable_pods out;
  std::size_t pod = 0;  // pods_of() makes each row's pods in turn
  for (const trace_row& row : t.rows) {
    if (pod >= tr.pods.size()) break;
    const replay_item& it = tr.items[static_cast<std::size_t>(tr.pods[pod].item)];
    pod += static_cast<std::size_t>(row.count);
    const int p = it.profile.front();
    const long long most = static_cast<long long>(per_node) * most_on_one_gpu(p);
    if (it.count <= most) continue;
    if (out.pods == 0)
      out.first = row_diagnostic(
          row,
          fmt::format(
              "no node of {} {} GPU{} holds a pod of {}: it needs {} instances of {} on one node, "
              "and a node holds {} at most",
              per_node, gpu.slug, plural(per_node),
              row.need == trace_need::item && row.instances > 1
                  ? quote_token(fmt::format("{}x{}", row.instances, row.item.name))
                  : describe_row(row),
              it.count, gpu.profiles[static_cast<std::size_t>(p)].name, most));
    out.pods += row.count;
  }
  return out;
}

replay_fleet fleet_of(const gpu_model& gpu, int gpus, int per_node) {
  replay_fleet f{{&gpu}, {}};
  for (int left = gpus; left > 0; left -= per_node)
    f.nodes.push_back({0, std::min(per_node, left)});
  return f;
}

std::string geometry_text(const gpu_model& gpu, const std::vector<planned_instance>& instances) {
  std::string out;
  for (const planned_instance& in : instances)
    out +=
        fmt::format("{}{}@{}", out.empty() ? "" : " ",
                    gpu.profiles[static_cast<std::size_t>(in.where.profile)].name, in.where.start);
  return out;
}

geometry_counts geometries_of(const gpu_model& gpu, const std::vector<layout>& gpus) {
  geometry_counts out;
  std::map<std::string, std::size_t> at;  // text -> its entry in out
  for (const layout& l : gpus) {
    std::string text;
    for (const instance& in : l)
      text += fmt::format("{}{}@{}", text.empty() ? "" : " ",
                          gpu.profiles[static_cast<std::size_t>(in.profile)].name, in.start);
    if (text.empty()) text = "(none)";
    const auto [it, fresh] = at.try_emplace(text, out.size());
    if (fresh)
      out.emplace_back(std::move(text), 1);
    else
      ++out[it->second].second;
  }
  return out;
}

std::vector<layout> trace_replay::geometry(int n) const {
  std::vector<layout> out;
  const auto planned = static_cast<long long>(order.size());
  if (planned == 0) return std::vector<layout>(static_cast<std::size_t>(n));
  const auto want = static_cast<std::size_t>(n);
  if (n >= planned) {  // the plan's GPUs in group order, round and round
    out.reserve(want);
    while (out.size() < want)
      for (std::size_t g = 0; g < static_groups.size() && out.size() < want; ++g)
        for (long long c = 0; c < static_groups[g].count && out.size() < want; ++c)
          out.push_back(group_layouts[g]);
    return out;
  }
  assert(want <= order.size());  // n is at most max_simulate_gpus, where the order stops
  std::vector<long long> take(static_groups.size(), 0);
  for (int i = 0; i < n; ++i) ++take[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
  for (std::size_t g = 0; g < static_groups.size(); ++g)
    out.insert(out.end(), static_cast<std::size_t>(take[g]), group_layouts[g]);
  return out;
}

void trace_replay::set_static(std::vector<plan_group> planned) {
  static_groups = std::move(planned);
  group_layouts.clear();
  for (const plan_group& grp : static_groups) {
    layout l;
    for (const planned_instance& in : grp.instances) l.add(in.where);
    group_layouts.push_back(l);
  }
  order = subset_order(*gpu, static_groups, peaks, max_simulate_gpus);
}

long long trace_replay::static_gpus() const {
  long long n = 0;
  for (const plan_group& grp : static_groups) n += grp.count;
  return n;
}

result<mixed_static> plan_mixed_static(const replay_fleet& fleet,
                                       std::span<const replay_item> items,
                                       std::span<const replay_pod> pods, double plan_time_limit_s) {
  // Kinds: items of one profile per model, whatever their instance count.
  std::map<std::vector<int>, int> kind_of;
  std::vector<replay_item> by_kind;  // the items, each with its kind as its one profile
  std::vector<std::vector<int>> kinds;
  for (const replay_item& it : items) {
    const auto [at, fresh] = kind_of.try_emplace(it.profile, static_cast<int>(kinds.size()));
    if (fresh) kinds.push_back(it.profile);
    by_kind.push_back({{at->second}, it.count});
  }
  const std::vector<std::int64_t> peaks = concurrent_peaks(by_kind, pods, 0, kinds.size());
  std::vector<long long> gpus(fleet.models.size(), 0);
  for (const replay_node& n : fleet.nodes) gpus[static_cast<std::size_t>(n.model)] += n.gpus;
  mixed_static out;
  plan_request req;
  for (std::size_t m = 0; m < fleet.models.size(); ++m)
    req.models.push_back({fleet.models[m], gpus[m], 1.0});
  req.time_limit_s = plan_time_limit_s;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    if (peaks[k] == 0) continue;
    demand_item d;
    for (std::size_t m = 0; m < fleet.models.size(); ++m) {
      const int p = kinds[k][m];
      if (p < 0) continue;
      d.resolved.emplace_back(fleet.models[m], p);
      d.name += fmt::format("{}{} {}", d.name.empty() ? "" : " / ", fleet.models[m]->slug,
                            fleet.models[m]->profiles[static_cast<std::size_t>(p)].name);
    }
    d.count = peaks[k];
    out.peaks.emplace_back(d.name, d.count);
    out.kinds.push_back(d.resolved);
    req.demand.push_back(std::move(d));
  }
  std::vector<std::vector<layout>> planned(fleet.models.size());  // per model, GPU by GPU
  if (!req.demand.empty()) {
    plan_result plan = plan::solve(req);
    if (plan.status == plan_status::timed_out && plan.groups.empty())
      return error{
          "plan found no static geometry on the fleet's models for the trace's peaks within its "
          "time limit"};
    out.plan_gpus = plan.gpu_count;
    out.plan_optimal = plan.optimal;
    for (const plan_unmet& u : plan.unmet) out.unmet += u.missing;
    for (const plan_group& g : plan.groups) {
      const auto m = static_cast<std::size_t>(
          std::find(fleet.models.begin(), fleet.models.end(), g.gpu) - fleet.models.begin());
      layout l;
      for (const planned_instance& in : g.instances) l.add(in.where);
      planned[m].insert(planned[m].end(), static_cast<std::size_t>(g.count), l);
    }
    out.groups = std::move(plan.groups);
  }
  std::vector<std::size_t> next(fleet.models.size(), 0);
  for (const replay_node& n : fleet.nodes) {
    const auto m = static_cast<std::size_t>(n.model);
    for (int g = 0; g < n.gpus; ++g) {
      if (planned[m].empty()) {
        out.geometry.emplace_back();
        continue;
      }
      out.geometry.push_back(planned[m][next[m]++ % planned[m].size()]);
    }
  }
  return out;
}

error unserved_on_one_of_several(const error& e) {
  if (!e.where) return e;
  diagnostic d = *e.where;
  d.message +=
      "; sizing several models, every row must resolve on each: name a memory (mem=SIZE), whole "
      "GPUs (gpu) or a profile every model has";
  return error{std::move(d)};
}

result<trace_replay> prepare_replay(const trace& t, const gpu_model& gpu, bool share_by_memory,
                                    double plan_time_limit_s) {
  const gpu_model* const one[] = {&gpu};
  auto built = pods_of(t, one, share_by_memory);
  if (!built) return built.error();
  trace_replay r;
  r.gpu = &gpu;
  r.items = std::move(built->first);
  r.pods = std::move(built->second);
  r.peaks = concurrent_peaks(r.items, r.pods, 0, gpu.profiles.size());
  plan_request req;
  req.models.push_back({&gpu, std::nullopt, 1.0});
  req.time_limit_s = plan_time_limit_s;
  for (std::size_t p = 0; p < r.peaks.size(); ++p) {
    if (r.peaks[p] == 0) continue;
    demand_item d;
    d.name = std::string(gpu.profiles[p].name);
    d.profile = d.name;
    d.count = r.peaks[p];
    req.demand.push_back(d);
  }
  if (!req.demand.empty()) {
    plan_result plan = plan::solve(req);
    if (!plan.feasible)
      return error{fmt::format(
          "plan found no static geometry on {} for the trace's peaks within its time limit",
          gpu.slug)};
    r.plan_gpus = plan.gpu_count;
    r.plan_optimal = plan.optimal;
    r.groups = std::move(plan.groups);
  }
  r.set_static(r.groups);
  return r;
}

}  // namespace migplan::cli

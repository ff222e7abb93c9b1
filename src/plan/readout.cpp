// SPDX-License-Identifier: Apache-2.0
// The solution read back: GPUs per column (a re-plan's pooled moves handed
// to classes), the demand shared out to instances in item order, groups of
// GPUs that serve alike, and what the plan is and what is proven of it,
// counted in integers (doc/plan.md "What is proven").
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "model/plan_cost.hpp"
#include "plan/certify.hpp"
#include "plan/program.hpp"

namespace migplan::cli::plan::detail {

namespace {

// A block's GPUs after serving: consecutive runs with one `serves` per instance.
struct served_run {
  int model = 0;
  layout where;
  std::vector<int> serves;
  long long count = 0;
};

// Hands the instances of `blocks` (one model) to the items' served counts,
// per profile in item order; GPUs in a run serve alike, so a run ends where
// an item's count does.
std::vector<std::vector<served_run>> distribute(
    const std::vector<block>& blocks, std::vector<std::vector<std::pair<int, long long>>> queues) {
  std::vector<std::vector<served_run>> out(blocks.size());
  std::vector<std::size_t> head(queues.size(), 0);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    long long left = blocks[b].count;
    while (left > 0) {
      // One GPU's assignment, and how many GPUs in a row can repeat it.
      std::vector<int> serves;
      long long reps = left;
      std::map<std::pair<int, std::size_t>, long long> taken;  // (profile, queue pos) -> per GPU
      std::vector<std::size_t> pos = head;
      for (const instance& in : blocks[b].where) {
        auto& q = queues[static_cast<std::size_t>(in.profile)];
        std::size_t& h = pos[static_cast<std::size_t>(in.profile)];
        while (h < q.size() && q[h].second - taken[{in.profile, h}] == 0) ++h;
        if (h >= q.size()) {
          serves.push_back(-1);
          continue;
        }
        ++taken[{in.profile, h}];
        serves.push_back(q[h].first);
      }
      for (const auto& [key, t] : taken)
        if (t > 0)
          reps = std::min(reps, queues[static_cast<std::size_t>(key.first)][key.second].second / t);
      reps = std::max<long long>(reps, 1);
      for (const auto& [key, t] : taken)
        queues[static_cast<std::size_t>(key.first)][key.second].second -= t * reps;
      for (std::size_t p = 0; p < queues.size(); ++p)
        while (head[p] < queues[p].size() && queues[p][head[p]].second == 0) ++head[p];
      out[b].push_back({blocks[b].model, blocks[b].where, serves, reps});
      left -= reps;
    }
  }
  return out;
}

// Rounds a solution's integer variables (CBC returns them within its tolerance).
long long as_count(double v) { return std::llround(v); }

// The least sum of `n` instance counts after the `allow` largest values are
// left out: `values` is (value, instances), sorted in place.
wide sum_without_largest(std::vector<std::pair<long long, long long>>& values, long long allow) {
  std::sort(values.begin(), values.end(), std::greater<>());
  wide total = 0;
  for (auto [v, n] : values) {
    const long long drop = std::clamp(allow, 0LL, n);
    allow -= drop;
    total += static_cast<wide>(v) * (n - drop);
  }
  return total;
}

// What one item's instances take of a GPU of each of two sides, in 1 /
// common of a GPU; -1 where the side cannot serve it.
struct two_loads {
  long long n = 0, on_a = -1, on_b = -1;
};

// One side of (d): its GPUs' least cost, and at most how many there are.
struct side {
  long long weight = 0;
  std::optional<long long> most;
};

// (d) Two sides, a and b, and a plan that meets the demand: with x GPUs of
// a, the instances that save the most of b per unit of a go to a (in part:
// the LP relaxation of the assignment), and the rest need at least their
// load of b, rounded up to whole GPUs. The least cost over every x the
// limits allow, when there are at most 200,000 of them to try; else 0.
long long two_side_bound(const std::vector<two_loads>& loads, long long common, side a, side b) {
  const auto up = [](wide x, wide d) { return (x + d - 1) / d; };  // x >= 0
  wide a_only = 0, all_a = 0, all_b = 0;                           // loads
  std::vector<two_loads> either;
  for (const two_loads& l : loads) {
    if (l.on_a >= 0) all_a += static_cast<wide>(l.n) * l.on_a;
    if (l.on_b >= 0) all_b += static_cast<wide>(l.n) * l.on_b;
    if (l.on_b < 0) a_only += static_cast<wide>(l.n) * l.on_a;
    // (An item that takes nothing of either is left out: it has no ratio.)
    if (l.on_a >= 0 && l.on_b >= 0 && l.on_a + l.on_b > 0) either.push_back(l);
  }
  // Most of b saved per unit of a first.
  std::sort(either.begin(), either.end(), [](const two_loads& x, const two_loads& y) {
    return static_cast<wide>(x.on_b) * y.on_a > static_cast<wide>(y.on_b) * x.on_a;
  });
  const wide lo = up(a_only, common);
  wide hi = up(all_a, common);
  if (a.most) hi = std::min<wide>(hi, *a.most);
  if (lo > hi || hi - lo > 200'000) return 0;
  std::optional<wide> best;
  std::size_t k = 0;    // the first item of `either` not wholly on a
  wide moved_a = 0;     // a's load of the items before k
  wide left_b = all_b;  // b's load of what is not wholly on a
  for (wide x = lo; x <= hi; ++x) {
    const wide room = x * common - a_only;  // a's room for the items of either
    while (k < either.size() && moved_a + static_cast<wide>(either[k].n) * either[k].on_a <= room) {
      moved_a += static_cast<wide>(either[k].n) * either[k].on_a;
      left_b -= static_cast<wide>(either[k].n) * either[k].on_b;
      ++k;
    }
    // Item k in part: `room - moved_a` of its load on a, that share of its load on b.
    const wide b_gpus = k < either.size()
                            ? up(left_b * either[k].on_a - (room - moved_a) * either[k].on_b,
                                 static_cast<wide>(common) * either[k].on_a)
                            : up(left_b, common);
    if (b.most && b_gpus > *b.most) continue;
    const wide cost = x * a.weight + b_gpus * b.weight;
    if (!best || cost < *best) best = cost;
  }
  return best ? static_cast<long long>(*best) : 0;
}

// (d) over the models split into two sides, every split (up to 8 models):
// a side's GPU costs at least its cheapest model's, there are at most the
// sum of its models' limits of them (none if one is unlimited), and an
// instance takes at least the least load any of its models gives it. Two
// models are one split, exactly (d).
long long split_bound(const std::vector<std::vector<long long>>& loads,
                      const std::vector<long long>& counts, long long common,
                      const std::vector<fleet_model>& models,
                      const std::vector<long long>& weight) {
  const std::size_t n = models.size();
  if (n < 2 || n > 8) return 0;
  long long best = 0;
  // Model 0 is always on side a; the other models on a where `mask` says.
  for (unsigned mask = 0; mask + 1 < (1u << (n - 1)); ++mask) {
    const auto on_a = [&](std::size_t m) { return m == 0 || ((mask >> (m - 1)) & 1u) != 0; };
    side a{-1, std::nullopt}, b{-1, std::nullopt};
    bool a_limited = true, b_limited = true;
    for (std::size_t m = 0; m < n; ++m) {
      side& s = on_a(m) ? a : b;
      bool& limited = on_a(m) ? a_limited : b_limited;
      s.weight = s.weight < 0 ? weight[m] : std::min(s.weight, weight[m]);
      limited = limited && models[m].available.has_value();
      if (limited) s.most = s.most.value_or(0) + *models[m].available;
    }
    if (!a_limited) a.most.reset();
    if (!b_limited) b.most.reset();
    std::vector<two_loads> two;
    for (std::size_t i = 0; i < loads.size(); ++i) {
      two_loads l{counts[i]};
      for (std::size_t m = 0; m < n; ++m) {
        if (loads[i][m] < 0) continue;
        long long& v = on_a(m) ? l.on_a : l.on_b;
        v = v < 0 ? loads[i][m] : std::min(v, loads[i][m]);
      }
      two.push_back(l);
    }
    best = std::max(best, two_side_bound(two, common, a, b));
  }
  return best;
}

// The least cost any plan leaving at most `unmet` instances unmet can have,
// from what each instance takes of a GPU: a GI takes `size` of its model's
// memory units and its compute slices, and no two GIs of a GPU share either.
// Two bounds, for memory and for compute: (a) per instance the cheapest
// model's share (weight * size / units, or by compute slices), summed; (b)
// per instance the least fraction of a GPU any model gives it, summed and
// rounded up to whole GPUs, which cost at least the cheapest that many GPUs
// the models' limits allow. The dearest (largest) `unmet` instances are left
// out of each. With nothing unmet, also (d) above, over every split of the
// models into two sides. Items of compute instances count nothing (GIs are
// shared between them).
long long capacity_bound(const plan_request& req, const std::vector<std::vector<int>>& serve,
                         const std::vector<std::vector<int>>& ci,
                         const std::vector<fleet_model>& models,
                         const std::vector<long long>& weight, long long unmet) {
  long long common = 1;  // shares are counted in 1 / common of a unit of cost, or of a GPU
  for (const fleet_model& fm : models)
    if (fm.gpu->units <= 0 || fm.gpu->compute_slices <= 0) return 0;
  for (const fleet_model& fm : models)
    common = std::lcm(std::lcm(common, static_cast<long long>(fm.gpu->units)),
                      static_cast<long long>(fm.gpu->compute_slices));
  // The models by cost, for the cheapest GPUs of (b).
  std::vector<std::size_t> by_cost(models.size());
  std::iota(by_cost.begin(), by_cost.end(), std::size_t{0});
  std::sort(by_cost.begin(), by_cost.end(),
            [&](std::size_t a, std::size_t b) { return weight[a] < weight[b]; });
  long long best = 0;
  for (const bool memory : {true, false}) {
    std::vector<std::pair<long long, long long>> shares, fractions;  // (per instance, instances)
    std::vector<std::vector<long long>> loads;                       // per item and model, for (d)
    std::vector<long long> counts;
    long long allow = unmet;
    for (std::size_t i = 0; i < req.demand.size(); ++i) {
      long long share = -1, fraction = -1;
      std::vector<long long> load(models.size(), -1);
      bool split = false;
      for (std::size_t m = 0; m < models.size(); ++m) {
        const int p = serve[i][m];
        if (p < 0) continue;
        split = split || ci[i][m] >= 0;
        const gpu_model& g = *models[m].gpu;
        const profile& pr = g.profiles[static_cast<std::size_t>(p)];
        const long long f =
            memory ? pr.size * (common / g.units) : pr.compute_slices * (common / g.compute_slices);
        share = share < 0 ? weight[m] * f : std::min(share, weight[m] * f);
        fraction = fraction < 0 ? f : std::min(fraction, f);
        load[m] = f;
      }
      if (share < 0) {
        allow -= req.demand[i].count;  // no model serves it: it is unmet in any plan
        continue;
      }
      if (split) continue;
      shares.push_back({share, req.demand[i].count});
      fractions.push_back({fraction, req.demand[i].count});
      loads.push_back(std::move(load));
      counts.push_back(req.demand[i].count);
    }
    if (allow == 0) best = std::max(best, split_bound(loads, counts, common, models, weight));
    best = std::max(
        best, static_cast<long long>((sum_without_largest(shares, allow) + common - 1) / common));
    auto gpus = (sum_without_largest(fractions, allow) + common - 1) / common;
    wide cheapest = 0;
    for (const std::size_t m : by_cost) {
      const wide take = models[m].available ? std::min<wide>(gpus, *models[m].available) : gpus;
      cheapest += take * weight[m];
      gpus -= take;
    }
    best = std::max(best, static_cast<long long>(cheapest));
  }
  return best;
}

}  // namespace

long long problem::value_of(int var) const {
  const auto ix = [](int v) { return static_cast<std::size_t>(v); };
  if (var < 0) return 0LL;
  return (ix(var) < offset.size() ? offset[ix(var)] : 0) + as_count(best->values[ix(var)]);
}

// The solution as groups of GPUs that serve alike (res.groups), and
// what is left unmet, counted from the groups.
solution_blocks problem::read_groups() {
  // Read the solution.
  const auto val = [this](int var) { return value_of(var); };
  // Per item: its class's instances on each model, shared out in item order
  // (each item takes from the models in order), and what is left unmet.
  std::vector<std::vector<long long>> item_y(n_items, std::vector<long long>(n_models, 0));
  std::vector<long long> item_u(n_items, 0);
  {
    std::vector<std::vector<long long>> left(n_items);
    for (std::size_t i = 0; i < n_items; ++i)
      if (is_rep(i))
        for (std::size_t m = 0; m < n_models; ++m) left[i].push_back(val(yvar[i][m]));
    for (std::size_t i = 0; i < n_items; ++i) {
      long long need = req.demand[i].count;
      std::vector<long long>& pool = left[rep[i]];
      for (std::size_t m = 0; m < n_models && need > 0; ++m) {
        const long long take = std::min(need, pool[m]);
        item_y[i][m] = take;
        pool[m] -= take;
        need -= take;
      }
      item_u[i] = need;
    }
  }
  for (std::size_t i = 0; i < n_items; ++i)
    if (item_u[i] > 0) res.unmet.push_back({static_cast<int>(i), item_u[i]});
  res.feasible = res.unmet.empty();

  // GPUs per column; a re-plan's pooled moves handed to classes.
  solution_blocks sb;
  std::vector<long long>& col_n = sb.col_n;
  sb.cols = cols;
  col_n.assign(sb.cols.size(), 0);
  for (std::size_t j = 0; j < sb.cols.size(); ++j) col_n[j] = val(sb.cols[j].var);
  // `cols` stays the program's own columns, for the certificates
  // (split_moves makes several columns of one pooled variable).
  if (replan) std::tie(sb.cols, col_n) = split_moves(sb.cols, col_n, classes, pools);
  // Blocks per model: kept classes first (re-plan), then configurations in order.
  std::vector<block>& blocks = sb.blocks;
  for (std::size_t j = 0; j < sb.cols.size(); ++j) {
    const long long n = col_n[j];
    if (n > 0) blocks.push_back({sb.cols[j].model, sb.cols[j].where, n, static_cast<int>(j)});
  }
  std::stable_sort(blocks.begin(), blocks.end(), [&](const block& a, const block& b) {
    if (a.model != b.model) return a.model < b.model;
    if (a.count != b.count) return a.count > b.count;
    return a.where < b.where;
  });
  // Distribute demand per model, then merge runs into groups.
  struct filling {
    std::vector<ci_instance> where;
    std::vector<int> serves;
  };
  std::vector<filling> fillings;
  std::vector<std::vector<served_run>> runs(blocks.size());
  for (std::size_t m = 0; m < n_models; ++m) {
    std::vector<block> mine;
    std::vector<std::size_t> at;
    for (std::size_t b = 0; b < blocks.size(); ++b)
      if (blocks[b].model == static_cast<int>(m)) {
        mine.push_back(blocks[b]);
        at.push_back(b);
      }
    if (mine.empty()) continue;
    std::vector<std::vector<std::pair<int, long long>>> queues(models[m].gpu->profiles.size());
    for (std::size_t i = 0; i < n_items; ++i) {
      const long long y = item_y[i][m];
      if (y > 0 && ci[i][m] < 0)
        queues[static_cast<std::size_t>(serve[i][m])].push_back({static_cast<int>(i), y});
    }
    // GIs holding CIs: each pattern's GIs take the CI items in item order,
    // in runs that serve alike (fillings), queued after the whole-GI items
    // under ids from n_items up.
    for (std::size_t p = 0; p < queues.size(); ++p) {
      std::vector<std::vector<std::pair<int, long long>>> ciq(
          models[m].gpu->profiles[p].ci_profiles.size());
      for (std::size_t i = 0; i < n_items; ++i) {
        const long long y = item_y[i][m];
        if (y > 0 && ci[i][m] >= 0 && serve[i][m] == static_cast<int>(p))
          ciq[static_cast<std::size_t>(ci[i][m])].push_back({static_cast<int>(i), y});
      }
      for (const pattern_use& u : patterns) {
        if (u.model != static_cast<int>(m) || u.gi != static_cast<int>(p)) continue;
        long long left = val(u.var);
        while (left > 0) {
          filling f;
          f.where = u.pattern.where;
          std::map<std::pair<int, std::size_t>, long long> taken;
          std::vector<std::size_t> pos(ciq.size(), 0);
          for (const ci_instance& c : f.where) {
            auto& q = ciq[static_cast<std::size_t>(c.ci)];
            std::size_t& h = pos[static_cast<std::size_t>(c.ci)];
            while (h < q.size() && q[h].second - taken[{c.ci, h}] <= 0) ++h;
            if (h >= q.size()) {
              f.serves.push_back(-1);
              continue;
            }
            ++taken[{c.ci, h}];
            f.serves.push_back(q[h].first);
          }
          long long reps = left;
          for (const auto& [key, t] : taken)
            if (t > 0)
              reps =
                  std::min(reps, ciq[static_cast<std::size_t>(key.first)][key.second].second / t);
          reps = std::max<long long>(reps, 1);
          for (const auto& [key, t] : taken)
            ciq[static_cast<std::size_t>(key.first)][key.second].second -= t * reps;
          for (auto& q : ciq)
            q.erase(std::remove_if(q.begin(), q.end(), [](const auto& e) { return e.second <= 0; }),
                    q.end());
          queues[p].push_back({static_cast<int>(n_items + fillings.size()), reps});
          fillings.push_back(std::move(f));
          left -= reps;
        }
      }
    }
    auto r = distribute(mine, std::move(queues));
    for (std::size_t k = 0; k < at.size(); ++k) runs[at[k]] = std::move(r[k]);
  }
  struct group_key {
    int model;
    layout where;
    std::vector<int> serves;
    bool operator<(const group_key& o) const {
      if (model != o.model) return model < o.model;
      if (where < o.where) return true;
      if (o.where < where) return false;
      return serves < o.serves;
    }
  };
  std::map<group_key, long long> merged;
  for (const auto& rs : runs)
    for (const served_run& r : rs) merged[{r.model, r.where, r.serves}] += r.count;
  std::vector<std::pair<group_key, long long>> order(merged.begin(), merged.end());
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (a.first.model != b.first.model) return a.first.model < b.first.model;
    return a.second > b.second;
  });
  std::map<group_key, int> group_index;
  // Each group's room, worked out here once for every renderer of the plan.
  std::map<const gpu_model*, room_memo> memos;
  for (const auto& [key, n] : order) {
    plan_group g;
    g.gpu = models[static_cast<std::size_t>(key.model)].gpu;
    g.count = n;
    g.left = memos.try_emplace(g.gpu, *g.gpu).first->second.get(key.where);
    g.strands = stranded_of(*g.gpu, g.left);
    for (int j = 0; j < key.where.size(); ++j) {
      const int sv = key.serves[static_cast<std::size_t>(j)];
      planned_instance in{key.where[j], sv, {}, {}};
      if (sv >= static_cast<int>(n_items)) {
        const filling& f = fillings[static_cast<std::size_t>(sv) - n_items];
        in.serves = -1;
        // A CI that serves nothing is not created: its slices stay free (fewer
        // CIs in a GI always still fit), and a GI left with none is a spare.
        for (std::size_t c = 0; c < f.where.size(); ++c)
          if (f.serves[c] >= 0) {
            in.cis.push_back(f.where[c]);
            in.ci_serves.push_back(f.serves[c]);
          }
      }
      g.instances.push_back(std::move(in));
    }
    group_index[key] = static_cast<int>(res.groups.size());
    res.groups.push_back(std::move(g));
  }
  // What the plan is, counted in integers from its groups (not from the
  // solver's values): the instances each item gets, the GPUs and the cost.
  {
    std::vector<long long> served(n_items, 0);
    for (const plan_group& g : res.groups)
      for (const planned_instance& in : g.instances) {
        if (in.serves >= 0 && static_cast<std::size_t>(in.serves) < n_items)
          served[static_cast<std::size_t>(in.serves)] += g.count;
        for (int sv : in.ci_serves)
          if (sv >= 0 && static_cast<std::size_t>(sv) < n_items)
            served[static_cast<std::size_t>(sv)] += g.count;
      }
    res.unmet.clear();
    for (std::size_t i = 0; i < n_items; ++i)
      if (served[i] < req.demand[i].count)
        res.unmet.push_back({static_cast<int>(i), req.demand[i].count - served[i]});
    res.feasible = res.unmet.empty();
  }
  // Each block's GPUs, in order, as group indices.
  std::vector<std::vector<std::pair<int, long long>>>& block_groups = sb.block_groups;
  block_groups.resize(blocks.size());
  for (std::size_t b = 0; b < blocks.size(); ++b)
    for (const served_run& r : runs[b])
      block_groups[b].push_back({group_index[{r.model, r.where, r.serves}], r.count});
  return sb;
}

// The plan's GPUs and cost, the lower bound on its cost (and on its
// changes) proven in integers, and its status.
void problem::count_and_prove(const solution_blocks& sb) {
  mark_no_model();
  const std::vector<long long>& col_n = sb.col_n;
  const auto ix = [](int var) { return static_cast<std::size_t>(var); };
  res.gpu_count = 0;
  res.cost_units = 0;
  for (const plan_group& g : res.groups) {
    bool serves_any = false;
    for (const planned_instance& in : g.instances)
      serves_any = serves_any || in.serves >= 0 || !in.cis.empty();
    if (g.instances.empty() || (replan && !serves_any)) continue;
    res.gpu_count += g.count;
    for (std::size_t m = 0; m < n_models; ++m)
      if (models[m].gpu == g.gpu) {
        res.cost_units += weight[m] * g.count;
        auto it = std::find_if(res.gpus_per_model.begin(), res.gpus_per_model.end(),
                               [&](const auto& e) { return e.first == g.gpu; });
        if (it == res.gpus_per_model.end())
          res.gpus_per_model.push_back({g.gpu, g.count});
        else
          it->second += g.count;
      }
  }
  long long unmet_total = 0;
  for (const plan_unmet& u : res.unmet) unmet_total += u.missing;
  // The lower bound on the cost, proven in integers (doc/plan.md "What is
  // proven"): the LP relaxation's dual over the whole program (a fresh
  // plan), and what the instances need of each GPU's memory and compute
  // (both); never above the plan's own cost.
  long long bound = capacity_bound(req, serve, ci, models, weight, unmet_total);
  // Upper bounds for the certificate: a fresh plan cheaper than this one has
  // at most cost / weight GPUs of each column (a re-plan: a kept column its
  // class's GPUs, a move its pool's), and a CI pattern at most as many GIs as
  // those GPUs hold.
  std::vector<double> upper(static_cast<std::size_t>(full.var_count()), inf);
  {
    std::map<std::pair<int, int>, double> gis;
    for (const column& c : cols) {
      upper[ix(c.var)] =
          !replan  ? std::floor(static_cast<double>(res.cost_units) / c.stage1)
          : c.keep ? static_cast<double>(classes[static_cast<std::size_t>(c.cls)].gpus.size())
                   : static_cast<double>(pools[static_cast<std::size_t>(c.pool)].gpus);
      for (int p = 0; p < max_profiles; ++p) gis[{c.model, p}] += upper[ix(c.var)] * c.counts[p];
    }
    for (const pattern_use& u : patterns) upper[ix(u.var)] = gis[{u.model, u.gi}];
  }
  if (!replan && cost_lp && cost_lp->optimal)
    if (const auto b = integer_bound(full, cost_lp->duals, upper)) bound = std::max(bound, *b);
  res.lower_bound_units = std::min(bound, res.cost_units);
  res.optimal = res.lower_bound_units == res.cost_units;
  res.gap = res.cost_units > 0 ? static_cast<double>(res.cost_units - res.lower_bound_units) /
                                     static_cast<double>(res.cost_units)
                               : 0;
  if (exact_costs) {
    res.cost = std::stod(cost_decimal(res.cost_units, res.costs));
    res.lower_bound = std::stod(cost_decimal(res.lower_bound_units, res.costs));
  } else {
    for (const plan_group& g : res.groups)
      for (std::size_t m = 0; m < n_models; ++m)
        if (models[m].gpu == g.gpu) res.cost += models[m].cost * static_cast<double>(g.count);
    res.lower_bound = res.cost * (1 - res.gap);
  }
  // The first objective's status: the cost (fresh), or the changes (re-plan),
  // whose bound is the LP relaxation's dual over the whole program.
  bool first_proven = res.optimal;
  if (replan) {
    long long changed = 0;
    // Counted on the columns handed to classes (split_moves): several of
    // them share one pooled variable.
    for (std::size_t j = 0; j < sb.cols.size(); ++j)
      if (!sb.cols[j].keep) changed += col_n[j];
    long long changes_bound = 0;
    if (cost_lp && cost_lp->optimal)
      changes_bound = std::max(0LL, integer_bound(full, cost_lp->duals, upper).value_or(0));
    res.changes_lower_bound = std::min(changes_bound, changed);
    first_proven = res.changes_lower_bound == changed;
  }
  if (res.feasible)
    res.status = first_proven ? plan_status::optimal : plan_status::feasible;
  else if (unmet_proven || unmet_bound > 0)
    res.status = plan_status::unmet;
  else {
    res.status = plan_status::timed_out;
    res.suggested_time_limit_s = suggest_time_limit(req.time_limit_s);
  }
}

}  // namespace migplan::cli::plan::detail

// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file moves.hpp
/// Defragmentation: the fewest instance moves that make room for one arriving
/// instance on a fleet where it fits nowhere.
///
/// A move re-creates one running instance elsewhere on a GPU of the same
/// model: another start of its GPU, or another GPU (of the same node or of
/// another). It destroys the instance first, then creates it, so the create
/// is checked on the state without it. Every intermediate state keeps all
/// the rules of rules.hpp (rules::can_add, the one check every search uses).
///
/// Exactness: iterative deepening on k = 0, 1, ..., K; at depth k every
/// sequence of k moves the pruning below keeps is tried, so a depth is
/// reached only when no shorter sequence exists anywhere (minimality by
/// construction). The pruning loses no sequence that a minimal one needs:
///  - The target. The arrival goes on one GPU T, so the last move takes an
///    instance off T (a last move that leaves T alone leaves the goal as it
///    was one move earlier). More generally every move off a GPU S other than
///    T must be followed by a move onto S: otherwise dropping it (the
///    instance stays on S, its destination keeps more room, a later move of
///    the same instance leaves from S instead) keeps every step legal and the
///    goal met with one move fewer. The search keeps, per GPU, this
///    obligation and cuts a branch with more open obligations than moves left.
///  - The room on T. Instances that must leave T (the fewest whose removal
///    lets the arrival fit, shed_bound()) each need a move off T, so a
///    branch with fewer moves left than that is cut.
///  - Symmetry. Untouched GPUs with the same model and the same instances
///    are interchangeable: only the lowest-numbered untouched one of each such
///    class is tried as a source or a destination, and only the first GPU of
///    each class as the target (a solution on another maps to one on it
///    with a lower target and as many moves and GPUs touched).
///
/// Tie-break among the sequences of fewest moves (deterministic): the lowest
/// target GPU, then the first sequence in the order the steps are tried:
/// each step's source GPU in GPU order, its instance by start, its
/// destination GPU in GPU order, then the destination start, lowest first
/// (of untouched GPUs alike, the lowest-numbered stands for all). So a
/// step prefers the lowest node and GPU, and the lowest start. The arrival
/// takes the lowest start of the target that fits after the steps.

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <map>
#include <migplan/capacity.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/rules.hpp>
#include <optional>
#include <span>
#include <vector>

namespace migplan {
inline namespace v1 {

/// One GPU of the fleet to defragment.
struct moves_gpu {
  const gpu_model* model = nullptr;  ///< its model
  int arrival = -1;                  ///< the arrival's profile index on the model, -1: none
  layout held;                       ///< its instances now
};

/// One move: the instance `what` leaves GPU `from` and is created at
/// `to_start` on GPU `to` (same model, so the same profile index).
struct move_step {
  int from = 0;      ///< source GPU (index into the fleet)
  instance what{};   ///< the instance as it is on the source
  int to = 0;        ///< destination GPU
  int to_start = 0;  ///< its start there
  friend constexpr auto operator<=>(const move_step&, const move_step&) = default;
};

/// Why no sequence of at most K moves makes room.
enum class moves_failure : std::uint8_t {
  none,           ///< a sequence was found
  no_model,       ///< no GPU's model has the profile
  too_many_shed,  ///< every GPU would have to shed more than K instances
  nowhere_to_go,  ///< some GPU sheds few enough, but the instances find no room
};

/// The answer of fewest_moves().
struct moves_plan {
  bool found = false;                           ///< a sequence of at most K moves exists
  std::vector<move_step> steps;                 ///< in the order to run them
  int gpu = -1;                                 ///< the target GPU, when found
  instance where{};                             ///< the arrival on it after the steps
  int gpus_touched = 0;                         ///< distinct GPUs the steps and the arrival touch
  moves_failure failure = moves_failure::none;  ///< when not found
  int fewest_shed = -1;      ///< the fewest instances some GPU must shed (at most K + 1), -1: none
  int fewest_shed_gpu = -1;  ///< the first GPU that sheds that few
};

namespace detail {

// The lowest start at which profile `p` can join `u`, or -1.
inline int first_start(const rules& r, const usage& u, int p) noexcept {
  for (int s = 0; s < r.gpu->units; ++s)
    if (r.can_add(u, p, s)) return s;
  return -1;
}

// Fewest instances of `l` whose removal lets profile `p` fit, tried up to
// `most`; most + 1 when more are needed. Subsets by size, so the first size
// that works is the answer.
inline int shed_bound(const rules& r, const layout& l, int p, int most) {
  const gpu_model& m = *r.gpu;
  const int n = l.size();
  usage all = usage_of(m, l);
  const auto fits = [&](const usage& u) { return first_start(r, u, p) >= 0; };
  if (fits(all)) return 0;
  // Depth-first over subsets of exactly `size` instances, removed from `all`.
  std::vector<int> pick;
  const auto try_size = [&](auto& self, int from, int left, usage& u) -> bool {
    if (left == 0) return fits(u);
    for (int i = from; i <= n - left; ++i) {
      const instance in = l[i];
      const profile& pr = m.profiles[static_cast<std::size_t>(in.profile)];
      u.remove(pr, in.profile, in.start);
      const bool ok = self(self, i + 1, left - 1, u);
      u.add(pr, in.profile, in.start);
      if (ok) return true;
    }
    return false;
  };
  for (int size = 1; size <= std::min(most, n); ++size)
    if (try_size(try_size, 0, size, all)) return size;
  return most + 1;
}

class moves_search {
 public:
  moves_search(std::span<const moves_gpu> fleet, int most) : fleet_(fleet), most_(most) {
    cur_.reserve(fleet.size());
    for (const moves_gpu& g : fleet) {
      cur_.push_back(g.held);
      if (g.model == nullptr) {
        rule_of_.push_back(-1);
        continue;
      }
      auto it = std::find_if(rules_.begin(), rules_.end(),
                             [&](const rules& r) { return r.gpu == g.model; });
      if (it == rules_.end()) {
        rules_.emplace_back(*g.model);
        it = rules_.end() - 1;
      }
      rule_of_.push_back(static_cast<int>(it - rules_.begin()));
    }
    touched_.assign(fleet.size(), 0);
    owed_.assign(fleet.size(), 0);
    // Classes of interchangeable GPUs: same model, same instances.
    std::map<std::pair<int, std::vector<std::pair<int, int>>>, int> index;
    class_of_.assign(fleet.size(), -1);
    for (std::size_t g = 0; g < fleet.size(); ++g) {
      if (rule_of_[g] < 0) continue;
      std::vector<std::pair<int, int>> key;
      for (const instance& in : fleet[g].held) key.emplace_back(in.start, in.profile);
      auto [it, fresh] =
          index.try_emplace({rule_of_[g], std::move(key)}, static_cast<int>(members_.size()));
      if (fresh) members_.emplace_back();
      members_[static_cast<std::size_t>(it->second)].push_back(static_cast<int>(g));
      class_of_[g] = it->second;
    }
  }

  moves_plan run() {
    moves_plan out;
    // The candidate targets: first GPU of each class whose model has the
    // profile, with the instances each must shed.
    std::vector<std::pair<int, int>> targets;  // (gpu, shed)
    for (const std::vector<int>& cls : members_) {
      const int g = cls.front();
      const int p = fleet_[static_cast<std::size_t>(g)].arrival;
      if (p < 0) continue;
      const rules& r = rule(g);
      if (first_start(r, usage{}, p) < 0) continue;
      const int shed = shed_bound(r, cur_[static_cast<std::size_t>(g)], p, most_);
      targets.emplace_back(g, shed);
      if (out.fewest_shed < 0 || shed < out.fewest_shed ||
          (shed == out.fewest_shed && g < out.fewest_shed_gpu)) {
        out.fewest_shed = shed;
        out.fewest_shed_gpu = g;
      }
    }
    if (targets.empty()) {
      out.failure = moves_failure::no_model;
      return out;
    }
    std::sort(targets.begin(), targets.end());
    for (int k = 0; k <= most_; ++k) {
      for (const auto& [g, shed] : targets) {
        if (shed > k) continue;
        target_ = g;
        ++touched_[static_cast<std::size_t>(g)];
        touched_list_.push_back(g);
        dfs(k);
        touched_list_.pop_back();
        --touched_[static_cast<std::size_t>(g)];
        if (done_) break;
      }
      if (best_) {
        out.found = true;
        out.steps = best_->steps;
        out.gpu = best_->target;
        out.where = best_->where;
        out.gpus_touched = best_->touched;
        return out;
      }
    }
    out.failure =
        out.fewest_shed > most_ ? moves_failure::too_many_shed : moves_failure::nowhere_to_go;
    return out;
  }

 private:
  struct found {
    int touched = 0;
    int target = 0;
    std::vector<move_step> steps;
    instance where{};
  };

  const rules& rule(int g) const {
    return rules_[static_cast<std::size_t>(rule_of_[static_cast<std::size_t>(g)])];
  }
  layout& at(int g) { return cur_[static_cast<std::size_t>(g)]; }

  void touch(int g) {
    if (touched_[static_cast<std::size_t>(g)]++ == 0) touched_list_.push_back(g);
  }
  void untouch(int g) {
    if (--touched_[static_cast<std::size_t>(g)] == 0) {
      assert(touched_list_.back() == g);
      touched_list_.pop_back();
    }
  }

  // The GPUs a move may leave from or go to, in GPU order: the touched ones
  // and the first untouched GPU of each class.
  std::vector<int> candidates() const {
    std::vector<int> out(touched_list_.begin(), touched_list_.end());
    for (const std::vector<int>& cls : members_)
      for (const int g : cls)
        if (touched_[static_cast<std::size_t>(g)] == 0) {
          out.push_back(g);
          break;
        }
    std::sort(out.begin(), out.end());
    return out;
  }

  void record() {
    const int g = target_;
    const rules& r = rule(g);
    const int p = fleet_[static_cast<std::size_t>(g)].arrival;
    const int s = first_start(r, usage_of(*r.gpu, at(g)), p);
    if (s < 0) return;
    best_ = found{static_cast<int>(touched_list_.size()), g, path_, {p, s}};
    done_ = true;
  }

  // Tries the kept sequences of exactly `left` further moves, in order,
  // until one meets the goal.
  void dfs(int left) {
    if (done_ || open_ > left) return;
    const int t = target_;
    const int arrival = fleet_[static_cast<std::size_t>(t)].arrival;
    const int shed = shed_bound(rule(t), at(t), arrival, left);
    if (shed > left) return;
    if (left == 0) {
      record();
      return;
    }
    const std::vector<int> gpus = candidates();
    for (const int s : gpus) {
      // The last move leaves the target; a move off another GPU owes a move
      // onto it, which needs a move still to come; and it leaves the target
      // as it is, so the moves after it must still shed what it must.
      if (s != t && (left == 1 || shed > left - 1)) continue;
      const layout here = at(s);
      const rules& r = rule(s);
      for (const instance& y : here) {
        if (done_) return;
        const profile& py = r.profile_at(y.profile);
        at(s).remove(y);
        // Off the target, what is left of it must shed few enough: putting
        // the instance back on it only adds to that.
        if (s == t && shed_bound(r, at(t), arrival, left - 1) > left - 1) {
          at(s).add(y);
          continue;
        }
        touch(s);
        const bool owes = s != t && owed_[static_cast<std::size_t>(s)] == 0;
        if (owes) {
          owed_[static_cast<std::size_t>(s)] = 1;
          ++open_;
        }
        for (const int d : gpus) {
          if (rule_of_[static_cast<std::size_t>(d)] != rule_of_[static_cast<std::size_t>(s)])
            continue;
          try_destinations(s, y, py, d, left);
        }
        // The source's own class may now offer its next untouched GPU.
        if (const int next = next_in_class(s);
            next >= 0 && touched_[static_cast<std::size_t>(next)] == 0 &&
            std::find(gpus.begin(), gpus.end(), next) == gpus.end())
          try_destinations(s, y, py, next, left);
        if (owes) {
          owed_[static_cast<std::size_t>(s)] = 0;
          --open_;
        }
        untouch(s);
        at(s).add(y);
      }
    }
  }

  // The first untouched member of `g`'s class after `g`, or -1.
  int next_in_class(int g) const {
    const int c = class_of_[static_cast<std::size_t>(g)];
    if (c < 0) return -1;
    for (const int m : members_[static_cast<std::size_t>(c)])
      if (m != g && touched_[static_cast<std::size_t>(m)] == 0) return m;
    return -1;
  }

  void try_destinations(int s, instance y, const profile& py, int d, int left) {
    const rules& r = rule(d);
    const usage u = usage_of(*r.gpu, at(d));
    for (int start = 0; start + py.size <= r.gpu->units; ++start) {
      if (done_) return;
      if (d == s && start == y.start) continue;  // no move at all
      if (!r.can_add(u, y.profile, start)) continue;
      at(d).add({y.profile, start});
      touch(d);
      const bool paid = owed_[static_cast<std::size_t>(d)] != 0;
      if (paid) {
        owed_[static_cast<std::size_t>(d)] = 0;
        --open_;
      }
      path_.push_back({s, y, d, start});
      dfs(left - 1);
      path_.pop_back();
      if (paid) {
        owed_[static_cast<std::size_t>(d)] = 1;
        ++open_;
      }
      untouch(d);
      at(d).remove({y.profile, start});
    }
  }

  std::span<const moves_gpu> fleet_;
  int most_ = 0;
  std::vector<layout> cur_;
  std::vector<rules> rules_;
  std::vector<int> rule_of_;
  std::vector<int> class_of_;
  std::vector<std::vector<int>> members_;
  std::vector<int> touched_;
  std::vector<int> touched_list_;
  std::vector<char> owed_;
  int open_ = 0;
  int target_ = 0;
  std::vector<move_step> path_;
  std::optional<found> best_;
  bool done_ = false;
};

}  // namespace detail

/// The fewest moves, at most `most`, after which one instance of each GPU's
/// `arrival` profile fits on some GPU (see the file comment for the rules,
/// the exactness argument and the tie-break). With no move needed, `steps`
/// is empty and `gpu`/`where` are the first GPU and start that fit.
inline moves_plan fewest_moves(std::span<const moves_gpu> fleet, int most) {
  assert(most >= 0);
  return detail::moves_search(fleet, most).run();
}

}  // namespace v1
}  // namespace migplan

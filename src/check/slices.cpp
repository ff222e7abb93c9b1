// SPDX-License-Identifier: Apache-2.0
// Checking DRA ResourceSlices (doc/dra.md, "Checking ResourceSlices"): per
// pool, the API's limits and the names that must resolve; per GPU (the
// devices joined by the counter sets they consume from), whether the
// counters admit exactly the sets of MIG devices that the placement rules
// allow (compare_admission(), migplan/counters.hpp).

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <migplan/counters.hpp>
#include <migplan/lookup.hpp>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "check/checker.hpp"
#include "io/check_input.hpp"
#include "io/schema.hpp"
#include "k8s_names.hpp"
#include "text.hpp"

namespace migplan::cli::check {
namespace {

// Limits of resource.k8s.io/v1 (k8s.io/api/resource/v1/types.go; doc/dra.md
// cites each).
constexpr std::size_t max_counter_sets = 8;            // ResourceSliceMaxCounterSets
constexpr std::size_t max_counters_per_set = 32;       // ResourceSliceMaxCountersPerCounterSet
constexpr std::size_t max_devices = 128;               // ResourceSliceMaxDevices
constexpr std::size_t max_devices_with_counters = 64;  // ...WithAdvancedFeatures
constexpr std::size_t max_consumptions = 2;  // ResourceSliceMaxDeviceCounterConsumptionsPerDevice
constexpr std::size_t max_counters_per_consumption = 32;  // ...PerDeviceCounterConsumption

// How many example sets each kind of difference shows.
constexpr std::size_t examples = 3;

// An attribute's name without its domain ("gpu.nvidia.com/profile" -> "profile").
std::string_view bare(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

const slice_attribute* attribute(const slice_device& d, std::string_view name) {
  for (const slice_attribute& a : d.attributes)
    if (bare(a.name) == name) return &a;
  return nullptr;
}

std::string quote_name(std::string_view s) { return fmt::format("'{}'", clip(s)); }

// A counter set of a pool, where it is defined.
struct set_ref {
  const slice_counter_set* set = nullptr;
  std::size_t id = 0;  // index among the pool's sets
};

// A device of a pool and what it resolves to.
struct pool_device {
  const slice_device* dev = nullptr;
  std::vector<std::size_t> sets;  // the pool's sets it consumes from
};

struct union_find {
  std::vector<std::size_t> parent;
  explicit union_find(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::size_t root(std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
  void join(std::size_t a, std::size_t b) { parent[root(a)] = root(b); }
};

class slices_checker {
 public:
  slices_checker(file_check& f, const check_settings& settings) : f_(f), settings_(settings) {}

  void run() {
    for (const resource_slice& s : f_.input.slices) {
      limits(s);
      if (s.refused && s.pool.empty()) refused_elsewhere_ = true;
    }
    // Pools: the slices of one driver and pool name, of the newest generation.
    std::map<std::pair<std::string, std::string>, std::vector<const resource_slice*>> pools;
    for (const resource_slice& s : f_.input.slices)
      if (!s.pool.empty()) pools[{s.driver, s.pool}].push_back(&s);
    for (auto& [key, slices] : pools) pool(key.second, slices);
  }

 private:
  void error(location at, std::string message, std::vector<std::string> notes = {}) {
    f_.diagnostics.push_back(check_diagnostic(severity::error, fault::invalid, at,
                                              std::move(message), std::move(notes)));
  }
  void warning(location at, std::string message) {
    f_.diagnostics.push_back(
        check_diagnostic(severity::warning, fault::invalid, at, std::move(message)));
  }
  void note(location at, std::string message) {
    f_.diagnostics.push_back(
        check_diagnostic(severity::note, fault::invalid, at, std::move(message)));
  }

  void name_is_label(location at, std::string_view what, std::string_view name) {
    if (!name.empty() && !k8s::dns_label(name))
      error(at, fmt::format("{} {} is not a DNS label ({}; at most {} characters), as the API "
                            "requires",
                            what, quote_name(name), "lowercase letters, digits and '-'",
                            k8s::max_dns_label));
  }

  // "WHAT has N THINGS; the API allows at most MOST (CONSTANT)", when N > MOST.
  void at_most(location at, const std::string& what, std::size_t n, std::string_view things,
               std::size_t most, std::string_view constant) {
    if (n > most)
      error(at, fmt::format("{} has {} {}; the API allows at most {} ({})", what, n, things, most,
                            constant));
  }

  // The API's limits on one slice, and its names.
  void limits(const resource_slice& s) {
    const std::string slice = quote_name(s.name);
    if (!s.devices.empty() && !s.counter_sets.empty())
      error(s.at, fmt::format("ResourceSlice {} has both devices and sharedCounters; the API "
                              "allows only one of them in a slice (since Kubernetes 1.35)",
                              slice));
    at_most(s.counter_sets_at, fmt::format("ResourceSlice {}", slice), s.counter_sets.size(),
            "counter sets", max_counter_sets, "ResourceSliceMaxCounterSets");
    for (const slice_counter_set& cs : s.counter_sets) {
      name_is_label(cs.at, "counter set", cs.name);
      at_most(cs.counters_at, fmt::format("counter set {}", quote_name(cs.name)),
              cs.counters.size(), "counters", max_counters_per_set,
              "ResourceSliceMaxCountersPerCounterSet");
      for (const slice_counter& c : cs.counters) name_is_label(c.at, "counter", c.name);
    }
    const bool advanced = std::any_of(s.devices.begin(), s.devices.end(), [](const auto& d) {
      return !d.consumes.empty() || d.taints;
    });
    at_most(s.devices_at, fmt::format("ResourceSlice {}", slice), s.devices.size(), "devices",
            advanced ? max_devices_with_counters : max_devices,
            advanced ? "ResourceSliceMaxDevicesWithAdvancedFeatures, as devices consume "
                       "counters or have taints"
                     : "ResourceSliceMaxDevices");
    for (const slice_device& d : s.devices) {
      name_is_label(d.at, "device name", d.name);
      at_most(d.consumes_at, fmt::format("device {}", quote_name(d.name)), d.consumes.size(),
              "consumesCounters entries", max_consumptions,
              "ResourceSliceMaxDeviceCounterConsumptionsPerDevice");
      for (std::size_t i = 0; i < d.consumes.size(); ++i) {
        const slice_consumption& c = d.consumes[i];
        at_most(c.counters_at,
                fmt::format("the entry of device {} for counter set {}", quote_name(d.name),
                            quote_name(c.counter_set)),
                c.counters.size(), "counters", max_counters_per_consumption,
                "ResourceSliceMaxCountersPerDeviceCounterConsumption");
        for (std::size_t j = 0; j < i; ++j)
          if (d.consumes[j].counter_set == c.counter_set) {
            // The API refuses the slice (validateSet keyed by counterSet in
            // validateDevice, k8s.io/kubernetes pkg/apis/resource/validation):
            // what the two entries draw together is no question to compare.
            error(c.at,
                  fmt::format("device {} consumes from counter set {} twice; the API "
                              "requires each entry to name another set",
                              quote_name(d.name), quote_name(c.counter_set)),
                  {"the API refuses the slice: the admission of the counter sets the device "
                   "consumes from is not compared"});
            twice_.push_back(&d);
            break;
          }
      }
    }
  }

  void pool(const std::string& name, std::vector<const resource_slice*>& slices) {
    long long newest = 0;
    for (const resource_slice* s : slices) newest = std::max(newest, s->generation);
    std::erase_if(slices, [&](const resource_slice* s) {
      if (s->generation == newest) return false;
      if (s->refused) return true;  // its error said enough
      note(s->at, fmt::format("ResourceSlice {} is of generation {} of pool {}, and {} is "
                              "newer: the scheduler reads only the newest, and so does check",
                              quote_name(s->name), s->generation, quote_name(name), newest));
      return true;
    });
    // A slice of a version check does not read (its error said so) counts
    // toward resourceSliceCount, and may hold the counter sets the pool's
    // devices consume from: a set not found is then no error of theirs.
    // One whose pool is not known may be of any pool.
    const auto read = std::find_if(slices.begin(), slices.end(),
                                   [](const resource_slice* s) { return !s->refused; });
    if (read == slices.end()) return;
    const bool partial =
        refused_elsewhere_ || std::any_of(slices.begin(), slices.end(),
                                          [](const resource_slice* s) { return s->refused; });
    const long long count = (*read)->slice_count;
    if (!refused_elsewhere_ && count != static_cast<long long>(slices.size()))
      warning((*read)->pool_at,
              fmt::format("pool {} says resourceSliceCount {}, and the file holds {} of its "
                          "slices: the scheduler does not allocate from an incomplete pool",
                          quote_name(name), count, slices.size()));

    // Counter sets and devices, each name once in the pool.
    std::vector<set_ref> sets;
    std::map<std::string, std::size_t> set_of;
    for (const resource_slice* s : slices)
      for (const slice_counter_set& cs : s->counter_sets) {
        if (cs.name.empty()) continue;
        const auto [it, fresh] = set_of.emplace(cs.name, sets.size());
        if (!fresh) {
          error(cs.at,
                fmt::format("counter set {} is defined twice in pool {} (first at line "
                            "{}); names must be unique in a pool",
                            quote_name(cs.name), quote_name(name), sets[it->second].set->at.line));
          continue;
        }
        sets.push_back({&cs, sets.size()});
      }
    std::vector<std::string> set_names;
    for (const auto& [n, i] : set_of) set_names.push_back(n);

    std::vector<pool_device> devices;
    std::map<std::string, location> device_at;
    for (const resource_slice* s : slices)
      for (const slice_device& d : s->devices) {
        if (const auto [it, fresh] = device_at.emplace(d.name, d.at); !fresh)
          error(d.at, fmt::format("device {} is named twice in pool {} (first at line {})",
                                  quote_name(d.name), quote_name(name), it->second.line));
        pool_device pd{&d, {}};
        bool resolved = true;
        for (const slice_consumption& c : d.consumes) {
          const auto it = set_of.find(c.counter_set);
          if (it == set_of.end()) {
            resolved = false;
            if (partial) continue;
            error(c.at, fmt::format("device {} consumes from counter set {}, which pool {} does "
                                    "not define{}",
                                    quote_name(d.name), quote_name(c.counter_set), quote_name(name),
                                    doc::suggest(c.counter_set, set_names)));
            continue;
          }
          const slice_counter_set& cs = *sets[it->second].set;
          std::vector<std::string> counter_names;
          for (const slice_counter& k : cs.counters) counter_names.push_back(k.name);
          for (const slice_counter& k : c.counters)
            if (std::find(counter_names.begin(), counter_names.end(), k.name) ==
                counter_names.end()) {
              error(k.at, fmt::format("device {} consumes counter {} of set {}, which has no "
                                      "such counter{}",
                                      quote_name(d.name), quote_name(k.name), quote_name(cs.name),
                                      doc::suggest(k.name, counter_names)));
              resolved = false;
            }
          pd.sets.push_back(it->second);
        }
        if (!resolved) unresolved_.push_back(&d);
        devices.push_back(std::move(pd));
      }

    // MIG devices that consume no counter are allocated each on its own, as
    // a driver lists MIG devices that already exist: there are no counters
    // to compare, and a note says so rather than pass them without a word.
    std::size_t bare = 0;
    const slice_device* first_bare = nullptr;
    for (const pool_device& d : devices)
      if (d.dev->consumes.empty() && attribute(*d.dev, "profile") != nullptr && bare++ == 0)
        first_bare = d.dev;
    if (bare > 0)
      note(first_bare->at,
           fmt::format("{} MIG device{} of pool {} consume{} no counter (the first: {}): the "
                       "scheduler allocates each on its own, so there is nothing to compare",
                       bare, bare == 1 ? "" : "s", quote_name(name), bare == 1 ? "s" : "",
                       quote_name(first_bare->name)));

    // GPUs: the devices joined by the sets they consume from.
    union_find uf(sets.size());
    for (const pool_device& d : devices)
      for (std::size_t i = 1; i < d.sets.size(); ++i) uf.join(d.sets[0], d.sets[i]);
    std::map<std::size_t, std::vector<const pool_device*>> gpus;
    for (const pool_device& d : devices)
      if (!d.sets.empty()) gpus[uf.root(d.sets[0])].push_back(&d);
    for (const auto& [root, members] : gpus) gpu(sets, uf, root, members);
  }

  // The model the MIG devices of a GPU name, or nullptr (with a diagnostic).
  const gpu_model* model_of(const std::vector<const slice_device*>& mig, std::string_view label) {
    const gpu_model* found = nullptr;
    const slice_device* from = nullptr;
    for (const slice_device* d : mig) {
      const gpu_model* m = nullptr;
      if (const slice_attribute* a = attribute(*d, "gpuModel"); a != nullptr && !a->is_int)
        m = find_model(settings_.models, a->text);
      if (m == nullptr)
        if (const slice_attribute* a = attribute(*d, "productName"); a != nullptr && !a->is_int)
          m = find_model_by_smi_name(settings_.models, a->text);
      if (m == nullptr) continue;
      if (found != nullptr && m != found) {
        error(d->at,
              fmt::format("device {} is of model {}, and device {} sharing counters with "
                          "it of model {}: one GPU has one model",
                          quote_name(d->name), m->slug, quote_name(from->name), found->slug));
        return nullptr;
      }
      found = m;
      from = d;
    }
    if (found == nullptr)
      warning(mig.front()->at,
              fmt::format("cannot tell the GPU model of the MIG devices sharing {}: none has a "
                          "gpuModel or productName attribute naming a model check knows; their "
                          "counters are not checked",
                          label));
    return found;
  }

  void gpu(const std::vector<set_ref>& sets, union_find& uf, std::size_t root,
           const std::vector<const pool_device*>& members) {
    // The GPU's sets, in pool order, and its name for messages.
    std::vector<std::size_t> own;
    for (const set_ref& s : sets)
      if (uf.root(s.id) == root) own.push_back(s.id);
    const std::string label =
        fmt::format("counter set {}", quote_name(sets[own.front()].set->name));

    std::vector<const slice_device*> mig;
    std::size_t others = 0;
    const slice_device* first_other = nullptr;
    for (const pool_device* d : members) {
      if (attribute(*d->dev, "profile") != nullptr)
        mig.push_back(d->dev);
      else if (others++ == 0)
        first_other = d->dev;
    }
    if (mig.empty()) return;              // no MIG device: not a GPU this check is for
    for (const pool_device* d : members)  // the device's error says it is not compared
      if (std::find(twice_.begin(), twice_.end(), d->dev) != twice_.end()) return;
    for (const slice_device* d : mig)
      if (std::find(unresolved_.begin(), unresolved_.end(), d) != unresolved_.end()) {
        note(mig.front()->at, fmt::format("the MIG devices sharing {} consume counters that do "
                                          "not resolve: their admission is not compared",
                                          label));
        return;
      }
    // A counter whose value does not read (an error said so) draws or holds
    // an unknown amount: comparing without it would blame the counters for
    // what the reader dropped.
    const auto unread = [](const std::vector<slice_counter>& cs) {
      return std::any_of(cs.begin(), cs.end(), [](const slice_counter& c) { return !c.valid; });
    };
    bool values_read = std::none_of(own.begin(), own.end(),
                                    [&](std::size_t s) { return unread(sets[s].set->counters); });
    for (const slice_device* d : mig)
      for (const slice_consumption& c : d->consumes)
        if (unread(c.counters)) values_read = false;
    if (!values_read) {
      note(mig.front()->at, fmt::format("the MIG devices sharing {} consume counters whose "
                                        "values do not read: their admission is not compared",
                                        label));
      return;
    }
    const gpu_model* g = model_of(mig, label);
    if (g == nullptr) return;
    if (others > 0)
      note(first_other->at,
           others == 1 ? fmt::format("device {} sharing {} is not a MIG device (no profile "
                                     "attribute): the comparison leaves it out",
                                     quote_name(first_other->name), label)
                       : fmt::format("{} devices sharing {} are not MIG devices (no profile "
                                     "attribute; the first: {}): the comparison leaves them out",
                                     others, label, quote_name(first_other->name)));

    // The counters: every counter of the GPU's sets, each scaled down by the
    // greatest common divisor of its capacity and its draws (so "40Gi" fits).
    std::map<std::pair<std::size_t, std::string>, std::size_t> counter_index;
    std::vector<long long> capacity;
    for (const std::size_t s : own)
      for (const slice_counter& c : sets[s].set->counters) {
        counter_index.emplace(std::pair{s, c.name}, capacity.size());
        capacity.push_back(c.value);
      }
    std::vector<long long> divisor = capacity;
    counter_model m;
    std::vector<std::vector<std::pair<std::size_t, long long>>> draws;
    bool ok = true;
    for (const slice_device* d : mig) {
      const slice_attribute* p = attribute(*d, "profile");
      const int profile = find_profile(*g, p->text);
      if (profile < 0) {
        error(p->at, fmt::format("device {} has profile {}, which {} does not have",
                                 quote_name(d->name), quote_name(p->text), g->slug));
        ok = false;
        continue;
      }
      const slice_attribute* start = attribute(*d, "placementStart");
      if (start == nullptr || !start->is_int) {
        warning(d->at, fmt::format("device {} has no int attribute placementStart: check cannot "
                                   "tell its placement, so the counters of {} are not compared",
                                   quote_name(d->name), label));
        ok = false;
        continue;
      }
      const long long at = start->number;
      m.devices.push_back(
          {{profile, at < 0 || at >= max_units ? max_units : static_cast<int>(at)}, {}});
      std::vector<std::pair<std::size_t, long long>> dd;
      for (const slice_consumption& c : d->consumes) {
        const auto s = std::find_if(own.begin(), own.end(), [&](std::size_t i) {
          return sets[i].set->name == c.counter_set;
        });
        if (s == own.end()) continue;
        for (const slice_counter& k : c.counters) {
          const std::size_t i = counter_index.at({*s, k.name});
          if (k.value == 0) continue;
          divisor[i] = std::gcd(divisor[i], k.value);
          dd.emplace_back(i, k.value);
        }
      }
      draws.push_back(std::move(dd));
    }
    if (!ok) return;
    constexpr long long most = std::numeric_limits<int>::max();
    for (std::size_t i = 0; i < capacity.size(); ++i) {
      const long long scaled = divisor[i] > 0 ? capacity[i] / divisor[i] : capacity[i];
      // Below `most`, so that a draw clamped to `most` still overdraws it.
      if (scaled >= most) {
        warning(mig.front()->at,
                fmt::format("the counters of {} are too large to compare (a capacity of {} "
                            "units after scaling)",
                            label, scaled));
        return;
      }
      m.counters.push_back({counter_kind::unit, static_cast<int>(i), static_cast<int>(scaled)});
    }
    for (std::size_t d = 0; d < draws.size(); ++d)
      for (const auto& [i, v] : draws[d])
        m.devices[d].draws.push_back(
            {static_cast<int>(i), static_cast<int>(std::min(v / divisor[i], most))});

    const admission_report r = compare_admission(*g, m, default_admission_budget, examples);
    ++f_.slice_gpus;
    if (r.exact()) {
      ++f_.slice_gpus_exact;
      if (settings_.verbose)
        note(mig.front()->at,
             fmt::format("the counters of {} ({}, {} MIG devices) admit exactly the sets of "
                         "devices the placement rules allow ({} sets looked at)",
                         label, g->slug, mig.size(), r.states));
      return;
    }
    const auto named = [&](const std::vector<std::size_t>& set) {
      std::string names, places;
      for (const std::size_t i : set) {
        const instance& w = m.devices[i].where;
        names += fmt::format("{}{}", names.empty() ? "" : " + ", mig[i]->name);
        places += fmt::format("{}{}@{}", places.empty() ? "" : " + ",
                              g->profiles[static_cast<std::size_t>(w.profile)].name,
                              attribute(*mig[i], "placementStart")->number);
      }
      return fmt::format("{} ({})", places, names);
    };
    if (r.admitted_illegal > 0) {
      std::vector<std::string> notes;
      for (const auto& set : r.admitted_illegal_examples)
        notes.push_back("admitted, illegal: " + named(set));
      error(mig.front()->at,
            fmt::format("the counters of {} ({}) admit {}{} set{} of devices the placement rules "
                        "forbid: the scheduler can allocate them together, the GPU cannot "
                        "create them",
                        label, g->slug, r.complete ? "" : "at least ", r.admitted_illegal,
                        plural(r.admitted_illegal)),
            std::move(notes));
    }
    if (r.legal_refused > 0) {
      std::vector<std::string> notes;
      for (const auto& set : r.legal_refused_examples)
        notes.push_back("legal, refused: " + named(set));
      error(mig.front()->at,
            fmt::format("the counters of {} ({}) refuse {}{} set{} of devices the placement rules "
                        "allow: the scheduler never allocates them together",
                        label, g->slug, r.complete ? "" : "at least ", r.legal_refused,
                        plural(r.legal_refused)),
            std::move(notes));
    }
    if (!r.complete)
      warning(mig.front()->at,
              fmt::format("the comparison of {} stopped at its budget of {} sets looked at: "
                          "{} not checked in full",
                          label, default_admission_budget, label));
  }

  file_check& f_;
  const check_settings& settings_;
  std::vector<const slice_device*> unresolved_;
  // Devices with two consumesCounters entries of one set: the API refuses them.
  std::vector<const slice_device*> twice_;
  // A slice of a version check does not read whose pool is not known: any
  // pool may lack what it holds.
  bool refused_elsewhere_ = false;
};

}  // namespace

void check_slices(file_check& f, const check_settings& settings) {
  slices_checker(f, settings).run();
}

}  // namespace migplan::cli::check

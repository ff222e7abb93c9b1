// SPDX-License-Identifier: Apache-2.0
// `migplan check`: whether a geometry's request fits on one GPU model, and
// why not (geometry_checker.hpp).

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <migplan/explain.hpp>
#include <migplan/lookup.hpp>
#include <migplan/search.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "check/checker.hpp"
#include "check/geometry_checker.hpp"
#include "io/check_input.hpp"
#include "io/ci_request.hpp"
#include "io/mig_parted.hpp"
#include "io/names.hpp"
#include "io/request.hpp"
#include "messages.hpp"
#include "pack/resolve.hpp"
#include "text.hpp"

namespace migplan::cli::check::detail {

model_check geometry_checker::check_on(const gpu_model& gpu, const geometry_spec& g,
                                       const std::vector<const profile_request*>& requests,
                                       bool mig_parted) {
  model_check mc;
  mc.gpu = &gpu;
  std::vector<item> items;
  // Profile index -> the first requests naming it by its current name and by a former one.
  std::map<int, std::pair<const profile_request*, const profile_request*>> named;
  struct resolved_request {
    int profile, start;
    const profile_request* request;
  };
  std::vector<resolved_request> resolved;
  // CIs a mig-parted entry names, per GI profile: mig-parted creates one CI per count
  // and puts each in the GI it created last while that GI has room for it, else in a new
  // GI (SetMigConfig in pkg/mig/config/config.go), trying every order of the flattened
  // profiles until one succeeds; so the entry fits when some sharing of its CIs over
  // GIs fits, and the fewest GIs is the one to check (compute.hpp, group_cis).
  std::map<int, std::pair<std::vector<int>, const profile_request*>> lone_cis;
  // A geometry file's ITEMs that name CIs ("3g.20gb[2c,1c]", "4x1c.3g.20gb"), re-read
  // and resolved together as pack resolves them (pack/resolve), with the GI profile
  // of each for the message.
  std::vector<token> ci_tokens;
  std::vector<std::pair<int, const profile_request*>> ci_requests;
  const auto ci_fail = [&](const profile_request& r, const ci_rejection& why) {
    add(severity::error, fault::invalid, r.at,
        fmt::format("{} does not fit on {}: {}", what(g), gpu.slug, why.message));
    if (mc.ci_code == ci_reason_code::none) {
      mc.status = model_check::outcome::does_not_fit;
      mc.ci_code = why.code;
      mc.message = why.message;
      mc.unknown = {why.gi_profile};
    }
  };
  const auto unknown = [&](const profile_request& r, std::string_view name, std::string message) {
    add(severity::error, fault::invalid, r.at, message);
    mc.status = model_check::outcome::unknown_profile;
    mc.unknown.emplace_back(name);
    if (!mc.message.empty()) mc.message += "; ";
    mc.message += message;
  };
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const profile_request& r = *requests[i];
    const std::string& name = mig_parted ? names_[i] : r.name;
    int p = -1;
    bool old_name = false;
    if (mig_parted) {
      // The one reader of mig-devices keys (io/mig_parted), as plan --mig-config reads them.
      const mig_device d = resolve_mig_device(settings_.models, gpu, r.name);
      if (d.gi < 0) {
        unknown(r, strip_profile_name(name), d.message);
        continue;
      }
      p = d.gi;
      old_name = d.former;
      if (d.former) add(severity::warning, fault::invalid, r.at, d.message);
      if (d.ci_error.code != ci_reason_code::none) {
        ci_fail(r, d.ci_error);
        continue;
      }
      if (d.ci >= 0) {
        auto& [cis, first] = lone_cis[p];
        cis.insert(cis.end(), static_cast<std::size_t>(r.count), d.ci);
        if (first == nullptr) first = &r;
        continue;
      }
    } else {
      std::string unknown_message;
      auto found = resolve_profile(settings_.models, gpu, name);
      if (found)
        p = *found;
      else
        unknown_message = found.error().message;
      if (p < 0) {
        const int former = find_profile_by_former_name(gpu, strip_profile_name(name));
        if (former >= 0) {
          add(severity::warning, fault::invalid, r.at,
              fmt::format("{}; current drivers need '{}'",
                          former_name_text(gpu, former, strip_profile_name(name)),
                          gpu.profiles[static_cast<std::size_t>(former)].name));
          p = former;
          old_name = true;
        }
      }
      if (p < 0) {
        unknown(r, strip_profile_name(name), unknown_message);
        continue;
      }
    }
    if (!mig_parted && r.compute) {
      auto t = parse_item(r.text);
      if (!t) {
        unknown(r, strip_profile_name(name), t.error().message);
        continue;
      }
      t->profile = gpu.profiles[static_cast<std::size_t>(p)].name;
      ci_tokens.push_back(std::move(*t));
      ci_requests.emplace_back(p, &r);
      continue;
    }
    // One driver knows a profile by one name: the old name and the new one
    // together work with no driver at all.
    auto& [current_by, former_by] = named[p];
    const profile_request*& mine = old_name ? former_by : current_by;
    const profile_request* other = old_name ? current_by : former_by;
    const bool first_of_kind = mine == nullptr;
    if (first_of_kind) mine = &r;
    if (first_of_kind && other != nullptr) {
      const std::string_view old_text = strip_profile_name(former_by->name);
      unknown(r, old_text,
              fmt::format("{} and {} name the same {} profile under an older and a current "
                          "driver; no driver accepts both",
                          old_text, gpu.profiles[static_cast<std::size_t>(p)].name, gpu.slug));
      continue;
    }
    const int start = r.start ? *r.start : item::any_start;
    for (long long n = 0; n < r.count; ++n) items.push_back({p, start});
    resolved.push_back({p, start, &r});
  }
  if (mc.status != model_check::outcome::fits) return mc;
  std::vector<std::string> implied;
  if (!ci_tokens.empty()) {
    auto cis = resolve_request(settings_.models, gpu, ci_tokens);
    if (!cis) {
      const profile_request& r = *ci_requests.front().second;
      unknown(r, strip_profile_name(r.name), cis.error().message);
      return mc;
    }
    if (cis->compute.rejected) {
      const ci_rejection& why = *cis->compute.rejected;
      const profile_request* culprit = ci_requests.front().second;
      for (const auto& [p, r] : ci_requests)
        if (gpu.profiles[static_cast<std::size_t>(p)].name == why.gi_profile) {
          culprit = r;
          break;
        }
      ci_fail(*culprit, why);
      return mc;
    }
    for (const item& it : cis->items) items.push_back(it);
    for (const auto& [p, r] : ci_requests)
      resolved.push_back({p, r->start ? *r->start : item::any_start, r});
    implied.insert(implied.end(), cis->compute.implied.begin(), cis->compute.implied.end());
  }
  for (const auto& [p, group] : lone_cis) {
    const profile& gi = gpu.profiles[static_cast<std::size_t>(p)];
    const ci_grouping shared = group_cis(gi, group.first);
    const std::size_t n = shared.gis.size();
    for (std::size_t k = 0; k < n; ++k) items.push_back({p, item::any_start});
    resolved.push_back({p, item::any_start, group.second});
    std::map<int, int> per_ci;
    for (int ci : group.first) ++per_ci[ci];
    std::vector<std::string> terms;
    for (const auto& [ci, k] : per_ci)
      terms.push_back(fmt::format("{} x {}", k, gi.ci_profiles[static_cast<std::size_t>(ci)].name));
    implied.push_back(fmt::format("its compute instances ({}) take {}{} {} GPU instance{}",
                                  fmt::join(terms, " + "), shared.over_cap ? "at least " : "", n,
                                  gi.name, plural(n)));
  }
  mc.items = items;
  const answer& a = solved(gpu, items);
  if (a.layout_count > 0) {
    mc.layout_count = a.layout_count;
    mc.preferred = a.preferred;
    return mc;
  }
  mc.status = model_check::outcome::does_not_fit;
  mc.why = a.why;
  mc.closest = a.closest;
  std::vector<std::string> notes = implied;
  for (const closest_fit& c : mc.closest)
    notes.push_back(fmt::format("closest fit: drop {} -> {}", items_text(gpu, c.drop),
                                layout_text(gpu, c.where.where)));
  // A cap or a start is one profile's fault: say it at that profile's line.
  // A combination is the request's: at `mig-devices:` / `instances:`.
  location where = g.items_at;
  for (const resolved_request& rr : resolved) {
    const bool capped = mc.why.code == reason_code::instance_cap && !mc.why.profiles.empty() &&
                        rr.profile == mc.why.profiles.front();
    const bool bad_start =
        mc.why.code == reason_code::bad_start &&
        std::any_of(mc.why.conflict.begin(), mc.why.conflict.end(), [&](const item& it) {
          return it.profile == rr.profile && it.start == rr.start;
        });
    if (capped || bad_start) {
      where = rr.request->at;
      break;
    }
  }
  add(severity::error, fault::invalid, where,
      fmt::format("{} does not fit on {}: {}", what(g), gpu.slug, describe(gpu, mc.why, mc.items)),
      std::move(notes));
  return mc;
}

// The core's answer, solved once per distinct request and model: configs
// repeat a geometry for every device filter and node type, and a file of
// many entries costs its distinct geometries, not its entries.
const geometry_checker::answer& geometry_checker::solved(const gpu_model& gpu,
                                                         const std::vector<item>& items) {
  auto [it, fresh] = solved_.try_emplace({&gpu, items});
  answer& a = it->second;
  if (!fresh) return a;
  solve_options one;
  one.max_layouts = 1;
  const solution sol = solve(gpu, items, one);
  if (sol.feasible()) {
    a.layout_count = sol.layout_count;
    a.preferred = sol.layouts.front().where;
  } else {
    a.why = explain(gpu, items, sol.why);
    a.closest = closest_fits(gpu, items, 3);
  }
  return a;
}

}  // namespace migplan::cli::check::detail

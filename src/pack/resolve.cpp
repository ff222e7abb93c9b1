// SPDX-License-Identifier: Apache-2.0
#include "pack/resolve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <migplan/compute.hpp>
#include <optional>
#include <string>

#include "io/ci_request.hpp"
#include "io/names.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

// "1c" for a CI of its GI; the full CI as "3c" too, which brackets accept.
std::string short_ci(const profile& gi, int ci) {
  return fmt::format("{}c", gi.ci_profiles[static_cast<std::size_t>(ci)].compute_slices);
}

// Why the CIs `asked` cannot be had in one GI of profile `p`, as written in `shown`.
ci_rejection rejection_of(const gpu_model& gpu, int p, const std::vector<int>& asked,
                          const ci_reason& why, const std::string& shown) {
  const profile& gi = prof(gpu, p);
  ci_rejection r{why.code, {}, std::string(gi.name), {}};
  for (int ci : asked) {
    const std::string n(gi.ci_profiles[static_cast<std::size_t>(ci)].name);
    if (std::find(r.ci_profiles.begin(), r.ci_profiles.end(), n) == r.ci_profiles.end())
      r.ci_profiles.push_back(n);
  }
  switch (why.code) {
    case ci_reason_code::ci_cap: {
      const ci_profile& c = gi.ci_profiles[static_cast<std::size_t>(why.ci)];
      r.ci_profiles = {std::string(c.name)};
      r.message = fmt::format("{} asks {} x {} of one {} GPU instance, but one holds at most {}",
                              shown, why.needed, c.name, gi.name, why.available);
      break;
    }
    case ci_reason_code::ci_slices: {
      std::vector<std::string> terms;
      for (int ci : asked)
        terms.push_back(
            fmt::format("{}", gi.ci_profiles[static_cast<std::size_t>(ci)].compute_slices));
      r.message = fmt::format("{} needs {} compute slices ({}), but a {} GPU instance has {}",
                              shown, why.needed, fmt::join(terms, " + "), gi.name, why.available);
      break;
    }
    case ci_reason_code::ci_placement:
      r.message = fmt::format(
          "the CIs of {} fit the {} compute slices of a {} GPU instance in number but not in "
          "place: a CI of c slices starts only at a multiple of the smallest power of two >= c "
          "(an inferred rule; see doc/compute-instances.md)",
          shown, gi.compute_slices, gi.name);
      break;
    case ci_reason_code::unknown_ci_profile:
      return unknown_ci_data(gpu, gi);
    case ci_reason_code::none:
      break;
  }
  return r;
}

// The default CI at slice 0, or nothing when the GI's CI profiles are unknown.
gi_compute default_compute(const profile& gi, std::string from) {
  gi_compute c;
  c.from = std::move(from);
  c.layout_count = 1;
  if (const int d = default_ci(gi); d >= 0) c.where.push_back({d, 0});
  return c;
}

// "3g.20gb[2c,1c]@4" for a GI and the CIs asked of it ("3g.20gb" when none were).
std::string gi_with_cis_text(const gpu_model& gpu, const item& it, const gi_compute& c) {
  const profile& gi = prof(gpu, it.profile);
  std::string out(gi.name);
  if (!c.asked.empty()) {
    std::vector<std::string> parts;
    for (int ci : c.asked) parts.push_back(short_ci(gi, ci));
    out += fmt::format("[{}]", fmt::join(parts, ","));
  }
  if (it.start != item::any_start) out += fmt::format("@{}", it.start);
  return out;
}

// One token resolved in pass 1.
struct resolved_token {
  int profile = 0;
  int start = item::any_start;
  std::vector<int> cis;  // expanded: brackets' CIs, or the lone CI `count` times
  std::optional<ci_rejection> rejected;
};

}  // namespace

result<resolved_request> resolve_request(model_list models, const gpu_model& gpu,
                                         std::span<const token> tokens) {
  // Most requests name no CI: they are GPU-instance items, resolved as ever, and every
  // GI gets its default CI, which the renderers read off the profile (`pack --batch`
  // answers such lines at the speed it did before CIs).
  if (std::none_of(tokens.begin(), tokens.end(),
                   [](const token& t) { return t.ci || !t.cis.empty(); })) {
    auto items = resolve_items(models, gpu, tokens);
    if (!items) return items.error();
    return resolved_request{std::move(*items), {}};
  }
  // Every GI and every CI counts: "2x3g.20gb[3x1c]" is 2 GIs holding 6 CIs.
  // Each count is at most max_item_count and an ITEM at most max_item_length bytes, so
  // the sum cannot overflow.
  long long total = 0;
  bool any_ci = false;
  for (const token& t : tokens) {
    long long per = 1;
    if (!t.cis.empty()) {
      per = 0;
      for (const ci_token& c : t.cis) per += c.count;
    }
    any_ci = any_ci || !t.cis.empty() || t.ci;
    total += t.count * std::max(per, 1LL);
  }
  if (total > max_request_instances)
    return error{fmt::format(
        "the request holds {} instances{}; no gpu holds more than {}, and a request may hold "
        "at most {}",
        total, any_ci ? " (compute instances included)" : "", max_units, max_request_instances)};

  // Pass 1: every name resolved, so bad input is reported before any answer.
  std::vector<resolved_token> res;
  res.reserve(tokens.size());
  for (const token& t : tokens) {
    auto p = resolve_profile(models, gpu, t.profile);
    if (!p) {
      if (t.ci) return error{fmt::format("{} (in {})", p.error().message, quote_token(t.text))};
      return p.error();
    }
    resolved_token r;
    r.profile = *p;
    if (t.start) {
      if (*t.start >= gpu.units)
        return error{fmt::format("start {} in {} is outside {}'s placement units 0-{}", *t.start,
                                 quote_token(t.text), gpu.slug, gpu.units - 1)};
      r.start = *t.start;
    }
    const auto add = [&](const ci_token& c, long long times) -> std::optional<error> {
      auto found = lookup_ci(gpu, r.profile, c, t.text);
      if (!found) return found.error();
      if (found->rejected) {
        if (!r.rejected) r.rejected = std::move(found->rejected);
        return std::nullopt;
      }
      for (long long k = 0; k < times; ++k) r.cis.push_back(found->ci);
      return std::nullopt;
    };
    if (t.ci) {
      if (auto e = add(*t.ci, t.count)) return *e;
    }
    for (const ci_token& c : t.cis)
      if (auto e = add(c, c.count)) return *e;
    res.push_back(std::move(r));
  }

  // CIs asked on their own, per GI profile: every CI and the ITEMs they came from.
  struct lone_group {
    std::vector<int> cis;
    std::vector<std::string> from;
    std::optional<ci_rejection> rejected;
  };
  std::map<int, lone_group> lone;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (!tokens[i].ci) continue;
    lone_group& g = lone[res[i].profile];
    g.cis.insert(g.cis.end(), res[i].cis.begin(), res[i].cis.end());
    g.from.push_back(clip_token(tokens[i].text));
    if (!g.rejected && res[i].rejected) g.rejected = res[i].rejected;
  }

  // Pass 2: the GI items in request order; a group of lone CIs where its first ITEM was.
  resolved_request out;
  compute_request& cr = out.compute;
  const auto reject = [&](ci_rejection r) {
    if (!cr.rejected) cr.rejected = std::move(r);
  };
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const token& t = tokens[i];
    const resolved_token& r = res[i];
    const profile& gi = prof(gpu, r.profile);
    if (t.ci) {
      cr.any = true;
      auto it = lone.find(r.profile);
      if (it == lone.end()) continue;  // its group was placed at its first ITEM
      lone_group g = std::move(it->second);
      lone.erase(it);
      const std::string from = fmt::format("{}", fmt::join(g.from, " "));
      if (g.rejected) {
        // The request still names a GPU instance: shown as written, as a bracketed
        // item whose CIs are not all offered is.
        reject(*g.rejected);
        gi_compute c;
        c.from = from;
        c.shown = from;
        out.items.push_back({r.profile, item::any_start});
        cr.gis.push_back(std::move(c));
        continue;
      }
      const ci_grouping grouped = group_cis(gi, g.cis);
      if (grouped.why.code != ci_reason_code::none) {
        reject(unknown_ci_data(gpu, gi));
        continue;
      }
      std::vector<std::string> shown;
      for (const std::vector<int>& cis : grouped.gis) {
        gi_compute c;
        c.asked = cis;
        c.from = from;
        if (!grouped.over_cap) {
          const ci_solution s = solve_cis(gi, cis);
          c.where = s.where;
          c.layout_count = s.layout_count;
        }
        out.items.push_back({r.profile, item::any_start});
        shown.push_back(gi_with_cis_text(gpu, out.items.back(), c));
        cr.gis.push_back(std::move(c));
      }
      const std::size_t n = grouped.gis.size();
      cr.implied.push_back(
          grouped.over_cap ? fmt::format("{} need at least {} {} GPU instances", from, n, gi.name)
                           : fmt::format("{} take{} {} {} GPU instance{}: {}", from,
                                         g.from.size() == 1 && tokens[i].count == 1 ? "s" : "", n,
                                         gi.name, plural(n), fmt::join(shown, " ")));
      continue;
    }
    if (t.cis.empty()) {
      for (long long k = 0; k < t.count; ++k) {
        out.items.push_back({r.profile, r.start});
        cr.gis.push_back(default_compute(gi, clip_token(t.text)));
      }
      continue;
    }
    cr.any = true;
    gi_compute c;
    c.asked = r.cis;
    c.from = clip_token(t.text);
    if (r.rejected) {
      reject(*r.rejected);
      // Shown as written: the CIs it asks are not all CIs of the GI.
      const std::string_view text = t.text;
      const std::size_t x = text.find_first_of("xX");
      c.shown = clip_token(t.count > 1 || (x != std::string_view::npos && x < text.find('['))
                               ? text.substr(x + 1)
                               : text);
    } else {
      const ci_solution s = solve_cis(gi, r.cis);
      c.where = s.where;
      c.layout_count = s.layout_count;
      if (!s.feasible())
        reject(rejection_of(gpu, r.profile, r.cis, s.why,
                            quote_token(gi_with_cis_text(gpu, {r.profile, r.start}, c))));
    }
    for (long long k = 0; k < t.count; ++k) {
      out.items.push_back({r.profile, r.start});
      cr.gis.push_back(c);
    }
  }
  for (std::size_t i = 0; i < out.items.size(); ++i)
    if (cr.gis[i].shown.empty()) cr.gis[i].shown = gi_with_cis_text(gpu, out.items[i], cr.gis[i]);
  return out;
}

}  // namespace migplan::cli

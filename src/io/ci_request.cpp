// SPDX-License-Identifier: Apache-2.0
#include "io/ci_request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <migplan/detail/strings.hpp>
#include <migplan/lookup.hpp>

#include "io/names.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

// "12" -> 12, or nullopt when it is not a whole number up to `limit`.
std::optional<long long> small_number(std::string_view s, long long limit) {
  if (!all_digits(s)) return std::nullopt;
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || v > limit) return std::nullopt;
  return v;
}

// "1c.3g.20gb" -> (1, "3g.20gb"); "3g.20gb" -> nullopt. "MIG " already stripped.
std::optional<std::pair<std::string_view, std::string_view>> ci_name_parts(std::string_view name) {
  std::size_t i = 0;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
  if (i == 0 || i + 2 > name.size() || (name[i] != 'c' && name[i] != 'C') || name[i + 1] != '.')
    return std::nullopt;
  return std::pair{name.substr(0, i), name.substr(i + 2)};
}

// "1c" for a CI of its GI; the full CI as "3c" too, which brackets accept.
std::string short_ci(const profile& gi, int ci) {
  return fmt::format("{}c", gi.ci_profiles[static_cast<std::size_t>(ci)].compute_slices);
}

// The CI profile names of GI profile `gi`, in order.
std::vector<std::string> ci_names(const profile& gi) {
  std::vector<std::string> names;
  for (const ci_profile& c : gi.ci_profiles) names.emplace_back(c.name);
  return names;
}

// A CI token resolved inside GI profile `p`: the CI index, a rejection (the GI does not
// offer it, or its CI profiles are unknown), or bad input.
struct ci_lookup {
  int ci = -1;
  std::optional<ci_rejection> rejected;
};

result<ci_lookup> lookup_ci(const gpu_model& gpu, int p, const ci_token& c, std::string_view item) {
  const profile& gi = prof(gpu, p);
  std::string wanted;  // the CI profile name asked for, as the data would spell it
  int slices = 0;
  if (c.slices) {
    slices = *c.slices;
    wanted =
        slices == gi.compute_slices ? std::string(gi.name) : fmt::format("{}c.{}", slices, gi.name);
  } else {
    const std::string_view name = strip_profile_name(c.name);
    if (detail::iequals(name, gi.name)) {
      slices = gi.compute_slices;
      wanted = std::string(gi.name);
    } else if (const auto parts = ci_name_parts(name)) {
      if (!detail::iequals(parts->second, gi.name))
        return error{fmt::format("{} in {} is a compute instance of {}, not of {}",
                                 quote_token(name), quote_token(item), clip_token(parts->second),
                                 gi.name)};
      slices = static_cast<int>(small_number(parts->first, 1000).value_or(1001));
      wanted = fmt::format("{}c.{}", clip_token(parts->first), gi.name);
    } else {
      return error{fmt::format(
          "unknown compute instance {} in {}: expected Nc (1c, 2c, ...) or "
          "a compute-instance profile name of {}{}",
          quote_token(name), quote_token(item), gi.name, did_you_mean(name, ci_names(gi)))};
    }
  }
  if (gi.ci_profiles.empty()) return ci_lookup{-1, unknown_ci_data(gpu, gi)};
  const int ci = find_ci_by_slices(gi, slices);
  if (ci >= 0) return ci_lookup{ci, std::nullopt};
  return ci_lookup{-1, ci_not_offered(gpu, gi, wanted)};
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

ci_rejection unknown_ci_data(const gpu_model& gpu, const profile& gi) {
  return {ci_reason_code::unknown_ci_profile,
          fmt::format("CI profiles unknown for {} on {}: no capture or document lists them, so "
                      "migplan does not guess; 'migplan profiles --gpu {} --ci' shows which GPU "
                      "instances have them",
                      gi.name, gpu.slug, gpu.slug),
          std::string(gi.name),
          {}};
}

ci_rejection ci_not_offered(const gpu_model& gpu, const profile& gi, std::string_view wanted) {
  return {ci_reason_code::unknown_ci_profile,
          fmt::format("{} is not a compute-instance profile of {} on {} ({} offers {})", wanted,
                      gi.name, gpu.slug, gi.name, join_and(ci_names(gi))),
          std::string(gi.name),
          {std::string(wanted)}};
}

result<std::vector<ci_token>> parse_ci_brackets(std::string_view item, std::string_view brackets,
                                                std::string& after) {
  const std::size_t close = brackets.find(']');
  if (close == std::string_view::npos)
    return error{fmt::format("unclosed '[' in {}", quote_token(item))};
  const std::string_view inside = brackets.substr(1, close - 1);
  const std::string_view tail = brackets.substr(close + 1);
  if (inside.find('[') != std::string_view::npos || tail.find_first_of("[]") != std::string::npos)
    return error{fmt::format("more than one '[...]' in {}", quote_token(item))};
  if (!tail.empty() && tail.front() != '@')
    return error{fmt::format("unexpected {} after ']' in {}; only @START may follow",
                             quote_token(tail), quote_token(item))};
  after = std::string(tail);
  if (trim(inside).empty())
    return error{fmt::format("no compute instances inside '[]' in {}", quote_token(item))};
  std::vector<ci_token> out;
  std::size_t from = 0;
  for (;;) {
    const std::size_t comma = inside.find(',', from);
    const std::string_view part = trim(inside.substr(from, comma - from));
    if (part.empty())
      return error{
          fmt::format("an empty compute instance inside '[...]' in {}", quote_token(item))};
    ci_token c;
    c.text = std::string(part);
    std::string_view rest = part;
    if (const std::size_t x = rest.find_first_of("xX");
        x != std::string_view::npos && x > 0 && all_digits(rest.substr(0, x))) {
      const auto n = small_number(rest.substr(0, x), max_item_count);
      if (!n || *n < 1)
        return error{fmt::format("count {} in {} must be a whole number from 1 to {}",
                                 clip_token(rest.substr(0, x)), quote_token(item), max_item_count)};
      c.count = *n;
      rest.remove_prefix(x + 1);
    }
    if (rest.find('@') != std::string_view::npos)
      return error{
          fmt::format("{} in {}: compute instances take no start, migplan places "
                      "them inside their GPU instance (an @START after ']' pins the "
                      "GPU instance)",
                      quote_token(part), quote_token(item))};
    if (rest.size() >= 2 && (rest.back() == 'c' || rest.back() == 'C') &&
        all_digits(rest.substr(0, rest.size() - 1))) {
      const auto n = small_number(rest.substr(0, rest.size() - 1), 1000);
      if (!n || *n < 1)
        return error{fmt::format("compute instance {} in {} has no compute slices",
                                 quote_token(part), quote_token(item))};
      c.slices = static_cast<int>(*n);
    } else if (rest.find('.') != std::string_view::npos) {
      c.name = std::string(rest);
    } else {
      return error{
          fmt::format("invalid compute instance {} in {}: expected Nc (1c, 2c, ...) "
                      "or a compute-instance profile name such as 1c.3g.20gb",
                      quote_token(part), quote_token(item))};
    }
    out.push_back(std::move(c));
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
  return out;
}

result<bool> split_ci_name(token& t, std::string_view name) {
  const std::string_view ci_name = strip_profile_name(name);
  const auto parts = ci_name_parts(ci_name);
  if (!parts) return false;
  if (!t.cis.empty())
    return error{
        fmt::format("{} is a compute instance, and '[...]' splits a GPU instance: "
                    "write {}[{}c]",
                    quote_token(ci_name), clip_token(parts->second), clip_token(parts->first))};
  if (t.start)
    return error{fmt::format(
        "a compute instance on its own has no start: {}; to pin its GPU instance, write "
        "{}[{}c]@{}",
        quote_token(t.text), clip_token(parts->second), clip_token(parts->first), *t.start)};
  const auto n = small_number(parts->first, 1000);
  if (!n || *n < 1)
    return error{fmt::format("compute instance {} has no compute slices", quote_token(ci_name))};
  ci_token c;
  c.text = std::string(ci_name);
  c.count = 1;
  c.name = std::string(ci_name);
  t.ci = std::move(c);
  t.profile = std::string(parts->second);
  return true;
}

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
        reject(*g.rejected);
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

// SPDX-License-Identifier: Apache-2.0
#include "io/names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <charconv>
#include <migplan/lookup.hpp>
#include <numeric>

#include "k8s_names.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

using detail::ascii_lower;
using detail::istarts_with;

bool parse_int(std::string_view s, int& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string join_or(const std::vector<std::string>& v, std::string_view last = " or ") {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += i + 1 == v.size() ? last : ", ";
    out += v[i];
  }
  return out;
}

bool icontains(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i)
    if (detail::iequals(hay.substr(i, needle.size()), needle)) return true;
  return false;
}

// Shorter than this, a word inside a name ("gb", "10") matches too much to
// be a guess at one model; a prefix of a slug or name always counts.
constexpr std::size_t min_contained_length = 3;

// The models `name` (vendor prefix already stripped) is a partial name of, in
// catalog order: those whose slug or nvidia-smi name starts with it ("a100",
// "h100", "gh200", "A100-SXM4"), or, when none does, contains it ("80gb",
// "pcie", "nvl"). A model's own family comes first, so "h100" means the
// three H100 boards rather than the nearest spellings (h200, h20, b200).
std::vector<std::string> partial_matches(model_list models, std::string_view name) {
  std::vector<std::string> prefix, contained;
  for (const gpu_model* m : models) {
    const gpu_model& g = *m;
    bool starts = istarts_with(g.slug, name), within = icontains(g.slug, name);
    for (std::string_view n : g.smi_names) {
      starts = starts || istarts_with(detail::strip_vendor(n), name);
      within = within || icontains(detail::strip_vendor(n), name);
    }
    if (starts)
      prefix.emplace_back(g.slug);
    else if (within && name.size() >= min_contained_length)
      contained.emplace_back(g.slug);
  }
  return prefix.empty() ? contained : prefix;
}

}  // namespace

int edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const int cost = ascii_lower(a[i - 1]) == ascii_lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && ascii_lower(a[i - 1]) == ascii_lower(b[j - 2]) &&
          ascii_lower(a[i - 2]) == ascii_lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::vector<std::string> nearest(std::string_view input, std::span<const std::string> candidates,
                                 std::size_t n) {
  // Close enough to be a typo: about a third of the longer string, at least 2.
  std::vector<std::pair<int, std::string>> scored;
  for (const std::string& c : candidates) {
    const int limit = std::max<int>(2, static_cast<int>(std::max(input.size(), c.size())) / 3);
    // The distance is at least the difference in length: a long word is
    // dismissed without filling a table of its length times the name's.
    const auto longer = std::max(input.size(), c.size()),
               shorter = std::min(input.size(), c.size());
    if (longer - shorter > static_cast<std::size_t>(limit)) continue;
    const int d = edit_distance(input, c);
    if (d <= limit) scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [d, c] : scored) {
    if (out.size() == n) break;
    // Only the case differs ("Pack-First-Fit"): that one name, not its neighbours too.
    if (d > 0 && scored.front().first == 0) break;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

std::string did_you_mean(std::string_view input, std::span<const std::string> candidates) {
  const auto near = nearest(input, candidates);
  return near.empty() ? std::string() : " (did you mean " + join_or(near) + "?)";
}

bool parse_pci_id(std::string_view text, std::uint32_t& out) {
  text = trim(text);
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.remove_prefix(2);
  if (text.size() != 4 && text.size() != 8) return false;
  std::uint32_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 16);
  if (ec != std::errc() || p != text.data() + text.size()) return false;
  out = text.size() == 4 ? (v << 16) | 0x10DEu : v;
  return true;
}

namespace {

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = detail::ascii_lower(c);
  return out;
}

}  // namespace

std::vector<product_name> product_names(model_list models) {
  const auto dashed = [](std::string_view n) {
    std::string out(n);
    std::replace(out.begin(), out.end(), ' ', '-');
    return out;
  };
  std::vector<product_name> names;
  for (const gpu_model* g : models)
    for (const std::string_view n : g->smi_names) {
      const std::string full = dashed(n);
      names.push_back({lower_ascii(full), full, g});
      const std::string bare = dashed(detail::strip_vendor(n));
      if (bare != full) names.push_back({lower_ascii(bare), bare, g});
    }
  return names;
}

const gpu_model* model_of_product(const std::vector<product_name>& names, std::string_view label) {
  const std::string key = lower_ascii(label);
  for (const product_name& p : names)
    if (p.key == key) return p.gpu;
  return nullptr;
}

result<const gpu_model*> resolve_gpu(model_list models, std::string_view text) {
  const std::string_view t = trim(text);
  if (t.empty()) return error{"empty gpu name"};
  if (const gpu_model* g = find_model(models, t)) return g;
  if (const gpu_model* g = find_model_by_smi_name(models, t)) return g;
  // "NVIDIA-H100-80GB-HBM3": the name Kubernetes users see first, on their nodes.
  if (t.find('-') != std::string_view::npos)
    if (const gpu_model* g = model_of_product(product_names(models), t)) return g;
  // A partial name before a PCI ID: "a100" is four hex digits, but people
  // typing it mean the A100s, not device 0xA10010DE.
  const std::string_view name = trim(detail::strip_vendor(t));
  const std::vector<std::string> family = partial_matches(models, name);
  if (family.size() > 1)
    return error{fmt::format("gpu {} is ambiguous: {}; pass one of them", quote_token(t),
                             fmt::join(family, ", "))};
  std::uint32_t id = 0;
  const bool pci = family.empty() && parse_pci_id(t, id);
  if (pci)
    if (const gpu_model* g = find_model_by_pci(models, id)) return g;
  std::vector<std::string> near = family;
  // "H200 141GB HBM3e", "h100-sxm5-80gb": a board's name with words nvidia-smi does not
  // print. Its first word names the family ("H200": h200), where the nearest spellings
  // of the whole may be other families' (gh200-144gb; a100-80gb, whose nvidia-smi name
  // A100-SXM4-80GB is two letters from h100-sxm5-80gb): only the family's are offered,
  // and the family itself where none of its names is near.
  std::vector<std::string> first_word_family;
  if (const std::size_t end = name.find_first_of(" -");
      near.empty() && end != std::string_view::npos && end >= min_contained_length)
    first_word_family = partial_matches(models, name.substr(0, end));
  if (near.empty()) {
    // Near a slug or an nvidia-smi name; suggested by slug, each model once.
    std::vector<std::string> names, slugs;
    for (const gpu_model* g : models) {
      names.emplace_back(g->slug);
      slugs.emplace_back(g->slug);
      for (std::string_view n : g->smi_names) {
        names.emplace_back(detail::strip_vendor(n));
        slugs.emplace_back(g->slug);
      }
    }
    const auto in_family = [&](const std::string& slug) {
      return first_word_family.empty() ||
             std::find(first_word_family.begin(), first_word_family.end(), slug) !=
                 first_word_family.end();
    };
    for (const std::string& n : nearest(name, names, names.size())) {
      const auto at =
          static_cast<std::size_t>(std::find(names.begin(), names.end(), n) - names.begin());
      if (near.size() < 3 && in_family(slugs[at]) &&
          std::find(near.begin(), near.end(), slugs[at]) == near.end())
        near.push_back(slugs[at]);
    }
    if (near.empty()) near = first_word_family;
  }
  const std::string hint = near.empty() ? "" : " (did you mean " + join_or(near) + "?)";
  if (pci) {
    // "b201" reads as a device id, but may be a typo of a name: say both.
    if (!istarts_with(t, "0x") && !hint.empty())
      return error{fmt::format(
          "no supported gpu has pci device id 0x{:08X}, and no model is named {}{}; 'migplan "
          "gpus' lists them",
          id, quote_token(t), hint)};
    return error{
        fmt::format("no supported gpu has pci device id 0x{:08X} (see 'migplan gpus')", id)};
  }
  return error{fmt::format("unknown gpu {}{}; 'migplan gpus' lists them", quote_token(t), hint)};
}

std::string_view strip_profile_name(std::string_view text) {
  text = trim(text);
  if (text.size() > 4 && detail::istarts_with(text, "mig ")) text = trim(text.substr(4));
  return text;
}

std::string former_name_text(const gpu_model& gpu, int p, std::string_view name) {
  const profile& pr = gpu.profiles[static_cast<std::size_t>(p)];
  const former_name* f = find_former_name(pr, name);
  assert(f != nullptr && "not a former name of the profile");
  return fmt::format("{} is what older {} drivers called {} (profile {}; {})", name, gpu.slug,
                     pr.name, pr.id, f->note);
}

std::string circulating_name_text(const gpu_model& gpu, int p, std::string_view name) {
  const profile& pr = gpu.profiles[static_cast<std::size_t>(p)];
  const circulating_name* c = find_circulating_name(pr, name);
  assert(c != nullptr && "not a circulating name of the profile");
  return fmt::format(
      "{} is not a name nvidia-smi prints; nvidia-smi calls it {} on {} (profile {}; {})", name,
      pr.name, gpu.slug, pr.id, c->note);
}

std::string former_name_note(model_list models, std::string_view name) {
  name = strip_profile_name(name);
  for (const gpu_model* g : models)
    if (const int p = find_profile_by_former_name(*g, name); p >= 0)
      return former_name_text(
          *g, p, find_former_name(g->profiles[static_cast<std::size_t>(p)], name)->name);
  // Quoted as the data spells it, as former names are, not as typed.
  for (const gpu_model* g : models)
    if (const int p = find_profile_by_circulating_name(*g, name); p >= 0)
      return circulating_name_text(
          *g, p, find_circulating_name(g->profiles[static_cast<std::size_t>(p)], name)->name);
  return {};
}

namespace {

// The profile `text` names on some model of `models`, as the model spells it, or "".
std::string_view known_profile(model_list models, std::string_view text) {
  const std::string_view name = strip_profile_name(text);
  if (name.empty()) return {};
  for (const gpu_model* g : models)
    if (const int p = find_profile(*g, name); p >= 0)
      return g->profiles[static_cast<std::size_t>(p)].name;
  return {};
}

bool is_count_mark(char c) { return c == 'x' || c == 'X' || c == '*' || c == ':'; }

std::string count_first(std::string_view count, std::string_view profile) {
  return fmt::format("a count goes before its profile, joined by x: write {}x{}", count, profile);
}

}  // namespace

std::string profile_spelling_hint(model_list models, std::string_view text) {
  const std::string_view name = strip_profile_name(text);
  const auto digits_from = [&](std::size_t i) {
    while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
    return i;
  };
  // "1g.10gb x3", "1g.10gb*3", "1g.10gb:3": the count after the profile.
  std::size_t k = name.size();
  while (k > 0 && std::isdigit(static_cast<unsigned char>(name[k - 1]))) --k;
  if (k > 0 && k < name.size()) {
    const std::string_view head = trim(name.substr(0, k));
    if (!head.empty() && is_count_mark(head.back())) {
      const std::string_view before = trim(head.substr(0, head.size() - 1));
      if (before.empty()) return count_first(name.substr(k), "PROFILE");  // "x3" alone
      if (const std::string_view p = known_profile(models, before); !p.empty())
        return count_first(name.substr(k), p);
    }
  }
  // "3*1g.10gb", "3:1g.10gb", "3 x 1g.10gb": the count first, but not joined by x.
  if (const std::size_t d = digits_from(0); d > 0 && d < name.size()) {
    const std::string_view tail = trim(name.substr(d));
    if (!tail.empty() && is_count_mark(tail.front()))
      if (const std::string_view p = known_profile(models, trim(tail.substr(1))); !p.empty())
        return count_first(name.substr(0, d), p);
  }
  // "nvidia.com/mig-1g.10gb", "mig-1g.10gb": the GPU Operator's resource name.
  std::string_view rest = name;
  if (detail::istarts_with(rest, "nvidia.com/")) rest.remove_prefix(11);
  if (detail::istarts_with(rest, "mig-")) {
    rest.remove_prefix(4);
    // Written with '.' for '+' ("mig-1g.10gb.me" is 1g.10gb+me), as NVIDIA's labels are.
    for (const gpu_model* g : models)
      for (const profile& p : g->profiles)
        if (detail::iequals(k8s::label_word(p.name), rest))
          return fmt::format("{} is the Kubernetes resource name of profile {}: write {}",
                             clip_token(name), p.name, p.name);
  }
  return {};
}

std::vector<std::string> all_profile_names(model_list models) {
  std::vector<std::string> out;
  for (const gpu_model* g : models)
    for (const profile& p : g->profiles)
      if (std::find(out.begin(), out.end(), p.name) == out.end()) out.emplace_back(p.name);
  return out;
}

int profile_index(const gpu_model& gpu, std::string_view text) {
  const std::string_view name = strip_profile_name(text);
  if (name.empty()) return -1;
  int id = 0;
  // An ID is never negative, so "-0" is no ID 0.
  if (parse_int(name, id)) return name.front() == '-' ? -1 : find_profile_by_id(gpu, id);
  return find_profile(gpu, name);
}

result<int> resolve_profile(model_list models, const gpu_model& gpu, std::string_view text) {
  const std::string_view name = strip_profile_name(text);
  if (name.empty()) return error{"empty profile name"};
  int id = 0;
  if (parse_int(name, id)) {
    // An ID is never negative, so "-0" is no ID 0: it is named as written.
    const int p = name.front() == '-' ? -1 : find_profile_by_id(gpu, id);
    if (p >= 0) return p;
    std::string ids;
    for (const profile& pr : gpu.profiles)
      ids += fmt::format("{}{}", ids.empty() ? "" : ", ", pr.id);
    return error{fmt::format("{} has no profile id {} (ids: {})", gpu.slug, name, ids)};
  }
  const int p = find_profile(gpu, name);
  if (p >= 0) return p;
  std::string msg = fmt::format("unknown profile {} on {}", quote_token(name), gpu.slug);
  // A profile of other models is not a typo: say which, and still offer the nearest here.
  std::vector<std::string> owners;
  for (const gpu_model* g : models)
    if (find_profile(*g, name) >= 0) owners.emplace_back(g->slug);
  std::vector<std::string> names;
  for (const profile& pr : gpu.profiles) names.emplace_back(pr.name);
  const std::string hint = did_you_mean(name, names);
  if (!owners.empty()) {
    const auto near = nearest(name, names);
    return error{msg + " (it is a profile of " + join_or(owners, " and ") +
                 (near.empty() ? "" : "; here, did you mean " + join_or(near) + "?") + ")"};
  }
  if (const std::string how = profile_spelling_hint(models, name); !how.empty())
    return error{msg + ": " + how};
  // "mem=20Gi": plan's and simulate's memory item, which pack and geometry files do not take.
  if (detail::istarts_with(name, "mem=")) {
    std::string_view size = name.substr(4);
    size = size.substr(0, size.find(':'));
    return error{fmt::format(
        "{}: a memory size is not a profile (plan and simulate take mem=SIZE); 'migplan fit "
        "--gpu {} --memory {}' names the smallest profile with that much",
        msg, gpu.slug, size.empty() ? std::string("SIZE") : clip_token(size))};
  }
  if (const std::string note = former_name_note(models, name); !note.empty())
    return error{msg + ": " + note};
  if (!hint.empty()) return error{msg + hint};
  return error{msg + "; 'migplan profiles --gpu " + std::string(gpu.slug) + "' lists them"};
}

}  // namespace migplan::cli

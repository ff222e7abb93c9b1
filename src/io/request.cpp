// SPDX-License-Identifier: Apache-2.0
#include "io/request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <migplan/lookup.hpp>

#include "io/ci_request.hpp"
#include "io/names.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli {

result<token> parse_item(std::string_view text) {
  token t;
  t.text = std::string(text);
  std::string_view rest = text;
  if (rest.empty()) return error{"empty item"};
  if (text.size() > max_item_length)
    return error{fmt::format("an item of {} bytes ({}) is longer than {} bytes", text.size(),
                             quote_token(text, 24), max_item_length)};
  // Count: leading digits (or a sign) followed by 'x'. A profile name never
  // starts with digits and an 'x' ("1g.5gb" has a 'g' after its digit).
  std::size_t i = 0;
  if (i < rest.size() && (rest[i] == '-' || rest[i] == '+')) ++i;
  while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) ++i;
  if (i < rest.size() && i > 0 && (rest[i] == 'x' || rest[i] == 'X')) {
    const std::string_view num = rest.substr(0, i);
    // "-3x": a whole number, below the range; said as `plan` says it.
    if (num.size() > 1 && num[0] == '-' && all_digits(num.substr(1)))
      return error{
          fmt::format("count {} in {} must be at least 1", clip_token(num), quote_token(text))};
    if (num[0] == '-' || num[0] == '+' || !all_digits(num))
      return error{fmt::format("invalid count {} in {}: expected a whole number from 1 to {}",
                               quote_token(num), quote_token(text), max_item_count)};
    // All digits: a count that overflows is a whole number, just too large.
    long long n = 0;
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && n > max_item_count))
      return error{fmt::format("count {} in {} is too large (at most {})", clip_token(num),
                               quote_token(text), max_item_count)};
    if (n < 1)
      return error{
          fmt::format("count {} in {} must be at least 1", clip_token(num), quote_token(text))};
    t.count = n;
    rest.remove_prefix(i + 1);
  }
  // "3g.20gb[2c,1c]@4": the brackets come out before the start is read.
  std::string unbracketed;
  if (const std::size_t lb = rest.find('['); lb != std::string_view::npos) {
    auto cis = parse_ci_brackets(text, rest.substr(lb), unbracketed);
    if (!cis) return cis.error();
    t.cis = std::move(*cis);
    unbracketed.insert(0, rest.substr(0, lb));
    rest = unbracketed;
  }
  const std::size_t at = rest.find('@');
  std::string_view name = rest.substr(0, at);
  if (at != std::string_view::npos) {
    const std::string_view s = rest.substr(at + 1);
    if (!all_digits(s))
      return error{fmt::format("invalid start {} in {}: expected a placement unit number",
                               quote_token(s), quote_token(text))};
    int v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || v > 1000)
      return error{fmt::format("start {} in {} is out of range", clip_token(s), quote_token(text))};
    t.start = v;
  }
  if (name.empty()) return error{fmt::format("missing profile name in {}", quote_token(text))};
  t.profile = std::string(name);
  if (auto standalone = split_ci_name(t, name); !standalone) return standalone.error();
  return t;
}

std::vector<std::string> split_items(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  bool inside = false;  // within "[...]": commas belong to the item, spaces are dropped
  for (char c : line) {
    if (c == '[') inside = true;
    if (c == ']') inside = false;
    if (inside && (c == ' ' || c == '\t')) continue;
    if (inside && c == ',') {
      cur += c;
      continue;
    }
    if (c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\n') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

result<std::vector<token>> parse_items(std::span<const std::string> words) {
  std::vector<token> out;
  out.reserve(words.size());
  for (const std::string& w : words) {
    // A word may hold several items ("MIG 3g.20gb" quoted, or "a,b"); most hold one.
    if (w.empty()) continue;
    if (w.find_first_of(" \t,\r\n") == std::string::npos) {
      auto t = parse_item(w);
      if (!t) return t.error();
      out.push_back(std::move(*t));
      continue;
    }
    for (const std::string& part : split_items(w)) {
      auto t = parse_item(part);
      if (!t) return t.error();
      out.push_back(std::move(*t));
    }
  }
  // A lone "MIG" word belongs to the next item ("MIG 3g.20gb"): dropped in
  // place (a second vector moved every token once more, on pack's hot path).
  std::size_t kept = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i].count == 1 && !out[i].start &&
        (out[i].profile == "MIG" || out[i].profile == "mig") && out[i].text == out[i].profile &&
        i + 1 < out.size())
      continue;
    if (kept != i) out[kept] = std::move(out[i]);
    ++kept;
  }
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(kept), out.end());
  // A count typed as a word of its own ("1g.10gb x3", "3 x 1g.10gb") would read as an
  // unknown profile or a profile ID: say where it goes instead.
  for (std::size_t i = 1; i < out.size(); ++i) {
    const std::string_view w = out[i].text, before = out[i - 1].text;
    const bool mark = w == "x" || w == "X" || w == "*";
    if (mark && i + 1 < out.size() && all_digits(before))
      return error{fmt::format("{}: a count goes before its profile, joined by x: write {}x{}",
                               quote_token(fmt::format("{} {} {}", before, w, out[i + 1].text)),
                               before, strip_profile_name(out[i + 1].text))};
    if (w.size() > 1 && (w[0] == 'x' || w[0] == 'X' || w[0] == '*') && all_digits(w.substr(1)) &&
        out[i - 1].count == 1 && !out[i - 1].start && out[i - 1].cis.empty() && !out[i - 1].ci)
      return error{fmt::format("{}: a count goes before its profile, joined by x: write {}x{}",
                               quote_token(fmt::format("{} {}", before, w)), w.substr(1),
                               strip_profile_name(before))};
  }
  if (out.empty()) return error{"no profiles given"};
  return out;
}

result<std::vector<item>> resolve_items(model_list models, const gpu_model& gpu,
                                        std::span<const token> tokens) {
  long long total = 0;
  for (const token& t : tokens) total += t.count;  // each count is at most max_item_count
  if (total > max_request_instances)
    return error{fmt::format(
        "the request holds {} instances; no gpu holds more than {}, and a request may hold at "
        "most {}",
        total, max_units, max_request_instances)};
  std::vector<item> out;
  for (const token& t : tokens) {
    if (!t.cis.empty() || t.ci)
      return error{fmt::format("{} names compute instances, which are not accepted here",
                               quote_token(t.text))};
    auto p = resolve_profile(models, gpu, t.profile);
    if (!p) return p.error();
    int start = item::any_start;
    if (t.start) {
      if (*t.start >= gpu.units)
        return error{fmt::format("start {} in {} is outside {}'s placement units 0-{}", *t.start,
                                 quote_token(t.text), gpu.slug, gpu.units - 1)};
      start = *t.start;
    }
    for (long long i = 0; i < t.count; ++i) out.push_back({*p, start});
  }
  return out;
}

std::vector<const gpu_model*> candidate_models(model_list models, std::span<const token> tokens) {
  // Best-verified models first, so an answer shared by several is shown on
  // the one whose tables are captured rather than inferred.
  std::vector<const gpu_model*> out;
  for (const gpu_model* g : models) {
    bool all = true;
    for (const token& t : tokens)
      if (profile_index(*g, t.profile) < 0) {
        all = false;
        break;
      }
    if (all) out.push_back(g);
  }
  std::stable_sort(out.begin(), out.end(), [](const gpu_model* a, const gpu_model* b) {
    return static_cast<int>(a->cover) < static_cast<int>(b->cover);
  });
  return out;
}

error no_common_model(model_list models, std::span<const token> tokens) {
  std::vector<std::string> names = all_profile_names(models);
  std::string owners_list;
  for (const token& t : tokens) {
    std::vector<std::string> owners;
    for (const gpu_model* g : models)
      if (profile_index(*g, t.profile) >= 0) owners.emplace_back(g->slug);
    const std::string_view name = strip_profile_name(t.profile);
    if (owners.empty()) {
      std::string msg = fmt::format("unknown profile {}", quote_token(name));
      if (const std::string how = profile_spelling_hint(models, name); !how.empty())
        return error{msg + ": " + how};
      if (const std::string note = former_name_note(models, name); !note.empty())
        return error{msg + ": " + note};
      return error{msg + did_you_mean(name, names) + "; 'migplan profiles' lists them"};
    }
    owners_list += fmt::format("\n  {}: {}", clip_token(name), fmt::join(owners, ", "));
  }
  return error{"no single gpu has all of these profiles:" + owners_list};
}

}  // namespace migplan::cli

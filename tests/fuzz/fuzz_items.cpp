// SPDX-License-Identifier: Apache-2.0
// Fuzz target: a line of request items, parsed and, where it resolves on a
// model, solved and explained. Nothing may crash, hang or trip a sanitizer,
// and the search must give the same answer as the naive oracle of
// tests/core/oracle.hpp, which shares no code with it: the exhaustive tests
// there cover every multiset without pins, while here the fuzzer also mixes
// pins, repeated pins and free items on every model the names resolve on.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <migplan/catalog.hpp>
#include <migplan/compute.hpp>
#include <migplan/explain.hpp>
#include <migplan/search.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/oracle.hpp"
#include "io/ci_request.hpp"
#include "io/request.hpp"
#include "models.hpp"
#include "pack/resolve.hpp"

namespace {

using namespace migplan;

// The reason solve() must give, from the oracle's independent checks in the
// order search.hpp documents (the same mapping as tests/core/oracle_test.cpp).
reason_code expected_code(const oracle::verdict& v) {
  if (v.over_cap) return reason_code::instance_cap;
  if (v.bad_pin) return reason_code::bad_start;
  if (v.over_units) return reason_code::memory_units;
  if (v.over_compute) return reason_code::compute_slices;
  if (v.over_engines) return reason_code::engines;
  if (!v.feasible()) return reason_code::placement;
  return reason_code::none;
}

// The input as a C string literal body, so a NUL or control byte stays visible.
std::string escaped(const std::string& s) {
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

std::set<oracle::layout_set> layout_sets(const solution& s) {
  std::set<oracle::layout_set> out;
  for (const scored_layout& sl : s.layouts) {
    oracle::layout_set l;
    for (const instance& in : sl.where) l.push_back({in.start, in.profile});
    std::sort(l.begin(), l.end());
    out.insert(l);
  }
  return out;
}

// Solves `items` with both planners and aborts, naming the input and both
// answers, when they differ in feasibility, layout count, the layouts
// themselves or the reason.
void compare_with_oracle(const std::string& line, const gpu_model& g,
                         const std::vector<item>& items, const solution& got) {
  oracle::counts n(g.profiles.size(), 0);
  std::vector<oracle::pin> pins;
  for (const item& it : items) {
    if (it.start == item::any_start)
      ++n[static_cast<std::size_t>(it.profile)];
    else
      pins.push_back({it.profile, it.start});
  }
  const oracle::verdict want = oracle::solve(g, n, pins);
  const std::set<oracle::layout_set> got_sets = layout_sets(got);
  const reason_code want_code = expected_code(want);
  const bool agree = got.feasible() == want.feasible() && got.layout_count == want.layouts.size() &&
                     got_sets.size() == got.layouts.size() && got_sets == want.layouts &&
                     got.why.code == want_code &&
                     (want_code != reason_code::engines || got.why.engine == want.over_engine_kind);
  if (agree) return;
  std::fprintf(stderr,
               "fuzz_items: search and oracle disagree\n"
               "  input: \"%s\"\n  model: %s\n  request: %s\n"
               "  search: feasible %d, %llu layouts, reason %d, engine %d\n"
               "  oracle: feasible %d, %zu layouts, reason %d, engine %d\n",
               escaped(line).c_str(), std::string(g.slug).c_str(),
               oracle::describe(g, n, pins).c_str(), got.feasible() ? 1 : 0,
               static_cast<unsigned long long>(got.layout_count), static_cast<int>(got.why.code),
               got.why.engine, want.feasible() ? 1 : 0, want.layouts.size(),
               static_cast<int>(want_code), want.over_engine_kind);
  for (const auto& l : want.layouts)
    if (got_sets.count(l) == 0)
      std::fprintf(stderr, "  search misses %s\n", oracle::describe(g, l).c_str());
  for (const auto& l : got_sets)
    if (want.layouts.count(l) == 0)
      std::fprintf(stderr, "  search invents %s\n", oracle::describe(g, l).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string line(reinterpret_cast<const char*>(data), size);
  const auto words = cli::split_items(line);
  auto tokens = cli::parse_items(words);
  if (!tokens) return 0;
  for (const gpu_model* g : cli::candidate_models(cli::builtin_models(), *tokens)) {
    // Compute instances: every CI placed inside its GI's slices, none sharing a slice.
    if (auto req = cli::resolve_request(cli::builtin_models(), *g, *tokens)) {
      // No CI named: no CI entries (each GI has its default CI); else one per GI.
      const std::size_t n = req->compute.gis.size();
      if (n != (req->compute.any ? req->items.size() : 0)) std::abort();
      for (std::size_t k = 0; k < n; ++k) {
        const profile& gi = g->profiles[static_cast<std::size_t>(req->items[k].profile)];
        unit_mask used = 0;
        for (const ci_instance& c : req->compute.gis[k].where) {
          const int c_size = gi.ci_profiles[static_cast<std::size_t>(c.ci)].compute_slices;
          const unit_mask m = ((unit_mask{1} << c_size) - 1) << c.start;
          if (c.start < 0 || c.start + c_size > gi.compute_slices || (used & m) != 0) std::abort();
          used |= m;
        }
      }
    }
    auto items = cli::resolve_items(cli::builtin_models(), *g, *tokens);
    // No model holds more than 16 instances, so a longer request only fails
    // the cap again; the bound keeps explain's subset search quick. The
    // oracle is cheap at any size here: it enumerates only when the units
    // fit, so never more instances than the model has units.
    if (!items || items->size() > 16) continue;
    const solution s = solve(*g, *items);
    compare_with_oracle(line, *g, *items, s);
    if (!s.feasible()) {
      (void)explain(*g, *items, s.why);
      (void)closest_fits(*g, *items);
    }
  }
  return 0;
}

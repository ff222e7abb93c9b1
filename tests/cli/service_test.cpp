// SPDX-License-Identifier: Apache-2.0
// In-process tests of the services' results: what the renderers print is
// worked out there, so each field is checked on the value a service returns.

#include <catch2/catch.hpp>
#include <migplan/capacity.hpp>
#include <migplan/catalog.hpp>
#include <string>
#include <variant>
#include <vector>

#include "io/request.hpp"
#include "models.hpp"
#include "pack/session.hpp"

using namespace migplan;
using namespace migplan::cli;

namespace {

pack_answer pack_on(pack::session& s, const gpu_model& g, std::vector<std::string> words,
                    bool explain = true) {
  const auto tokens = parse_items(words);
  REQUIRE(tokens);
  pack::outcome o = s.answer(&g, *tokens, explain);
  REQUIRE(std::holds_alternative<pack_answer>(o));
  return std::get<pack_answer>(std::move(o));
}

// Field by field, against the core's own answer for the layout.
void check_capacity(const gpu_model& g, const scored_layout& sl, const layout_capacity& cap) {
  const stranded st = stranded_of(g, sl.left);
  CHECK(cap.strands.units == st.units);
  CHECK(cap.strands.compute_slices == st.compute_slices);
  CHECK(cap.strands.memory_gib_x100 == st.memory_gib_x100);
  const std::vector<addable> adds = addable_to(g, rules(g), sl.where);
  REQUIRE(cap.can_add.size() == adds.size());
  for (std::size_t i = 0; i < adds.size(); ++i) {
    CHECK(cap.can_add[i].profile == adds[i].profile);
    CHECK(cap.can_add[i].starts == adds[i].starts);
    CHECK(cap.can_add[i].max_more == adds[i].max_more);
  }
}

}  // namespace

TEST_CASE("pack's answer carries the stranded and addable capacity of its layout",
          "[service][pack]") {
  const gpu_model& a100 = *find_model("a100-40gb");
  pack::session s(builtin_models());
  // Two 3g.20gb fill all eight memory units and six of seven compute slices:
  // the seventh is stranded, and nothing can be added.
  const pack_answer full = pack_on(s, a100, {"3g.20gb", "3g.20gb"});
  REQUIRE(full.sol.feasible());
  REQUIRE(full.capacity.size() == 1);
  CHECK(full.capacity[0].strands.units == 0);
  CHECK(full.capacity[0].strands.compute_slices == 1);
  CHECK(full.capacity[0].can_add.empty());
  check_capacity(a100, full.sol.layouts[0], full.capacity[0]);

  const pack_answer some = pack_on(s, a100, {"1g.5gb"});
  REQUIRE(some.sol.layouts.size() > 1);
  REQUIRE(some.capacity.size() == 1);  // the preferred layout's only, without --all
  CHECK_FALSE(some.capacity[0].can_add.empty());
  check_capacity(a100, some.sol.layouts[0], some.capacity[0]);
}

TEST_CASE("with --all every layout gets its capacity, with --brief none", "[service][pack]") {
  const gpu_model& a100 = *find_model("a100-40gb");
  pack::session all(builtin_models(), true);
  const pack_answer a = pack_on(all, a100, {"1g.5gb", "2g.10gb"});
  REQUIRE(a.sol.layouts.size() > 1);
  REQUIRE(a.capacity.size() == a.sol.layouts.size());
  for (std::size_t i = 0; i < a.capacity.size(); ++i)
    check_capacity(a100, a.sol.layouts[i], a.capacity[i]);

  pack::session brief(builtin_models());
  CHECK(pack_on(brief, a100, {"1g.5gb"}, false).capacity.empty());
}

TEST_CASE("each closest fit of a request that does not fit carries its capacity",
          "[service][pack]") {
  const gpu_model& a100 = *find_model("a100-40gb");
  pack::session s(builtin_models());
  const pack_answer a = pack_on(s, a100, {"4g.20gb", "4g.20gb"});
  REQUIRE_FALSE(a.sol.feasible());
  REQUIRE_FALSE(a.closest.empty());
  CHECK(a.capacity.empty());
  REQUIRE(a.closest_capacity.size() == a.closest.size());
  for (std::size_t i = 0; i < a.closest.size(); ++i)
    check_capacity(a100, a.closest[i].where, a.closest_capacity[i]);
}

// SPDX-License-Identifier: Apache-2.0
// The readers and writers around `migplan plan`: demand, fleet and state
// files, kubectl's nodes with their mig-parted config, and the --emit
// outputs (golden files under tests/fixtures/plan, checked by `migplan check`).

#include "io/plan_input.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <migplan/catalog.hpp>
#include <migplan/compute.hpp>
#include <migplan/search.hpp>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "commands/emit_kinds.hpp"
#include "io/ci_request.hpp"
#include "models.hpp"
#include "pack/current_fit.hpp"
#include "plan/labels.hpp"
#include "render/plan_emit.hpp"
#include "run_binary.hpp"

using namespace migplan;
using namespace migplan::cli;
using migplan::test::read_file;
using migplan::test::run_migplan;
using migplan::test::test_path;

namespace {

std::string plan_fixture_text(const std::string& name) {
  return read_file(test_path("fixtures/plan/" + name));
}

// A reader's nodes as the commands hand them on: refused where a GPU's
// instances do not fit together (pack/current_fit.hpp decides).
result<std::vector<current_node>> fitted(result<std::vector<current_node>> r) {
  if (r)
    if (auto misfit = pack::settle(*r)) return *misfit;
  return r;
}
result<kube_state> fitted(result<kube_state> r) {
  if (r)
    if (auto misfit = pack::settle(r->nodes)) return *misfit;
  return r;
}

// The error of a reader that must fail.
template <class T>
std::string error_of(const result<T>& r) {
  REQUIRE_FALSE(r.has_value());
  return r.error().message;
}

std::string demand_error(const std::string& text, plan_file_format f = plan_file_format::yaml) {
  return error_of(parse_demand(builtin_models(), text, "d.yaml", f));
}

// A demand file around one item's lines (each indented by four spaces).
std::string one_item(const std::string& lines) {
  return "version: 1\ndemand:\n  - " + lines + "\n";
}

const gpu_model& model(std::string_view slug) {
  const gpu_model* g = find_model(slug);
  REQUIRE(g != nullptr);
  return *g;
}

int profile_of(const gpu_model& g, std::string_view name) {
  const int p = find_profile(g, name);
  REQUIRE(p >= 0);
  return p;
}

}  // namespace

// ---------------------------------------------------------------------------
// Demand.

TEST_CASE("a yaml demand file gives named and memory-sized items with their lines", "[plan-io]") {
  const auto d = parse_demand(builtin_models(), plan_fixture_text("demand.yaml"), "demand.yaml",
                              plan_file_format::yaml);
  REQUIRE(d.has_value());
  REQUIRE(d->size() == 4);
  const demand_item& a = (*d)[0];
  CHECK(a.name == "chat-small");
  CHECK(a.count == 300);
  CHECK(a.profile == "1g.10gb");
  CHECK_FALSE(a.memory_mib);
  CHECK(a.where == "demand.yaml:5");
  // Unnamed: named after its profile, which is stored as the catalog spells it.
  CHECK((*d)[1].name == "3g.40gb");
  CHECK((*d)[1].profile == "3g.40gb");
  CHECK((*d)[1].count == 80);
  const demand_item& e = (*d)[2];
  CHECK(e.profile.empty());
  CHECK(e.memory_mib == 30 * 1024);
  CHECK(e.compute_slices == 2);
  CHECK_FALSE(e.sms);
  // 70 GB is 70e9 bytes: 66757.2 MiB, rounded up.
  CHECK((*d)[3].memory_mib == 66758);
  CHECK((*d)[3].sms == 100);
  CHECK((*d)[3].where == "demand.yaml:14");
}

TEST_CASE("a json demand file reads like its yaml twin", "[plan-io]") {
  const auto y =
      parse_demand(builtin_models(), plan_fixture_text("demand.yaml"), "y", plan_file_format::yaml);
  const auto j = parse_demand(builtin_models(), plan_fixture_text("demand.json"), "demand.json",
                              plan_file_format::json);
  REQUIRE(y.has_value());
  REQUIRE(j.has_value());
  REQUIRE(j->size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK((*j)[i].name == (*y)[i].name);
    CHECK((*j)[i].count == (*y)[i].count);
    CHECK((*j)[i].profile == (*y)[i].profile);
    CHECK((*j)[i].memory_mib == (*y)[i].memory_mib);
    CHECK((*j)[i].compute_slices == (*y)[i].compute_slices);
  }
  CHECK((*j)[2].where == "demand.json:6");
}

TEST_CASE("a csv demand file reads quoted names, default names and memory columns", "[plan-io]") {
  const auto d = parse_demand(builtin_models(), plan_fixture_text("demand.csv"), "demand.csv",
                              plan_file_format::csv);
  REQUIRE(d.has_value());
  REQUIRE(d->size() == 3);
  CHECK((*d)[0].name == "chat-small");
  CHECK((*d)[0].where == "demand.csv:3");
  CHECK((*d)[1].name == "train, large");
  CHECK((*d)[1].profile == "7g.80gb");
  CHECK((*d)[1].count == 25);
  CHECK((*d)[2].name == "3g.40gb");
  const auto m = parse_demand(builtin_models(), plan_fixture_text("demand-memory.csv"), "m.csv",
                              plan_file_format::csv);
  REQUIRE(m.has_value());
  REQUIRE(m->size() == 2);
  CHECK((*m)[0].memory_mib == 30720);
  CHECK_FALSE((*m)[0].sms);
  CHECK((*m)[1].name == "batch \"nightly\"");
  CHECK((*m)[1].memory_mib == 20000);
  CHECK((*m)[1].sms == 40);
}

TEST_CASE("a demand file's format comes from its extension, or from its text on stdin",
          "[plan-io]") {
  CHECK(plan_format_of("x.json", "") == plan_file_format::json);
  CHECK(plan_format_of("x.CSV", "") == plan_file_format::csv);
  CHECK(plan_format_of("x.yml", "{") == plan_file_format::yaml);
  CHECK(plan_format_of("-", "  {\"version\": 1}") == plan_file_format::json);
  CHECK(plan_format_of("-", "# items\nname,count,profile\n") == plan_file_format::csv);
  CHECK(plan_format_of("-", "version: 1\ndemand: [a, b]\n") == plan_file_format::yaml);
}

TEST_CASE("malformed demand files each get one message with their line", "[plan-io]") {
  CHECK(demand_error("version: 1\ndemand: [\n") ==
        "d.yaml:3: invalid yaml: end of sequence flow not found");
  CHECK(error_of(parse_demand(builtin_models(),
                              "{\"version\": 1, \"demand\": [\n  {\"count\": 2,}\n]}", "d.json",
                              plan_file_format::json)) ==
        "d.json:2: invalid json: syntax error while parsing object key - unexpected '}'; "
        "expected string literal");
  CHECK(demand_error(one_item("cout: 3\n    profile: 1g.10gb")) ==
        "d.yaml:3: unknown key 'cout' in a demand item (did you mean count?); the keys are name, "
        "count, profile, memory, compute_slices, sms, comment");
  // A trace's item, written in a demand file: where it goes here.
  CHECK(demand_error(one_item("count: 3\n    item: 1g.10gb")) ==
        "d.yaml:4: unknown key 'item' in a demand item (a demand file names a profile in profile, "
        "or a size in memory, compute_slices and sms); the keys are name, count, profile, memory, "
        "compute_slices, sms, comment");
  CHECK(demand_error("version: 1\ndemand:\n  - count: 3\n    count: 4\n    profile: 1g.10gb\n") ==
        "d.yaml:4: duplicate key 'count' (first at line 3)");
  CHECK(demand_error(one_item("count: [3]\n    profile: 1g.10gb")) ==
        "d.yaml:3: count must be a whole number from 1 to 10000000, not a list");
  CHECK(error_of(parse_demand(
            builtin_models(),
            "{\"version\": 1, \"demand\": [{\"count\": \"3\", \"profile\": \"1g.10gb\"}]}",
            "d.json", plan_file_format::json)) ==
        "d.json:1: count must be a number, not the string \"3\"");
  CHECK(demand_error(one_item("count: 0\n    profile: 1g.10gb")) ==
        "d.yaml:3: count 0 must be at least 1");
  CHECK(demand_error(one_item("count: -3\n    profile: 1g.10gb")) ==
        "d.yaml:3: count -3 must be at least 1");
  CHECK(demand_error(one_item("count: 99999999999\n    profile: 1g.10gb")) ==
        "d.yaml:3: count 99999999999 is too large (at most 10000000)");
  CHECK(demand_error(one_item("count: 2.5\n    profile: 1g.10gb")) ==
        "d.yaml:3: count '2.5' is not a number: expected a whole number from 1 to 10000000");
  CHECK(demand_error(one_item("count: 3\n    profile: 1g.10bg")) ==
        "d.yaml:4: invalid profile name '1g.10bg': expected [Cc.]Gg.MEMgb such as 1g.5gb or "
        "1c.3g.20gb (did you mean 1g.10gb, 2g.10gb or 1g.20gb?)");
  CHECK(demand_error(one_item("count: 3\n    profile: 1g.11gb")) ==
        "d.yaml:4: unknown profile '1g.11gb': no model has it (did you mean 1g.10gb, 1g.12gb or "
        "1g.18gb?)");
  CHECK(demand_error(one_item("count: 3\n    profile: 3g.95gb"))
            .starts_with("d.yaml:4: unknown profile '3g.95gb': 3g.95gb is what older gb200 drivers "
                         "called 3g.93gb"));
  CHECK(demand_error(one_item("count: 3\n    profile: 19")) ==
        "d.yaml:4: profile '19' is a profile ID, and IDs differ between models: name the profile "
        "(such as 1g.10gb)");
  CHECK(demand_error(one_item("count: 3\n    profile: 1g.10gb\n    memory: 10GiB")) ==
        "d.yaml:3: the item gives both a profile and a memory need; give one");
  CHECK(demand_error(one_item("count: 3\n    name: x")) ==
        "d.yaml:3: the item needs a profile (such as 1g.10gb) or a memory need (such as 30GiB)");
  CHECK(demand_error(one_item("profile: 1g.10gb")) == "d.yaml:3: the item has no count");
  CHECK(demand_error(one_item("count: 3\n    memory: 30")) ==
        "d.yaml:4: memory: size '30' has no unit: use Gi or GiB, Mi or MiB, Ti or TiB (powers of "
        "2), or G or GB, M or MB, T or TB (powers of 10)");
  CHECK(demand_error(one_item("count: 3\n    profile: 1g.10gb\n    sms: 4")) ==
        "d.yaml:3: sms is only for items sized by memory: a profile fixes its own");
  CHECK(demand_error("version: 1\ndemand:\n  - {count: 1, profile: 1g.10gb}\n"
                     "  - {count: 2, profile: 1G.10GB}\n") ==
        "d.yaml:4: demand item '1g.10gb' is given twice (first at line 3); add up the counts or "
        "give each a distinct name");
  CHECK(demand_error("demand: []\n") ==
        "d.yaml:1: missing required key 'version' (demand files start with 'version: 1')");
  CHECK(demand_error("version: \"1\"\ndemand: []\n") ==
        "d.yaml:1: version must be the number 1, not the string \"1\"");
  CHECK(demand_error("version: 2\ndemand: []\n") ==
        "d.yaml:1: unsupported version '2': demand files are version 1");
  CHECK(demand_error("version: 1\ndemand: []\n") ==
        "d.yaml:2: 'demand' is empty: list at least one item");
  CHECK(demand_error("version: 1\ndemand: {count: 1}\n") ==
        "d.yaml:2: 'demand' must be a list of demand items, not a mapping");
  CHECK(demand_error("version: 1\ndemand:\n  - 3x1g.10gb\n") ==
        "d.yaml:3: each demand item must be a mapping with a count and a profile or a memory "
        "need, not '3x1g.10gb'");
  CHECK(demand_error("") == "d.yaml: empty file: a demand file holds 'version: 1' and 'demand'");
  CHECK(demand_error("- 1\n") ==
        "d.yaml:1: expected a mapping with 'version: 1' and 'demand' at the top level, not a "
        "list");
}

TEST_CASE("malformed demand csv files each get one message with their line", "[plan-io]") {
  const auto csv = [](const std::string& text) {
    return error_of(parse_demand(builtin_models(), text, "d.csv", plan_file_format::csv));
  };
  CHECK(csv("name,count,profle\n") ==
        "d.csv:1: unknown column 'profle' in the header (did you mean profile?); the columns are "
        "name, count, profile, memory, compute_slices, sms");
  CHECK(csv("name,count,item\nx,3,1g.10gb\n") ==
        "d.csv:1: unknown column 'item' in the header (a demand file names a profile in profile, "
        "or a size in memory, compute_slices and sms); the columns are name, count, profile, "
        "memory, compute_slices, sms");
  CHECK(csv("name,count\nx,3\n") ==
        "d.csv:1: the header must name the columns name, count and profile (or memory), such as "
        "'name,count,profile'");
  CHECK(csv("name,count,profile\nx,3,1g.10gb,extra\n") ==
        "d.csv:2: 4 fields where the header (line 1) names 3");
  CHECK(csv("name,count,profile\nx,0,1g.10gb\n") == "d.csv:2: count 0 must be at least 1");
  CHECK(csv("name,count,profile\nx,3,1g.10bg\n")
            .starts_with("d.csv:2: invalid profile name '1g.10bg'"));
  CHECK(csv("name,count,profile\n\"x,3,1g.10gb\n") ==
        "d.csv:2: a quoted field is not closed on the line where it starts: a field may not "
        "hold a line break");
  CHECK(csv("name,count,profile\n") == "d.csv:1: no demand items after the header");
  CHECK(csv("# nothing\n") ==
        "d.csv: no header: a demand csv starts with a header such as 'name,count,profile'");
  std::string many = "name,count,profile\n";
  for (int i = 0; i <= 10000; ++i) many += "n" + std::to_string(i) + ",1,1g.10gb\n";
  CHECK(csv(many) ==
        "d.csv:10002: more than 10000 demand items; the most a file may list is "
        "10000");
}

TEST_CASE("a demand item on the command line is a profile or a memory need", "[plan-io]") {
  auto m = parse_demand_word(builtin_models(), "20xmem=30GiB:sms=40:slices=2");
  REQUIRE(m.has_value());
  CHECK(m->count == 20);
  CHECK(m->memory_mib == 30720);
  CHECK(m->sms == 40);
  CHECK(m->compute_slices == 2);
  CHECK(m->name == "mem=30GiB:sms=40:slices=2");
  CHECK(m->where.empty());
  auto p = parse_demand_word(builtin_models(), "300x1G.10GB");
  REQUIRE(p.has_value());
  CHECK(p->count == 300);
  CHECK(p->profile == "1g.10gb");
  auto gfx = parse_demand_word(builtin_models(), "2x1g.24gb+gfx");
  REQUIRE(gfx.has_value());
  CHECK(gfx->profile == "1g.24gb+gfx");
  CHECK(parse_demand_word(builtin_models(), "mem=8Gi")->count == 1);
  CHECK(error_of(parse_demand_word(builtin_models(), "0x1g.10gb")) == "count 0 must be at least 1");
  CHECK(error_of(parse_demand_word(builtin_models(), "mem=8Gi:cores=2")) ==
        "unknown option 'cores=2' in 'mem=8Gi:cores=2': a memory item is "
        "[Nx]mem=SIZE[:sms=N][:slices=N]");
  CHECK(error_of(parse_demand_word(builtin_models(), "2xmem=8"))
            .starts_with("memory: size '8' has no unit"));
}

TEST_CASE("a demand item may name a compute-instance profile some model offers", "[plan-io]") {
  auto ci = parse_demand_word(builtin_models(), "6x1C.3g.20gb");
  REQUIRE(ci.has_value());
  CHECK(ci->count == 6);
  CHECK(ci->profile == "1c.3g.20gb");
  CHECK(ci->name == "1c.3g.20gb");
  CHECK(error_of(parse_demand_word(builtin_models(), "3c.4g.20gb")) ==
        "unknown compute-instance profile '3c.4g.20gb': 4g.20gb offers 1c.4g.20gb, 2c.4g.20gb, "
        "4g.20gb");
  CHECK(error_of(parse_demand_word(builtin_models(), "2x3g.20gb[2c,1c]")) ==
        "'3g.20gb[2c,1c]' splits a GPU instance with brackets, which is not taken here: ask "
        "for compute instances as items of their own, such as 3x1c.3g.20gb");
  // Not of the form Nc.GI with a known GI: an unknown profile, as before.
  CHECK(error_of(parse_demand_word(builtin_models(), "1c.9g.99gb"))
            .starts_with("unknown profile '1c.9g.99gb'"));
  // In a file, with its line.
  auto file =
      parse_demand(builtin_models(), "version: 1\ndemand:\n  - count: 3\n    profile: 1c.7g.40gb\n",
                   "d.yaml", plan_file_format::yaml);
  REQUIRE(file.has_value());
  CHECK(file->front().profile == "1c.7g.40gb");
  CHECK(file->front().where == "d.yaml:3");
}

// ---------------------------------------------------------------------------
// Fleet.

TEST_CASE("a fleet file with nodes gives the nodes' models with their costs and limits",
          "[plan-io]") {
  const auto f =
      parse_fleet(builtin_models(), plan_fixture_text("fleet.yaml"), "fleet.yaml", false);
  REQUIRE(f.has_value());
  REQUIRE(f->nodes.size() == 3);
  CHECK(f->nodes[0].name == "gpu-a");
  CHECK(f->nodes[0].gpu == &model("h100-80gb"));
  CHECK(f->nodes[0].gpu_count == 8);
  CHECK(f->nodes[0].where == "fleet.yaml:8");
  CHECK(f->nodes[1].gpu == &model("a100-80gb"));
  CHECK(f->nodes[2].gpu == &model("h100-80gb"));  // by PCI device ID
  REQUIRE(f->models.size() == 2);
  CHECK(f->models[0].gpu == &model("h100-80gb"));
  CHECK(f->models[0].cost == 2.5);
  CHECK_FALSE(f->models[0].available);
  CHECK(f->models[1].gpu == &model("a100-80gb"));
  CHECK(f->models[1].available == 16);
  CHECK(f->models[1].cost == 1.0);
}

TEST_CASE("a fleet file of models alone gives candidate models", "[plan-io]") {
  const auto f = parse_fleet(builtin_models(), plan_fixture_text("fleet.json"), "fleet.json", true);
  REQUIRE(f.has_value());
  CHECK(f->nodes.empty());
  REQUIRE(f->models.size() == 2);
  CHECK(f->models[1].available == 64);
  const auto only_nodes = parse_fleet(
      builtin_models(), "version: 1\nnodes:\n  - {name: n, gpu: a30, gpus: 2}\n", "f", false);
  REQUIRE(only_nodes.has_value());
  REQUIRE(only_nodes->models.size() == 1);
  CHECK(only_nodes->models[0].gpu == &model("a30"));
  CHECK_FALSE(only_nodes->models[0].available);
}

TEST_CASE("malformed fleet files each get one message with their line", "[plan-io]") {
  const auto fleet = [](const std::string& text) {
    return error_of(parse_fleet(builtin_models(), text, "f.yaml", false));
  };
  CHECK(fleet("version: 1\nnodes:\n  - {name: a, gpu: h100-80g, gpus: 8}\n") ==
        "f.yaml:3: unknown gpu 'h100-80g' (did you mean h100-80gb?); 'migplan gpus' lists them");
  CHECK(fleet("version: 1\nnodes:\n  - {name: a, gpu: a100, gpus: 8}\n") ==
        "f.yaml:3: gpu 'a100' is ambiguous: a100-40gb, a100-80gb; pass one of them");
  CHECK(fleet("version: 1\nnodes:\n  - {name: a, gpu: a30, gpus: 2}\n"
              "  - {name: a, gpu: a30, gpus: 2}\n") ==
        "f.yaml:4: node 'a' is listed twice (first at line 3)");
  CHECK(fleet("version: 1\nnodes:\n  - {name: a, gpu: a30, gpus: 0}\n") ==
        "f.yaml:3: gpus 0 must be at least 1");
  CHECK(fleet("version: 1\nnodes:\n  - {name: a, gpu: a30, gpus: 65}\n") ==
        "f.yaml:3: gpus 65 is too large (at most 64)");
  CHECK(fleet("version: 1\nnodes:\n  - {name: a, gpu: a30}\n") ==
        "f.yaml:3: missing required key 'gpus' (how many GPUs it has)");
  CHECK(fleet("version: 1\nnodes:\n  - {name: a, gpu: a30, gpus: 2, gpu_count: 2}\n") ==
        "f.yaml:3: unknown key 'gpu_count' in a node; the keys are name, gpu, gpus, comment");
  CHECK(fleet("version: 1\nmodels:\n  - {gpu: h100-80gb}\nnodes:\n"
              "  - {name: a, gpu: a30, gpus: 2}\n") ==
        "f.yaml:3: model h100-80gb is listed under 'models' but no node has it");
  CHECK(fleet("version: 1\nmodels:\n  - {gpu: a30, cost: 0}\n") ==
        "f.yaml:3: cost 0 must be more than 0 and at most 1000000000");
  CHECK(fleet("version: 1\nmodels:\n  - {gpu: a30, cost: cheap}\n") ==
        "f.yaml:3: cost must be a number, not 'cheap'");
  CHECK(fleet("version: 1\nmodels:\n  - {gpu: a30}\n  - {gpu: A30}\n") ==
        "f.yaml:4: model a30 is listed twice (first at line 3)");
  CHECK(fleet("version: 1\n") ==
        "f.yaml:1: a fleet file needs 'nodes' (name, gpu, gpus) or 'models' (gpu, available, "
        "cost)");
  CHECK(fleet("version: 1\nnodes:\n  - {name: \"a\\tb\", gpu: a30, gpus: 2}\n") ==
        "f.yaml:3: node name 'a\\tb' holds a control character");
}

// ---------------------------------------------------------------------------
// State.

TEST_CASE("a state file gives each gpu's instances, starts and in-use marks", "[plan-io]") {
  const auto s = parse_state(builtin_models(), plan_fixture_text("state.json"), "state.json", true);
  REQUIRE(s.has_value());
  REQUIRE(s->size() == 2);
  const current_node& a = (*s)[0];
  const gpu_model& h100 = model("h100-80gb");
  CHECK(a.name == "gpu-a");
  CHECK(a.gpu == &h100);
  CHECK(a.label == "all-1g.10gb");
  CHECK(a.where == "state.json:4");
  REQUIRE(a.gpus.size() == 3);
  REQUIRE(a.gpus[0].instances.size() == 3);
  CHECK(a.gpus[0].instances[0].profile == profile_of(h100, "1g.10gb"));
  CHECK(a.gpus[0].instances[0].start == 0);
  CHECK(a.gpus[0].instances[0].in_use);
  CHECK_FALSE(a.gpus[0].instances[1].in_use);
  CHECK(a.gpus[0].instances[2].start == 4);
  CHECK(a.gpus[0].label == "all-1g.10gb");  // the node's label, where the gpu names none
  CHECK(a.gpus[1].label == "custom");
  CHECK(a.gpus[1].instances[0].start == item::any_start);
  CHECK(a.gpus[2].instances.empty());
  const current_node& b = (*s)[1];
  CHECK(b.gpu == &model("a100-40gb"));
  CHECK(b.gpus[0].instances.size() == 2);
}

TEST_CASE("a state file whose instances are no legal layout is refused", "[plan-io]") {
  const auto state = [](const std::string& instances) {
    return error_of(fitted(parse_state(builtin_models(),
                                       "version: 1\nnodes:\n  - name: n\n    gpu: h100-80gb\n"
                                       "    gpus:\n      - index: 0\n        instances: " +
                                           instances + "\n",
                                       "s.yaml", false)));
  };
  CHECK(state("[{profile: 1g.5gb}]") ==
        "s.yaml:7: unknown profile '1g.5gb' on h100-80gb (it is a profile of a100-40gb; here, did "
        "you mean 1g.10gb or 1g.20gb?)");
  CHECK(state("[{profile: 3g.40gb, start: 1}]") ==
        "s.yaml:7: 3g.40gb cannot start at 1 on h100-80gb (its starts are 0, 4)");
  CHECK(state("[{profile: 3g.40gb, start: 8}]") == "s.yaml:7: start 8 is too large (at most 7)");
  CHECK(state("[{profile: 3g.40gb, start: 0}, {profile: 2g.20gb, start: 2}]") ==
        "s.yaml:7: the instances of gpu 0 of node 'n' do not fit on h100-80gb: the totals fit but "
        "no arrangement of the allowed starts on h100-80gb does: 2g.20gb@2 3g.40gb@0 cannot be "
        "placed together");
  CHECK(state("[{profile: 1g.10gb}, {profile: 1g.10gb}, {profile: 1g.10gb}, {profile: 1g.10gb}, "
              "{profile: 1g.10gb}, {profile: 1g.10gb}, {profile: 1g.10gb}, {profile: 1g.10gb}]") ==
        "s.yaml:7: the instances of gpu 0 of node 'n' do not fit on h100-80gb: 1g.10gb allows at "
        "most 7 instances on h100-80gb (the request has 8)");
  CHECK(state("[{profile: 4g.40gb}, {profile: 4g.40gb, in_use: yes}]") ==
        "s.yaml:7: in_use must be true or false, not 'yes'");
  CHECK(state("[{profile: 7g.80gb, used: true}]") ==
        "s.yaml:7: unknown key 'used' in an instance; the keys are profile, start, in_use, "
        "comment");
  CHECK(error_of(parse_state(builtin_models(),
                             "version: 1\nnodes:\n  - name: n\n    gpu: a30\n    gpus:\n"
                             "      - {index: 0, instances: []}\n"
                             "      - {index: 0, instances: []}\n",
                             "s.yaml", false)) ==
        "s.yaml:7: gpu 0 of node 'n' is listed twice (first at line 6)");
  CHECK(error_of(parse_state(builtin_models(),
                             "version: 1\nnodes:\n"
                             "  - {name: n, gpu: a30, gpus: [{index: 0, instances: []}]}\n"
                             "  - {name: n, gpu: a30, gpus: [{index: 0, instances: []}]}\n",
                             "s.yaml", false)) ==
        "s.yaml:4: node 'n' is listed twice (first at line 3)");
  CHECK(error_of(parse_state(builtin_models(),
                             "version: 1\nnodes:\n  - {name: n, gpu: h100-80gbb, gpus: []}\n",
                             "s.yaml", false)) ==
        "s.yaml:3: unknown gpu 'h100-80gbb' (did you mean h100-80gb?); 'migplan gpus' lists them");
}

// ---------------------------------------------------------------------------
// kubectl's nodes and the mig-parted config.

namespace {

result<kube_state> kube(const std::string& nodes, const std::string& config,
                        bool config_json = false) {
  return fitted(
      parse_kube_state(builtin_models(), nodes, "nodes.json", config, "mig.yaml", config_json));
}

// kubectl's List of nodes with these labels (JSON objects of label: value).
std::string nodes_json(const std::vector<std::pair<std::string, std::string>>& nodes) {
  std::string out = "{\"apiVersion\": \"v1\", \"items\": [";
  for (std::size_t i = 0; i < nodes.size(); ++i)
    out += (i == 0 ? "" : ", ") + std::string("{\"apiVersion\": \"v1\", \"kind\": \"Node\", ") +
           "\"metadata\": {\"name\": \"" + nodes[i].first + "\", \"labels\": {" + nodes[i].second +
           "}}, \"status\": {\"capacity\": {\"cpu\": \"8\"}}}";
  return out + "], \"kind\": \"List\", \"metadata\": {\"resourceVersion\": \"\"}}";
}

std::string gfd(const std::string& product, int count, const std::string& config,
                const std::string& state = "success") {
  return "\"nvidia.com/gpu.product\": \"" + product + "\", \"nvidia.com/gpu.count\": \"" +
         std::to_string(count) + "\", \"nvidia.com/mig.config\": \"" + config +
         "\", \"nvidia.com/mig.config.state\": \"" + state + "\"";
}

// The 1-based line where `needle` first starts in `text`.
int line_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

// "nodes.json:LINE: node 'NAME'", how a message about node NAME of kubectl's
// output `nodes` starts: at the line of its metadata.name.
std::string node_at(const std::string& nodes, const std::string& name) {
  return "nodes.json:" + std::to_string(line_of(nodes, "\"name\": \"" + name + "\"")) + ": node '" +
         name + "'";
}

// The error of kubectl's output of one node 'h' with these labels, less its
// start, checked: "nodes.json:LINE: node 'h': ", at the line of its metadata.name.
std::string node_h_error(const std::string& labels, const std::string& config) {
  const std::string nodes = nodes_json({{"h", labels}});
  const std::string e = error_of(kube(nodes, config));
  const std::string start = node_at(nodes, "h") + ": ";
  CHECK(e.starts_with(start));
  return e.starts_with(start) ? e.substr(start.size()) : e;
}

int count_of(const current_gpu& g, int profile) {
  int n = 0;
  for (const current_instance& gi : g.instances) n += gi.profile == profile ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("kubectl's nodes and the mig-parted config give each node's gpus and geometries",
          "[plan-io]") {
  const auto s = kube(plan_fixture_text("kube-nodes.json"), plan_fixture_text("kube-config.yaml"));
  REQUIRE(s.has_value());
  const gpu_model& h100 = model("h100-80gb");
  const gpu_model& a100 = model("a100-40gb");
  REQUIRE(s->nodes.size() == 3);
  // Mixed strategy: gpu.count is the GPUs; label `split` gives 0-1 two
  // 3g.40gb each and turns MIG off on 2-3.
  const current_node& a = s->nodes[0];
  CHECK(a.name == "h100-a");
  CHECK(a.gpu == &h100);
  CHECK(a.label == "split");
  CHECK(a.where == "nodes.json:" + std::to_string(line_of(plan_fixture_text("kube-nodes.json"),
                                                          "\"name\": \"h100-a\"")));
  REQUIRE(a.gpus.size() == 4);
  CHECK(count_of(a.gpus[0], profile_of(h100, "3g.40gb")) == 2);
  CHECK(count_of(a.gpus[1], profile_of(h100, "3g.40gb")) == 2);
  CHECK(a.gpus[2].instances.empty());
  CHECK(a.gpus[3].instances.empty());
  for (const current_gpu& g : a.gpus) {
    CHECK(g.label == "split");
    for (const current_instance& gi : g.instances) {
      CHECK(gi.start == item::any_start);
      CHECK_FALSE(gi.in_use);
    }
  }
  // Single strategy: gpu.count=56 counts MIG devices, 7 per GPU: 8 GPUs.
  const current_node& b = s->nodes[1];
  CHECK(b.name == "h100-b");
  REQUIRE(b.gpus.size() == 8);
  for (const current_gpu& g : b.gpus) CHECK(count_of(g, profile_of(h100, "1g.10gb")) == 7);
  // The label's entry for A100-40GB's device ID.
  const current_node& c = s->nodes[2];
  CHECK(c.gpu == &a100);
  REQUIRE(c.gpus.size() == 2);
  CHECK(count_of(c.gpus[1], profile_of(a100, "1g.5gb")) == 7);
  REQUIRE(s->notes.size() == 4);
  CHECK(s->notes[0] ==
        "skipped 1 node without NVIDIA GPU labels (nvidia.com/gpu.product): 'cpu-1'");
  CHECK(s->notes[1] == "skipped 1 node whose GPUs are no MIG-capable model migplan knows: 'l4-d'");
  CHECK(s->notes[2] ==
        "skipped 1 node without an nvidia.com/mig.config label (mig-manager does not manage "
        "them, so their geometry is unknown): 'h100-e'");
  CHECK(s->notes[3] ==
        "1 node is being reconfigured (nvidia.com/mig.config.state pending or rebooting): taken "
        "as the geometry of its label, which mig-manager is applying: 'a100-c'");
}

TEST_CASE("the mig-parted config may come as the GPU Operator's ConfigMap", "[plan-io]") {
  const auto s = kube(nodes_json({{"h", gfd("NVIDIA-H100-80GB-HBM3", 4, "split")}}),
                      plan_fixture_text("kube-configmap.yaml"));
  REQUIRE(s.has_value());
  REQUIRE(s->nodes.size() == 1);
  CHECK(s->nodes[0].gpus[0].instances.size() == 2);
  // An older driver's name without "NVIDIA ", and a single Node.
  const auto one = kube(
      "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"x\", \"labels\": "
      "{" +
          gfd("A100-SXM4-40GB", 1, "all-1g.10gb") + "}}}",
      plan_fixture_text("kube-config.yaml"));
  REQUIRE(one.has_value());
  CHECK(one->nodes[0].gpu == &model("a100-40gb"));
}

TEST_CASE("kubectl's nodes that do not match the config each get one message", "[plan-io]") {
  const std::string config = plan_fixture_text("kube-config.yaml");
  const std::string good = nodes_json({{"h", gfd("NVIDIA-H100-80GB-HBM3", 4, "split")}});
  const std::string full = plan_fixture_text("kube-nodes.json");
  CHECK(error_of(kube(full.substr(0, full.rfind('}')), config)) ==
        "nodes.json:347: invalid json: syntax error while parsing object - unexpected end of "
        "input; expected '}'");
  // Cut inside a string on line 66.
  CHECK(error_of(kube(full.substr(0, 2000), config)) ==
        "nodes.json:66: invalid json: syntax error while parsing object key - invalid string: "
        "missing closing quote; last read: '\"'; expected string literal");
  // A message about one node is at the line of its metadata.name.
  CHECK(node_h_error(gfd("NVIDIA-H100-80GB-HBM3", 4, "splitt"), config) ==
        "its nvidia.com/mig.config label 'splitt' is not in mig.yaml (did you mean split?)");
  CHECK(error_of(kube(nodes_json({{"h", gfd("NVIDIA-H100-80GB-HBM3", 2, "split")}}), config)) ==
        "mig.yaml:24: label 'split' gives gpu index 2 a geometry, but node 'h' has 2 GPUs "
        "(nvidia.com/gpu.count=2): the label was written for another node");
  CHECK(node_h_error(gfd("NVIDIA-H100-80GB-HBM3-MIG-1g.10gb", 50, "all-1g.10gb"), config) ==
        "nvidia.com/gpu.count=50 counts MIG devices under the single MIG strategy, and no "
        "number of GPUs with the geometries of label 'all-1g.10gb' holds exactly that many");
  CHECK(node_h_error(gfd("NVIDIA-H100-80GB-HBM3-MIG-3g.40gb", 14, "all-1g.10gb"), config) ==
        "GPU Feature Discovery reports MIG devices of 3g.40gb (nvidia.com/gpu.product), but "
        "label 'all-1g.10gb' gives gpu 0 1g.10gb: the node does not hold the label's "
        "geometry");
  CHECK(node_h_error(gfd("NVIDIA-H100-80GB-HBM4", 8, "split"), config) ==
        "nvidia.com/gpu.product='NVIDIA-H100-80GB-HBM4' is no MIG-capable model migplan "
        "knows (did you mean NVIDIA-H100-80GB-HBM3 or NVIDIA-A100-80GB-PCIe?); 'migplan gpus' "
        "lists them");
  CHECK(node_h_error(gfd("NVIDIA-H100-80GB-HBM3", 4, "split", "failed"), config) ==
        "nvidia.com/mig.config.state=failed: mig-manager could not apply "
        "nvidia.com/mig.config 'split', so the geometry of its GPUs is unknown; fix the node, "
        "or leave it out (kubectl get nodes -l 'nvidia.com/mig.config.state!=failed' -o "
        "json)");
  CHECK(node_h_error(gfd("NVIDIA-H100-80GB-HBM3-MIG-INVALID", 0, "split"), config)
            .starts_with("nvidia.com/gpu.product='NVIDIA-H100-80GB-HBM3-MIG-INVALID': GPU "
                         "Feature Discovery found a node the single MIG strategy does not allow"));
  CHECK(
      error_of(kube(nodes_json({{"h", gfd("NVIDIA-A100-SXM4-40GB", 4, "eight-whole")}}), config)) ==
      "mig.yaml:28: label 'eight-whole' gives gpu index 4 a geometry, but node 'h' has 4 GPUs "
      "(nvidia.com/gpu.count=4): the label was written for another node");
  CHECK(error_of(kube(nodes_json({{"h", gfd("NVIDIA-H100-80GB-HBM3", 8, "eight-whole")}}),
                      "version: v1\nmig-configs:\n  eight-whole:\n    - devices: all\n"
                      "      mig-enabled: true\n      mig-devices:\n        \"1g.5gb\": 7\n")) ==
        "mig.yaml:7: label 'eight-whole' (for node 'h'): unknown profile '1g.5gb' on h100-80gb (it "
        "is a profile of a100-40gb; here, did you mean 1g.10gb or 1g.20gb?)");
  CHECK(error_of(kube(nodes_json({{"h", gfd("NVIDIA-H100-80GB-HBM3", 8, "x")}}),
                      "version: v1\nmig-configs:\n  x:\n    - devices: all\n"
                      "      mig-enabled: true\n      mig-devices:\n        \"3g.40gb\": 3\n")) ==
        "mig.yaml:4: label 'x' gives gpu 0 of node 'h' a geometry that does not fit on h100-80gb: "
        "3g.40gb allows at most 2 instances on h100-80gb (the request has 3)");
  CHECK(node_h_error(gfd("NVIDIA-H100-80GB-HBM3", 8, "x"),
                     "version: v1\nmig-configs:\n  x:\n    - device-filter: \"0x20B010DE\"\n"
                     "      devices: all\n      mig-enabled: false\n") ==
        "no entry of label 'x' (mig.yaml) applies to its gpu 0 (h100-80gb): the devices and "
        "device-filter of every entry leave it out");
  CHECK(error_of(kube("{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {}}", config)) ==
        "nodes.json:1: not kubectl's output for nodes: its kind is 'Pod' (expected List, NodeList "
        "or Node)");
  CHECK(error_of(kube(nodes_json({{"cpu", "\"kubernetes.io/os\": \"linux\""}}), config)) ==
        "nodes.json: no node has MIG-capable GPUs with an nvidia.com/mig.config label (skipped 1 "
        "node without NVIDIA GPU labels (nvidia.com/gpu.product): 'cpu')");
  CHECK(error_of(kube(good,
                      "version: v1\nmig-configs:\n  split:\n    - devices: all\n"
                      "      mig-enabled: maybe\n")) ==
        "mig.yaml:5: 'mig-enabled' must be true or false, not 'maybe'");
  const std::string wanted =
      "--mig-config takes the mig-parted config (version: v1, mig-configs: ...) that defines the "
      "nodes' labels";
  CHECK(error_of(kube(good, "version: 1\ngpus: []\n")) ==
        "mig.yaml: this is a migplan geometry file (version: 1, gpus: ...); " + wanted);
  CHECK(error_of(kube(good, "{\"version\": 1, \"gpus\": []}", true)) ==
        "mig.yaml: this is a migplan geometry file (version: 1, gpus: ...); " + wanted);
  // Named by its first keys, before the rest is parsed: what follows them
  // here is no YAML at all.
  CHECK(error_of(
            kube(good, "version: 1\ndemand:\n  - {count: 1, profile: 1g.10gb}\n  - {\n: : [\n")) ==
        "mig.yaml: this is a migplan demand file (version: 1, demand: ...); " + wanted);
}

TEST_CASE("a YAML file's kind is told by its first top-level keys", "[plan-io]") {
  CHECK(yaml_kind_of("# a comment\nversion: 1\ncomment: x\ndemand:\n  - {}\n") ==
        yaml_kind::demand);
  CHECK(yaml_kind_of("version: 1\npods: []\n") == yaml_kind::trace);
  CHECK(yaml_kind_of("version: 1\nmodels:\n  - {gpu: a30}\nnodes: []\n") == yaml_kind::fleet);
  CHECK(yaml_kind_of("version: 1\nnodes:\n  - name: a\n    gpus: 2\n") == yaml_kind::nodes);
  CHECK(yaml_kind_of("version: 1\n\"gpus\":\n  - {}\n") == yaml_kind::geometry);
  CHECK(yaml_kind_of("version: v1\nmig-configs: {}\n") == yaml_kind::mig_parted);
  // Nested keys, flow style and JSON tell nothing.
  CHECK(yaml_kind_of("version: 1\ncomment:\n  demand: 1\n") == yaml_kind::unknown);
  CHECK(yaml_kind_of("{version: 1, demand: []}\n") == yaml_kind::unknown);
  CHECK(yaml_kind_of("apiVersion: v1\nkind: ConfigMap\ndata:\n  config.yaml: |\n    "
                     "mig-configs: {}\n") == yaml_kind::unknown);
}

TEST_CASE("a migplan file given to the wrong option is named for what it is", "[plan-io]") {
  const std::string demand = plan_fixture_text("demand.yaml");
  const std::string fleet = plan_fixture_text("fleet.yaml");
  const auto current = run_migplan({"plan", "--current", "-", "1g.10gb"}, demand);
  CHECK(current.code == 2);
  CHECK(current.err ==
        "migplan: '<stdin>' is a migplan demand file (version: 1, demand: ...); --current takes "
        "a state file (version: 1, nodes: ...) or kubectl's nodes\n");
  const auto as_fleet = run_migplan({"plan", "--fleet", "-", "1g.10gb"}, demand);
  CHECK(as_fleet.err ==
        "migplan: '<stdin>' is a migplan demand file (version: 1, demand: ...); --fleet takes a "
        "fleet file (version: 1, models: or nodes: ...)\n");
  const auto as_demand = run_migplan({"plan", "--gpu", "h100-80gb", "--demand", "-"}, fleet);
  CHECK(as_demand.err ==
        "migplan: '<stdin>' is a migplan fleet file (version: 1, models: ...); --demand takes a "
        "demand file (version: 1, demand: ...)\n");
  const auto as_trace = run_migplan({"simulate", "--gpu", "h100-80gb", "--trace", "-"}, demand);
  CHECK(as_trace.err ==
        "migplan: '<stdin>' is a migplan demand file (version: 1, demand: ...); --trace takes a "
        "trace (version: 1, pods: ...)\n");
}

TEST_CASE("the current state is kubectl's nodes or a state file, told apart by content",
          "[plan-io]") {
  CHECK(looks_like_kube_nodes(plan_fixture_text("kube-nodes.json")));
  CHECK_FALSE(looks_like_kube_nodes(plan_fixture_text("state.json")));
  CHECK_FALSE(looks_like_kube_nodes("version: 1\n"));
  std::istringstream in;
  const auto state =
      read_current_state(builtin_models(), test_path("fixtures/plan/state.json"), "", in, "plan");
  REQUIRE(state.has_value());
  CHECK(state->nodes.size() == 2);
  CHECK(state->notes.empty());
  const auto k = read_current_state(builtin_models(), test_path("fixtures/plan/kube-nodes.json"),
                                    test_path("fixtures/plan/kube-config.yaml"), in, "plan");
  REQUIRE(k.has_value());
  CHECK(k->nodes.size() == 3);
  CHECK(error_of(read_current_state(builtin_models(), test_path("fixtures/plan/kube-nodes.json"),
                                    "", in, "plan"))
            .ends_with("is kubectl's output for nodes: give the mig-parted config that defines "
                       "their nvidia.com/mig.config labels with --mig-config"));
  CHECK(error_of(read_current_state(builtin_models(), test_path("fixtures/plan/state.json"),
                                    test_path("fixtures/plan/kube-config.yaml"), in, "plan"))
            .starts_with("--mig-config is only for kubectl's nodes"));
  CHECK(error_of(read_current_state(builtin_models(), "/nonexistent/state.json", "", in, "plan")) ==
        "cannot read '/nonexistent/state.json': No such file or directory");
}

// ---------------------------------------------------------------------------
// --emit.

namespace {

// A group on `g` holding `items` ("3g.40gb@0"), each serving demand item 0.
plan_group group(const gpu_model& g, long long count, std::vector<std::string> items) {
  plan_group out;
  out.gpu = &g;
  out.count = count;
  std::vector<item> check;
  for (const std::string& it : items) {
    const std::size_t at = it.find('@');
    const int p = profile_of(g, it.substr(0, at));
    const int start = std::stoi(it.substr(at + 1));
    out.instances.push_back({{p, start}, 0});
    check.push_back({p, start});
  }
  // Every hand-made group is a legal layout, as the solver's must be.
  REQUIRE(fits(rules(g), check));
  return out;
}

plan_result::node_plan node_plan(const std::string& name, std::vector<int> groups) {
  plan_result::node_plan out;
  out.name = name;
  for (std::size_t i = 0; i < groups.size(); ++i)
    out.gpus.push_back({static_cast<int>(i), groups[i]});
  return out;
}

// A fresh plan on four nodes: gpu-a all one geometry, gpu-b two, gpu-c an
// A100 node, gpu-d left unused (MIG off).
std::pair<plan_request, plan_result> nodes_plan() {
  const gpu_model& h100 = model("h100-80gb");
  const gpu_model& a100 = model("a100-40gb");
  plan_request req;
  req.demand.push_back({"x", 1, "1g.10gb", std::nullopt, std::nullopt, std::nullopt, ""});
  req.nodes = {{"gpu-a", &h100, 8, "f:1"},
               {"gpu-b", &h100, 8, "f:2"},
               {"gpu-c", &a100, 2, "f:3"},
               {"gpu-d", &h100, 4, "f:4"}};
  plan_result res;
  res.feasible = true;
  res.optimal = true;
  res.groups = {group(h100, 12, {"3g.40gb@0", "2g.20gb@4", "1g.10gb@6"}),
                group(h100, 4,
                      {"1g.10gb@0", "1g.10gb@1", "1g.10gb@2", "1g.10gb@3", "1g.10gb@4", "1g.10gb@5",
                       "1g.10gb@6"}),
                group(a100, 2, {"3g.20gb@0", "3g.20gb@4"})};
  res.nodes = {node_plan("gpu-a", {0, 0, 0, 0, 0, 0, 0, 0}),
               node_plan("gpu-b", {0, 0, 0, 0, 1, 1, 1, 1}), node_plan("gpu-c", {2, 2}),
               node_plan("gpu-d", {-1, -1, -1, -1})};
  res.gpu_count = 18;
  return {req, res};
}

// What the plan service hands --emit's writers: a plan built here has its
// node layouts and labels worked out as solver::solve does.
// `kind` is looked up in the one table of --emit kinds (commands/emit_kinds.hpp).
const emit::kind& plan_kind(std::string_view name) {
  const emit::kind* k = emit::find(emit::command::plan, name);
  REQUIRE(k != nullptr);
  return *k;
}

std::string emitted(std::string_view kind, const plan_request& req, plan_result res) {
  std::ostringstream os;
  REQUIRE(emit::problem(plan_kind(kind), req, res).empty());
  plan::add_layouts(req, res);
  plan_kind(kind).plan.write(os, req, res, {});
  return os.str();
}

// Compares with a golden file; MIGPLAN_UPDATE_GOLDEN=1 rewrites it instead.
void golden(const std::string& name, const std::string& text) {
  const std::string path = test_path("fixtures/plan/" + name);
  if (const char* u = std::getenv("MIGPLAN_UPDATE_GOLDEN"); u != nullptr && std::string(u) == "1")
    std::ofstream(path, std::ios::binary) << text;
  CHECK(text == read_file(path));
}

// `migplan check` on a text, from standard input: every geometry valid.
void passes_check(const std::string& text) {
  const auto r = run_migplan({"check", "-"}, text);
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("error") == std::string::npos);
}

}  // namespace

TEST_CASE("emitting mig-parted writes a label per node layout that migplan check accepts",
          "[plan-io][emit]") {
  const auto [req, res] = nodes_plan();
  const std::string out = emitted("mig-parted", req, res);
  golden("emit-nodes.mig-parted.yaml", out);
  passes_check(out);
  const emitted_labels l = plan::plan_labels(req, res);
  REQUIRE(l.labels.size() == 4);  // all-disabled, gpu-a's, gpu-b's, gpu-c's
  CHECK(l.labels[0].name == "all-disabled");
  CHECK(l.labels[0].nodes == std::vector<std::string>{"gpu-d"});
  REQUIRE(l.nodes.size() == 4);
  CHECK(l.nodes[0].label.starts_with("migplan-h100-80gb-"));
  CHECK(l.nodes[2].label.starts_with("migplan-a100-40gb-"));
  CHECK(l.nodes[3].label == "all-disabled");
  // gpu-b's GPUs differ: one entry per geometry, with its devices.
  const emitted_label& b = l.labels[2];
  REQUIRE(b.entries.size() == 2);
  CHECK(b.entries[0].devices == std::vector<int>{0, 1, 2, 3});
  CHECK(b.entries[1].devices == std::vector<int>{4, 5, 6, 7});
  CHECK(b.gpus == 8);
}

TEST_CASE("nodes labelled as emitted read back as the plan's geometries", "[plan-io][emit]") {
  const auto [req, res] = nodes_plan();
  const emitted_labels labels = plan::plan_labels(req, res);
  std::vector<std::pair<std::string, std::string>> nodes;
  for (const auto& n : labels.nodes) {
    const fleet_node& f = *std::find_if(req.nodes.begin(), req.nodes.end(),
                                        [&](const fleet_node& x) { return x.name == n.node; });
    std::string product(f.gpu->name());
    std::replace(product.begin(), product.end(), ' ', '-');
    nodes.emplace_back(n.node, gfd(product, f.gpu_count, n.label));
  }
  for (const auto kind : {"mig-parted", "configmap"}) {
    const auto back = kube(nodes_json(nodes), emitted(kind, req, res));
    REQUIRE(back.has_value());
    REQUIRE(back->nodes.size() == res.nodes.size());
    for (std::size_t i = 0; i < res.nodes.size(); ++i) {
      const current_node& n = back->nodes[i];
      REQUIRE(n.gpus.size() == res.nodes[i].gpus.size());
      for (const plan_result::node_gpu& g : res.nodes[i].gpus) {
        std::vector<int> want, got;
        if (g.group >= 0)
          for (const planned_instance& p : res.groups[static_cast<std::size_t>(g.group)].instances)
            want.push_back(p.where.profile);
        for (const current_instance& gi : n.gpus[static_cast<std::size_t>(g.index)].instances)
          got.push_back(gi.profile);
        std::sort(want.begin(), want.end());
        std::sort(got.begin(), got.end());
        INFO(n.name << " gpu " << g.index);
        CHECK(got == want);
      }
    }
  }
}

TEST_CASE("nodes labelled as emitted read back with their compute instances' GIs",
          "[plan-io][emit]") {
  // Issue 19: a config with CI profiles ("1c.3g.20gb": 4) that check accepted
  // was refused by --mig-config as "unknown profile '1c.3g.20gb'". Both now
  // read it with one reader (io/mig_parted), as mig-parted makes its GIs.
  const gpu_model& a100 = model("a100-40gb");
  const int gi = profile_of(a100, "3g.20gb");
  const profile& p3 = a100.profiles[static_cast<std::size_t>(gi)];
  const int c1 = find_ci(p3, "1c.3g.20gb"), c2 = find_ci(p3, "2c.3g.20gb");
  REQUIRE(c1 >= 0);
  REQUIRE(c2 >= 0);
  plan_request req;
  req.demand.push_back({"x", 1, "1c.3g.20gb", std::nullopt, std::nullopt, std::nullopt, ""});
  req.nodes = {{"gpu-a", &a100, 2, "f:1"}, {"gpu-b", &a100, 1, "f:2"}};
  plan_result res;
  res.feasible = true;
  res.optimal = true;
  plan_group split = group(a100, 2, {"3g.20gb@0", "3g.20gb@4"});
  split.instances[0].cis = {{c1, 0}, {c1, 1}, {c1, 2}};
  split.instances[1].cis = {{c2, 0}, {c1, 2}};
  plan_group mixed = group(a100, 2, {"3g.20gb@0", "1g.5gb@4"});
  mixed.instances[0].cis = {{c1, 0}, {c1, 1}};
  res.groups = {split, mixed};
  res.nodes = {node_plan("gpu-a", {0, 1}), node_plan("gpu-b", {1})};
  res.gpu_count = 3;
  const emitted_labels labels = plan::plan_labels(req, res);
  std::vector<std::pair<std::string, std::string>> nodes;
  for (const auto& n : labels.nodes)
    nodes.emplace_back(n.node, gfd("NVIDIA-A100-SXM4-40GB", n.node == "gpu-a" ? 2 : 1, n.label));
  for (const auto kind : {"mig-parted", "configmap"}) {
    const std::string config = emitted(kind, req, res);
    CHECK(config.find("\"1c.3g.20gb\": 4") != std::string::npos);
    passes_check(config);
    const auto back = kube(nodes_json(nodes), config);
    INFO(config);
    REQUIRE(back.has_value());
    REQUIRE(back->nodes.size() == res.nodes.size());
    for (std::size_t i = 0; i < res.nodes.size(); ++i)
      for (const plan_result::node_gpu& g : res.nodes[i].gpus) {
        std::vector<int> want, got;
        for (const planned_instance& p : res.groups[static_cast<std::size_t>(g.group)].instances)
          want.push_back(p.where.profile);
        for (const current_instance& c :
             back->nodes[i].gpus[static_cast<std::size_t>(g.index)].instances)
          got.push_back(c.profile);
        std::sort(want.begin(), want.end());
        std::sort(got.begin(), got.end());
        INFO(res.nodes[i].name << " gpu " << g.index);
        CHECK(got == want);
      }
  }
  // A CI profile the GI does not offer, and one of a GI whose CIs are unknown,
  // get check's own sentences, at their line.
  const std::string one = nodes_json({{"h", gfd("NVIDIA-A100-SXM4-40GB", 1, "x")}});
  CHECK(error_of(kube(one,
                      "version: v1\nmig-configs:\n  x:\n    - devices: all\n"
                      "      mig-enabled: true\n      mig-devices:\n"
                      "        \"3c.4g.20gb\": 1\n")) ==
        "mig.yaml:7: label 'x' (for node 'h'): " +
            ci_not_offered(a100,
                           a100.profiles[static_cast<std::size_t>(profile_of(a100, "4g.20gb"))],
                           "3c.4g.20gb")
                .message);
  CHECK(error_of(kube(one,
                      "version: v1\nmig-configs:\n  x:\n    - devices: all\n"
                      "      mig-enabled: true\n      mig-devices:\n"
                      "        \"1c.3g.20gb\": 7\n")) ==
        "mig.yaml:4: label 'x' gives gpu 0 of node 'h' a geometry that does not fit on "
        "a100-40gb: 3g.20gb allows at most 2 instances on a100-40gb (the request has 3)");
}

TEST_CASE("emitting a configmap wraps the config as the GPU Operator reads it", "[plan-io][emit]") {
  const auto [req, res] = nodes_plan();
  const std::string out = emitted("configmap", req, res);
  golden("emit-nodes.configmap.yaml", out);
  passes_check(out);
  CHECK(out.find("kind: ConfigMap\nmetadata:\n  name: custom-mig-config\ndata:\n  config.yaml: "
                 "|\n    version: v1\n") != std::string::npos);
}

TEST_CASE("emitting labels writes a kubectl command per node of a fresh plan", "[plan-io][emit]") {
  const auto [req, res] = nodes_plan();
  golden("emit-nodes.labels.sh", emitted("labels", req, res));
}

TEST_CASE("without nodes, emitting mig-parted writes one label per distinct geometry",
          "[plan-io][emit]") {
  auto [req, res] = nodes_plan();
  req.nodes.clear();
  res.nodes.clear();
  const std::string out = emitted("mig-parted", req, res);
  golden("emit-gpus.mig-parted.yaml", out);
  passes_check(out);
  const emitted_labels l = plan::plan_labels(req, res);
  REQUIRE(l.labels.size() == 4);
  CHECK(l.labels[1].gpus == 12);
  CHECK(l.nodes.empty());
  CHECK(emit::problem(plan_kind("labels"), req, res) ==
        "--emit labels needs nodes: give a fleet file with nodes, or --current");
}

namespace {

// A Kubernetes label value, as the API server checks one (its regular
// expression, apimachinery validation.go): at most 63 characters.
bool label_value(const std::string& s) {
  static const std::regex re("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$");
  return s.size() <= 63 && std::regex_match(s, re);
}

}  // namespace

TEST_CASE("plan's label names read as pack's: the model and the geometry", "[plan-io][emit]") {
  auto [req, res] = nodes_plan();
  const emitted_labels l = plan::plan_labels(req, res);
  std::vector<std::string> names;
  for (const emitted_label& e : l.labels) {
    CHECK(label_value(e.name));
    names.push_back(e.name);
  }
  // As pack --emit mig-parted names the same layouts: largest profile
  // first, a count before a repeated profile.
  const auto pack_label = [](const std::vector<std::string>& args) {
    std::vector<std::string> all{"pack", "--emit", "mig-parted"};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = run_migplan(all);
    const std::size_t at = r.out.find("\n  migplan-");
    REQUIRE(at != std::string::npos);
    return r.out.substr(at + 3, r.out.find(':', at) - at - 3);
  };
  const std::string a = pack_label({"--gpu", "h100-80gb", "1g.10gb", "2g.20gb", "3g.40gb"});
  const std::string c = pack_label({"--gpu", "a100-40gb", "3g.20gb", "3g.20gb"});
  CHECK(a == "migplan-h100-80gb-3g.40gb-2g.20gb-1g.10gb");
  CHECK(l.nodes[0].label == a);
  CHECK(l.nodes[2].label == c);
  // gpu-b's GPUs differ: each geometry, and the hash that tells which GPUs
  // take which.
  CHECK(l.nodes[1].label.starts_with(a + "_7x1g.10gb-"));
  CHECK(l.nodes[1].label.size() == a.size() + std::string("_7x1g.10gb-").size() + 8);
  std::sort(names.begin(), names.end());
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
}

TEST_CASE("a label name too long for a label value is the model and a hash", "[plan-io][emit]") {
  auto [req, res] = nodes_plan();
  const gpu_model& h100 = model("h100-80gb");
  // gpu-b's GPUs in three geometries: the name in words would take 70 characters.
  res.groups.push_back(group(h100, 2, {"1g.20gb@0", "1g.20gb@2", "1g.20gb@4", "1g.20gb@6"}));
  res.nodes[1] = node_plan("gpu-b", {0, 0, 0, 0, 1, 1, 3, 3});
  const emitted_labels l = plan::plan_labels(req, res);
  const std::string& name = l.nodes[1].label;
  INFO(name);
  CHECK(label_value(name));
  CHECK(std::regex_match(name, std::regex("migplan-h100-80gb-[0-9a-f]{8}")));
  passes_check(emitted("mig-parted", req, res));
}

TEST_CASE("a layout's label name depends on the layout alone", "[plan-io][emit]") {
  auto [req, res] = nodes_plan();
  const std::string before = plan::plan_labels(req, res).nodes[0].label;
  // Other node names, other order, another node with the same layout.
  req.nodes[0].name = "renamed";
  res.nodes[0].name = "renamed";
  std::swap(res.nodes[0], res.nodes[1]);
  req.nodes.push_back({"gpu-e", req.nodes[0].gpu, 8, "f:5"});
  res.nodes.push_back(node_plan("gpu-e", {0, 0, 0, 0, 0, 0, 0, 0}));
  const emitted_labels l = plan::plan_labels(req, res);
  CHECK(l.nodes[1].label == before);
  CHECK(l.nodes[4].label == before);
  CHECK(l.nodes[0].label != before);
}

TEST_CASE("a re-plan keeps the labels of unchanged nodes and relabels only the others",
          "[plan-io][emit]") {
  auto [req, res] = nodes_plan();
  const gpu_model& h100 = model("h100-80gb");
  // gpu-a already holds its geometry under the label "old-a"; gpu-b changes
  // GPUs 4-7; gpu-c and gpu-d are not in the current state.
  std::vector<current_node> now(2);
  now[0] = {"gpu-a", &h100, {}, "old-a", "s:1"};
  now[1] = {"gpu-b", &h100, {}, "old-b", "s:2"};
  const int p3 = profile_of(h100, "3g.40gb"), p2 = profile_of(h100, "2g.20gb"),
            p1 = profile_of(h100, "1g.10gb");
  for (int i = 0; i < 8; ++i) {
    now[0].gpus.push_back({i,
                           {current_instance::at(p3, 0, true), current_instance::at(p2, 4),
                            current_instance::at(p1, 6)},
                           "old-a"});
    now[1].gpus.push_back(
        {i,
         {current_instance::at(p3, 0), current_instance::at(p2, 4), current_instance::at(p1, 6)},
         "old-b"});
  }
  req.current = now;
  for (int i = 4; i < 8; ++i) res.changes.push_back({"gpu-b", i, 0, 1, {}, {}});
  const emitted_labels l = plan::plan_labels(req, res);
  CHECK(l.nodes[0].label == "old-a");
  CHECK_FALSE(l.nodes[0].changes);
  CHECK(l.nodes[1].label.starts_with("migplan-h100-80gb-"));
  CHECK(l.nodes[1].changes);
  const std::string out = emitted("mig-parted", req, res);
  golden("emit-replan.mig-parted.yaml", out);
  passes_check(out);
  golden("emit-replan.labels.sh", emitted("labels", req, res));
  // "old-a" cannot be kept where another unchanged node carries it with
  // another layout: both get labels named after their layouts.
  req.current->at(1).label = "old-a";
  res.changes.clear();
  const emitted_labels clash = plan::plan_labels(req, res);
  CHECK(clash.nodes[0].label.starts_with("migplan-h100-80gb-"));
  CHECK(clash.nodes[1].label.starts_with("migplan-h100-80gb-"));
  CHECK(clash.nodes[0].label != clash.nodes[1].label);
}

TEST_CASE("emitting refuses a plan that does not meet the demand", "[plan-io][emit]") {
  auto [req, res] = nodes_plan();
  res.feasible = false;
  res.status = plan_status::unmet;
  res.unmet.push_back({0, 3});
  CHECK(emit::problem(plan_kind("mig-parted"), req, res) ==
        "the plan does not meet the demand: 1 item of it falls short (without --emit the report "
        "says which, and why)");
  // Cut short by the time limit: the message says what to try.
  res.status = plan_status::timed_out;
  res.suggested_time_limit_s = 240;
  CHECK(emit::problem(plan_kind("mig-parted"), req, res) ==
        "no plan that meets the demand was found within the time limit (try --time-limit 240; "
        "without --emit the report shows the best plan found)");
}

TEST_CASE("node names are quoted for sh where they need it", "[plan-io][emit]") {
  CHECK(render::sh_quote("gpu-node-1.example.com") == "gpu-node-1.example.com");
  CHECK(render::sh_quote("nvidia.com/mig.config=migplan-a30-0123abcd") ==
        "nvidia.com/mig.config=migplan-a30-0123abcd");
  CHECK(render::sh_quote("a b") == "'a b'");
  CHECK(render::sh_quote("it's$(x)") == "'it'\\''s$(x)'");
  CHECK(render::sh_quote("") == "''");
  auto [req, res] = nodes_plan();
  req.nodes[0].name = res.nodes[0].name = "node; rm -rf /";
  const std::string out = emitted("labels", req, res);
  CHECK(out.find("kubectl label node 'node; rm -rf /' nvidia.com/mig.config=") !=
        std::string::npos);
}

TEST_CASE("kubectl's nodes that are not Nodes are refused at their line", "[plan-io]") {
  const std::string config = plan_fixture_text("kube-config.yaml");
  const std::string no_name =
      "{\"kind\": \"List\", \"items\": [\n"
      "  {\"kind\": \"Node\", \"metadata\": {\"name\": \"a\", \"labels\": {}}},\n"
      "  {\"kind\": \"Node\", \"metadata\": {\"labels\": {}}, \"status\": {}}\n]}\n";
  CHECK(error_of(kube(no_name, config)) ==
        "nodes.json:" +
            std::to_string(line_of(no_name, "{\"kind\": \"Node\", \"metadata\": {\"labels")) +
            ": item 1 has no metadata.name");
  const std::string pod =
      "{\"kind\": \"List\", \"items\": [\n  {\"metadata\": {\"name\": \"a\"}},\n"
      "  {\"kind\": \"Pod\", \"metadata\": {\"name\": \"p\"}}\n]}\n";
  CHECK(error_of(kube(pod, config)) == "nodes.json:" + std::to_string(line_of(pod, "\"Pod\"")) +
                                           ": item 1 is a 'Pod', not a Node (expected `kubectl get "
                                           "nodes -o json`)");
  // Not an object at all: refused, where the SAX reader passed over it.
  const std::string number = "{\"kind\": \"List\", \"items\": [\n  7\n]}\n";
  CHECK(error_of(kube(number, config)) ==
        "nodes.json:2: item 0 is '7', not a Node (expected `kubectl get nodes -o json`)");
  // One Node without a name: the document's first line.
  CHECK(error_of(kube("{\"kind\": \"Node\", \"metadata\": {}}", config)) ==
        "nodes.json:1: the Node has no metadata.name");
  // A label whose value is no string, deep in an entry that is otherwise left out.
  const std::string bad_label =
      nodes_json({{"h", gfd("NVIDIA-H100-80GB-HBM3", 4, "split") + ", \"n\": {\"deep\": [1]}"}});
  CHECK(error_of(kube(bad_label, config)) ==
        "nodes.json:" + std::to_string(line_of(bad_label, "{\"deep\"")) +
            ": node 'h': label 'n' is not a string");
}

TEST_CASE("a message about one of kubectl's nodes names the line of its metadata.name",
          "[plan-io]") {
  const std::string config = plan_fixture_text("kube-config.yaml");
  const std::string full = plan_fixture_text("kube-nodes.json");
  // Replaces the first `from` of the fixture by `to`.
  const auto edited = [&full](const std::string& from, const std::string& to) {
    std::string text = full;
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
  };
  // h100-a, the fixture's second node, is far from line 1.
  const std::string unknown =
      edited("\"nvidia.com/mig.config\": \"split\"", "\"nvidia.com/mig.config\": \"splitt\"");
  REQUIRE(line_of(unknown, "\"name\": \"h100-a\"") > 1);
  CHECK(error_of(kube(unknown, config)) ==
        node_at(unknown, "h100-a") +
            ": its nvidia.com/mig.config label 'splitt' is not in mig.yaml (did you mean split?)");
  // A name given twice: at the second, naming the first's line.
  const std::string twice = edited("\"name\": \"h100-b\"", "\"name\": \"h100-a\"");
  const std::string second = "\"name\": \"h100-a\"";
  const int first_line = line_of(twice, second);
  const int second_line = first_line + line_of(twice.substr(twice.find(second) + 1), second) - 1;
  REQUIRE(second_line > first_line);
  CHECK(error_of(kube(twice, config)) == "nodes.json:" + std::to_string(second_line) +
                                             ": node 'h100-a' is listed twice (first at line " +
                                             std::to_string(first_line) + ")");
  // A label that is no string: at its value.
  const std::string number =
      edited("\"nvidia.com/mig.config\": \"split\"", "\"nvidia.com/mig.config\": 7");
  CHECK(error_of(kube(number, config)) ==
        "nodes.json:" + std::to_string(line_of(number, "\"nvidia.com/mig.config\": 7")) +
            ": node 'h100-a': label 'nvidia.com/mig.config' is not a string");
}

TEST_CASE("a demand file's second yaml document is refused, not ignored", "[plan-io]") {
  // The second document would have been dropped: plan would answer for 3 instances.
  const std::string text =
      "version: 1\ndemand:\n  - count: 3\n    profile: 1g.10gb\n---\n"
      "version: 1\ndemand:\n  - count: 5\n    profile: 3g.40gb\n";
  for (const bool as_json : {false, true}) {
    std::vector<std::string> args{"plan", "--gpu", "h100-80gb", "--demand", "-"};
    if (as_json) args.push_back("--json");
    const auto r = run_migplan(args, text);
    CHECK(r.code == 2);
    CHECK(r.err ==
          "migplan: <stdin>:6: a second yaml document starts here; migplan reads one document "
          "per file\n");
    if (as_json) {
      const auto d = nlohmann::json::parse(r.out);
      CHECK(d["error"]["line"] == 6);
    } else {
      CHECK(r.out.empty());
    }
  }
  // A trailing "---" is no second document.
  const auto trailing =
      run_migplan({"plan", "--gpu", "h100-80gb", "--demand", "-"},
                  "version: 1\ndemand:\n  - count: 3\n    profile: 1g.10gb\n---\n");
  CHECK(trailing.code == 0);
}

TEST_CASE("a demand item's name that is not UTF-8 is refused at its line", "[plan-io]") {
  const auto yaml = run_migplan({"plan", "--gpu", "h100-80gb", "--demand", "-"},
                                "version: 1\ndemand:\n  - count: 3\n    profile: 1g.10gb\n"
                                "    name: \"a\xff\"\n");
  CHECK(yaml.code == 2);
  CHECK(yaml.out.empty());
  // In YAML the byte stops the file before the name is read.
  CHECK(yaml.err ==
        "migplan: <stdin>:5: invalid UTF-8: byte 0xFF is no part of a UTF-8 character "
        "(YAML files are UTF-8 text)\n");
  const auto csv = run_migplan({"plan", "--gpu", "h100-80gb", "--demand", "-"},
                               "name,count,profile\nb\xfe,3,1g.10gb\n");
  CHECK(csv.code == 2);
  CHECK(csv.err == "migplan: <stdin>:2: name 'b\xEF\xBF\xBD' holds a byte that is not UTF-8\n");
  // A name in UTF-8 is still taken.
  const auto ok = run_migplan({"plan", "--gpu", "h100-80gb", "--demand", "-", "--json"},
                              "name,count,profile\ncaf\xC3\xA9,3,1g.10gb\n");
  CHECK(ok.code == 0);
  CHECK(ok.out.find("caf\xC3\xA9") != std::string::npos);
}

TEST_CASE("the single strategy counts a GPU instance's compute instances as MIG devices",
          "[plan-io]") {
  // NVIDIA's MIG user guide ("MIG Device Names"): a 3g.20gb GI split into CIs is
  // three MIG devices 1c.3g.20gb, and GFD's single strategy counts MIG devices.
  // Four 1c.3g.20gb CIs take two 3g.20gb GIs of an A100-40GB (three CIs fill
  // one): four MIG devices a GPU, so 8 devices are 2 GPUs. The GIs were
  // counted before: 8 devices were read as 4 GPUs.
  const std::string config =
      "version: v1\nmig-configs:\n  ci:\n    - devices: all\n      mig-enabled: true\n"
      "      mig-devices:\n        \"1c.3g.20gb\": 4\n";
  const auto s =
      kube(nodes_json({{"h", gfd("NVIDIA-A100-SXM4-40GB-MIG-1c.3g.20gb", 8, "ci")}}), config);
  REQUIRE(s.has_value());
  REQUIRE(s->nodes.size() == 1);
  REQUIRE(s->nodes[0].gpus.size() == 2);
  const gpu_model& a100 = model("a100-40gb");
  const profile& gi = a100.profiles[static_cast<std::size_t>(profile_of(a100, "3g.20gb"))];
  const std::vector<int> four(4, find_ci(gi, "1c.3g.20gb"));
  for (const current_gpu& g : s->nodes[0].gpus) {
    // Settled: the CIs shared out into GIs, as many as the core's grouping makes.
    CHECK(g.lone.empty());
    CHECK(g.instances.size() == group_cis(gi, four).gis.size());
    for (const current_instance& c : g.instances) CHECK(c.profile == profile_of(a100, "3g.20gb"));
  }
  // 6 devices are no whole number of such GPUs.
  CHECK(error_of(
            kube(nodes_json({{"h", gfd("NVIDIA-A100-SXM4-40GB-MIG-1c.3g.20gb", 6, "ci")}}), config))
            .find("no number of GPUs with the geometries of label 'ci' holds exactly that many") !=
        std::string::npos);
  // GFD reporting GI devices where the label makes CI devices is a mismatch.
  CHECK(
      error_of(kube(nodes_json({{"h", gfd("NVIDIA-A100-SXM4-40GB-MIG-3g.20gb", 8, "ci")}}), config))
          .find("GPU Feature Discovery reports MIG devices of 3g.20gb (nvidia.com/gpu.product), "
                "but label 'ci' gives gpu 0 1c.3g.20gb") != std::string::npos);
}

TEST_CASE("the single strategy's profile may name a compute instance, and must be the node's",
          "[plan-io]") {
  // GFD names a MIG device by its profile, "1c.3g.20gb" for a CI smaller than
  // its GI (NVIDIA's MIG user guide, "MIG Device Names"), and under the single
  // strategy reports one profile for the whole node. Only a GI profile was
  // compared with the label's geometry: a CI profile, or a name the model
  // lacks, let a node whose label makes other devices pass as holding it.
  const std::string config =
      "version: v1\nmig-configs:\n"
      "  gis:\n    - devices: all\n      mig-enabled: true\n"
      "      mig-devices:\n        \"1g.5gb\": 7\n"
      "  two-kinds:\n    - devices: all\n      mig-enabled: true\n"
      "      mig-devices:\n        \"1c.3g.20gb\": 2\n        \"2c.3g.20gb\": 1\n"
      "  cis:\n    - devices: all\n      mig-enabled: true\n"
      "      mig-devices:\n        \"1c.3g.20gb\": 6\n";
  const std::string product = "NVIDIA-A100-SXM4-40GB-MIG-1c.3g.20gb";
  // Six 1c.3g.20gb devices a GPU: 12 are two GPUs.
  const auto s = kube(nodes_json({{"h", gfd(product, 12, "cis")}}), config);
  REQUIRE(s.has_value());
  REQUIRE(s->nodes.size() == 1);
  CHECK(s->nodes[0].gpus.size() == 2);
  // 1g.5gb GIs are MIG devices of 1g.5gb.
  CHECK(node_h_error(gfd(product, 14, "gis"), config) ==
        "GPU Feature Discovery reports MIG devices of 1c.3g.20gb (nvidia.com/gpu.product), but "
        "label 'gis' gives gpu 0 1g.5gb: the node does not hold the label's geometry");
  // Two kinds of device: GFD's single strategy would have said MIG-INVALID.
  CHECK(node_h_error(gfd(product, 6, "two-kinds"), config) ==
        "GPU Feature Discovery reports MIG devices of 1c.3g.20gb (nvidia.com/gpu.product), but "
        "label 'two-kinds' gives gpu 0 2c.3g.20gb: the node does not hold the label's geometry");
  // A profile the model cannot make, with the reader's own sentence.
  const std::string unknown =
      node_h_error(gfd("NVIDIA-A100-SXM4-40GB-MIG-bogus", 14, "gis"), config);
  CHECK(
      unknown.starts_with("GPU Feature Discovery reports MIG devices of 'bogus' "
                          "(nvidia.com/gpu.product), which a100-40gb cannot make: "
                          "unknown profile 'bogus' on a100-40gb"));
  CHECK(node_h_error(gfd("NVIDIA-A100-SXM4-40GB-MIG-3c.4g.20gb", 14, "gis"), config)
            .starts_with("GPU Feature Discovery reports MIG devices of '3c.4g.20gb' "
                         "(nvidia.com/gpu.product), which a100-40gb cannot make: "));
  // While mig-manager applies the label, GFD may still describe the old geometry.
  const auto pending = kube(nodes_json({{"h", gfd(product, 14, "gis", "pending")}}), config);
  REQUIRE(pending.has_value());
  CHECK(pending->nodes[0].gpus.size() == 2);
}

TEST_CASE("Current with a mig-parted config names a file that is no state file", "[plan][kube]") {
  std::istringstream in;
  const std::string config = test_path("fixtures/plan/kube-config.yaml");
  const auto current = [&](const std::string& name, const std::string& text) {
    const migplan::test::temp_file f(name, text);
    return error_of(read_current_state(builtin_models(), f.path(), config, in, "plan"));
  };
  // Cut off before its first key closes: kubectl's JSON, no state file.
  const std::string cut = current("cut-nodes.json", "{\"apiVers");
  CHECK(cut.find(":1: invalid json") != std::string::npos);
  CHECK(cut.find("is a migplan state file") == std::string::npos);
  // Empty.
  const std::string empty = current("empty-nodes.json", "");
  CHECK(empty.find(":1: invalid json") != std::string::npos);
  CHECK(empty.find("is a migplan state file") == std::string::npos);
  // A demand file is named as one.
  const std::string demand =
      current("demand-as-current.yaml", "version: 1\ndemand:\n  - profile: 1g.10gb\n");
  CHECK(demand.find("is a migplan demand file") != std::string::npos);
  CHECK(demand.find("is a migplan state file") == std::string::npos);
  // A state file still gets the --mig-config error.
  CHECK(error_of(read_current_state(builtin_models(), test_path("fixtures/plan/state.json"), config,
                                    in, "plan"))
            .starts_with("--mig-config is only for kubectl's nodes"));
}

TEST_CASE("Kubectl nodes whose items are not a list say so", "[plan][kube]") {
  std::istringstream in;
  const std::string config = test_path("fixtures/plan/kube-config.yaml");
  const auto current = [&](const std::string& text) {
    const migplan::test::temp_file f("items-nodes.json", text);
    return error_of(read_current_state(builtin_models(), f.path(), config, in, "plan"));
  };
  CHECK(current("{\"apiVersion\": \"v1\", \"kind\": \"List\",\n\"items\": {}}")
            .ends_with("items-nodes.json:2: 'items' is a mapping, not a list of Nodes (expected "
                       "`kubectl get nodes -o json`)"));
  CHECK(current("{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": \"x\"}")
            .find("'items' is the string \"x\", not a list of Nodes") != std::string::npos);
  // An empty list is read as no nodes, which has its own message.
  CHECK(current("{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": []}").find("'items' is") ==
        std::string::npos);
}

TEST_CASE("an empty demand item is reported at its dash", "[plan][input]") {
  CHECK(demand_error("version: 1\ndemand:\n  - {count: 1, profile: 1g.10gb}\n  -\n"
                     "  - {count: 2, profile: 2g.20gb}\n") ==
        "d.yaml:4: each demand item must be a mapping with a count and a profile or a memory "
        "need, not empty");
}

// SPDX-License-Identifier: Apache-2.0
#include "io/plan_answer.hpp"

#include <fmt/format.h>

#include <migplan/lookup.hpp>

#include "io/document.hpp"
#include "io/plan_input.hpp"
#include "io/plan_input_util.hpp"
#include "io/schema.hpp"
#include "quote.hpp"

namespace migplan::cli {
namespace {

// The members of plan's answer (schema/plan.schema.json, schema_version 2);
// only schema_version and groups are read.
constexpr std::string_view answer_keys[] = {"schema_version",
                                            "status",
                                            "suggested_time_limit",
                                            "feasible",
                                            "gpu_count",
                                            "cost",
                                            "lower_bound",
                                            "lp_bound",
                                            "optimal",
                                            "later_objectives_optimal",
                                            "time_limit_hit",
                                            "gap",
                                            "seconds",
                                            "demand",
                                            "groups",
                                            "stranded",
                                            "nodes",
                                            "changes",
                                            "changes_lower_bound",
                                            "inferred",
                                            "unmet"};
constexpr std::string_view group_keys[] = {"gpu",    "count",      "instances",
                                           "serves", "assignment", "stranded_per_gpu"};
constexpr std::string_view gpu_keys[] = {"id", "name", "description"};
constexpr std::string_view instance_keys[] = {"profile", "profile_id", "start", "size",
                                              "compute_instances"};

// The most groups and instances per group read (a plan of one model has at
// most as many groups as the model has layouts; 64 placements at most).
constexpr std::size_t max_answer_groups = 100'000;
constexpr std::size_t max_group_instances = 64;

// One group of `gpu`, or nothing with the walker's diagnostic.
std::optional<plan_group> group_of(doc::walker& w, const doc::node& g, const gpu_model& gpu) {
  const int line = g.at.line;
  if (!plan_io::mapping(w, g, g.at, "each group must be a mapping")) return std::nullopt;
  const auto fs = w.fields(g, group_keys, "a group");
  const doc::field* model = w.need(fs, "gpu", line, "(a group names its model)");
  const doc::field* count = w.need(fs, "count", line, "(a group has a count of GPUs)");
  const doc::field* instances = w.need(fs, "instances", line, "(a group lists its instances)");
  if (!w.ok()) return std::nullopt;
  if (!plan_io::mapping(w, *model->value, model->at(), "'gpu' must be a mapping with an id"))
    return std::nullopt;
  const auto ms = w.fields(*model->value, gpu_keys, "a group's gpu");
  const doc::field* id = w.need(ms, "id", model->line(), "(the model's id)");
  std::optional<std::string> slug;
  if (!w.ok() || !(slug = w.name(*id, "gpu id", 64))) return std::nullopt;
  if (*slug != gpu.slug) {
    w.fail(id->at(), fmt::format("the plan has a group of {}; this replay is of {} (--gpu)",
                                 quote_token(*slug), gpu.slug));
    return std::nullopt;
  }
  plan_group out;
  out.gpu = &gpu;
  const std::optional<long long> n = w.whole(*count, "count", 1, 100'000);
  const doc::node* list =
      n ? w.list(*instances, "a list of instances", max_group_instances, "instances") : nullptr;
  if (list == nullptr) return std::nullopt;
  out.count = *n;
  unit_mask used = 0;
  for (const doc::node& in : list->kids) {
    if (!plan_io::mapping(w, in, in.at,
                          "each instance must be a mapping with a profile and a start"))
      return std::nullopt;
    const auto is = w.fields(in, instance_keys, "an instance");
    const int at = in.line_or(line);
    const doc::field* profile = w.need(is, "profile", at, "(an instance has a profile)");
    const doc::field* start = w.need(is, "start", at, "(an instance has a start)");
    std::optional<std::string> name;
    if (!w.ok() || !(name = w.name(*profile, "profile", 64))) return std::nullopt;
    const int p = find_profile(gpu, *name);
    if (p < 0) {
      std::vector<std::string> names;
      for (const migplan::profile& each : gpu.profiles) names.emplace_back(each.name);
      w.fail(profile->at(), fmt::format("{} is no profile of {}{}", quote_token(*name), gpu.slug,
                                        doc::suggest(*name, names)));
      return std::nullopt;
    }
    const migplan::profile& prof = gpu.profiles[static_cast<std::size_t>(p)];
    const std::optional<long long> s = w.whole(*start, "start", 0, max_units - 1);
    if (!s) return std::nullopt;
    if (!prof.allows_start(static_cast<int>(*s))) {
      w.fail(start->at(), fmt::format("{} cannot start at {} on {}", prof.name, *s, gpu.slug));
      return std::nullopt;
    }
    const unit_mask mask = prof.mask_at(static_cast<int>(*s));
    if ((mask & used) != 0) {
      w.fail(start->at(),
             fmt::format("{} at {} overlaps an instance before it in the group", prof.name, *s));
      return std::nullopt;
    }
    used |= mask;
    planned_instance pi;
    pi.where = {p, static_cast<int>(*s)};
    out.instances.push_back(pi);
  }
  return out;
}

}  // namespace

result<std::vector<plan_group>> read_plan_answer(const std::string& path, std::istream& in,
                                                 const gpu_model& gpu) {
  auto text = read_plan_file(path, in, "simulate");
  if (!text) return text.error();
  return parse_plan_answer(*text, plan_io::shown_path(path), gpu);
}

result<std::vector<plan_group>> parse_plan_answer(std::string_view text, std::string_view shown,
                                                  const gpu_model& gpu) {
  doc::budget limits;
  limits.reader = "simulate";
  const auto root = doc::read_json(text, shown, limits);
  if (!root) return error{root.error()};
  doc::walker w(shown);
  const auto fail = [&]() { return error{w.first()}; };
  if (!w.top_mapping(*root, "plan answer", "'schema_version: 2' and 'groups'")) return fail();
  const auto top = w.fields(*root, answer_keys, "a plan answer (migplan plan --json)");
  const doc::field* version = w.need(top, "schema_version", 1, "(a plan answer of schema 2)");
  const doc::field* groups = w.need(top, "groups", 1, "(the plan's geometries)");
  if (!w.ok() || !w.whole(*version, "schema_version", 2, 2)) return fail();
  const doc::node* list = w.list(*groups, "a list of groups", max_answer_groups, "groups");
  if (list == nullptr) return fail();
  std::vector<plan_group> out;
  for (const doc::node& g : list->kids) {
    auto group = group_of(w, g, gpu);
    if (!group) return fail();
    out.push_back(std::move(*group));
  }
  if (out.empty())
    return error{located(shown, groups->line(), "the plan has no GPU: 'groups' is empty")};
  return out;
}

}  // namespace migplan::cli

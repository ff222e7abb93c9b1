// SPDX-License-Identifier: Apache-2.0
#include "render/profiles.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "render/gpus.hpp"
#include "render/json.hpp"

namespace migplan::cli::render {
namespace {

std::string opt_text(std::optional<int> v) { return v ? fmt::format("{}", *v) : "?"; }

void print_model(std::ostream& out, const gpu_model& g) {
  out << fmt::format("{}  {}  ({} placement units, {} compute slices)\n", g.slug,
                     g.name().empty() ? g.description : g.name(), g.units, g.compute_slices);
  out << fmt::format("  {:<16} {:>4} {:>5} {:>4} {:>10} {:>5} {:>3} {:>3} {:>3} {:>3} {:>3}  {}\n",
                     "profile", "id", "inst", "g", "memory", "SMs", "CE", "DEC", "ENC", "JPG",
                     "OFA", "placements {starts}:size");
  bool any_inferred = false;
  for (const profile& p : g.profiles) {
    const field f = p.prov.inferred;
    any_inferred = any_inferred || p.inferred();
    std::string starts;
    for (int s = 0; s < g.units; ++s)
      if (p.allows_start(s)) starts += fmt::format("{}{}", starts.empty() ? "" : ",", s);
    std::array<std::string, engine_kinds> eng;
    for (std::size_t e = 0; e < engine_kinds; ++e)
      eng[e] =
          marked(p.engines[e] ? fmt::format("{}", *p.engines[e]) : "?",
                 e == 0 ? has(f, field::ce) || has(f, field::engines) : has(f, field::engines));
    out << fmt::format(
        "  {:<16} {:>4} {:>5} {:>4} {:>10} {:>5} {:>3} {:>3} {:>3} {:>3} {:>3}  {}\n", p.name,
        marked(fmt::format("{}", p.id), has(f, field::id)),
        marked(fmt::format("{}", p.max_instances), has(f, field::max_instances)), p.compute_slices,
        marked(p.memory_gib_x100
                   ? fmt::format("{}.{:02}", *p.memory_gib_x100 / 100, *p.memory_gib_x100 % 100)
                   : "?",
               has(f, field::memory)),
        marked(opt_text(p.sm_count), has(f, field::sm_count)), eng[0], eng[1], eng[2], eng[3],
        eng[4], marked(fmt::format("{{{}}}:{}", starts, p.size), has(f, field::placements)));
  }
  out << "  memory in GiB as -lgip prints it; ? unknown";
  if (any_inferred) out << "; * inferred by analogy, not captured";
  out << "\n  " << min_driver_text(g);
  out << "\n  sources:\n";
  for (const profile& p : g.profiles) {
    out << fmt::format("    {:<16} {}\n", p.name, source_text(p.prov.source));
    if (!p.prov.placements_source.empty() && p.prov.placements_source != p.prov.source)
      out << fmt::format("    {:<16} placements: {}\n", "", source_text(p.prov.placements_source));
    if (!p.prov.notes.empty()) out << fmt::format("    {:<16} note: {}\n", "", p.prov.notes);
  }
}

}  // namespace

void profiles_text(std::ostream& os, std::span<const gpu_model* const> models) {
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (i > 0) os << "\n";
    print_model(os, *models[i]);
  }
}

void profiles_json(std::ostream& os, std::span<const gpu_model* const> models, bool ci) {
  write_document(os, [&](json_writer& w) {
    w.key("gpus").begin_array();
    for (const gpu_model* g : models) {
      const std::optional<std::string_view> name =
          g->name().empty() ? std::nullopt : std::optional(g->name());
      w.begin_object().key("id").value(g->slug).key("name").value(name);
      w.key("description").value(g->description);
      w.key("units").value(g->units).key("compute_slices").value(g->compute_slices);
      write_min_driver(w, *g);
      w.key("profiles").begin_array();
      for (const profile& p : g->profiles) {
        if (ci)
          write_profile(w, p, [&](json_writer& jw) { write_ci_profiles(jw, p); });
        else
          write_profile(w, p);
      }
      w.end_array().end_object();
    }
    w.end_array();
  });
}

}  // namespace migplan::cli::render

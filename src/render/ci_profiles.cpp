// SPDX-License-Identifier: Apache-2.0
// `migplan profiles --ci`: the compute-instance profiles of every GPU-instance profile,
// like `nvidia-smi mig -lcip` for each GI at once, with the starts migplan's inferred
// rule gives each, inferred values marked, and "unknown" where no source lists them.

#include <fmt/format.h>

#include <migplan/compute.hpp>
#include <ostream>
#include <string>
#include <string_view>

#include "render/json.hpp"
#include "render/profiles.hpp"

namespace migplan::cli::render {
namespace {

// "{0,1,2}:1": where the inferred rule lets a CI of `c` slices start in a g-slice GI.
std::string starts_text(int g, int c) {
  const unit_mask m = ci_starts(g, c);
  std::string out;
  for (int s = 0; s < g; ++s)
    if ((m >> s) & 1u) out += fmt::format("{}{}", out.empty() ? "" : ",", s);
  return fmt::format("{{{}}}:{}", out, c);
}

void print_ci_model(std::ostream& out, const gpu_model& g) {
  out << fmt::format("{}  {}  compute-instance profiles of each GPU-instance profile\n", g.slug,
                     g.name().empty() ? g.description : g.name());
  out << fmt::format("  {:<16} {:<18} {:>4} {:>5} {:>3} {:>5} {:>8}  {}\n", "GPU instance",
                     "CI profile", "id", "inst", "c", "SMs", "default", "starts {slices}:size");
  bool any_inferred = false;
  for (const profile& p : g.profiles) {
    if (p.ci_profiles.empty()) {
      out << fmt::format("  {:<16} CI profiles unknown for {} on {}\n", p.name, p.name, g.slug);
      continue;
    }
    bool first = true;
    for (const ci_profile& c : p.ci_profiles) {
      const field f = c.prov.inferred;
      any_inferred = any_inferred || f != field::none;
      out << fmt::format(
          "  {:<16} {:<18} {:>4} {:>5} {:>3} {:>5} {:>8}  {}\n", first ? p.name : "", c.name,
          marked(fmt::format("{}", c.id), has(f, field::id)),
          marked(fmt::format("{}", c.max_instances), has(f, field::max_instances)),
          c.compute_slices,
          marked(c.sm_count ? fmt::format("{}", *c.sm_count) : "?", has(f, field::sm_count)),
          c.is_default ? marked("yes", has(f, field::default_ci)) : "",
          starts_text(p.compute_slices, c.compute_slices));
      first = false;
    }
  }
  out << "  inst: most per GPU instance; c: compute slices; default: the CI -C creates; ? unknown";
  if (any_inferred) out << "; * inferred, not captured";
  out << "\n  starts: migplan's inferred rule, no -lcipp capture exists "
         "(doc/compute-instances.md)\n";
  bool any = false;
  for (const profile& p : g.profiles) any = any || !p.ci_profiles.empty();
  if (any) out << "  sources:\n";
  for (const profile& p : g.profiles)
    for (const ci_profile& c : p.ci_profiles) {
      out << fmt::format("    {:<18} {}\n", c.name, source_text(c.prov.source));
      if (!c.prov.notes.empty()) out << fmt::format("    {:<18} note: {}\n", "", c.prov.notes);
    }
}

}  // namespace

void ci_profiles_text(std::ostream& os, std::span<const gpu_model* const> models) {
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (i > 0) os << "\n";
    print_ci_model(os, *models[i]);
  }
}

void write_ci_profiles(json_writer& w, const profile& p) {
  w.key("ci_profiles");
  if (p.ci_profiles.empty()) {
    w.null();  // unknown: no source lists them
    return;
  }
  w.begin_array();
  for (const ci_profile& c : p.ci_profiles) {
    w.begin_object().key("name").value(c.name).key("id").value(c.id);
    w.key("compute_slices").value(c.compute_slices).key("sm_count").value(c.sm_count);
    w.key("max_instances").value(c.max_instances).key("default").value(c.is_default);
    w.key("starts");
    write_units(w, ci_starts(p.compute_slices, c.compute_slices));
    w.key("inferred").begin_array();
    for (std::string_view f : inferred_field_names(c.prov.inferred)) w.value(f);
    w.end_array();
    w.key("source").value(c.prov.source).key("notes").value(c.prov.notes);
    w.end_object();
  }
  w.end_array();
}

}  // namespace migplan::cli::render

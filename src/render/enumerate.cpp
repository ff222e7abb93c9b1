// SPDX-License-Identifier: Apache-2.0
#include "render/enumerate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "render/inferred.hpp"
#include "render/json.hpp"
#include "text.hpp"

namespace migplan::cli::render {
namespace {

std::string geometry_text(const gpu_model& g, const profile_counts& c) {
  std::string out;
  // Largest profiles first, as people write geometries.
  for (std::size_t i = g.profiles.size(); i-- > 0;) {
    const int n = c[static_cast<int>(i)];
    if (n == 0) continue;
    if (!out.empty()) out += ' ';
    out += n > 1 ? fmt::format("{}x{}", n, g.profiles[i].name) : std::string(g.profiles[i].name);
  }
  return out;
}

// The profiles of the listed geometries with inferred values.
std::vector<int> listed_inferred(const gpu_model& g, const geometry_set& all, bool maximal_only) {
  std::vector<int> listed;
  for (std::size_t i = 0; i < g.profiles.size(); ++i)
    if (std::any_of(all.geometries.begin(), all.geometries.end(), [&](const geometry& geo) {
          return (geo.maximal || !maximal_only) && geo.counts[static_cast<int>(i)] > 0;
        }))
      listed.push_back(static_cast<int>(i));
  return inferred_among(g, listed);
}

}  // namespace

void enumerate_text(std::ostream& os, const gpu_model& gpu, const geometry_set& all,
                    bool maximal_only) {
  os << fmt::format("{:<48} {:>7}  {}\n", "geometry", "layouts", "maximal");
  for (const geometry& geo : all.geometries) {
    if (maximal_only && !geo.maximal) continue;
    os << fmt::format("{:<48} {:>7}  {}\n", geometry_text(gpu, geo.counts), geo.layout_count,
                      geo.maximal ? "yes" : "");
  }
  os << fmt::format("\n{}: {} geometr{} ({} maximal), {} layout{}\n", gpu.slug,
                    all.geometries.size(), all.geometries.size() == 1 ? "y" : "ies",
                    all.maximal_count, all.layout_count, plural(all.layout_count));
  // Inferred values are shown, never hidden.
  os << inferred_note(gpu, listed_inferred(gpu, all, maximal_only));
}

void enumerate_json(std::ostream& os, const gpu_model& gpu, const geometry_set& all,
                    bool maximal_only) {
  write_document(os, [&](json_writer& w) {
    w.key("gpu");
    write_gpu(w, gpu);
    w.key("geometries").begin_array();
    for (const geometry& geo : all.geometries) {
      if (maximal_only && !geo.maximal) continue;
      w.begin_object().key("profiles").begin_array();
      for (std::size_t i = 0; i < gpu.profiles.size(); ++i)
        for (int k = 0; k < geo.counts[static_cast<int>(i)]; ++k) w.value(gpu.profiles[i].name);
      w.end_array();
      w.key("layout_count").value(geo.layout_count).key("maximal").value(geo.maximal);
      w.end_object();
    }
    w.end_array();
    w.key("geometry_count").value(all.geometries.size());
    w.key("layout_count").value(all.layout_count).key("maximal_count").value(all.maximal_count);
    w.key("inferred").begin_array();
    write_inferred(w, gpu, listed_inferred(gpu, all, maximal_only));
    w.end_array();
  });
}

}  // namespace migplan::cli::render

// SPDX-License-Identifier: Apache-2.0
#include "render/pack_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>

#include "messages.hpp"
#include "render/compute.hpp"
#include "render/diagram.hpp"
#include "render/svg.hpp"
#include "text.hpp"

namespace migplan::cli::render {
namespace {

// The picture, in pixels: a column per placement unit, a label column on
// the left, and per panel a title, the unit numbers, the memory row, the
// compute row and the legend.
constexpr int unit_w = 72;
constexpr int label_w = 96;
constexpr int margin = 16;
constexpr int row_h = 44;
constexpr int panel_h = 2 * row_h + 116;

// One fill per instance, told apart in grey too (lightness alternates).
constexpr std::string_view fills[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

std::string_view fill_of(int instance) {
  return fills[static_cast<std::size_t>(instance) % std::size(fills)];
}

void panel(std::string& out, const pack_answer& a, int y) {
  const gpu_model& g = *a.gpu;
  const std::string name(g.name().empty() ? g.description : g.name());
  out += fmt::format("<g class=\"answer\" data-gpu=\"{}\" transform=\"translate(0,{})\">\n",
                     xml_text(g.slug), y);
  out += fmt::format(R"(<text class="title" x="{}" y="18" font-weight="bold">{} ({}): {}</text>)"
                     "\n",
                     margin, xml_text(name), xml_text(g.slug), xml_text(request_text(a)));
  if (!a.sol.feasible() || a.sol.layouts.empty()) {
    out +=
        fmt::format(R"(<text class="verdict" x="{}" y="40">does not fit: {}</text>)"
                    "\n</g>\n",
                    margin,
                    xml_text(a.blocked_by_current ? std::string("blocked by the existing instances")
                                                  : describe(g, a.sol.why, a.items)));
    return;
  }
  const scored_layout& best = a.sol.layouts.front();
  const layout& l = best.where;
  const room& left = best.left;
  out += fmt::format(
      R"(<text class="verdict" x="{}" y="40">fits: {} layout{}; the preferred one</text>)"
      "\n",
      margin, a.sol.layout_count, plural(a.sol.layout_count));
  const int x0 = margin + label_w;
  const int top = 64;
  for (int u = 0; u < g.units; ++u)
    out += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle" font-size="11">{}</text>)"
                       "\n",
                       x0 + u * unit_w + unit_w / 2, top - 4, u);
  out += fmt::format(R"(<text x="{}" y="{}">memory</text>)"
                     "\n",
                     margin, top + row_h / 2 + 5);
  for (int i = 0; i < l.size(); ++i) {
    const profile& p = g.profiles[static_cast<std::size_t>(l[i].profile)];
    const int x = x0 + l[i].start * unit_w;
    const int w = p.size * unit_w;
    out += fmt::format(
        R"(<rect class="instance" data-instance="{}" data-profile="{}" data-start="{}" )"
        R"(data-size="{}" x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="#222"/>)"
        "\n",
        instance_letter(i), xml_text(p.name), l[i].start, p.size, x + 1, top, w - 2, row_h,
        fill_of(i));
    out += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle" font-size="12" fill="#fff" )"
                       R"(stroke="#000" stroke-width="0.4">{} {}</text>)"
                       "\n",
                       x + w / 2, top + row_h / 2 + 4, instance_letter(i), xml_text(p.name));
  }
  for (int u = 0; u < g.units; ++u) {
    if (((left.free_mask >> u) & 1u) == 0) continue;
    const bool reachable = ((left.reachable_mask >> u) & 1u) != 0;
    out += fmt::format(
        R"(<rect class="{}" data-unit="{}" x="{}" y="{}" width="{}" height="{}" fill="{}" )"
        R"(stroke="#888"/>)"
        "\n",
        reachable ? "free" : "stranded", u, x0 + u * unit_w + 1, top, unit_w - 2, row_h,
        reachable ? "#fff" : "url(#hatch)");
  }
  // The compute slices, in the instances' order, then free, then stranded.
  const int ctop = top + row_h + 12;
  const double slice_w = static_cast<double>(g.units * unit_w) / g.compute_slices;
  out += fmt::format(R"(<text x="{}" y="{}">compute</text>)"
                     "\n",
                     margin, ctop + row_h / 2 + 5);
  int s = 0;
  const auto slice = [&](std::string_view cls, std::string_view fill, std::string_view extra) {
    out += fmt::format(
        R"(<rect class="{}" data-slice="{}"{} x="{:.1f}" y="{}" width="{:.1f}" height="{}" )"
        R"(fill="{}" stroke="#888"/>)"
        "\n",
        cls, s, extra, x0 + s * slice_w + 1, ctop, slice_w - 2, row_h, fill);
    ++s;
  };
  for (int i = 0; i < l.size(); ++i) {
    const profile& p = g.profiles[static_cast<std::size_t>(l[i].profile)];
    const std::string who = fmt::format(R"( data-instance="{}")", instance_letter(i));
    for (int k = 0; k < p.compute_slices; ++k) slice("used", fill_of(i), who);
  }
  for (int k = 0; k < left.reachable_compute; ++k) slice("free", "#fff", "");
  while (s < g.compute_slices) slice("stranded", "url(#hatch)", "");
  const int stranded_units = left.free_units - unit_count(left.free_mask & left.reachable_mask);
  const int stranded_slices = left.free_compute - left.reachable_compute;
  out += fmt::format(
      R"(<text class="summary" x="{}" y="{}">{} of {} compute slices used; stranded: {} )"
      R"(unit{}, {} compute slice{} (hatched: free, but nothing can use it)</text>)"
      "\n</g>\n",
      margin, ctop + row_h + 22, g.compute_slices - left.free_compute, g.compute_slices,
      stranded_units, plural(stranded_units), stranded_slices, plural(stranded_slices));
}

}  // namespace

void pack_svg(std::ostream& os, std::span<const pack_answer> answers) {
  int units = 1;
  for (const pack_answer& a : answers) units = std::max(units, a.gpu->units);
  const int width = std::max(2 * margin + label_w + units * unit_w, 640);
  const int height = std::max<int>(1, static_cast<int>(answers.size())) * panel_h;
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" )"
      R"(viewBox="0 0 {0} {1}" font-family="sans-serif" font-size="13">)"
      "\n<title>migplan pack</title>\n"
      "<defs><pattern id=\"hatch\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" fill=\"#fde0dd\"/>"
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"#c51b8a\" stroke-width=\"3\"/>"
      "</pattern></defs>\n"
      R"(<rect width="100%" height="100%" fill="#fff"/>)"
      "\n",
      width, height);
  for (std::size_t i = 0; i < answers.size(); ++i)
    panel(out, answers[i], static_cast<int>(i) * panel_h);
  out += "</svg>\n";
  os << out;
}

}  // namespace migplan::cli::render

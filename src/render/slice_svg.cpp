// SPDX-License-Identifier: Apache-2.0
#include "render/slice_svg.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

#include "render/diagram.hpp"
#include "render/svg.hpp"

namespace migplan::cli::render {
namespace {

constexpr std::string_view fills[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

}  // namespace

std::string slice_svg_head(int width, int height, std::string_view title) {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" )"
      R"(viewBox="0 0 {0} {1}" font-family="sans-serif" font-size="13">)"
      "\n<title>{2}</title>\n"
      "<defs><pattern id=\"hatch\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" fill=\"#fde0dd\"/>"
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"#c51b8a\" stroke-width=\"3\"/>"
      "</pattern></defs>\n"
      R"(<rect width="100%" height="100%" fill="#fff"/>)"
      "\n",
      width, height, xml_text(title));
}

std::string_view instance_fill(int instance) {
  return fills[static_cast<std::size_t>(instance) % std::size(fills)];
}

void slice_svg(std::string& out, const gpu_model& g, const layout& l, const room& left,
               const slice_box& box) {
  const int x0 = box.x0;
  const int top = box.top;
  const int unit_w = box.unit_w;
  const int row_h = box.row_h;
  for (int u = 0; u < g.units; ++u)
    out += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle" font-size="11">{}</text>)"
                       "\n",
                       x0 + u * unit_w + unit_w / 2, top - 4, u);
  if (box.label_x >= 0)
    out += fmt::format(R"(<text x="{}" y="{}">memory</text>)"
                       "\n",
                       box.label_x, top + row_h / 2 + 5);
  for (int i = 0; i < l.size(); ++i) {
    const profile& p = g.profiles[static_cast<std::size_t>(l[i].profile)];
    const int x = x0 + l[i].start * unit_w;
    const int w = p.size * unit_w;
    out += fmt::format(
        R"(<rect class="instance" data-instance="{}" data-profile="{}" data-start="{}" )"
        R"(data-size="{}" x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="#222"/>)"
        "\n",
        instance_letter(i), xml_text(p.name), l[i].start, p.size, x + 1, top, w - 2, row_h,
        instance_fill(i));
    // A letter alone, in a small box, reads best black on a white halo.
    out += fmt::format(
        R"(<text x="{}" y="{}" text-anchor="middle" font-size="12" {}>{}{}</text>)"
        "\n",
        x + w / 2, top + row_h / 2 + 4,
        box.profile_names
            ? R"(fill="#fff" stroke="#000" stroke-width="0.4")"
            : R"(font-weight="bold" stroke="#fff" stroke-width="3" paint-order="stroke")",
        instance_letter(i), box.profile_names ? " " + xml_text(p.name) : std::string());
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
  if (box.label_x >= 0)
    out += fmt::format(R"(<text x="{}" y="{}">compute</text>)"
                       "\n",
                       box.label_x, ctop + row_h / 2 + 5);
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
    for (int k = 0; k < p.compute_slices; ++k) slice("used", instance_fill(i), who);
  }
  for (int k = 0; k < left.reachable_compute; ++k) slice("free", "#fff", "");
  while (s < g.compute_slices) slice("stranded", "url(#hatch)", "");
}

}  // namespace migplan::cli::render

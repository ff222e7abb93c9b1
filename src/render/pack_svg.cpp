// SPDX-License-Identifier: Apache-2.0
#include "render/pack_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "messages.hpp"
#include "render/compute.hpp"
#include "render/pack.hpp"
#include "render/slice_svg.hpp"
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
constexpr int verdict_y = 40;
constexpr int line_h = 17;

// Why an answer is drawn without a layout: the reason the report and
// --json give (a request whose compute instances cannot be shared out is
// refused before any search, whose reason would be "it fits"); empty when
// it has one to draw.
std::string refusal(const pack_answer& a) {
  if (!a.compute.rejected && a.sol.feasible() && !a.sol.layouts.empty()) return {};
  return "does not fit: " + (a.compute.rejected     ? a.compute.rejected->message
                             : a.blocked_by_current ? pack_blocked_message(a)
                                                    : describe(*a.gpu, a.sol.why, a.items));
}

// `text` in lines about as wide as the picture (13-pixel sans-serif glyphs
// average about 7.5 pixels), broken after spaces: each line but the last
// ends with its space, so the lines joined are the text. A word wider than
// a line stands alone on one.
std::vector<std::string> wrap(std::string_view text, int width) {
  const auto most = static_cast<std::size_t>(std::max(20, (width - 2 * margin) * 2 / 15));
  std::vector<std::string> lines;
  while (text.size() > most) {
    std::size_t cut = text.rfind(' ', most);
    if (cut == std::string_view::npos) cut = text.find(' ', most);
    if (cut == std::string_view::npos) break;
    lines.emplace_back(text.substr(0, cut + 1));
    text.remove_prefix(cut + 1);
  }
  lines.emplace_back(text);
  return lines;
}

// A panel's height: a long refusal takes a line each of its lines.
int panel_height(const pack_answer& a, int width) {
  const std::string why = refusal(a);
  if (why.empty()) return panel_h;
  const int lines = static_cast<int>(wrap(why, width).size());
  return std::max(panel_h, verdict_y + (lines - 1) * line_h + 2 * margin);
}

// `several`: one panel of a --current listing of several GPUs, which names
// its GPU as the report's "GPU N" heading does.
void panel(std::string& out, const pack_answer& a, int y, int width, bool several) {
  const gpu_model& g = *a.gpu;
  const std::string name(g.name().empty() ? g.description : g.name());
  const int index = a.gpu_index.value_or(0);
  out += fmt::format("<g class=\"answer\" data-gpu=\"{}\"{} transform=\"translate(0,{})\">\n",
                     xml_text(g.slug),
                     several ? fmt::format(" data-gpu-index=\"{}\"", index) : std::string(), y);
  out += fmt::format(R"(<text class="title" x="{}" y="18" font-weight="bold">{}{} ({}): {}</text>)"
                     "\n",
                     margin, several ? fmt::format("GPU {}: ", index) : std::string(),
                     xml_text(name), xml_text(g.slug), xml_text(request_text(a)));
  if (const std::string why = refusal(a); !why.empty()) {
    const std::vector<std::string> lines = wrap(why, width);
    out += fmt::format(R"(<text class="verdict" x="{}" y="{}">{})", margin, verdict_y,
                       xml_text(lines.front()));
    for (std::size_t i = 1; i < lines.size(); ++i)
      out += fmt::format(R"(<tspan x="{}" dy="{}">{}</tspan>)", margin, line_h, xml_text(lines[i]));
    out += "</text>\n</g>\n";
    return;
  }
  const scored_layout& best = a.sol.layouts.front();
  const layout& l = best.where;
  const room& left = best.left;
  out += fmt::format(
      R"(<text class="verdict" x="{}" y="{}">fits: {} layout{}; the preferred one</text>)"
      "\n",
      margin, verdict_y, a.sol.layout_count, plural(a.sol.layout_count));
  const int top = 64;
  slice_svg(out, g, l, left, {margin + label_w, top, unit_w, row_h, margin, true});
  const int ctop = top + row_h + 12;
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
  int height = answers.empty() ? panel_h : 0;
  for (const pack_answer& a : answers) height += panel_height(a, width);
  std::string out = slice_svg_head(width, height, "migplan pack");
  int y = 0;
  for (const pack_answer& a : answers) {
    panel(out, a, y, width, answers.size() > 1);
    y += panel_height(a, width);
  }
  out += "</svg>\n";
  os << out;
}

}  // namespace migplan::cli::render

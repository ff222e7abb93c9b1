// SPDX-License-Identifier: Apache-2.0
#include "render/pack_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <string>

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

// `several`: one panel of a --current listing of several GPUs, which names
// its GPU as the report's "GPU N" heading does.
void panel(std::string& out, const pack_answer& a, int y, bool several) {
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
  if (a.compute.rejected || !a.sol.feasible() || a.sol.layouts.empty()) {
    // The reason the report and --json give: a request whose compute
    // instances cannot be shared out is refused before any search, so the
    // search's reason would be "it fits".
    const std::string why = a.compute.rejected     ? a.compute.rejected->message
                            : a.blocked_by_current ? pack_blocked_message(a)
                                                   : describe(g, a.sol.why, a.items);
    out += fmt::format(R"(<text class="verdict" x="{}" y="40">does not fit: {}</text>)"
                       "\n</g>\n",
                       margin, xml_text(why));
    return;
  }
  const scored_layout& best = a.sol.layouts.front();
  const layout& l = best.where;
  const room& left = best.left;
  out += fmt::format(
      R"(<text class="verdict" x="{}" y="40">fits: {} layout{}; the preferred one</text>)"
      "\n",
      margin, a.sol.layout_count, plural(a.sol.layout_count));
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
  const int height = std::max<int>(1, static_cast<int>(answers.size())) * panel_h;
  std::string out = slice_svg_head(width, height, "migplan pack");
  for (std::size_t i = 0; i < answers.size(); ++i)
    panel(out, answers[i], static_cast<int>(i) * panel_h, answers.size() > 1);
  out += "</svg>\n";
  os << out;
}

}  // namespace migplan::cli::render

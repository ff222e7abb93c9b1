// SPDX-License-Identifier: Apache-2.0
#pragma once

// The slice diagram of one GPU's layout as SVG, shared by `pack --plot`
// (render/pack_svg.cpp) and `plan --plot` (render/plan_svg.cpp): the memory
// row over the placement units and the compute row under it.

#include <migplan/capacity.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <string>
#include <string_view>

namespace migplan::cli::render {

/// Where a slice diagram goes, and how large.
struct slice_box {
  int x0 = 0;        ///< left edge of unit 0
  int top = 0;       ///< top of the memory row
  int unit_w = 72;   ///< width of one placement unit
  int row_h = 44;    ///< height of each row
  int label_x = -1;  ///< x of the rows' names ("memory", "compute"); < 0: none
  /// Instance boxes say "A 1g.10gb" in white; else only "A", black on a white halo.
  bool profile_names = true;
};

/// The start of an SVG document of slice diagrams, `width` by `height`
/// pixels, titled `title` (plain text): the XML declaration, the <svg>
/// element, the hatch pattern the diagrams refer to (`url(#hatch)`) and a
/// white background. The caller closes it with "</svg>".
std::string slice_svg_head(int width, int height, std::string_view title);

/// The fill of the instance with letter number `instance`; ten fills, told
/// apart in grey too (their lightness alternates).
std::string_view instance_fill(int instance);

/// Appends the diagram of layout `l` on `g`, leaving `left`: the unit
/// numbers, the memory row (each instance a box with its letter, free units
/// white, stranded ones hatched) and, `row_h + 12` below, the compute slices
/// (used per instance, free, stranded). Every box carries data-* attributes
/// (instance, profile, start, size; unit or slice index) so tests and tools
/// can read the picture back.
void slice_svg(std::string& out, const gpu_model& g, const layout& l, const room& left,
               const slice_box& box);

}  // namespace migplan::cli::render

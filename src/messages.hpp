// SPDX-License-Identifier: Apache-2.0
#pragma once

// Sentences for people: reasons a request does not fit, named layouts. For
// every layer: readers and services explain with them, renderers print them.

#include <migplan/explain.hpp>
#include <migplan/gpu.hpp>
#include <migplan/search.hpp>
#include <span>
#include <string>
#include <string_view>

namespace migplan::cli {

/// One sentence saying why a request does not fit on `gpu`, naming the profiles involved.
std::string describe(const gpu_model& gpu, const reason& why);

/// describe() with the arithmetic of a total spelled out from the request's
/// `items`: "7 x 1g.10gb (1 unit each) + 1 x 1g.20gb (2 units) = 9 placement
/// units but h100-80gb has 8" (placement units, compute slices, engines);
/// other reasons read as describe(gpu, why).
std::string describe(const gpu_model& gpu, const reason& why, std::span<const item> items);

/// Why `items`, which do not fit on `gpu` together, do not: a cap or a total
/// they exceed (as describe(gpu, why, items) words it), else the smallest set
/// of them no arrangement of the allowed starts holds.
std::string why_not_fits(const gpu_model& gpu, std::span<const item> items);

/// "1g.5gb@6" for an item (no "@" when unpinned).
std::string item_text(const gpu_model& gpu, const item& it);

/// "2x1g.5gb 3g.20gb" for a list of items, grouping equal ones.
std::string items_text(const gpu_model& gpu, std::span<const item> items);

/// "4g.20gb@0 2g.10gb@4 1g.5gb@6" for a layout.
std::string layout_text(const gpu_model& gpu, const layout& l);

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#include "render/diagram.hpp"

#include <fmt/format.h>

#include "render/style.hpp"

namespace migplan::cli {

char instance_letter(int i) { return static_cast<char>(i < 26 ? 'A' + i : 'a' + (i - 26)); }

std::string diagram(const gpu_model& gpu, const layout& l, const room& left, bool color,
                    std::string_view indent) {
  // Each unit is three columns wide; an instance spanning k units is drawn
  // as "[A  A  A]" over 3k columns, a free unit as "[.]", a stranded one "[~]".
  std::string units = fmt::format("{}{:<9}", indent, "unit");
  for (int u = 0; u < gpu.units; ++u) units += fmt::format("{:^3}", u);
  while (!units.empty() && units.back() == ' ') units.pop_back();
  std::string owners = fmt::format("{}{:<9}", indent, "memory");
  int u = 0;
  while (u < gpu.units) {
    int owner = -1;
    for (int i = 0; i < l.size(); ++i)
      if (l[i].start == u) owner = i;
    if (owner >= 0) {
      const profile& p = gpu.profiles[static_cast<std::size_t>(l[owner].profile)];
      std::string cell = "[";
      for (int k = 0; k < p.size; ++k) {
        cell += instance_letter(owner);
        cell += k + 1 == p.size ? "]" : "  ";
      }
      owners += paint(color, tone::instance, cell, owner);
      u += p.size;
      continue;
    }
    const bool free_reachable = ((left.reachable_mask >> u) & 1u) != 0;
    owners += free_reachable ? paint(color, tone::good, "[.]") : paint(color, tone::bad, "[~]");
    ++u;
  }
  const int used = gpu.compute_slices - left.free_compute;
  const int stranded = left.free_compute - left.reachable_compute;
  std::string bar = "[";
  bar.append(static_cast<std::size_t>(used), '#');
  bar +=
      paint(color, tone::good, std::string(static_cast<std::size_t>(left.reachable_compute), '.'));
  bar += paint(color, tone::bad, std::string(static_cast<std::size_t>(stranded), '~'));
  bar += "]";
  std::string compute = fmt::format("{}{:<9}{}  {} of {} slices used", indent, "compute", bar, used,
                                    gpu.compute_slices);
  if (stranded > 0) compute += fmt::format(", {} stranded", stranded);
  return units + "\n" + owners + "\n" + compute + "\n" +
         fmt::format(
             "{}{:<9}{}\n", indent, "",
             paint(color, tone::dim, "# used  . free  ~ stranded (free, but nothing can use it)"));
}

}  // namespace migplan::cli

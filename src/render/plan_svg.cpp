// SPDX-License-Identifier: Apache-2.0
// `plan --plot`: the legend of geometries (render/slice_svg draws their
// diagrams), the fleet a row per fold of alike nodes (plan_detail::fold_nodes,
// as the text report folds them), and a re-plan's changes.
#include "render/plan_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "render/plan_view.hpp"
#include "render/ranges.hpp"
#include "render/slice_svg.hpp"
#include "render/svg.hpp"
#include "text.hpp"

namespace migplan::cli::render {
// Named, not anonymous: the unity build puts this file beside pack_svg.cpp.
namespace plan_svg_detail {

using namespace plan_detail;

// The picture, in pixels: a GPU cell and its pitch, the legend's slice
// diagrams, and text widths estimated at 7 pixels a character of 13-pixel
// sans-serif (a little wide, so nothing overlaps).
constexpr int margin = 16;
constexpr int cell = 28;
constexpr int pitch = 32;
constexpr int legend_unit_w = 32;
constexpr int legend_row_h = 20;
constexpr int char_w = 7;
// Longer names of nodes and texts of changes are cut (the whole in a <title>).
constexpr std::size_t label_chars = 48;
constexpr std::size_t change_rows = 20;

// Twelve fills for geometries, in pairs light and dark (ColorBrewer's
// "Paired"), apart from the ten of the slice diagrams' instances.
constexpr std::string_view geometry_fills[] = {"#a6cee3", "#1f78b4", "#b2df8a", "#33a02c",
                                               "#fb9a99", "#e31a1c", "#fdbf6f", "#ff7f00",
                                               "#cab2d6", "#6a3d9a", "#ffff99", "#b15928"};
constexpr std::string_view none_fill = "#f0f0f0";   // a GPU in no geometry of the plan
constexpr std::string_view other_fill = "#bdbdbd";  // a geometry before that is not planned
constexpr std::string_view change_stroke = "#d00000";

// The fill of geometry `number` (1-based; -1: none).
std::string_view fill_of(int number) {
  return number > 0
             ? geometry_fills[static_cast<std::size_t>(number - 1) % std::size(geometry_fills)]
             : none_fill;
}

// At most `n` characters' worth of `s`, cut on a UTF-8 boundary, with "…".
std::string cut(const std::string& s, std::size_t n) {
  if (s.size() <= n) return s;
  std::size_t at = n - 1;
  while (at > 0 && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
  return s.substr(0, at) + "\xE2\x80\xA6";
}

int text_w(std::string_view s) { return static_cast<int>(s.size()) * char_w; }

// A re-plan's GPU: what it was, where the picture has to say.
struct before {
  int number = -1;    // its geometry before, when a planned one; else -1
  std::string label;  // "geometry 2", or its instances as they are ("7x1g.10gb")
};

struct picture {
  const plan_request& req;
  const plan_result& res;
  plan_view view;
  std::string body;
  int y = 0;
  int width = 640;
  std::map<std::pair<std::string_view, int>, const plan_change*> change_of;
  std::map<std::pair<std::string_view, int>, const current_gpu*> now;
  std::map<std::string_view, const gpu_model*> model_of;

  void text(int x, std::string_view content, std::string_view attrs = {}) {
    body += fmt::format(R"(<text x="{}" y="{}"{}{}>{}</text>)"
                        "\n",
                        x, y, attrs.empty() ? "" : " ", attrs, xml_text(content));
    width = std::max(width, x + text_w(content) + margin);
  }

  // A geometry's number, black on a white halo: readable on every fill.
  void number_text(int cx, int baseline, int number) {
    if (number <= 0) return;
    body +=
        fmt::format(R"(<text x="{}" y="{}" text-anchor="middle" font-size="12" font-weight="bold" )"
                    R"(stroke="#fff" stroke-width="3" paint-order="stroke">{}</text>)"
                    "\n",
                    cx, baseline, number);
  }

  before before_of(const plan_change& c) {
    if (c.from_group >= 0) {
      const int n = view.number(c.from_group);
      return {n, fmt::format("geometry {}", n)};
    }
    const auto g = model_of.find(c.node);
    const auto cg = now.find({c.node, c.index});
    if (g == model_of.end() || cg == now.end()) return {-1, "?"};
    std::vector<int> profiles;
    for (const current_instance& x : cg->second->instances) profiles.push_back(x.profile);
    return {-1, counts_text(*g->second, profiles)};
  }

  void legend() {
    bool none = false;
    for (const plan_result::node_plan& n : res.nodes)
      for (const plan_result::node_gpu& g : n.gpus) none = none || g.group < 0;
    y += 28;
    text(margin, "geometries", R"(font-weight="bold")");
    for (std::size_t i = 0; i < view.geometries.size(); ++i) {
      const geometry& geo = view.geometries[i];
      const plan_group& g = res.groups[static_cast<std::size_t>(geo.first)];
      const int number = static_cast<int>(i) + 1;
      y += 26;
      body += fmt::format(
          R"(<g class="legend" data-group="{}" data-gpus="{}">)"
          "\n"
          R"(<rect class="swatch" x="{}" y="{}" width="20" height="20" fill="{}" stroke="#222"/>)"
          "\n",
          i, geo.count, margin, y - 15, fill_of(number));
      number_text(margin + 10, y, number);
      text(margin + 28, fmt::format("geometry {}: {} on {} gpu{}: {}", number, g.gpu->slug,
                                    geo.count, plural(geo.count), group_counts(g)));
      y += 22;
      slice_svg(body, *g.gpu, layout_of(g), g.left,
                {margin + 28, y, legend_unit_w, legend_row_h, -1, false});
      width = std::max(width, 2 * margin + 28 + g.gpu->units * legend_unit_w);
      body += "</g>\n";
      y += 2 * legend_row_h + 12;
    }
    if (none) {
      y += 26;
      body += fmt::format(
          R"(<rect class="swatch" data-group="-1" x="{}" y="{}" width="20" height="20" )"
          R"(fill="{}" stroke="#888"/>)"
          "\n",
          margin, y - 15, none_fill);
      text(margin + 28, req.current ? "unchanged: a geometry the plan does not list"
                                    : "unused: in no geometry of the plan");
    }
    if (req.current && !res.changes.empty()) {
      y += 26;
      body += fmt::format(R"(<rect x="{}" y="{}" width="20" height="20" fill="#fff" stroke="{}" )"
                          R"(stroke-width="3"/><polygon points="{},{} {},{} {},{}" fill="{}"/>)"
                          "\n",
                          margin, y - 15, change_stroke, margin, y - 15, margin + 10, y - 15,
                          margin, y - 5, other_fill);
      text(margin + 28,
           "changes in the re-plan: its corner is the geometry before (grey: one not planned)");
    }
  }

  // One GPU cell at (x, y - cell + 8): `gpus` GPUs, `changed` of them change.
  void gpu_cell(int x, int number, long long index, long long gpus,
                const std::vector<std::pair<const plan_change*, before>>& changes,
                const std::string& where) {
    const int top = y - cell + 8;
    std::string attrs = fmt::format(R"(class="gpu" data-group="{}" data-gpus="{}")",
                                    number > 0 ? number - 1 : -1, gpus);
    if (index >= 0) attrs += fmt::format(R"( data-index="{}")", index);
    std::string title = fmt::format(
        "{}: {}", where, number > 0 ? fmt::format("geometry {}", number) : std::string("none"));
    if (!changes.empty()) {
      std::vector<int> from;
      std::map<std::string, long long> texts;
      for (const auto& [c, b] : changes) {
        from.push_back(b.number > 0 ? b.number - 1 : -1);
        ++texts[b.label];
      }
      std::sort(from.begin(), from.end());
      from.erase(std::unique(from.begin(), from.end()), from.end());
      attrs +=
          fmt::format(R"( data-changed="{}" data-from="{}")", changes.size(), fmt::join(from, " "));
      for (const auto& [label, n] : texts)
        title += fmt::format("; {} -> geometry {} on {} of {}", label, number, n, gpus);
    }
    body += fmt::format(R"(<rect {} x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="{}" )"
                        R"(stroke-width="{}"><title>{}</title></rect>)"
                        "\n",
                        attrs, x, top, cell, cell, fill_of(number),
                        changes.empty() ? "#222" : change_stroke, changes.empty() ? 1 : 3,
                        xml_text(title));
    if (!changes.empty()) {
      const int b = changes.front().second.number;
      body += fmt::format(R"(<polygon class="before" points="{},{} {},{} {},{}" fill="{}"/>)"
                          "\n",
                          x, top, x + 13, top, x, top + 13, b > 0 ? fill_of(b) : other_fill);
    }
    number_text(x + cell / 2 + 2, top + cell / 2 + 5, number);
  }

  void fleet() {
    y += 36;
    if (res.nodes.empty()) {
      text(margin, "gpus (no nodes named): a row per geometry", R"(font-weight="bold")");
      for (std::size_t i = 0; i < view.geometries.size(); ++i) {
        const long long n = view.geometries[i].count;
        y += pitch;
        const std::string label = fmt::format("{} gpu{}", n, plural(n));
        body += fmt::format(R"(<g class="row" data-nodes="0">)"
                            "\n");
        text(margin, label);
        gpu_cell(margin + 120, static_cast<int>(i) + 1, -1, n, {}, label);
        body += "</g>\n";
      }
      return;
    }
    const std::vector<node_fold> folds = fold_nodes(res, view);
    std::vector<std::string> labels;
    int names_w = 80;
    for (const node_fold& f : folds) {
      std::vector<std::string> names;
      for (std::size_t k : f.nodes) names.push_back(res.nodes[k].name);
      std::string label = cut(name_ranges(names), label_chars);
      if (f.nodes.size() > 1) label += fmt::format(" \xC3\x97{}", f.nodes.size());
      names_w = std::max(names_w, text_w(label) + 16);
      labels.push_back(std::move(label));
    }
    text(margin,
         fmt::format("nodes: {} in {} row{} (alike nodes drawn once, \xC3\x97N)", res.nodes.size(),
                     folds.size(), plural(folds.size())),
         R"(font-weight="bold")");
    for (std::size_t r = 0; r < folds.size(); ++r) {
      const node_fold& f = folds[r];
      y += pitch;
      body += fmt::format(R"(<g class="row" data-nodes="{}">)"
                          "\n",
                          f.nodes.size());
      text(margin, labels[r]);
      // The cells by GPU index, each with the changes of its nodes.
      std::vector<std::pair<long long, int>> cells;
      for (const auto& [number, indexes] : f.parts)
        for (long long i : indexes) cells.emplace_back(i, number);
      std::sort(cells.begin(), cells.end());
      int x = margin + names_w;
      for (const auto& [index, number] : cells) {
        std::vector<std::pair<const plan_change*, before>> changes;
        for (std::size_t k : f.nodes)
          if (const auto it = change_of.find({res.nodes[k].name, static_cast<int>(index)});
              it != change_of.end())
            changes.emplace_back(it->second, before_of(*it->second));
        gpu_cell(x, number, index, static_cast<long long>(f.nodes.size()), changes,
                 fmt::format("{} gpu {}", labels[r], index));
        x += pitch;
      }
      width = std::max(width, x + margin);
      body += "</g>\n";
    }
  }

  void changes() {
    std::vector<std::string> nodes;
    for (const plan_change& c : res.changes)
      if (std::find(nodes.begin(), nodes.end(), c.node) == nodes.end()) nodes.push_back(c.node);
    y += 36;
    text(margin,
         res.changes.empty()
             ? std::string("changes: no gpu changes")
             : fmt::format("changes: {} gpu{} on {} node{}, before \xE2\x86\x92 after",
                           res.changes.size(), plural(res.changes.size()), nodes.size(),
                           plural(nodes.size())),
         R"(font-weight="bold")");
    // Alike changes on one line, in the order they first come.
    struct kind {
      before from;
      int to = -1;
      long long gpus = 0;
      std::vector<std::string> nodes;
    };
    std::vector<kind> kinds;
    for (const plan_change& c : res.changes) {
      before b = before_of(c);
      const int to = view.number(c.to_group);
      auto it = std::find_if(kinds.begin(), kinds.end(), [&](const kind& k) {
        return k.from.number == b.number && k.from.label == b.label && k.to == to;
      });
      if (it == kinds.end()) it = kinds.insert(kinds.end(), {std::move(b), to, 0, {}});
      ++it->gpus;
      if (it->nodes.empty() || it->nodes.back() != c.node) it->nodes.push_back(c.node);
    }
    for (std::size_t i = 0; i < kinds.size() && i < change_rows; ++i) {
      const kind& k = kinds[i];
      y += pitch;
      body +=
          fmt::format(R"(<g class="change" data-from="{}" data-to="{}" data-gpus="{}">)"
                      "\n",
                      k.from.number > 0 ? k.from.number - 1 : -1, k.to > 0 ? k.to - 1 : -1, k.gpus);
      const int top = y - cell + 8;
      body += fmt::format(
          R"(<rect class="before" x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="#222"/>)"
          "\n"
          R"(<rect class="after" x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="#222"/>)"
          "\n",
          margin, top, cell, cell, k.from.number > 0 ? fill_of(k.from.number) : other_fill,
          margin + 2 * pitch, top, cell, cell, fill_of(k.to));
      number_text(margin + cell / 2, top + cell / 2 + 5, k.from.number);
      number_text(margin + 2 * pitch + cell / 2, top + cell / 2 + 5, k.to);
      body += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)"
                          "\n",
                          margin + pitch + cell / 2, y, "\xE2\x86\x92");
      const std::string to = k.to > 0 ? fmt::format("geometry {}", k.to) : std::string("MIG off");
      const std::string all = fmt::format("{} gpu{} on {} node{}: {} \xE2\x86\x92 {}; {}", k.gpus,
                                          plural(k.gpus), k.nodes.size(), plural(k.nodes.size()),
                                          k.from.label, to, name_ranges(k.nodes));
      text(margin + 3 * pitch, cut(all, 2 * label_chars));
      body += "</g>\n";
    }
    if (kinds.size() > change_rows) {
      y += pitch;
      text(margin + 3 * pitch,
           fmt::format("and {} more kinds of change (the text report lists them)",
                       kinds.size() - change_rows));
    }
  }
};

void draw(std::ostream& os, const plan_request& req, const plan_result& res) {
  picture p{req, res, view_of(req, res), {}, 0, 640, {}, {}, {}};
  for (const plan_change& c : res.changes) p.change_of[{c.node, c.index}] = &c;
  if (req.current)
    for (const current_node& n : *req.current) {
      p.model_of[n.name] = n.gpu;
      for (const current_gpu& g : n.gpus) p.now[{n.name, g.index}] = &g;
    }
  p.y = 22;
  p.text(margin, "migplan " + headline(req, res),
         R"(class="title" font-weight="bold" font-size="15")");
  p.legend();
  p.fleet();
  if (req.current) p.changes();
  const int height = p.y + 2 * margin;
  os << slice_svg_head(p.width, height, "migplan plan") << p.body << "</svg>\n";
}

}  // namespace plan_svg_detail

void plan_svg(std::ostream& os, const plan_request& req, const plan_result& res) {
  plan_svg_detail::draw(os, req, res);
}

}  // namespace migplan::cli::render

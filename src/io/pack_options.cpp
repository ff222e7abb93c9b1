// SPDX-License-Identifier: Apache-2.0
#include "io/pack_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "io/dra_options.hpp"
#include "io/emit_option.hpp"

namespace migplan::cli {

std::optional<std::string> option_conflict(const pack_options& o,
                                           std::span<const std::string> emit_kinds) {
  if (o.brief && o.batch.empty()) return "--brief needs --batch";
  // --brief's line has five fields, the preferred layout's among them.
  if (o.brief && o.json)
    return "--brief writes tab-separated lines; it does not combine with --json";
  if (o.brief && o.all)
    return "--brief writes the preferred layout only; it does not combine with --all";
  if (!o.batch.empty() && !o.items.empty()) return "give either ITEMs or --batch, not both";
  if (!o.batch.empty() && !o.current.empty()) return "give either --current or --batch, not both";
  if (o.emit) {
    if (std::find(emit_kinds.begin(), emit_kinds.end(), *o.emit) == emit_kinds.end())
      return unknown_emit_kind(*o.emit, "pack", emit_kinds);
    // --emit writes one format of one layout: the other outputs do not combine with it.
    for (const auto& [given, what] :
         {std::pair{!o.batch.empty(), "--batch"}, std::pair{o.json, "--json"},
          std::pair{o.all, "--all"}, std::pair{o.brief, "--brief"}})
      if (given)
        return fmt::format(
            "--emit writes one layout in its own format; it does not combine with {}", what);
  }
  if (!o.plot.empty() && !o.batch.empty())
    return "--plot draws the layouts of one request; it does not combine with --batch";
  if (o.plot == "-" && (o.json || o.emit))
    return fmt::format("--plot - writes the SVG on stdout; it does not combine with {}",
                       o.json ? "--json" : "--emit");
  if (o.index && o.current.empty() && !o.emit) return "--index needs --current or --emit";
  if (!o.node.empty() && (!o.emit || *o.emit != "dra")) return "--node needs --emit dra";
  if (!o.node.empty()) {
    dra_options opt;
    opt.node_name = o.node;
    opt.gpu_index = o.index.value_or(0);
    return dra_options_problem(opt);
  }
  return std::nullopt;
}

std::optional<std::string> nothing_to_pack(const pack_options& o,
                                           std::optional<std::string_view> gpu_slug) {
  if (!o.batch.empty() || !o.current.empty() || !o.items.empty()) return std::nullopt;
  if (!gpu_slug) return "no profiles given; try 'migplan pack 4g.20gb 2g.10gb 1g.5gb'";
  return fmt::format("no profiles given; 'migplan profiles --gpu {}' lists them", *gpu_slug);
}

std::optional<pack_options> plain_pack_options(std::span<const std::string> args) {
  pack_options o;
  const auto value = [](std::string_view v) { return !v.empty() && v[0] != '-'; };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.empty()) return std::nullopt;
    if (a[0] != '-') {
      o.items.push_back(a);
    } else if (a == "--json" && !o.json) {
      o.json = true;
    } else if ((a == "--all" || a == "-a") && !o.all) {
      o.all = true;
    } else if ((a == "--gpu" || a == "-g") && !o.gpu && i + 1 < args.size() && value(args[i + 1])) {
      o.gpu = args[++i];
    } else if (a.starts_with("--gpu=") && !o.gpu && value(std::string_view(a).substr(6))) {
      o.gpu = a.substr(6);
    } else {
      return std::nullopt;
    }
  }
  return o;
}

}  // namespace migplan::cli

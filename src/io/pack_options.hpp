// SPDX-License-Identifier: Apache-2.0
// `migplan pack`'s options as given, and the combinations it refuses before
// anything is read.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace migplan::cli {

/// pack's options as given.
struct pack_options {
  std::optional<std::string> gpu;  ///< --gpu; none: inferred from the profiles
  bool all = false;
  bool json = false;
  bool brief = false;
  std::string batch;
  std::string current;       ///< --current FILE: an -lgi (+ -lci) listing or a pack --json answer
  std::optional<int> index;  ///< --index N: the GPU of that listing, and --emit's -i
  std::optional<std::string> emit;  ///< --emit KIND
  std::string node;                 ///< --node NAME: the node of --emit dra
  std::string plot;                 ///< --plot FILE: the layouts as SVG ("-": stdout)
  std::vector<std::string> items;
};

/// Why these options cannot run together (one sentence naming them), or
/// nothing; --node must name slices the API takes (io/dra_options.hpp). `emit_kinds` are the names
/// --emit takes, for an unknown kind's message.
std::optional<std::string> option_conflict(const pack_options& o,
                                           std::span<const std::string> emit_kinds);

/// That `o` asks for nothing (no ITEM, --batch or --current), with the
/// nearest command that does: the README's example, or with --gpu
/// (`gpu_slug`, as resolved) where that model's profiles are listed, since
/// the example's are an a100-40gb's.
std::optional<std::string> nothing_to_pack(const pack_options& o,
                                           std::optional<std::string_view> gpu_slug);

/// The options of a plain one-shot `pack` line, `args` being what follows
/// "pack": ITEMs with --json, --all (-a) and --gpu (-g) NAME or --gpu=NAME,
/// each at most once, read without building the command-line parser, which
/// was most of such a run's time (bench/README.md "Start-up"). Nothing for
/// any other line (an option pack takes, an argument that starts with "-",
/// one given twice, an empty one): the parser reads those, and gives the
/// same options for every line read here (tests/cli/pack_plain_test.cpp).
std::optional<pack_options> plain_pack_options(std::span<const std::string> args);

}  // namespace migplan::cli

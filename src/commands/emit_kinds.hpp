// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one table of `--emit` kinds, for `pack`, `plan` and `place`: each
// kind's name and what it writes, and for each command that takes it, its
// writer (render/) and the service's check of whether an answer can be
// written so (pack/, plan/). The commands find their kinds here, and list
// them from here in --help and in the message for an unknown kind; a test
// (tests/cli/emit_kinds_test.cpp) holds the completions and man pages to
// the same lists. A new kind is a row of commands/emit_kinds.cpp plus its
// writer, and its check if some answers cannot be written so.

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/emit.hpp"
#include "model/place.hpp"
#include "model/plan.hpp"
#include "render/plan_emit.hpp"

namespace migplan::cli::emit {

/// The commands that take --emit.
enum class command { pack, plan, place };

/// "pack", "plan" or "place".
std::string_view command_name(command c);

/// How `pack` writes a kind: one GPU's preferred layout.
struct pack_writer {
  void (*write)(std::ostream& os, const emit_plan& plan) = nullptr;  ///< null: pack lacks it
  /// Why the layout cannot be written so (pack/emit_check.hpp); null: every layout can.
  std::string (*problem)(const emit_plan& plan) = nullptr;
};

/// How `plan` writes a kind: the plan's labels and layouts.
struct plan_writer {
  /// null: plan lacks it.
  void (*write)(std::ostream& os, const plan_request& req, const plan_result& res,
                const render::plan_emit_options& opt) = nullptr;
  /// Why this plan cannot be written so (plan/labels.hpp), beyond what
  /// keeps every kind from it; null: every plan that meets its demand can.
  std::string (*problem)(const plan_request& req, const plan_result& res) = nullptr;
};

/// How `place` writes a kind: the chosen place (or moves) of one instance.
struct place_writer {
  void (*write)(std::ostream& os, const place_result& r) = nullptr;  ///< null: place lacks it
};

/// One --emit kind.
struct kind {
  std::string_view name;         ///< as --emit takes it
  std::string_view description;  ///< what it writes, in one line
  pack_writer pack{};
  plan_writer plan{};
  place_writer place{};
  /// Whether `c` takes this kind.
  [[nodiscard]] bool taken_by(command c) const;
};

/// Every kind, in the order the commands list theirs.
std::span<const kind> kinds();

/// The names of the kinds `c` takes, in the table's order.
std::vector<std::string> names(command c);

/// The kind `name` exactly, if `c` takes it; else nullptr.
const kind* find(command c, std::string_view name);

/// Why `name` is no kind of `c` (io/emit_option.hpp's message).
std::string unknown(command c, std::string_view name);

/// Why `pack` cannot write `plan` as `k`, or "".
std::string problem(const kind& k, const emit_plan& plan);

/// Why `plan` cannot write its answer as `k`, or "": a plan that does not
/// meet the demand, then the kind's own check.
std::string problem(const kind& k, const plan_request& req, const plan_result& res);

}  // namespace migplan::cli::emit

// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading `--emit KIND`: the message for a kind the command does not take.
// The kinds themselves are commands/emit_kinds.hpp's table, which the
// command passes in.

#include <span>
#include <string>
#include <string_view>

namespace migplan::cli {

/// Why `given` is no --emit kind of `command` (one sentence): the nearest of
/// `kinds` when one is near, then the kinds ("kinds: a, b"), or "COMMAND
/// writes KIND" when it takes one.
std::string unknown_emit_kind(std::string_view given, std::string_view command,
                              std::span<const std::string> kinds);

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#pragma once

// Terminal styling: ANSI colours when allowed, plain text otherwise.

#include <optional>
#include <string>
#include <string_view>

namespace migplan::cli {

/// Colours used by the text renderers.
enum class tone { bold, dim, good, bad, instance };

/// Wraps text in ANSI codes when `on`; `index` picks an instance colour.
std::string paint(bool on, tone t, std::string_view text, int index = 0);

/// "19.50 GiB" from GiB x 100; "?" when unknown.
std::string gib_text(std::optional<int> gib_x100);

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan place`'s registration (its own header so that adding it left
// app.hpp, which every command includes, as it was).

#include "app.hpp"

namespace migplan::cli {

/// Registers `place` (see add_pack in app.hpp).
void add_place(CLI::App& app, context& ctx);

}  // namespace migplan::cli

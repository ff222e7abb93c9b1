// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan simulate`'s registration (its own header so that adding it left
// app.hpp, which every command includes, as it was).

#include "app.hpp"

namespace migplan::cli {

/// Registers `simulate` (see add_pack in app.hpp).
void add_simulate(CLI::App& app, context& ctx);

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#pragma once

// The checking pass of `migplan check`, between reading (io/check_input) and
// printing (render/check): resolves what a file names and asks the core
// whether each geometry fits.

#include <iosfwd>
#include <migplan/gpu.hpp>

#include "io/source.hpp"
#include "model/check.hpp"

namespace migplan::cli::check {

/// Reads, parses and checks one source: every geometry on every model it
/// applies to (only `forced` when given), diagnostics sorted by position;
/// with `verbose`, a note for each model a geometry fits on.
file_check check_source(const source& s, std::istream& in, const gpu_model* forced, bool verbose);

/// Adds what `f` holds to `s`, and its exit code (the worst file wins).
void tally(summary& s, const file_check& f);

}  // namespace migplan::cli::check

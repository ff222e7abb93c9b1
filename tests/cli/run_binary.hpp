// SPDX-License-Identifier: Apache-2.0
#pragma once

// Runs the built migplan binary for golden tests: stdout, stderr and the exit
// code come back separately.

#include <string>
#include <vector>

namespace migplan::test {

/// What one run of the binary produced.
struct run_result {
  std::string out;  ///< standard output
  std::string err;  ///< standard error
  int code = -1;    ///< exit code (-1 when it did not exit normally, e.g. a crash)
};

/// Runs MIGPLAN_BINARY with `args` (no shell involved), feeding `input` on
/// standard input, with NO_COLOR unset unless `env` sets it ("NAME=value" entries).
run_result run_migplan(const std::vector<std::string>& args, const std::string& input = "",
                       const std::vector<std::string>& env = {});

/// The bytes of a file ("" when it cannot be read).
std::string read_file(const std::string& path);

/// Path of a file under tests/ (MIGPLAN_TEST_DIR).
std::string test_path(const std::string& rel);

/// Path of a file under the source root (MIGPLAN_SOURCE_DIR).
std::string source_path(const std::string& rel);

}  // namespace migplan::test

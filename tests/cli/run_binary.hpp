// SPDX-License-Identifier: Apache-2.0
#pragma once

// Runs the built migplan binary for golden tests: stdout, stderr and the exit
// code come back separately.

#include <cstdint>
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
/// standard input, with NO_COLOR unset unless `env` sets it ("NAME=value"
/// entries, which replace any inherited variable of the same name).
run_result run_migplan(const std::vector<std::string>& args, const std::string& input = "",
                       const std::vector<std::string>& env = {});

/// Like run_migplan, but standard output is a pseudo-terminal, so the binary
/// sees isatty(1) true; `out` is what it wrote there, byte for byte (the
/// terminal does no output processing, so "\n" stays "\n"). Standard input is
/// empty and standard error a file, as in run_migplan. A run that has not
/// finished after `timeout_s` seconds is killed: `code` is -1 and `err` ends
/// with "run_migplan_tty: timed out".
run_result run_migplan_tty(const std::vector<std::string>& args,
                           const std::vector<std::string>& env = {}, int timeout_s = 20);

/// A file under the system's temporary directory, named after `name` and
/// this process (tests run in parallel), removed at the end; with
/// `sparse_mib`, `text` then a hole up to that many MiB (read as NUL bytes).
class temp_file {
 public:
  temp_file(const std::string& name, const std::string& text, std::uintmax_t sparse_mib = 0);
  ~temp_file();
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// The bytes of a file ("" when it cannot be read).
std::string read_file(const std::string& path);

/// `text` with its comment lines joined where they wrap ("\n# " to " "), so
/// that a test can look for a sentence wherever the writer broke its lines.
std::string unwrapped(std::string text);

/// Path of a file under tests/ (MIGPLAN_TEST_DIR).
std::string test_path(const std::string& rel);

/// The path of a fixture of `plan` (tests/fixtures/plan/NAME).
std::string plan_fixture(const std::string& name);

/// Path of a file under the source root (MIGPLAN_SOURCE_DIR).
std::string source_path(const std::string& rel);

/// The " (did you mean ...?)" that `pack -g GPU PROFILE` gives an unknown
/// PROFILE: suggestions among that one model's profiles, the reference for
/// readers that should suggest among a fleet's models ("" when none).
std::string pack_did_you_mean(const std::string& gpu, const std::string& profile);

}  // namespace migplan::test

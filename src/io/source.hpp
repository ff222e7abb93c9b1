// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one way migplan reads its inputs: a named file, or the context's input
// stream for "-"; and the list of files a `check` argument stands for.

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"

namespace migplan::cli {

/// Reads a whole file, or all of `in` for "-". The error says why not
/// ("No such file or directory", "is a directory"); the caller names the file.
result<std::string> read_source(const std::string& path, std::istream& in);

/// One input to check: named on the command line, or found under a directory.
struct source {
  std::string path;             ///< to open ("-" for standard input)
  std::string shown;            ///< for diagnostics ("<stdin>" for "-")
  std::string empty_dir_error;  ///< set for a directory with nothing to check
};

/// The inputs `args` stand for: files and "-" as given, each directory as
/// every *.yaml, *.yml and *.json file under it, sorted.
std::vector<source> expand_sources(const std::vector<std::string>& args);

/// True when a source is JSON: by its extension, or for standard input by its
/// first character ('{' or '[').
bool looks_json(const source& s, std::string_view text);

}  // namespace migplan::cli

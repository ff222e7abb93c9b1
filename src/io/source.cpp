// SPDX-License-Identifier: Apache-2.0
#include "io/source.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace migplan::cli {

result<std::string> read_source(const std::string& path) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return error{"cannot read '" + path + "': is a directory"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return error{"cannot read '" + path + "': " + std::strerror(errno)};
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return error{"cannot read '" + path + "': " + std::strerror(errno)};
  return text;
}

std::string display_path(std::string_view path) {
  return path == "-" ? std::string("<stdin>") : std::string(path);
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
// migplan's entry point: wires standard streams into the application.

#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "app.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv, argv + argc);
  migplan::cli::context ctx{std::cout, std::cerr, std::cin,
                            migplan::cli::color_allowed(isatty(STDOUT_FILENO) == 1)};
  const int code = migplan::cli::run(args, ctx);
  std::cout.flush();
  return code;
}

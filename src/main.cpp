// SPDX-License-Identifier: Apache-2.0
// migplan's entry point: wires standard streams into the application, and
// turns what can still go wrong outside a command (a write that fails, memory
// that runs out) into one message and exit code 2.

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "app.hpp"
#include "error.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  int code = migplan::cli::exit_bad_input;
  try {
    std::vector<std::string> args(argv, argv + argc);
    migplan::cli::context ctx{std::cout, std::cerr, std::cin,
                              migplan::cli::color_allowed(isatty(STDOUT_FILENO) == 1)};
    ctx.err_tty = isatty(STDERR_FILENO) == 1;
    errno = 0;
    code = migplan::cli::run(args, ctx);
    std::cout.flush();
    // A full disk or a closed pipe: the results did not arrive, so the run
    // did not succeed, whatever the command decided.
    if (!std::cout.good()) {
      const int why = errno;
      std::cerr << "migplan: write error: "
                << (why != 0 ? std::strerror(why) : "standard output is not writable") << "\n";
      return migplan::cli::exit_bad_input;
    }
  } catch (const std::bad_alloc&) {
    std::cerr << "migplan: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "migplan: internal error: " << e.what() << "\n";
  }
  return code;
}

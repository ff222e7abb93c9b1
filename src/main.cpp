// SPDX-License-Identifier: Apache-2.0
// migplan's entry point: wires standard streams into the application, and
// turns what can still go wrong outside a command (a write that fails, memory
// that runs out) into one message and exit code 2.

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <ext/stdio_filebuf.h>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "app.hpp"
#include "error.hpp"

namespace {

// Standard input and output through buffers of their own, not stdio's: what
// std::ios::sync_with_stdio(false) gives them, without the buffers it also
// makes for std::cerr and the wide streams (104 of its 120 KiB, whose pages
// a one-shot run then faults in: bench/README.md "Start-up"). std::cerr
// stays unbuffered, through stderr. The buffers are never destroyed: the
// streams flush into them until the very end of the process.
void own_standard_buffers() {
  using buf = __gnu_cxx::stdio_filebuf<char>;
  std::cin.rdbuf(new buf(stdin, std::ios::in));     // NOLINT: lives as long as the process
  std::cout.rdbuf(new buf(stdout, std::ios::out));  // NOLINT: lives as long as the process
}

}  // namespace

int main(int argc, char** argv) {
  own_standard_buffers();
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

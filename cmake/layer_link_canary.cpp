// SPDX-License-Identifier: Apache-2.0
// The layer link check's canary (cmake/layer_links.cmake): an io-layer
// program that calls a render/ function, as an io/ file that declared the
// function itself would. Linked with io's objects alone it must fail to
// link; it is never run.
#include "render/diagnostics.hpp"

int main(int argc, char** argv) {
  return migplan::cli::render::github_escape_data(argc > 1 ? argv[1] : "").empty() ? 0 : 1;
}

// SPDX-License-Identifier: Apache-2.0
// Fuzz target: a line of request items, parsed and, where it resolves on a
// model, solved and explained. Nothing may crash, hang or trip a sanitizer.

#include <cstddef>
#include <cstdint>
#include <migplan/catalog.hpp>
#include <migplan/explain.hpp>
#include <migplan/search.hpp>
#include <string>
#include <string_view>

#include "io/request.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace migplan;
  const std::string line(reinterpret_cast<const char*>(data), size);
  const auto words = cli::split_items(line);
  auto tokens = cli::parse_items(words);
  if (!tokens) return 0;
  for (const gpu_model* g : cli::candidate_models(*tokens)) {
    auto items = cli::resolve_items(*g, *tokens);
    if (!items || items->size() > 64) continue;
    const solution s = solve(*g, *items);
    if (!s.feasible()) {
      (void)explain(*g, *items, s.why);
      (void)closest_fits(*g, *items);
    }
  }
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// Fuzz target: `migplan simulate`'s trace reader on the same text as CSV (and
// Alibaba's pod lists), YAML and JSON. It must report, never throw or crash,
// and every row it accepts must keep the limits the replay relies on.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "io/trace.hpp"
#include "models.hpp"

namespace {

using namespace migplan::cli;

void require(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const plan_file_format f :
       {plan_file_format::csv, plan_file_format::yaml, plan_file_format::json}) {
    const auto t = parse_trace(migplan::cli::builtin_models(), text, "fuzz", f);
    if (!t) {
      require(t.error().message.starts_with("fuzz"));
      continue;
    }
    require(!t->rows.empty());
    long long pods = 0;
    for (const trace_row& r : t->rows) {
      require(r.count >= 1 && r.instances >= 1 && r.instances <= max_pod_instances);
      require(!r.end || *r.end >= r.start);
      require(where(r).starts_with("fuzz:"));
      pods += r.count;
    }
    require(pods <= max_trace_pods);
  }
  return 0;
}

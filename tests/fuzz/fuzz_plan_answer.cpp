// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the reader of `plan --json` answers that `simulate
// --static-plan` replays. It must report, never throw or crash, and every
// group it accepts must be a legal geometry of the model: a count of at least
// one, each instance a profile of the model at a start it allows, none
// overlapping another.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <migplan/catalog.hpp>
#include <string_view>

#include "io/plan_answer.hpp"

namespace {

using namespace migplan;
using namespace migplan::cli;

void require(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const std::string_view slug : {"h100-80gb", "a30"}) {
    const gpu_model* gpu = find_model(slug);
    require(gpu != nullptr);
    const auto groups = parse_plan_answer(text, "fuzz", *gpu);
    if (!groups) {
      require(groups.error().message.starts_with("fuzz"));
      continue;
    }
    require(!groups->empty());
    for (const plan_group& g : *groups) {
      require(g.gpu == gpu && g.count >= 1);
      unit_mask used = 0;
      for (const planned_instance& in : g.instances) {
        require(in.where.profile >= 0 &&
                static_cast<std::size_t>(in.where.profile) < gpu->profiles.size());
        const profile& p = gpu->profiles[static_cast<std::size_t>(in.where.profile)];
        require(p.allows_start(in.where.start));
        require((p.mask_at(in.where.start) & used) == 0);
        used |= p.mask_at(in.where.start);
      }
    }
  }
  return 0;
}

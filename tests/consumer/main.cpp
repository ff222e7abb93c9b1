// SPDX-License-Identifier: Apache-2.0
// Embeds the core: does 3g.20gb + 2x2g.10gb fit on an A100-40GB, and how many layouts?
#include <cstdio>
#include <migplan/migplan.hpp>
#include <vector>

int main() {
  const migplan::gpu_model* gpu = migplan::find_model("a100-40gb");
  if (gpu == nullptr) return 1;
  const int p3 = migplan::find_profile(*gpu, "3g.20gb");
  const int p2 = migplan::find_profile(*gpu, "2g.10gb");
  const std::vector<migplan::item> request{{p3}, {p2}, {p2}};
  const migplan::solution s = migplan::solve(*gpu, request);
  std::printf("feasible=%d layouts=%llu\n", s.feasible() ? 1 : 0,
              static_cast<unsigned long long>(s.layout_count));
  return s.feasible() ? 0 : 1;
}

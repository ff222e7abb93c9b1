// SPDX-License-Identifier: Apache-2.0
#pragma once

// `nvidia-smi mig -lgi` tables for tests, framed as nvidia-smi frames them
// (shared by the reader's tests and pack --current's).

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace migplan::test {

/// A -lgi table holding `rows` (each a line from lgi_line).
inline std::string lgi_table(const std::vector<std::string>& rows) {
  std::string t =
      "+-------------------------------------------------------+\n"
      "| GPU instances:                                        |\n"
      "| GPU   Name             Profile  Instance   Placement  |\n"
      "|                          ID       ID       Start:Size |\n"
      "|=======================================================|\n";
  for (const auto& r : rows)
    t += r + "\n+-------------------------------------------------------+\n";
  return t;
}

/// One -lgi row: "|   0  MIG 1g.5gb        19        1      0:1     |".
inline std::string lgi_line(int gpu, std::string_view name, int profile, int id,
                            std::string_view at) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "| %3d  MIG %-12s  %5d    %5d    %8s     |", gpu,
                std::string(name).c_str(), profile, id, std::string(at).c_str());
  return buf;
}

}  // namespace migplan::test

// SPDX-License-Identifier: Apache-2.0
// The instance listings: GPU instances (-lgi) and compute instances (-lci).
#include <fmt/format.h>

#include <array>
#include <map>
#include <tuple>
#include <utility>

#include "io/smi.hpp"
#include "io/smi_text.hpp"

namespace migplan::cli::smi {

using namespace detail;

read_result<lgi_listing> read_lgi(std::string_view text) {
  // Per GPU: which row holds each unit, and where each instance ID was first listed.
  std::map<int, std::array<int, smi_units>> owner;
  std::map<std::pair<int, int>, int> id_at;
  return read_boxed<lgi_listing>(
      text, listing_kind::lgi, [&](row_cells& c, const lgi_listing& out) {
        lgi_row r;
        r.gpu = c.whole(0, "GPU index");
        r.name = c.name(1);
        r.profile_id = c.whole(2, "profile ID");
        r.instance_id = c.whole(3, "instance ID");
        r.at = c.place(4);
        c.once(id_at, {r.gpu, r.instance_id},
               fmt::format("GPU {} instance ID {}", r.gpu, r.instance_id));
        if (c.failed) return r;
        auto [o, created] = owner.try_emplace(r.gpu);
        if (created) o->second.fill(-1);
        for (int u = r.at.start; u < r.at.start + r.at.size; ++u) {
          const int other = o->second[static_cast<std::size_t>(u)];
          if (other < 0) continue;
          const lgi_row& x = out.rows[static_cast<std::size_t>(other)];
          c.check(fail(
              c.line(),
              fmt::format("GPU {} instance {} at {}:{} overlaps instance {} at {}:{} (line {})",
                          r.gpu, r.instance_id, r.at.start, r.at.size, x.instance_id, x.at.start,
                          x.at.size, x.line)));
          return r;
        }
        for (int u = r.at.start; u < r.at.start + r.at.size; ++u)
          o->second[static_cast<std::size_t>(u)] = static_cast<int>(out.rows.size());
        return r;
      });
}

read_result<lci_listing> read_lci(std::string_view text) {
  std::map<std::tuple<int, int, int>, int> id_at;  // (GPU, GI, CI) -> line
  return read_boxed<lci_listing>(text, listing_kind::lci, [&](row_cells& c, const lci_listing&) {
    lci_row r;
    read_ci_head(c, r);
    r.profile_id = c.whole(3, "compute instance profile ID");
    r.ci_id = c.whole(4, "compute instance ID");
    if (c.size() > 5) r.at = c.place(5);
    c.once(id_at, {r.gpu, r.gi_id, r.ci_id},
           fmt::format("GPU {} GPU instance {} compute instance ID {}", r.gpu, r.gi_id, r.ci_id));
    return r;
  });
}

}  // namespace migplan::cli::smi

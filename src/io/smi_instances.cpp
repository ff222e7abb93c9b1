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

namespace {

// Which row holds each unit (or compute slice) of one GPU (or GPU instance); -1 for none.
struct slots {
  std::array<int, smi_units> row;
  slots() { row.fill(-1); }
};

// Gives the units of `at` to row `index`; or, where a row holds one of them
// already, gives nothing and returns that row.
int claim(slots& s, placement at, std::size_t index) {
  for (int u = at.start; u < at.start + at.size; ++u)
    if (const int other = s.row[static_cast<std::size_t>(u)]; other >= 0) return other;
  for (int u = at.start; u < at.start + at.size; ++u)
    s.row[static_cast<std::size_t>(u)] = static_cast<int>(index);
  return -1;
}

}  // namespace

read_result<lgi_listing> read_lgi(std::string_view text) {
  // Per GPU: which row holds each unit, and where each instance ID was first listed.
  std::map<int, slots> owner;
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
        const int other = claim(owner[r.gpu], r.at, out.rows.size());
        if (other < 0) return r;
        const lgi_row& x = out.rows[static_cast<std::size_t>(other)];
        c.check(
            fail(c.line(),
                 fmt::format("GPU {} instance {} at {}:{} overlaps instance {} at {}:{} (line {})",
                             r.gpu, r.instance_id, r.at.start, r.at.size, x.instance_id, x.at.start,
                             x.at.size, x.line)));
        return r;
      });
}

read_result<lci_listing> read_lci(std::string_view text) {
  std::map<std::tuple<int, int, int>, int> id_at;  // (GPU, GI, CI) -> line
  // Per GPU instance: which row holds each compute slice; CIs own their slices.
  std::map<std::pair<int, int>, slots> owner;
  return read_boxed<lci_listing>(
      text, listing_kind::lci, [&](row_cells& c, const lci_listing& out) {
        lci_row r;
        read_ci_head(c, r);
        r.profile_id = c.whole(3, "compute instance profile ID");
        r.ci_id = c.whole(4, "compute instance ID");
        if (c.size() > 5) r.at = c.place(5);
        c.once(
            id_at, {r.gpu, r.gi_id, r.ci_id},
            fmt::format("GPU {} GPU instance {} compute instance ID {}", r.gpu, r.gi_id, r.ci_id));
        if (c.failed || !r.at) return r;
        const int other = claim(owner[{r.gpu, r.gi_id}], *r.at, out.rows.size());
        if (other < 0) return r;
        const lci_row& x = out.rows[static_cast<std::size_t>(other)];
        c.check(fail(c.line(), fmt::format("GPU {} GPU instance {} compute instance {} at {}:{} "
                                           "overlaps compute instance {} at {}:{} (line {})",
                                           r.gpu, r.gi_id, r.ci_id, r.at->start, r.at->size,
                                           x.ci_id, x.at->start, x.at->size, x.line)));
        return r;
      });
}

}  // namespace migplan::cli::smi

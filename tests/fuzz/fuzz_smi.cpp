// SPDX-License-Identifier: Apache-2.0
// Fuzz target: any text through the five nvidia-smi MIG listing readers and
// detect_listing, and pack --current's reader. A reader must answer or report, never throw or
// crash, and what it answers must keep its promises: placements inside the 16 units, no overlapping
// GPU instances, every error and note at a line of the text.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "io/current.hpp"
#include "io/smi.hpp"
#include "models.hpp"

namespace {

using namespace migplan::cli::smi;

void require(bool ok) {
  if (!ok) std::abort();
}

int line_count(std::string_view text) {
  int n = 1;
  for (char c : text) n += c == '\n';
  return n;
}

template <class Listing>
void check_common(std::string_view text, const read_result<Listing>& r) {
  if (!r) {
    if (text.size() > max_smi_bytes) return;
    require(r.error().file.empty() && r.error().line >= 1 && r.error().line <= line_count(text));
    return;
  }
  for (const auto& n : r->notes) require(n.line >= 1 && n.line <= line_count(text));
  require(r->rows.size() <= max_smi_rows);
  for (const auto& row : r->rows) require(row.line >= 1 && row.line <= line_count(text));
}

void check_placement(const placement& p) {
  require(p.start >= 0 && p.size >= 1 && p.start + p.size <= smi_units);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)detect_listing(text);

  const auto lgip = read_lgip(text);
  check_common(text, lgip);
  if (lgip)
    for (const auto& r : lgip->rows) require(r.free <= r.total && r.memory_gib_x100 >= 0);

  const auto lgipp = read_lgipp(text);
  check_common(text, lgipp);
  if (lgipp)
    for (const auto& r : lgipp->rows) {
      require(!r.placements.empty());
      for (const auto& p : r.placements) check_placement(p);
    }

  const auto lgi = read_lgi(text);
  check_common(text, lgi);
  if (lgi) {
    for (std::size_t i = 0; i < lgi->rows.size(); ++i) {
      const auto& a = lgi->rows[i];
      check_placement(a.at);
      for (std::size_t j = 0; j < i; ++j) {
        const auto& b = lgi->rows[j];
        if (a.gpu != b.gpu) continue;
        require(a.instance_id != b.instance_id);
        require(a.at.start + a.at.size <= b.at.start || b.at.start + b.at.size <= a.at.start);
      }
    }
  }

  const auto lci = read_lci(text);
  check_common(text, lci);
  if (lci)
    for (const auto& r : lci->rows)
      if (r.at) check_placement(*r.at);

  check_common(text, read_lcip(text));

  // pack --current: a listing, a JSON answer, or answers one per line. What
  // it reads is one model's, and with --index that GPU alone.
  using migplan::cli::read_current;
  const auto& models = migplan::cli::builtin_models();
  for (const std::optional<int> index : {std::optional<int>{}, std::optional<int>{2}}) {
    const auto cur =
        read_current(models, text, "fuzz", migplan::find_model(models, "a100-40gb"), index);
    if (!cur) continue;
    require(cur->gpu != nullptr && !cur->gpus.empty());
    if (index)
      for (const auto& g : cur->gpus) require(!g.index || *g.index == *index);
  }
  const auto answer = read_current(models, text, "fuzz", nullptr, std::nullopt);
  require(!answer || (answer->from_json && answer->gpu != nullptr));
  return 0;
}

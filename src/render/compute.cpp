// SPDX-License-Identifier: Apache-2.0
#include "render/compute.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "messages.hpp"
#include "render/diagram.hpp"
#include "render/style.hpp"
#include "text.hpp"

namespace migplan::cli {

std::string_view answer_reason_name(const pack_answer& a) {
  return a.compute.rejected ? ci_reason_name(a.compute.rejected->code)
                            : reason_name(a.sol.why.code);
}

namespace render {
namespace {

std::string slices_text(int start, int size) {
  return size == 1 ? fmt::format("{}", start) : fmt::format("{}-{}", start, start + size - 1);
}

// The item's CIs, or nullptr when the answer carries none for it.
const gi_compute* compute_of(const pack_answer& a, int item_index) {
  if (item_index < 0 || static_cast<std::size_t>(item_index) >= a.compute.gis.size())
    return nullptr;
  return &a.compute.gis[static_cast<std::size_t>(item_index)];
}

}  // namespace

std::string request_text(const pack_answer& a) {
  if (!a.compute.any || a.compute.gis.size() != a.items.size()) return items_text(*a.gpu, a.items);
  // Equal GIs next to each other as "Nx".
  std::vector<std::pair<std::string, int>> groups;
  for (std::size_t k = 0; k < a.items.size(); ++k) {
    const gi_compute& c = a.compute.gis[k];
    const std::string shown = c.existing ? item_text(*a.gpu, a.items[k]) : c.shown;
    if (!groups.empty() && groups.back().first == shown)
      ++groups.back().second;
    else
      groups.emplace_back(shown, 1);
  }
  std::string out;
  for (const auto& [text, n] : groups)
    out += fmt::format("{}{}{}", out.empty() ? "" : " ", n > 1 ? fmt::format("{}x", n) : "", text);
  return out;
}

void compute_text_block(std::ostream& out, const pack_answer& a, const layout& l, bool color) {
  if (!a.compute.any) return;
  const gpu_model& g = *a.gpu;
  const std::vector<int> owners = items_of(a.items, l);
  out << "\n  compute instances: the compute slices of each GPU instance, by owner\n";
  // One line per GI: each slice as the name of the CI that owns it (A0, A1, ...).
  std::vector<std::string> rows;
  for (int i = 0; i < l.size(); ++i) {
    const profile& p = prof(g, l[i].profile);
    const std::string letter(1, instance_letter(i));
    const gi_compute* c = compute_of(a, owners[static_cast<std::size_t>(i)]);
    std::string cells;
    if (c == nullptr || c->existing) {
      cells = "(exists; its CIs as listed above)";
    } else {
      std::vector<std::string> slot(static_cast<std::size_t>(p.compute_slices), "..");
      if (c->where.empty()) {
        std::fill(slot.begin(), slot.end(), letter + "0");
      } else {
        for (std::size_t k = 0; k < c->where.size(); ++k) {
          const ci_instance& ci = c->where[k];
          const int size = p.ci_profiles[static_cast<std::size_t>(ci.ci)].compute_slices;
          for (int s = ci.start; s < ci.start + size; ++s)
            slot[static_cast<std::size_t>(s)] = fmt::format("{}{}", letter, k);
        }
      }
      cells = fmt::format("[{}]", fmt::join(slot, " "));
    }
    out << fmt::format("  {} {:<16} {}\n",
                       paint(color, tone::instance, fmt::format("{:<2}", letter), i), p.name,
                       cells);
    if (c == nullptr || c->existing) continue;
    if (c->where.empty()) {
      rows.push_back(
          fmt::format("  {:<4}{:<16} {:>3} {:>6} {:>5}  CI profiles unknown; -C "
                      "creates the full CI",
                      letter + "0", p.name, "?", slices_text(0, p.compute_slices), "?"));
      continue;
    }
    for (std::size_t k = 0; k < c->where.size(); ++k) {
      const ci_instance& ci = c->where[k];
      const ci_profile& cp = p.ci_profiles[static_cast<std::size_t>(ci.ci)];
      const bool inferred = cp.prov.inferred != field::none;
      rows.push_back(fmt::format("  {:<4}{:<16} {:>3} {:>6} {:>5}{}",
                                 fmt::format("{}{}", letter, k), cp.name, cp.id,
                                 slices_text(ci.start, cp.compute_slices),
                                 cp.sm_count ? fmt::format("{}", *cp.sm_count) : "?",
                                 inferred ? "  (values inferred)" : ""));
    }
  }
  out << fmt::format("  {:<4}{:<16} {:>3} {:>6} {:>5}\n", "", "CI profile", "id", "slices", "SMs");
  for (const std::string& r : rows) out << r << "\n";
  out << "  CI starts follow an inferred rule (no -lcipp capture exists): "
         "doc/compute-instances.md\n";
}

void write_compute_instances(json_writer& w, const pack_answer& a, const layout& l,
                             const std::vector<int>& owners, int i) {
  const int k = owners[static_cast<std::size_t>(i)];
  // An existing instance (pack --current: the first items) has its CIs under `current`.
  if (k < 0 || (a.current && static_cast<std::size_t>(k) < a.current->size())) return;
  const gi_compute* c = compute_of(a, k);
  if (c != nullptr && c->existing) return;
  const profile& p = prof(*a.gpu, l[i].profile);
  gi_compute by_default;  // no ITEM named a CI: the default one
  if (c == nullptr) {
    if (const int d = default_ci(p); d >= 0) by_default.where.push_back({d, 0});
    c = &by_default;
  }
  w.key("compute_instances").begin_array();
  if (c->where.empty()) {
    // CI profiles unknown: -C creates the CI that owns every slice, its ID unknown.
    w.begin_object().key("profile").value(p.name).key("profile_id").null();
    w.key("start").value(0).key("size").value(p.compute_slices).end_object();
  }
  for (const ci_instance& ci : c->where) {
    const ci_profile& cp = p.ci_profiles[static_cast<std::size_t>(ci.ci)];
    w.begin_object().key("profile").value(cp.name).key("profile_id").value(cp.id);
    w.key("start").value(ci.start).key("size").value(cp.compute_slices).end_object();
  }
  w.end_array();
}

void write_request_compute(json_writer& w, const pack_answer& a) {
  w.key("request_compute_instances").begin_array();
  for (std::size_t k = 0; k < a.items.size(); ++k) {
    const gi_compute* c = compute_of(a, static_cast<int>(k));
    if (c == nullptr || c->asked.empty()) {
      w.null();
      continue;
    }
    const profile& p = prof(*a.gpu, a.items[k].profile);
    w.begin_array();
    for (int ci : c->asked) w.value(p.ci_profiles[static_cast<std::size_t>(ci)].name);
    w.end_array();
  }
  w.end_array();
}

void write_ci_reason(json_writer& w, const ci_rejection& r) {
  w.begin_object().key("code").value(ci_reason_name(r.code)).key("message").value(r.message);
  w.key("profiles").begin_array().value(r.gi_profile).end_array();
  w.key("ci_profiles").begin_array();
  for (const std::string& c : r.ci_profiles) w.value(c);
  w.end_array().end_object();
}

}  // namespace render
}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
#include "render/fit.hpp"

#include <fmt/format.h>

#include <ostream>
#include <string>
#include <vector>

#include "messages.hpp"
#include "render/inferred.hpp"
#include "render/json.hpp"
#include "render/style.hpp"
#include "text.hpp"

namespace migplan::cli::render {
namespace {

std::string sms_text(const need& n) {
  return n.sms ? fmt::format(" and {} SMs", *n.sms) : std::string();
}

}  // namespace

void fit_text(std::ostream& os, const gpu_model& gpu, const need& n, const sizing& s) {
  if (s.profile >= 0) {
    const profile& p = prof(gpu, s.profile);
    os << fmt::format("{}: {} ({}, {} SMs) is the smallest profile with at least {} MiB{}\n",
                      gpu.slug, p.name, gib_text(p.memory_gib_x100),
                      p.sm_count ? fmt::format("{}", *p.sm_count) : "?", n.memory_mib, sms_text(n));
    os << fmt::format("one gpu holds {} of it: {}\n", s.per_gpu,
                      layout_text(gpu, s.full_gpu.where));
    os << fmt::format("{} instance{} need{} {} gpu{}", n.instances, plural(n.instances),
                      n.instances == 1 ? "s" : "", s.gpus, plural(s.gpus));
    // With one gpu, "the last" is the only one and holds all n instances.
    if (s.gpus > 1 && s.last_gpu != s.per_gpu)
      os << fmt::format(" (the last holds {})", s.last_gpu);
    os << "\n";
    os << fmt::format("each full gpu strands {} unit{} ({}) and {} compute slice{}\n",
                      s.strands.units, plural(s.strands.units), gib_text(s.strands.memory_gib_x100),
                      s.strands.compute_slices, plural(s.strands.compute_slices));
  } else if (s.largest < 0) {
    // With --sms, a profile of known memory and unknown SMs is not considered either.
    os << fmt::format(
        "{}: the {} of its profiles {} unknown, so it cannot be sized (coverage: {})\n", gpu.slug,
        n.sms ? "memory or SM counts" : "memory", n.sms ? "are" : "is", gpu.coverage_note);
  } else {
    // Where some profiles' values are unknown (the note below names them), one of
    // them may be big enough: "no profile" alone would say none is.
    os << fmt::format("{}: no profile{} has at least {} MiB{}; the largest is {} ({})\n", gpu.slug,
                      s.unknown.empty() ? "" : " considered", n.memory_mib, sms_text(n),
                      prof(gpu, s.largest).name, gib_text(prof(gpu, s.largest).memory_gib_x100));
  }
  if (!s.unknown.empty()) {
    std::vector<std::string_view> names;
    for (int p : s.unknown) names.push_back(prof(gpu, p).name);
    os << fmt::format("note: not considered, values unknown: {}\n", fmt::join(names, ", "));
  }
  // Inferred values are shown, never hidden (the JSON's profile lists them).
  if (s.profile >= 0) {
    const std::vector<int> chosen{s.profile};
    const std::string note = inferred_note(gpu, inferred_among(gpu, chosen));
    if (!note.empty()) os << note.substr(1);  // the note's own blank line left out, as above
  }
}

void fit_json(std::ostream& os, const gpu_model& gpu, const need& n, const sizing& s,
              const layout_capacity& full) {
  write_document(os, [&](json_writer& w) {
    w.key("gpu");
    write_gpu(w, gpu);
    w.key("need").begin_object();
    w.key("memory_mib").value(n.memory_mib).key("sms").value(n.sms);
    w.key("count").value(n.instances).end_object();
    w.key("fits").value(s.profile >= 0);
    if (s.profile >= 0) {
      w.key("profile");
      write_profile(w, prof(gpu, s.profile));
      w.key("per_gpu").value(s.per_gpu).key("gpus").value(s.gpus);
      w.key("last_gpu_instances").value(s.last_gpu);
      w.key("layout");
      write_layout(w, gpu, s.full_gpu, full);
      w.key("stranded_per_gpu");
      write_stranded(w, s.strands);
    } else {
      w.key("largest");
      if (s.largest >= 0)
        w.value(prof(gpu, s.largest).name);
      else
        w.null();
    }
    w.key("unknown").begin_array();
    for (int p : s.unknown) w.value(prof(gpu, p).name);
    w.end_array();
  });
}

}  // namespace migplan::cli::render

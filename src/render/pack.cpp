// SPDX-License-Identifier: Apache-2.0
#include "render/pack.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <iterator>
#include <limits>
#include <ostream>

#include "messages.hpp"
#include "quote.hpp"
#include "render/compute.hpp"
#include "render/diagram.hpp"
#include "render/inferred.hpp"
#include "render/json.hpp"
#include "render/style.hpp"
#include "text.hpp"

namespace migplan::cli::render {
namespace {

std::string span_text(int start, int size) {
  return size == 1 ? fmt::format("{}", start) : fmt::format("{}-{}", start, start + size - 1);
}

// "0,3,6": the units of a mask.
std::string units_text(const gpu_model& g, unit_mask m) {
  std::string out;
  for (int u = 0; u < g.units; ++u)
    if ((m >> u) & 1u) out += fmt::format("{}{}", out.empty() ? "" : ",", u);
  return out;
}

std::string slugs_text(const std::vector<const gpu_model*>& models) {
  std::string out;
  for (const gpu_model* m : models) out += fmt::format("{}{}", out.empty() ? "" : ", ", m->slug);
  return out;
}

// The profiles of the request with inferred values, each once, in request order.
std::vector<int> inferred_profiles(const pack_answer& a) {
  std::vector<int> asked;
  for (const item& it : a.items) asked.push_back(it.profile);
  return inferred_among(*a.gpu, asked);
}

// "3g.20gb@4 (GI 1)", with its compute instances when an -lci listing came:
// "3g.20gb@4 (GI 1; CI 0 1c.3g.20gb@0, CI 1 2c.3g.20gb@1)".
std::string current_one(const gpu_model& g, const current_instance& c) {
  std::string out = fmt::format("{}@{}", prof(g, c.profile).name, c.start);
  std::vector<std::string> notes;
  if (c.instance_id) notes.push_back(fmt::format("GI {}", *c.instance_id));
  for (const current_ci& ci : c.compute)
    notes.push_back(fmt::format("CI {} {}{}", ci.instance_id, clip_token(ci.profile),
                                ci.start ? fmt::format("@{}", *ci.start) : ""));
  if (!notes.empty()) out += fmt::format(" ({})", fmt::join(notes, "; "));
  return out;
}

// "3g.20gb@4 (GI 1), 3g.20gb@0 (GI 2)": existing instances of --current.
std::string current_text(const gpu_model& g, const std::vector<current_instance>& current) {
  std::string out;
  for (const current_instance& c : current)
    fmt::format_to(std::back_inserter(out), "{}{}", out.empty() ? "" : ", ", current_one(g, c));
  return out.empty() ? "none" : out;
}

// The instances of `current` at `which`.
std::string blocking_text(const gpu_model& g, const std::vector<current_instance>& current,
                          const std::vector<std::size_t>& which) {
  std::string out;
  for (std::size_t i : which)
    fmt::format_to(std::back_inserter(out), "{}{}", out.empty() ? "" : ", ",
                   current_one(g, current[i]));
  return out;
}

void write_current_instance(json_writer& w, const gpu_model& g, const current_instance& c) {
  const profile& p = prof(g, c.profile);
  w.begin_object().key("profile").value(p.name).key("profile_id").value(p.id);
  w.key("start").value(c.start).key("size").value(p.size);
  w.key("instance_id").value(c.instance_id);
  w.key("compute_instances").begin_array();
  for (const current_ci& ci : c.compute) {
    w.begin_object().key("profile").value(ci.profile).key("profile_id").value(ci.profile_id);
    w.key("instance_id").value(ci.instance_id);
    w.key("start").value(ci.start).key("size").value(ci.size).end_object();
  }
  w.end_array().end_object();
}

void layout_text_block(std::ostream& out, const pack_answer& a, const scored_layout& sl,
                       const layout_capacity& cap, bool color, bool show_score) {
  const gpu_model& g = *a.gpu;
  out << diagram(g, sl.where, sl.left, color) << "\n";
  out << fmt::format("  {:<3} {:<16} {:>3} {:>6} {:>6} {:>11} {:>5}\n", "", "profile", "id",
                     "start", "units", "memory", "SMs");
  for (int i = 0; i < sl.where.size(); ++i) {
    const instance& in = sl.where[i];
    const profile& p = prof(g, in.profile);
    const std::string letter(1, instance_letter(i));
    out << fmt::format("  {} {:<16} {:>3} {:>6} {:>6} {:>11} {:>5}\n",
                       paint(color, tone::instance, fmt::format("{:<3}", letter), i), p.name, p.id,
                       in.start, span_text(in.start, p.size), gib_text(p.memory_gib_x100),
                       p.sm_count ? fmt::format("{}", *p.sm_count) : "?");
  }
  compute_text_block(out, a, sl.where, color);
  const stranded& st = cap.strands;
  const std::string free_units = units_text(g, sl.left.free_mask);
  out << "\n"
      << fmt::format("  {:<10}{} unit{}{}, {} compute slice{}\n", "free", sl.left.free_units,
                     plural(sl.left.free_units), free_units.empty() ? "" : " (" + free_units + ")",
                     sl.left.free_compute, plural(sl.left.free_compute));
  out << fmt::format(
      "  {:<10}{} unit{} ({}), {} compute slice{}{}\n", "stranded", st.units, plural(st.units),
      st.memory_gib_x100 ? gib_text(st.memory_gib_x100) : "memory unknown", st.compute_slices,
      plural(st.compute_slices),
      st.units + st.compute_slices > 0 ? ": free, but no further instance can use it" : "");
  const std::vector<addable>& adds = cap.can_add;
  if (adds.empty()) out << fmt::format("  {:<10}nothing\n", "can add");
  for (std::size_t i = 0; i < adds.size(); ++i)
    out << fmt::format("  {:<10}{} at {{{}}}, up to {} more\n", i == 0 ? "can add" : "",
                       prof(g, adds[i].profile).name, units_text(g, adds[i].starts),
                       adds[i].max_more);
  if (show_score)
    out << fmt::format(
        "  {:<10}reaches {} more unit{} and {} more compute slice{}; {} way{} to grow\n", "score",
        sl.rank.reachable_units, plural(sl.rank.reachable_units), sl.rank.reachable_compute,
        plural(sl.rank.reachable_compute), sl.rank.extensions, plural(sl.rank.extensions));
}

void write_answer(json_writer& w, const pack_answer& a, bool all, int line) {
  const gpu_model& g = *a.gpu;
  w.begin_object().key("schema_version").value(json_schema_version);
  w.key("gpu");
  write_gpu(w, g);
  w.key("same_answer_on").begin_array();
  for (const gpu_model* m : a.same_answer) w.value(m->slug);
  w.end_array();
  w.key("request").begin_array();
  for (const item& it : a.items) w.value(prof(g, it.profile).name);
  w.end_array();
  w.key("request_starts").begin_array();
  for (const item& it : a.items) {
    if (it.start == item::any_start)
      w.null();
    else
      w.value(it.start);
  }
  w.end_array();
  write_request_compute(w, a);
  w.key("feasible").value(a.sol.feasible());
  w.key("layout_count").value(a.sol.layout_count);
  w.key("layouts").begin_array();
  for (std::size_t k = 0; k < a.sol.layouts.size(); ++k) {
    const scored_layout& sl = a.sol.layouts[k];
    const std::vector<int> owners = items_of(a.items, sl.where);
    assert(k < a.capacity.size());  // the session fills one per shown layout
    write_layout(w, g, sl, a.capacity[k], [&](json_writer& jw, int i) {
      write_compute_instances(jw, a, sl.where, owners, i);
    });
    if (!all) break;
  }
  w.end_array();
  w.key("reason");
  if (a.compute.rejected) {
    write_ci_reason(w, *a.compute.rejected);
  } else if (a.blocked_by_current) {
    // The new items alone fit: the existing instances are the reason, and
    // the rule they break with them stays visible as "rule".
    w.begin_object().key("code").value("blocked_by_current");
    w.key("message").value(pack_blocked_message(a));
    w.key("profiles").begin_array();
    for (int p : a.sol.why.profiles) w.value(prof(g, p).name);
    w.end_array();
    w.key("rule").value(reason_name(a.sol.why.code));
    w.key("blocking").begin_array();
    for (std::size_t i : a.blocking) write_current_instance(w, g, (*a.current)[i]);
    w.end_array().end_object();
  } else {
    write_reason(w, g, a.sol.why, a.items);
  }
  w.key("closest");
  write_closest(w, g, a.closest, a.closest_capacity);
  w.key("also_fits_on").begin_array();
  for (const gpu_model* m : a.also_fits) w.value(m->slug);
  w.end_array();
  w.key("inferred").begin_array();
  write_inferred(w, g, inferred_profiles(a));
  w.end_array();
  w.key("current");
  if (a.current) {
    w.begin_array();
    for (const current_instance& c : *a.current) write_current_instance(w, g, c);
    w.end_array();
    w.key("gpu_index").value(a.gpu_index);
  } else {
    w.null();
  }
  w.key("blocked_by_current").value(a.blocked_by_current);
  if (line > 0) w.key("line").value(line);
  w.end_object();
}

// What one candidate of an ambiguous request answers. In full: the layout
// count and the preferred layout, which is what differs between models that
// all fit (their layouts differ, or the signature would be the same).
std::string verdict_text(const pack_answer& a, bool full) {
  if (!a.sol.feasible()) return fmt::format("does not fit ({})", answer_reason_name(a));
  const std::uint64_t n = a.sol.layout_count;
  std::string out = fmt::format("fits ({} layout{}", n, plural(n));
  if (full) out += "; preferred " + layout_text(*a.gpu, a.sol.layouts.front().where);
  return out + ")";
}

// What a candidate answers beyond its verdict and layouts, which can tell
// apart models whose verdicts read alike: what the preferred layout strands
// and can still take, or the closest fit.
std::string answer_detail(const pack_answer& a) {
  if (!a.sol.feasible()) {
    if (a.closest.empty()) return {};
    const closest_fit& c = a.closest.front();
    return fmt::format("closest fit: drop {} -> {}, {} unit{} and {} compute slice{} free",
                       items_text(*a.gpu, c.drop), layout_text(*a.gpu, c.where.where),
                       c.where.left.free_units, plural(c.where.left.free_units),
                       c.where.left.free_compute, plural(c.where.left.free_compute));
  }
  if (a.capacity.empty()) return {};
  const layout_capacity& c = a.capacity.front();
  std::vector<std::string_view> names;
  for (const addable& ad : c.can_add)
    names.push_back(a.gpu->profiles[static_cast<std::size_t>(ad.profile)].name);
  return fmt::format(
      "strands {} unit{} and {} compute slice{}; can add {}", c.strands.units,
      plural(c.strands.units), c.strands.compute_slices, plural(c.strands.compute_slices),
      names.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(names, ", ")));
}

// Candidates that answer alike (pack_ambiguity::alike), each answer once
// with the models that give it, in the candidates' order.
struct answer_group {
  const pack_answer* first;
  std::vector<std::string_view> slugs;
};

std::vector<answer_group> group_answers(const pack_ambiguity& amb) {
  // The service says which candidates answer alike: each candidate joins the
  // group of the first that answers as it does.
  std::vector<answer_group> out;
  std::vector<std::size_t> group_of(amb.candidates.size());
  for (std::size_t i = 0; i < amb.candidates.size(); ++i) {
    const pack_answer& a = amb.candidates[i];
    const std::size_t first = i < amb.alike.size() ? amb.alike[i] : i;
    if (first >= i) {
      group_of[i] = out.size();
      out.push_back({&a, {a.gpu->slug}});
    } else {
      group_of[i] = group_of[first];
      out[group_of[i]].slugs.push_back(a.gpu->slug);
    }
  }
  return out;
}

void write_failure(json_writer& w, const pack_failure& f) {
  w.begin_object().key("code").value(f.code).key("message").value(f.message);
  if (f.where != nullptr && !f.where->file.empty()) {
    w.key("file").value(f.where->file).key("line");
    if (f.where->line > 0)
      w.value(f.where->line);
    else
      w.null();
    w.key("col");
    if (f.where->line > 0 && f.where->column > 0)
      w.value(f.where->column);
    else
      w.null();
  }
  if (f.ambiguity != nullptr) {
    w.key("candidates").begin_array();
    for (const pack_answer& a : f.ambiguity->candidates) {
      w.begin_object().key("gpu").value(a.gpu->slug);
      w.key("feasible").value(a.sol.feasible()).key("layout_count").value(a.sol.layout_count);
      w.key("reason");
      if (a.sol.feasible())
        w.null();
      else
        w.value(answer_reason_name(a));
      w.key("preferred");
      if (a.sol.feasible())
        write_instances(w, *a.gpu, a.sol.layouts.front().where);
      else
        w.null();
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
}

}  // namespace

void pack_text(std::ostream& out, const pack_answer& a, bool all, bool color) {
  const gpu_model& g = *a.gpu;
  out << fmt::format("{}  {}  ({} placement units, {} compute slices)\n",
                     paint(color, tone::bold, g.slug), g.name().empty() ? g.description : g.name(),
                     g.units, g.compute_slices);
  if (!a.same_answer.empty()) out << fmt::format("same answer on {}\n", slugs_text(a.same_answer));
  if (a.current) out << fmt::format("existing {}\n", current_text(g, *a.current));
  out << fmt::format("request  {}\n", request_text(a));
  for (const std::string& note : a.compute.implied) out << fmt::format("         ({})\n", note);
  if (a.compute.rejected) {
    out << paint(color, tone::bad,
                 fmt::format("does not fit ({})", ci_reason_name(a.compute.rejected->code)))
        << ": " << a.compute.rejected->message << "\n";
  } else if (!a.sol.feasible()) {
    const std::string_view code =
        a.blocked_by_current ? "blocked_by_current" : reason_name(a.sol.why.code);
    out << paint(color, tone::bad, fmt::format("does not fit ({})", code)) << ": "
        << describe(g, a.sol.why, a.items) << "\n";
    if (a.blocked_by_current)
      out << fmt::format(
          "blocked by existing instances: the new ones fit on an empty GPU; removing {} would "
          "make room\n",
          blocking_text(g, *a.current, a.blocking));
    if (!a.closest.empty()) {
      out << "\nclosest fits:\n";
      for (const closest_fit& c : a.closest)
        out << fmt::format("  drop {:<20} -> {}\n", items_text(g, c.drop),
                           layout_text(g, c.where.where));
    }
    if (!a.also_fits.empty())
      out << fmt::format("\nfits as requested on {}\n", slugs_text(a.also_fits));
  } else {
    const std::uint64_t n = a.sol.layout_count;
    out << paint(color, tone::good, fmt::format("fits: {} layout{}", n, plural(n)))
        << (n > 1 ? ", the one that keeps the most room first" : "") << "\n";
    for (std::size_t i = 0; i < a.sol.layouts.size(); ++i) {
      if (all) out << fmt::format("\nlayout {} of {}\n", i + 1, n);
      out << "\n";
      assert(i < a.capacity.size());  // the session fills one per shown layout
      layout_text_block(out, a, a.sol.layouts[i], a.capacity[i], color, all);
      if (!all) break;
    }
    if (!all && n > 1)
      out << fmt::format("\n{} other layout{}; --all shows every one\n", n - 1, plural(n - 1));
  }
  // Inferred values are shown, never hidden.
  out << inferred_note(g, inferred_profiles(a));
}

void pack_json(std::ostream& os, const pack_answer& a, bool all) {
  std::string out;
  json_writer w(out, 2);
  write_answer(w, a, all, 0);
  out += '\n';
  os << out;
}

std::string pack_blocked_message(const pack_answer& a) {
  const gpu_model& g = *a.gpu;
  return fmt::format(
      "the new instances fit on an empty {}, but not around the existing ones; removing {} "
      "would make room ({})",
      g.slug, blocking_text(g, *a.current, a.blocking), describe(g, a.sol.why, a.items));
}

std::string pack_no_emit(const pack_answer& a) {
  // Compute instances that cannot be had are refused before any search,
  // whose reason would be none ("it fits").
  if (a.compute.rejected)
    return fmt::format("does not fit ({}): {}; nothing to emit",
                       ci_reason_name(a.compute.rejected->code), a.compute.rejected->message);
  return fmt::format("does not fit ({}): {}{}; nothing to emit",
                     a.blocked_by_current ? "blocked_by_current" : reason_name(a.sol.why.code),
                     describe(*a.gpu, a.sol.why, a.items),
                     a.blocked_by_current ? " (blocked by existing instances)" : "");
}

void pack_answers(std::ostream& os, std::span<const pack_answer> answers, bool json, bool all,
                  bool color) {
  const bool several = answers.size() > 1;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const pack_answer& a = answers[i];
    if (json && several) {
      std::string line;
      pack_json_line(line, a, all, 0);
      os << line;
    } else if (json) {
      pack_json(os, a, all);
    } else {
      if (several) os << fmt::format("{}GPU {}\n", i == 0 ? "" : "\n", a.gpu_index.value_or(0));
      pack_text(os, a, all, color);
    }
  }
}

void pack_json_line(std::string& out, const pack_answer& a, bool all, int line) {
  json_writer w(out);
  write_answer(w, a, all, line);
  out += '\n';
}

void pack_error_json(std::ostream& os, const pack_failure& f) {
  write_document(os, [&](json_writer& w) {
    w.key("error");
    write_failure(w, f);
  });
}

void pack_error_json_line(std::string& out, int line, const pack_failure& f) {
  json_writer w(out);
  w.begin_object().key("schema_version").value(json_schema_version).key("line").value(line);
  w.key("error");
  write_failure(w, f);
  w.end_object();
  out += '\n';
}

std::string pack_ambiguity_text(const pack_ambiguity& amb) {
  std::string out =
      "the gpu is ambiguous: these profiles exist on several gpus with different answers; pass "
      "--gpu:";
  const auto groups = group_answers(amb);
  // Where two answers' verdicts read alike, each says what tells them apart.
  bool alike = false;
  for (std::size_t i = 0; i < groups.size(); ++i)
    for (std::size_t j = i + 1; j < groups.size(); ++j)
      alike = alike || verdict_text(*groups[i].first, true) == verdict_text(*groups[j].first, true);
  for (const answer_group& g : groups) {
    fmt::format_to(std::back_inserter(out), "\n  {}: {}", fmt::join(g.slugs, ", "),
                   verdict_text(*g.first, true));
    if (alike) fmt::format_to(std::back_inserter(out), "; {}", answer_detail(*g.first));
  }
  return out;
}

std::string pack_ambiguity_sentence(const pack_ambiguity& amb) {
  std::string out = "the gpu is ambiguous: ";
  const auto groups = group_answers(amb);
  for (std::size_t i = 0; i < groups.size(); ++i)
    fmt::format_to(std::back_inserter(out), "{}{}: {}", i == 0 ? "" : "; ",
                   fmt::join(groups[i].slugs, ", "), verdict_text(*groups[i].first, false));
  return out + "; pass --gpu";
}

void pack_brief_line(std::string& out, const pack_answer& a, int line) {
  if (a.sol.feasible())
    fmt::format_to(std::back_inserter(out), "{}\t{}\tfits\t{}\t{}\n", line, a.gpu->slug,
                   a.sol.layout_count, layout_text(*a.gpu, a.sol.layouts.front().where));
  else
    fmt::format_to(std::back_inserter(out), "{}\t{}\tno_fit\t0\t{}\n", line, a.gpu->slug,
                   answer_reason_name(a));
}

void pack_brief_error_line(std::string& out, int line, std::string_view message) {
  // The escaping messages use for echoed input, here over the whole message:
  // it keeps the field free of tabs, line ends and control bytes.
  fmt::format_to(std::back_inserter(out), "{}\t-\terror\t0\t{}\n", line,
                 clip_token(message, std::numeric_limits<std::size_t>::max()));
}

void pack_batch_writer::answer(long long line, const pack_answer& a) {
  if (brief_)
    pack_brief_line(kept_, a, static_cast<int>(line));
  else
    pack_json_line(kept_, a, all_, static_cast<int>(line));
}

void pack_batch_writer::failure(long long line, const std::string& message,
                                const pack_ambiguity* amb) {
  const std::string why = amb ? pack_ambiguity_sentence(*amb) : one_line(message);
  if (brief_)
    pack_brief_error_line(kept_, static_cast<int>(line), why);
  else
    pack_error_json_line(kept_, static_cast<int>(line),
                         {amb ? "ambiguous_gpu" : "bad_input", why, amb});
}

bool pack_batch_writer::flush(bool before_wait) {
  if (kept_.empty() || (kept_.size() <= (1u << 16) && !before_wait)) return true;
  out_ << kept_;
  out_.flush();
  kept_.clear();
  // A full disk or a closed pipe ends the run rather than answering into the void.
  return out_.good();
}

}  // namespace migplan::cli::render

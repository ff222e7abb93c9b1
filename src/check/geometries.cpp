// SPDX-License-Identifier: Apache-2.0
// The checking pass of `migplan check`: every geometry a file holds, resolved
// against the catalog (models, profile names, former names, device filters)
// and asked of the core whether it fits on each model it applies to. Here the
// walk over a file's geometries and each kind of entry; the models an entry
// applies to are pick_models.cpp's, a request on one model fit_on_model.cpp's.

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <migplan/explain.hpp>
#include <migplan/lookup.hpp>
#include <migplan/search.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "check/checker.hpp"
#include "check/geometry_checker.hpp"
#include "io/check_input.hpp"
#include "io/ci_request.hpp"
#include "io/mig_parted.hpp"
#include "io/names.hpp"
#include "io/request.hpp"
#include "messages.hpp"
#include "text.hpp"

namespace migplan::cli::check::detail {

void geometry_checker::run() {
  const bool mig_parted = f_.input.format == input_format::mig_parted;
  // HAMi device configs: a file of its own, or ConfigMaps of a manifest
  // (beside a mig-parted config's, maybe).
  if (!f_.input.table.empty()) targets_ = table_targets(f_, settings_);
  for (const geometry_spec& g : f_.input.geometries) {
    const bool table = g.table_entry >= 0;
    if (mig_parted && !table && !selected(g.label)) continue;
    current_ = &g;
    if (g.broken) continue;
    geometry_check gc{&g, geometry_status::valid, {}};
    if (table)
      check_table(g, gc);
    else if (mig_parted)
      check_mig_parted(g, gc);
    else
      check_geometry(g, gc);
    if (g.conflict) gc.status = geometry_status::invalid;
    if (settings_.verbose) report_fits(g, gc);
    f_.geometries.push_back(std::move(gc));
  }
  current_ = nullptr;
  if (mig_parted)
    report_missing_labels();
  else if (!settings_.configs.empty() && !f_.input.geometries.empty())
    // Not silently: a `-c` that selects nothing here would pass a file it never narrowed.
    add(severity::warning, fault::invalid, {},
        "-c selects mig-parted config labels, and this file is not a mig-parted config: "
        "every geometry in it was checked");
}

bool geometry_checker::selected(const std::string& label) const {
  const auto& want = settings_.configs;
  return want.empty() || std::find(want.begin(), want.end(), label) != want.end();
}

// `-c LABEL` that the file does not have: what `nvidia-mig-parted assert
// -c` says of it ("selected mig-config not present", cmd/nvidia-mig-parted/assert/assert.go).
void geometry_checker::report_missing_labels() {
  for (const std::string& want : settings_.configs) {
    const bool present = std::any_of(f_.input.labels.begin(), f_.input.labels.end(),
                                     [&](const std::string& l) { return l == want; });
    if (!present)
      add(severity::error, fault::invalid, {},
          fmt::format("config '{}' (-c) is not in this file; mig-parted would stop with "
                      "\"selected mig-config not present\"{}",
                      clip(want), did_you_mean(want, f_.input.labels)));
  }
}

void geometry_checker::add(severity s, fault k, location at, std::string message,
                           std::vector<std::string> notes) {
  diagnostic d = check_diagnostic(s, k, at, std::move(message), std::move(notes));
  if (current_ != nullptr) {
    d.config = current_->label;
    d.entry = current_->entry;
  }
  f_.diagnostics.push_back(std::move(d));
}

std::string geometry_checker::what(const geometry_spec& g) const {
  return f_.input.format == input_format::mig_parted && g.table_entry < 0
             ? fmt::format("config '{}'", clip(g.label))
             : fmt::format("'{}'", clip(g.label));
}

void geometry_checker::check_geometry(const geometry_spec& g, geometry_check& gc) {
  std::vector<const gpu_model*> targets = settings_.fleet;
  if (!g.model.empty()) {
    auto r = resolve_gpu(settings_.models, g.model);
    if (!r) {
      add(severity::error, fault::invalid, g.model_at, r.error().message);
      gc.status = geometry_status::invalid;
      return;
    }
    targets = {*r};
  } else if (targets.empty()) {
    add(severity::error, fault::malformed, g.at,
        fmt::format("missing required key 'model' in '{}' (or give a default with --gpu)",
                    g.label));
    gc.status = geometry_status::unchecked;
    return;
  }
  std::vector<const profile_request*> items;
  for (const profile_request& r : g.items) items.push_back(&r);
  for (const gpu_model* t : targets) {
    gc.models.push_back(check_on(*t, g, items, false));
    if (gc.models.back().status != model_check::outcome::fits) gc.status = geometry_status::invalid;
  }
}

// A geometry of a HAMi device config: on each model its entry is for (of
// the fleet, with --gpu); none: not checked (table_targets said why).
void geometry_checker::check_table(const geometry_spec& g, geometry_check& gc) {
  std::vector<const table_target*> targets;
  for (const table_target& t : targets_[static_cast<std::size_t>(g.table_entry)])
    if (settings_.fleet.empty() ||
        std::find(settings_.fleet.begin(), settings_.fleet.end(), t.gpu) != settings_.fleet.end())
      targets.push_back(&t);
  if (targets.empty()) {
    gc.status = geometry_status::unchecked;
    return;
  }
  std::vector<const profile_request*> items;
  for (const profile_request& r : g.items) items.push_back(&r);
  for (const table_target* t : targets) {
    gc.models.push_back(check_on(*t->gpu, g, items, false));
    check_template_memory(f_, g, *t->gpu);
    const bool fits = gc.models.back().status == model_check::outcome::fits;
    if (!fits) gc.status = geometry_status::invalid;
    // Why the entry is for this model at all, once per entry and model
    // where a geometry fails there ("H20" is in "NVIDIA-NVIDIA H200" too),
    // and with -v for every model.
    if ((fits && !settings_.verbose) || !explained_.insert({g.table_entry, t->gpu}).second)
      continue;
    const table_entry& e = f_.input.table[static_cast<std::size_t>(g.table_entry)];
    add(severity::note, fault::invalid, e.at,
        fmt::format("{} is for {}: its model '{}' is in \"{}\", and no entry before it matches",
                    e.label, t->gpu->slug, clip(t->model_text), t->type));
  }
}

void geometry_checker::check_mig_parted(const geometry_spec& g, geometry_check& gc) {
  if (!g.mig_enabled) return;  // MIG off: nothing to place
  std::vector<const profile_request*> items;
  std::vector<std::string> names;  // GPU-instance names, parallel to items
  for (const profile_request& r : g.items) {
    if (r.count == 0) continue;  // mig-parted skips zero counts
    // "1c.3g.20gb": a CI of a 3g.20gb GI. The models are picked by the GI's name.
    std::string name = split_mig_device_key(r.name).gi;
    if (r.count > max_item_count) {
      add(severity::error, fault::invalid, r.at,
          fmt::format("{} instances of {}: no gpu holds more than {} instances", r.count, r.name,
                      max_units));
      gc.status = geometry_status::invalid;
      return;
    }
    items.push_back(&r);
    names.push_back(std::move(name));
  }
  names_ = names;

  const std::vector<const gpu_model*>& fleet = settings_.fleet;
  const auto in_fleet = [&](const gpu_model* m) {
    return std::find(fleet.begin(), fleet.end(), m) != fleet.end();
  };
  std::vector<const gpu_model*> models;
  bool unfiltered_guess = false;  // checked on the models that have its profiles
  if (g.has_filter) {
    std::vector<const filter_id*> unknown;
    for (const filter_id& id : g.filter) {
      if (!id.readable) continue;
      const gpu_model* hit = find_model_by_full_pci(settings_.models, id.value);
      if (hit == nullptr)
        unknown.push_back(&id);
      else if (std::find(models.begin(), models.end(), hit) == models.end())
        models.push_back(hit);
    }
    if (!fleet.empty()) {
      std::vector<std::string> named;
      for (const gpu_model* m : models) named.emplace_back(m->slug);
      std::erase_if(models, [&](const gpu_model* m) { return !in_fleet(m); });
      if (models.empty()) {
        add(severity::note, fault::invalid, g.filter_at,
            fmt::format(
                "{} entry {} is not checked: its device-filter names {}, none of the "
                "gpus given with --gpu",
                what(g), g.entry,
                named.empty() ? std::string("no gpu in migplan's catalog") : join_and(named)));
        gc.status = geometry_status::unchecked;
        return;
      }
    } else if (!unknown.empty()) {
      std::vector<std::string> ids, slugs;
      for (const filter_id* id : unknown) ids.push_back(fmt::format("0x{:08X}", id->value));
      for (const gpu_model* m : models) slugs.emplace_back(m->slug);
      add(severity::note, fault::invalid, unknown.front()->at,
          fmt::format("{} {} not in migplan's catalog; {}", join_and(ids),
                      ids.size() == 1 ? "is" : "are",
                      slugs.empty() ? fmt::format("{} entry {} is not checked", what(g), g.entry)
                                    : fmt::format("checked on {} only", join_and(slugs))));
    }
    if (models.empty()) {
      gc.status = geometry_status::unchecked;
      return;
    }
  } else {
    if (items.empty()) return;  // nothing to place: valid on every model
    bool skipped = false;
    if (!pick_models(g, items, models, skipped)) {
      gc.status = skipped ? geometry_status::unchecked : geometry_status::invalid;
      return;
    }
    unfiltered_guess = models.size() > 1;
  }
  std::vector<std::size_t> first_diagnostic;  // per model, where its diagnostics start
  for (const gpu_model* m : models) {
    first_diagnostic.push_back(f_.diagnostics.size());
    gc.models.push_back(check_on(*m, g, items, true));
  }
  first_diagnostic.push_back(f_.diagnostics.size());
  std::vector<std::string> fit, failed;
  for (const model_check& m : gc.models)
    (m.status == model_check::outcome::fits ? fit : failed).emplace_back(m.gpu->slug);
  if (failed.empty()) return;
  if (!unfiltered_guess || fit.empty()) {
    gc.status = geometry_status::invalid;
    merge_alike(gc, first_diagnostic);
    return;
  }
  // No device-filter: the entry fits some of the models (of the catalog, or
  // of the fleet) that have its profiles, and a node picks its label. NVIDIA's own configs do
  // this (an `all-1g.10gb` for H100 also matches an A100-40GB, where 1g.10gb allows 4), so it is
  // a warning per model where it fails; --strict makes it an error.
  for (std::size_t i = 0; i < gc.models.size(); ++i) {
    if (gc.models[i].status == model_check::outcome::fits) continue;
    for (std::size_t d = first_diagnostic[i]; d < first_diagnostic[i + 1]; ++d) {
      diagnostic& diag = f_.diagnostics[d];
      if (diag.level != severity::error) continue;
      diag.level = severity::warning;
      diag.notes.push_back(
          fmt::format("it fits on {}; without a device-filter it applies to every gpu: add a "
                      "device-filter for the models it is meant for, or name your fleet with --gpu",
                      join_and(fit)));
    }
  }
  merge_alike(gc, first_diagnostic);
}

// Models on which an entry fails alike (the same diagnostics but for the
// model's name, as an instance cap that every model of a profile shares)
// get one set of diagnostics naming them all ("does not fit on a100-80gb,
// h100-80gb and h100-pcie: 3g.40gb allows at most 2 instances on each"),
// not one copy per model. `first` holds where each model's diagnostics
// start in the file's, and one past the last.
void geometry_checker::merge_alike(const geometry_check& gc,
                                   const std::vector<std::size_t>& first) {
  constexpr char mark = '\x01';  // stands for the model's name
  const auto without = [&](std::string text, std::string_view slug) {
    for (std::size_t at = text.find(slug); at != std::string::npos; at = text.find(slug, at + 1))
      text.replace(at, slug.size(), 1, mark);
    return text;
  };
  // Per model, its diagnostics as (position, level, message, notes) with
  // its name replaced by the mark; models with none are left alone.
  using shape = std::vector<std::tuple<int, int, severity, std::string, std::vector<std::string>>>;
  std::vector<shape> shapes(gc.models.size());
  for (std::size_t i = 0; i < gc.models.size(); ++i) {
    const std::string_view slug = gc.models[i].gpu->slug;
    for (std::size_t d = first[i]; d < first[i + 1]; ++d) {
      const diagnostic& diag = f_.diagnostics[d];
      std::vector<std::string> notes;
      for (const std::string& n : diag.notes) notes.push_back(without(n, slug));
      shapes[i].emplace_back(diag.line, diag.column, diag.level, without(diag.message, slug),
                             std::move(notes));
    }
  }
  std::vector<bool> drop(f_.diagnostics.size(), false);
  for (std::size_t i = 0; i < gc.models.size(); ++i) {
    if (shapes[i].empty() || drop[first[i]]) continue;
    std::vector<std::string> slugs{std::string(gc.models[i].gpu->slug)};
    for (std::size_t j = i + 1; j < gc.models.size(); ++j) {
      if (shapes[j] != shapes[i] || drop[first[j]]) continue;
      slugs.emplace_back(gc.models[j].gpu->slug);
      for (std::size_t d = first[j]; d < first[j + 1]; ++d) drop[d] = true;
    }
    if (slugs.size() == 1) continue;
    // The first mention names them all, later ones say "each".
    const auto named = [&](const std::string& text) {
      std::string out;
      bool first_mention = true;
      for (const char c : text) {
        if (c != mark) {
          out += c;
          continue;
        }
        out += first_mention ? join_and(slugs) : std::string("each");
        first_mention = false;
      }
      return out;
    };
    for (std::size_t k = 0; k < shapes[i].size(); ++k) {
      diagnostic& diag = f_.diagnostics[first[i] + k];
      diag.message = named(std::get<3>(shapes[i][k]));
      for (std::size_t n = 0; n < diag.notes.size(); ++n)
        diag.notes[n] = named(std::get<4>(shapes[i][k])[n]);
    }
  }
  std::size_t kept = first.front();
  for (std::size_t d = first.front(); d < first.back(); ++d)
    if (!drop[d]) {
      if (kept != d) f_.diagnostics[kept] = std::move(f_.diagnostics[d]);
      ++kept;
    }
  f_.diagnostics.erase(f_.diagnostics.begin() + static_cast<std::ptrdiff_t>(kept),
                       f_.diagnostics.begin() + static_cast<std::ptrdiff_t>(first.back()));
}

void geometry_checker::report_fits(const geometry_spec& g, const geometry_check& gc) {
  for (const model_check& m : gc.models) {
    if (m.status != model_check::outcome::fits) continue;
    if (!m.preferred || m.preferred->empty()) {
      add(severity::note, fault::invalid, g.items_at,
          fmt::format("{} fits on {}: no instances", what(g), m.gpu->slug));
      continue;
    }
    add(severity::note, fault::invalid, g.items_at,
        fmt::format("{} fits on {}: {} ({} layout{})", what(g), m.gpu->slug,
                    layout_text(*m.gpu, *m.preferred), m.layout_count, plural(m.layout_count)));
  }
}

}  // namespace migplan::cli::check::detail

namespace migplan::cli::check {

void check_geometries(file_check& f, const check_settings& settings) {
  detail::geometry_checker(f, settings).run();
}

}  // namespace migplan::cli::check

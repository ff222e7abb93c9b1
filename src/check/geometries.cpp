// SPDX-License-Identifier: Apache-2.0
// The checking pass of `migplan check`: every geometry a file holds, resolved
// against the catalog (models, profile names, former names, device filters)
// and asked of the core whether it fits on each model it applies to.

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
#include "io/check_input.hpp"
#include "io/ci_request.hpp"
#include "io/mig_parted.hpp"
#include "io/names.hpp"
#include "io/request.hpp"
#include "messages.hpp"
#include "text.hpp"

namespace migplan::cli::check {
namespace {

bool current_anywhere(model_list models, std::string_view name) {
  for (const gpu_model* g : models)
    if (find_profile(*g, name) >= 0) return true;
  return false;
}

class checker {
 public:
  checker(file_check& f, const check_settings& settings) : f_(f), settings_(settings) {}

  void run() {
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
    if (mig_parted) report_missing_labels();
  }

 private:
  bool selected(const std::string& label) const {
    const auto& want = settings_.configs;
    return want.empty() || std::find(want.begin(), want.end(), label) != want.end();
  }

  // `-c LABEL` that the file does not have: what `nvidia-mig-parted assert
  // -c` says of it ("selected mig-config not present", cmd/nvidia-mig-parted/assert/assert.go).
  void report_missing_labels() {
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

 private:
  void add(severity s, fault k, location at, std::string message,
           std::vector<std::string> notes = {}) {
    diagnostic d = check_diagnostic(s, k, at, std::move(message), std::move(notes));
    if (current_ != nullptr) {
      d.config = current_->label;
      d.entry = current_->entry;
    }
    f_.diagnostics.push_back(std::move(d));
  }

  std::string what(const geometry_spec& g) const {
    return f_.input.format == input_format::mig_parted && g.table_entry < 0
               ? fmt::format("config '{}'", clip(g.label))
               : fmt::format("'{}'", clip(g.label));
  }

  void check_geometry(const geometry_spec& g, geometry_check& gc) {
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
      if (gc.models.back().status != model_check::outcome::fits)
        gc.status = geometry_status::invalid;
    }
  }

  // A geometry of a HAMi device config: on each model its entry is for (of
  // the fleet, with --gpu); none: not checked (table_targets said why).
  void check_table(const geometry_spec& g, geometry_check& gc) {
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

  void check_mig_parted(const geometry_spec& g, geometry_check& gc) {
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
        diag.notes.push_back(fmt::format(
            "it fits on {}; without a device-filter it applies to every gpu: add a "
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
  void merge_alike(const geometry_check& gc, const std::vector<std::size_t>& first) {
    constexpr char mark = '\x01';  // stands for the model's name
    const auto without = [&](std::string text, std::string_view slug) {
      for (std::size_t at = text.find(slug); at != std::string::npos; at = text.find(slug, at + 1))
        text.replace(at, slug.size(), 1, mark);
      return text;
    };
    // Per model, its diagnostics as (position, level, message, notes) with
    // its name replaced by the mark; models with none are left alone.
    using shape =
        std::vector<std::tuple<int, int, severity, std::string, std::vector<std::string>>>;
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

  // An entry without a device-filter applies to every GPU: check it on every
  // catalog model that has all of its profiles. A name that no model has today
  // but an older driver used stands for the profile it became.
  //
  // With a fleet (--gpu), the candidates are the fleet's models instead of the
  // catalog's: a node picks its label, so an entry whose profiles no fleet
  // model has is for other nodes (a note), not an error. Returns false when
  // the entry is invalid (an error said so) or not checked (a note said so;
  // `skipped` is set).
  bool pick_models(const geometry_spec& g, const std::vector<const profile_request*>& items,
                   std::vector<const gpu_model*>& models, bool& skipped) {
    bool ok = true;
    std::vector<bool> current(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      current[i] = current_anywhere(settings_.models, names_[i]);
      if (current[i]) continue;
      bool former = false;
      for (const gpu_model* m : settings_.models)
        former = former || find_profile_by_former_name(*m, names_[i]) >= 0;
      if (former) continue;
      // A name tools circulate but no driver printed ("7g.79gb") gets the real one.
      const std::string note = former_name_note(settings_.models, names_[i]);
      add(severity::error, fault::invalid, items[i]->at,
          note.empty() ? fmt::format("unknown profile '{}': no gpu in migplan's catalog has it{}",
                                     items[i]->name,
                                     did_you_mean(names_[i], all_profile_names(settings_.models)))
                       : fmt::format("unknown profile '{}': {}", items[i]->name, note));
      ok = false;
    }
    if (!ok) return false;
    const auto has_all = [&](const gpu_model& m) {
      for (std::size_t i = 0; i < items.size(); ++i)
        if ((current[i] ? find_profile(m, names_[i]) : find_profile_by_former_name(m, names_[i])) <
            0)
          return false;
      return true;
    };
    const std::vector<const gpu_model*>& fleet = settings_.fleet;
    if (!fleet.empty()) {
      for (const gpu_model* m : fleet)
        if (has_all(*m)) models.push_back(m);
      if (!models.empty()) return true;
      std::vector<std::string> owners;
      for (const gpu_model* m : settings_.models)
        if (has_all(*m)) owners.emplace_back(m->slug);
      if (!owners.empty()) {
        const std::string whose =
            fmt::format("({} {})", join_and(owners), owners.size() == 1 ? "has them" : "have them");
        // Selected with -c, the label is meant for this fleet, and mig-parted
        // fails on every node of it: an error. Otherwise it is likely a label
        // for other GPUs (NVIDIA's shipped config has one per profile, most
        // without a device-filter): a note, a warning under --strict.
        if (f_.input.format == input_format::mig_parted && !settings_.configs.empty()) {
          add(severity::error, fault::invalid, g.items_at,
              fmt::format("{} entry {} applies to every gpu, and no gpu given with --gpu has all "
                          "of its profiles {}: mig-parted would fail on every node of this fleet",
                          what(g), g.entry, whose));
          return false;
        }
        add(settings_.strict ? severity::warning : severity::note, fault::invalid, g.items_at,
            fmt::format("{} entry {} is not checked: no gpu given with --gpu has all of its "
                        "profiles {}",
                        what(g), g.entry, whose));
        skipped = true;
        return false;
      }
    } else {
      for (const gpu_model* m : settings_.models)
        if (has_all(*m)) models.push_back(m);
      if (!models.empty()) return true;
    }
    std::string owners;
    std::vector<std::string> seen;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (std::find(seen.begin(), seen.end(), names_[i]) != seen.end()) continue;
      seen.push_back(names_[i]);
      std::vector<std::string> slugs;
      for (const gpu_model* m : settings_.models)
        if (current[i] ? find_profile(*m, names_[i]) >= 0
                       : find_profile_by_former_name(*m, names_[i]) >= 0)
          slugs.emplace_back(m->slug);
      owners +=
          fmt::format("{}{} ({})", owners.empty() ? "" : ", ", names_[i], fmt::join(slugs, ", "));
    }
    add(severity::error, fault::invalid, g.items_at,
        fmt::format("no single gpu has all the profiles of {}: {}", what(g), owners));
    return false;
  }

  model_check check_on(const gpu_model& gpu, const geometry_spec& g,
                       const std::vector<const profile_request*>& requests, bool mig_parted) {
    model_check mc;
    mc.gpu = &gpu;
    std::vector<item> items;
    // Profile index -> the first requests naming it by its current name and by a former one.
    std::map<int, std::pair<const profile_request*, const profile_request*>> named;
    struct resolved_request {
      int profile, start;
      const profile_request* request;
    };
    std::vector<resolved_request> resolved;
    // CIs a mig-parted entry names, per GI profile: mig-parted creates one CI per count
    // and puts each in the GI it created last while that GI has room for it, else in a new
    // GI (SetMigConfig in pkg/mig/config/config.go), trying every order of the flattened
    // profiles until one succeeds; so the entry fits when some sharing of its CIs over
    // GIs fits, and the fewest GIs is the one to check (compute.hpp, group_cis).
    std::map<int, std::pair<std::vector<int>, const profile_request*>> lone_cis;
    // A geometry file's ITEMs that name CIs ("3g.20gb[2c,1c]", "4x1c.3g.20gb"), re-read
    // and resolved together as pack resolves them (io/ci_request), with the GI profile
    // of each for the message.
    std::vector<token> ci_tokens;
    std::vector<std::pair<int, const profile_request*>> ci_requests;
    const auto ci_fail = [&](const profile_request& r, const ci_rejection& why) {
      add(severity::error, fault::invalid, r.at,
          fmt::format("{} does not fit on {}: {}", what(g), gpu.slug, why.message));
      if (mc.ci_code == ci_reason_code::none) {
        mc.status = model_check::outcome::does_not_fit;
        mc.ci_code = why.code;
        mc.message = why.message;
        mc.unknown = {why.gi_profile};
      }
    };
    const auto unknown = [&](const profile_request& r, std::string_view name, std::string message) {
      add(severity::error, fault::invalid, r.at, message);
      mc.status = model_check::outcome::unknown_profile;
      mc.unknown.emplace_back(name);
      if (!mc.message.empty()) mc.message += "; ";
      mc.message += message;
    };
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const profile_request& r = *requests[i];
      const std::string& name = mig_parted ? names_[i] : r.name;
      int p = -1;
      bool old_name = false;
      if (mig_parted) {
        // The one reader of mig-devices keys (io/mig_parted), as plan --mig-config reads them.
        const mig_device d = resolve_mig_device(settings_.models, gpu, r.name);
        if (d.gi < 0) {
          unknown(r, strip_profile_name(name), d.message);
          continue;
        }
        p = d.gi;
        old_name = d.former;
        if (d.former) add(severity::warning, fault::invalid, r.at, d.message);
        if (d.ci_error.code != ci_reason_code::none) {
          ci_fail(r, d.ci_error);
          continue;
        }
        if (d.ci >= 0) {
          auto& [cis, first] = lone_cis[p];
          cis.insert(cis.end(), static_cast<std::size_t>(r.count), d.ci);
          if (first == nullptr) first = &r;
          continue;
        }
      } else {
        std::string unknown_message;
        auto found = resolve_profile(settings_.models, gpu, name);
        if (found)
          p = *found;
        else
          unknown_message = found.error().message;
        if (p < 0) {
          const int former = find_profile_by_former_name(gpu, strip_profile_name(name));
          if (former >= 0) {
            add(severity::warning, fault::invalid, r.at,
                fmt::format("{}; current drivers need '{}'",
                            former_name_text(gpu, former, strip_profile_name(name)),
                            gpu.profiles[static_cast<std::size_t>(former)].name));
            p = former;
            old_name = true;
          }
        }
        if (p < 0) {
          unknown(r, strip_profile_name(name), unknown_message);
          continue;
        }
      }
      if (!mig_parted && r.compute) {
        auto t = parse_item(r.text);
        if (!t) {
          unknown(r, strip_profile_name(name), t.error().message);
          continue;
        }
        t->profile = gpu.profiles[static_cast<std::size_t>(p)].name;
        ci_tokens.push_back(std::move(*t));
        ci_requests.emplace_back(p, &r);
        continue;
      }
      // One driver knows a profile by one name: the old name and the new one
      // together work with no driver at all.
      auto& [current_by, former_by] = named[p];
      const profile_request*& mine = old_name ? former_by : current_by;
      const profile_request* other = old_name ? current_by : former_by;
      const bool first_of_kind = mine == nullptr;
      if (first_of_kind) mine = &r;
      if (first_of_kind && other != nullptr) {
        const std::string_view old_text = strip_profile_name(former_by->name);
        unknown(r, old_text,
                fmt::format("{} and {} name the same {} profile under an older and a current "
                            "driver; no driver accepts both",
                            old_text, gpu.profiles[static_cast<std::size_t>(p)].name, gpu.slug));
        continue;
      }
      const int start = r.start ? *r.start : item::any_start;
      for (long long n = 0; n < r.count; ++n) items.push_back({p, start});
      resolved.push_back({p, start, &r});
    }
    if (mc.status != model_check::outcome::fits) return mc;
    std::vector<std::string> implied;
    if (!ci_tokens.empty()) {
      auto cis = resolve_request(settings_.models, gpu, ci_tokens);
      if (!cis) {
        const profile_request& r = *ci_requests.front().second;
        unknown(r, strip_profile_name(r.name), cis.error().message);
        return mc;
      }
      if (cis->compute.rejected) {
        const ci_rejection& why = *cis->compute.rejected;
        const profile_request* culprit = ci_requests.front().second;
        for (const auto& [p, r] : ci_requests)
          if (gpu.profiles[static_cast<std::size_t>(p)].name == why.gi_profile) {
            culprit = r;
            break;
          }
        ci_fail(*culprit, why);
        return mc;
      }
      for (const item& it : cis->items) items.push_back(it);
      for (const auto& [p, r] : ci_requests)
        resolved.push_back({p, r->start ? *r->start : item::any_start, r});
      implied.insert(implied.end(), cis->compute.implied.begin(), cis->compute.implied.end());
    }
    for (const auto& [p, group] : lone_cis) {
      const profile& gi = gpu.profiles[static_cast<std::size_t>(p)];
      const ci_grouping shared = group_cis(gi, group.first);
      const std::size_t n = shared.gis.size();
      for (std::size_t k = 0; k < n; ++k) items.push_back({p, item::any_start});
      resolved.push_back({p, item::any_start, group.second});
      std::map<int, int> per_ci;
      for (int ci : group.first) ++per_ci[ci];
      std::vector<std::string> terms;
      for (const auto& [ci, k] : per_ci)
        terms.push_back(
            fmt::format("{} x {}", k, gi.ci_profiles[static_cast<std::size_t>(ci)].name));
      implied.push_back(fmt::format("its compute instances ({}) take {}{} {} GPU instance{}",
                                    fmt::join(terms, " + "), shared.over_cap ? "at least " : "", n,
                                    gi.name, plural(n)));
    }
    mc.items = items;
    const answer& a = solved(gpu, items);
    if (a.layout_count > 0) {
      mc.layout_count = a.layout_count;
      mc.preferred = a.preferred;
      return mc;
    }
    mc.status = model_check::outcome::does_not_fit;
    mc.why = a.why;
    mc.closest = a.closest;
    std::vector<std::string> notes = implied;
    for (const closest_fit& c : mc.closest)
      notes.push_back(fmt::format("closest fit: drop {} -> {}", items_text(gpu, c.drop),
                                  layout_text(gpu, c.where.where)));
    // A cap or a start is one profile's fault: say it at that profile's line.
    // A combination is the request's: at `mig-devices:` / `instances:`.
    location where = g.items_at;
    for (const resolved_request& rr : resolved) {
      const bool capped = mc.why.code == reason_code::instance_cap && !mc.why.profiles.empty() &&
                          rr.profile == mc.why.profiles.front();
      const bool bad_start =
          mc.why.code == reason_code::bad_start &&
          std::any_of(mc.why.conflict.begin(), mc.why.conflict.end(), [&](const item& it) {
            return it.profile == rr.profile && it.start == rr.start;
          });
      if (capped || bad_start) {
        where = rr.request->at;
        break;
      }
    }
    add(severity::error, fault::invalid, where,
        fmt::format("{} does not fit on {}: {}", what(g), gpu.slug,
                    describe(gpu, mc.why, mc.items)),
        std::move(notes));
    return mc;
  }

  // What the core says about one request on one model.
  struct answer {
    std::uint64_t layout_count = 0;
    std::optional<layout> preferred;
    reason why;
    std::vector<closest_fit> closest;
  };

  // The core's answer, solved once per distinct request and model: configs
  // repeat a geometry for every device filter and node type, and a file of
  // many entries costs its distinct geometries, not its entries.
  const answer& solved(const gpu_model& gpu, const std::vector<item>& items) {
    auto [it, fresh] = solved_.try_emplace({&gpu, items});
    answer& a = it->second;
    if (!fresh) return a;
    solve_options one;
    one.max_layouts = 1;
    const solution sol = solve(gpu, items, one);
    if (sol.feasible()) {
      a.layout_count = sol.layout_count;
      a.preferred = sol.layouts.front().where;
    } else {
      a.why = explain(gpu, items, sol.why);
      a.closest = closest_fits(gpu, items, 3);
    }
    return a;
  }

  void report_fits(const geometry_spec& g, const geometry_check& gc) {
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

  file_check& f_;
  const check_settings& settings_;
  const geometry_spec* current_ = nullptr;  // the geometry being checked, for diagnostics
  std::vector<std::string> names_;
  std::map<std::pair<const gpu_model*, std::vector<item>>, answer> solved_;
  std::vector<std::vector<table_target>> targets_;        // per HAMi entry, its models
  std::set<std::pair<int, const gpu_model*>> explained_;  // (entry, model) notes given
};

}  // namespace

void check_geometries(file_check& f, const check_settings& settings) { checker(f, settings).run(); }

}  // namespace migplan::cli::check

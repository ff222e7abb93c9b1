// SPDX-License-Identifier: Apache-2.0
// `migplan check`: validates migplan geometry files and NVIDIA mig-parted
// configs for CI. Reads each file (io/check_input), resolves every name
// against the catalog, asks the core whether each geometry fits on each GPU
// model it applies to, and renders the findings (render/check_report).

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <migplan/catalog.hpp>
#include <migplan/explain.hpp>
#include <migplan/search.hpp>
#include <ostream>
#include <sstream>

#include "app.hpp"
#include "error.hpp"
#include "io/check_input.hpp"
#include "io/names.hpp"
#include "io/request.hpp"
#include "render/check_report.hpp"
#include "render/messages.hpp"

namespace migplan::cli {
namespace {

using namespace check;
namespace fs = std::filesystem;

struct check_options {
  std::string gpu;
  std::string format = "text";
  bool verbose = false;
  std::vector<std::string> files;
};

// One input named on the command line, or found under a directory.
struct source {
  std::string path;             // to open ("-" for stdin)
  std::string shown;            // for diagnostics
  std::string empty_dir_error;  // set for a directory with nothing to check
};

bool checkable(const fs::path& p) {
  std::string ext = p.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

std::vector<source> expand(const std::vector<std::string>& args) {
  std::vector<source> out;
  for (const std::string& a : args) {
    std::error_code ec;
    if (a == "-" || !fs::is_directory(a, ec)) {
      out.push_back({a, a == "-" ? std::string("<stdin>") : a, {}});
      continue;
    }
    std::vector<std::string> found;
    for (auto it =
             fs::recursive_directory_iterator(a, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      std::error_code fec;
      if (it->is_regular_file(fec) && checkable(it->path()))
        found.push_back(it->path().generic_string());
    }
    std::sort(found.begin(), found.end());
    if (found.empty()) out.push_back({a, a, "no .yaml, .yml or .json files in this directory"});
    for (std::string& f : found) out.push_back({f, f, {}});
  }
  return out;
}

bool read_all(const source& s, std::istream& in, std::string& text, std::string& why) {
  if (s.path == "-") {
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
    return true;
  }
  std::ifstream f(s.path, std::ios::binary);
  if (!f) {
    why = fmt::format("cannot read file: {}", std::strerror(errno));
    return false;
  }
  text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  if (f.bad()) {
    why = fmt::format("cannot read file: {}", std::strerror(errno));
    return false;
  }
  return true;
}

bool looks_json(const source& s, std::string_view text) {
  if (s.path != "-") {
    std::string ext = fs::path(s.path).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext == ".json";
  }
  // Standard input has no name: a document that opens with '{' or '[' is JSON.
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (text[first] == '{' || text[first] == '[');
}

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// The profile of `gpu` that older drivers called `name`, or -1.
int former_profile(const gpu_model& gpu, std::string_view name) {
  for (std::size_t i = 0; i < gpu.profiles.size(); ++i)
    for (const former_name& f : gpu.profiles[i].former_names)
      if (iequal(f.name, name)) return static_cast<int>(i);
  return -1;
}

std::string former_warning(const gpu_model& gpu, int p, std::string_view name) {
  const profile& pr = gpu.profiles[static_cast<std::size_t>(p)];
  std::string_view note;
  for (const former_name& f : pr.former_names)
    if (iequal(f.name, name)) note = f.note;
  return fmt::format(
      "{} is what older {} drivers called {} (profile {}; {}); current drivers need '{}'", name,
      gpu.slug, pr.name, pr.id, note, pr.name);
}

bool current_anywhere(std::string_view name) {
  for (const gpu_model& g : catalog())
    if (find_profile(g, name) >= 0) return true;
  return false;
}

// A mig-parted name "Cc.Gg.MEMgb": a compute-instance profile when C != G;
// "1c.1g.5gb" is the GPU-instance profile 1g.5gb (mig-parted matches on C, G, GB).
bool compute_instance_name(std::string& name) {
  // Format already checked: "Cc.Gg.MEMgb[+attrs]" has a 'c' before its first dot.
  const std::size_t dot = name.find('.');
  if (dot == std::string::npos || dot < 2 || name[dot - 1] != 'c') return false;
  const std::size_t g_end = name.find('g', dot + 1);
  if (g_end == std::string::npos) return false;
  const std::string_view c(name.data(), dot - 1), g(name.data() + dot + 1, g_end - dot - 1);
  // Same digits, ignoring leading zeros, is the same slice count.
  const auto digits = [](std::string_view v) {
    while (v.size() > 1 && v.front() == '0') v.remove_prefix(1);
    return v;
  };
  if (digits(c) != digits(g)) return true;
  name.erase(0, dot + 1);
  return false;
}

std::string join_and(const std::vector<std::string>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += i + 1 == v.size() ? " and " : ", ";
    out += v[i];
  }
  return out;
}

class checker {
 public:
  checker(file_check& f, const gpu_model* forced, bool verbose)
      : f_(f), forced_(forced), verbose_(verbose) {}

  void run() {
    const bool mig_parted = f_.input.format == input_format::mig_parted;
    for (const geometry_spec& g : f_.input.geometries) {
      if (g.broken) continue;
      geometry_check gc{&g, geometry_status::valid, {}};
      if (mig_parted)
        check_mig_parted(g, gc);
      else
        check_geometry(g, gc);
      if (g.conflict) gc.status = geometry_status::invalid;
      if (verbose_) report_fits(g, gc);
      f_.geometries.push_back(std::move(gc));
    }
  }

 private:
  void add(severity s, fault k, location at, std::string message,
           std::vector<std::string> notes = {}) {
    f_.diagnostics.push_back({s, k, at, std::move(message), std::move(notes)});
  }

  std::string what(const geometry_spec& g) const {
    return f_.input.format == input_format::mig_parted ? fmt::format("config '{}'", g.label)
                                                       : fmt::format("'{}'", g.label);
  }

  void check_geometry(const geometry_spec& g, geometry_check& gc) {
    const gpu_model* gpu = forced_;
    if (!g.model.empty()) {
      auto r = resolve_gpu(g.model);
      if (!r) {
        add(severity::error, fault::invalid, g.model_at, r.error().message);
        gc.status = geometry_status::invalid;
        return;
      }
      gpu = *r;
    } else if (gpu == nullptr) {
      add(severity::error, fault::malformed, g.at,
          fmt::format("missing required key 'model' in '{}' (or give a default with --gpu)",
                      g.label));
      gc.status = geometry_status::unchecked;
      return;
    }
    std::vector<const profile_request*> items;
    for (const profile_request& r : g.items) items.push_back(&r);
    gc.models.push_back(check_on(*gpu, g, items, false));
    if (gc.models.back().status != model_check::outcome::fits) gc.status = geometry_status::invalid;
  }

  void check_mig_parted(const geometry_spec& g, geometry_check& gc) {
    if (!g.mig_enabled) return;  // MIG off: nothing to place
    std::vector<const profile_request*> items;
    std::vector<std::string> names;  // GPU-instance names, parallel to items
    for (const profile_request& r : g.items) {
      if (r.count == 0) continue;  // mig-parted skips zero counts
      std::string name = r.name;
      if (compute_instance_name(name)) {
        add(severity::note, fault::invalid, r.at,
            fmt::format("{} is a compute-instance profile; migplan checks gpu-instance geometries, "
                        "so {} entry {} is not checked",
                        r.name, what(g), g.entry));
        gc.status = geometry_status::unchecked;
        return;
      }
      if (r.count > max_item_count) {
        add(severity::error, fault::invalid, r.at,
            fmt::format("{} instances of {}: no gpu holds more than {} instances", r.count, r.name,
                        max_units));
        gc.status = geometry_status::invalid;
        return;
      }
      items.push_back(&r);
      names.push_back(name);
    }
    names_ = names;

    std::vector<const gpu_model*> models;
    if (g.has_filter) {
      std::vector<const filter_id*> unknown;
      for (const filter_id& id : g.filter) {
        if (!id.readable) continue;
        const gpu_model* hit = nullptr;
        for (const gpu_model& m : catalog())
          for (const pci_id& p : m.pci_ids)
            if (p.value == id.value && hit == nullptr) hit = &m;
        if (hit == nullptr)
          unknown.push_back(&id);
        else if (std::find(models.begin(), models.end(), hit) == models.end())
          models.push_back(hit);
      }
      if (forced_ != nullptr) {
        const bool applies = std::find(models.begin(), models.end(), forced_) != models.end();
        models.clear();
        if (applies) models.push_back(forced_);
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
    } else if (forced_ != nullptr) {
      models.push_back(forced_);
    } else {
      if (items.empty()) return;  // nothing to place: valid on every model
      if (!pick_models(g, items, models)) {
        gc.status = geometry_status::invalid;
        return;
      }
    }
    for (const gpu_model* m : models) {
      gc.models.push_back(check_on(*m, g, items, true));
      if (gc.models.back().status != model_check::outcome::fits)
        gc.status = geometry_status::invalid;
    }
  }

  // An entry without a device-filter applies to every GPU: check it on every
  // catalog model that has all of its profiles. A name that no model has today
  // but an older driver used stands for the profile it became.
  bool pick_models(const geometry_spec& g, const std::vector<const profile_request*>& items,
                   std::vector<const gpu_model*>& models) {
    bool ok = true;
    std::vector<bool> current(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      current[i] = current_anywhere(names_[i]);
      if (current[i]) continue;
      bool former = false;
      for (const gpu_model& m : catalog()) former = former || former_profile(m, names_[i]) >= 0;
      if (former) continue;
      add(severity::error, fault::invalid, items[i]->at,
          fmt::format("unknown profile '{}': no gpu in migplan's catalog has it{}", items[i]->name,
                      did_you_mean(names_[i], all_profile_names())));
      ok = false;
    }
    if (!ok) return false;
    for (const gpu_model& m : catalog()) {
      bool all = true;
      for (std::size_t i = 0; i < items.size() && all; ++i)
        all = current[i] ? find_profile(m, names_[i]) >= 0 : former_profile(m, names_[i]) >= 0;
      if (all) models.push_back(&m);
    }
    if (!models.empty()) return true;
    std::string owners;
    std::vector<std::string> seen;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (std::find(seen.begin(), seen.end(), names_[i]) != seen.end()) continue;
      seen.push_back(names_[i]);
      std::vector<std::string> slugs;
      for (const gpu_model& m : catalog())
        if (current[i] ? find_profile(m, names_[i]) >= 0 : former_profile(m, names_[i]) >= 0)
          slugs.emplace_back(m.slug);
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
      std::string unknown_message;
      if (mig_parted) {
        p = find_profile(gpu, name);
      } else {
        auto resolved = resolve_profile(gpu, name);
        if (resolved)
          p = *resolved;
        else
          unknown_message = resolved.error().message;
      }
      bool old_name = false;
      if (p < 0) {
        const int former = former_profile(gpu, strip_profile_name(name));
        if (former >= 0) {
          add(severity::warning, fault::invalid, r.at,
              former_warning(gpu, former, strip_profile_name(name)));
          p = former;
          old_name = true;
        }
      }
      if (p < 0) {
        if (unknown_message.empty()) unknown_message = resolve_profile(gpu, name).error().message;
        unknown(r, strip_profile_name(name), unknown_message);
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
    }
    if (mc.status == model_check::outcome::unknown_profile) return mc;
    mc.items = items;
    solve_options one;
    one.max_layouts = 1;
    const solution sol = solve(gpu, items, one);
    if (sol.feasible()) {
      mc.layout_count = sol.layout_count;
      mc.preferred = sol.layouts.front().where;
      return mc;
    }
    mc.status = model_check::outcome::does_not_fit;
    mc.why = explain(gpu, items, sol.why);
    mc.closest = closest_fits(gpu, items, 3);
    std::vector<std::string> notes;
    for (const closest_fit& c : mc.closest)
      notes.push_back(fmt::format("closest fit: drop {} -> {}", items_text(gpu, c.drop),
                                  layout_text(gpu, c.where.where)));
    add(severity::error, fault::invalid, g.items_at,
        fmt::format("{} does not fit on {}: {}", what(g), gpu.slug, describe(gpu, mc.why)),
        std::move(notes));
    return mc;
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
                      layout_text(*m.gpu, *m.preferred), m.layout_count,
                      m.layout_count == 1 ? "" : "s"));
    }
  }

  file_check& f_;
  const gpu_model* forced_;
  bool verbose_;
  std::vector<std::string> names_;
};

void finish_status(file_check& f) {
  bool malformed = false, invalid = false;
  for (const diagnostic& d : f.diagnostics) {
    if (d.level != severity::error) continue;
    if (d.kind == fault::malformed)
      malformed = true;
    else
      invalid = true;
  }
  for (const geometry_check& g : f.geometries)
    if (g.status == geometry_status::invalid) invalid = true;
  f.status = malformed ? file_status::malformed
             : invalid ? file_status::invalid
                       : file_status::valid;
}

file_check check_source(const source& s, std::istream& in, const gpu_model* forced, bool verbose) {
  file_check f;
  f.path = s.shown;
  if (!s.empty_dir_error.empty()) {
    f.status = file_status::unreadable;
    f.diagnostics.push_back({severity::error, fault::malformed, {}, s.empty_dir_error, {}});
    return f;
  }
  std::string why;
  if (!read_all(s, in, f.text, why)) {
    f.status = file_status::unreadable;
    f.diagnostics.push_back({severity::error, fault::malformed, {}, why, {}});
    return f;
  }
  f.input = parse_check_input(f.text, looks_json(s, f.text));
  f.diagnostics = f.input.diagnostics;
  checker(f, forced, verbose).run();
  std::stable_sort(f.diagnostics.begin(), f.diagnostics.end(),
                   [](const diagnostic& a, const diagnostic& b) {
                     return a.at.line != b.at.line ? a.at.line < b.at.line : a.at.col < b.at.col;
                   });
  finish_status(f);
  return f;
}

int run_check(const check_options& opt, context& ctx) {
  if (opt.files.empty()) {
    ctx.err << "migplan: check: no files given (name files or directories, or - for standard "
               "input)\n";
    return exit_bad_input;
  }
  const gpu_model* forced = nullptr;
  if (!opt.gpu.empty()) {
    auto g = resolve_gpu(opt.gpu);
    if (!g) {
      ctx.err << "migplan: " << g.error().message << "\n";
      return exit_bad_input;
    }
    forced = *g;
  }
  std::vector<file_check> files;
  for (const source& s : expand(opt.files))
    files.push_back(check_source(s, ctx.in, forced, opt.verbose));
  const summary sum = summarize(files);
  if (opt.format == "json") {
    render_json(ctx.out, files, sum);
  } else if (opt.format == "github") {
    render_github(ctx.out, files);
    ctx.err << summary_line(sum) << "\n";
  } else {
    render_text(ctx.err, files);
    ctx.err << summary_line(sum) << "\n";
  }
  return sum.exit_code;
}

}  // namespace

void add_check(CLI::App& app, context& ctx) {
  auto opt = std::make_shared<check_options>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Validate migplan geometry files and NVIDIA mig-parted configs: syntax, schema, profile "
      "names and whether every geometry fits");
  cmd->add_option("--gpu", opt->gpu,
                  "GPU model (slug, nvidia-smi name or PCI ID): the model of geometry-file entries "
                  "that name none; for mig-parted configs, check only on this model");
  cmd->add_option("--format", opt->format, "Output: text (stderr), json or github (stdout)")
      ->check(CLI::IsMember({"text", "json", "github"}));
  cmd->add_flag("-v,--verbose", opt->verbose,
                "Also report, as notes, each model a geometry fits on and its preferred layout");
  cmd->add_option("FILE", opt->files,
                  "Files to check ('-' reads standard input; a directory means every *.yaml, "
                  "*.yml and *.json file under it)");
  cmd->footer(
      "Exit codes: 0 every geometry valid, 1 a geometry invalid or impossible, 2 a file unreadable "
      "or malformed (the worst file wins).");
  cmd->callback([opt, &ctx] { ctx.code = run_check(*opt, ctx); });
}

}  // namespace migplan::cli

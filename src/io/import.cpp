// SPDX-License-Identifier: Apache-2.0
#include "io/import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "io/model_file.hpp"
#include "io/text_view.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

// What a listing must be to be imported: read, MIG on, whole, not empty.
template <class Listing>
result<Listing> whole_listing(const capture_text& c, smi::read_result<Listing> listing,
                              std::string_view option) {
  if (!listing) return error{in_file(listing.error(), c.shown)};
  if (listing->mig_disabled)
    return error{fmt::format("{}: nvidia-smi says no GPU has MIG enabled", c.shown)};
  if (!listing->complete) {
    diagnostic d = in_file(listing->notes.front(), c.shown);
    d.message += fmt::format("; import needs the whole listing of nvidia-smi mig {}", option);
    return error{d};
  }
  if (listing->rows.empty()) return error{fmt::format("{}: the listing has no profiles", c.shown)};
  return std::move(*listing);
}

// The GPU both listings are about.
result<int> pick_gpu(const capture_text& lgip, const std::vector<int>& lgip_gpus,
                     const capture_text& lgipp, const std::vector<int>& lgipp_gpus,
                     std::optional<int> index) {
  if (index) {
    for (const auto& [c, gpus] : {std::pair{&lgip, &lgip_gpus}, std::pair{&lgipp, &lgipp_gpus}})
      if (std::find(gpus->begin(), gpus->end(), *index) == gpus->end())
        return error{fmt::format("{}: the listing has no GPU {} (it lists GPU {})", c->shown,
                                 *index, fmt::join(*gpus, ", "))};
    return *index;
  }
  for (const auto& [c, gpus] : {std::pair{&lgip, &lgip_gpus}, std::pair{&lgipp, &lgipp_gpus}})
    if (gpus->size() > 1)
      return error{fmt::format("{}: the listing holds GPUs {}; pick one with --index", c->shown,
                               fmt::join(*gpus, ", "))};
  if (lgip_gpus.front() != lgipp_gpus.front())
    return error{
        fmt::format("{} lists GPU {} and {} GPU {}: give both listings of one GPU, or "
                    "pick it with --index",
                    lgip.shown, lgip_gpus.front(), lgipp.shown, lgipp_gpus.front())};
  return lgip_gpus.front();
}

std::string with_driver(const std::string& name, const std::string& driver) {
  return driver.empty() ? name : fmt::format("{} (driver {})", name, driver);
}

// "imported-" and the full-GPU profile's name as a slug: imported-7g-40gb.
std::string default_slug(std::string_view full) {
  std::string out = "imported-";
  for (char c : full) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (word)
      out += c;
    else if (out.back() != '-')
      out += '-';
  }
  while (out.back() == '-') out.pop_back();
  return out;
}

}  // namespace

std::string capture_driver(std::string_view text) {
  text_lines lines(text);
  while (const auto raw = lines.next()) {
    const std::string_view line = trim(*raw);
    if (!line.starts_with('#')) continue;
    const std::string_view rest = trim(line.substr(1));
    if (rest.starts_with("driver:")) {
      const std::string_view value = trim(rest.substr(7));
      // The version alone ("535.183.01"), as printable text.
      return clip_token(value.substr(0, value.find_first_of(" \t")), 40);
    }
  }
  return {};
}

std::optional<int> driver_branch(std::string_view version) {
  int branch = 0;
  std::size_t i = 0;
  for (; i < version.size() && i < 6 && version[i] >= '0' && version[i] <= '9'; ++i)
    branch = branch * 10 + (version[i] - '0');
  // "515.86.01" and "575.64": digits, then a dot; a bare number is no version.
  if (i == 0 || i >= version.size() || version[i] != '.') return std::nullopt;
  return branch;
}

const gpu_model* catalog_model_of(const model_spec& spec, std::span<const gpu_model> catalog) {
  const profile_spec* whole = nullptr;
  for (const profile_spec& p : spec.profiles)
    if (p.size == spec.units && p.compute_slices == spec.compute_slices) {
      whole = &p;  // the first, as full_profile() takes it ("4g.96gb", not "4g.96gb+gfx")
      break;
    }
  if (whole == nullptr) return nullptr;
  const gpu_model* found = nullptr;
  for (const gpu_model& m : catalog) {
    const int f = full_profile(m);
    if (f < 0 || m.units != spec.units || m.compute_slices != spec.compute_slices) continue;
    const profile& full = m.profiles[static_cast<std::size_t>(f)];
    if (full.name != whole->name) continue;
    if (full.sm_count && whole->sm_count && *full.sm_count != *whole->sm_count) continue;
    if (found != nullptr) return nullptr;  // two models fit: say nothing rather than guess
    found = &m;
  }
  return found;
}

namespace {

// "R525" -> 525; the catalog holds nothing else (gen_catalog.py checks it).
std::optional<int> release_number(std::string_view r) {
  int n = 0;
  if (r.size() < 2 || r.front() != 'R') return std::nullopt;
  for (char c : r.substr(1)) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

// The warning when `driver` (of branch `branch`) is older than the model's floor.
void model_floor_warning(std::vector<std::string>& out, const gpu_model& known,
                         std::string_view driver, int branch, std::string_view shown) {
  if (const auto first = known.min_driver.empty() ? std::nullopt : release_number(known.min_driver);
      first && branch < *first)
    out.push_back(fmt::format(
        "{}: driver {} is older than {}{}, the first NVIDIA's MIG guide gives for MIG on {}", shown,
        driver, known.min_driver,
        known.min_driver_version.empty() ? "" : fmt::format(" (>= {})", known.min_driver_version),
        known.slug));
}

// The profiles of `known` with a floor of their own, later than the model's,
// and that floor.
std::vector<std::pair<const profile*, int>> later_profiles(const gpu_model& known) {
  std::vector<std::pair<const profile*, int>> out;
  for (const profile& p : known.profiles) {
    if (p.min_driver.empty() || p.min_driver == known.min_driver) continue;
    if (const std::optional<int> since = release_number(p.min_driver)) out.emplace_back(&p, *since);
  }
  return out;
}

}  // namespace

std::vector<std::string> driver_floor_warnings(const model_spec& spec, std::string_view driver,
                                               const gpu_model& known, std::string_view shown) {
  std::vector<std::string> out;
  const std::optional<int> branch = driver_branch(driver);
  if (!branch) return out;
  model_floor_warning(out, known, driver, *branch, shown);
  // A plain pair, not a structured binding: clang 14 does not let a lambda
  // capture a binding.
  for (const std::pair<const profile*, int>& later : later_profiles(known)) {
    const profile* p = later.first;
    const int since = later.second;
    const bool listed = std::any_of(spec.profiles.begin(), spec.profiles.end(),
                                    [&](const profile_spec& s) { return s.name == p->name; });
    if (listed && *branch < since)
      out.push_back(fmt::format(
          "{}: driver {} lists {}, which {} has from {} on (NVIDIA's MIG guide); check the "
          "driver the capture names",
          shown, driver, p->name, known.slug, p->min_driver));
    else if (!listed && *branch >= since)
      out.push_back(fmt::format(
          "{}: driver {} does not list {}, which {} has from {} on (NVIDIA's MIG guide); the "
          "imported model lacks it",
          shown, driver, p->name, known.slug, p->min_driver));
  }
  return out;
}

std::vector<std::string> listing_floor_warnings(const gpu_model& gpu, std::string_view driver,
                                                const std::vector<int>& profiles,
                                                std::string_view shown) {
  std::vector<std::string> out;
  const std::optional<int> branch = driver_branch(driver);
  if (!branch) return out;
  model_floor_warning(out, gpu, driver, *branch, shown);
  for (const auto& [p, since] : later_profiles(gpu)) {
    const auto index = static_cast<int>(p - gpu.profiles.data());
    if (*branch < since && std::find(profiles.begin(), profiles.end(), index) != profiles.end())
      out.push_back(fmt::format(
          "{}: driver {} shows a {} instance, which {} has from {} on (NVIDIA's MIG guide); "
          "check the driver the capture names",
          shown, driver, p->name, gpu.slug, p->min_driver));
  }
  return out;
}

result<model_spec> import_model(const capture_text& lgip, const capture_text& lgipp,
                                const import_settings& settings) {
  auto profiles = whole_listing(lgip, smi::read_lgip(lgip.text), "-lgip");
  if (!profiles) return profiles.error();
  auto placements = whole_listing(lgipp, smi::read_lgipp(lgipp.text), "-lgipp");
  if (!placements) return placements.error();
  auto gpu = pick_gpu(lgip, profiles->gpus, lgipp, placements->gpus, settings.index);
  if (!gpu) return gpu.error();

  std::map<int, const smi::lgipp_row*> starts_of;  // profile ID -> its -lgipp line
  for (const smi::lgipp_row& r : placements->rows)
    if (r.gpu == *gpu) starts_of.emplace(r.id, &r);
  std::map<int, int> listed;  // profile ID -> its -lgip line

  const std::string lgip_driver = capture_driver(lgip.text);
  const std::string lgipp_driver = capture_driver(lgipp.text);
  model_spec spec;
  std::optional<std::size_t> full;  // index of the full-GPU profile
  for (const smi::lgip_row& r : profiles->rows) {
    if (r.gpu != *gpu) continue;
    listed.emplace(r.id, r.line);
    const auto at = starts_of.find(r.id);
    if (at == starts_of.end())
      return error{fmt::format("{}: no placements for profile {} (ID {}, {})", lgipp.shown, r.name,
                               r.id, position_text(lgip.shown, r.line))};
    const smi::lgipp_row& where = *at->second;
    profile_spec p;
    p.name = r.name;
    p.id = r.id;
    p.compute_slices = profile_name_slices(r.name);
    p.size = where.placements.front().size;
    for (const smi::placement& pl : where.placements) p.starts.push_back(pl.start);
    p.max_instances = r.total;
    p.memory_gib_x100 = r.memory_gib_x100;
    p.sm_count = r.columns.sm;
    const std::optional<int> engines[] = {r.columns.ce, r.columns.dec, r.columns.enc,
                                          r.columns.jpeg, r.columns.ofa};
    for (std::size_t k = 0; k < engine_kinds; ++k)
      if (engines[k]) {
        if (*engines[k] < 0 || *engines[k] > 255)
          return error{located(
              lgip.shown, r.line,
              fmt::format("profile {} has {} {} engines", r.name, *engines[k], engine_names[k]))};
        p.engines[k] = static_cast<std::uint8_t>(*engines[k]);
      }
    p.source = with_driver(lgip.name, lgip_driver);
    p.placements_source = with_driver(lgipp.name, lgipp_driver);
    spec.profiles.push_back(std::move(p));
    // The full-GPU profile: the most compute slices, then the most units.
    const profile_spec& q = spec.profiles.back();
    if (!full || q.compute_slices > spec.profiles[*full].compute_slices ||
        (q.compute_slices == spec.profiles[*full].compute_slices &&
         q.size > spec.profiles[*full].size))
      full = spec.profiles.size() - 1;
  }
  for (const auto& [id, row] : starts_of)
    if (listed.count(id) == 0)
      return error{located(
          lgipp.shown, row->line,
          fmt::format("placements for profile ID {}, which {} does not list", id, lgip.shown))};

  const profile_spec& whole = spec.profiles[*full];
  spec.units = whole.size;
  spec.compute_slices = whole.compute_slices;
  spec.slug = settings.slug.empty() ? default_slug(whole.name) : settings.slug;
  spec.description = settings.description.empty()
                         ? fmt::format(
                               "GPU imported from nvidia-smi mig -lgip and -lgipp "
                               "(full-GPU profile {})",
                               whole.name)
                         : settings.description;
  spec.pci_ids = settings.pci_ids;
  std::string drivers;
  if (!lgip_driver.empty() && lgip_driver == lgipp_driver)
    drivers = fmt::format(" (driver {})", lgip_driver);
  else if (!lgip_driver.empty() || !lgipp_driver.empty())
    drivers = fmt::format(" (drivers {} and {})", lgip_driver.empty() ? "unknown" : lgip_driver,
                          lgipp_driver.empty() ? "unknown" : lgipp_driver);
  spec.source = fmt::format("migplan import of nvidia-smi mig -lgip {} and -lgipp {}{}", lgip.name,
                            lgipp.name, drivers);
  return spec;
}

}  // namespace migplan::cli

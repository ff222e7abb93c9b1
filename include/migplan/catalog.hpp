// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file catalog.hpp
/// The built-in GPU models and lookups over them. The tables live in
/// detail/catalog_data.hpp, generated from data/mig-profiles.json by
/// data/gen_catalog.py; every model names the data/ evidence it was
/// transcribed from (`gpu_model::evidence`). Everything here is constexpr and
/// allocation-free.

#include <cstdint>
#include <migplan/detail/catalog_data.hpp>
#include <migplan/detail/strings.hpp>
#include <migplan/gpu.hpp>
#include <optional>
#include <span>
#include <string_view>

namespace migplan {
inline namespace v1 {

namespace detail {
/// `name` without a leading "NVIDIA " (any case): older drivers print "A100-SXM4-40GB",
/// newer ones "NVIDIA A100-SXM4-40GB".
constexpr std::string_view strip_vendor(std::string_view name) noexcept {
  constexpr std::string_view vendor = "NVIDIA ";
  return istarts_with(name, vendor) ? name.substr(vendor.size()) : name;
}
}  // namespace detail

/// All built-in models, in catalog order (a30, a100-40gb, ..., rtx-pro-4500).
constexpr std::span<const gpu_model> catalog() noexcept { return detail::catalog_models; }

/// A set of models to look in instead of the catalog: the catalog's models and
/// others that an embedding program holds (the CLI's models loaded from files).
/// Each lookup below has an overload taking one; the first match in list order wins.
using model_list = std::span<const gpu_model* const>;

/// The revision of the data the catalog was generated from: the first 12 hex
/// digits of the SHA-256 of data/mig-profiles.json and data/models.json.
/// Two builds with the same revision have the same tables.
constexpr std::string_view catalog_revision() noexcept { return detail::catalog_revision; }

namespace detail {
// The fixed-size tables of the core (profile_counts, layout, unit_mask,
// room_memo's placement set) index without checks; these hold for every
// built-in model, so only hand-made models need the runtime asserts.
constexpr bool every_model(bool (*ok)(const gpu_model&)) noexcept {
  for (const gpu_model& m : catalog_models)
    if (!ok(m)) return false;
  return true;
}
}  // namespace detail

static_assert(detail::every_model([](const gpu_model& m) {
                return m.profiles.size() <= static_cast<std::size_t>(max_profiles);
              }),
              "a catalog model has more than max_profiles profiles");
static_assert(detail::every_model([](const gpu_model& m) {
                return m.units >= 1 && m.units <= max_units;
              }),
              "a catalog model has no units or more than max_units");
static_assert(detail::every_model([](const gpu_model& m) {
                return placement_count(m) <= max_placements;
              }),
              "a catalog model has more placements than room_memo's 64-bit set holds");

namespace detail {
// The model an element of a list stands for: the catalog holds models, a model_list pointers.
constexpr const gpu_model& as_model(const gpu_model& m) noexcept { return m; }
constexpr const gpu_model& as_model(const gpu_model* m) noexcept { return *m; }

// The first model of `models` for which `match` holds, or nullptr.
template <class Models, class Match>
constexpr const gpu_model* first_model(const Models& models, Match match) noexcept {
  for (const auto& element : models) {
    const gpu_model& m = as_model(element);
    if (match(m)) return &m;
  }
  return nullptr;
}

constexpr auto slug_is(std::string_view slug) noexcept {
  return [slug](const gpu_model& m) { return iequals(m.slug, slug); };
}

constexpr auto lists_pci(std::uint32_t id) noexcept {
  return [id](const gpu_model& m) {
    const bool device_only = id <= 0xFFFFu;
    for (const pci_id& p : m.pci_ids) {
      if (device_only ? (p.value >> 16) == id : p.value == id) return true;
    }
    return false;
  };
}

constexpr auto named_by_smi(std::string_view name) noexcept {
  return [wanted = strip_vendor(name)](const gpu_model& m) {
    for (std::string_view known : m.smi_names) {
      if (iequals(strip_vendor(known), wanted)) return true;
    }
    return false;
  };
}

constexpr auto lists_full_pci(std::uint32_t id) noexcept {
  return [id](const gpu_model& m) {
    for (const pci_id& p : m.pci_ids) {
      if (p.value == id) return true;
    }
    return false;
  };
}
}  // namespace detail

/// The model whose slug equals `slug` ignoring ASCII case, or nullptr.
constexpr const gpu_model* find_model(std::string_view slug) noexcept {
  return detail::first_model(catalog(), detail::slug_is(slug));
}
/// find_model() over `models` instead of the catalog.
constexpr const gpu_model* find_model(model_list models, std::string_view slug) noexcept {
  return detail::first_model(models, detail::slug_is(slug));
}

/// The model listing PCI ID `id`, or nullptr. `id` is either a full ID as nvidia-smi
/// prints it (device in the upper 16 bits, vendor 0x10DE in the lower: 0x20B010DE) or the
/// 16-bit device part alone (0x20B0). Mappings marked `pci_id::inferred` match too; callers
/// that care can check the flag on the returned model's `pci_ids`.
constexpr const gpu_model* find_model_by_pci(std::uint32_t id) noexcept {
  return detail::first_model(catalog(), detail::lists_pci(id));
}
/// find_model_by_pci() over `models` instead of the catalog.
constexpr const gpu_model* find_model_by_pci(model_list models, std::uint32_t id) noexcept {
  return detail::first_model(models, detail::lists_pci(id));
}

/// The model one of whose `smi_names` equals `name`, ignoring ASCII case and an optional
/// leading "NVIDIA " on either side; nullptr if none. Names truncated by nvidia-smi's main
/// table ("NVIDIA A100 80G...") do not match.
constexpr const gpu_model* find_model_by_smi_name(std::string_view name) noexcept {
  return detail::first_model(catalog(), detail::named_by_smi(name));
}
/// find_model_by_smi_name() over `models` instead of the catalog.
constexpr const gpu_model* find_model_by_smi_name(model_list models,
                                                  std::string_view name) noexcept {
  return detail::first_model(models, detail::named_by_smi(name));
}

/// Index in `m.profiles` of the profile named `name` (ignoring ASCII case, without "MIG "),
/// or -1. Only current names match, not `profile::former_names`.
constexpr int find_profile(const gpu_model& m, std::string_view name) noexcept {
  for (std::size_t i = 0; i < m.profiles.size(); ++i) {
    if (detail::iequals(m.profiles[i].name, name)) return static_cast<int>(i);
  }
  return -1;
}

/// Index in `m.profiles` of the profile with `-lgip` ID `id`, or -1.
constexpr int find_profile_by_id(const gpu_model& m, int id) noexcept {
  for (std::size_t i = 0; i < m.profiles.size(); ++i) {
    if (m.profiles[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

/// The model listing exactly the full PCI ID `id` (device in the upper 16 bits, vendor in the
/// lower), or nullptr. Unlike find_model_by_pci, a value of 0xFFFF or less is not a device part
/// alone: a mig-parted `device-filter` of 0x20B0 matches no NVIDIA GPU, and neither does it here.
constexpr const gpu_model* find_model_by_full_pci(std::uint32_t id) noexcept {
  return detail::first_model(catalog(), detail::lists_full_pci(id));
}
/// find_model_by_full_pci() over `models` instead of the catalog.
constexpr const gpu_model* find_model_by_full_pci(model_list models, std::uint32_t id) noexcept {
  return detail::first_model(models, detail::lists_full_pci(id));
}

/// The former name `name` of profile `p` (ignoring ASCII case), or nullptr.
constexpr const former_name* find_former_name(const profile& p, std::string_view name) noexcept {
  for (const former_name& f : p.former_names) {
    if (detail::iequals(f.name, name)) return &f;
  }
  return nullptr;
}

/// Index in `m.profiles` of the profile that older drivers called `name`, or -1.
constexpr int find_profile_by_former_name(const gpu_model& m, std::string_view name) noexcept {
  for (std::size_t i = 0; i < m.profiles.size(); ++i) {
    if (find_former_name(m.profiles[i], name) != nullptr) return static_cast<int>(i);
  }
  return -1;
}

/// The circulating name `name` of profile `p` (ignoring ASCII case), or nullptr.
constexpr const circulating_name* find_circulating_name(const profile& p,
                                                        std::string_view name) noexcept {
  for (const circulating_name& c : p.circulating_names) {
    if (detail::iequals(c.name, name)) return &c;
  }
  return nullptr;
}

/// Index in `m.profiles` of the profile third-party tools call `name` though no driver
/// printed it, or -1. Such a name is never accepted as the profile: it only explains.
constexpr int find_profile_by_circulating_name(const gpu_model& m, std::string_view name) noexcept {
  for (std::size_t i = 0; i < m.profiles.size(); ++i) {
    if (find_circulating_name(m.profiles[i], name) != nullptr) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace v1
}  // namespace migplan

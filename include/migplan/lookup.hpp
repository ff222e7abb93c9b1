// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file lookup.hpp
/// Lookups of models and profiles by slug, PCI ID, nvidia-smi name and
/// profile name, over a list of models the caller holds (`model_list`).
/// catalog.hpp adds the built-in models and the same lookups over them;
/// this header holds no model tables, so code that is handed its models
/// (the CLI passes the catalog and the models it loaded from files) does
/// not recompile when the catalog's data change. Everything here is
/// constexpr and allocation-free.

#include <cstdint>
#include <migplan/detail/strings.hpp>
#include <migplan/gpu.hpp>
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

/// A set of models to look in: the catalog's models and others that an embedding
/// program holds (the CLI's models loaded from files). The first match in list
/// order wins.
using model_list = std::span<const gpu_model* const>;

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

/// The model of `models` whose slug equals `slug` ignoring ASCII case, or nullptr.
constexpr const gpu_model* find_model(model_list models, std::string_view slug) noexcept {
  return detail::first_model(models, detail::slug_is(slug));
}

/// The model of `models` listing PCI ID `id`, or nullptr. `id` is either a full ID as
/// nvidia-smi prints it (device in the upper 16 bits, vendor 0x10DE in the lower: 0x20B010DE)
/// or the 16-bit device part alone (0x20B0). Mappings marked `pci_id::inferred` match too;
/// callers that care can check the flag on the returned model's `pci_ids`.
constexpr const gpu_model* find_model_by_pci(model_list models, std::uint32_t id) noexcept {
  return detail::first_model(models, detail::lists_pci(id));
}

/// The model of `models` one of whose `smi_names` equals `name`, ignoring ASCII case and an
/// optional leading "NVIDIA " on either side; nullptr if none. Names truncated by nvidia-smi's
/// main table ("NVIDIA A100 80G...") do not match.
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

/// The model of `models` listing exactly the full PCI ID `id` (device in the upper 16 bits,
/// vendor in the lower), or nullptr. Unlike find_model_by_pci, a value of 0xFFFF or less is
/// not a device part alone: a mig-parted `device-filter` of 0x20B0 matches no NVIDIA GPU, and
/// neither does it here.
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

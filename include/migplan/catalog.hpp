// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file catalog.hpp
/// The built-in GPU models, and the lookups of lookup.hpp over them. The
/// tables live in detail/catalog_data.hpp, generated from
/// data/mig-profiles.json by data/gen_catalog.py; every model names the
/// data/ evidence it was transcribed from (`gpu_model::evidence`).
/// Everything here is constexpr and allocation-free.

#include <cstdint>
#include <migplan/detail/catalog_data.hpp>
#include <migplan/gpu.hpp>
#include <migplan/lookup.hpp>
#include <span>
#include <string_view>

namespace migplan {
inline namespace v1 {

/// All built-in models, in catalog order (a30, a100-40gb, ..., rtx-pro-4500).
constexpr std::span<const gpu_model> catalog() noexcept { return detail::catalog_models; }

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

/// find_model() over the catalog.
constexpr const gpu_model* find_model(std::string_view slug) noexcept {
  return detail::first_model(catalog(), detail::slug_is(slug));
}

/// find_model_by_pci() over the catalog.
constexpr const gpu_model* find_model_by_pci(std::uint32_t id) noexcept {
  return detail::first_model(catalog(), detail::lists_pci(id));
}

/// find_model_by_smi_name() over the catalog.
constexpr const gpu_model* find_model_by_smi_name(std::string_view name) noexcept {
  return detail::first_model(catalog(), detail::named_by_smi(name));
}

/// find_model_by_full_pci() over the catalog.
constexpr const gpu_model* find_model_by_full_pci(std::uint32_t id) noexcept {
  return detail::first_model(catalog(), detail::lists_full_pci(id));
}

}  // namespace v1
}  // namespace migplan

// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file gpu.hpp
/// The data model: a MIG-capable GPU model and its GPU-instance profiles, as
/// plain aggregates usable at compile time. Unknown values are empty
/// optionals, never invented; every profile says where it came from and which
/// of its fields were inferred rather than observed.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace migplan {
inline namespace v1 {

/// Most placement units a model may have: a layout holds at most this many
/// instances and unit_mask must hold every unit (the catalog's widest, the RTX
/// PRO 6000, has 12; catalog.hpp checks every model at compile time).
inline constexpr int max_units = 16;

/// Most profiles a model may have: profile_counts holds one count per profile
/// (the catalog's most, the RTX PRO 6000's, is 11; catalog.hpp checks every model).
inline constexpr int max_profiles = 16;

/// Most placements (profile, start pairs) a model may have: room_memo keeps a
/// set of them in one 64-bit word (catalog.hpp checks every model).
inline constexpr std::size_t max_placements = 64;

/// A set of placement units, bit i = unit i.
using unit_mask = std::uint32_t;

/// The media and copy engines a profile owns. Order matches `engine_names`.
enum class engine : std::uint8_t { ce, dec, enc, jpg, ofa };
/// Number of engine kinds.
inline constexpr std::size_t engine_kinds = 5;
/// Short names as `nvidia-smi mig -lgip` heads its columns.
inline constexpr std::array<std::string_view, engine_kinds> engine_names{"CE", "DEC", "ENC", "JPG",
                                                                         "OFA"};
/// Engine counts of one profile; an empty optional is unknown.
using engine_counts = std::array<std::optional<std::uint8_t>, engine_kinds>;

/// Fields of a profile that can be inferred rather than observed (bit flags).
enum class field : std::uint16_t {
  none = 0,
  id = 1u << 0,
  sm_count = 1u << 1,
  memory = 1u << 2,
  engines = 1u << 3,
  ce = 1u << 4,
  max_instances = 1u << 5,
  placements = 1u << 6,
  default_ci = 1u << 7,  ///< of a compute-instance profile: that `-C` creates it
};
/// Union of field flags.
constexpr field operator|(field a, field b) noexcept {
  return static_cast<field>(static_cast<std::uint16_t>(a) | static_cast<std::uint16_t>(b));
}
/// True when `set` contains `f`.
constexpr bool has(field set, field f) noexcept {
  return (static_cast<std::uint16_t>(set) & static_cast<std::uint16_t>(f)) != 0;
}

/// A name an older driver printed for a profile that now has another name.
struct former_name {
  std::string_view name;  ///< the old name, e.g. "3g.95gb"
  std::string_view note;  ///< where and when it was seen
};

/// A profile name that circulates in third-party tools though no driver printed it
/// (HAMi's and nos's "7g.79gb" for A100-80GB's 7g.80gb): a hint for people who type it,
/// never accepted as the profile.
struct circulating_name {
  std::string_view name;  ///< the name the tools use, e.g. "7g.79gb"
  std::string_view note;  ///< who uses it and why it is not the driver's name
};

/// Where a profile's values come from.
struct provenance {
  std::string_view source;             ///< capture or document for the row
  std::string_view placements_source;  ///< capture or document for the placements
  field inferred = field::none;        ///< fields not observed but inferred by analogy
  std::string_view notes;              ///< conflicts and caveats, may be empty
};

/// One compute-instance profile of a GPU-instance profile, as `nvidia-smi mig -lcip`
/// lists it. A CI owns `compute_slices` of its GI's compute slices and shares the GI's
/// memory and engines; where it may start inside the GI is compute.hpp's rule.
struct ci_profile {
  std::string_view name;        ///< as -lcip prints it, without "MIG " ("1c.3g.20gb"); the
                                ///< CI that owns every slice carries the GI's name ("3g.20gb")
  int id = 0;                   ///< CI profile ID as -lcip prints it (not unique across GIs)
  int compute_slices = 0;       ///< the "c" of "1c.3g.20gb"; the GI's slices for the full CI
  std::optional<int> sm_count;  ///< SMs of the CI
  int max_instances = 0;        ///< most CIs of this profile in one GI ("Total" of -lcip)
  bool is_default = false;      ///< the CI `-cgi ... -C` creates ('*' in -lcip)
  provenance prov{};            ///< placements_source stays empty: no -lcipp capture exists
};

/// One GPU-instance profile of one GPU model.
struct profile {
  std::string_view name;   ///< as nvidia-smi prints it, without "MIG " (e.g. "1g.5gb+me")
  int id = 0;              ///< profile ID as printed by `nvidia-smi mig -lgip` (not the NVML enum)
  int compute_slices = 0;  ///< the "g" of the name
  int size = 0;            ///< placement units one instance occupies
  unit_mask starts = 0;    ///< allowed start units, as `-lgipp` prints them
  int max_instances = 0;   ///< instance cap on an empty GPU ("Total" of -lgip)
  std::optional<int> memory_gib_x100;  ///< -lgip "Memory GiB" x 100 (4.75 -> 475)
  std::optional<int> sm_count;         ///< SMs of the instance
  engine_counts engines{};             ///< CE, DEC, ENC, JPG, OFA
  std::string_view min_driver;         ///< first driver branch with the profile, empty if unknown
  provenance prov{};
  std::span<const former_name> former_names{};
  std::span<const circulating_name> circulating_names{};
  /// Its compute-instance profiles; empty when no source lists them (unknown, not none:
  /// every GI has at least the full CI that `-C` creates).
  std::span<const ci_profile> ci_profiles{};

  /// Mask of the units this profile occupies when started at `start`.
  constexpr unit_mask mask_at(int start) const noexcept {
    return ((unit_mask{1} << size) - 1) << start;
  }
  /// True when `start` is one of the allowed starts.
  constexpr bool allows_start(int start) const noexcept {
    return start >= 0 && start < max_units && ((starts >> start) & 1u) != 0;
  }
  /// True when any field of the row is inferred.
  constexpr bool inferred() const noexcept { return prov.inferred != field::none; }
};

/// A PCI device ID (e.g. 0x20B010DE) and whether its mapping to the model is inferred.
struct pci_id {
  std::uint32_t value = 0;
  bool inferred = false;
};

/// How well the tables of a model are backed by real captures.
enum class coverage : std::uint8_t {
  full,         ///< -lgip and -lgipp captured
  partial,      ///< some rows or the placements inferred
  config_only,  ///< names and counts from NVIDIA configs only; nothing captured
};

/// A MIG-capable GPU model.
struct gpu_model {
  std::string_view slug;         ///< stable identifier used by --gpu (e.g. "a100-40gb")
  std::string_view description;  ///< human description; may describe rather than quote a name
  std::span<const std::string_view> smi_names;  ///< names exactly as nvidia-smi prints them
  std::span<const pci_id> pci_ids;
  std::optional<int> memory_mib;  ///< total framebuffer as nvidia-smi reports it
  int units = 0;                  ///< placement units (memory slices on 8-unit boards)
  int compute_slices = 0;         ///< compute (SM) slices
  std::span<const profile> profiles;
  coverage cover = coverage::full;
  std::string_view coverage_note;  ///< what is and is not captured
  std::string_view evidence;       ///< data/ files the tables were transcribed from
  /// First driver branch with MIG on this model ("R450"), as NVIDIA's MIG guide gives it;
  /// empty when no source gives one. A profile's own `min_driver` may be later.
  std::string_view min_driver{};
  /// First driver version of that branch ("450.80.02"); empty when unknown.
  std::string_view min_driver_version{};

  /// Mask of all placement units.
  constexpr unit_mask all_units() const noexcept { return (unit_mask{1} << units) - 1; }
  /// The model's name: the first name nvidia-smi prints for it, or empty when no source
  /// shows one (then only `description` and `slug` name it).
  constexpr std::string_view name() const noexcept {
    return smi_names.empty() ? std::string_view{} : smi_names.front();
  }
};

/// The first driver branch with profile `p` of model `m`: its own `min_driver`
/// when it has one, else the model's; empty when neither is known.
constexpr std::string_view profile_min_driver(const gpu_model& m, const profile& p) noexcept {
  return p.min_driver.empty() ? m.min_driver : p.min_driver;
}

/// Index of the full-GPU profile: the first that takes every unit and every
/// compute slice (e.g. 7g.40gb on A100-40GB), or -1. The one definition of it:
/// engine budgets and stranded memory are both measured against this profile.
constexpr int full_profile(const gpu_model& m) noexcept {
  for (std::size_t i = 0; i < m.profiles.size(); ++i) {
    const profile& p = m.profiles[i];
    if (p.size == m.units && p.compute_slices == m.compute_slices) return static_cast<int>(i);
  }
  return -1;
}

/// Number of placements (profile, start pairs with an allowed start) of a model.
constexpr std::size_t placement_count(const gpu_model& m) noexcept {
  std::size_t n = 0;
  for (const profile& p : m.profiles)
    for (int s = 0; s < m.units; ++s)
      if (p.allows_start(s)) ++n;
  return n;
}

}  // namespace v1
}  // namespace migplan

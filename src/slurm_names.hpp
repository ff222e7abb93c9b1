// SPDX-License-Identifier: Apache-2.0
#pragma once

// The names Slurm takes, checked in one place: the plan service refuses a
// plan whose nodes Slurm cannot name before render/ writes a line, and
// render/slurm types a GPU with MIG off by the same word.

#include <algorithm>
#include <cctype>
#include <migplan/gpu.hpp>
#include <string>
#include <string_view>

namespace migplan::cli::slurm {

/// A name as slurmd writes it: lower case, spaces as '_'.
inline std::string underscored(std::string_view name) {
  std::string out;
  for (char c : name)
    out += c == ' ' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// True for a node name a slurm.conf line can hold as it is.
inline bool node_name(std::string_view name) {
  return !name.empty() && name.size() <= 253 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
  });
}

/// The type to configure for a GPU with MIG off, which slurmd names by its
/// nvidia-smi name in lower case, spaces as '_' ("nvidia_a100-sxm4-40gb"):
/// the name's first word after "NVIDIA", up to a '-' ("a100"), as Slurm's
/// docs write it, cut to 5 characters. Every MIG device's name contains it
/// too, but it is shorter than every MIG type, so slurmd tries it last and it
/// takes only what no MIG type takes. Empty where no such word is in every
/// name of the model (or it has none).
inline std::string gpu_type(const gpu_model& g) {
  // The name's first word after "NVIDIA", up to a '-': "a100", "h200", "gh200".
  std::string_view name = g.name();
  if (name.empty()) return {};
  if (name.starts_with("NVIDIA ")) name.remove_prefix(7);
  std::string token = underscored(name.substr(0, name.find_first_of(" -")));
  // Shorter than every MIG type ("1g.5gb"), so slurmd tries it after them
  // (a longer one would take MIG devices, whose names contain it), and in
  // every name of the model.
  if (token.size() > 5) token.resize(5);
  for (std::string_view n : g.smi_names)
    if (underscored(n).find(token) == std::string::npos) return {};
  return token;
}

}  // namespace migplan::cli::slurm

// SPDX-License-Identifier: Apache-2.0
#include "render/mig_parted.hpp"

#include <fmt/format.h>

#include <ostream>

#include "render/yaml.hpp"

namespace migplan::cli::render {

std::string label_word(std::string_view profile_name) {
  std::string out(profile_name);
  for (char& c : out)
    if (c == '+') c = '.';
  return out;
}

std::string comment_safe(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

std::string comment_lines(std::string_view text) {
  if (text.starts_with("  ")) return "#" + comment_safe(text) + "\n";
  std::string out, line;
  const std::string safe = comment_safe(text);
  std::size_t i = 0;
  while (i < safe.size()) {
    while (i < safe.size() && safe[i] == ' ') ++i;
    std::size_t j = i;
    while (j < safe.size() && safe[j] != ' ') ++j;
    if (j == i) break;
    const std::string_view word(safe.data() + i, j - i);
    if (!line.empty() && line.size() + 1 + word.size() > 76) {
      out += "# " + line + "\n";
      line.clear();
    }
    line += line.empty() ? "" : " ";
    line += word;
    i = j;
  }
  return line.empty() && out.empty() ? "#\n" : out + (line.empty() ? "" : "# " + line + "\n");
}

void mig_parted(std::ostream& os, const mig_parted_config& config) {
  std::string out;
  for (const std::string& paragraph : config.header) out += comment_lines(paragraph);
  out += "version: v1\nmig-configs:\n";
  bool first = true;
  for (const mig_parted_label& label : config.labels) {
    if (!first) out += "\n";
    first = false;
    out += fmt::format("  {}:\n", yaml_scalar(label.name));
    for (const mig_parted_entry& e : label.entries) {
      const gpu_model& g = *e.gpu;
      const std::string name(g.name().empty() ? g.description : g.name());
      out += fmt::format("    # {}: {}\n", comment_safe(g.slug), comment_safe(name));
      std::string ids, inferred;
      for (const pci_id& id : g.pci_ids) {
        const std::string text = fmt::format("0x{:08X}", id.value);
        ids += fmt::format("{}\"{}\"", ids.empty() ? "" : ", ", text);
        if (id.inferred) inferred += fmt::format("{}{}", inferred.empty() ? "" : ", ", text);
      }
      if (!inferred.empty())
        out += fmt::format("    # {} {} {} by inference (no capture shows it)\n", inferred,
                           inferred.find(',') == std::string::npos ? "maps to" : "map to", g.slug);
      if (ids.empty()) {
        out += "    # no PCI ID is known for this model: the entry applies to every GPU\n";
        out += "    - devices: all\n";
      } else {
        out += fmt::format("    - device-filter: [{}]\n      devices: all\n", ids);
      }
      out += fmt::format("      mig-enabled: {}\n", e.enabled ? "true" : "false");
      if (!e.enabled) continue;
      if (e.devices.empty() && e.compute.empty()) {
        out += "      mig-devices: {}\n";
        continue;
      }
      out += "      mig-devices:\n";
      for (const auto& [p, n] : e.devices)
        out += fmt::format("        {}: {}\n",
                           yaml_quoted(g.profiles[static_cast<std::size_t>(p)].name), n);
      for (const auto& [ci, n] : e.compute)
        out += fmt::format("        {}: {}\n", yaml_quoted(ci), n);
    }
  }
  os << out;
}

}  // namespace migplan::cli::render

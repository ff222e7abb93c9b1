// SPDX-License-Identifier: Apache-2.0
#include "render/mig_parted.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <vector>

#include "render/yaml.hpp"

namespace migplan::cli::render {

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

namespace {

// The entry's comments and the PCI IDs its device-filter lists: every one of
// the model's, inferred ones too (model/mig_parted.hpp says why).
std::vector<std::uint32_t> filter_ids(const mig_parted_entry& e, std::string& out) {
  std::vector<std::uint32_t> ids;
  if (e.gpu == nullptr) return ids;
  const gpu_model& g = *e.gpu;
  const std::string name(g.name().empty() ? g.description : g.name());
  out += fmt::format("    # {}: {}\n", comment_safe(g.slug), comment_safe(name));
  std::string inferred;
  for (const pci_id& id : g.pci_ids) {
    ids.push_back(id.value);
    if (id.inferred) inferred += fmt::format("{}0x{:08X}", inferred.empty() ? "" : ", ", id.value);
  }
  if (!inferred.empty())
    out += fmt::format("    # {} {} {} by inference (no capture shows it)\n", inferred,
                       inferred.find(',') == std::string::npos ? "maps to" : "map to", g.slug);
  if (ids.empty())
    out += "    # no PCI ID is known for this model: the entry applies to every GPU\n";
  return ids;
}

void write_entry(std::string& out, const mig_parted_entry& e) {
  const std::vector<std::uint32_t> ids = filter_ids(e, out);
  std::string_view lead = "- ";
  if (!ids.empty()) {
    out += "    - device-filter: [";
    for (std::size_t i = 0; i < ids.size(); ++i)
      out += fmt::format("{}\"0x{:08X}\"", i == 0 ? "" : ", ", ids[i]);
    out += "]\n";
    lead = "  ";
  }
  if (e.gpu_indices.empty())
    out += fmt::format("    {}devices: all\n", lead);
  else
    out += fmt::format("    {}devices: [{}]\n", lead, fmt::join(e.gpu_indices, ", "));
  out += fmt::format("      mig-enabled: {}\n", e.enabled ? "true" : "false");
  if (!e.enabled) return;
  if (e.devices.empty() && e.compute.empty()) {
    out += "      mig-devices: {}\n";
    return;
  }
  out += "      mig-devices:\n";
  for (const auto& [p, n] : e.devices)
    out += fmt::format("        {}: {}\n",
                       yaml_quoted(e.gpu->profiles[static_cast<std::size_t>(p)].name), n);
  for (const auto& [ci, n] : e.compute) out += fmt::format("        {}: {}\n", yaml_quoted(ci), n);
}

// `text` with `indent` before every line but the blank ones (between
// labels), which stay blank: a literal block keeps them.
void write_indented(std::ostream& os, std::string_view text, std::string_view indent) {
  if (indent.empty()) {
    os << text;
    return;
  }
  for (std::size_t at = 0, end = 0; at < text.size(); at = end + 1) {
    end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size() - 1;
    if (text.substr(at, end - at).find_first_not_of(' ') != std::string_view::npos) os << indent;
    os << text.substr(at, end + 1 - at);
  }
}

}  // namespace

void mig_parted(std::ostream& os, const mig_parted_config& config, std::string_view indent) {
  std::string out;
  for (const std::string& paragraph : config.header) out += comment_lines(paragraph);
  out += "version: v1\nmig-configs:\n";
  bool first = true;
  for (const mig_parted_label& label : config.labels) {
    if (!first) out += "\n";
    first = false;
    if (!label.comment.empty()) out += fmt::format("  # {}\n", label.comment);
    out += fmt::format("  {}:\n", yaml_scalar(label.name));
    for (const mig_parted_entry& e : label.entries) write_entry(out, e);
  }
  for (const user_label& u : config.user_labels) {
    if (!first) out += "\n";
    first = false;
    out += fmt::format("  # {}, from {} line {}, as written there\n", comment_safe(u.name),
                       comment_safe(config.user_file), u.line);
    out += u.text;
  }
  write_indented(os, out, indent);
}

std::string configmap_commands(std::string_view name) {
  return fmt::format(
      "#   kubectl apply -n gpu-operator -f FILE\n"
      "#   kubectl patch clusterpolicies.nvidia.com/cluster-policy --type=json \\\n"
      "#     -p='[{{\"op\":\"replace\",\"path\":\"/spec/migManager/config/name\","
      "\"value\":\"{}\"}}]'\n",
      name);
}

void config_map(std::ostream& os, std::string_view name, std::string_view config) {
  os << fmt::format(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\ndata:\n  config.yaml: |\n", name);
  write_indented(os, config, "    ");
}

}  // namespace migplan::cli::render

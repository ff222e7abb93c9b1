// SPDX-License-Identifier: Apache-2.0
#include "io/merge_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "io/check_input.hpp"
#include "io/document.hpp"
#include "io/manifest.hpp"
#include "io/source.hpp"
#include "quote.hpp"

namespace migplan::cli {
namespace {

// The lines text[begin, end) moved left by `indent` columns and right by two;
// a line indented less (a comment) starts at two spaces; white-space lines
// are empty. "\r" before a line's end is dropped.
std::string reindent(std::string_view text, std::size_t begin, std::size_t end,
                     std::size_t indent) {
  std::string out;
  while (begin < end) {
    std::size_t nl = text.find('\n', begin);
    if (nl == std::string_view::npos || nl > end) nl = end;
    std::string_view line = text.substr(begin, nl - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t lead = std::min(line.find_first_not_of(' '), line.size());
    if (lead < line.size()) out += "  " + std::string(line.substr(std::min(lead, indent)));
    out += '\n';
    begin = nl + 1;
  }
  return out;
}

}  // namespace

result<user_config> read_user_config(const std::string& path, std::istream& in,
                                     const std::string& shown) {
  auto fail = [&](int line, std::string_view message) {
    return result<user_config>(cli::error{located(shown, line, message)});
  };
  bool too_large = false;
  auto file = read_source_bounded(path, in, max_merge_bytes, too_large);
  if (!file) {
    if (too_large) return fail(0, fmt::format("{}, the most --merge reads", file.error().message));
    return fail(0, "cannot read file: " + file.error().message);
  }
  user_config out;
  std::string_view text = *file;
  // A UTF-8 byte-order mark, which YAML readers (mig-parted's too) skip, is
  // no part of the first line: the parser's offsets do not count it.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  // A ConfigMap: its config.yaml, with positions mapped back to the file.
  std::optional<check::embedded_config> embedded;
  if (check::looks_like_manifest(text)) {
    check::manifest m = check::read_manifest(text);
    for (const diagnostic& d : m.diagnostics)
      if (d.level == severity::error) return fail(d.line, d.message);
    std::vector<check::embedded_config> configs;
    for (check::embedded_config& c : m.configs)
      if (c.key == "config.yaml") configs.push_back(std::move(c));
    if (configs.empty())
      return fail(0,
                  "a Kubernetes manifest with no ConfigMap holding config.yaml (the key the GPU "
                  "Operator reads a mig-parted config from)");
    if (configs.size() > 1) {
      std::vector<std::string> names;
      for (const auto& c : configs) names.push_back(quote_token(c.configmap));
      return fail(configs[1].key_at.line,
                  fmt::format("{} ConfigMaps hold config.yaml ({}); --merge takes one",
                              configs.size(), fmt::join(names, ", ")));
    }
    embedded = std::move(configs.front());
    out.configmap = embedded->configmap;
    text = embedded->text;
  }
  const auto in_file = [&](const doc::position& p) {
    return embedded ? embedded->map({p.line, p.column}).line : p.line;
  };
  auto root = doc::read_yaml(text, shown);
  if (!root) {
    const diagnostic& d = root.error();
    return fail(embedded ? embedded->map({d.line, d.column}).line : d.line, d.message);
  }
  const doc::node* configs = doc::member(*root, "mig-configs");
  if (configs == nullptr || !configs->is_map())
    return fail(configs ? in_file(configs->at) : 0,
                "no mig-configs mapping: --merge takes a mig-parted config (version: v1, "
                "mig-configs: ...) or a ConfigMap holding one as config.yaml");
  if (const doc::node* again = doc::repeated_key(*configs))
    return fail(in_file(again->at),
                fmt::format("label {} is given twice", quote_token(again->text)));
  // The labels are copied as lines: each key must begin its line.
  const line_table lines(text);
  const auto line_start = [&](std::size_t at) { return lines.start(lines.line_of(at)); };
  for (std::size_t k = 0; k < configs->kids.size(); k += 2) {
    const doc::node& key = configs->kids[k];
    const std::size_t from = line_start(key.at.offset);
    if (text.substr(from, key.at.offset - from).find_first_not_of(' ') != std::string_view::npos)
      return fail(in_file(key.at),
                  "mig-configs is in flow style ({...}, as JSON writes it); --merge copies "
                  "each label as written and needs block style (one label key per line)");
  }
  // Where the last label ends: the next key of the top-level mapping, a
  // document marker (the next document's "---" or this one's end, "..."),
  // or the end.
  std::size_t after = text.size();
  for (std::size_t k = 0; k + 1 < root->kids.size(); k += 2)
    if (root->kids[k].at.offset > configs->at.offset)
      after = std::min(after, line_start(root->kids[k].at.offset));
  for (const std::string_view marker : {"\n---", "\n..."})
    for (std::size_t at = 0; (at = text.find(marker, at)) != std::string_view::npos; ++at) {
      const std::size_t past = at + marker.size();
      const bool alone = past == text.size() || text[past] == ' ' || text[past] == '\t' ||
                         text[past] == '\r' || text[past] == '\n';
      if (alone && at + 1 > configs->at.offset) {
        after = std::min(after, at + 1);
        break;
      }
    }
  for (std::size_t k = 0; k < configs->kids.size(); k += 2) {
    const doc::node& key = configs->kids[k];
    const std::size_t begin = line_start(key.at.offset);
    const std::size_t end = k + 2 < configs->kids.size()
                                ? line_start(configs->kids[k + 2].at.offset)
                                : std::max(after, begin);
    const auto indent = static_cast<std::size_t>(std::max(key.at.column - 1, 0));
    std::string copied = reindent(text, begin, end, indent);
    while (copied.size() > 1 && copied.ends_with("\n\n")) copied.pop_back();  // blank lines after
    out.labels.push_back({key.text, in_file(key.at), std::move(copied)});
  }
  return out;
}

}  // namespace migplan::cli

// SPDX-License-Identifier: Apache-2.0
// Fuzz target: a Kubernetes manifest for `migplan check`. The reader must
// report, never throw or crash, and every position of an embedded config must
// map inside the file: a line it has, a column of that line or just past its
// end; a character other than white space that maps exactly, onto itself.
// check's one parse of a YAML file hands exactly the files
// looks_like_manifest names to the manifest reader.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "io/check_input.hpp"
#include "io/manifest.hpp"
#include "models.hpp"

namespace {

using namespace migplan::cli::check;

// The file's lines as yaml-cpp counts them: split at '\n', no '\r', and no
// byte-order mark (yaml-cpp's columns on the first line start after it).
std::vector<std::string_view> lines_of(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<std::string_view> out;
  for (std::size_t from = 0;;) {
    const std::size_t end = text.find('\n', from);
    std::string_view line = text.substr(from, end == std::string_view::npos ? end : end - from);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (end == std::string_view::npos) return out;
    from = end + 1;
  }
}

void require(bool ok) {
  if (!ok) std::abort();
}

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

void check_config(const embedded_config& c, const std::vector<std::string_view>& lines) {
  const auto inside = [&](location at) {
    require(at.line >= 1 && static_cast<std::size_t>(at.line) <= lines.size());
    require(at.col >= 1 && static_cast<std::size_t>(at.col) <=
                               lines[static_cast<std::size_t>(at.line - 1)].size() + 1);
  };
  inside(c.key_at);
  int line = 1, col = 1;
  for (const char ch : c.text) {
    const location at = c.map({line, col});
    inside(at);
    // Exact only where the value was traced: otherwise everything is key_at.
    if (!c.spans.empty() && !blank(ch)) {
      const std::string_view l = lines[static_cast<std::size_t>(at.line - 1)];
      require(static_cast<std::size_t>(at.col) <= l.size() &&
              l[static_cast<std::size_t>(at.col - 1)] == ch);
    }
    if (ch == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  inside(c.map({line, col}));
  inside(c.map({line + 2, 1}));
  inside(c.map({1, 100000}));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // check's one parse (parse_yaml_or_manifest) reads as a manifest exactly
  // what looks_like_manifest names one.
  bool read_as_manifest = false;
  (void)parse_yaml_or_manifest(migplan::cli::builtin_models(), text, [&read_as_manifest] {
    read_as_manifest = true;
    return parsed_input{};
  });
  require(read_as_manifest == looks_like_manifest(text));
  const manifest m = read_manifest(text);
  if (m.configs.empty()) return 0;
  const std::vector<std::string_view> lines = lines_of(text);
  for (const embedded_config& c : m.configs) check_config(c, lines);
  return 0;
}

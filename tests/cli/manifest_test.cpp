// SPDX-License-Identifier: Apache-2.0
// Kubernetes manifests for `migplan check`, in-process: which ConfigMaps are
// read, and that a position in an embedded config maps to the very character
// of the manifest file.

#include "io/manifest.hpp"

#include <catch2/catch.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "io/check_input.hpp"
#include "models.hpp"
#include "run_binary.hpp"

using namespace migplan::cli::check;
using migplan::test::read_file;

namespace migplan::cli {
std::ostream& operator<<(std::ostream& os, location l) { return os << l.line << ":" << l.col; }
}  // namespace migplan::cli

namespace {

// Line `n` (1-based) of `text` as yaml-cpp counts: split at '\n', no '\r',
// and no byte-order mark (yaml-cpp's columns on the first line start after it).
std::string_view file_line(std::string_view text, int n) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::size_t from = 0;
  for (int i = 1; i < n; ++i) {
    from = text.find('\n', from);
    if (from == std::string_view::npos) return {};
    ++from;
  }
  std::string_view line = text.substr(from);
  line = line.substr(0, line.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

int line_count(std::string_view text) {
  int n = 1;
  for (char c : text) n += c == '\n';
  return n;
}

// Every character of `c.text` other than white space maps to the same
// character of `file`; every position, white space and one past each line's
// end included, maps inside the file. Returns the characters checked.
int check_exact(std::string_view file, const embedded_config& c) {
  int checked = 0, line = 1, col = 1;
  const auto inside = [&](location at) {
    INFO("text " << line << ":" << col << " -> file " << at.line << ":" << at.col);
    REQUIRE(at.line >= 1);
    REQUIRE(at.line <= line_count(file));
    REQUIRE(at.col >= 1);
    REQUIRE(at.col <= static_cast<int>(file_line(file, at.line).size()) + 1);
  };
  for (const char ch : c.text) {
    const location at = c.map({line, col});
    inside(at);
    if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') {
      const std::string_view fl = file_line(file, at.line);
      INFO("text " << line << ":" << col << " '" << ch << "' -> file " << at.line << ":" << at.col);
      REQUIRE(fl[static_cast<std::size_t>(at.col - 1)] == ch);
      ++checked;
    }
    if (ch == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  inside(c.map({line, col}));        // the end of the text
  inside(c.map({line + 3, 1}));      // past it
  inside(c.map({1, 1000}));          // past a line's end
  CHECK(c.map({0, 0}) == c.key_at);  // unknown
  return checked;
}

// The one config of a manifest.
embedded_config only_config(std::string_view text) {
  const manifest m = read_manifest(text);
  REQUIRE(m.configs.size() == 1);
  return m.configs[0];
}

}  // namespace

TEST_CASE("a multi-document manifest yields its ConfigMap's config.yaml", "[manifest]") {
  const std::string text =
      "apiVersion: v1\n"
      "kind: Namespace\n"
      "metadata:\n"
      "  name: gpu-operator\n"
      "---\n"
      "apiVersion: v1\n"
      "kind: ConfigMap\n"
      "metadata:\n"
      "  name: custom-mig-config\n"
      "data:\n"
      "  config.yaml: |\n"
      "    version: v1\n"
      "    mig-configs:\n"
      "      all-1g:\n"
      "        - devices: all\n"
      "          mig-enabled: true\n"
      "          mig-devices: {\"1g.10gb\": 7}\n"
      "---\n"
      "apiVersion: apps/v1\n"
      "kind: Deployment\n"
      "metadata: {name: web}\n"
      "spec: {replicas: 1}\n"
      "---\n"
      "apiVersion: v1\n"
      "kind: ConfigMap\n"
      "metadata:\n"
      "  name: other\n"
      "data:\n"
      "  mig.yaml: |\n"
      "    version: v1\n"
      "    mig-configs: {}\n"
      "  README: plain text\n";
  REQUIRE(looks_like_manifest(text));
  const manifest m = read_manifest(text);
  CHECK(m.is_manifest);
  REQUIRE(m.configs.size() == 1);
  const embedded_config& c = m.configs[0];
  CHECK(c.configmap == "custom-mig-config");
  CHECK(c.document == 1);
  CHECK(c.key_at == location{11, 3});
  CHECK(c.text ==
        "version: v1\nmig-configs:\n  all-1g:\n    - devices: all\n      mig-enabled: true\n"
        "      mig-devices: {\"1g.10gb\": 7}\n");
  CHECK(c.map({1, 1}) == location{12, 5});
  CHECK(c.map({6, 21}) == location{17, 25});
  CHECK(check_exact(text, c) > 50);
  CHECK(m.skipped == 3);  // the Namespace, the Deployment, the ConfigMap without config.yaml
  REQUIRE(m.diagnostics.size() == 1);
  CHECK(m.diagnostics[0].level == severity::note);
  CHECK(m.diagnostics[0].at() == location{29, 3});
  CHECK(m.diagnostics[0].message ==
        "configmap 'other' holds a mig-parted config under 'mig.yaml', not 'config.yaml'; the "
        "gpu operator reads only 'config.yaml', so check does not check it");
}

TEST_CASE("block scalar styles map every character exactly", "[manifest]") {
  const auto wrap = [](const std::string& value) {
    return "apiVersion: v1\nkind: ConfigMap\ndata:\n  config.yaml: " + value;
  };
  SECTION("strip chomping") {
    const std::string t = wrap("|-\n    version: v1\n    mig-configs: {}\n");
    const embedded_config c = only_config(t);
    CHECK(c.text == "version: v1\nmig-configs: {}");
    CHECK(check_exact(t, c) == 24);
  }
  SECTION("keep chomping, blank lines first and between, a comment after the indicator") {
    const std::string t = wrap("|+ # the config\n\n  \n    version: v1\n\n    a:\n      - b\n\n\n");
    const embedded_config c = only_config(t);
    CHECK(c.text == "\n\nversion: v1\n\na:\n  - b\n\n\n");
    CHECK(c.map({3, 1}) == location{7, 5});
    CHECK(c.map({2, 1}) == location{6, 1});  // a blank line: its own file line
    CHECK(check_exact(t, c) == 14);
  }
  SECTION("explicit indentation keeps the deeper first line's spaces") {
    const std::string t = wrap("|2\n      version: v1\n    mig-configs: {}\n");
    const embedded_config c = only_config(t);
    CHECK(c.text == "  version: v1\nmig-configs: {}\n");
    CHECK(c.map({1, 3}) == location{5, 7});
    CHECK(c.map({1, 1}) == location{5, 5});  // white space maps beside the line's text
    CHECK(check_exact(t, c) == 24);
  }
  SECTION("folded, with more-indented lines") {
    const std::string t = wrap(">\n    one\n    two\n\n      three\n    four\n");
    const embedded_config c = only_config(t);
    CHECK(c.text == "one two\n\n  three\nfour\n");
    CHECK(c.map({1, 5}) == location{6, 5});
    CHECK(check_exact(t, c) == 15);
  }
  SECTION("CRLF line ends and a byte-order mark") {
    const std::string t =
        "\xEF\xBB\xBF"
        "apiVersion: v1\r\nkind: ConfigMap\r\ndata:\r\n  config.yaml: |\r\n"
        "    version: v1\r\n    mig-configs:\r\n      x: [1, 2]\r\n";
    const embedded_config c = only_config(t);
    CHECK(c.text == "version: v1\nmig-configs:\n  x: [1, 2]\n");
    CHECK(c.map({3, 3}) == location{7, 7});
    CHECK(check_exact(t, c) == 29);
  }
  SECTION("tabs inside the content, and no line end at the end of the file") {
    const std::string t = wrap("|\n    a:\tb\n    c: \"\t\"");
    const embedded_config c = only_config(t);
    CHECK(c.text == "a:\tb\nc: \"\t\"");
    CHECK(check_exact(t, c) == 7);
  }
}

TEST_CASE("a quoted config.yaml with escapes maps to its key", "[manifest]") {
  const std::string t =
      "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"j\"},\n"
      " \"data\": {\"config.yaml\": \"version: v1\\nmig-configs: {}\\n\"}}\n";
  CHECK(looks_like_manifest(t));
  const embedded_config c = only_config(t);
  CHECK(c.configmap == "j");
  CHECK(c.text == "version: v1\nmig-configs: {}\n");
  CHECK(c.key_at == location{2, 11});
  CHECK(c.spans.empty());
  CHECK(c.map({2, 3}) == c.key_at);
}

TEST_CASE("a quoted or plain config.yaml without escapes still maps exactly", "[manifest]") {
  const std::string t = "apiVersion: v1\nkind: ConfigMap\ndata: {config.yaml: 'version: v1'}\n";
  const embedded_config c = only_config(t);
  CHECK(c.text == "version: v1");
  CHECK(c.map({1, 10}) == location{3, 31});
  CHECK(check_exact(t, c) == 10);
}

TEST_CASE("a one-line manifest after a byte-order mark maps as yaml-cpp counts", "[manifest]") {
  const std::string t =
      "\xEF\xBB\xBF{apiVersion: v1, kind: ConfigMap, data: {config.yaml: \"version: v1\"}}";
  const embedded_config c = only_config(t);
  CHECK(c.key_at == location{1, 42});
  CHECK(c.map({1, 1}) == location{1, 56});
  CHECK(check_exact(t, c) == 10);
}

TEST_CASE("empty documents are passed over", "[manifest]") {
  const std::string t =
      "---\n---\n# nothing here\n---\napiVersion: v1\nkind: ConfigMap\ndata:\n  config.yaml: |\n"
      "    version: v1\n...\n";
  CHECK(looks_like_manifest(t));
  const manifest m = read_manifest(t);
  CHECK(m.is_manifest);
  REQUIRE(m.configs.size() == 1);
  CHECK(m.configs[0].document == 2);
  CHECK(m.configs[0].configmap.empty());
  CHECK(m.diagnostics.empty());
}

TEST_CASE("a ConfigMap with empty data holds no config", "[manifest]") {
  const manifest m =
      read_manifest("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: e}\ndata: {}\n");
  CHECK(m.is_manifest);
  CHECK(m.configs.empty());
  CHECK(m.diagnostics.empty());
  CHECK(m.skipped == 1);
}

TEST_CASE("a config.yaml that is a mapping is an error", "[manifest]") {
  const manifest m = read_manifest(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata:\n  config.yaml:\n"
      "    version: v1\n");
  CHECK(m.configs.empty());
  REQUIRE(m.diagnostics.size() == 1);
  CHECK(m.diagnostics[0].level == severity::error);
  CHECK(m.diagnostics[0].kind == fault::malformed);
  CHECK(m.diagnostics[0].at() == location{6, 5});
  CHECK(m.diagnostics[0].message ==
        "'config.yaml' in configmap 'm' is a mapping, not a string; write 'config.yaml: |' and "
        "indent the mig-parted config below it");
}

TEST_CASE("a duplicate config.yaml is a warning and the last one is read", "[manifest]") {
  const manifest m = read_manifest(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\ndata:\n  config.yaml: a\n"
      "  config.yaml: b\n");
  REQUIRE(m.configs.size() == 1);
  CHECK(m.configs[0].text == "b");
  REQUIRE(m.diagnostics.size() == 1);
  CHECK(m.diagnostics[0].level == severity::warning);
  CHECK(m.diagnostics[0].at() == location{6, 3});
  CHECK(m.diagnostics[0].message ==
        "duplicate key 'config.yaml' in configmap 'd' (first at line 5); check reads the last one");
}

TEST_CASE("the ConfigMaps of a kind: List are read", "[manifest]") {
  const std::string t =
      "apiVersion: v1\nkind: List\nitems:\n"
      "  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: in-list\n"
      "    data:\n      config.yaml: |\n        version: v1\n"
      "  - apiVersion: v1\n    kind: Service\n    metadata: {name: s}\n";
  const manifest m = read_manifest(t);
  CHECK(m.is_manifest);
  REQUIRE(m.configs.size() == 1);
  CHECK(m.configs[0].configmap == "in-list");
  CHECK(m.configs[0].text == "version: v1\n");
  CHECK(check_exact(t, m.configs[0]) == 10);
  CHECK(m.skipped == 1);
}

TEST_CASE("documents that are not Kubernetes objects get one warning", "[manifest]") {
  const manifest m = read_manifest(
      "apiVersion: v1\nkind: Namespace\n---\nversion: v1\n---\n- a\n---\nkind: Secret\n");
  CHECK(m.is_manifest);
  REQUIRE(m.diagnostics.size() == 1);
  CHECK(m.diagnostics[0].level == severity::warning);
  CHECK(m.diagnostics[0].at() == location{4, 1});
  CHECK(m.diagnostics[0].message ==
        "this yaml document and 2 more are not kubernetes objects (they have no 'apiVersion' and "
        "'kind'); check skips them");
}

TEST_CASE("files that are not manifests are told apart", "[manifest]") {
  CHECK_FALSE(looks_like_manifest("name: ci\non:\n  push:\njobs:\n  build:\n    runs-on: x\n"));
  CHECK_FALSE(looks_like_manifest("version: v1\nmig-configs:\n  a:\n    - devices: all\n"));
  CHECK_FALSE(looks_like_manifest(
      read_file(migplan::test::source_path("tests/fixtures/mig-parted/config-default.yaml"))));
  CHECK_FALSE(looks_like_manifest("version: 1\ngpus: []\n"));
  CHECK_FALSE(looks_like_manifest("kind: ConfigMap\n"));            // no apiVersion
  CHECK_FALSE(looks_like_manifest("apiVersion: v1\nkind:\n"));      // kind empty
  CHECK_FALSE(looks_like_manifest("apiVersion: v1\nkind: [a]\n"));  // kind not a scalar
  CHECK_FALSE(looks_like_manifest("a: [\nkind: x\n"));              // does not parse
  CHECK_FALSE(looks_like_manifest(""));
  CHECK_FALSE(looks_like_manifest(",\n"));
  CHECK_FALSE(looks_like_manifest("{{ .Values.x }}\n"));
  CHECK(looks_like_manifest("# c\napiVersion: v1\nkind: Pod\nspec: [\n"));  // then an error
  CHECK_FALSE(read_manifest("version: v1\nmig-configs: {}\n").is_manifest);
}

TEST_CASE("check's one parse tells manifests apart as looks_like_manifest does", "[manifest]") {
  // parse_yaml_or_manifest hands a manifest to its reader and reads anything
  // else as parse_check_input does, from the tree it decided on.
  const std::vector<std::string> texts{
      "name: ci\non:\n  push:\n",
      "version: v1\nmig-configs:\n  a:\n    - devices: all\n",
      read_file(migplan::test::source_path("tests/fixtures/mig-parted/config-default.yaml")),
      "version: 1\ngpus: []\n",
      "kind: ConfigMap\n",
      "apiVersion: v1\nkind:\n",
      "a: [\nkind: x\n",
      "",
      ",\n",
      "{{ .Values.x }}\n",
      "# c\napiVersion: v1\nkind: Pod\nspec: [\n",
      "apiVersion: v1\nkind: ConfigMap\ndata:\n  config.yaml: x\n",
      "---\n---\n---\n---\n---\napiVersion: v1\nkind: Pod\n",
      "---\n---\nversion: v1\nmig-configs: {}\n---\napiVersion: v1\nkind: Pod\n",
      "---\n\"apiVersion\": v1\n\"kind\": List\nitems: [\n",
  };
  for (const std::string& t : texts) {
    bool read_as_manifest = false;
    const parsed_input in =
        parse_yaml_or_manifest(migplan::cli::builtin_models(), t, [&read_as_manifest] {
          read_as_manifest = true;
          return parsed_input{};
        });
    INFO(t);
    CHECK(read_as_manifest == looks_like_manifest(t));
    if (!read_as_manifest)
      CHECK(in.diagnostics.size() ==
            parse_check_input(migplan::cli::builtin_models(), t, false).diagnostics.size());
  }
}

TEST_CASE("a yaml error ends the reading where it is", "[manifest]") {
  const manifest m = read_manifest(
      "apiVersion: v1\nkind: ConfigMap\ndata:\n  config.yaml: x\n---\napiVersion: v1\n"
      "kind: Pod\nspec: [\n");
  CHECK(m.configs.size() == 1);
  REQUIRE(m.diagnostics.size() == 1);
  CHECK(m.diagnostics[0].level == severity::error);
  CHECK(m.diagnostics[0].kind == fault::malformed);
  CHECK(m.diagnostics[0].message.starts_with("invalid yaml: "));
}

TEST_CASE("a stray comma ends the reading instead of looping", "[manifest]") {
  const manifest m = read_manifest("apiVersion: v1\nkind: Namespace\n---\n,\n");
  CHECK(m.is_manifest);
  REQUIRE(m.diagnostics.size() == 1);
  CHECK(m.diagnostics[0].at() == location{4, 1});
  CHECK(m.diagnostics[0].message == "invalid yaml: unexpected ','");
}

TEST_CASE("at most 10000 documents are read", "[manifest]") {
  std::string t;
  for (int i = 0; i <= max_manifest_documents; ++i) t += "---\napiVersion: v1\nkind: Secret\n";
  const manifest m = read_manifest(t);
  CHECK(m.skipped == max_manifest_documents);
  REQUIRE(m.diagnostics.size() == 1);
  CHECK(m.diagnostics[0].level == severity::error);
  CHECK(m.diagnostics[0].at() == location{3 * max_manifest_documents + 1, 1});
  CHECK(m.diagnostics[0].message == "more than 10000 yaml documents; check reads the first 10000");
}

TEST_CASE("an aliased config.yaml maps to its anchor's block", "[manifest]") {
  const std::string t =
      "apiVersion: v1\nkind: ConfigMap\ndata:\n  base.yaml: &cfg |\n    version: v1\n"
      "  config.yaml: *cfg\n";
  const embedded_config c = only_config(t);
  CHECK(c.text == "version: v1\n");
  CHECK(c.key_at == location{6, 3});
  CHECK(check_exact(t, c) == 10);
}

TEST_CASE("the example manifest's config reads and maps back into the file", "[manifest]") {
  const std::string file =
      read_file(migplan::test::test_path("fixtures/check/configmap-manifest.yaml"));
  REQUIRE(looks_like_manifest(file));
  const manifest m = read_manifest(file);
  CHECK(m.diagnostics.empty());
  CHECK(m.skipped == 2);
  REQUIRE(m.configs.size() == 1);
  const embedded_config& c = m.configs[0];
  CHECK(c.configmap == "custom-mig-config");
  CHECK(check_exact(file, c) > 100);
  parsed_input in = parse_check_input(migplan::cli::builtin_models(), c.text, false);
  CHECK(in.format == input_format::mig_parted);
  CHECK(in.diagnostics.empty());
  REQUIRE(in.geometries.size() == 2);
  map_input(in, c);
  const geometry_spec& g = in.geometries[1];
  CHECK(g.label == "h100-seven-1g");
  REQUIRE(g.filter.size() == 1);
  CHECK(g.filter[0].at == location{22, 26});
  CHECK(file_line(file, 22).substr(25, 12) == "\"0x233010DE\"");
  REQUIRE(g.items.size() == 1);
  CHECK(
      file_line(file, g.items[0].at.line).substr(static_cast<std::size_t>(g.items[0].at.col - 1)) ==
      "\"1g.10gb\": 7");
}

TEST_CASE("a config's diagnostics move to the manifest's lines", "[manifest]") {
  const std::string t =
      "apiVersion: v1\nkind: ConfigMap\ndata:\n  config.yaml: |\n    version: v1\n"
      "    mig-configs:\n      a:\n        - devices: all\n          mig-enabled: true\n"
      "          mig-devices: {\"1g.5gbb\": 1}\n          bogus: 1\n";
  const embedded_config c = only_config(t);
  parsed_input in = parse_check_input(migplan::cli::builtin_models(), c.text, false);
  REQUIRE_FALSE(in.diagnostics.empty());
  std::vector<check::diagnostic> ds = in.diagnostics;
  map_diagnostics(ds, c);
  for (std::size_t i = 0; i < ds.size(); ++i) {
    INFO(ds[i].message);
    CHECK(ds[i].line == in.diagnostics[i].line + 4);
    CHECK(ds[i].column == in.diagnostics[i].column + 4);
  }
}

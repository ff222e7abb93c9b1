// SPDX-License-Identifier: Apache-2.0
// Reading migplan's own geometry files for `check` (`version: 1`, `gpus:`),
// with the schema walker (schema.hpp), merge keys resolved as YAML resolves them.

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "io/check_reader.hpp"
#include "io/request.hpp"
#include "io/source.hpp"

namespace migplan::cli::check::reading {
namespace {

void locate_tokens(std::string_view line_text, location start, std::size_t scalar_size,
                   std::vector<token>& tokens, std::vector<location>& where) {
  // Each token's column: its text searched on the source line from the
  // scalar's start, within the scalar's extent (a JSON escape such as \u0067
  // takes 6 bytes for 1). A token not found there (escaped) stops the search:
  // the rest keep the scalar's position, and a long line is never rescanned.
  std::size_t from = start.col > 0 ? static_cast<std::size_t>(start.col - 1) : 0;
  const std::string_view scalar =
      line_text.substr(0, std::min(line_text.size(), from + 6 * scalar_size + 2));
  bool found = true;
  for (const token& t : tokens) {
    location l = start;
    const std::size_t pos =
        found && from < scalar.size() ? scalar.find(t.text, from) : std::string_view::npos;
    found = pos != std::string_view::npos;
    if (found) {
      l.col = static_cast<int>(pos) + 1;
      from = pos + t.text.size();
    }
    where.push_back(l);
  }
}

class geometry_reader : public doc::walker {
 public:
  geometry_reader(parsed_input& out, std::string_view text, const position_map& to_file)
      : walker({}, mode::all), out_(out), text_(text), lines_(text) {
    source(text, to_file);
  }

  void read(const doc::node& root) {
    const auto top = entries(root, doc::merging::yaml, "top-level");
    const auto misspelt = unknown_keys(top, geometry_top_keys, "key", "");
    const field* version = find(top, "version");
    if (version == nullptr) {
      if (!contains(misspelt, "version"))
        fail(location{1, 1},
             "missing required key 'version' (a migplan geometry file starts with 'version: 1')");
    } else {
      long long v = 0;
      const doc::node& value = *version->value;
      if (!(decimal_int(value, v) && v == 1)) {
        std::string why;
        if (value.is_null())
          why = "version is empty: migplan geometry files are version 1";
        else if (value.quoted && value.text == "1")
          why = "version must be the number 1, not the string \"1\"";
        else
          why = fmt::format("unsupported version {}: migplan geometry files are version 1",
                            shown(value));
        fail(value_at(*version), why);
        return;  // another version's schema: nothing below can be trusted
      }
    }
    if (const field* c = find(top, "comment"); c != nullptr) check_comment(*c);
    const field* gpus = find(top, "gpus");
    if (gpus == nullptr) {
      if (!contains(misspelt, "gpus"))
        fail(location{1, 1},
             "missing required key 'gpus' (a list of gpu entries with 'model' and 'instances')");
      return;
    }
    if (!gpus->value->is_list()) {
      must_be(*gpus, "a list of gpu entries");
      return;
    }
    if (gpus->value->size() == 0) {
      fail(value_at(*gpus), "'gpus' is empty: list at least one gpu entry");
      return;
    }
    int i = 0;
    for (const doc::node& g : gpus->value->kids) read_entry(g, i++);
  }

 private:
  void check_comment(const field& e) {
    if (!e.value->is_scalar() && !e.value->is_null()) must_be(e, "a string");
  }

  void read_entry(const doc::node& node, int index) {
    geometry_spec g;
    g.entry = index;
    g.label = fmt::format("gpus[{}]", index);
    g.at = at(node);
    g.items_at = g.at;
    reading(g.label, index);
    if (!node.is_map()) {
      must_be(at(node), "each entry of 'gpus'", "a mapping with 'model' and 'instances'", node);
      return;
    }
    const std::size_t errors_before = malformed();
    const auto es = entries(node, doc::merging::yaml, "gpu entry");
    if (const field* n = find(es, "name"); n != nullptr) {
      if (n->value->is_scalar() && !n->value->text.empty()) {
        g.label = n->value->text;
        reading(g.label, index);
      } else {
        must_be(*n, "a string");
      }
    }
    const auto misspelt = unknown_keys(es, geometry_entry_keys, "key", "");
    if (const field* c = find(es, "comment"); c != nullptr) check_comment(*c);
    if (const field* m = find(es, "model"); m != nullptr) {
      if (m->value->is_scalar() && !m->value->text.empty()) {
        g.model = m->value->text;
        g.model_at = at(*m->value);
      } else {
        must_be(*m, "a gpu name, slug or pci id");
      }
    }
    if (const field* ix = find(es, "index"); ix != nullptr) read_index(*ix, g);
    const field* inst = find(es, "instances");
    if (inst == nullptr) {
      if (!contains(misspelt, "instances"))
        fail(g.at, fmt::format("missing required key 'instances' in {} (a list such as "
                               "[\"3g.20gb\", \"2x1g.5gb\"])",
                               q(g.label)));
    } else {
      g.items_at = at(inst->key_at);
      read_instances(*inst, g);
    }
    g.broken = malformed() > errors_before;
    if (!g.broken) claim_indices(g);
    index_at_.clear();
    out_.geometries.push_back(std::move(g));
    reading("");
  }

  void read_index(const field& e, geometry_spec& g) {
    const auto bad = [&](location l) {
      fail(l, "'index' must be a gpu index (0, 1, ...) or a list of them");
    };
    long long v = 0;
    if (e.value->is_scalar()) {
      if (!decimal_int(*e.value, v) || v < 0) return bad(at(*e.value));
      g.all_devices = false;
      g.devices.push_back(v);
      index_at_.push_back(at(*e.value));
      return;
    }
    if (!e.value->is_list() || e.value->size() == 0) return bad(value_at(e));
    g.all_devices = false;
    for (const doc::node& n : e.value->kids) {
      if (!decimal_int(n, v) || v < 0) {
        bad(at(n));
        continue;
      }
      g.devices.push_back(v);
      index_at_.push_back(at(n));
    }
  }

  // A GPU of a node has one geometry: an index given twice is a conflict.
  void claim_indices(geometry_spec& g) {
    for (std::size_t i = 0; i < g.devices.size(); ++i) {
      const location l = i < index_at_.size() ? index_at_[i] : g.at;
      auto [it, fresh] = claimed_.try_emplace(g.devices[i], claim{g.entry, g.label, file_line(l)});
      if (fresh) continue;
      g.conflict = true;
      if (it->second.entry == g.entry)
        fail(l, fmt::format("gpu index {} is listed twice", g.devices[i]), fault::invalid);
      else
        fail(l,
             fmt::format("gpu index {} is already given to {} (line {}); a gpu has one geometry",
                         g.devices[i], q(it->second.label), it->second.line),
             fault::invalid);
    }
  }

  void read_instances(const field& e, geometry_spec& g) {
    if (!e.value->is_list()) {
      must_be(e, "a list of strings such as \"2x1g.5gb\"");
      return;
    }
    for (const doc::node& n : e.value->kids) {
      const location l = at(n);
      if (!n.is_scalar()) {
        must_be(l, "each instance", "a string such as \"2x1g.5gb\" or \"1g.5gb@6\"", n);
        continue;
      }
      const std::string& text = n.text;
      const std::vector<std::string> words = split_items(text);
      if (words.empty()) {
        fail(l, "empty instance: expected [Nx]PROFILE[@START], e.g. \"2x1g.5gb\"");
        continue;
      }
      auto tokens = parse_items(words);
      if (!tokens) {
        fail(l, tokens.error().message);
        continue;
      }
      std::vector<location> where;
      const auto line0 = static_cast<std::size_t>(l.line - 1);
      const std::string_view line_text =
          l.line >= 1 && line0 < lines_.count()
              ? text_.substr(lines_.start(line0), lines_.length(line0))
              : std::string_view();
      locate_tokens(line_text, l, text.size(), *tokens, where);
      for (std::size_t i = 0; i < tokens->size(); ++i) {
        const token& t = (*tokens)[i];
        profile_request r;
        r.text = t.text;
        r.name = t.profile;
        r.count = t.count;
        r.start = t.start;
        r.at = where[i];
        r.compute = t.ci.has_value() || !t.cis.empty();
        g.items.push_back(std::move(r));
      }
    }
  }

  parsed_input& out_;
  std::string_view text_;
  line_table lines_;  // of text_, for the columns of instances
  std::vector<location> index_at_;
  struct claim {
    int entry;
    std::string label;
    int line;
  };
  std::map<long long, claim> claimed_;
};

}  // namespace

void read_geometry_file(parsed_input& out, const doc::node& root, std::string_view text,
                        const position_map& to_file) {
  geometry_reader r(out, text, to_file);
  r.read(root);
  r.take(out.diagnostics);
}

}  // namespace migplan::cli::check::reading

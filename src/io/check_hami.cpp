// SPDX-License-Identifier: Apache-2.0
// Reading the MIG templates of a HAMi or Volcano device config for `check`:
// `nvidia.knownMigGeometries`, a list of entries, each naming the GPU models
// it is for and the geometries the scheduler may give those GPUs. HAMi
// (pkg/device/nvidia, AllowedMigGeometries) reads a geometry as a list of
// templates {name, memory, count}; Volcano's vGPU device config wraps one as
// {group, geometries: [templates]}; newer HAMi configs list `profiles` by
// name, one template each. Both read the file with Go's YAML library, which
// skips keys it does not know: a misspelt key drops what it held without a
// word, so here it is an error. The device config's other keys (resource
// names, other vendors' devices) are not read. Walked with the schema
// walker (schema.hpp), merge keys resolved as YAML resolves them.

#include <fmt/format.h>

#include "io/check_reader.hpp"

namespace migplan::cli::check::reading {
namespace {

constexpr std::string_view entry_keys[] = {"models", "allowedGeometries", "profiles"};
constexpr std::string_view template_keys[] = {"name", "memory", "count", "core"};
constexpr std::string_view group_keys[] = {"group", "geometries"};

// The most instances a template may count (no GPU holds more than 16 units).
constexpr long long max_template_count = 64;
// The most MiB a template's memory may say (HAMi reads it as an int32).
constexpr long long max_template_memory = 2147483647;

constexpr std::string_view ignored =
    " (HAMi and Volcano read the file with Go's YAML library, which skips keys it does not "
    "know: what this key holds is dropped)";

class hami_reader : public doc::walker {
 public:
  hami_reader(parsed_input& out, std::string_view text, const position_map& to_file)
      : walker({}, mode::all), out_(out) {
    source(text, to_file);
  }

  void read(const doc::node& root) {
    const auto top = entries(root, doc::merging::yaml, "top-level");
    const field* nv = find(top, "nvidia");
    if (nv == nullptr || !nv->value->is_map()) return;  // detect() saw it
    const auto keys = entries(*nv->value, doc::merging::yaml, "'nvidia'");
    const field* known = find(keys, "knownMigGeometries");
    if (known == nullptr) return;
    if (known->value->is_null() || (known->value->is_list() && known->value->size() == 0)) {
      warn(value_at(*known), "'knownMigGeometries' is empty: no GPU gets a MIG geometry");
      return;
    }
    if (!known->value->is_list()) {
      must_be(*known, "a list of entries with 'models' and 'allowedGeometries'");
      return;
    }
    int i = 0;
    for (const doc::node& e : known->value->kids) read_entry(e, i++);
  }

 private:
  void read_entry(const doc::node& node, int index) {
    table_entry t;
    t.label = fmt::format("knownMigGeometries[{}]", index);
    t.at = at(node);
    reading(t.label);
    if (!node.is_map()) {
      must_be(at(node), "each entry of 'knownMigGeometries'",
              "a mapping with 'models' and 'allowedGeometries'", node);
      t.broken = true;
      out_.table.push_back(std::move(t));
      return;
    }
    const auto es = entries(node, doc::merging::yaml, "knownMigGeometries entry");
    const auto misspelt = unknown_keys(es, entry_keys, "key", ignored);
    const std::size_t before = malformed();
    if (const field* m = find(es, "models"); m != nullptr) {
      read_models(*m, t);
    } else if (!contains(misspelt, "models")) {
      fail(t.at, fmt::format("missing required key 'models' in {} (the GPU models it is for, "
                             "such as [\"A100-SXM4-40GB\"])",
                             t.label));
    }
    t.broken = malformed() > before;
    out_.table.push_back(std::move(t));
    const field* geometries = find(es, "allowedGeometries");
    const field* profiles = find(es, "profiles");
    if (geometries == nullptr && profiles == nullptr && !contains(misspelt, "allowedGeometries") &&
        !contains(misspelt, "profiles"))
      fail(at(node), fmt::format("missing required key 'allowedGeometries' in "
                                 "knownMigGeometries[{}] (a list of geometries, each a list of "
                                 "templates with 'name' and 'count')",
                                 index));
    if (geometries != nullptr) read_geometries(*geometries, index);
    if (profiles != nullptr) read_profiles(*profiles, index);
    reading("");
  }

  void read_models(const field& e, table_entry& t) {
    if (e.value->is_null() || (e.value->is_list() && e.value->size() == 0)) {
      warn(value_at(e), fmt::format("'models' is empty: {} is for no GPU", t.label));
      return;
    }
    if (!e.value->is_list()) {
      fail(value_at(e), "'models' must be a list of GPU model names, such as [\"A100-SXM4-40GB\"]");
      return;
    }
    for (const doc::node& n : e.value->kids) {
      if (!n.is_scalar()) {
        must_be(at(n), "each model", "a string such as \"A100-SXM4-40GB\"", n);
        continue;
      }
      t.models.push_back({n.text, at(n)});
    }
  }

  // A geometry of entry `index` of the table (out_.table's index too: every
  // entry is kept there, broken or not), the `j`th of its `key`, read from `n`.
  geometry_spec begin_geometry(std::string_view key, int index, int j, const doc::node& n) {
    geometry_spec spec;
    spec.label = fmt::format("knownMigGeometries[{}].{}[{}]", index, key, j);
    spec.entry = j;
    spec.table_entry = index;
    spec.at = spec.items_at = at(n);
    reading(spec.label, spec.entry);
    return spec;
  }

  void read_geometries(const field& e, int index) {
    if (!e.value->is_list()) {
      must_be(e, "a list of geometries");
      return;
    }
    int j = 0;
    for (const doc::node& g : e.value->kids) {
      geometry_spec spec = begin_geometry("allowedGeometries", index, j++, g);
      const std::size_t before = malformed();
      if (g.is_list()) {
        read_templates(g, spec);  // HAMi: a geometry is its list of templates
      } else if (g.is_map()) {
        // Volcano: {group, geometries: [templates]}.
        const auto es = entries(g, doc::merging::yaml, "geometry group");
        const auto misspelt = unknown_keys(es, group_keys, "key", ignored);
        if (const field* list = find(es, "geometries"); list != nullptr) {
          spec.items_at = at(list->key_at);
          if (list->value->is_list())
            read_templates(*list->value, spec);
          else
            must_be(*list, "a list of templates");
        } else if (!contains(misspelt, "geometries")) {
          fail(spec.at, "missing required key 'geometries' in a geometry group (its templates)");
        }
      } else {
        must_be(spec.at, "each geometry", "a list of templates ({name, memory, count})", g);
      }
      spec.broken = malformed() > before;
      out_.geometries.push_back(std::move(spec));
    }
  }

  void read_templates(const doc::node& list, geometry_spec& spec) {
    if (list.size() == 0)
      warn(at(list),
           fmt::format("{} has no templates: a GPU given it has no instances", spec.label));
    for (const doc::node& n : list.kids) {
      if (!n.is_map()) {
        must_be(at(n), "each template", "a mapping with 'name', 'memory' and 'count'", n);
        continue;
      }
      const auto es = entries(n, doc::merging::yaml, "template");
      const auto misspelt = unknown_keys(es, template_keys, "key", ignored);
      profile_request r;
      r.at = at(n);
      const field* name = find(es, "name");
      if (name == nullptr) {
        if (!contains(misspelt, "name"))
          fail(r.at, "missing required key 'name' in a template (a profile such as 1g.10gb)");
        continue;
      }
      if (!name->value->is_scalar() || name->value->text.empty()) {
        must_be(*name, "a profile such as 1g.10gb");
        continue;
      }
      r.name = r.text = name->value->text;
      r.at = at(*name->value);
      r.count = 0;
      if (const field* c = find(es, "count"); c != nullptr) {
        long long v = 0;
        if (!decimal_int(*c->value, v) || v < 0 || v > max_template_count) {
          fail(value_at(*c), fmt::format("'count' must be a whole number of instances from 0 to "
                                         "{}, not {}",
                                         max_template_count, shown(*c->value)));
          continue;
        }
        r.count = v;
      } else if (!contains(misspelt, "count")) {
        fail(at(n), fmt::format("missing required key 'count' in the template of {} (how many "
                                "instances of it the geometry has)",
                                q(r.name)));
        continue;
      }
      if (r.count == 0)
        warn(r.at, fmt::format("{} has count 0: the geometry has no instance of it", q(r.name)));
      if (const field* m = find(es, "memory"); m != nullptr) {
        long long v = 0;
        if (!decimal_int(*m->value, v) || v < 0 || v > max_template_memory) {
          fail(value_at(*m),
               fmt::format("'memory' must be a whole number of MiB, not {}", shown(*m->value)));
          continue;
        }
        r.memory_mib = v;
        r.memory_at = value_at(*m);
      }
      if (const field* c = find(es, "core"); c != nullptr) {
        long long v = 0;
        if (!decimal_int(*c->value, v) || v < 0)
          fail(value_at(*c),
               fmt::format("'core' must be a whole number, not {}", shown(*c->value)));
      }
      if (r.count > 0) spec.items.push_back(std::move(r));
    }
  }

  // Newer HAMi: `profiles: [1g.10gb, ...]`, each profile a geometry of its own
  // (its count from HAMi's own table): here, one instance of it.
  void read_profiles(const field& e, int index) {
    if (!e.value->is_list()) {
      must_be(e, "a list of profile names");
      return;
    }
    int j = 0;
    for (const doc::node& n : e.value->kids) {
      geometry_spec spec = begin_geometry("profiles", index, j++, n);
      if (!n.is_scalar() || n.text.empty()) {
        must_be(at(n), "each profile", "a name such as 1g.10gb", n);
        spec.broken = true;
      } else {
        profile_request r;
        r.name = r.text = n.text;
        r.at = at(n);
        spec.items.push_back(std::move(r));
      }
      out_.geometries.push_back(std::move(spec));
    }
  }

  parsed_input& out_;
};

}  // namespace

bool is_hami_config(const doc::node& root) {
  const doc::node* nv = doc::member(root, "nvidia");
  return nv != nullptr && nv->is_map() && doc::member(*nv, "knownMigGeometries") != nullptr;
}

void read_hami_config(parsed_input& out, const doc::node& root, std::string_view text,
                      const position_map& to_file) {
  hami_reader r(out, text, to_file);
  r.read(root);
  r.take(out.diagnostics);
}

}  // namespace migplan::cli::check::reading

// SPDX-License-Identifier: Apache-2.0
// Reading Kubernetes DRA ResourceSlices for `check`: what `kubectl get
// resourceslices -o yaml` (or -o json) prints (a `kind: List` of them), a
// single ResourceSlice, or a stream of them (`migplan pack --emit dra`).
// resource.k8s.io/v1 and v1beta2 have the same shape (v1beta2 moved the
// device fields out of v1beta1's `basic`); v1beta1 and the alphas are
// refused by name. Only what the check needs is kept: pools, counter sets,
// devices' attributes and consumesCounters; the rest of an object (metadata
// other than its name, node selection, capacities) is read past. A key the
// API does not have is a warning: the API server drops unknown fields.
// Walked with the schema walker (schema.hpp), merge keys resolved as YAML
// resolves them.

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/check_input.hpp"
#include "io/check_reader.hpp"
#include "io/document.hpp"
#include "io/manifest.hpp"
#include "io/schema.hpp"

namespace migplan::cli::check {
namespace {

using reading::at;
using reading::field;
using reading::kind_text;
using reading::q;
using reading::shown;
using reading::value_at;

// The keys of resource.k8s.io/v1 (k8s.io/api/resource/v1/types.go).
constexpr std::string_view object_keys[] = {"apiVersion", "kind", "metadata", "spec"};
constexpr std::string_view spec_keys[] = {"driver",       "pool",          "nodeName",
                                          "nodeSelector", "allNodes",      "perDeviceNodeSelection",
                                          "devices",      "sharedCounters"};
constexpr std::string_view pool_keys[] = {"name", "generation", "resourceSliceCount"};
constexpr std::string_view device_keys[] = {"name",
                                            "attributes",
                                            "capacity",
                                            "consumesCounters",
                                            "nodeName",
                                            "nodeSelector",
                                            "allNodes",
                                            "taints",
                                            "bindsToNode",
                                            "bindingConditions",
                                            "bindingFailureConditions",
                                            "allowMultipleAllocations"};
constexpr std::string_view counter_set_keys[] = {"name", "counters"};
// compatibilityGroups came in a later API (k8s-openapi's v1_37 v1beta1 has
// it); known, so that it gets its own warning below rather than "unknown".
constexpr std::string_view consumption_keys[] = {"counterSet", "counters", "compatibilityGroups"};
constexpr std::string_view counter_keys[] = {"value"};
constexpr std::string_view attribute_keys[] = {"int", "bool", "string", "version"};

constexpr std::string_view dropped = " (the API server drops a field it does not know)";

bool is_slice_kind(const doc::node& n) {
  const doc::node* kind = doc::member(n, "kind");
  return n.is_map() && kind != nullptr && kind->is_scalar() && kind->text == "ResourceSlice";
}

// A ResourceSlice, or a list (kind ending in "List") whose first item is one.
bool holds_slices(const doc::node& root) {
  if (is_slice_kind(root)) return true;
  const doc::node* kind = doc::member(root, "kind");
  const doc::node* items = doc::member(root, "items");
  if (kind == nullptr || !kind->is_scalar() || !kind->text.ends_with("List")) return false;
  if (kind->text == "ResourceSliceList") return true;
  return items != nullptr && items->is_list() && !items->kids.empty() &&
         is_slice_kind(items->kids.front());
}

// A Kubernetes Quantity as a whole number of base units, as
// k8s.io/apimachinery's resource.ParseQuantity reads one: digits with an
// optional fraction, then a binary suffix (Ki..Ei), a decimal one (n, u, m,
// k, M, G, T, P, E) or a decimal exponent (e3, E-2); nullopt for a
// negative, fractional or too large value. The grammar's sign may be "-":
// "-0" (or "-0Ki", "-0.0") is zero, and reads as 0.
std::optional<long long> quantity(std::string_view s) {
  std::size_t i = 0;
  const bool minus = i < s.size() && s[i] == '-';
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  long long mantissa = 0;
  int fraction = 0, digits = 0;
  bool dot = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    if (__builtin_mul_overflow(mantissa, 10LL, &mantissa) ||
        __builtin_add_overflow(mantissa, static_cast<long long>(c - '0'), &mantissa))
      return std::nullopt;
    ++digits;
    if (dot) ++fraction;
  }
  if (digits == 0) return std::nullopt;
  const std::string_view suffix = s.substr(i);
  long long times = 1;
  int exponent = 0;  // of 10
  constexpr std::string_view binary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  constexpr std::string_view decimal[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  bool known = false;
  for (int k = 0; k < 6 && !known; ++k)
    if (suffix == binary[k]) {
      times = 1LL << (10 * (k + 1));
      known = true;
    }
  for (int k = 0; k < 10 && !known; ++k)
    if (suffix == decimal[k]) {
      exponent = 3 * (k - 3);
      known = true;
    }
  if (!known && suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::size_t j = 1;
    const bool negative = suffix[j] == '-';
    if (suffix[j] == '+' || suffix[j] == '-') ++j;
    if (j == suffix.size()) return std::nullopt;
    for (; j < suffix.size(); ++j) {
      if (suffix[j] < '0' || suffix[j] > '9' || exponent > 100) return std::nullopt;
      exponent = exponent * 10 + (suffix[j] - '0');
    }
    if (negative) exponent = -exponent;
    known = true;
  }
  if (!known) return std::nullopt;
  exponent -= fraction;
  long long value = 0;
  if (mantissa == 0) return 0;
  if (minus) return std::nullopt;
  if (__builtin_mul_overflow(mantissa, times, &value)) return std::nullopt;
  for (; exponent > 0; --exponent)
    if (__builtin_mul_overflow(value, 10LL, &value)) return std::nullopt;
  for (; exponent < 0; ++exponent) {
    if (value % 10 != 0) return std::nullopt;
    value /= 10;
  }
  return value;
}

class slices_reader : public doc::walker {
 public:
  slices_reader(parsed_input& out, std::string_view text) : walker({}, mode::all), out_(out) {
    source(text);
  }

  // Reads one document's root.
  void document(const doc::node& root) {
    if (root.is_null()) return;
    if (is_slice_kind(root)) {
      slice(root);
      return;
    }
    const doc::node* kind = doc::member(root, "kind");
    const doc::node* items = doc::member(root, "items");
    if (kind != nullptr && kind->is_scalar() && kind->text.ends_with("List") && items != nullptr &&
        items->is_list()) {
      for (const doc::node& item : items->kids) {
        if (is_slice_kind(item))
          slice(item);
        else
          other(item);
      }
      return;
    }
    other(root);
  }

 private:
  // Something beside the slices: said once.
  void other(const doc::node& n) {
    if (others_++ == 0)
      warn(at(n), "not a ResourceSlice: read past (check reads the ResourceSlices of a file)");
  }

  void unknown(const std::vector<field>& es, std::span<const std::string_view> allowed,
               std::string_view what) {
    const std::vector<std::string> names(allowed.begin(), allowed.end());
    for (const field& e : es) {
      if (std::find(allowed.begin(), allowed.end(), e.key) != allowed.end()) continue;
      warn(at(e.key_at), fmt::format("unknown key {} in {}{}{}", q(e.key), what,
                                     doc::suggest(e.key, names), dropped));
    }
  }

  // A scalar value that is not empty, or an error naming `what`.
  std::optional<std::string> string_value(const field& e, std::string_view what) {
    if (!e.value->is_scalar() || e.value->text.empty()) {
      fail(value_at(e), fmt::format("{} must be a string, not {}", what, shown(*e.value)));
      return std::nullopt;
    }
    return e.value->text;
  }

  std::optional<long long> count_value(const field& e, std::string_view what) {
    long long v = 0;
    if (!reading::decimal_int(*e.value, v) || v < 0) {
      fail(value_at(e),
           fmt::format("{} must be a whole number of 0 or more, not {}", what, shown(*e.value)));
      return std::nullopt;
    }
    return v;
  }

  // A map of counter name -> {value: Quantity}.
  std::vector<slice_counter> counters(const field& e, std::string_view what) {
    std::vector<slice_counter> out;
    if (!e.value->is_map()) {
      must_be(value_at(e), fmt::format("'counters' of {}", what),
              "a mapping of counter names to {value: QUANTITY}", *e.value);
      return out;
    }
    for (const field& c : entries(*e.value, doc::merging::yaml, "counters")) {
      slice_counter sc;
      sc.name = c.key;
      sc.at = at(c.key_at);
      sc.valid = false;  // until its value reads
      if (!c.value->is_map()) {
        must_be(value_at(c), fmt::format("counter {}", q(c.key)), "a mapping with 'value'",
                *c.value);
        out.push_back(std::move(sc));
        continue;
      }
      const auto ks = entries(*c.value, doc::merging::yaml, "counter");
      unknown(ks, counter_keys, "a counter");
      const field* v = find(ks, "value");
      if (v == nullptr) {
        fail(sc.at, fmt::format("missing required key 'value' in counter {}", q(c.key)));
        out.push_back(std::move(sc));
        continue;
      }
      const std::optional<long long> n =
          v->value->is_scalar() ? quantity(v->value->text) : std::optional<long long>{};
      if (!n) {
        fail(value_at(*v),
             fmt::format("the value of counter {} must be a whole quantity of 0 or more "
                         "(\"4\", \"40Gi\"), not {}",
                         q(c.key), shown(*v->value)));
        out.push_back(std::move(sc));
        continue;
      }
      sc.value = *n;
      sc.valid = true;
      out.push_back(std::move(sc));
    }
    return out;
  }

  void slice(const doc::node& n) {
    resource_slice s;
    s.at = at(n);
    const auto top = entries(n, doc::merging::yaml, "ResourceSlice");
    unknown(top, object_keys, "a ResourceSlice");
    if (const field* v = find(top, "apiVersion"); v != nullptr && v->value->is_scalar())
      s.api_version = v->value->text;
    if (const field* m = find(top, "metadata"); m != nullptr && m->value->is_map())
      if (const doc::node* name = doc::member(*m->value, "name");
          name != nullptr && name->is_scalar())
        s.name = name->text;
    reading(s.name.empty() ? "ResourceSlice" : s.name);
    if (s.api_version != "resource.k8s.io/v1" && s.api_version != "resource.k8s.io/v1beta2") {
      fail(s.at,
           fmt::format("ResourceSlice {} is {}; check reads resource.k8s.io/v1 and v1beta2 "
                       "(v1beta1 nests device fields under 'basic')",
                       q(s.name), s.api_version.empty() ? "without apiVersion" : q(s.api_version)));
      refused(top, s);
      return;
    }
    const field* spec = find(top, "spec");
    if (spec == nullptr || !spec->value->is_map()) {
      fail(spec == nullptr ? s.at : value_at(*spec),
           fmt::format("ResourceSlice {} needs a 'spec' mapping", q(s.name)));
      return;
    }
    const auto sp = entries(*spec->value, doc::merging::yaml, "spec");
    unknown(sp, spec_keys, "a ResourceSlice's spec");
    if (const field* d = find(sp, "driver"); d != nullptr) {
      if (auto t = string_value(*d, "'driver'")) s.driver = *t;
    } else {
      fail(at(spec->key_at), "missing required key 'driver' in spec");
    }
    if (const field* p = find(sp, "pool"); p != nullptr && p->value->is_map()) {
      s.pool_at = at(p->key_at);
      const auto ps = entries(*p->value, doc::merging::yaml, "pool");
      unknown(ps, pool_keys, "a pool");
      if (const field* name = find(ps, "name"); name != nullptr) {
        if (auto t = string_value(*name, "the pool's 'name'")) s.pool = *t;
      } else {
        fail(s.pool_at, "missing required key 'name' in pool");
      }
      if (const field* g = find(ps, "generation"); g != nullptr)
        if (auto v = count_value(*g, "'generation'")) s.generation = *v;
      if (const field* c = find(ps, "resourceSliceCount"); c != nullptr)
        if (auto v = count_value(*c, "'resourceSliceCount'")) s.slice_count = *v;
    } else {
      fail(p == nullptr ? at(spec->key_at) : value_at(*p),
           "a ResourceSlice's spec needs 'pool', a mapping with 'name'");
    }
    if (const field* sc = find(sp, "sharedCounters"); sc != nullptr) {
      s.counter_sets_at = at(sc->key_at);
      if (!sc->value->is_list()) {
        must_be(*sc, "a list of counter sets");
      } else {
        for (const doc::node& c : sc->value->kids) counter_set(c, s);
      }
    }
    if (const field* ds = find(sp, "devices"); ds != nullptr) {
      s.devices_at = at(ds->key_at);
      if (!ds->value->is_list()) {
        must_be(*ds, "a list of devices");
      } else {
        for (const doc::node& d : ds->value->kids) device(d, s);
      }
    }
    reading("");
    out_.slices.push_back(std::move(s));
  }

  // A slice of a version check does not read, after its one error: kept,
  // without a word more, for its pool alone (driver, name, generation and
  // count), so that the pool's other slices are not blamed for what it
  // holds (a counter set they consume from, a slice resourceSliceCount
  // counts).
  void refused(const std::vector<field>& top, resource_slice& s) {
    s.refused = true;
    const field* spec = find(top, "spec");
    if (spec == nullptr || !spec->value->is_map()) {
      out_.slices.push_back(std::move(s));
      return;
    }
    if (const doc::node* d = doc::member(*spec->value, "driver"); d != nullptr && d->is_scalar())
      s.driver = d->text;
    if (const doc::node* p = doc::member(*spec->value, "pool"); p != nullptr && p->is_map()) {
      s.pool_at = at(*p);
      if (const doc::node* name = doc::member(*p, "name"); name != nullptr && name->is_scalar())
        s.pool = name->text;
      long long v = 0;
      if (const doc::node* g = doc::member(*p, "generation");
          g != nullptr && reading::decimal_int(*g, v) && v >= 0)
        s.generation = v;
      if (const doc::node* c = doc::member(*p, "resourceSliceCount");
          c != nullptr && reading::decimal_int(*c, v) && v >= 0)
        s.slice_count = v;
    }
    out_.slices.push_back(std::move(s));
  }

  // A counter set ({name, counters}) or a consumesCounters entry
  // ({counterSet, counters}): one shape, `key` naming what the counters are of.
  struct named_counters {
    std::string name;
    std::vector<slice_counter> counters;
    location at;
    location counters_at;
  };
  std::optional<named_counters> read_named(const doc::node& n, std::string_view what,
                                           std::string_view key,
                                           std::span<const std::string_view> keys) {
    if (!n.is_map()) {
      must_be(at(n), fmt::format("each {}", what),
              fmt::format("a mapping with '{}' and 'counters'", key), n);
      return std::nullopt;
    }
    named_counters out;
    out.at = at(n);
    const auto es = entries(n, doc::merging::yaml, what);
    unknown(es, keys, fmt::format("a {}", what));
    if (const field* name = find(es, key); name != nullptr) {
      if (auto t = string_value(*name, fmt::format("a {}'s '{}'", what, key))) out.name = *t;
    } else {
      fail(out.at, fmt::format("missing required key '{}' in a {}", key, what));
    }
    if (const field* c = find(es, "counters"); c != nullptr) {
      out.counters_at = at(c->key_at);
      out.counters = counters(*c, fmt::format("{} {}", what, q(out.name)));
    } else {
      fail(out.at, fmt::format("missing required key 'counters' in {} {}", what, q(out.name)));
    }
    return out;
  }

  void counter_set(const doc::node& n, resource_slice& s) {
    if (auto r = read_named(n, "counter set", "name", counter_set_keys))
      s.counter_sets.push_back({std::move(r->name), std::move(r->counters), r->at, r->counters_at});
  }

  void device(const doc::node& n, resource_slice& s) {
    if (!n.is_map()) {
      must_be(at(n), "each device", "a mapping with 'name'", n);
      return;
    }
    slice_device d;
    d.at = at(n);
    const auto es = entries(n, doc::merging::yaml, "device");
    if (find(es, "basic") != nullptr)
      fail(at(find(es, "basic")->key_at),
           "'basic' is resource.k8s.io/v1beta1's; in v1 and v1beta2 a device's fields are its "
           "own");
    unknown(es, device_keys, "a device");
    if (const field* name = find(es, "name"); name != nullptr) {
      if (auto t = string_value(*name, "a device's 'name'")) d.name = *t;
    } else {
      fail(d.at, "missing required key 'name' in a device");
    }
    // A device "uses taints" (the API's 64-device limit) when it has one:
    // 'taints: []' or 'taints: null' is none, as Go's len() counts them.
    if (const field* t = find(es, "taints"); t != nullptr)
      d.taints = !t->value->is_null() && !(t->value->is_list() && t->value->kids.empty());
    if (const field* as = find(es, "attributes"); as != nullptr) {
      if (!as->value->is_map()) {
        must_be(*as, "a mapping");
      } else {
        for (const field& a : entries(*as->value, doc::merging::yaml, "attributes"))
          attribute(a, d);
      }
    }
    if (const field* cc = find(es, "consumesCounters"); cc != nullptr) {
      d.consumes_at = at(cc->key_at);
      if (!cc->value->is_list()) {
        must_be(*cc, "a list");
      } else {
        for (const doc::node& c : cc->value->kids) consumption(c, d);
      }
    }
    s.devices.push_back(std::move(d));
  }

  void attribute(const field& a, slice_device& d) {
    slice_attribute out;
    out.name = a.key;
    out.at = at(a.key_at);
    if (!a.value->is_map() || a.value->size() != 1) {
      fail(value_at(a), fmt::format("attribute {} must be a mapping with one of 'int', 'bool', "
                                    "'string' or 'version'",
                                    q(a.key)));
      return;
    }
    const auto es = entries(*a.value, doc::merging::yaml, "attribute");
    unknown(es, attribute_keys, "an attribute");
    if (es.empty()) {  // its one key merged nothing in ('<<: {}')
      fail(value_at(a), fmt::format("attribute {} must be a mapping with one of 'int', 'bool', "
                                    "'string' or 'version'",
                                    q(a.key)));
      return;
    }
    const field& v = es.front();
    if (!v.value->is_scalar()) {
      fail(value_at(v), fmt::format("attribute {} must have a scalar value, not {}", q(a.key),
                                    kind_text(*v.value)));
      return;
    }
    out.text = v.value->text;
    if (v.key == "int") {
      if (!reading::decimal_int(*v.value, out.number)) {
        fail(value_at(v),
             fmt::format("attribute {} is an 'int', not {}", q(a.key), shown(*v.value)));
        return;
      }
      out.is_int = true;
    }
    d.attributes.push_back(std::move(out));
  }

  void consumption(const doc::node& n, slice_device& d) {
    if (const doc::node* groups = n.is_map() ? doc::member(n, "compatibilityGroups") : nullptr)
      warn(at(*groups),
           "'compatibilityGroups' is not modelled: check compares the counters as if every "
           "device could be allocated beside every other");
    if (auto r = read_named(n, "consumesCounters entry", "counterSet", consumption_keys))
      d.consumes.push_back({std::move(r->name), std::move(r->counters), r->at, r->counters_at});
  }

  parsed_input& out_;
  int others_ = 0;
};

diagnostic malformed(const cli::diagnostic& d) {
  return file_diagnostic(severity::error, fault::malformed, {d.line, d.column}, d.message);
}

}  // namespace

std::optional<parsed_input> read_resource_slices(std::string_view text, bool json) {
  parsed_input out;
  out.format = input_format::resource_slices;
  out.kubernetes = true;
  std::vector<doc::node> roots;
  if (json) {
    auto root = doc::read_json(text, {}, reading::check_budget());
    if (!root) return std::nullopt;  // the usual reader says why
    if (!holds_slices(*root)) return std::nullopt;
    roots.push_back(std::move(*root));
  } else {
    bool decided = false, slices = false;
    int seen = 0;
    doc::node partial;
    const auto each = [&](doc::node& root, doc::position) {
      if (++seen > max_manifest_documents) return false;
      if (!decided && !root.is_null()) {
        decided = true;
        slices = holds_slices(root);
        if (!slices) return false;
      }
      roots.push_back(std::move(root));
      return true;
    };
    const auto failed = doc::read_yaml_stream(text, {}, reading::check_budget(), each, &partial);
    if (!decided) slices = holds_slices(partial);
    if (!slices) return std::nullopt;
    if (failed) out.diagnostics.push_back(malformed(*failed));
    if (seen > max_manifest_documents)
      out.diagnostics.push_back(
          file_diagnostic(severity::error, fault::malformed, {},
                          fmt::format("more than {} YAML documents; check reads no further",
                                      max_manifest_documents)));
  }
  slices_reader r(out, text);
  try {
    for (const doc::node& root : roots) r.document(root);
  } catch (const std::exception& e) {
    r.take(out.diagnostics);
    out.diagnostics.push_back(file_diagnostic(severity::error, fault::malformed, {},
                                              std::string("cannot read the file: ") + e.what()));
  }
  r.take(out.diagnostics);
  return out;
}

}  // namespace migplan::cli::check

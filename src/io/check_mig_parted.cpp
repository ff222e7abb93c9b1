// SPDX-License-Identifier: Apache-2.0
// Reading NVIDIA mig-parted configs for `check`, as api/spec/v1 reads them
// (`version: v1`, `mig-configs:`), with the schema walker (schema.hpp),
// merge keys resolved as mig-parted's go-yaml v2 resolves them.

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <vector>

#include "io/check_reader.hpp"
#include "io/names.hpp"
#include "io/schema.hpp"

namespace migplan::cli::check {
namespace {

bool all_of(std::string_view s, std::string_view allowed) {
  return !s.empty() && s.find_first_not_of(allowed) == std::string_view::npos;
}

}  // namespace

std::string mig_profile_format_error(std::string_view name) {
  if (name.empty()) return "the name is empty";
  const std::size_t plus = name.find('+'), minus = name.find('-');
  if (plus != std::string_view::npos && minus != std::string_view::npos)
    return "it has both '+' and '-' attributes";
  const std::size_t split = plus != std::string_view::npos ? plus : minus;
  const std::string_view fields = name.substr(0, split);
  const std::string_view expected = "expected [Cc.]Gg.MEMgb such as 1g.5gb or 1c.3g.20gb";
  std::vector<std::string_view> parts;
  std::size_t from = 0;
  while (parts.size() < 2) {
    const std::size_t dot = fields.find('.', from);
    if (dot == std::string_view::npos) break;
    parts.push_back(fields.substr(from, dot - from));
    from = dot + 1;
  }
  parts.push_back(fields.substr(from));
  if (parts.size() < 2) return std::string(expected);
  const std::string_view suffixes3[] = {"c", "g", "gb"};
  const std::string_view suffixes2[] = {"g", "gb"};
  const std::span<const std::string_view> want = parts.size() == 3
                                                     ? std::span<const std::string_view>(suffixes3)
                                                     : std::span<const std::string_view>(suffixes2);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string_view p = parts[i];
    if (p.size() <= want[i].size() || p.substr(p.size() - want[i].size()) != want[i] ||
        !all_of(p.substr(0, p.size() - want[i].size()), "0123456789"))
      return std::string(expected);
  }
  if (split == std::string_view::npos) return "";
  std::string_view attrs = name.substr(split + 1);
  std::vector<std::string_view> seen;
  while (true) {
    const std::size_t comma = attrs.find(',');
    const std::string_view a = attrs.substr(0, comma);
    if (a.empty()) return "an attribute after '+' or '-' is empty";
    if (std::isdigit(static_cast<unsigned char>(a[0])))
      return fmt::format("attribute '{}' begins with a digit", a);
    if (a.front() == '.' || a.back() == '.')
      return fmt::format("attribute '{}' begins or ends with a dot", a);
    if (!all_of(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789."))
      return fmt::format("attribute '{}' has a character other than letters, digits and '.'", a);
    if (std::find(seen.begin(), seen.end(), a) != seen.end())
      return fmt::format("attribute '{}' appears twice", a);
    seen.push_back(a);
    if (comma == std::string_view::npos) break;
    attrs.remove_prefix(comma + 1);
  }
  return "";
}

namespace {

// strconv.ParseUint(s, 0, 32), as mig-parted reads each part of a
// device-filter (pkg/types/device.go, NewDeviceIDFromString): a 0x, 0o or 0b
// prefix or a leading 0 (octal) picks the base, otherwise decimal; digits in
// either case; '_' only between digits or after a prefix; at most 32 bits.
bool go_parse_uint32(std::string_view text, std::uint32_t& out) {
  int base = 10;
  bool prefixed = false;
  if (text.size() >= 2 && text[0] == '0') {
    const char p = static_cast<char>(text[1] | 0x20);
    if (p == 'x' || p == 'o' || p == 'b') {
      base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
      text.remove_prefix(2);
      prefixed = true;
    } else {
      base = 8;
      text.remove_prefix(1);
      prefixed = true;
    }
  }
  std::string digits;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '_') {
      digits += text[i];
      continue;
    }
    // Go: an underscore must follow a digit or the base prefix, and precede a digit.
    const bool after_ok = i > 0 ? text[i - 1] != '_' : prefixed;
    if (!after_ok || i + 1 == text.size() || text[i + 1] == '_') return false;
  }
  if (digits.empty()) return false;  // "0x", "0b"
  std::uint32_t v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (ec != std::errc() || p != digits.data() + digits.size()) return false;
  out = v;
  return true;
}

// A plain scalar's whole number as mig-parted gets it, for a count or a gpu
// index. go-yaml v2 (under sigs.k8s.io/yaml, YAML 1.1) drops every '_' and
// reads the rest with Go's strconv.ParseInt(s, 0, 64) (resolve.go): a sign,
// then a 0x, 0o or 0b prefix (either case) or a leading 0 (octal) picks the
// base, so 010 is 8, not 10. What that refuses but YAML reads as a float
// (08, 7.0, 3e0) reaches encoding/json as a number written without a
// fraction when it is whole (json.Marshal of 8.0 is "8"), which json reads
// into Go's int. False for anything mig-parted cannot read as an int.
bool go_yaml_int(const doc::node& n, long long& out) {
  if (!n.is_scalar() || n.quoted || n.text.empty()) return false;
  std::string plain;
  for (const char c : n.text)
    if (c != '_') plain += c;
  std::string_view t = plain;
  const bool negative = !t.empty() && t[0] == '-';
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
  int base = 10;
  if (t.size() >= 2 && t[0] == '0') {
    const char p = static_cast<char>(t[1] | 0x20);
    base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 8;
    t.remove_prefix(p == 'x' || p == 'o' || p == 'b' ? 2 : 1);
  }
  unsigned long long u = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), u, base);
  if (!t.empty() && end == t.data() + t.size()) {
    // Digits of the base: an int when it fits (Go's int is 64 bits); past
    // that, a uint64 or a float that json cannot put in an int.
    if (ec != std::errc()) return false;
    constexpr auto top = static_cast<unsigned long long>(std::numeric_limits<long long>::max());
    if (u > top + (negative ? 1 : 0)) return false;
    out = negative ? static_cast<long long>(0ULL - u) : static_cast<long long>(u);
    return true;
  }
  // go-yaml's float form: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
  std::string_view f = plain;
  if (!f.empty() && (f[0] == '-' || f[0] == '+')) f.remove_prefix(1);
  const auto digits = [](std::string_view& v) {
    std::size_t i = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i;
    v.remove_prefix(i);
    return i;
  };
  const std::size_t whole = digits(f);
  if (!f.empty() && f[0] == '.') {
    f.remove_prefix(1);
    if (digits(f) == 0 && whole == 0) return false;
  } else if (whole == 0) {
    return false;
  }
  if (!f.empty() && (f[0] == 'e' || f[0] == 'E')) {
    f.remove_prefix(1);
    if (!f.empty() && (f[0] == '-' || f[0] == '+')) f.remove_prefix(1);
    if (digits(f) == 0) return false;
  }
  if (!f.empty()) return false;
  const double v = std::strtod(plain.c_str(), nullptr);
  // json.Marshal writes a float of 1e21 or more with an exponent, which
  // json refuses for an int, as it refuses a fraction.
  if (!(std::abs(v) < 1e21) || v != std::floor(v) || std::abs(v) > 9.2e18) return false;
  out = static_cast<long long>(v);
  return true;
}

}  // namespace

bool parse_filter_id(std::string_view text, std::uint32_t& out) {
  // "DEVICEVENDOR" or "DEVICEVENDOR:SUBSYSTEM", each part read by
  // go_parse_uint32; more parts are an error in mig-parted.
  const std::size_t colon = text.find(':');
  if (colon != std::string_view::npos) {
    std::uint32_t sub = 0;
    if (text.find(':', colon + 1) != std::string_view::npos ||
        !go_parse_uint32(text.substr(colon + 1), sub))
      return false;
    text = text.substr(0, colon);
  }
  return go_parse_uint32(text, out);
}

namespace reading {
namespace {

class mig_parted_reader : public doc::walker {
 public:
  mig_parted_reader(model_list models, parsed_input& out, std::string_view text,
                    const position_map& to_file)
      : walker({}, mode::all), out_(out), models_(models) {
    source(text, to_file);
  }

  void read(const doc::node& root) {
    const auto top = entries(root, doc::merging::mig_parted, "top-level");
    const auto misspelt =
        unknown_keys(top, mig_parted_top_keys, "field", "; mig-parted rejects unknown fields");
    const field* version = find(top, "version");
    if (version == nullptr) {
      if (!contains(misspelt, "version"))
        fail(location{1, 1}, "missing 'version: v1'; mig-parted refuses a config without it");
    } else if (const doc::node& v = *version->value;
               !reads_as(v, scalar_type::string) || v.text != "v1") {
      fail(value_at(*version),
           fmt::format("unsupported version {}: mig-parted configs must say version: v1",
                       !v.is_scalar() || reads_as(v, scalar_type::null) ? std::string(kind_text(v))
                                                                        : q(v.text)));
      return;  // another version's schema: nothing below can be trusted
    }
    const field* configs = find(top, "mig-configs");
    if (configs == nullptr) {
      if (!contains(misspelt, "mig-configs")) note({1, 1}, "no 'mig-configs': nothing to check");
      return;
    }
    if (configs->value->is_null() || (configs->value->is_map() && configs->value->size() == 0)) {
      fail(value_at(*configs), "'mig-configs' is empty; mig-parted requires at least one config");
      return;
    }
    if (!configs->value->is_map()) {
      must_be(*configs, "a mapping from config label to a list of entries");
      return;
    }
    for (const field& c : entries(*configs->value, doc::merging::mig_parted, "config label"))
      read_config(c);
  }

 private:
  void read_config(const field& c) {
    out_.labels.push_back(c.key);
    reading(c.key);
    if (c.value->is_null() || (c.value->is_list() && c.value->size() == 0)) {
      fail(at(c.key_at),
           fmt::format("config {} has no entries; mig-parted requires at least one", q(c.key)));
      return;
    }
    if (!c.value->is_list()) {
      must_be(value_at(c), fmt::format("config {}", q(c.key)), "a list of entries", *c.value);
      return;
    }
    int i = 0;
    claims_.clear();  // a gpu index is claimed within one config
    for (const doc::node& n : c.value->kids) {
      reading(c.key, i);
      read_entry(c.key, n, i++);
    }
    reading("");
  }

  void read_entry(const std::string& label, const doc::node& node, int index) {
    geometry_spec g;
    g.label = label;
    g.entry = index;
    g.at = at(node);
    g.items_at = g.at;
    if (!node.is_map()) {
      must_be(at(node), fmt::format("entry {} of config {}", index, q(label)),
              "a mapping with 'devices' and 'mig-enabled'", node);
      return;
    }
    const std::size_t errors_before = malformed();
    device_at_.clear();
    const auto es = entries(node, doc::merging::mig_parted, "entry");
    const auto misspelt =
        unknown_keys(es, mig_parted_entry_keys, "field", "; mig-parted rejects unknown fields");
    for (std::string_view required : {"devices", "mig-enabled"})
      if (find(es, required) == nullptr && !contains(misspelt, required))
        fail(g.at, fmt::format("missing required field '{}' in config {}", required, q(label)));
    if (const field* f = find(es, "device-filter"); f != nullptr) read_filter(*f, g);
    if (const field* d = find(es, "devices"); d != nullptr) read_devices(*d, g);
    // Whether mig-enabled was read: the checks of mig-devices below hang on
    // its value, and an unreadable one is its own error, not a true.
    bool enabled_read = false;
    if (const field* e = find(es, "mig-enabled"); e != nullptr) {
      bool v = false;
      if (e->value->is_null()) {
        warn(at(e->key_at), "'mig-enabled' is empty; mig-parted reads it as false");
        g.mig_enabled = false;
        enabled_read = true;
      } else if (reads_as(*e->value, scalar_type::boolean) && doc::yaml11_bool(e->value->text, v)) {
        g.mig_enabled = v;
        enabled_read = true;
      } else {
        fail(at(*e->value),
             fmt::format("'mig-enabled' must be true or false, not {}", shown(*e->value)));
      }
    }
    const field* md = find(es, "mig-devices");
    if (md != nullptr) {
      g.items_at = at(md->key_at);
      read_mig_devices(*md, g);
    }
    // mig-parted: "missing required field 'mig-devices' when 'mig-enabled'
    // is true", for an absent key and for a null value alike
    // (api/spec/v1/spec.go, MigConfigSpec.UnmarshalJSON; doc/mig-parted-parity.md).
    if (g.mig_enabled && md == nullptr && enabled_read && !contains(misspelt, "mig-devices"))
      fail(g.at, fmt::format("missing 'mig-devices' in config {}: mig-parted requires it when "
                             "'mig-enabled' is true (write mig-devices: {{}} for none)",
                             q(label)));
    if (g.mig_enabled && enabled_read && md != nullptr && md->value->is_null())
      fail(at(md->key_at),
           fmt::format("'mig-devices' is empty (null) in config {}: mig-parted reads that as a "
                       "missing field, which it requires when 'mig-enabled' is true (write "
                       "mig-devices: {{}} for none)",
                       q(label)));
    if (!g.mig_enabled && md != nullptr && md->value->is_map() && md->value->size() != 0)
      fail(at(md->key_at), fmt::format("'mig-devices' must be empty when 'mig-enabled' is "
                                       "false; mig-parted rejects config {}",
                                       q(label)));
    g.broken = malformed() > errors_before;
    if (!g.broken) claim_devices(label, g);
    out_.geometries.push_back(std::move(g));
  }

  // Two entries of one config that give the same gpu index, and that both
  // match a gpu of some model (no device-filter, or a PCI ID in common), set
  // it twice: mig-parted walks the entries in order and applies each to every
  // gpu it matches (WalkSelectedMigConfigForEachGPU in
  // cmd/nvidia-mig-parted/assert/assert.go, called by apply/mode.go and
  // apply/config.go), so the later entry replaces the earlier one there.
  // `devices: all` is left alone: an entry for every gpu beside one for a
  // few is how configs give a node's gpus different roles.
  void claim_devices(const std::string& label, geometry_spec& g) {
    std::vector<std::uint32_t> ids;
    for (const filter_id& f : g.filter)
      if (f.readable) ids.push_back(f.value);
    if (g.has_filter && ids.empty()) return;  // matches no gpu (already warned)
    std::set<long long> mine;
    for (std::size_t i = 0; i < g.devices.size(); ++i) {
      const long long d = g.devices[i];
      const location l = i < device_at_.size() ? device_at_[i] : g.at;
      if (d < 0) continue;  // reported by read_devices
      if (!mine.insert(d).second) {
        warn(l, fmt::format("gpu index {} is listed twice", d));
        continue;
      }
      index_claims& c = claims_[d];
      std::optional<device_claim> prior = g.has_filter ? c.unfiltered : c.first;
      for (std::uint32_t id : ids)
        if (auto it = c.by_filter.find(id);
            it != c.by_filter.end() && (!prior || it->second.entry < prior->entry))
          prior = it->second;
      if (prior) {
        g.conflict = true;
        fail(l,
             fmt::format("gpu index {} is already given to entry {} of config {} (line {}); "
                         "mig-parted applies the entries in order, so this one replaces it on "
                         "gpu {}",
                         d, prior->entry, q(label), prior->line, d),
             fault::invalid);
      }
      const device_claim me{g.entry, file_line(g.at)};
      if (!c.first) c.first = me;
      if (!g.has_filter && !c.unfiltered) c.unfiltered = me;
      for (std::uint32_t id : ids) c.by_filter.try_emplace(id, me);
    }
  }

  void read_filter(const field& e, geometry_spec& g) {
    g.filter_at = at(e.key_at);
    std::vector<const doc::node*> ids;
    if (e.value->is_null()) return;  // mig-parted reads null as "": no filter
    const auto bad_type = [&](const doc::node& n) {
      if (reads_as(n, scalar_type::integer) || reads_as(n, scalar_type::number))
        fail(at(n), fmt::format("device-filter {} is read as a number; quote it (\"{}\"): "
                                "mig-parted wants a string",
                                clip(n.text), clip(n.text)));
      else
        must_be(at(n), "device-filter", "a pci id string or a list of them", n);
    };
    const bool list = e.value->is_list();
    if (list) {
      for (const doc::node& n : e.value->kids) {
        if (!reads_as(n, scalar_type::string)) {
          bad_type(n);
          continue;
        }
        ids.push_back(&n);
      }
    } else if (reads_as(*e.value, scalar_type::string)) {
      ids.push_back(e.value);
    } else {
      bad_type(*e.value);
      return;
    }
    for (const doc::node* n : ids) {
      const std::string& text = n->text;
      if (text.empty() && !list) continue;  // a lone "" matches every device, like no filter
      filter_id f{text, 0, false, at(*n)};
      if (!parse_filter_id(text, f.value)) {
        warn(f.at, fmt::format("device-filter {} is not a pci id mig-parted can read "
                               "(such as 0x20B010DE); it matches no gpu",
                               q(text)));
      } else if (f.value <= 0xFFFFu) {
        warn(f.at, fmt::format("device-filter {} has no vendor part: mig-parted reads it as "
                               "device 0x0000 of vendor 0x{:04X}, which matches no gpu; "
                               "write 0x{:04X}10DE",
                               q(text), f.value, f.value));
      } else {
        f.readable = true;
      }
      g.filter.push_back(std::move(f));
    }
    g.has_filter = !g.filter.empty();
  }

  void read_devices(const field& e, geometry_spec& g) {
    const doc::node& v = *e.value;
    if (reads_as(v, scalar_type::string) && v.text == "all") return;
    if (reads_as(v, scalar_type::integer)) {
      fail(at(v), fmt::format("'devices' must be \"all\" or a list of gpu indices; mig-parted "
                              "rejects a bare integer (write [{}])",
                              clip(v.text)));
      return;
    }
    if (v.is_list()) {
      g.all_devices = false;
      // mig-parted accepts it, and the entry then matches no gpu index
      // (MatchesDevices in api/spec/v1/helpers.go): a silent no-op.
      if (v.kids.empty())
        warn(at(v),
             "'devices' is an empty list: mig-parted accepts it, but the entry then applies to "
             "no gpu (write devices: all, or the gpu indices it is for)");
      for (const doc::node& n : v.kids) {
        long long d = 0;
        if (!go_yaml_int(n, d)) {
          fail(at(n), fmt::format("'devices' must list gpu indices, not {}", shown(n)));
          continue;
        }
        if (d < 0) {
          // mig-parted reads it ([]int) and compares it with the index of
          // each gpu (0, 1, ...): it never matches (MatchesDevices in
          // api/spec/v1/helpers.go).
          g.conflict = true;
          fail(at(n),
               fmt::format("gpu index {} is negative: mig-parted accepts it but it matches no gpu",
                           d),
               fault::invalid);
        }
        g.devices.push_back(d);
        device_at_.push_back(at(n));
      }
      return;
    }
    fail(value_at(e),
         fmt::format("'devices' must be \"all\" or a list of gpu indices, not {}", shown(v)));
  }

  void read_mig_devices(const field& e, geometry_spec& g) {
    if (e.value->is_null()) return;  // mig-parted reads null as an empty map
    if (!e.value->is_map()) {
      must_be(e, "a mapping from profile name to count");
      return;
    }
    for (const field& d : entries(*e.value, doc::merging::mig_parted, "mig-devices")) {
      const location l = at(d.key_at);
      if (const std::string why = mig_profile_format_error(d.key); !why.empty()) {
        fail(l, fmt::format("invalid profile name {}: {}; mig-parted rejects it{}", q(d.key), why,
                            doc::suggest(d.key, all_profile_names(models_))));
        continue;
      }
      long long n = 0;
      if (!go_yaml_int(*d.value, n)) {
        // Digits past the largest count: a whole number, too large (mig-parted
        // reads counts as Go's int, 64 bits).
        const std::string& digits = d.value->text;
        if (reads_as(*d.value, scalar_type::integer) && !digits.empty() &&
            std::all_of(digits.begin() + (digits[0] == '+' ? 1 : 0), digits.end(),
                        [](char c) { return c >= '0' && c <= '9'; }))
          fail(value_at(d), fmt::format("count of {} {} is too large (at most {})", clip(d.key),
                                        clip(digits), std::numeric_limits<long long>::max()));
        else
          fail(value_at(d), fmt::format("count of {} must be a whole number, not {}", clip(d.key),
                                        shown(*d.value)));
        continue;
      }
      if (n < 0) {
        fail(at(*d.value),
             fmt::format("invalid count {} for {}: counts must be 0 or more", n, clip(d.key)));
        continue;
      }
      profile_request r;
      r.text = r.name = d.key;
      r.count = n;
      r.at = l;
      g.items.push_back(std::move(r));
    }
    // mig-parted: "all counts for all MigProfiles are 0" (pkg/types/mig_config.go,
    // MigConfig.AssertValid): a mapping that lists profiles only to ask for none of them.
    if (!g.items.empty() && std::all_of(g.items.begin(), g.items.end(),
                                        [](const profile_request& r) { return r.count == 0; }))
      fail(at(e.key_at), fmt::format("every count in 'mig-devices' of config {} is 0; "
                                     "mig-parted rejects that (write mig-devices: {{}} for none)",
                                     q(g.label)));
  }

  struct device_claim {
    int entry;
    int line;
  };
  // Who first gave a gpu index: any entry, an entry without a device-filter,
  // and an entry naming each PCI ID.
  struct index_claims {
    std::optional<device_claim> first, unfiltered;
    std::map<std::uint32_t, device_claim> by_filter;
  };
  parsed_input& out_;
  model_list models_;                         // the profiles' names, for suggestions
  std::map<long long, index_claims> claims_;  // of the config being read
  std::vector<location> device_at_;           // of the entry being read, as its devices
};

}  // namespace

void read_mig_parted_config(model_list models, parsed_input& out, const doc::node& root,
                            std::string_view text, const position_map& to_file) {
  mig_parted_reader r(models, out, text, to_file);
  r.read(root);
  r.take(out.diagnostics);
}

}  // namespace reading
}  // namespace migplan::cli::check

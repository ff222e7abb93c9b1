// SPDX-License-Identifier: Apache-2.0
#include "io/model_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <utility>

#include "io/document.hpp"
#include "io/names.hpp"
#include "io/schema.hpp"
#include "io/source.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli {

// ---------------------------------------------------------------------------
// The loaded model
// ---------------------------------------------------------------------------

loaded_model::loaded_model(model_spec spec, std::string file)
    : spec_(std::move(spec)), file_(std::move(file)) {
  coverage_note_ = "loaded from " + file_;
  for (const std::string& n : spec_.smi_names) smi_names_.emplace_back(n);
  bool inferred = false;
  for (const profile_spec& p : spec_.profiles) {
    unit_mask starts = 0;
    for (int s : p.starts) starts |= unit_mask{1} << s;
    profiles_.push_back(profile{
        .name = p.name,
        .id = p.id,
        .compute_slices = p.compute_slices,
        .size = p.size,
        .starts = starts,
        .max_instances = p.max_instances,
        .memory_gib_x100 = p.memory_gib_x100,
        .sm_count = p.sm_count,
        .engines = p.engines,
        .min_driver = p.min_driver,
        .prov =
            {
                .source = p.source.empty() ? spec_.source : p.source,
                .placements_source =
                    p.placements_source.empty() ? spec_.source : p.placements_source,
                .inferred = p.inferred,
                .notes = p.notes,
            },
        .former_names = {},
        .circulating_names = {},
    });
    inferred = inferred || p.inferred != field::none;
  }
  model_ = gpu_model{
      .slug = spec_.slug,
      .description = spec_.description,
      .smi_names = smi_names_,
      .pci_ids = spec_.pci_ids,
      .memory_mib = spec_.memory_mib,
      .units = spec_.units,
      .compute_slices = spec_.compute_slices,
      .profiles = profiles_,
      // The file's own word: full when it marks nothing inferred.
      .cover = inferred ? coverage::partial : coverage::full,
      .coverage_note = coverage_note_,
      .evidence = spec_.source,
  };
}

// ---------------------------------------------------------------------------
// The schema: the document tree (io/document.hpp) read into a model_spec,
// with the fields of each object kept for check_model_spec's problems
// ---------------------------------------------------------------------------

namespace {

using doc::node;

// Field names as model files and `profiles --json` write them, in `field` order.
constexpr std::array<std::pair<std::string_view, field>, 7> field_names{{
    {"id", field::id},
    {"sm_count", field::sm_count},
    {"memory", field::memory},
    {"engines", field::engines},
    {"ce", field::ce},
    {"max_instances", field::max_instances},
    {"placements", field::placements},
}};

// Engine keys of a model file, in `engine` order (CE, DEC, ENC, JPG, OFA).
constexpr std::array<std::string_view, engine_kinds> engine_keys{"ce", "dec", "enc", "jpg", "ofa"};

constexpr std::string_view model_keys[] = {
    "schema_version", "slug",  "description",    "smi_names", "pci_ids",
    "memory_mib",     "units", "compute_slices", "source",    "profiles"};
constexpr std::string_view model_required[] = {"schema_version", "slug",   "description", "units",
                                               "compute_slices", "source", "profiles"};
constexpr std::string_view profile_keys[] = {
    "name",       "id",       "compute_slices", "size",       "starts", "max_instances",
    "memory_gib", "sm_count", "engines",        "min_driver", "source", "placements_source",
    "inferred",   "notes"};
constexpr std::string_view profile_required[] = {"name", "id",     "compute_slices",
                                                 "size", "starts", "max_instances"};
constexpr std::string_view pci_keys[] = {"id", "inferred"};
constexpr std::string_view pci_required[] = {"id"};

// A model file is JSON: its values are named as JSON names them.
bool is_string(const node& n) { return n.is_scalar() && n.quoted; }
bool is_bool(const node& n) {
  return n.is_scalar() && !n.quoted && (n.text == "true" || n.text == "false");
}
bool is_number(const node& n) { return n.is_scalar() && !n.quoted && !is_bool(n); }
std::string_view kind_name(const node& n) {
  if (n.is_null()) return "null";
  if (n.is_map()) return "an object";
  if (n.is_list()) return "a list";
  if (is_string(n)) return "a string";
  return is_bool(n) ? std::string_view(n.text) : "a number";
}

// An object's fields, kept for the lines of what check_model_spec finds.
struct object_lines {
  const node* obj = nullptr;
  std::vector<doc::field> fields;
  const node* get(std::string_view key) const {
    const doc::field* f = doc::find(fields, key);
    return f == nullptr ? nullptr : f->value;
  }
  int line(std::string_view key, int element) const {
    if (obj == nullptr) return 0;
    const doc::field* f = doc::find(fields, key);
    if (f == nullptr) return obj->at.line;
    const node& v = *f->value;
    if (element >= 0 && v.is_list() && static_cast<std::size_t>(element) < v.kids.size())
      return v.kids[static_cast<std::size_t>(element)].at.line;
    return f->line();
  }
};

class spec_reader {
 public:
  explicit spec_reader(doc::walker& w) : w_(w) {}
  object_lines model_lines;
  std::vector<object_lines> profile_lines;

  bool read(const node& root, model_spec& out) {
    if (!root.is_map())
      return fail(root, fmt::format("a model file is a JSON object, not {}", kind_name(root)));
    object_lines& m = model_lines;
    if (!keys(root, model_keys, model_required, "the model", m)) return false;
    long long version = 0;
    if (!whole(*m.get("schema_version"), "schema_version", 0, 1'000'000, version)) return false;
    if (version != 1)
      return fail(
          *m.get("schema_version"),
          fmt::format("schema_version {} is not 1, the version this migplan reads", version));
    if (!string(m, "slug", "slug", out.slug) ||
        !string(m, "description", "description", out.description) ||
        !string(m, "source", "source", out.source))
      return false;
    if (const node* names = m.get("smi_names")) {
      if (!list(*names, "smi_names")) return false;
      for (const node& n : names->kids) {
        if (!is_string(n))
          return fail(n, fmt::format("smi_names holds {}; each is a string", kind_name(n)));
        out.smi_names.push_back(n.text);
      }
    }
    if (const node* ids = m.get("pci_ids")) {
      if (!list(*ids, "pci_ids")) return false;
      for (std::size_t i = 0; i < ids->kids.size(); ++i)
        if (!pci(ids->kids[i], i, out.pci_ids)) return false;
    }
    if (const node* mem = m.get("memory_mib"); mem != nullptr && !mem->is_null()) {
      long long v = 0;
      if (!whole(*mem, "memory_mib", 1, std::numeric_limits<int>::max(), v)) return false;
      out.memory_mib = static_cast<int>(v);
    }
    constexpr long long int_max = std::numeric_limits<int>::max();
    long long units = 0, slices = 0;
    if (!whole(*m.get("units"), "units", -int_max - 1, int_max, units) ||
        !whole(*m.get("compute_slices"), "compute_slices", -int_max - 1, int_max, slices))
      return false;
    out.units = static_cast<int>(units);
    out.compute_slices = static_cast<int>(slices);
    const node& profiles = *m.get("profiles");
    if (!list(profiles, "profiles")) return false;
    if (profiles.kids.size() > static_cast<std::size_t>(max_profiles))
      return fail(profiles, fmt::format("{} profiles: a model has at most {}", profiles.kids.size(),
                                        max_profiles));
    for (std::size_t i = 0; i < profiles.kids.size(); ++i) {
      profile_spec p;
      if (!profile(profiles.kids[i], i, p)) return false;
      out.profiles.push_back(std::move(p));
    }
    return true;
  }

 private:
  doc::walker& w_;

  bool fail(const node& n, std::string message) {
    w_.fail(n.at, std::move(message));
    return false;
  }

  // The fields of `obj` into `out`: the walker refuses unknown and repeated
  // keys and asks for the required ones.
  bool keys(const node& obj, std::span<const std::string_view> known,
            std::span<const std::string_view> required, std::string_view what, object_lines& out) {
    out.obj = &obj;
    out.fields = w_.fields(obj, known, what);
    for (std::string_view k : required)
      if (w_.ok()) w_.need(out.fields, k, obj.at.line, fmt::format("in {}", what));
    return w_.ok();
  }

  bool list(const node& n, std::string_view what) {
    if (n.is_list()) return true;
    return fail(n, fmt::format("{} must be a list, not {}", what, kind_name(n)));
  }

  bool string(const object_lines& obj, std::string_view key, std::string_view what,
              std::string& out) {
    const node* v = obj.get(key);
    if (v == nullptr) return true;
    if (!is_string(*v))
      return fail(*v, fmt::format("{} must be a string, not {}", what, kind_name(*v)));
    out = v->text;
    return true;
  }

  bool whole(const node& v, std::string_view what, long long lo, long long hi, long long& out) {
    if (!is_number(v))
      return fail(v, fmt::format("{} must be a whole number, not {}", what, kind_name(v)));
    const std::string& s = v.text;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (end != s.data() + s.size()) {
      // A fraction or an exponent; a whole number too large for 64 bits
      // written with an exponent is out of range all the same.
      const double d = std::strtod(s.c_str(), nullptr);
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) > 9e18)
        return fail(v, fmt::format("{} is out of range: {} to {}", what, lo, hi));
      return fail(v, fmt::format("{} must be a whole number, written without a fraction or "
                                 "an exponent",
                                 what));
    }
    if (ec != std::errc{})
      return fail(v, fmt::format("{} is out of range: {} to {}", what, lo, hi));
    if (out < lo || out > hi)
      return fail(v, fmt::format("{} {} is out of range: {} to {}", what, out, lo, hi));
    return true;
  }

  // An optional count: absent or null is unknown.
  bool optional_int(const object_lines& obj, std::string_view key, std::string_view what,
                    long long lo, long long hi, std::optional<int>& out) {
    const node* v = obj.get(key);
    if (v == nullptr || v->is_null()) return true;
    long long x = 0;
    if (!whole(*v, what, lo, hi, x)) return false;
    out = static_cast<int>(x);
    return true;
  }

  bool pci(const node& n, std::size_t i, std::vector<pci_id>& out) {
    const std::string what = fmt::format("pci_ids[{}]", i);
    if (!n.is_map())
      return fail(n, fmt::format("{} must be an object {{\"id\": \"0x20B010DE\", "
                                 "\"inferred\": false}}, not {}",
                                 what, kind_name(n)));
    object_lines o;
    if (!keys(n, pci_keys, pci_required, what, o)) return false;
    const node& id = *o.get("id");
    const std::string& s = id.text;
    const bool hex =
        is_string(id) && s.size() == 10 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
        std::all_of(s.begin() + 2, s.end(),
                    [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
    if (!hex)
      return fail(id,
                  fmt::format("{}.id must be a string 0x followed by 8 hex digits "
                              "(0x20B010DE), not {}",
                              what, is_string(id) ? quote_token(s) : std::string(kind_name(id))));
    pci_id p{static_cast<std::uint32_t>(std::stoul(s.substr(2), nullptr, 16)), false};
    if (const node* inf = o.get("inferred")) {
      if (!is_bool(*inf))
        return fail(
            *inf, fmt::format("{}.inferred must be true or false, not {}", what, kind_name(*inf)));
      p.inferred = inf->text == "true";
    }
    out.push_back(p);
    return true;
  }

  bool profile(const node& n, std::size_t i, profile_spec& p) {
    object_lines& o = profile_lines.emplace_back();
    std::string who = fmt::format("profiles[{}]", i);
    if (!n.is_map()) return fail(n, fmt::format("{} must be an object, not {}", who, kind_name(n)));
    // The name first, so that what follows can say which profile it is about.
    for (std::size_t k = 0; k + 1 < n.kids.size(); k += 2) {
      if (n.kids[k].text != "name") continue;
      if (const node& v = n.kids[k + 1]; is_string(v) && profile_name_slices(v.text) > 0)
        who = fmt::format("profile {}", v.text);
      break;
    }
    if (!keys(n, profile_keys, profile_required, who, o)) return false;
    const auto key = [&](std::string_view k) { return fmt::format("{}: {}", who, k); };
    if (!string(o, "name", key("name"), p.name)) return false;
    constexpr long long int_max = std::numeric_limits<int>::max();
    long long id = 0, slices = 0, size = 0, cap = 0;
    if (!whole(*o.get("id"), key("id"), 0, 65535, id) ||
        !whole(*o.get("compute_slices"), key("compute_slices"), -int_max, int_max, slices) ||
        !whole(*o.get("size"), key("size"), -int_max, int_max, size))
      return false;
    p.id = static_cast<int>(id);
    p.compute_slices = static_cast<int>(slices);
    p.size = static_cast<int>(size);
    const node& starts = *o.get("starts");
    if (!list(starts, key("starts"))) return false;
    for (const node& s : starts.kids) {
      long long v = 0;
      if (!whole(s, key("starts[]"), -int_max, int_max, v)) return false;
      p.starts.push_back(static_cast<int>(v));
      if (p.starts.size() > static_cast<std::size_t>(max_units))
        return fail(s, fmt::format("{}: more than {} starts", who, max_units));
    }
    if (!whole(*o.get("max_instances"), key("max_instances"), -int_max, int_max, cap)) return false;
    p.max_instances = static_cast<int>(cap);
    if (const node* mem = o.get("memory_gib"); mem != nullptr && !mem->is_null()) {
      if (!is_number(*mem))
        return fail(*mem, fmt::format("{} must be a number of GiB, not {}", key("memory_gib"),
                                      kind_name(*mem)));
      const double gib = std::strtod(mem->text.c_str(), nullptr);
      if (!(gib >= 0 && gib <= 1e6))
        return fail(*mem, fmt::format("{} is out of range: 0 to 1000000", key("memory_gib")));
      // As -lgip prints it: two decimals at most.
      const double x100 = std::round(gib * 100);
      if (std::fabs(gib * 100 - x100) > 1e-6)
        return fail(*mem, fmt::format("{} has more than two decimals; write it as "
                                      "nvidia-smi mig -lgip prints it (4.75)",
                                      key("memory_gib")));
      p.memory_gib_x100 = static_cast<int>(x100);
    }
    if (!optional_int(o, "sm_count", key("sm_count"), 1, 100000, p.sm_count)) return false;
    if (const node* e = o.get("engines")) {
      if (!e->is_map())
        return fail(*e, fmt::format("{} must be an object {{\"ce\": 1, \"dec\": 0, ...}}, "
                                    "not {}",
                                    key("engines"), kind_name(*e)));
      object_lines eo;
      if (!keys(*e, engine_keys, {}, key("engines"), eo)) return false;
      for (std::size_t k = 0; k < engine_kinds; ++k) {
        std::optional<int> count;
        if (!optional_int(eo, engine_keys[k], key(fmt::format("engines.{}", engine_keys[k])), 0,
                          255, count))
          return false;
        if (count) p.engines[k] = static_cast<std::uint8_t>(*count);
      }
    }
    if (const node* d = o.get("min_driver"); d != nullptr && !d->is_null()) {
      if (!string(o, "min_driver", key("min_driver"), p.min_driver)) return false;
      if (p.min_driver.empty())
        return fail(
            *d, fmt::format("{} is empty; leave it out, or null, when unknown", key("min_driver")));
    }
    if (!string(o, "source", key("source"), p.source) ||
        !string(o, "placements_source", key("placements_source"), p.placements_source) ||
        !string(o, "notes", key("notes"), p.notes))
      return false;
    if (const node* inf = o.get("inferred")) {
      if (!list(*inf, key("inferred"))) return false;
      std::vector<std::string> names;
      for (const auto& [name, flag] : field_names) names.emplace_back(name);
      for (const node& f : inf->kids) {
        if (!is_string(f))
          return fail(
              f, fmt::format("{} holds {}; each is a field name", key("inferred"), kind_name(f)));
        const auto it = std::find_if(field_names.begin(), field_names.end(),
                                     [&](const auto& nf) { return nf.first == f.text; });
        if (it == field_names.end()) {
          std::string hint = did_you_mean(f.text, names);
          if (hint.empty()) hint = fmt::format(" (fields: {})", fmt::join(names, ", "));
          return fail(
              f, fmt::format("{}: unknown field {}{}", key("inferred"), quote_token(f.text), hint));
        }
        if (has(p.inferred, it->second))
          return fail(f, fmt::format("{}: {} is listed twice", key("inferred"), it->first));
        p.inferred = p.inferred | it->second;
      }
    }
    return true;
  }
};

}  // namespace

result<model_spec> parse_model_file(std::string_view text, std::string_view shown,
                                    model_list taken) {
  if (text.size() > max_model_file_bytes)
    return error{fmt::format("{}: larger than {} MiB, the most a model file may hold", shown,
                             max_model_file_bytes >> 20)};
  doc::budget limits;
  limits.bytes = max_model_file_bytes;
  // Deeper or larger than this, a file is not a model file (one nests four
  // levels; a 16-profile model has about 500 values).
  limits.depth = 32;
  limits.depth_note = " (those of a model file nest 4)";
  limits.values = 100'000;
  const auto root = doc::read_json(text, shown, limits);
  if (!root) {
    diagnostic d = root.error();
    // A syntax error names its column too (JSON may be written on one line),
    // and no more of what nlohmann last read than a message can afford.
    constexpr std::string_view invalid = "invalid json: ";
    if (d.code != "syntax" || !d.message.starts_with(invalid)) return error{d};
    d.message = fmt::format("{}{}", invalid,
                            clip_token(std::string_view(d.message).substr(invalid.size()), 200));
    return error{d, column_shown::yes};
  }
  doc::walker w(shown);
  spec_reader reader(w);
  model_spec spec;
  if (!reader.read(*root, spec)) return error{w.first()};
  if (std::optional<spec_problem> p = check_model_spec(spec, taken)) {
    const object_lines& where = p->profile < 0
                                    ? reader.model_lines
                                    : reader.profile_lines[static_cast<std::size_t>(p->profile)];
    return error{located(shown, where.line(p->key, p->element), p->message)};
  }
  return spec;
}

result<std::unique_ptr<loaded_model>> load_model_file(const std::string& path, model_list taken) {
  if (path == "-")
    return error{"--gpu-file takes a file; standard input is for the command's own input"};
  std::istringstream none;
  bool too_large = false;
  auto text = read_source_bounded(path, none, max_model_file_bytes, too_large);
  if (!text) {
    if (too_large)
      return error{
          fmt::format("{}: {}, the most a model file may hold", path, text.error().message)};
    return error{
        fmt::format("cannot read model file {}: {}", quote_token(path, 200), text.error().message)};
  }
  auto spec = parse_model_file(*text, path, taken);
  if (!spec) return spec.error();
  return std::make_unique<loaded_model>(std::move(*spec), path);
}

}  // namespace migplan::cli

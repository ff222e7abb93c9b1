// SPDX-License-Identifier: Apache-2.0
#include "io/model_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <migplan/detail/strings.hpp>
#include <sstream>
#include <utility>

#include "io/document.hpp"
#include "io/names.hpp"
#include "io/schema.hpp"
#include "io/source.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

// ---------------------------------------------------------------------------
// Text checks shared by the reader and import
// ---------------------------------------------------------------------------

// [a-z0-9] words joined by single '-': the slug pattern of schema/common.schema.json.
bool slug_syntax(std::string_view s) {
  if (s.empty() || s.front() == '-' || s.back() == '-') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '-') {
      if (s[i - 1] == '-') return false;
    } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
      return false;
    }
  }
  return true;
}

bool all_lower(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

// Why `text` cannot be printed as it is, or "": control characters and
// invisible or direction-changing code points would reach the terminal
// through every renderer that prints a model's strings.
std::string unprintable(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (u < 0x80) {
      if (u < 0x20 || u == 0x7F) return "a control character";
      ++i;
      continue;
    }
    std::uint32_t cp = 0;
    bool valid = false;
    const std::size_t n = quote_detail::utf8_step(text, i, cp, valid);
    if (!valid) return "a byte that is not UTF-8";
    if (quote_detail::invisible(cp)) return fmt::format("the invisible character U+{:04X}", cp);
    i += n;
  }
  return "";
}

bool in_catalog(const gpu_model& m) {
  const std::span<const gpu_model> all = catalog();
  return std::any_of(all.begin(), all.end(), [&](const gpu_model& c) { return &c == &m; });
}

// "the built-in model a30" or "x (loaded from a.json)": who already has a name.
std::string owner(const gpu_model& m) {
  if (in_catalog(m)) return fmt::format("the built-in model {}", m.slug);
  return fmt::format("{} ({})", m.slug, m.coverage_note);
}

std::string profile_label(const profile_spec& p, std::size_t i) {
  return profile_name_slices(p.name) > 0 ? fmt::format("profile {}", p.name)
                                         : fmt::format("profiles[{}]", i);
}

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

}  // namespace

// The pattern of schema/common.schema.json, which every output that names a
// profile is validated against.
int profile_name_slices(std::string_view name) {
  const std::size_t g = name.find("g.");
  if (g == std::string_view::npos || !all_digits(name.substr(0, g)) || name[0] == '0' || g > 3)
    return 0;
  std::string_view rest = name.substr(g + 2);
  const std::size_t gb = rest.find("gb");
  if (gb == std::string_view::npos || !all_digits(rest.substr(0, gb)) || rest[0] == '0') return 0;
  rest.remove_prefix(gb + 2);
  if (!rest.empty()) {
    if (rest[0] != '+' && rest[0] != '-') return 0;
    rest.remove_prefix(1);
    std::size_t from = 0;
    while (true) {
      const std::size_t dot = rest.find('.', from);
      if (!all_lower(rest.substr(from, dot == std::string_view::npos ? dot : dot - from))) return 0;
      if (dot == std::string_view::npos) break;
      from = dot + 1;
    }
  }
  int n = 0;
  for (char c : name.substr(0, g)) n = n * 10 + (c - '0');
  return n;
}

// ---------------------------------------------------------------------------
// The checks the catalog gets
// ---------------------------------------------------------------------------

std::optional<spec_problem> check_model_spec(const model_spec& spec, model_list taken) {
  const auto at = [](std::string_view key, std::string message, int profile = -1,
                     int element = -1) {
    return spec_problem{profile, key, element, std::move(message)};
  };
  const auto text = [&](std::string_view key, std::string_view value, std::string_view what,
                        int profile = -1) -> std::optional<spec_problem> {
    if (value.size() > max_text_length)
      return at(key, fmt::format("{} is longer than {} bytes", what, max_text_length), profile);
    if (const std::string why = unprintable(value); !why.empty())
      return at(key, fmt::format("{} holds {}", what, why), profile);
    return std::nullopt;
  };

  // The model.
  if (spec.slug.size() > max_slug_length)
    return at("slug", fmt::format("slug {} is longer than {} bytes", quote_token(spec.slug),
                                  max_slug_length));
  if (!slug_syntax(spec.slug))
    return at("slug", fmt::format("slug {} is not a slug: lower-case letters and digits, in words "
                                  "joined by '-' (a100-40gb, my-gpu-2)",
                                  quote_token(spec.slug)));
  if (const gpu_model* m = find_model(taken, spec.slug))
    return at("slug",
              in_catalog(*m)
                  ? fmt::format("slug {} is the built-in model {}'s: a model file adds a "
                                "model and cannot replace one; choose another slug",
                                quote_token(spec.slug), m->slug)
                  : fmt::format("slug {} is taken by {}", quote_token(spec.slug), owner(*m)));
  if (spec.description.empty()) return at("description", "description is empty");
  if (auto p = text("description", spec.description, "description")) return p;
  if (spec.source.empty())
    return at("source", "source is empty: say where the tables come from (captures, driver)");
  if (auto p = text("source", spec.source, "source")) return p;

  for (std::size_t i = 0; i < spec.smi_names.size(); ++i) {
    const std::string& n = spec.smi_names[i];
    const int e = static_cast<int>(i);
    if (detail::strip_vendor(n).empty())
      return at("smi_names", fmt::format("nvidia-smi name {} is empty", quote_token(n)), -1, e);
    if (auto p = text("smi_names", n, fmt::format("nvidia-smi name {}", quote_token(n)))) {
      p->element = e;
      return p;
    }
    for (std::size_t j = 0; j < i; ++j)
      if (detail::iequals(detail::strip_vendor(spec.smi_names[j]), detail::strip_vendor(n)))
        return at("smi_names", fmt::format("nvidia-smi name {} is listed twice", quote_token(n)),
                  -1, e);
    if (const gpu_model* m = find_model_by_smi_name(taken, n))
      return at("smi_names",
                fmt::format("nvidia-smi name {} belongs to {}", quote_token(n), owner(*m)), -1, e);
  }
  for (std::size_t i = 0; i < spec.pci_ids.size(); ++i) {
    const std::uint32_t v = spec.pci_ids[i].value;
    const int e = static_cast<int>(i);
    if ((v & 0xFFFFu) != 0x10DEu)
      return at("pci_ids",
                fmt::format("PCI ID 0x{:08X} does not end in 10DE, NVIDIA's vendor ID (write "
                            "0xDEVICE10DE, as nvidia-smi -q prints it)",
                            v),
                -1, e);
    for (std::size_t j = 0; j < i; ++j)
      if (spec.pci_ids[j].value == v)
        return at("pci_ids", fmt::format("PCI ID 0x{:08X} is listed twice", v), -1, e);
    if (const gpu_model* m = find_model_by_full_pci(taken, v))
      return at("pci_ids", fmt::format("PCI ID 0x{:08X} belongs to {}", v, owner(*m)), -1, e);
  }
  if (spec.memory_mib && *spec.memory_mib < 1)
    return at("memory_mib", fmt::format("memory_mib {} is not a memory size", *spec.memory_mib));
  if (spec.units < 1 || spec.units > max_units)
    return at("units", fmt::format("units {} is out of range: a model has 1 to {} placement units",
                                   spec.units, max_units));
  if (spec.compute_slices < 1 || spec.compute_slices > spec.units)
    return at("compute_slices",
              fmt::format("compute_slices {} is out of range: 1 to the model's {} units",
                          spec.compute_slices, spec.units));
  if (spec.profiles.empty()) return at("profiles", "the model has no profiles");
  if (spec.profiles.size() > static_cast<std::size_t>(max_profiles))
    return at("profiles", fmt::format("{} profiles: a model has at most {}", spec.profiles.size(),
                                      max_profiles));

  // Each profile.
  const std::string last_unit = fmt::format("{} units: 0-{}", spec.units, spec.units - 1);
  for (std::size_t i = 0; i < spec.profiles.size(); ++i) {
    const profile_spec& p = spec.profiles[i];
    const int pi = static_cast<int>(i);
    const std::string who = profile_label(p, i);
    const auto bad = [&](std::string_view key, const std::string& why, int element = -1) {
      return at(key, fmt::format("{}: {}", who, why), pi, element);
    };
    if (p.name.size() > max_profile_name_length)
      return bad("name", fmt::format("the name is longer than {} bytes", max_profile_name_length));
    const int slices = profile_name_slices(p.name);
    if (slices == 0) {
      if (detail::istarts_with(p.name, "mig "))
        return bad("name", fmt::format("write the name {} without 'MIG '", quote_token(p.name)));
      return bad("name", fmt::format("{} is not a profile name as nvidia-smi prints it: <N>g.<M>gb "
                                     "in lower case, then at most one +attr or -attr (1g.10gb, "
                                     "1g.24gb+me.all, 2g.48gb-me)",
                                     quote_token(p.name)));
    }
    if (p.compute_slices != slices)
      return bad("compute_slices",
                 fmt::format("compute_slices {} disagrees with the name ({}g: {} slice{})",
                             p.compute_slices, slices, slices, slices == 1 ? "" : "s"));
    if (p.compute_slices > spec.compute_slices)
      return bad("compute_slices", fmt::format("compute_slices {} is more than the model's {}",
                                               p.compute_slices, spec.compute_slices));
    if (p.id < 0) return bad("id", fmt::format("id {} is negative", p.id));
    if (p.size < 1 || p.size > spec.units)
      return bad("size",
                 fmt::format("size {} is out of range: 1 to the model's {}", p.size, last_unit));
    if (p.starts.empty()) return bad("starts", "starts is empty: a profile starts somewhere");
    for (std::size_t k = 0; k < p.starts.size(); ++k) {
      const int s = p.starts[k];
      const int e = static_cast<int>(k);
      if (s < 0 || s >= spec.units)
        return bad("starts",
                   fmt::format("start {} is not a placement unit of the model ({})", s, last_unit),
                   e);
      if (s + p.size > spec.units)
        return bad("starts",
                   fmt::format("start {} with size {} ends at unit {}, past the model's last ({})",
                               s, p.size, s + p.size - 1, last_unit),
                   e);
      if (std::find(p.starts.begin(), p.starts.begin() + e, s) != p.starts.begin() + e)
        return bad("starts", fmt::format("start {} is listed twice", s), e);
    }
    const int n = p.max_instances;
    if (n < 1) return bad("max_instances", fmt::format("max_instances {} is less than 1", n));
    // "Total" instances coexist on an empty GPU, so they have starts and fit both budgets.
    if (static_cast<std::size_t>(n) > p.starts.size())
      return bad("max_instances", fmt::format("max_instances {} is more than its {} start{}", n,
                                              p.starts.size(), p.starts.size() == 1 ? "" : "s"));
    if (n * p.size > spec.units)
      return bad("max_instances",
                 fmt::format("max_instances {} of {} units each need {} units; the model has {}", n,
                             p.size, n * p.size, spec.units));
    if (n * p.compute_slices > spec.compute_slices)
      return bad("max_instances",
                 fmt::format("max_instances {} of {} compute slices each need {} "
                             "compute slices; the model has {}",
                             n, p.compute_slices, n * p.compute_slices, spec.compute_slices));
    if (p.memory_gib_x100 && *p.memory_gib_x100 < 0)
      return bad("memory_gib", "memory_gib is negative");
    if (p.sm_count && *p.sm_count < 1)
      return bad("sm_count", fmt::format("sm_count {} is less than 1", *p.sm_count));
    if (!p.min_driver.empty() &&
        (p.min_driver.size() < 2 || p.min_driver[0] != 'R' || !all_digits(p.min_driver.substr(1))))
      return bad("min_driver", fmt::format("min_driver {} is not a driver branch such as R525",
                                           quote_token(p.min_driver)));
    for (const auto& [key, value] :
         {std::pair<std::string_view, const std::string*>{"source", &p.source},
          {"placements_source", &p.placements_source},
          {"notes", &p.notes}}) {
      if (auto problem = text(key, *value, fmt::format("{}: {}", who, key), pi)) return problem;
    }
    for (std::size_t j = 0; j < i; ++j) {
      const profile_spec& q = spec.profiles[j];
      if (detail::iequals(q.name, p.name))
        return bad("name",
                   fmt::format("the name is given twice (profiles[{}] and profiles[{}])", j, i));
      if (q.id == p.id) return bad("id", fmt::format("id {} is also profile {}'s", p.id, q.name));
    }
  }

  // The model as a whole: what catalog.hpp's static_asserts demand.
  bool full = false;
  std::size_t placements = 0;
  for (const profile_spec& p : spec.profiles) {
    full = full || (p.size == spec.units && p.compute_slices == spec.compute_slices);
    placements += p.starts.size();
  }
  if (!full)
    return at("profiles", fmt::format("no full-GPU profile: none takes all {} units and all {} "
                                      "compute slices",
                                      spec.units, spec.compute_slices));
  if (placements > max_placements)
    return at("profiles", fmt::format("the profiles have {} placements (profile and start pairs); "
                                      "migplan plans on at most {}",
                                      placements, max_placements));
  return std::nullopt;
}

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
    const diagnostic& d = root.error();
    // A syntax error names its column too (JSON may be written on one line),
    // and no more of what nlohmann last read than a message can afford.
    constexpr std::string_view invalid = "invalid json: ";
    if (d.code != "syntax" || d.column == 0 || !d.message.starts_with(invalid))
      return error{to_text(d)};
    return error{fmt::format("{}:{}:{}: {}{}", shown, d.line, d.column, invalid,
                             clip_token(std::string_view(d.message).substr(invalid.size()), 200))};
  }
  doc::walker w(shown);
  spec_reader reader(w);
  model_spec spec;
  if (!reader.read(*root, spec)) return error{to_text(w.first())};
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

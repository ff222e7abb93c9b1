// SPDX-License-Identifier: Apache-2.0

// The built-in catalog against its evidence: the nvidia-smi captures in data/captures, the
// cited tables in data/mig-profiles.json and the curated per-model facts in data/models.json
// (which models, in what order, and which captures check each). The model list comes from
// data/models.json, so a model added to data/ is checked by every evidence test below without
// editing this file; only the lookup examples at the end name particular models. The capture
// readers are deliberately written here, sharing no code with src/io, so a parser bug cannot
// hide a table bug (or vice versa).

#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <migplan/migplan.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "support.hpp"

#ifndef MIGPLAN_DATA_DIR
#error "define MIGPLAN_DATA_DIR as the path of the repository's data/ directory"
#endif

using namespace migplan;
using json = nlohmann::json;

// The catalog is usable at compile time. (Which models it holds, and in what order, is
// data/models.json's to say; the tests below read it.)
static_assert(!catalog().empty());
static_assert(find_model("a30")->units == 4);  // a30: 4 memory slices
static_assert(find_model("A100-40GB")->slug == "a100-40gb");
static_assert(find_model_by_pci(0x20B0) == find_model("a100-40gb"));
static_assert(find_profile(*find_model("a30"), "4G.24GB") == 4);
static_assert(full_profile(*find_model("rtx-pro-6000")) >= 0);

namespace {

using migplan::test::model;
using migplan::test::read_text;

const std::filesystem::path data_dir{MIGPLAN_DATA_DIR};

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> split_ws(std::string_view s) {
  std::vector<std::string> out;
  std::istringstream in{std::string(s)};
  for (std::string tok; in >> tok;) out.push_back(tok);
  return out;
}

std::optional<int> to_int(std::string_view s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// "4.75" -> 475, exactly; the form the -lgip Memory column and the JSON use.
std::optional<int> parse_x100(std::string_view s) {
  const auto dot = s.find('.');
  if (dot == std::string_view::npos) {
    const auto whole = to_int(s);
    return whole ? std::optional<int>(*whole * 100) : std::nullopt;
  }
  const auto whole = to_int(s.substr(0, dot));
  const std::string_view frac = s.substr(dot + 1);
  if (!whole || frac.empty() || frac.size() > 2) return std::nullopt;
  const auto f = to_int(frac);
  if (!f) return std::nullopt;
  return *whole * 100 + (frac.size() == 1 ? *f * 10 : *f);
}

std::string show(std::optional<int> v) { return v ? std::to_string(*v) : "unknown"; }

std::optional<int> as_int(std::optional<std::uint8_t> v) {
  return v ? std::optional<int>(*v) : std::nullopt;
}

std::optional<int> engine_of(const profile& p, engine e) {
  return as_int(p.engines[static_cast<std::size_t>(e)]);
}

bool contains_ci(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (detail::iequals(hay.substr(i, needle.size()), needle)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// A small `nvidia-smi mig -lgip` reader. Rows look like
//   |   0  MIG 1g.5gb        19     7/7        4.75       No     14     0     0   |
//   |                                                             1     0     0   |
// (GPU, name, ID, Free/Total, Memory GiB, P2P, SM, DEC, ENC / CE, JPEG, OFA). Columns shift
// between driver layouts, so the reader splits on whitespace. A row whose second line was cut
// off keeps CE/JPEG/OFA unknown.

struct lgip_row {
  int line = 0;
  int gpu = 0;
  std::string name;
  int id = 0;
  int free = 0;
  int total = 0;
  std::optional<int> memory_x100;
  int sm = 0;
  int dec = 0;
  int enc = 0;
  std::optional<int> ce, jpg, ofa;
};

struct lgip_capture {
  std::vector<lgip_row> rows;
  bool complete = true;  // false when the header says "# complete: no"
  std::vector<std::string> errors;
};

lgip_capture read_lgip(const std::string& text) {
  lgip_capture cap;
  bool second_line_pending = false;
  int n = 0;
  for (const std::string& raw : split_lines(text)) {
    ++n;
    std::string_view line = raw;
    if (line.starts_with("#")) {
      if (line.find("complete: no") != std::string_view::npos) cap.complete = false;
      continue;
    }
    if (line.empty() || line.starts_with("+") || line.starts_with("|=")) {
      if (!line.starts_with("+")) second_line_pending = false;
      continue;
    }
    if (!line.starts_with("|")) {
      cap.errors.push_back("line " + std::to_string(n) + ": not part of a -lgip table");
      continue;
    }
    std::vector<std::string> tok = split_ws(line);
    tok.erase(std::remove(tok.begin(), tok.end(), "|"), tok.end());
    if (tok.empty() || tok[0] == "GPU" || tok[0] == "Free/Total") continue;  // headings
    if (tok.size() == 10 && tok[1] == "MIG") {
      lgip_row r;
      r.line = n;
      const auto gpu = to_int(tok[0]);
      const auto id = to_int(tok[3]);
      const auto slash = tok[4].find('/');
      const auto free = to_int(std::string_view(tok[4]).substr(0, slash));
      const auto total = slash == std::string::npos
                             ? std::nullopt
                             : to_int(std::string_view(tok[4]).substr(slash + 1));
      const auto sm = to_int(tok[7]), dec = to_int(tok[8]), enc = to_int(tok[9]);
      r.memory_x100 = parse_x100(tok[5]);
      if (!gpu || !id || !free || !total || !r.memory_x100 || !sm || !dec || !enc ||
          (tok[6] != "No" && tok[6] != "Yes")) {
        cap.errors.push_back("line " + std::to_string(n) + ": malformed first row line");
        continue;
      }
      r.gpu = *gpu;
      r.name = tok[2];
      r.id = *id;
      r.free = *free;
      r.total = *total;
      r.sm = *sm;
      r.dec = *dec;
      r.enc = *enc;
      cap.rows.push_back(r);
      second_line_pending = true;
      continue;
    }
    if (tok.size() == 3 && second_line_pending) {
      const auto ce = to_int(tok[0]), jpg = to_int(tok[1]), ofa = to_int(tok[2]);
      if (ce && jpg && ofa) {
        cap.rows.back().ce = ce;
        cap.rows.back().jpg = jpg;
        cap.rows.back().ofa = ofa;
        second_line_pending = false;
        continue;
      }
    }
    if (line.find("GPU instance profiles:") != std::string_view::npos) continue;
    cap.errors.push_back("line " + std::to_string(n) + ": unrecognised -lgip line");
  }
  return cap;
}

// A small `nvidia-smi mig -lgipp` reader:
//   GPU  0 Profile ID 19 Placements: {0,1,2,3,4,5,6}:1
//   GPU  0 Profile ID  5 Placement : {0}:4
struct lgipp_entry {
  int id = 0;
  unit_mask starts = 0;
  int size = 0;
};

struct lgipp_capture {
  std::vector<lgipp_entry> entries;
  std::vector<std::string> errors;
};

lgipp_capture read_lgipp(const std::string& text) {
  lgipp_capture cap;
  int n = 0;
  for (const std::string& raw : split_lines(text)) {
    ++n;
    std::string_view line = raw;
    if (line.empty() || line.starts_with("#")) continue;
    const auto bad = [&] { cap.errors.push_back("line " + std::to_string(n) + ": " + raw); };
    const auto at_id = line.find("Profile ID");
    const auto open = line.find('{'), close = line.find('}');
    if (!line.starts_with("GPU") || at_id == std::string_view::npos ||
        open == std::string_view::npos || close == std::string_view::npos || close < open ||
        close + 1 >= line.size() || line[close + 1] != ':') {
      bad();
      continue;
    }
    const auto id_tok = split_ws(line.substr(at_id + 10, open - at_id - 10));
    const auto id = id_tok.empty() ? std::nullopt : to_int(id_tok[0]);
    const auto size_tok = split_ws(line.substr(close + 2));
    const auto size = size_tok.size() == 1 ? to_int(size_tok[0]) : std::nullopt;
    if (!id || !size) {
      bad();
      continue;
    }
    lgipp_entry e{.id = *id, .starts = 0, .size = *size};
    std::string_view list = line.substr(open + 1, close - open - 1);
    bool ok = true;
    while (!list.empty()) {
      const auto comma = list.find(',');
      const auto start = to_int(list.substr(0, comma));
      if (!start || *start < 0 || *start >= max_units) ok = false;
      if (start && *start >= 0 && *start < max_units) e.starts |= unit_mask{1} << *start;
      list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    }
    if (!ok || e.starts == 0) {
      bad();
      continue;
    }
    cap.entries.push_back(e);
  }
  return cap;
}

// ---------------------------------------------------------------------------------------------
// Which capture belongs to which model, and what each is allowed to disagree on.

enum class column { id, total, memory, sm, dec, enc, ce, jpg, ofa };
constexpr column all_columns[] = {column::id, column::total, column::memory,
                                  column::sm, column::dec,   column::enc,
                                  column::ce, column::jpg,   column::ofa};

std::string column_name(column c) {
  switch (c) {
    case column::id:
      return "ID";
    case column::total:
      return "Total instances";
    case column::memory:
      return "Memory GiB x100";
    case column::sm:
      return "SM";
    case column::dec:
      return "DEC";
    case column::enc:
      return "ENC";
    case column::ce:
      return "CE";
    case column::jpg:
      return "JPG";
    case column::ofa:
      return "OFA";
  }
  return "?";
}

// The column as data/models.json names it (`differences[].column`).
std::string column_key(column c) {
  switch (c) {
    case column::id:
      return "id";
    case column::total:
      return "total";
    case column::memory:
      return "memory";
    case column::sm:
      return "sm";
    case column::dec:
      return "dec";
    case column::enc:
      return "enc";
    case column::ce:
      return "ce";
    case column::jpg:
      return "jpg";
    case column::ofa:
      return "ofa";
  }
  return "?";
}

// The catalog field a column is compared with, and the flag that marks it inferred.
std::optional<int> catalog_value(const profile& p, column c) {
  switch (c) {
    case column::id:
      return p.id;
    case column::total:
      return p.max_instances;
    case column::memory:
      return p.memory_gib_x100;
    case column::sm:
      return p.sm_count;
    case column::dec:
      return engine_of(p, engine::dec);
    case column::enc:
      return engine_of(p, engine::enc);
    case column::ce:
      return engine_of(p, engine::ce);
    case column::jpg:
      return engine_of(p, engine::jpg);
    case column::ofa:
      return engine_of(p, engine::ofa);
  }
  return std::nullopt;
}

field inferred_flag(column c) {
  switch (c) {
    case column::id:
      return field::id;
    case column::total:
      return field::max_instances;
    case column::sm:
      return field::sm_count;
    case column::ce:
      return field::ce;
    default:
      return field::none;
  }
}

std::optional<int> capture_value(const lgip_row& r, column c) {
  switch (c) {
    case column::id:
      return r.id;
    case column::total:
      return r.total;
    case column::memory:
      return r.memory_x100;
    case column::sm:
      return r.sm;
    case column::dec:
      return r.dec;
    case column::enc:
      return r.enc;
    case column::ce:
      return r.ce;
    case column::jpg:
      return r.jpg;
    case column::ofa:
      return r.ofa;
  }
  return std::nullopt;
}

// A value a capture prints that the catalog deliberately does not take, and why.
struct known_difference {
  std::string row;  // profile name as the capture prints it
  column col;
  int printed;  // the capture's value
  std::string why;
};

// A catalog row a complete capture does not list, and why.
struct known_absence {
  std::string row;
  std::string why;
};

struct lgip_case {
  std::string slug;
  std::string file;
  // True for the capture(s) the table was transcribed from (models.json `table_source`, the
  // model's `evidence`). Every value any capture prints must equal the catalog's unless listed
  // in `differences` with the reason; a table source may list some only for rows it prints
  // under a former name (an early driver's name for the profile).
  bool table_source = false;
  std::vector<known_difference> differences{};
  std::vector<known_absence> absent{};
};

struct lgipp_case {
  std::string slug;
  std::string file;
  std::vector<known_absence> absent{};
};

// A former profile name as data/models.json lists it.
struct curated_former_name {
  std::string profile;  // the current name
  std::string name;
  std::string note;
};

// One data/models.json model: what gen_catalog.py writes into the catalog besides the
// mig-profiles.json tables.
struct curated_model {
  std::string slug;
  std::vector<std::string> smi_names{};
  std::vector<curated_former_name> former_names{};
  std::vector<curated_former_name> circulating_names{};  // same fields: profile, name, note
  std::vector<std::string> evidence{};                   // the table_source captures, in order
  std::string floor_branch{}, floor_version{}, floor_source{};  // driver_floor; empty: unknown
  std::string floor_note{};                                     // driver_floor_note
};

struct curated_data {
  std::vector<curated_model> models;  // in catalog order
  std::set<std::string> skipped;      // mig-profiles.json GPUs deliberately not in the catalog
  std::vector<lgip_case> lgip_cases;  // every -lgip capture a model lists
  std::vector<lgipp_case> lgipp_cases;
};

std::vector<known_absence> absences_of(const json& capture) {
  std::vector<known_absence> out;
  for (const json& a : capture.value("absent", json::array())) {
    out.push_back({a.at("profile").get<std::string>(), a.at("why").get<std::string>()});
  }
  return out;
}

// Reads data/models.json. gen_catalog.py rejects a malformed one; this only has to read it.
curated_data read_curated() {
  const json doc = json::parse(read_text(data_dir / "models.json"));
  curated_data out;
  for (const json& m : doc.at("models")) {
    curated_model cm{.slug = m.at("slug").get<std::string>()};
    for (const json& n : m.at("smi_names")) cm.smi_names.push_back(n.at("name").get<std::string>());
    if (m.contains("driver_floor")) {
      const json& f = m.at("driver_floor");
      cm.floor_branch = f.at("branch").get<std::string>();
      cm.floor_version = f.at("version").get<std::string>();
      cm.floor_source = f.at("source").get<std::string>();
    }
    cm.floor_note = m.value("driver_floor_note", std::string());
    for (const json& f : m.at("former_names")) {
      cm.former_names.push_back({f.at("profile").get<std::string>(),
                                 f.at("name").get<std::string>(), f.at("note").get<std::string>()});
    }
    for (const json& c : m.value("circulating_names", json::array())) {
      cm.circulating_names.push_back({c.at("profile").get<std::string>(),
                                      c.at("name").get<std::string>(),
                                      c.at("note").get<std::string>()});
    }
    for (const json& c : m.at("captures")) {
      const std::string file = c.at("file").get<std::string>();
      const bool table_source = c.at("table_source").get<bool>();
      INFO(cm.slug << ": " << file);
      if (table_source) cm.evidence.push_back(file);
      if (file.find("-lgipp") != std::string::npos) {
        REQUIRE_FALSE(c.contains("differences"));
        out.lgipp_cases.push_back({.slug = cm.slug, .file = file, .absent = absences_of(c)});
      } else if (file.find("-lgip") != std::string::npos) {
        lgip_case lc{.slug = cm.slug, .file = file, .table_source = table_source};
        for (const json& d : c.value("differences", json::array())) {
          const std::string key = d.at("column").get<std::string>();
          const auto col = std::find_if(std::begin(all_columns), std::end(all_columns),
                                        [&](column k) { return column_key(k) == key; });
          INFO("column " << key);
          REQUIRE(col != std::end(all_columns));
          // As printed: "32.50" for the memory column, a whole number for the others.
          const std::string printed = d.at("printed").get<std::string>();
          const auto value = *col == column::memory ? parse_x100(printed) : to_int(printed);
          INFO("printed " << printed);
          REQUIRE(value.has_value());
          lc.differences.push_back({.row = d.at("profile").get<std::string>(),
                                    .col = *col,
                                    .printed = *value,
                                    .why = d.at("why").get<std::string>()});
        }
        lc.absent = absences_of(c);
        out.lgip_cases.push_back(std::move(lc));
      }
    }
    out.models.push_back(std::move(cm));
  }
  for (const json& s : doc.at("skipped")) out.skipped.insert(s.at("slug").get<std::string>());
  return out;
}

const curated_data& curated() {
  static const curated_data data = read_curated();
  return data;
}

// The catalog row a capture row names: by current name, else by a former name.
const profile* catalog_row(const gpu_model& m, std::string_view name) {
  if (const int i = find_profile(m, name); i >= 0) return &m.profiles[static_cast<std::size_t>(i)];
  for (const profile& p : m.profiles) {
    for (const former_name& f : p.former_names) {
      if (f.name == name) return &p;
    }
  }
  return nullptr;
}

std::vector<std::string> capture_files_containing(std::string_view marker) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(data_dir / "captures")) {
    const std::string name = entry.path().filename().string();
    if (name.find(marker) != std::string::npos) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

TEST_CASE("the test's -lgip reader keeps a row whose second line was cut off",
          "[evidence][reader]") {
  const lgip_capture cap = read_lgip(
      "# complete: no\n"
      "|   0  MIG 1g.5gb        19     7/7        4.75       No     14     0     0   |\n"
      "|                                                             1     0     0   |\n"
      "+-----------------------------------------------------------------------------+\n"
      "|   0  MIG 7g.141gb       0     1/1        139.75     No     132    7     0   |\n");
  REQUIRE(cap.errors.empty());
  REQUIRE_FALSE(cap.complete);
  REQUIRE(cap.rows.size() == 2);
  CHECK(cap.rows[0].ce == 1);
  CHECK(cap.rows[1].memory_x100 == 13975);
  CHECK(cap.rows[1].sm == 132);
  CHECK_FALSE(cap.rows[1].ce.has_value());
}

TEST_CASE("the test's -lgip reader rejects a line it does not understand", "[evidence][reader]") {
  const lgip_capture cap = read_lgip("|   0  MIG 1g.5gb   19   7/7   4.75   No   14   0   |\n");
  CHECK(cap.rows.empty());
  CHECK(cap.errors.size() == 1);
}

TEST_CASE("every capture file holds the text data/mig-profiles.json quotes for it", "[evidence]") {
  const json doc = json::parse(read_text(data_dir / "mig-profiles.json"));
  std::set<std::string> quoted;
  for (const json& c : doc.at("captures")) {
    const std::string file = c.at("file").get<std::string>();
    INFO(file);
    quoted.insert(file);
    std::string body;
    bool complete = true;
    for (const std::string& line : split_lines(read_text(data_dir / file))) {
      if (line.starts_with("#")) {
        if (line.find("complete: no") != std::string::npos) complete = false;
      } else {
        body += line + "\n";
      }
    }
    CHECK(body == c.at("text").get<std::string>());
    CHECK(complete == c.at("complete").get<bool>());
  }
  for (const auto& entry : std::filesystem::directory_iterator(data_dir / "captures")) {
    INFO(entry.path().string());
    CHECK(quoted.count("captures/" + entry.path().filename().string()) == 1);
  }
}

TEST_CASE("every -lgip and -lgipp capture in data/captures is checked against the catalog",
          "[catalog][evidence]") {
  std::set<std::string> lgip, lgipp;
  for (const auto& c : curated().lgip_cases) lgip.insert(c.file);
  for (const auto& c : curated().lgipp_cases) lgipp.insert(c.file);
  for (const std::string& f : capture_files_containing("-lgip")) {
    INFO("data/captures/" << f);
    if (f.find("-lgipp") != std::string::npos) {
      CHECK(lgipp.count(f) == 1);
    } else {
      CHECK(lgip.count(f) == 1);
    }
  }
}

TEST_CASE("every catalog row matches the -lgip captures of its GPU", "[catalog][evidence]") {
  for (const lgip_case& c : curated().lgip_cases) {
    DYNAMIC_SECTION(c.slug << ": data/captures/" << c.file) {
      const gpu_model& m = model(c.slug);
      const lgip_capture cap = read_lgip(read_text(data_dir / "captures" / c.file));
      for (const std::string& e : cap.errors) FAIL_CHECK(e);
      REQUIRE_FALSE(cap.rows.empty());

      std::vector<bool> used(c.differences.size(), false);
      std::set<std::string> seen;
      for (const lgip_row& r : cap.rows) {
        INFO("line " << r.line << ": " << r.name);
        const profile* p = catalog_row(m, r.name);
        REQUIRE(p != nullptr);
        seen.insert(std::string(p->name));
        // A capture of an empty GPU: every profile shows all its instances free.
        CHECK(r.free == r.total);
        for (column col : all_columns) {
          const std::optional<int> printed = capture_value(r, col);
          if (!printed) continue;  // second line cut off
          INFO(column_name(col));
          if (has(p->prov.inferred, inferred_flag(col))) continue;  // catalog says: not observed
          const auto diff = std::find_if(
              c.differences.begin(), c.differences.end(),
              [&](const known_difference& d) { return d.row == r.name && d.col == col; });
          if (diff != c.differences.end()) {
            INFO("listed difference: " << diff->why);
            used[static_cast<std::size_t>(diff - c.differences.begin())] = true;
            if (c.table_source) {
              INFO("a table's own source may disagree with it only under a former name");
              CHECK(r.name != std::string(p->name));
            }
            CHECK(show(printed) == show(diff->printed));
            CHECK(show(catalog_value(*p, col)) != show(printed));
          } else {
            CHECK(show(catalog_value(*p, col)) == show(printed));
          }
        }
      }
      for (std::size_t i = 0; i < used.size(); ++i) {
        INFO("listed difference never seen: " << c.differences[i].row << " "
                                              << column_name(c.differences[i].col));
        CHECK(used[i]);
      }

      // A complete capture that a table was transcribed from lists every row of the table.
      if (c.table_source && cap.complete) {
        for (const profile& p : m.profiles) {
          const bool listed_absent =
              std::any_of(c.absent.begin(), c.absent.end(),
                          [&](const known_absence& a) { return a.row == p.name; });
          INFO(std::string(p.name));
          CHECK(seen.count(std::string(p.name)) == (listed_absent ? 0u : 1u));
        }
      }
    }
  }
}

TEST_CASE("every -lgipp capture matches the catalog placements", "[catalog][evidence]") {
  std::set<std::string> with_lgipp;
  for (const lgipp_case& c : curated().lgipp_cases) {
    with_lgipp.insert(c.slug);
    DYNAMIC_SECTION(c.slug << ": data/captures/" << c.file) {
      const gpu_model& m = model(c.slug);
      const lgipp_capture cap = read_lgipp(read_text(data_dir / "captures" / c.file));
      for (const std::string& e : cap.errors) FAIL_CHECK(e);
      REQUIRE_FALSE(cap.entries.empty());

      std::set<int> listed;
      for (const lgipp_entry& e : cap.entries) {
        INFO("profile ID " << e.id);
        CHECK(listed.insert(e.id).second);
        const int i = find_profile_by_id(m, e.id);
        REQUIRE(i >= 0);
        const profile& p = m.profiles[static_cast<std::size_t>(i)];
        CHECK(p.starts == e.starts);
        CHECK(p.size == e.size);
      }
      // No profile whose placements the catalog calls observed may be missing.
      for (const profile& p : m.profiles) {
        if (has(p.prov.inferred, field::placements)) continue;
        const bool listed_absent =
            std::any_of(c.absent.begin(), c.absent.end(),
                        [&](const known_absence& a) { return a.row == p.name; });
        INFO(std::string(p.name) << " (ID " << p.id << ")");
        CHECK(listed.count(p.id) == (listed_absent ? 0u : 1u));
      }
    }
  }

  SECTION("every model with observed placements has an -lgipp capture") {
    for (const gpu_model& m : catalog()) {
      const bool observed = std::any_of(m.profiles.begin(), m.profiles.end(), [](const profile& p) {
        return !has(p.prov.inferred, field::placements);
      });
      INFO(std::string(m.slug));
      CHECK(with_lgipp.count(std::string(m.slug)) == (observed ? 1u : 0u));
    }
  }
}

TEST_CASE("the catalog equals data/mig-profiles.json field by field", "[catalog][evidence]") {
  const json doc = json::parse(read_text(data_dir / "mig-profiles.json"));
  std::map<std::string, const json*> gpus;
  for (const json& g : doc.at("gpus")) gpus[g.at("id").get<std::string>()] = &g;

  SECTION("the JSON GPUs left out are exactly the ones without placements") {
    std::set<std::string> left_out;
    for (const auto& [id, g] : gpus) {
      if (!find_model(id)) left_out.insert(id);
    }
    CHECK(left_out == curated().skipped);
  }

  for (const gpu_model& m : catalog()) {
    const std::string slug(m.slug);
    DYNAMIC_SECTION(slug) {
      REQUIRE(gpus.count(slug) == 1);
      const json& g = *gpus.at(slug);
      CHECK(std::string(m.description) == g.at("name").get<std::string>());
      // The model's name is the first nvidia-smi name, never the description.
      CHECK(m.name() == (m.smi_names.empty() ? std::string_view{} : m.smi_names.front()));
      const json& mem = g.at("total_memory_mib");
      CHECK(show(m.memory_mib) == (mem.is_null() ? "unknown" : std::to_string(mem.get<int>())));
      CHECK(m.units == g.at("memory_slices").get<int>());
      CHECK(m.compute_slices == g.at("sm_slices").get<int>());
      const std::string cov = g.at("coverage").get<std::string>();
      CHECK(std::string(m.coverage_note) == cov);
      const coverage want_cover = cov.starts_with("full")      ? coverage::full
                                  : cov.starts_with("partial") ? coverage::partial
                                                               : coverage::config_only;
      CHECK(cov.starts_with("config-only") == (want_cover == coverage::config_only));
      CHECK(m.cover == want_cover);

      // "0x233110DE (likely; not confirmed by a capture)": the hex, inferred when remarked so.
      const json& pcis = g.at("pci_ids");
      REQUIRE(m.pci_ids.size() == pcis.size());
      for (std::size_t i = 0; i < pcis.size(); ++i) {
        const std::string text = pcis[i].get<std::string>();
        INFO(text);
        CHECK(m.pci_ids[i].value == std::stoul(text.substr(0, 10), nullptr, 16));
        const bool remark_inferred = text.size() > 10 && (contains_ci(text.substr(10), "likely") ||
                                                          contains_ci(text.substr(10), "inferred"));
        CHECK(m.pci_ids[i].inferred == remark_inferred);
      }

      const json& rows = g.at("gi_profiles");
      REQUIRE(m.profiles.size() == rows.size());
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const json& r = rows[i];
        const profile& p = m.profiles[i];
        const std::string name = r.at("name").get<std::string>();
        INFO(slug << " " << name);
        CHECK(std::string(p.name) == name);
        CHECK(p.id == r.at("id").get<int>());
        CHECK(p.compute_slices == std::stoi(name.substr(0, name.find('g'))));
        const json& pl = r.at("placements");
        unit_mask starts = 0;
        for (const json& s : pl.at("starts")) starts |= unit_mask{1} << s.get<int>();
        CHECK(p.starts == starts);
        CHECK(p.size == pl.at("size").get<int>());
        CHECK(p.max_instances == r.at("max_instances").get<int>());
        const json& gib = r.at("memory_gib_printed");
        CHECK(show(p.memory_gib_x100) ==
              (gib.is_null() ? "unknown" : show(parse_x100(gib.get<std::string>()))));
        const auto json_opt = [&](const char* key) {
          const json& v = r.at(key);
          return v.is_null() ? std::optional<int>{} : std::optional<int>(v.get<int>());
        };
        CHECK(show(p.sm_count) == show(json_opt("sm_count")));
        CHECK(show(engine_of(p, engine::ce)) == show(json_opt("ce")));
        CHECK(show(engine_of(p, engine::dec)) == show(json_opt("nvdec")));
        CHECK(show(engine_of(p, engine::enc)) == show(json_opt("nvenc")));
        CHECK(show(engine_of(p, engine::jpg)) == show(json_opt("nvjpg")));
        CHECK(show(engine_of(p, engine::ofa)) == show(json_opt("ofa")));
        const std::string min_driver = r.value("min_driver", json()).is_null()
                                           ? std::string()
                                           : r.at("min_driver").get<std::string>();
        // The profile's own branch, where it is later than the model's: the
        // same branch is the model's (a profile's min_driver is then empty).
        std::string own = min_driver.substr(0, min_driver.find(' '));
        if (!own.empty() && !m.min_driver.empty() &&
            std::stoi(own.substr(1)) <= std::stoi(std::string(m.min_driver.substr(1))))
          own.clear();
        CHECK(std::string(p.min_driver) == own);
        const auto text_or_empty = [&](const char* key) {
          const json v = r.value(key, json());
          return v.is_null() ? std::string() : v.get<std::string>();
        };
        CHECK(std::string(p.prov.source) == text_or_empty("source"));
        CHECK(std::string(p.prov.placements_source) == text_or_empty("placements_source"));
        CHECK(std::string(p.prov.notes) == text_or_empty("notes"));

        field want = field::none;
        for (const json& f : r.at("inferred_fields")) {
          const std::string s = f.get<std::string>();
          INFO("inferred field " << s);
          if (s == "id") {
            want = want | field::id;
          } else if (s == "sm_count") {
            want = want | field::sm_count;
          } else if (s == "placements") {
            want = want | field::placements;
          } else if (s == "ce") {
            want = want | field::ce;
          } else if (s == "max_instances") {
            want = want | field::max_instances;
          } else {
            FAIL("unknown inferred field");
          }
        }
        CHECK(static_cast<int>(p.prov.inferred) == static_cast<int>(want));
        CHECK(p.inferred() == r.at("inferred").get<bool>());

        // Former names are curated from the row's notes, which quote them: 'old-name'.
        for (const former_name& f : p.former_names) {
          INFO("former name " << std::string(f.name));
          CHECK(text_or_empty("notes").find("'" + std::string(f.name) + "'") != std::string::npos);
          CHECK_FALSE(f.note.empty());
        }
        // So are names third-party tools use for the row ('7g.79gb').
        for (const circulating_name& c : p.circulating_names) {
          INFO("circulating name " << std::string(c.name));
          CHECK(text_or_empty("notes").find("'" + std::string(c.name) + "'") != std::string::npos);
          CHECK_FALSE(c.note.empty());
        }
      }

      // Curated nvidia-smi names must be quoted by the JSON entry (name or aliases).
      std::string quoted = g.at("name").get<std::string>();
      for (const json& a : g.at("aliases")) quoted += "\n" + a.get<std::string>();
      for (std::string_view n : m.smi_names) {
        INFO("nvidia-smi name " << std::string(n));
        CHECK(quoted.find(std::string(n)) != std::string::npos);
      }
    }
  }
}

TEST_CASE("every model names evidence files that exist and cover the captures its rows cite",
          "[catalog][evidence]") {
  const std::filesystem::path repo = data_dir.parent_path();
  for (const gpu_model& m : catalog()) {
    INFO(std::string(m.slug) << ": " << std::string(m.evidence));
    REQUIRE_FALSE(m.evidence.empty());
    std::set<std::string> files;
    std::string_view rest = m.evidence;
    while (!rest.empty()) {
      const auto comma = rest.find(", ");
      const std::string item(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 2);
      if (!item.starts_with("data/captures/")) continue;
      CHECK(std::filesystem::is_regular_file(repo / item));
      files.insert(item.substr(5));  // "captures/x.txt", as the JSON cites them
    }
    CHECK(files.empty() == (m.evidence.find("none captured") != std::string_view::npos));
    for (const profile& p : m.profiles) {
      for (std::string_view text : {p.prov.source, p.prov.placements_source}) {
        for (auto at = text.find("captures/"); at != std::string_view::npos;
             at = text.find("captures/", at + 1)) {
          const auto end = text.find(".txt", at);
          REQUIRE(end != std::string_view::npos);
          const std::string cited(text.substr(at, end + 4 - at));
          INFO(std::string(p.name) << " cites " << cited);
          CHECK(files.count(cited) == 1);
        }
      }
    }
  }
}

TEST_CASE("the catalog holds the models of data/models.json with their curated facts",
          "[catalog][evidence]") {
  std::vector<std::string> slugs, want;
  for (const gpu_model& m : catalog()) slugs.emplace_back(m.slug);
  for (const curated_model& cm : curated().models) want.push_back(cm.slug);
  REQUIRE(slugs == want);  // the same models, in the file's order

  for (const curated_model& cm : curated().models) {
    DYNAMIC_SECTION(cm.slug) {
      const gpu_model& m = model(cm.slug);
      CHECK(std::vector<std::string>(m.smi_names.begin(), m.smi_names.end()) == cm.smi_names);

      // Former names, per profile in file order; none names a profile the model lacks.
      std::size_t listed = 0;
      for (const profile& p : m.profiles) {
        INFO(std::string(p.name));
        std::vector<std::string> got, expected;
        for (const former_name& f : p.former_names) {
          got.push_back(std::string(f.name) + " (" + std::string(f.note) + ")");
        }
        for (const curated_former_name& f : cm.former_names) {
          if (f.profile == p.name) expected.push_back(f.name + " (" + f.note + ")");
        }
        CHECK(got == expected);
        listed += expected.size();
      }
      CHECK(listed == cm.former_names.size());

      // Circulating names likewise; none is a profile name of any model.
      std::size_t circulating = 0;
      for (const profile& p : m.profiles) {
        INFO(std::string(p.name));
        std::vector<std::string> got, expected;
        for (const circulating_name& c : p.circulating_names) {
          got.push_back(std::string(c.name) + " (" + std::string(c.note) + ")");
          for (const gpu_model& other : catalog()) CHECK(find_profile(other, c.name) < 0);
        }
        for (const curated_former_name& c : cm.circulating_names) {
          if (c.profile == p.name) expected.push_back(c.name + " (" + c.note + ")");
        }
        CHECK(got == expected);
        circulating += expected.size();
      }
      CHECK(circulating == cm.circulating_names.size());

      std::string evidence;
      for (const std::string& f : cm.evidence) {
        evidence += (evidence.empty() ? "" : ", ") + ("data/captures/" + f);
      }
      if (cm.evidence.empty()) {
        CHECK(m.evidence.starts_with("none captured: "));
      } else {
        CHECK(std::string(m.evidence) == evidence);
      }
    }
  }
}

TEST_CASE("every model's driver floor is the one data/models.json cites, or unknown with a reason",
          "[catalog][evidence][driver]") {
  const json doc = json::parse(read_text(data_dir / "models.json"));
  const std::string guide = "MIG guide 620";
  REQUIRE(doc.at("shorthands").contains(guide));
  for (const curated_model& cm : curated().models) {
    DYNAMIC_SECTION(cm.slug) {
      const gpu_model& m = model(cm.slug);
      CHECK(std::string(m.min_driver) == cm.floor_branch);
      CHECK(std::string(m.min_driver_version) == cm.floor_version);
      if (cm.floor_branch.empty()) {
        CHECK(!cm.floor_note.empty());  // unknown, and models.json says why
        continue;
      }
      CHECK(cm.floor_note.empty());
      CHECK(cm.floor_source.starts_with(guide + " ("));
      // The version belongs to the branch: "450.80.02" of R450.
      CHECK(cm.floor_version.starts_with(cm.floor_branch.substr(1) + "."));
      // No profile of the model came before MIG itself did, and a profile's
      // own branch is a later one (the model's is written once).
      const auto number = [](std::string_view r) { return std::stoi(std::string(r.substr(1))); };
      for (const profile& p : m.profiles)
        if (!p.min_driver.empty()) CHECK(number(p.min_driver) > number(m.min_driver));
    }
  }
}

TEST_CASE("the driver floors are those NVIDIA's 620 MIG guide gives", "[catalog][driver]") {
  // Transcribed here from the guide's Deployment Considerations table, not from data/, so a
  // slip in models.json fails: {slug, branch, version}.
  const std::tuple<std::string_view, std::string_view, std::string_view> rows[] = {
      {"a100-40gb", "R450", "450.80.02"},    {"a100-80gb", "R450", "450.80.02"},
      {"a30", "R460", "460.73.01"},          {"h100-80gb", "R525", "525.85.12"},
      {"h100-pcie", "R525", "525.85.12"},    {"h20", "R535", "535.161.07"},
      {"h200", "R550", "550.90.07"},         {"b200", "R570", "570.133.20"},
      {"gb200", "R570", "570.133.20"},       {"b300", "R580", "580.82.07"},
      {"rtx-pro-6000", "R575", "575.51.03"}, {"rtx-pro-5000", "R575", "575.57.08"},
      {"rtx-pro-4500", "R575", "575.64"},
  };
  for (const auto& [slug, branch, version] : rows) {
    INFO(std::string(slug));
    CHECK(model(slug).min_driver == branch);
    CHECK(model(slug).min_driver_version == version);
  }
  // The guide's profile notes: A30 1g.6gb+me from R470, 2g.12gb+me from R525; A100 1g.10gb
  // from R525.
  const gpu_model& a30 = model("a30");
  CHECK(a30.profiles[static_cast<std::size_t>(find_profile(a30, "1g.6gb+me"))].min_driver ==
        "R470");
  CHECK(a30.profiles[static_cast<std::size_t>(find_profile(a30, "2g.12gb+me"))].min_driver ==
        "R525");
  const gpu_model& a100 = model("a100-40gb");
  CHECK(a100.profiles[static_cast<std::size_t>(find_profile(a100, "1g.10gb"))].min_driver ==
        "R525");
  CHECK(profile_min_driver(a100, a100.profiles[0]) == "R450");
  // The guide's R595 row is the GB300 DGX Station, not the 0x31C2 board the catalog holds.
  CHECK(model("gb300").min_driver.empty());
}

TEST_CASE("every catalog model is internally consistent", "[catalog]") {
  std::vector<std::string> slugs;
  for (const gpu_model& m : catalog()) slugs.emplace_back(m.slug);
  CHECK(std::set<std::string>(slugs.begin(), slugs.end()).size() == slugs.size());

  std::set<std::uint32_t> pcis;
  std::map<std::string, std::string> smi_owner;  // name without "NVIDIA " -> slug
  for (const gpu_model& m : catalog()) {
    INFO(std::string(m.slug));
    CHECK(m.units >= 1);
    CHECK(m.units <= max_units);
    CHECK(m.compute_slices >= 1);
    CHECK(m.compute_slices <= m.units);
    CHECK(full_profile(m) >= 0);
    for (const pci_id& p : m.pci_ids) {
      CHECK((p.value & 0xFFFFu) == 0x10DEu);  // NVIDIA's vendor ID in the lower half
      CHECK(pcis.insert(p.value).second);
    }
    for (std::string_view n : m.smi_names) {
      // Names may repeat within a model (with and without "NVIDIA "), never across models.
      const auto [it, fresh] = smi_owner.emplace(detail::strip_vendor(n), m.slug);
      CHECK(it->second == std::string(m.slug));
    }

    std::set<int> ids;
    std::set<std::string> names;
    bool any_inferred = false;
    for (const profile& p : m.profiles) {
      INFO(std::string(p.name));
      CHECK(ids.insert(p.id).second);
      std::string lower;
      for (char ch : p.name) lower += detail::ascii_lower(ch);
      CHECK(names.insert(lower).second);
      CHECK(p.compute_slices >= 1);
      CHECK(p.compute_slices <= m.compute_slices);
      CHECK(p.size >= 1);
      CHECK(p.starts != 0);
      CHECK((p.starts & ~m.all_units()) == 0);
      for (int s = 0; s < max_units; ++s) {
        if (p.allows_start(s)) CHECK(s + p.size <= m.units);
      }
      // "Total" instances coexist on an empty GPU, so they fit both budgets.
      CHECK(p.max_instances >= 1);
      CHECK(p.max_instances <= std::popcount(p.starts));
      CHECK(p.max_instances * p.size <= m.units);
      CHECK(p.max_instances * p.compute_slices <= m.compute_slices);
      CHECK((p.min_driver.empty() || (p.min_driver.size() > 1 && p.min_driver[0] == 'R')));
      CHECK_FALSE(p.prov.source.empty());
      CHECK_FALSE(p.prov.placements_source.empty());
      any_inferred = any_inferred || p.inferred();
      if (m.cover == coverage::config_only) CHECK(has(p.prov.inferred, field::id));
    }
    // Full coverage means nothing inferred; partial means something is.
    if (m.cover == coverage::full) CHECK_FALSE(any_inferred);
    if (m.cover == coverage::partial) CHECK(any_inferred);
  }
}

TEST_CASE("models are found by slug, PCI ID and nvidia-smi name", "[catalog][lookup]") {
  CHECK(find_model("a100-40gb")->slug == "a100-40gb");
  CHECK(find_model("RTX-PRO-6000")->slug == "rtx-pro-6000");
  CHECK(find_model("a100") == nullptr);
  CHECK(find_model("") == nullptr);

  CHECK(find_model_by_pci(0x20B010DE) == find_model("a100-40gb"));
  CHECK(find_model_by_pci(0x20B0) == find_model("a100-40gb"));
  CHECK(find_model_by_pci(0x2BB5) == find_model("rtx-pro-6000"));
  CHECK(find_model_by_pci(0x20B0DEAD) == nullptr);
  CHECK(find_model_by_pci(0x10DE) == nullptr);
  const gpu_model* pcie = find_model_by_pci(0x233110DE);
  REQUIRE(pcie == find_model("h100-pcie"));
  CHECK(pcie->pci_ids[0].inferred);  // 0x2331 = H100 PCIe is an inference (mig-profiles.md)
  // IDs whose table comes from NVIDIA's mig-parted config or the MIG guide, not a capture:
  // found, and marked inferred on the model that lists them.
  const std::pair<std::uint32_t, std::string_view> config_ids[] = {
      {0x232210DE, "h100-pcie"},    {0x232410DE, "h100-80gb"},    {0x233D10DE, "gh200-96gb"},
      {0x20B610DE, "gh200-96gb"},   {0x233B10DE, "h200"},         {0x2BB110DE, "rtx-pro-6000"},
      {0x2BB410DE, "rtx-pro-6000"}, {0x2BB310DE, "rtx-pro-5000"},
  };
  for (const auto& [id, slug] : config_ids) {
    INFO(std::hex << id);
    const gpu_model* m = find_model_by_full_pci(id);
    REQUIRE(m == find_model(slug));
    for (const pci_id& p : m->pci_ids)
      if (p.value == id) CHECK(p.inferred);
  }

  CHECK(find_model_by_smi_name("NVIDIA A100-SXM4-40GB") == find_model("a100-40gb"));
  CHECK(find_model_by_smi_name("A100-SXM4-40GB") == find_model("a100-40gb"));
  CHECK(find_model_by_smi_name("nvidia a100-pcie-40gb") == find_model("a100-40gb"));
  CHECK(find_model_by_smi_name("A30") == find_model("a30"));
  CHECK(find_model_by_smi_name("NVIDIA H100 80GB HBM3") == find_model("h100-80gb"));
  CHECK(find_model_by_smi_name("NVIDIA A100 80G...") == nullptr);  // truncated table name
  CHECK(find_model_by_smi_name("NVIDIA H200") == find_model("h200"));
  CHECK(find_model_by_smi_name("NVIDIA H200 NVL") == find_model("h200"));
  CHECK(find_model_by_smi_name("NVIDIA H20") == find_model("h20"));
  CHECK(find_model_by_smi_name("NVIDIA RTX PRO 5000 Blackwell") == find_model("rtx-pro-5000"));
  // The 72GB board shares device 0x2BB3 but not the name, nor a documented table.
  CHECK(find_model_by_smi_name("NVIDIA RTX PRO 5000 72GB Blackwell") == nullptr);
  CHECK(find_model_by_smi_name("NVIDIA ") == nullptr);
  CHECK(find_model_by_smi_name("NVIDIA RTX PRO 4500 Blackwell") == find_model("rtx-pro-4500"));
  CHECK(find_model("RTX-PRO-4500")->units == 4);
}

TEST_CASE("profiles are found by name and ID within one model", "[catalog][lookup]") {
  const gpu_model& a100 = model("a100-40gb");
  CHECK(find_profile(a100, "1g.5gb+me") == 1);
  CHECK(find_profile(a100, "1G.5GB+ME") == 1);
  CHECK(find_profile(a100, "MIG 1g.5gb") == -1);
  CHECK(find_profile(a100, "1g.5g") == -1);
  CHECK(find_profile_by_id(a100, 9) == find_profile(a100, "3g.20gb"));
  CHECK(find_profile_by_id(a100, 21) == -1);

  // IDs are per family: 14 is a 2g on A100 but a 1g on A30.
  CHECK(a100.profiles[static_cast<std::size_t>(find_profile_by_id(a100, 14))].compute_slices == 2);
  const gpu_model& a30 = model("a30");
  CHECK(a30.profiles[static_cast<std::size_t>(find_profile_by_id(a30, 14))].compute_slices == 1);

  // Former names are not current names.
  const gpu_model& gb200 = model("gb200");
  CHECK(find_profile(gb200, "1g.24gb") == -1);
  CHECK(gb200.profiles[0].former_names.size() == 1);
}

TEST_CASE("the full profile follows from the tables", "[catalog][lookup]") {
  CHECK(model("a100-40gb")
            .profiles[static_cast<std::size_t>(full_profile(model("a100-40gb")))]
            .name == "7g.40gb");
  CHECK(model("a30").profiles[static_cast<std::size_t>(full_profile(model("a30")))].name ==
        "4g.24gb");
}

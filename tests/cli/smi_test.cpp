// SPDX-License-Identifier: Apache-2.0
// The nvidia-smi MIG listing readers (src/io/smi.hpp): every capture in
// data/captures parses, the tables read from the captures a catalog model was
// transcribed from answer as the catalog does, and each kind of bad input gets
// its one message with its line.

#include "io/smi.hpp"

#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <migplan/catalog.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "smi_tables.hpp"

#ifndef MIGPLAN_SOURCE_DIR
#error "define MIGPLAN_SOURCE_DIR as the path of the repository"
#endif

using namespace migplan;
using namespace migplan::cli::smi;

namespace {

using migplan::test::lgi_line;
using migplan::test::lgi_table;

const std::filesystem::path captures_dir =
    std::filesystem::path(MIGPLAN_SOURCE_DIR) / "data" / "captures";

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path.string());
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The listing a capture's file name says it holds ("a30-cgi-lgi.txt": -lgi).
listing_kind kind_of_file(std::string_view name) {
  if (name.find("-lgipp") != std::string_view::npos) return listing_kind::lgipp;
  if (name.find("-lgip") != std::string_view::npos) return listing_kind::lgip;
  if (name.find("-lcip") != std::string_view::npos) return listing_kind::lcip;
  if (name.find("-lci") != std::string_view::npos) return listing_kind::lci;
  if (name.find("-lgi-") != std::string_view::npos || name.find("-lgi.") != std::string_view::npos)
    return listing_kind::lgi;
  return listing_kind::unknown;
}

// The notes as the printer writes them, without a file: "line N: ...".
std::vector<std::string> texts(const std::vector<cli::diagnostic>& notes) {
  std::vector<std::string> out;
  for (const cli::diagnostic& d : notes) out.push_back(cli::to_text(d));
  return out;
}

// What a reader answered, reduced to what every listing says.
struct outcome {
  bool ok = false;
  std::string message;
  std::size_t rows = 0;
  listing_base base;
};

template <class Listing>
outcome outcome_of(const read_result<Listing>& r) {
  outcome o;
  o.ok = r.has_value();
  if (!o.ok) {
    o.message = cli::to_text(r.error());
    return o;
  }
  o.rows = r->rows.size();
  o.base = *r;
  return o;
}

outcome read_as(listing_kind kind, std::string_view text) {
  switch (kind) {
    case listing_kind::lgip:
      return outcome_of(read_lgip(text));
    case listing_kind::lgipp:
      return outcome_of(read_lgipp(text));
    case listing_kind::lgi:
      return outcome_of(read_lgi(text));
    case listing_kind::lci:
      return outcome_of(read_lci(text));
    case listing_kind::lcip:
      return outcome_of(read_lcip(text));
    case listing_kind::unknown:
      break;
  }
  return {};
}

std::string error_of(listing_kind kind, std::string_view text) {
  const outcome o = read_as(kind, text);
  INFO(text);
  CHECK_FALSE(o.ok);
  return o.message;
}

constexpr std::string_view lgip_head =
    "+-----------------------------------------------------------------------------+\n"
    "| GPU instance profiles:                                                      |\n"
    "| GPU   Name             ID    Instances   Memory     P2P    SM    DEC   ENC  |\n"
    "|                              Free/Total   GiB              CE    JPEG  OFA  |\n"
    "|=============================================================================|\n";
constexpr std::string_view lgip_frame =
    "+-----------------------------------------------------------------------------+\n";

std::string lgip_row_1g5gb() {
  return "|   0  MIG 1g.5gb        19     7/7        4.75       No     14     0     0   |\n"
         "|                                                             1     0     0   |\n";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The captures.

TEST_CASE("every -lgip, -lgipp, -lgi, -lci and -lcip capture in data/captures parses", "[smi]") {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(captures_dir)) {
    const std::string name = entry.path().filename().string();
    const listing_kind kind = kind_of_file(name);
    if (kind == listing_kind::unknown) continue;
    ++files;
    DYNAMIC_SECTION("data/captures/" << name) {
      const std::string text = read_file(entry.path());
      CHECK(detect_listing(text) == kind);
      const outcome o = read_as(kind, text);
      INFO(o.message);
      REQUIRE(o.ok);
      CHECK(o.rows > 0);
      CHECK_FALSE(o.base.gpus.empty());
      const bool marked = text.find("\n# complete: no\n") != std::string::npos;
      CHECK(o.base.complete == !marked);
      for (const std::string& n : texts(o.base.notes)) {
        INFO(n);
        CHECK(n.starts_with("line "));
        // A whole capture has nothing missing; it may only hold other commands' lines.
        if (!marked) CHECK(n.find("skipped") != std::string::npos);
      }
      // A partial capture or fragment says so, and what else it lacks.
      if (marked) CHECK_FALSE(o.base.notes.empty());
    }
  }
  CHECK(files >= 40);
}

TEST_CASE("the -lgip reader keeps every column of a row", "[smi]") {
  const auto l = read_lgip(read_file(captures_dir / "a100-40gb-lgip.txt"));
  REQUIRE(l);
  REQUIRE(l->rows.size() == 7);
  const lgip_row& r = l->rows[1];
  CHECK(r.line == 12);
  CHECK(r.gpu == 0);
  CHECK(r.name == "1g.5gb+me");
  CHECK(r.suffix == "+me");
  CHECK(r.id == 20);
  CHECK(r.free == 1);
  CHECK(r.total == 1);
  CHECK(r.memory_gib == "4.75");
  CHECK(r.memory_gib_x100 == 475);
  CHECK(r.columns.p2p == false);
  CHECK(r.columns.sm == 14);
  CHECK(r.columns.dec == 1);
  CHECK(r.columns.enc == 0);
  CHECK(r.columns.ce == 1);
  CHECK(r.columns.jpeg == 1);
  CHECK(r.columns.ofa == 1);
  CHECK(r.columns.other.empty());
  CHECK(l->rows[0].suffix.empty());
  CHECK(l->notes.empty());
}

TEST_CASE("the -lgip reader splits on white space, not on fixed columns", "[smi]") {
  // The 81-column layout, and the suffixes of the RTX PRO 6000.
  const auto rtx = read_lgip(read_file(captures_dir / "rtx-pro-6000-lgip.txt"));
  REQUIRE(rtx);
  std::vector<std::string> suffixes;
  for (const auto& r : rtx->rows) suffixes.push_back(r.suffix);
  CHECK(suffixes == std::vector<std::string>{"", "+me", "+gfx", "+me.all", "-me", "", "+gfx",
                                             "+me.all", "-me", "", "+gfx"});
  CHECK(rtx->rows[3].name == "1g.24gb+me.all");
  CHECK(rtx->rows[3].columns.dec == 4);
  CHECK(rtx->rows[9].columns.sm == 188);

  // A six-character memory value shifts P2P and the columns after it.
  const auto h200 = read_lgip(read_file(captures_dir / "h200-lgip-fragment-gpu2-issue120.txt"));
  REQUIRE(h200);
  CHECK(h200->gpus == std::vector<int>{2, 3});
  const lgip_row& big = h200->rows[2];
  CHECK(big.name == "7g.141gb");
  CHECK(big.memory_gib == "139.75");
  CHECK(big.memory_gib_x100 == 13975);
  CHECK(big.columns.p2p == false);
  CHECK(big.columns.sm == 132);
  CHECK(big.columns.ce == 8);
}

TEST_CASE("a partial -lgip capture reads as far as it goes and says what is missing", "[smi]") {
  const std::string text = "# complete: no\n" + std::string(lgip_head) + lgip_row_1g5gb() +
                           std::string(lgip_frame) +
                           "|   0  MIG 7g.40gb        0     1/1        39.25      No     98     "
                           "5     0   |\n";
  const auto l = read_lgip(text);
  REQUIRE(l);
  CHECK_FALSE(l->complete);
  REQUIRE(l->rows.size() == 2);
  CHECK(l->rows[1].columns.sm == 98);
  CHECK_FALSE(l->rows[1].columns.ce.has_value());
  CHECK(texts(l->notes) ==
        std::vector<std::string>{
            "line 1: marked '# complete: no' (a partial capture or a fragment): rows "
            "may be missing",
            "line 10: the table stops here, without its closing frame",
            "line 10: the row stops after its first line: CE JPEG OFA unknown"});
  // The same text unmarked is a truncated table.
  CHECK(cli::to_text(read_lgip(text.substr(text.find('\n') + 1)).error()) ==
        "line 9: table cut short here: no closing +---+ frame");
}

TEST_CASE("a partial capture may stop inside the column heading", "[smi]") {
  // Found by fuzz_smi: the heading's second line is where the capture stops.
  const std::string head(lgip_head.substr(0, lgip_head.rfind("|  ")));
  const auto l = read_lgip("# complete: no\n" + head.substr(0, head.rfind('\n') + 1) +
                           "|                              Free/Total   GiB\n");
  REQUIRE(l);
  CHECK(l->rows.empty());
  CHECK(texts(l->notes) ==
        std::vector<std::string>{
            "line 1: marked '# complete: no' (a partial capture or a fragment): rows "
            "may be missing",
            "line 5: line cut short, not read",
            "line 4: the table stops here, without its closing frame"});
}

TEST_CASE("the -lgipp reader reads plural and single placements", "[smi]") {
  const auto l = read_lgipp(read_file(captures_dir / "a100-40gb-lgipp.txt"));
  REQUIRE(l);
  REQUIRE(l->rows.size() == 7);
  CHECK(l->rows[2].id == 15);
  CHECK(l->rows[2].placements == std::vector<placement>{{0, 2}, {2, 2}, {4, 2}, {6, 2}});
  CHECK(l->rows[6].line == 10);
  CHECK(l->rows[6].id == 0);
  CHECK(l->rows[6].placements == std::vector<placement>{{0, 8}});
  CHECK(l->gpus == std::vector<int>{0});

  const auto two = read_lgipp(
      "GPU  0 Profile ID 19 Placements: {0,1,2,3,4,5,6}:1\n"
      "GPU  1 Profile ID 19 Placements: {0,1,2,3,4,5,6}:1  \r\n"
      "GPU  1 Profile ID  0 Placement : {0}:8\n");
  REQUIRE(two);
  CHECK(two->gpus == std::vector<int>{0, 1});
  CHECK(two->rows[2].placements == std::vector<placement>{{0, 8}});
}

TEST_CASE("the -lgi reader reads instances of several GPUs", "[smi]") {
  const auto l = read_lgi(
      lgi_table({lgi_line(0, "3g.40gb", 9, 2, "4:4"), lgi_line(0, "2g.20gb", 14, 3, "0:2"),
                 lgi_line(1, "3g.40gb", 9, 1, "4:4"), lgi_line(1, "1g.10gb", 19, 13, "2:1")}));
  REQUIRE(l);
  CHECK(l->gpus == std::vector<int>{0, 1});
  REQUIRE(l->rows.size() == 4);
  CHECK(l->rows[3].line == 12);
  CHECK(l->rows[3].gpu == 1);
  CHECK(l->rows[3].name == "1g.10gb");
  CHECK(l->rows[3].profile_id == 19);
  CHECK(l->rows[3].instance_id == 13);
  CHECK(l->rows[3].at == placement{2, 1});

  const auto a30 = read_lgi(read_file(captures_dir / "a30-cgi-lgi.txt"));
  REQUIRE(a30);
  CHECK(texts(a30->notes) ==
        std::vector<std::string>{"line 5: skipped 6 lines that nvidia-smi prints "
                                 "when it creates or destroys instances"});
}

TEST_CASE("the -lci reader reads both layouts", "[smi]") {
  const auto old = read_lci(read_file(captures_dir / "a100-40gb-lci.txt"));
  REQUIRE(old);
  REQUIRE(old->rows.size() == 3);
  CHECK(old->rows[2].gi_id == 1);
  CHECK(old->rows[2].name == "1c.3g.20gb");
  CHECK(old->rows[2].profile_id == 0);
  CHECK(old->rows[2].ci_id == 2);
  CHECK_FALSE(old->rows[2].at.has_value());

  const auto now = read_lci(read_file(captures_dir / "h100-80gb-hbm3-lci-7x1g.txt"));
  REQUIRE(now);
  REQUIRE(now->rows.size() == 7);
  CHECK(now->rows[6].gi_id == 13);
  CHECK(now->rows[6].at == placement{0, 1});
}

TEST_CASE("the -lcip reader reads the default profile mark and the engines", "[smi]") {
  const auto l = read_lcip(read_file(captures_dir / "a100-40gb-lcip.txt"));
  REQUIRE(l);
  REQUIRE(l->rows.size() == 3);
  CHECK_FALSE(l->rows[0].is_default);
  const lcip_row& r = l->rows[2];
  CHECK(r.is_default);
  CHECK(r.name == "3g.20gb");
  CHECK(r.profile_id == 2);
  CHECK(r.free == 0);
  CHECK(r.total == 1);
  CHECK(r.columns.sm == 42);
  CHECK(r.columns.dec == 2);
  CHECK(r.columns.enc == 0);
  CHECK(r.columns.ofa == 0);
  CHECK(r.columns.ce == 3);
  CHECK(r.columns.jpeg == 0);
  CHECK_FALSE(r.columns.p2p.has_value());
}

TEST_CASE("nvidia-smi's messages for nothing listed read as empty listings", "[smi]") {
  const auto lgi = read_lgi("No GPU instances found: Not Found\n");
  REQUIRE(lgi);
  CHECK(lgi->rows.empty());
  CHECK_FALSE(lgi->mig_disabled);
  CHECK(texts(lgi->notes) ==
        std::vector<std::string>{"line 1: nvidia-smi listed nothing: 'No GPU instances found: "
                                 "Not Found'"});
  CHECK(read_lci("No compute instances found: Not Found\n"));
  CHECK(read_lci("No GPU instances found: Not Found\n"));
  for (listing_kind k : {listing_kind::lgip, listing_kind::lgipp, listing_kind::lgi,
                         listing_kind::lci, listing_kind::lcip}) {
    const outcome o = read_as(k, "No MIG-enabled devices found.\n");
    INFO(listing_option(k));
    CHECK(o.ok);
    CHECK(o.rows == 0);
    CHECK(o.base.mig_disabled);
  }
  CHECK(error_of(listing_kind::lgip, "No GPU instances found: Not Found\n") ==
        "line 1: 'No GPU instances found: Not Found' is what nvidia-smi mig -lgi prints, not "
        "-lgip");
  CHECK(error_of(listing_kind::lgi, "No GPU instances found: Insufficient Permissions\n") ==
        "line 1: nvidia-smi reported an error: 'No GPU instances found: Insufficient "
        "Permissions'");
  CHECK(error_of(listing_kind::lci,
                 "Failed to display compute instances: Insufficient "
                 "Permissions\n") ==
        "line 1: nvidia-smi reported an error: 'Failed to display compute instances: "
        "Insufficient Permissions'");
}

TEST_CASE("detect_listing tells the five listings apart", "[smi]") {
  CHECK(detect_listing(lgi_table({})) == listing_kind::lgi);
  CHECK(detect_listing(std::string(lgip_head)) == listing_kind::lgip);
  CHECK(detect_listing("\n# note\nGPU  0 Profile ID  0 Placement : {0}:8\n") ==
        listing_kind::lgipp);
  CHECK(detect_listing("No compute instances found: Not Found") == listing_kind::lci);
  CHECK(detect_listing("No MIG-enabled devices found.") == listing_kind::unknown);
  CHECK(detect_listing("hello") == listing_kind::unknown);
  CHECK(detect_listing("") == listing_kind::unknown);
  // A fragment without a title: by the shape of its first row.
  CHECK(detect_listing(lgi_line(0, "1g.5gb", 19, 7, "0:1")) == listing_kind::lgi);
  CHECK(detect_listing(lgip_row_1g5gb()) == listing_kind::lgip);
  CHECK(detect_listing("|   0      1       MIG 1c.3g.20gb       0         0     |") ==
        listing_kind::lci);
  CHECK(listing_option(listing_kind::lcip) == "-lcip");
}

// ---------------------------------------------------------------------------------------------
// The catalog, answer for answer.

namespace {

struct capture_case {
  std::string slug;
  std::string file;
  std::set<std::string> absent;
  std::set<std::string> memory_differs;  // rows whose memory the catalog deliberately differs on
};

std::vector<capture_case> table_sources(std::string_view marker) {
  const auto doc = nlohmann::json::parse(
      read_file(std::filesystem::path(MIGPLAN_SOURCE_DIR) / "data" / "models.json"));
  std::vector<capture_case> out;
  for (const auto& m : doc.at("models")) {
    for (const auto& c : m.at("captures")) {
      const std::string file = c.at("file").get<std::string>();
      if (!c.at("table_source").get<bool>() || kind_of_file(file) != kind_of_file(marker)) continue;
      capture_case cc{m.at("slug").get<std::string>(), file, {}, {}};
      for (const auto& a : c.value("absent", nlohmann::json::array()))
        cc.absent.insert(a.at("profile").get<std::string>());
      for (const auto& d : c.value("differences", nlohmann::json::array()))
        if (d.at("column") == "memory")
          cc.memory_differs.insert(d.at("profile").get<std::string>());
      out.push_back(std::move(cc));
    }
  }
  return out;
}

const profile* by_name(const gpu_model& m, std::string_view name) {
  int i = find_profile(m, name);
  if (i < 0) i = find_profile_by_former_name(m, name);
  return i < 0 ? nullptr : &m.profiles[static_cast<std::size_t>(i)];
}

}  // namespace

TEST_CASE("the -lgip captures a catalog model comes from read as the catalog's profiles",
          "[smi][catalog]") {
  const auto cases = table_sources("-lgip");
  CHECK(cases.size() >= 10);
  for (const capture_case& c : cases) {
    DYNAMIC_SECTION(c.slug << ": data/captures/" << c.file) {
      const gpu_model* m = find_model(c.slug);
      REQUIRE(m != nullptr);
      const auto l = read_lgip(read_file(captures_dir / c.file));
      INFO((l ? "" : cli::to_text(l.error())));
      REQUIRE(l);
      REQUIRE_FALSE(l->rows.empty());
      std::set<std::string> seen;
      for (const lgip_row& r : l->rows) {
        INFO("line " << r.line << ": " << r.name);
        const profile* p = by_name(*m, r.name);
        REQUIRE(p != nullptr);
        seen.insert(std::string(p->name));
        if (!has(p->prov.inferred, field::id)) CHECK(r.id == p->id);
        if (!has(p->prov.inferred, field::max_instances)) CHECK(r.total == p->max_instances);
        CHECK(r.free == r.total);  // captured on an empty GPU
        if (!has(p->prov.inferred, field::memory) && c.memory_differs.count(r.name) == 0)
          CHECK(p->memory_gib_x100 == r.memory_gib_x100);
      }
      // A whole capture lists every profile of the table, save those it predates.
      if (l->complete) {
        for (const profile& p : m->profiles) {
          INFO(std::string(p.name));
          CHECK(seen.count(std::string(p.name)) == (c.absent.count(std::string(p.name)) ? 0u : 1u));
        }
      }
    }
  }
}

TEST_CASE("the -lgipp captures a catalog model comes from read as the catalog's placements",
          "[smi][catalog]") {
  const auto cases = table_sources("-lgipp");
  CHECK(cases.size() >= 6);
  for (const capture_case& c : cases) {
    DYNAMIC_SECTION(c.slug << ": data/captures/" << c.file) {
      const gpu_model* m = find_model(c.slug);
      REQUIRE(m != nullptr);
      const auto l = read_lgipp(read_file(captures_dir / c.file));
      INFO((l ? "" : cli::to_text(l.error())));
      REQUIRE(l);
      REQUIRE(l->complete);
      std::set<int> listed;
      for (const lgipp_row& r : l->rows) {
        INFO("line " << r.line << ": profile ID " << r.id);
        const int i = find_profile_by_id(*m, r.id);
        REQUIRE(i >= 0);
        const profile& p = m->profiles[static_cast<std::size_t>(i)];
        listed.insert(r.id);
        unit_mask starts = 0;
        for (const placement& at : r.placements) {
          CHECK(at.size == p.size);
          starts |= unit_mask{1} << at.start;
        }
        CHECK(starts == p.starts);
        CHECK(std::popcount(starts) == static_cast<int>(r.placements.size()));
      }
      for (const profile& p : m->profiles) {
        INFO(std::string(p.name));
        if (has(p.prov.inferred, field::placements)) continue;
        CHECK(listed.count(p.id) == (c.absent.count(std::string(p.name)) ? 0u : 1u));
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// One message per kind of bad input, with its line.

TEST_CASE("a line that is no part of a listing is garbage", "[smi][errors]") {
  CHECK(error_of(listing_kind::lgi,
                 lgi_table({lgi_line(0, "1g.5gb", 19, 7, "0:1")}) + "hello world\n") ==
        "line 8: not part of an nvidia-smi mig -lgi listing: 'hello world'");
  CHECK(error_of(listing_kind::lgipp, "GPU  0 Profile ID 19 Placements: {0}:1\n\x1b[31m\n") ==
        "line 2: not part of an nvidia-smi mig -lgipp listing: '\\x1b[31m'");
  CHECK(error_of(listing_kind::lgi, "") ==
        "line 1: end of input before any nvidia-smi mig -lgi output");
  CHECK(error_of(listing_kind::lcip, "# source: nowhere\n\n") ==
        "line 1: end of input before any nvidia-smi mig -lcip output");
}

TEST_CASE("a truncated table is refused at the line where it stops", "[smi][errors]") {
  std::string table = lgi_table({lgi_line(0, "1g.5gb", 19, 7, "0:1")});
  table.resize(table.rfind('\n', table.size() - 2) + 1);  // without the closing frame
  CHECK(error_of(listing_kind::lgi, table) ==
        "line 6: table cut short here: no closing +---+ frame");
  // Cut right after the heading's '=====' line.
  CHECK(error_of(listing_kind::lgi, lgi_table({})) ==
        "line 5: table cut short here: no closing +---+ frame");
  CHECK(error_of(listing_kind::lgi, table + "\nNo GPU instances found: Not Found\n") ==
        "line 6: table cut short here: no closing +---+ frame");
  // A row cut short: a line without its closing '|', or a two-line row with one.
  CHECK(error_of(listing_kind::lgi, table + "|   0  MIG 1g.5gb   19   8   1:1\n") ==
        "line 7: line cut short: no closing '|'");
  CHECK(
      error_of(listing_kind::lgip, std::string(lgip_head) +
                                       lgip_row_1g5gb().substr(0, lgip_row_1g5gb().find('\n') + 1) +
                                       std::string(lgip_frame)) ==
      "line 6: row cut short: its second line (CE JPEG OFA) is missing");
  CHECK(error_of(listing_kind::lgi,
                 "+---+\n| GPU instances: |\n| GPU Name Profile Instance Placement |\n"
                 "|===|\n+---+\n") ==
        "line 4: column heading cut short: expected 'ID ID Start:Size' "
        "before this line");
}

TEST_CASE("a row that does not hold its columns is refused", "[smi][errors]") {
  CHECK(error_of(listing_kind::lgi, lgi_table({"|   0  MIG 1g.5gb   19   7   |"})) ==
        "line 6: row of 4 values, expected 5 (GPU Name Profile-ID Instance-ID Start:Size)");
  CHECK(error_of(listing_kind::lgip,
                 std::string(lgip_head) +
                     "|   0  MIG 1g.5gb        19     7/7        4.75       No     14     0   |\n"
                     "|                                                             1     0     "
                     "0   |\n" +
                     std::string(lgip_frame)) ==
        "line 6: row of 8 values, expected 9 (GPU Name ID Free/Total Memory P2P SM DEC ENC)");
  CHECK(error_of(listing_kind::lgip,
                 std::string(lgip_head) +
                     "|   0  MIG 1g.5gb        19     7/7        4,75       No     14     0     "
                     "0   |\n" +
                     lgip_row_1g5gb().substr(lgip_row_1g5gb().find('\n') + 1) +
                     std::string(lgip_frame)) == "line 6: memory '4,75' is not a number of GiB");
}

TEST_CASE("a non-numeric ID is refused", "[smi][errors]") {
  CHECK(error_of(listing_kind::lgi, lgi_table({lgi_line(0, "1g.5gb", 19, 7, "0:1"),
                                               "|   0  MIG 1g.5gb   x9   8   1:1   |"})) ==
        "line 8: profile ID 'x9' is not a number");
  CHECK(error_of(listing_kind::lgi, lgi_table({"|   0  MIG 1g.5gb   19   -8   1:1   |"})) ==
        "line 6: instance ID '-8' is not a number");
  CHECK(error_of(listing_kind::lgipp, "GPU  0 Profile ID 1e Placements: {0}:1\n") ==
        "line 1: profile ID '1e' is not a number");
  CHECK(error_of(listing_kind::lci,
                 "+---+\n| Compute instances: |\n| GPU GPU Name Profile Instance Placement |\n"
                 "| Instance ID ID Start:Size |\n| ID |\n|===|\n"
                 "|   0   one   MIG 1g.5gb   0   0   0:1 |\n+---+\n") ==
        "line 7: GPU instance ID 'one' is not a number");
  CHECK(error_of(listing_kind::lgipp, "GPU  0 Profile ID 99999999999 Placements: {0}:1\n") ==
        "line 1: profile ID 99999999999 is out of range (at most 65535)");
}

TEST_CASE("a start outside the placement units is refused", "[smi][errors]") {
  CHECK(error_of(listing_kind::lgi, lgi_table({lgi_line(0, "1g.5gb", 19, 7, "16:1")})) ==
        "line 6: placement '16:1' starts at 16, outside units 0-15");
  CHECK(error_of(listing_kind::lgi, lgi_table({lgi_line(0, "4g.20gb", 5, 1, "14:4")})) ==
        "line 6: placement '14:4' runs past unit 15");
  CHECK(error_of(listing_kind::lgi, lgi_table({lgi_line(0, "1g.5gb", 19, 7, "3:0")})) ==
        "line 6: placement '3:0' has size 0");
  CHECK(error_of(listing_kind::lgi, lgi_table({lgi_line(0, "1g.5gb", 19, 7, "3-1")})) ==
        "line 6: placement '3-1' is not START:SIZE");
  CHECK(error_of(listing_kind::lgipp, "GPU  0 Profile ID 19 Placements: {0,16}:1\n") ==
        "line 1: placement '{0,16}:1' starts at 16, outside units 0-15");
  CHECK(error_of(listing_kind::lgipp, "GPU  0 Profile ID  0 Placement : {12}:8\n") ==
        "line 1: placement '{12}:8' runs past unit 15");
  CHECK(error_of(listing_kind::lgipp, "GPU  0 Profile ID 19 Placements: {0,2,0}:1\n") ==
        "line 1: start 0 is listed twice in '{0,2,0}:1'");
  // 12 units (RTX PRO 6000) and 16 are inside.
  CHECK(read_lgipp("GPU  0 Profile ID 0 Placement : {0}:16\n"));
}

TEST_CASE("overlapping instances of one GPU are refused, naming both", "[smi][errors]") {
  CHECK(error_of(listing_kind::lgi, lgi_table({lgi_line(0, "2g.10gb", 14, 7, "0:2"),
                                               lgi_line(1, "2g.10gb", 14, 7, "0:2"),
                                               lgi_line(0, "2g.10gb", 14, 8, "1:2")})) ==
        "line 10: GPU 0 instance 8 at 1:2 overlaps instance 7 at 0:2 (line 6)");
  CHECK(error_of(listing_kind::lgi, lgi_table({lgi_line(0, "1g.5gb", 19, 7, "0:1"),
                                               lgi_line(0, "1g.5gb", 19, 7, "1:1")})) ==
        "line 8: GPU 0 instance ID 7 is listed twice (first at line 6)");
}

TEST_CASE("an unknown or missing heading is refused", "[smi][errors]") {
  CHECK(error_of(listing_kind::lgi, "+---+\n| Processes: |\n") ==
        "line 2: unknown table 'Processes:': expected 'GPU instances:'");
  CHECK(error_of(listing_kind::lgi, std::string(lgip_head)) ==
        "line 2: this is nvidia-smi mig -lgip output (GPU instance profiles), not -lgi");
  CHECK(error_of(listing_kind::lgi, "GPU  0 Profile ID  0 Placement : {0}:8\n") ==
        "line 1: this is nvidia-smi mig -lgipp output (possible placements), not -lgi");
  CHECK(error_of(listing_kind::lgipp, lgi_table({})) ==
        "line 2: this is nvidia-smi mig -lgi output (GPU instances), not -lgipp");
  std::string renamed = lgi_table({lgi_line(0, "1g.5gb", 19, 7, "0:1")});
  renamed.replace(renamed.find("Placement "), 10, "Place     ");
  CHECK(error_of(listing_kind::lgi, renamed) ==
        "line 3: unexpected column heading 'GPU Name Profile Instance Place': expected 'GPU Name "
        "Profile Instance Placement'");
  // Rows without the title and heading: only a capture marked partial may hold them.
  CHECK(error_of(listing_kind::lgi, lgi_line(0, "1g.5gb", 19, 7, "0:1") + "\n+---+\n") ==
        "line 1: table row before the table's title ('GPU instances:') and column heading");
  CHECK(read_lgi("# complete: no\n" + lgi_line(0, "1g.5gb", 19, 7, "0:1") + "\n+---+\n"));
}

TEST_CASE("each line of a column heading is checked as its listing heads it", "[smi][errors]") {
  // -lci with a Placement column wants Start:Size on the second line too.
  CHECK(error_of(listing_kind::lci,
                 "+---+\n| Compute instances: |\n| GPU GPU Name Profile Instance Placement |\n"
                 "| Instance ID ID |\n| ID |\n|===|\n+---+\n") ==
        "line 4: unexpected column heading 'Instance ID ID': expected 'Instance ID ID "
        "Start:Size'");
  CHECK(error_of(listing_kind::lci,
                 "+---+\n| Compute instances: |\n| GPU GPU Name Profile Instance |\n"
                 "| Instance ID ID |\n| ID ID |\n|===|\n+---+\n") ==
        "line 5: unexpected column heading 'ID ID': expected 'ID'");
  // -lcip's heading has three lines.
  CHECK(error_of(listing_kind::lcip,
                 "+---+\n| Compute instance profiles: |\n"
                 "| GPU GPU Name Profile Instances Exclusive Shared |\n"
                 "| Instance ID Free/Total SM DEC ENC OFA |\n|===|\n+---+\n") ==
        "line 5: column heading cut short: expected 'ID ...' before this line");
  // -lgip's has two.
  CHECK(error_of(listing_kind::lgip,
                 "+---+\n| GPU instance profiles: |\n"
                 "| GPU Name ID Instances Memory P2P SM DEC ENC |\n"
                 "| Free/Total GiB CE JPEG OFA |\n| extra |\n|===|\n+---+\n") ==
        "line 5: unexpected column heading 'extra': expected '====='");
}

TEST_CASE("the readers bound their work", "[smi][errors]") {
  CHECK(error_of(listing_kind::lgi, std::string(max_smi_bytes + 1, ' ')) ==
        "input of 1048577 bytes is larger than 1 MiB, the most read");
  std::string many;
  for (std::size_t i = 0; i <= max_smi_rows; ++i)
    many += "GPU " + std::to_string(i) + " Profile ID 0 Placement : {0}:8\n";
  CHECK(error_of(listing_kind::lgipp, many) == "line 4097: more than 4096 rows, the most read");
  CHECK(error_of(listing_kind::lgi, lgi_table({lgi_line(0, std::string(40, 'a'), 19, 7, "0:1")})) ==
        "line 6: invalid profile name 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'");
}

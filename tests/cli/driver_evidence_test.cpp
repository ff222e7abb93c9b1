// SPDX-License-Identifier: Apache-2.0
// driver_observations (include/migplan/driver_order.hpp) is typed by hand
// from the captures it cites: here each observation is read again from those
// files, the creation order from nvidia-smi's "Successfully created GPU
// instance ID N ... (ID P)" lines and each start from the -lgi table (read
// with io/smi's reader), and must equal the table; and every capture of
// instance creation is in the table or named below with why it is not.

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <migplan/catalog.hpp>
#include <migplan/driver_order.hpp>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "io/smi.hpp"
#include "run_binary.hpp"
#include "text.hpp"

using migplan::driver_observation;
using migplan::driver_observations;
using migplan::test::read_file;
using migplan::test::source_path;

namespace {

// The files of an observation's `source`: "data/captures/a.txt, b.txt".
std::vector<std::string> source_files(std::string_view source) {
  constexpr std::string_view dir = "data/captures/";
  std::vector<std::string> out;
  while (!source.empty()) {
    const std::size_t comma = source.find(',');
    std::string_view name = migplan::cli::trim(source.substr(0, comma));
    if (name.starts_with(dir)) name.remove_prefix(dir.size());
    out.emplace_back(name);
    source = comma == std::string_view::npos ? std::string_view{} : source.substr(comma + 1);
  }
  return out;
}

// An observation as its capture files show it.
struct derived {
  std::string driver;              // "# driver:" of the captures, or empty
  std::vector<int> ids;            // -lgip profile ID of each instance, in creation order
  std::vector<int> gi_ids;         // its GPU instance ID, or -1 where creation failed
  std::vector<std::string> names;  // its profile name, "" where creation failed
  std::map<int, int> start_of;     // GPU instance ID -> start, from -lgi
  bool has_lgi = false;
};

derived read_observation(const std::vector<std::string>& files) {
  derived d;
  for (const std::string& f : files) {
    const std::string text = read_file(source_path("data/captures/" + f));
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with("# driver: ")) d.driver = line.substr(10);
      int gi = 0, gpu = 0, id = 0;
      char name[64] = {};
      if (std::sscanf(line.c_str(),
                      "Successfully created GPU instance ID %d on GPU %d using profile MIG %63s "
                      "(ID %d)",
                      &gi, &gpu, name, &id) == 4) {
        d.ids.push_back(id);
        d.gi_ids.push_back(gi);
        d.names.emplace_back(name);
      } else if (std::sscanf(line.c_str(),
                             "Unable to create a GPU instance on GPU %d using profile %d", &gpu,
                             &id) == 2) {
        d.ids.push_back(id);
        d.gi_ids.push_back(-1);
        d.names.emplace_back();
      }
    }
    namespace smi = migplan::cli::smi;
    if (smi::detect_listing(text) != smi::listing_kind::lgi) continue;
    const auto lgi = migplan::cli::smi::read_lgi(text);
    REQUIRE(lgi);
    d.has_lgi = true;
    for (const migplan::cli::smi::lgi_row& r : lgi->rows) d.start_of[r.instance_id] = r.at.start;
  }
  return d;
}

}  // namespace

TEST_CASE("every driver observation is what its captures show", "[driver][evidence]") {
  for (const driver_observation& o : driver_observations) {
    CAPTURE(o.source);
    const derived d = read_observation(source_files(o.source));
    CHECK(o.driver == d.driver);
    REQUIRE(static_cast<std::size_t>(o.steps) == d.ids.size());
    const migplan::gpu_model* g = migplan::find_model(o.gpu);
    REQUIRE(g != nullptr);
    for (int k = 0; k < o.steps; ++k) {
      const auto i = static_cast<std::size_t>(k);
      CAPTURE(k);
      CHECK(o.profile_ids[i] == d.ids[i]);
      // The capture names the profile too: it is the catalog's profile of that ID on this GPU.
      if (!d.names[i].empty()) {
        const int p = migplan::find_profile_by_id(*g, d.ids[i]);
        REQUIRE(p >= 0);
        CHECK(g->profiles[static_cast<std::size_t>(p)].name == d.names[i]);
      }
      const int start = d.gi_ids[i] < 0 ? driver_observation::failed
                        : !d.has_lgi    ? driver_observation::unknown
                                        : d.start_of.at(d.gi_ids[i]);
      CHECK(o.starts[i] == start);
    }
  }
}

TEST_CASE("every capture of instance creation is a driver observation, or says why not",
          "[driver][evidence]") {
  // What the table cannot use: the GPU held instances of another client
  // before the first command, and no -lgi shows where any went.
  const std::set<std::string> not_observations = {"gh200-96gb-cgi-errors.txt"};
  std::set<std::string> cited;
  for (const driver_observation& o : driver_observations)
    for (const std::string& f : source_files(o.source)) cited.insert(f);
  for (const auto& entry : std::filesystem::directory_iterator(source_path("data/captures"))) {
    const std::string f = entry.path().filename().string();
    const std::string text = read_file(source_path("data/captures/" + f));
    if (text.find("Successfully created GPU instance") == std::string::npos &&
        text.find("Unable to create a GPU instance") == std::string::npos)
      continue;
    CAPTURE(f);
    CHECK(cited.count(f) + not_observations.count(f) == 1);
  }
}

// SPDX-License-Identifier: Apache-2.0
#include "io/current.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <migplan/catalog.hpp>
#include <migplan/detail/strings.hpp>
#include <nlohmann/json.hpp>
#include <set>

#include "io/json_sax.hpp"
#include "io/names.hpp"
#include "io/smi.hpp"
#include "io/text_view.hpp"
#include "quote.hpp"

namespace migplan::cli {
namespace {

// The text with the lines outside [first, last) turned into comments, which
// every smi reader skips: each part keeps its own line numbers.
std::string only_lines(std::string_view text, std::size_t first, std::size_t last) {
  std::string out;
  out.reserve(text.size());
  std::size_t line = 0, pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    if (line >= first && line < last)
      out.append(text.substr(pos, end - pos));
    else
      out += '#';
    if (end == text.size()) break;
    out += '\n';
    pos = end + 1;
    ++line;
  }
  return out;
}

// The 0-based line where an -lci listing starts in `text` (its top frame, or
// its title, or nvidia-smi's message for none), or npos: the -lgi listing
// comes first and ends there.
std::size_t lci_start(std::string_view text) {
  std::size_t line = 0, pos = 0, last_frame = std::string_view::npos;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(pos, end - pos);
    if (l.find("Compute instances:") != std::string_view::npos)
      return last_frame == line - 1 ? last_frame : line;
    if (l.find("No compute instances found") != std::string_view::npos) return line;
    if (l.rfind("+-", 0) == 0) last_frame = line;
    pos = end + 1;
    ++line;
  }
  return std::string_view::npos;
}

// The profile of `g` a listed instance names by ID, under the catalog's name
// for that ID (or one of its former names), sized and started as listed.
result<int> listed_profile(const gpu_model& g, int line, std::string_view shown, int id,
                           std::string_view name, int start, int size, std::string_view instance) {
  const auto mismatch = [&](const std::string& why) {
    return error{fmt::format("{}:{}: the listing does not match {}: {}", shown, line, g.slug, why)};
  };
  const int p = find_profile_by_id(g, id);
  if (p < 0)
    return mismatch(
        fmt::format("{} has no profile ID {} (listed as {})", g.slug, id, clip_token(name)));
  const profile& pr = g.profiles[static_cast<std::size_t>(p)];
  if (!detail::iequals(pr.name, name) && find_former_name(pr, name) == nullptr)
    return mismatch(fmt::format("profile ID {} is {} there, the listing says {}", id, pr.name,
                                clip_token(name)));
  if (size != pr.size)
    return mismatch(fmt::format("{}{} is listed at {}:{}; the profile is {} unit{} wide", pr.name,
                                instance, start, size, pr.size, pr.size == 1 ? "" : "s"));
  if (!pr.allows_start(start))
    return mismatch(fmt::format("{}{} starts at {}, not an allowed start of {}", pr.name, instance,
                                start, pr.name));
  return p;
}

result<current_listing> read_smi(std::string_view text, std::string_view shown, const gpu_model& g,
                                 std::optional<int> index) {
  const std::size_t split = lci_start(text);
  const std::string lgi_text =
      split == std::string_view::npos ? std::string(text) : only_lines(text, 0, split);
  auto listing = smi::read_lgi(lgi_text);
  if (!listing) return error{smi::at_file(shown, listing.error().message)};
  if (listing->mig_disabled)
    return error{fmt::format("{}: nvidia-smi says no GPU has MIG enabled", shown)};
  std::optional<smi::lci_listing> cis;
  if (split != std::string_view::npos) {
    auto read = smi::read_lci(only_lines(text, split, std::string_view::npos));
    if (!read) return error{smi::at_file(shown, read.error().message)};
    cis = std::move(*read);
  }
  std::vector<int> gpus = listing->gpus;
  if (index) {
    if (!gpus.empty() && std::find(gpus.begin(), gpus.end(), *index) == gpus.end())
      return error{fmt::format("{}: the listing has no GPU {} (it lists GPU {})", shown, *index,
                               fmt::join(gpus, ", "))};
    gpus = {*index};
  }
  current_listing out{&g, {}, false};
  if (gpus.empty()) out.gpus.push_back({std::nullopt, {}});
  for (int gi : gpus) out.gpus.push_back({gi, {}});
  for (current_listing_gpu& gpu : out.gpus) {
    std::map<int, std::size_t> by_id;  // GI ID -> index into gpu.instances
    for (const smi::lgi_row& row : listing->rows) {
      if (gpu.index && row.gpu != *gpu.index) continue;
      auto p = listed_profile(g, row.line, shown, row.profile_id, row.name, row.at.start,
                              row.at.size, fmt::format(" (GI {})", row.instance_id));
      if (!p) return p.error();
      by_id[row.instance_id] = gpu.instances.size();
      gpu.instances.push_back({*p, row.at.start, row.instance_id, {}});
    }
    if (!cis) continue;
    for (const smi::lci_row& row : cis->rows) {
      if (gpu.index && row.gpu != *gpu.index) continue;
      const auto it = by_id.find(row.gi_id);
      if (it == by_id.end())
        return error{fmt::format(
            "{}:{}: compute instance {} belongs to GPU instance {}, which the -lgi listing{} "
            "does not show",
            shown, row.line, row.ci_id, row.gi_id,
            gpu.index ? fmt::format(" of GPU {}", *gpu.index) : "")};
      current_instance& owner = gpu.instances[it->second];
      const profile& pr = g.profiles[static_cast<std::size_t>(owner.profile)];
      if (row.at && row.at->start + row.at->size > pr.compute_slices)
        return error{fmt::format(
            "{}:{}: compute instance {} at {}:{} does not fit in GPU instance {} ({}, {} compute "
            "slice{})",
            shown, row.line, row.ci_id, row.at->start, row.at->size, row.gi_id, pr.name,
            pr.compute_slices, pr.compute_slices == 1 ? "" : "s")};
      current_ci ci{row.name, row.profile_id, row.ci_id, std::nullopt, std::nullopt};
      if (row.at) {
        ci.start = row.at->start;
        ci.size = row.at->size;
      }
      owner.compute.push_back(std::move(ci));
    }
  }
  return out;
}

// 1-based line and column of byte `off` of `text`.
std::pair<int, int> line_col(std::string_view text, std::size_t off) {
  int line = 1;
  std::size_t line_start = 0;
  off = std::min(off, text.size());
  for (std::size_t i = 0; i < off; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  return {line, static_cast<int>(off - line_start) + 1};
}

// The first key given twice in one object, and the byte nlohmann had read
// when it came: nlohmann's DOM keeps the last silently, and every other
// reader of migplan refuses a duplicate key.
class duplicate_keys final : public json_sax_base {
 public:
  explicit duplicate_keys(const std::size_t* taken) : taken_(taken) {}
  std::optional<std::pair<std::string, std::size_t>> found;

  bool start_object(std::size_t) override {
    open_.emplace_back();
    return true;
  }
  bool key(string_t& k) override {
    if (open_.back().insert(k).second) return true;
    found = {k, *taken_};
    return false;
  }
  bool end_object() override {
    open_.pop_back();
    return true;
  }

 private:
  const std::size_t* taken_;
  std::vector<std::set<std::string>> open_;
};

// A `pack --json` answer: its model and its preferred layout.
result<current_listing> read_json(std::string_view text, std::string_view shown,
                                  const gpu_model* gpu) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, col] = line_col(text, e.byte == 0 ? 0 : e.byte - 1);
    return error{
        fmt::format("{}:{}:{}: not valid JSON: {}", shown, line, col, json_error_text(e.what()))};
  }
  std::size_t taken = 0;
  duplicate_keys dup(&taken);
  nlohmann::json::sax_parse(counting_iterator(text.data(), &taken),
                            counting_iterator(text.data() + text.size(), &taken), &dup);
  if (dup.found) {
    const auto [line, col] = line_col(text, dup.found->second == 0 ? 0 : dup.found->second - 1);
    return error{fmt::format("{}:{}:{}: key {} appears twice in one object", shown, line, col,
                             quote_token(dup.found->first))};
  }
  const auto bad = [&](const std::string& why) {
    return error{fmt::format("{}: {} (expected the JSON of 'migplan pack --json')", shown, why)};
  };
  if (!doc.is_object()) return bad("the JSON is not an object");
  if (doc.contains("error")) return bad("the JSON is an error document, not an answer");
  const auto gpu_it = doc.find("gpu");
  if (gpu_it == doc.end() || !gpu_it->is_object() || !gpu_it->contains("id") ||
      !(*gpu_it)["id"].is_string())
    return bad("no \"gpu\" object with an \"id\"");
  const std::string slug = (*gpu_it)["id"].get<std::string>();
  auto model = resolve_gpu(slug);
  if (!model) return error{fmt::format("{}: \"gpu\": {}", shown, model.error().message)};
  if (gpu != nullptr && *model != gpu)
    return error{fmt::format("{}: the answer is for {}, not for --gpu {}", shown, (*model)->slug,
                             gpu->slug)};
  const gpu_model& g = **model;
  const auto layouts = doc.find("layouts");
  if (layouts == doc.end() || !layouts->is_array()) return bad("no \"layouts\" array");
  if (layouts->empty())
    return error{fmt::format("{}: the answer holds no layout (its request does not fit)", shown)};
  const nlohmann::json& first = (*layouts)[0];
  if (!first.is_object() || !first.contains("instances") || !first["instances"].is_array())
    return bad("\"layouts\"[0] has no \"instances\" array");
  current_listing out{&g, {{std::nullopt, {}}}, true};
  std::size_t n = 0;
  for (const nlohmann::json& in : first["instances"]) {
    const std::string where = fmt::format("\"layouts\"[0].\"instances\"[{}]", n++);
    if (!in.is_object() || !in.contains("profile_id") || !in["profile_id"].is_number_integer() ||
        !in.contains("start") || !in["start"].is_number_integer() || !in.contains("size") ||
        !in["size"].is_number_integer() || !in.contains("profile") || !in["profile"].is_string())
      return bad(where + " needs \"profile\", \"profile_id\", \"start\" and \"size\"");
    const auto small = [](const nlohmann::json& v) {
      return v.get<long long>() >= 0 && v.get<long long>() < 4096;
    };
    if (!small(in["profile_id"]) || !small(in["start"]) || !small(in["size"]))
      return bad(where + " has a number out of range");
    auto p =
        listed_profile(g, 1, shown, in["profile_id"].get<int>(), in["profile"].get<std::string>(),
                       in["start"].get<int>(), in["size"].get<int>(), "");
    if (!p) {
      // The JSON has no useful line: name the instance instead.
      std::string m = p.error().message;
      const std::string prefix = fmt::format("{}:1: ", shown);
      if (m.rfind(prefix, 0) == 0)
        m = fmt::format("{}: {}: {}", shown, where, m.substr(prefix.size()));
      return error{m};
    }
    current_instance gi{*p, in["start"].get<int>(), std::nullopt, {}};
    // The compute instances the answer planned in it, kept as they are.
    if (const auto cis = in.find("compute_instances"); cis != in.end() && cis->is_array()) {
      int k = 0;
      for (const nlohmann::json& ci : *cis) {
        if (!ci.is_object() || !ci.contains("profile") || !ci["profile"].is_string())
          return bad(where + ".\"compute_instances\" needs a \"profile\" in each entry");
        current_ci c{ci["profile"].get<std::string>(), 0, k++, std::nullopt, std::nullopt};
        if (ci.contains("profile_id") && ci["profile_id"].is_number_integer())
          c.profile_id = ci["profile_id"].get<int>();
        if (ci.contains("start") && ci["start"].is_number_integer() && small(ci["start"]))
          c.start = ci["start"].get<int>();
        if (ci.contains("size") && ci["size"].is_number_integer() && small(ci["size"]))
          c.size = ci["size"].get<int>();
        gi.compute.push_back(std::move(c));
      }
    }
    out.gpus[0].instances.push_back(std::move(gi));
  }
  return out;
}

}  // namespace

result<current_listing> read_current(std::string_view text, std::string_view shown,
                                     const gpu_model* gpu, std::optional<int> index) {
  text = skip_bom(text);
  if (text.size() > max_current_bytes)
    return error{fmt::format("{}: larger than {} bytes", shown, max_current_bytes)};
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    if (index)
      return error{
          fmt::format("{}: --index picks a GPU of an nvidia-smi listing; a JSON answer "
                      "is one GPU",
                      shown)};
    return read_json(text, shown, gpu);
  }
  if (gpu == nullptr)
    return error{
        fmt::format("{}: an nvidia-smi listing does not name the GPU model; pass --gpu", shown)};
  return read_smi(text, shown, *gpu, index);
}

}  // namespace migplan::cli

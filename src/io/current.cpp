// SPDX-License-Identifier: Apache-2.0
#include "io/current.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <migplan/detail/strings.hpp>
#include <migplan/lookup.hpp>

#include "io/document.hpp"
#include "io/names.hpp"
#include "io/smi.hpp"
#include "io/text_view.hpp"
#include "quote.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

// The text with the lines outside [first, last) turned into comments, which
// every smi reader skips: each part keeps its own line numbers.
std::string only_lines(std::string_view text, std::size_t first, std::size_t last) {
  std::string out;
  out.reserve(text.size());
  text_lines lines(text);
  while (const auto l = lines.next()) {
    const auto line = static_cast<std::size_t>(lines.number() - 1);
    if (line > 0) out += '\n';
    if (line >= first && line < last)
      out.append(*l);
    else
      out += '#';
  }
  return out;
}

// The 0-based line where an -lci listing starts in `text` (its top frame, or
// its title, or nvidia-smi's message for none), or npos: the -lgi listing
// comes first and ends there.
std::size_t lci_start(std::string_view text) {
  std::size_t last_frame = std::string_view::npos;
  text_lines lines(text);
  while (const auto l = lines.next()) {
    const auto line = static_cast<std::size_t>(lines.number() - 1);
    if (l->find("Compute instances:") != std::string_view::npos)
      return last_frame == line - 1 ? last_frame : line;
    if (l->find("No compute instances found") != std::string_view::npos) return line;
    if (l->starts_with("+-")) last_frame = line;
  }
  return std::string_view::npos;
}

// The 1-based line of the -lci listing starting at 0-based `split` that names
// it (its title, or nvidia-smi's message for none) when no line before it is
// anything but blank or a comment: -lci output without the -lgi output it
// must follow; else 0.
int lci_alone(std::string_view text, std::size_t split) {
  text_lines lines(text);
  while (const auto l = lines.next()) {
    const auto line = static_cast<std::size_t>(lines.number() - 1);
    const std::string_view t = trim(*l);
    if (line < split) {
      if (!t.empty() && t.front() != '#') return 0;
      continue;
    }
    if (t.find("Compute instances:") != std::string_view::npos ||
        t.find("No compute instances found") != std::string_view::npos)
      return lines.number();
  }
  return 0;
}

// The profile of `g` a listed instance names by ID, under the catalog's name
// for that ID (or one of its former names), sized and started as listed; or
// why the listing does not match `g` (the caller says where).
result<int, std::string> listed_profile(const gpu_model& g, int id, std::string_view name,
                                        int start, int size, std::string_view instance) {
  const auto mismatch = [&](const std::string& why) {
    return fmt::format("the listing does not match {}: {}", g.slug, why);
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
                                instance, start, size, pr.size, plural(pr.size)));
  if (!pr.allows_start(start))
    return mismatch(fmt::format("{}{} starts at {}, not an allowed start of {}", pr.name, instance,
                                start, pr.name));
  return p;
}

result<current_listing> read_smi(std::string_view text, std::string_view shown, const gpu_model& g,
                                 std::optional<int> index) {
  const std::size_t split = lci_start(text);
  if (split != std::string_view::npos)
    if (const int line = lci_alone(text, split); line > 0)
      return error{located(shown, line,
                           "this is nvidia-smi mig -lci output (Compute instances) without the "
                           "-lgi output it follows: --current takes nvidia-smi mig -lgi output, "
                           "optionally followed by -lci output")};
  const std::string lgi_text =
      split == std::string_view::npos ? std::string(text) : only_lines(text, 0, split);
  auto listing = smi::read_lgi(lgi_text);
  if (!listing) return error{in_file(listing.error(), shown)};
  if (listing->mig_disabled)
    return error{fmt::format("{}: nvidia-smi says no GPU has MIG enabled", shown)};
  std::optional<smi::lci_listing> cis;
  if (split != std::string_view::npos) {
    auto read = smi::read_lci(only_lines(text, split, std::string_view::npos));
    if (!read) return error{in_file(read.error(), shown)};
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
      auto p = listed_profile(g, row.profile_id, row.name, row.at.start, row.at.size,
                              fmt::format(" (GI {})", row.instance_id));
      if (!p) return error{located(shown, row.line, p.error())};
      by_id[row.instance_id] = gpu.instances.size();
      gpu.instances.push_back(current_instance::at(*p, row.at.start));
      gpu.instances.back().instance_id = row.instance_id;
    }
    if (!cis) continue;
    for (const smi::lci_row& row : cis->rows) {
      if (gpu.index && row.gpu != *gpu.index) continue;
      const auto it = by_id.find(row.gi_id);
      if (it == by_id.end())
        return error{
            located(shown, row.line,
                    fmt::format("compute instance {} belongs to GPU instance {}, which the -lgi "
                                "listing{} does not show",
                                row.ci_id, row.gi_id,
                                gpu.index ? fmt::format(" of GPU {}", *gpu.index) : ""))};
      current_instance& owner = gpu.instances[it->second];
      const profile& pr = g.profiles[static_cast<std::size_t>(owner.profile)];
      if (row.at && row.at->start + row.at->size > pr.compute_slices)
        return error{located(
            shown, row.line,
            fmt::format("compute instance {} at {}:{} does not fit in GPU instance {} ({}, {} "
                        "compute slice{})",
                        row.ci_id, row.at->start, row.at->size, row.gi_id, pr.name,
                        pr.compute_slices, plural(pr.compute_slices)))};
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

using doc::node;

bool is_string(const node* n) { return n != nullptr && n->is_scalar() && n->quoted; }

// A JSON number written as an integer (no fraction, no exponent) that fits
// 64 bits, as nlohmann reads one (is_number_integer()); its value as
// nlohmann's get<long long>() gives it (one past long long wraps to a
// negative number, which no range here takes).
std::optional<long long> json_integer(const node* n) {
  if (n == nullptr || !n->is_scalar() || n->quoted) return std::nullopt;
  const std::string& t = n->text;
  const std::size_t digits = t.starts_with('-') ? 1 : 0;
  if (t.size() == digits || t.find_first_not_of("0123456789", digits) != std::string::npos)
    return std::nullopt;
  long long v = 0;
  if (std::from_chars(t.data(), t.data() + t.size(), v).ec == std::errc{}) return v;
  unsigned long long u = 0;
  if (digits == 0 && std::from_chars(t.data(), t.data() + t.size(), u).ec == std::errc{})
    return static_cast<long long>(u);
  return std::nullopt;
}

// A whole number from 0 to 4095 (profile IDs, starts and sizes).
bool small(long long v) { return v >= 0 && v < 4096; }

// A `pack --json` answer: its model and its preferred layout. Keys the
// reader does not use are left alone (an answer has many); a key given
// twice in one object anywhere is refused, as every reader of migplan does.
// `line`: where `text` stands in a file of answers one per line (JSON
// lines), whose messages name it; 0 where the file is the one answer.
result<current_listing> read_json(model_list models, std::string_view text, std::string_view shown,
                                  const gpu_model* gpu, int line = 0) {
  doc::budget limits;
  limits.reader = "pack";
  auto root = doc::read_json(text, shown, limits);
  if (!root) {
    diagnostic d = root.error();
    if (line > 0 && d.line > 0) d.line += line - 1;
    // Told as pack has always told it: "not valid JSON", line and column.
    const std::string_view syntax = "invalid json: ";
    if (d.message.starts_with(syntax))
      d.message = "not valid JSON: " + d.message.substr(syntax.size());
    return error{d, column_shown::yes};
  }
  if (const node* k = doc::repeated_key(*root))
    return error{to_text(
        {std::string(shown), k->at.line + std::max(line - 1, 0), k->at.column, "duplicate-key",
         severity::error, fmt::format("key {} appears twice in one object", quote_token(k->text))},
        column_shown::yes)};
  const std::string here = line > 0 ? fmt::format("{}:{}", shown, line) : std::string(shown);
  const auto bad = [&](const std::string& why) {
    return error{fmt::format("{}: {} (expected the JSON of 'migplan pack --json')", here, why)};
  };
  if (!root->is_map()) return bad("the JSON is not an object");
  if (doc::member(*root, "error") != nullptr)
    return bad("the JSON is an error document, not an answer");
  const node* gpu_at = doc::member(*root, "gpu");
  const node* id = gpu_at == nullptr ? nullptr : doc::member(*gpu_at, "id");
  if (!is_string(id)) return bad("no \"gpu\" object with an \"id\"");
  auto model = resolve_gpu(models, id->text);
  if (!model) return error{fmt::format("{}: \"gpu\": {}", here, model.error().message)};
  if (gpu != nullptr && *model != gpu)
    return error{
        fmt::format("{}: the answer is for {}, not for --gpu {}", here, (*model)->slug, gpu->slug)};
  const gpu_model& g = **model;
  const node* layouts = doc::member(*root, "layouts");
  if (layouts == nullptr || !layouts->is_list()) return bad("no \"layouts\" array");
  if (layouts->kids.empty())
    return error{fmt::format("{}: the answer holds no layout (its request does not fit)", here)};
  const node* instances = doc::member(layouts->kids[0], "instances");
  if (instances == nullptr || !instances->is_list())
    return bad("\"layouts\"[0] has no \"instances\" array");
  current_listing out{&g, {{std::nullopt, {}}}, true};
  // An answer to `pack --current` names the GPU of its listing: kept, so
  // that what is made of the answer (--emit's `-i`, the next answer's
  // gpu_index) is for that GPU, not GPU 0.
  if (const node* at = doc::member(*root, "gpu_index"); at != nullptr && !at->is_null()) {
    const auto v = json_integer(at);
    if (!v || !small(*v)) return bad("\"gpu_index\" is not a whole number from 0 to 4095");
    out.gpus[0].index = static_cast<int>(*v);
  }
  std::size_t n = 0;
  for (const node& in : instances->kids) {
    const std::string where = fmt::format("\"layouts\"[0].\"instances\"[{}]", n++);
    const node* profile = doc::member(in, "profile");
    const auto profile_id = json_integer(doc::member(in, "profile_id"));
    const auto start = json_integer(doc::member(in, "start"));
    const auto size = json_integer(doc::member(in, "size"));
    if (!profile_id || !start || !size || !is_string(profile))
      return bad(where + " needs \"profile\", \"profile_id\", \"start\" and \"size\"");
    if (!small(*profile_id) || !small(*start) || !small(*size))
      return bad(where + " has a number out of range");
    auto p = listed_profile(g, static_cast<int>(*profile_id), profile->text,
                            static_cast<int>(*start), static_cast<int>(*size), "");
    // The JSON has no useful line: the message names the instance instead.
    if (!p) return error{located(shown, line, where + ": " + p.error())};
    current_instance gi = current_instance::at(*p, static_cast<int>(*start));
    // The compute instances the answer planned in it, kept as they are.
    if (const node* cis = doc::member(in, "compute_instances"); cis != nullptr && cis->is_list()) {
      int k = 0;
      for (const node& ci : cis->kids) {
        const node* ci_profile = doc::member(ci, "profile");
        if (!is_string(ci_profile))
          return bad(where + ".\"compute_instances\" needs a \"profile\" in each entry");
        current_ci c{ci_profile->text, 0, k++, std::nullopt, std::nullopt};
        // A number past int is cut as nlohmann's get<int>() cuts it.
        if (const auto v = json_integer(doc::member(ci, "profile_id")))
          c.profile_id = static_cast<int>(*v);
        if (const auto v = json_integer(doc::member(ci, "start")); v && small(*v))
          c.start = static_cast<int>(*v);
        if (const auto v = json_integer(doc::member(ci, "size")); v && small(*v))
          c.size = static_cast<int>(*v);
        gi.compute.push_back(std::move(c));
      }
    }
    out.gpus[0].instances.push_back(std::move(gi));
  }
  return out;
}

// True when `text` is answers one per line, as `pack --current --json`
// writes for a listing of several GPUs: a first line that is a whole object
// ("{...}", where an indented answer's is "{" alone), and a line after it.
bool is_json_lines(std::string_view text) {
  text_lines lines(text);
  int seen = 0;
  while (const auto l = lines.next()) {
    const std::string_view t = trim(*l);
    if (t.empty()) continue;
    if (++seen == 2) return true;
    if (t.size() < 2 || t.front() != '{' || t.back() != '}') return false;
  }
  return false;
}

// Answers one per line: one GPU each, all of one model, each naming its GPU
// (gpu_index) once; with `index`, that GPU's alone.
result<current_listing> read_json_lines(model_list models, std::string_view text,
                                        std::string_view shown, const gpu_model* gpu,
                                        std::optional<int> index) {
  current_listing out{gpu, {}, true};
  std::vector<int> listed;
  text_lines lines(text);
  while (const auto l = lines.next()) {
    if (trim(*l).empty()) continue;
    auto one = read_json(models, *l, shown, gpu, lines.number());
    if (!one) return one.error();
    if (out.gpu != nullptr && one->gpu != out.gpu)
      return error{fmt::format("{}:{}: the answer is for {}, the lines before it for {}", shown,
                               lines.number(), one->gpu->slug, out.gpu->slug)};
    current_listing_gpu& g = one->gpus.front();
    if (!g.index)
      return error{
          fmt::format("{}:{}: an answer of several lines names its GPU (gpu_index); "
                      "this one does not",
                      shown, lines.number())};
    if (std::find(listed.begin(), listed.end(), *g.index) != listed.end())
      return error{fmt::format("{}:{}: GPU {} is answered twice", shown, lines.number(), *g.index)};
    listed.push_back(*g.index);
    out.gpu = one->gpu;
    if (!index || *index == *g.index) out.gpus.push_back(std::move(g));
  }
  if (index && out.gpus.empty())
    return error{fmt::format("{}: no answer for GPU {} (--index); it answers GPU {}", shown, *index,
                             fmt::join(listed, ", "))};
  return out;
}

}  // namespace

bool is_smi_listing(std::string_view text) {
  return smi::detect_listing(text) != smi::listing_kind::unknown;
}

std::string listing_needs_gpu(std::string_view shown) {
  return fmt::format("{}: an nvidia-smi listing does not name the GPU model; pass --gpu", shown);
}

result<current_listing> read_current(model_list models, std::string_view text,
                                     std::string_view shown, const gpu_model* gpu,
                                     std::optional<int> index) {
  text = skip_bom(text);
  if (text.size() > max_current_bytes)
    return error{fmt::format("{}: larger than {} bytes", shown, max_current_bytes)};
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    if (is_json_lines(text)) return read_json_lines(models, text, shown, gpu, index);
    if (index)
      return error{
          fmt::format("{}: --index picks a GPU of an nvidia-smi listing; a JSON answer "
                      "is one GPU",
                      shown)};
    return read_json(models, text, shown, gpu);
  }
  if (gpu == nullptr)
    return error{
        is_smi_listing(text)
            ? listing_needs_gpu(shown)
            : fmt::format("{}: neither a pack --json answer nor an nvidia-smi listing", shown)};
  return read_smi(text, shown, *gpu, index);
}

}  // namespace migplan::cli

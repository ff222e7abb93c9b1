// SPDX-License-Identifier: Apache-2.0
#include "io/source.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <iterator>
#include <migplan/detail/strings.hpp>
#include <sstream>

namespace migplan::cli {
namespace {

namespace fs = std::filesystem;

bool has_extension(const fs::path& p, std::string_view ext) {
  return detail::iequals(p.extension().string(), ext);
}

bool checkable(const fs::path& p) {
  return has_extension(p, ".yaml") || has_extension(p, ".yml") || has_extension(p, ".json");
}

}  // namespace

result<std::string> read_source(const std::string& path, std::istream& in) {
  if (path == "-") {
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) return error{"is a directory"};
  std::ifstream f(path, std::ios::binary);
  if (!f) return error{std::strerror(errno)};
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) return error{std::strerror(errno)};
  return text;
}

result<std::string> read_source_bounded(const std::string& path, std::istream& in,
                                        std::size_t limit, bool& too_large) {
  too_large = false;
  const auto refuse = [&] {
    too_large = true;
    return error{limit % (std::size_t{1} << 20) == 0
                     ? "larger than " + std::to_string(limit >> 20) + " MiB"
                     : "larger than " + std::to_string(limit) + " bytes"};
  };
  std::unique_ptr<std::ifstream> file;
  std::istream* stream = &in;
  if (path != "-") {
    std::error_code ec;
    if (fs::is_directory(path, ec)) return error{"is a directory"};
    file = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*file) return error{std::strerror(errno)};
    // A regular file says its size: refused unread. A pipe or a device does
    // not, and is read no further than one byte past the limit.
    if (fs::is_regular_file(path, ec)) {
      const std::uintmax_t size = fs::file_size(path, ec);
      if (!ec && size > limit) return refuse();
    }
    stream = file.get();
  }
  std::string text;
  std::streambuf* buf = stream->rdbuf();
  constexpr std::size_t chunk = std::size_t{1} << 16;
  try {
    while (true) {
      const std::size_t old = text.size();
      const std::size_t want = std::min(chunk, limit + 1 - old);
      text.resize(old + want);
      const std::streamsize got = buf->sgetn(text.data() + old, static_cast<std::streamsize>(want));
      text.resize(old + static_cast<std::size_t>(std::max<std::streamsize>(got, 0)));
      if (text.size() > limit) return refuse();
      if (got < static_cast<std::streamsize>(want)) break;
    }
  } catch (const std::ios_base::failure&) {
    // libstdc++'s filebuf throws on a read error (a directory opened as a file).
    return error{std::strerror(errno)};
  }
  return text;
}

result<std::unique_ptr<std::istream>> open_source(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return error{"is a directory"};
  auto f = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*f) return error{std::strerror(errno)};
  return std::unique_ptr<std::istream>(std::move(f));
}

line_reader::status line_reader::next(std::string& line) {
  line.clear();
  std::streambuf* buf = in_.rdbuf();
  using traits = std::streambuf::traits_type;
  int c = buf->sbumpc();
  if (traits::eq_int_type(c, traits::eof())) {
    in_.setstate(std::ios::eofbit);
    return status::end;
  }
  ++number_;
  for (; !traits::eq_int_type(c, traits::eof()) && c != '\n'; c = buf->sbumpc()) {
    ++bytes_;
    if (line.size() == max_line_) return status::too_long;
    line += traits::to_char_type(c);
  }
  if (c == '\n') ++bytes_;
  if (number_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return status::line;
}

bool line_reader::ready() const { return in_.rdbuf()->in_avail() > 0; }

std::vector<source> expand_sources(const std::vector<std::string>& args) {
  std::vector<source> out;
  for (const std::string& a : args) {
    std::error_code ec;
    if (a == "-" || !fs::is_directory(a, ec)) {
      out.push_back({a, a == "-" ? std::string("<stdin>") : a, {}, false});
      continue;
    }
    std::vector<std::string> found;
    for (auto it =
             fs::recursive_directory_iterator(a, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      std::error_code fec;
      // Hidden entries (.git, .github, an editor's .swp directory) hold other
      // tools' files, never the configs a repository deploys: ripgrep's rule.
      if (it->path().filename().string().starts_with('.')) {
        if (it->is_directory(fec)) it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file(fec) && checkable(it->path()))
        found.push_back(it->path().generic_string());
    }
    std::sort(found.begin(), found.end());
    if (found.empty())
      out.push_back({a, a, "no .yaml, .yml or .json files in this directory", false});
    for (std::string& f : found) out.push_back({f, f, {}, true});
  }
  return out;
}

bool looks_json(const source& s, std::string_view text) {
  if (s.path != "-") return has_extension(s.path, ".json");
  // Standard input has no name: a document that opens with '{' or '[' is JSON.
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (text[first] == '{' || text[first] == '[');
}

}  // namespace migplan::cli

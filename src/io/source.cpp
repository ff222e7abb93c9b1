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
#include <limits>
#include <migplan/detail/strings.hpp>

namespace migplan::cli {
namespace {

namespace fs = std::filesystem;

bool has_extension(const fs::path& p, std::string_view ext) {
  return detail::iequals(p.extension().string(), ext);
}

bool checkable(const fs::path& p) {
  return has_extension(p, ".yaml") || has_extension(p, ".yml") || has_extension(p, ".json");
}

error larger_than(std::size_t limit) {
  return error{limit % (std::size_t{1} << 20) == 0
                   ? "larger than " + std::to_string(limit >> 20) + " MiB"
                   : "larger than " + std::to_string(limit) + " bytes"};
}

}  // namespace

result<std::string> read_bounded(std::streambuf& buf, std::size_t limit, bool& too_large,
                                 const soft_limit& soft) {
  too_large = false;
  constexpr std::size_t chunk = std::size_t{1} << 16;
  const std::size_t most = limit == std::numeric_limits<std::size_t>::max() ? limit : limit + 1;
  // The first 64 KiB, which most inputs fit in; past them, the buffer is
  // reserved once for limit + 1 bytes. Its pages are only resident as they
  // are read into, so memory follows the bytes read, and a string growing by
  // doubling would hold twice the limit when /dev/zero reaches it.
  std::string text;
  text.reserve(std::min(most, chunk));
  bool asked = soft.at == 0 || soft.at >= limit;
  while (true) {
    if (text.size() == text.capacity() && text.capacity() < most) {
      std::string bigger;
      bigger.reserve(most);
      bigger.append(text);
      text.swap(bigger);
    }
    const std::size_t old = text.size();
    const std::size_t want = std::min(chunk, text.capacity() - old);
    text.resize(old + want);
    const std::streamsize got = buf.sgetn(text.data() + old, static_cast<std::streamsize>(want));
    text.resize(old + static_cast<std::size_t>(std::max<std::streamsize>(got, 0)));
    if (!asked && text.size() > soft.at) {
      asked = true;
      if (!soft.may_pass(text)) {
        too_large = true;
        return larger_than(soft.at);
      }
    }
    if (text.size() > limit) {
      too_large = true;
      return larger_than(limit);
    }
    if (got < static_cast<std::streamsize>(want)) break;
  }
  return text;
}

result<std::string> read_source_bounded(const std::string& path, std::istream& in,
                                        std::size_t limit, bool& too_large,
                                        const soft_limit& soft) {
  too_large = false;
  std::unique_ptr<std::ifstream> file;
  std::istream* stream = &in;
  if (path != "-") {
    std::error_code ec;
    if (fs::is_directory(path, ec)) return error{"is a directory"};
    file = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*file) return error{std::strerror(errno)};
    // A regular file that says it is too large is refused unread. The size
    // only ever refuses: a pipe, a device or a /proc file (which says 0)
    // tells nothing by it, and every file is read the same way, no further
    // than one byte past the limit.
    if (fs::is_regular_file(path, ec)) {
      const std::uintmax_t size = fs::file_size(path, ec);
      if (!ec && size > limit) {
        too_large = true;
        return larger_than(limit);
      }
    }
    stream = file.get();
  }
  try {
    return read_bounded(*stream->rdbuf(), limit, too_large, soft);
  } catch (const std::ios_base::failure&) {
    // libstdc++'s filebuf throws on a read error (a directory opened as a file).
    return error{std::strerror(errno)};
  }
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

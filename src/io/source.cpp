// SPDX-License-Identifier: Apache-2.0
#include "io/source.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <ios>
#include <istream>
#include <iterator>
#include <limits>
#include <migplan/detail/strings.hpp>
#include <system_error>

namespace migplan::cli {
namespace {

namespace fs = std::filesystem;

bool has_extension(const fs::path& p, std::string_view ext) {
  return detail::iequals(p.extension().string(), ext);
}

bool checkable(const fs::path& p) {
  return has_extension(p, ".yaml") || has_extension(p, ".yml") || has_extension(p, ".json");
}

// A file read through its descriptor. It keeps the errno of a failed read,
// which a stream buffer cannot pass through sgetn().
class fd_buf : public std::streambuf {
 public:
  explicit fd_buf(int fd) : fd_(fd) {}
  ~fd_buf() override { ::close(fd_); }
  fd_buf(const fd_buf&) = delete;
  fd_buf& operator=(const fd_buf&) = delete;
  int read_error() const noexcept { return error_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    ssize_t got = 0;
    do {
      got = ::read(fd_, buf_, sizeof buf_);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) {
      if (got < 0) error_ = errno;
      return traits_type::eof();
    }
    setg(buf_, buf_, buf_ + got);
    return traits_type::to_int_type(*gptr());
  }
  // What line_reader::ready() asks: bytes a pipe holds now.
  std::streamsize showmanyc() override {
    int n = 0;
    return ::ioctl(fd_, FIONREAD, &n) == 0 && n > 0 ? n : 0;
  }

 private:
  int fd_;
  int error_ = 0;
  char buf_[1 << 16];
};

// An input stream that owns its fd_buf.
class fd_stream : public std::istream {
 public:
  explicit fd_stream(int fd) : std::istream(nullptr), buf_(fd) { rdbuf(&buf_); }
  const fd_buf& buf() const noexcept { return buf_; }

 private:
  fd_buf buf_;
};

// An open file and what fstat said of it.
struct opened_file {
  std::unique_ptr<fd_stream> stream;
  struct stat st {};
};

// Opens `path` for reading without waiting: open(2) of a named pipe waits for
// a writer, forever when none comes. O_NONBLOCK returns at once; it is then
// cleared, so reads wait for a writer's data as usual, and a pipe that no
// writer holds open reads as empty. A pipe whose writer is already there (a
// shell's <(...), a writer started first) reads as any pipe does.
result<opened_file> open_file(const std::string& path) {
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return error{std::strerror(errno)};
  opened_file out;
  out.stream = std::make_unique<fd_stream>(fd);
  if (::fstat(fd, &out.st) != 0) return error{std::strerror(errno)};
  if (S_ISDIR(out.st.st_mode)) return error{"is a directory"};
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
    return error{std::strerror(errno)};
  return out;
}

error larger_than(std::size_t limit) {
  return error{limit % (std::size_t{1} << 20) == 0
                   ? "larger than " + std::to_string(limit >> 20) + " MiB"
                   : "larger than " + std::to_string(limit) + " bytes"};
}

// No input migplan reads (YAML, JSON, CSV, nvidia-smi's text) holds a NUL
// byte, so the first one ends the read: /dev/zero or a binary file is
// refused at its first chunk, not at the limit, and the message says where.
error nul_at(std::string_view text, std::size_t at) {
  const text_position p = line_table(text).position(at);
  return error{"a NUL byte at line " + std::to_string(p.line) + ", column " +
               std::to_string(p.column) + ": migplan reads text (is the file binary, or UTF-16?)"};
}

// Why a read failed, from what a stream buffer threw: standard input's
// buffer (libstdc++'s stdio_filebuf) throws on a failed read(2) where a
// file's fd_buf keeps the errno, and the error says the same either way
// ("Bad file descriptor" for a closed stdin, "Is a directory" for `< /`).
error read_failure(const std::ios_base::failure& e) {
  const std::error_code& c = e.code();
  if (c.category() == std::system_category() || c.category() == std::generic_category())
    return error{std::strerror(c.value())};
  return error{e.what()};
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
    std::streamsize got = 0;
    try {
      got = buf.sgetn(text.data() + old, static_cast<std::streamsize>(want));
    } catch (const std::ios_base::failure& e) {
      return read_failure(e);
    }
    text.resize(old + static_cast<std::size_t>(std::max<std::streamsize>(got, 0)));
    if (const std::size_t nul = text.find('\0', old); nul != std::string::npos)
      return nul_at(text, nul);
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
  if (path == "-") return read_bounded(*in.rdbuf(), limit, too_large, soft);
  auto file = open_file(path);
  if (!file) return file.error();
  // A regular file that says it is too large is refused unread. The size
  // only ever refuses: a pipe, a device or a /proc file (which says 0)
  // tells nothing by it, and every file is read the same way, no further
  // than one byte past the limit.
  if (S_ISREG(file->st.st_mode) && static_cast<std::uintmax_t>(file->st.st_size) > limit) {
    too_large = true;
    return larger_than(limit);
  }
  auto text = read_bounded(*file->stream->rdbuf(), limit, too_large, soft);
  if (text && file->stream->buf().read_error() != 0)
    return error{std::strerror(file->stream->buf().read_error())};
  return text;
}

result<std::unique_ptr<std::istream>> open_source(const std::string& path) {
  auto file = open_file(path);
  if (!file) return file.error();
  return std::unique_ptr<std::istream>(std::move(file->stream));
}

const std::vector<std::size_t>& line_table::starts() const {
  if (starts_.empty()) {
    starts_.push_back(bom_ == bom::skipped && text_.starts_with("\xEF\xBB\xBF") ? 3 : 0);
    for (std::size_t i = text_.find('\n'); i != std::string_view::npos; i = text_.find('\n', i + 1))
      starts_.push_back(i + 1);
  }
  return starts_;
}

std::size_t line_table::length(std::size_t line0) const {
  const std::vector<std::size_t>& s = starts();
  const std::size_t from = s[line0];
  std::size_t end = line0 + 1 < s.size() ? s[line0 + 1] - 1 : text_.size();
  if (end > from && text_[end - 1] == '\r') --end;
  return end - from;
}

std::size_t line_table::line_of(std::size_t at) const {
  const std::vector<std::size_t>& s = starts();
  const auto after = std::upper_bound(s.begin(), s.end(), at);
  return after == s.begin() ? 0 : static_cast<std::size_t>(after - s.begin()) - 1;
}

text_position line_table::position(std::size_t at) const {
  const std::size_t line0 = line_of(at);
  const std::size_t from = start(line0);
  return {static_cast<int>(line0) + 1, static_cast<int>(at > from ? at - from : 0) + 1};
}

line_reader::status line_reader::next(std::string& line) {
  line.clear();
  std::streambuf* buf = in_.rdbuf();
  using traits = std::streambuf::traits_type;
  const long long before = number_;
  // A failed read ends the input with its reason, never as its end: a
  // closed standard input, a directory as standard input, an I/O error.
  const auto failed = [&](error why) {
    number_ = before;
    failure_ = std::move(why.message);
    in_.setstate(std::ios::badbit);
    return status::failed;
  };
  // The errno of a file's failed read (0: none); standard input's buffer
  // throws instead.
  const auto read_error = [&]() {
    const auto* fd = dynamic_cast<const fd_buf*>(buf);
    return fd != nullptr ? fd->read_error() : 0;
  };
  bool cr_dropped = false;
  try {
    int c = buf->sbumpc();
    if (traits::eq_int_type(c, traits::eof())) {
      if (const int e = read_error(); e != 0) return failed(error{std::strerror(e)});
      in_.setstate(std::ios::eofbit);
      return status::end;
    }
    ++number_;
    // The limit is on the line as returned: a byte-order mark before the
    // first line and the "\r" of a CRLF end are dropped, so they do not count.
    const auto bom = [&] { return number_ == 1 && line.starts_with("\xEF\xBB\xBF") ? 3U : 0U; };
    for (; !traits::eq_int_type(c, traits::eof()) && c != '\n'; c = buf->sbumpc()) {
      ++bytes_;
      if (line.size() >= max_line_ + bom()) {
        const int after = buf->sgetc();
        cr_dropped = c == '\r' && (traits::eq_int_type(after, traits::eof()) || after == '\n');
        if (cr_dropped) continue;
        return status::too_long;
      }
      line += traits::to_char_type(c);
    }
    if (c == '\n')
      ++bytes_;
    else if (const int e = read_error(); e != 0)
      return failed(error{std::strerror(e)});
  } catch (const std::ios_base::failure& e) {
    return failed(read_failure(e));
  }
  if (number_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
  if (!cr_dropped && !line.empty() && line.back() == '\r') line.pop_back();
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

// SPDX-License-Identifier: Apache-2.0
#include "run_binary.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace migplan::test {
namespace {

using clock = std::chrono::steady_clock;

// The name part of a "NAME=value" entry.
std::string env_name(const std::string& entry) { return entry.substr(0, entry.find('=')); }

// Our environment without NO_COLOR and without any variable `env` sets, then
// `env`: glibc's getenv returns the first match, so an appended TERM=xterm
// would lose to an inherited TERM=dumb if the inherited one stayed.
std::vector<std::string> child_env(const std::vector<std::string>& env) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e), name = env_name(entry);
    bool replaced = name == "NO_COLOR";
    for (const std::string& x : env) replaced = replaced || env_name(x) == name;
    if (!replaced) out.push_back(entry);
  }
  out.insert(out.end(), env.begin(), env.end());
  return out;
}

// A null-terminated char* array over `v` (which must outlive it).
std::vector<char*> c_array(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (std::string& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// A private directory for a run's files, removed with them.
class temp_dir {
 public:
  temp_dir() {
    if (mkdtemp(path_) == nullptr) throw std::runtime_error("mkdtemp failed");
  }
  ~temp_dir() {
    for (const std::string& f : files_) std::remove(f.c_str());
    rmdir(path_);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  std::string file(const std::string& name) {
    files_.push_back(std::string(path_) + "/" + name);
    return files_.back();
  }

 private:
  char path_[32] = "/tmp/migplan-test-XXXXXX";
  std::vector<std::string> files_;
};

// Spawns MIGPLAN_BINARY with the file actions already set up in `fa`.
pid_t spawn(posix_spawn_file_actions_t& fa, const std::vector<std::string>& args,
            const std::vector<std::string>& env) {
  std::vector<std::string> argv_s{MIGPLAN_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<std::string> env_s = child_env(env);
  const std::vector<char*> argv = c_array(argv_s), envp = c_array(env_s);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, MIGPLAN_BINARY, &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error(std::string("cannot run migplan: ") + std::strerror(rc));
  return pid;
}

int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

}  // namespace

std::string unwrapped(std::string text) {
  for (std::size_t at = text.find("\n# "); at != std::string::npos; at = text.find("\n# ", at))
    text.replace(at, 3, " ");
  return text;
}

temp_file::temp_file(const std::string& name, const std::string& text, std::uintmax_t sparse_mib)
    : path_(std::string(P_tmpdir) + "/migplan-test-" + std::to_string(::getpid()) + "-" + name) {
  std::ofstream(path_, std::ios::binary) << text;
  if (sparse_mib > 0 && ::truncate(path_.c_str(), static_cast<off_t>(sparse_mib << 20)) != 0)
    throw std::runtime_error("cannot extend " + path_);
}

temp_file::~temp_file() { std::remove(path_.c_str()); }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

run_result run_migplan(const std::vector<std::string>& args, const std::string& input,
                       const std::vector<std::string>& env) {
  temp_dir dir;
  const std::string in_path = dir.file("in"), out_path = dir.file("out"),
                    err_path = dir.file("err");
  std::ofstream(in_path, std::ios::binary) << input;

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  const pid_t pid = spawn(fa, args, env);
  int status = 0;
  waitpid(pid, &status, 0);
  return {read_file(out_path), read_file(err_path), exit_code(status)};
}

run_result run_migplan_tty(const std::vector<std::string>& args,
                           const std::vector<std::string>& env, int timeout_s) {
  int master = -1, slave = -1;
  if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0)
    throw std::runtime_error(std::string("openpty failed: ") + std::strerror(errno));
  // No output processing, so the captured bytes are exactly what was written
  // (a terminal would otherwise turn each "\n" into "\r\n").
  termios tio{};
  tcgetattr(slave, &tio);
  tio.c_oflag &= ~static_cast<tcflag_t>(OPOST);
  tcsetattr(slave, TCSANOW, &tio);
  // Neither end may leak into the child beyond the dup2 onto its stdout:
  // a stray slave descriptor would keep the terminal open after it exits and
  // the read below would never see the end.
  fcntl(master, F_SETFD, FD_CLOEXEC);
  fcntl(slave, F_SETFD, FD_CLOEXEC);

  temp_dir dir;
  const std::string err_path = dir.file("err");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, slave, 1);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = -1;
  try {
    pid = spawn(fa, args, env);
  } catch (...) {
    close(master);
    close(slave);
    throw;
  }
  close(slave);

  // Read until the child's side is closed: Linux reports that as EIO on the
  // master (other systems as end of file), after the buffered output.
  const auto deadline = clock::now() + std::chrono::seconds(timeout_s);
  auto ms_left = [&] {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    return left.count() > 0 ? static_cast<int>(left.count()) : 0;
  };
  std::string out;
  bool timed_out = false;
  while (true) {
    pollfd pfd{master, POLLIN, 0};
    const int ready = poll(&pfd, 1, ms_left());
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = ready == 0;
      break;
    }
    char buf[4096];
    const ssize_t n = read(master, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // 0 (end of file) or an error, EIO included
    }
  }
  close(master);

  // A child that closed its stdout but does not exit is killed at the same deadline.
  int status = 0;
  while (!timed_out && waitpid(pid, &status, WNOHANG) == 0) {
    if (ms_left() == 0)
      timed_out = true;
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (timed_out) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  run_result r{out, read_file(err_path), timed_out ? -1 : exit_code(status)};
  if (timed_out) r.err += "run_migplan_tty: timed out";
  return r;
}

std::string test_path(const std::string& rel) { return std::string(MIGPLAN_TEST_DIR) + "/" + rel; }

std::string plan_fixture(const std::string& name) { return test_path("fixtures/plan/" + name); }

std::string source_path(const std::string& rel) {
  return std::string(MIGPLAN_SOURCE_DIR) + "/" + rel;
}

std::string pack_did_you_mean(const std::string& gpu, const std::string& profile) {
  const run_result r = run_migplan({"pack", "-g", gpu, profile});
  const std::size_t open = r.err.find(" (did you mean");
  const std::size_t close = r.err.find("?)", open);
  if (r.code != 2 || open == std::string::npos || close == std::string::npos) return {};
  return r.err.substr(open, close + 2 - open);
}

}  // namespace migplan::test

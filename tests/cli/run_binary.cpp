// SPDX-License-Identifier: Apache-2.0
#include "run_binary.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace migplan::test {
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

run_result run_migplan(const std::vector<std::string>& args, const std::string& input,
                       const std::vector<std::string>& env) {
  char dir_tmpl[] = "/tmp/migplan-test-XXXXXX";
  const char* dir = mkdtemp(dir_tmpl);
  if (dir == nullptr) throw std::runtime_error("mkdtemp failed");
  const std::string in_path = std::string(dir) + "/in", out_path = std::string(dir) + "/out",
                    err_path = std::string(dir) + "/err";
  std::ofstream(in_path, std::ios::binary) << input;

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);

  std::vector<std::string> argv_s{MIGPLAN_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  // The environment: ours without NO_COLOR, plus the requested entries.
  std::vector<std::string> env_s;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "NO_COLOR=", 9) != 0) env_s.emplace_back(*e);
  env_s.insert(env_s.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (std::string& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = 0;
  const int rc = posix_spawn(&pid, MIGPLAN_BINARY, &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error(std::string("cannot run migplan: ") + std::strerror(rc));
  int status = 0;
  waitpid(pid, &status, 0);
  run_result r{read_file(out_path), read_file(err_path),
               WIFEXITED(status) ? WEXITSTATUS(status) : -1};
  std::remove(in_path.c_str());
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  rmdir(dir);
  return r;
}

std::string test_path(const std::string& rel) { return std::string(MIGPLAN_TEST_DIR) + "/" + rel; }

std::string source_path(const std::string& rel) {
  return std::string(MIGPLAN_SOURCE_DIR) + "/" + rel;
}

}  // namespace migplan::test

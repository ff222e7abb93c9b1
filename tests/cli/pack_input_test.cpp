// SPDX-License-Identifier: Apache-2.0
// pack on hostile input: every failure is one clear answer in the format that
// was asked for, work and memory stay bounded, and --batch answers a request
// as soon as it is read.

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "run_binary.hpp"

using migplan::test::run_migplan;
using json = nlohmann::json;

extern char** environ;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    out.push_back(text.substr(pos, nl - pos));
    pos = nl == std::string::npos ? text.size() : nl + 1;
  }
  return out;
}

std::size_t tabs(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s) n += c == '\t' ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("pack --brief is one line of five fields per request, errors included", "[cli][batch]") {
  const auto r =
      run_migplan({"pack", "--batch", "-", "--brief"}, "1g.10gb\n1g.5gb\x01\n3g.20gb\n2x7g.40gb\n");
  CHECK(r.code == 2);
  const auto lines = lines_of(r.out);
  REQUIRE(lines.size() == 4);
  for (const std::string& l : lines) CHECK(tabs(l) == 4);
  // The ambiguous gpu: one sentence that says what each model answers.
  CHECK(lines[0] ==
        "1\t-\terror\t0\tthe gpu is ambiguous: a100-40gb: fits (4 layouts); h100-80gb, "
        "h100-pcie, a100-80gb: fits (7 layouts); pass --gpu");
  // A control character in the message is escaped, not printed.
  CHECK(lines[1].find("\\x01") != std::string::npos);
  CHECK(lines[1].find('\x01') == std::string::npos);
  CHECK(lines[2].rfind("3\ta100-40gb\tfits\t", 0) == 0);
}

TEST_CASE("pack --json writes a JSON error besides the message on stderr", "[cli][json]") {
  const auto bad = run_migplan({"pack", "--json", "--gpu", "a100-40gb", "1g.5bg"});
  CHECK(bad.code == 2);
  CHECK(bad.err == "migplan: unknown profile '1g.5bg' on a100-40gb (did you mean 1g.5gb?)\n");
  const json j = json::parse(bad.out);
  CHECK(j["schema_version"] == 1);
  CHECK(j["error"]["code"] == "bad_input");
  CHECK(j["error"]["message"] == "unknown profile '1g.5bg' on a100-40gb (did you mean 1g.5gb?)");

  const auto amb = run_migplan({"pack", "--json", "5x1g.10gb"});
  CHECK(amb.code == 2);
  const json a = json::parse(amb.out);
  CHECK(a["error"]["code"] == "ambiguous_gpu");
  REQUIRE(a["error"]["candidates"].size() == 4);
  CHECK(a["error"]["candidates"][0]["gpu"] == "a100-40gb");
  CHECK(a["error"]["candidates"][0]["reason"] == "instance_cap");
  CHECK(a["error"]["candidates"][1]["layout_count"] == 21);
  CHECK(amb.err.find("h100-80gb, h100-pcie, a100-80gb: fits (21 layouts; preferred 1g.10gb@0 "
                     "1g.10gb@1 1g.10gb@2 1g.10gb@3 1g.10gb@4)") != std::string::npos);
}

TEST_CASE("a byte-order mark before the first request is skipped", "[cli][batch]") {
  const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "--batch", "-", "--brief"},
                             "\xEF\xBB\xBF"
                             "3g.20gb\n");
  CHECK(r.code == 0);
  CHECK(r.out == "1\ta100-40gb\tfits\t2\t3g.20gb@4\n");
}

TEST_CASE("an empty batch is bad input, not silent success", "[cli][batch]") {
  const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "--batch", "-"}, "");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "migplan: --batch -: no input (the file or stream was empty)\n");
  // Comments and blank lines alone are input: nothing to answer, exit 0.
  CHECK(run_migplan({"pack", "--gpu", "a100-40gb", "--batch", "-"}, "# none\n\n").code == 0);
}

TEST_CASE("a line past the limit ends the batch with one message", "[cli][batch][limits]") {
  // As /dev/zero would: no newline, ever.
  const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "--batch", "-", "--brief"},
                             "3g.20gb\n" + std::string(70000, '\0'));
  CHECK(r.code == 2);
  CHECK(r.out ==
        "1\ta100-40gb\tfits\t2\t3g.20gb@4\n"
        "2\t-\terror\t0\tline 2 is longer than 65536 bytes; nothing after it is read\n");
  CHECK(r.err == "migplan: line 2 is longer than 65536 bytes; nothing after it is read\n");
}

TEST_CASE("counts stay bounded: ten million instances are refused at once", "[cli][limits]") {
  std::vector<std::string> args{"pack", "--json", "--gpu", "a100-40gb"};
  for (int i = 0; i < 10000; ++i) args.emplace_back("1000x1g.5gb");
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_migplan(args);
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(r.code == 2);
  const json j = json::parse(r.out);
  CHECK(j["error"]["message"] ==
        "the request holds 10000000 instances; no gpu holds more than 16, and a request may hold "
        "at most 1024");
  // Generous: it took 17.7 s and 2.8 GB before; now it is milliseconds.
  CHECK(took < std::chrono::seconds(10));
}

TEST_CASE("a huge word is refused without being echoed back", "[cli][limits]") {
  const std::string word(60000, 'g');
  const auto r = run_migplan({"pack", "--batch", "-", "--brief"}, word + "\n");
  CHECK(r.code == 2);
  CHECK(r.out ==
        "1\t-\terror\t0\tan item of 60000 bytes ('gggggggggggggggggggggggg...') is longer than "
        "256 bytes\n");
  // A megabyte is past the line limit: the same one line, naming that limit.
  const auto mb = run_migplan({"pack", "--batch", "-", "--brief"}, std::string(1 << 20, 'g'));
  CHECK(mb.out == "1\t-\terror\t0\tline 1 is longer than 65536 bytes; nothing after it is read\n");
}

TEST_CASE("an empty --gpu is an error, not a request to infer the gpu", "[cli][pack]") {
  const auto r = run_migplan({"pack", "--gpu", "", "1g.5gb"});
  CHECK(r.code == 2);
  CHECK(r.err == "migplan: empty gpu name\n");
}

TEST_CASE("a write error fails the run", "[cli][errors]") {
  // /dev/full accepts the open and fails every write with ENOSPC.
  const std::string err = "/tmp/migplan-write-error.txt";
  for (const char* args : {"gpus", "pack --json 4g.20gb", "check --format json -"}) {
    INFO(args);
    const int status = std::system(
        (std::string(MIGPLAN_BINARY) + " " + args + " > /dev/full 2> " + err + " < /dev/null")
            .c_str());
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
    const std::string text = migplan::test::read_file(err);
    CHECK(text.find("migplan: write error: No space left on device\n") != std::string::npos);
  }
  std::remove(err.c_str());
}

TEST_CASE("pack --batch answers each request before it reads the next", "[cli][batch]") {
  // A coprocess: write one request, wait for its answer, then write the next.
  int to_child[2], from_child[2];
  REQUIRE(pipe(to_child) == 0);
  REQUIRE(pipe(from_child) == 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&fa, from_child[1], 1);
  posix_spawn_file_actions_addclose(&fa, to_child[1]);
  posix_spawn_file_actions_addclose(&fa, from_child[0]);
  std::vector<std::string> args{MIGPLAN_BINARY, "pack", "--gpu",  "a100-40gb",
                                "--batch",      "-",    "--brief"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, MIGPLAN_BINARY, &fa, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&fa);
  close(to_child[0]);
  close(from_child[1]);
  const auto ask = [&](const std::string& request) {
    REQUIRE(write(to_child[1], request.data(), request.size()) ==
            static_cast<ssize_t>(request.size()));
    std::string got;
    while (got.empty() || got.back() != '\n') {
      pollfd p{from_child[0], POLLIN, 0};
      if (poll(&p, 1, 10000) <= 0) break;  // no answer within 10 s: the check below fails
      char buf[256];
      const ssize_t n = read(from_child[0], buf, sizeof buf);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
    }
    return got;
  };
  CHECK(ask("3g.20gb\n") == "1\ta100-40gb\tfits\t2\t3g.20gb@4\n");
  CHECK(ask("7g.40gb\n") == "2\ta100-40gb\tfits\t1\t7g.40gb@0\n");
  close(to_child[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  close(from_child[0]);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("random bytes as a batch give one valid JSON line per request", "[cli][batch][json]") {
  std::mt19937 rng(8);
  std::uniform_int_distribution<int> byte(0, 255);
  std::string input(100000, '\0');
  for (char& c : input) c = static_cast<char>(byte(rng));
  for (const bool with_gpu : {true, false}) {
    std::vector<std::string> args{"pack", "--batch", "-"};
    if (with_gpu) args.insert(args.end(), {"--gpu", "a100-40gb"});
    const auto r = run_migplan(args, input);
    CHECK(r.code == 2);
    const auto lines = lines_of(r.out);
    CHECK(lines.size() > 300);
    // nlohmann's parser rejects ill-formed UTF-8 and raw control characters.
    for (const std::string& l : lines) CHECK_NOTHROW(json::parse(l).at("error"));
  }
}

TEST_CASE("pack --batch's bad options are an error document, as json.md says", "[pack][batch]") {
  // Before, only a file that could not be read was: an unknown option, a
  // conflict or a bad --gpu left stdout empty for the JSON reader.
  const std::vector<std::vector<std::string>> bad{
      {"--bogus"}, {"--emit", "nvml"}, {"--gpu", "a100"}, {"1g.10gb"}};
  for (const auto& extra : bad) {
    std::vector<std::string> args{"pack", "--batch", "-"};
    args.insert(args.end(), extra.begin(), extra.end());
    INFO(Catch::Detail::stringify(args));
    const auto r = run_migplan(args, "1g.10gb\n");
    CHECK(r.code == 2);
    const json d = json::parse(r.out);
    CHECK(d["schema_version"] == 1);
    CHECK(d["error"]["code"] == "bad_input");
    CHECK(r.err == "migplan: " + d["error"]["message"].get<std::string>() + "\n");
    // --brief answers in TSV: no JSON there.
    args.push_back("--brief");
    const auto brief = run_migplan(args, "1g.10gb\n");
    CHECK(brief.code == 2);
    CHECK(brief.out.empty());
  }
}

TEST_CASE("pack --brief refuses --json and --all, which it would ignore", "[pack][batch]") {
  // Before, `--batch - --brief --json` wrote TSV lines and exit 0, and
  // --all changed nothing: an option given and silently dropped.
  const auto json_too = run_migplan({"pack", "--batch", "-", "--brief", "--json"}, "1g.10gb\n");
  CHECK(json_too.code == 2);
  CHECK(json_too.err ==
        "migplan: --brief writes tab-separated lines; it does not combine with --json\n");
  // --json asked for JSON: the refusal is an error document.
  CHECK(json::parse(json_too.out)["error"]["code"] == "bad_input");
  const auto all_too = run_migplan({"pack", "--batch", "-", "--brief", "--all"}, "1g.10gb\n");
  CHECK(all_too.code == 2);
  CHECK(all_too.out.empty());
  CHECK(all_too.err ==
        "migplan: --brief writes the preferred layout only; it does not combine with --all\n");
  // Each alone still answers.
  CHECK(run_migplan({"pack", "-g", "a100-40gb", "--batch", "-", "--brief"}, "1g.10gb\n").code == 0);
  CHECK(run_migplan({"pack", "-g", "a100-40gb", "--batch", "-", "--all"}, "1g.10gb\n").code == 0);
}

namespace {

// `migplan ARGS` run by sh with standard input redirected by `redirect`
// ("<&-": closed; "< /": a directory), which run_migplan cannot set up.
migplan::test::run_result run_with_stdin(const std::string& args, const std::string& redirect) {
  const std::string out = "/tmp/migplan-stdin-out-" + std::to_string(getpid()) + ".txt";
  const std::string err = "/tmp/migplan-stdin-err-" + std::to_string(getpid()) + ".txt";
  const int status = std::system(
      (std::string(MIGPLAN_BINARY) + " " + args + " > " + out + " 2> " + err + " " + redirect)
          .c_str());
  migplan::test::run_result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = migplan::test::read_file(out);
  r.err = migplan::test::read_file(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

}  // namespace

TEST_CASE("a '-' that cannot be read says why, not an internal error", "[cli][errors]") {
  // With standard input closed or a directory, every reader of '-' said
  // "internal error: basic_filebuf::xsgetn error reading the file: ...".
  const std::vector<std::string> commands{
      "pack --gpu a100-40gb --batch -",
      "pack --gpu a100-40gb --batch - --brief",
      "pack --gpu a100-40gb --current - 1g.5gb",
      "check -",
      "emit-config --merge -",
      "import --lgip - --lgipp /dev/null",
      "plan --gpu h100-80gb --demand -",
      "plan --current - 1g.10gb",
      "simulate --trace - --gpu h100-80gb",
      "place 3g.40gb --current -",
  };
  for (const auto& [redirect, why] : std::vector<std::pair<std::string, std::string>>{
           {"<&-", "Bad file descriptor"}, {"< /", "Is a directory"}}) {
    for (const std::string& c : commands) {
      INFO(c << " " << redirect);
      const auto r = run_with_stdin(c, redirect);
      CHECK(r.code == 2);
      CHECK(r.out.find("migplan") == std::string::npos);
      CHECK(r.err.find("internal error") == std::string::npos);
      CHECK(r.err.find("basic_filebuf") == std::string::npos);
      if (c.starts_with("check")) {
        CHECK(r.out.find("<stdin>: error: cannot read file: " + why + "\n") == 0);
      } else {
        CHECK(r.err.find(why) != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
      }
    }
  }
  const auto batch = run_with_stdin("pack --gpu a100-40gb --batch -", "<&-");
  CHECK(batch.err == "migplan: cannot read --batch '-': Bad file descriptor\n");
  CHECK(batch.out.empty());
}

TEST_CASE("pack --batch FILE whose read fails says so, not that it was empty", "[cli][batch]") {
  // Reading /proc/self/mem at offset 0 fails with EIO; the failure read as
  // the end of the input ("no input (the file or stream was empty)").
  const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "--batch", "/proc/self/mem"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "migplan: cannot read --batch '/proc/self/mem': Input/output error\n");
}

TEST_CASE("a profile ID with a minus sign is no ID, not -0 read as 0", "[cli][pack]") {
  // "-0" read as profile ID 0 (7g.40gb) and fit; "-1" was refused.
  const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "-0"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "migplan: a100-40gb has no profile id -0 (ids: 19, 20, 15, 14, 9, 5, 0)\n");
  const auto two = run_migplan({"pack", "--gpu", "a100-40gb", "2x-0"});
  CHECK(two.code == 2);
  CHECK(two.err == "migplan: a100-40gb has no profile id -0 (ids: 19, 20, 15, 14, 9, 5, 0)\n");
  // The ID itself still names its profile.
  CHECK(run_migplan({"pack", "--gpu", "a100-40gb", "0"}).code == 0);
}

TEST_CASE("a line's CRLF end and byte-order mark do not count against the line limit",
          "[cli][batch][limits]") {
  // 9362 items of 1g.5gb with their spaces are 65,533 bytes; padded to the
  // limit, the line is read (and refused as too many instances), whatever
  // ends it. A CRLF end, or a byte-order mark before it, once made the same
  // line "longer than 65536 bytes" and ended the batch.
  std::string line;
  for (int i = 0; i < 9362; ++i) line += i ? " 1g.5gb" : "1g.5gb";
  line.resize(65536, ' ');
  const std::string read_as_request =
      "1\t-\terror\t0\tthe request holds 9362 instances; no gpu holds more than 16, and a "
      "request may hold at most 1024\n";
  for (const std::string& input :
       {line + "\n", line + "\r\n", line + "\r", "\xEF\xBB\xBF" + line + "\r\n"}) {
    const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "--batch", "-", "--brief"}, input);
    CHECK(r.code == 2);
    CHECK(r.out == read_as_request);
  }
  // One byte more is past the limit, however the line ends; a "\r" inside
  // the line is one of its bytes.
  for (const std::string& input : {line + " \n", line + " \r\n", line + "\rx\n"}) {
    const auto r = run_migplan({"pack", "--gpu", "a100-40gb", "--batch", "-", "--brief"}, input);
    CHECK(r.code == 2);
    CHECK(r.out == "1\t-\terror\t0\tline 1 is longer than 65536 bytes; nothing after it is read\n");
  }
}

// SPDX-License-Identifier: Apache-2.0
// Input limits and the messages that quote input (issue 19, "bounds and
// messages"): every reader stops at its limit whatever kind of file it reads,
// a long list is refused while it is parsed, and a message stays one line of
// valid UTF-8 whatever bytes the input holds.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "io/plan_input.hpp"
#include "io/source.hpp"
#include "models.hpp"
#include "quote.hpp"
#include "run_binary.hpp"

using namespace migplan::cli;
using migplan::test::run_migplan;
using migplan::test::run_migplan_tty;
using migplan::test::source_path;
using migplan::test::temp_file;
using json = nlohmann::json;

namespace {

// True when `s` is valid UTF-8 (what nlohmann's parser requires of strings).
bool valid_utf8(const std::string& s) {
  try {
    const std::string dumped = json(s).dump();  // strict: throws on invalid UTF-8
    return !dumped.empty();
  } catch (const json::exception&) {
    return false;
  }
}

// Standard error is exactly one line: "migplan: ...\n".
void one_line_error(const migplan::test::run_result& r) {
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.err.rfind("migplan: ", 0) == 0);
  CHECK(r.err.find('\n') == r.err.size() - 1);
  CHECK(r.err.find('\0') == std::string::npos);
  CHECK(valid_utf8(r.err));
}

// A demand file of `items` items, each named apart.
std::string demand_yaml(int items) {
  std::string text = "version: 1\ndemand:\n";
  for (int i = 0; i < items; ++i)
    text += "  - {name: i" + std::to_string(i) + ", count: 1, profile: 1g.10gb}\n";
  return text;
}

}  // namespace

TEST_CASE("a bounded read never holds more than the limit and one byte", "[bounds]") {
  // 3 MiB and 5 bytes: a string grown by doubling would hold 4 MiB or more.
  const std::size_t limit = (std::size_t{3} << 20) + 5;
  std::istringstream in(std::string(limit, 'a'));
  bool too_large = true;
  auto text = read_source_bounded("-", in, limit, too_large);
  REQUIRE(text);
  CHECK(!too_large);
  CHECK(text->size() == limit);
  CHECK(text->capacity() <= limit + 1);
  std::istringstream over(std::string(limit + 1, 'a'));
  auto refused = read_source_bounded("-", over, limit, too_large);
  REQUIRE(!refused);
  CHECK(too_large);
  CHECK(refused.error().message == "larger than 3145733 bytes");
}

TEST_CASE("a soft limit stops an input its head does not allow past it", "[bounds]") {
  const soft_limit soft{16, [](std::string_view head) { return head.starts_with('{'); }};
  bool too_large = false;
  std::istringstream xs(std::string(100, 'x'));
  auto refused = read_source_bounded("-", xs, 64, too_large, soft);
  REQUIRE(!refused);
  CHECK(too_large);
  CHECK(refused.error().message == "larger than 16 bytes");
  std::istringstream object("{" + std::string(40, ' ') + "}");
  auto read = read_source_bounded("-", object, 64, too_large, soft);
  REQUIRE(read);
  CHECK(read->size() == 42);
}

TEST_CASE("pack --current stops standard input at its limit", "[bounds]") {
  const auto in = run_migplan({"pack", "--gpu", "a100-40gb", "--current", "-", "1g.5gb"},
                              std::string((std::size_t{1} << 20) + 1, ' '));
  CHECK(in.code == 2);
  CHECK(in.err == "migplan: <stdin>: larger than 1 MiB, the most pack reads of a --current file\n");
}

namespace {

// An endless input of NUL bytes, as /dev/zero is, that counts what is read.
class zeros : public std::streambuf {
 public:
  std::size_t taken = 0;

 protected:
  int_type underflow() override {
    taken += sizeof block_;
    setg(block_, block_, block_ + sizeof block_);
    return 0;
  }

 private:
  char block_[4096] = {};
};

const std::string nul_first =
    "a NUL byte at line 1, column 1: migplan reads text (is the file binary, or UTF-16?)";

}  // namespace

TEST_CASE("a read stops at the first NUL byte and says where it is", "[bounds]") {
  zeros z;
  bool too_large = true;
  const auto r = read_bounded(z, std::size_t{256} << 20, too_large);
  REQUIRE(!r);
  CHECK(!too_large);
  CHECK(r.error().message == nul_first);
  CHECK(z.taken <= std::size_t{1} << 16);  // the first chunk, not the limit
  using namespace std::string_literals;
  std::istringstream later("version: 1\ndemand:\n  - {count: 1, profile: \"1g.\0x\"}\n"s);
  const auto l = read_source_bounded("-", later, 1 << 20, too_large);
  REQUIRE(!l);
  CHECK(l.error().message ==
        "a NUL byte at line 3, column 29: migplan reads text (is the file binary, or UTF-16?)");
}

TEST_CASE("every reader refuses /dev/zero at its first NUL byte", "[bounds]") {
  const std::vector<std::vector<std::string>> runs{
      {"simulate", "--trace", "/dev/zero", "--gpu", "h100-80gb"},
      {"pack", "--gpu", "a100-40gb", "--current", "/dev/zero", "1g.5gb"},
      {"plan", "--current", "/dev/zero", "1g.10gb"},
      {"plan", "--gpu", "h100-80gb", "--demand", "/dev/zero"},
      {"--gpu-file", "/dev/zero", "gpus"},
      {"import", "--lgip", "/dev/zero", "--lgipp", "/dev/zero"},
  };
  for (const auto& args : runs) {
    const auto r = run_migplan(args);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(nul_first) != std::string::npos);
    CHECK(r.err.find("larger than") == std::string::npos);
  }
  const auto c = run_migplan({"check", "/dev/zero"});
  INFO(c.out + c.err);
  CHECK(c.code == 2);
  CHECK((c.out + c.err).find(nul_first) != std::string::npos);
}

TEST_CASE("a named pipe with no writer reads as empty, never waited on", "[bounds]") {
  const std::string fifo = std::string(P_tmpdir) + "/migplan-bounds-fifo";
  std::remove(fifo.c_str());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::vector<std::vector<std::string>> runs{
      {"simulate", "--trace", fifo, "--gpu", "h100-80gb"},
      {"plan", "--gpu", "h100-80gb", "--demand", fifo},
      {"plan", "--current", fifo, "1g.10gb"},
      {"pack", "--gpu", "a100-40gb", "--current", fifo, "1g.5gb"},
      {"--gpu-file", fifo, "gpus"},
      {"import", "--lgip", fifo, "--lgipp", fifo},
      {"pack", "--gpu", "a100-40gb", "--batch", fifo},
  };
  for (const auto& args : runs) {
    // Before the fix each of these waited for a writer forever.
    const auto r = run_migplan_tty(args, {}, 10);
    INFO(args[0] + " " + args[1] + ": " + r.out + r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find("timed out") == std::string::npos);
  }
  // check finds an empty file, as it does of any.
  const auto c = run_migplan_tty({"check", fifo}, {}, 10);
  CHECK(c.code == 0);
  CHECK((c.out + c.err).find("warning: empty file: nothing to check") != std::string::npos);
  // What a writer left in the pipe is read as from any pipe.
  const int r = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(r >= 0);
  const int w = ::open(fifo.c_str(), O_WRONLY);
  REQUIRE(w >= 0);
  const std::string demand = "version: 1\ndemand:\n  - {count: 8, profile: 1g.10gb}\n";
  REQUIRE(::write(w, demand.data(), demand.size()) == static_cast<ssize_t>(demand.size()));
  ::close(w);
  const auto ok = run_migplan({"plan", "--gpu", "h100-80gb", "--demand", fifo});
  ::close(r);
  std::remove(fifo.c_str());
  INFO(ok.err);
  CHECK(ok.code == 0);
  CHECK(ok.out.rfind("plan: 2 gpus (h100-80gb x2)\n", 0) == 0);
}

TEST_CASE("a file too large is refused in the name of the command that reads it", "[bounds]") {
  const temp_file trace("small.csv", "name,start,end,count,item\na,0,10,1,1g.10gb\n");
  const temp_file plan("big-plan.json", "{", 17);
  const auto s = run_migplan(
      {"simulate", "--trace", trace.path(), "--gpu", "h100-80gb", "--static-plan", plan.path()});
  CHECK(s.code == 2);
  CHECK(s.err == "migplan: '" + plan.path() +
                     "' is larger than 16 MiB, the most simulate reads of one file\n");
  const temp_file big_trace("big-trace.csv", "name,start", 257);
  const auto t = run_migplan({"simulate", "--trace", big_trace.path(), "--gpu", "h100-80gb"});
  CHECK(t.err == "migplan: '" + big_trace.path() +
                     "' is larger than 256 MiB, the most simulate reads of one file\n");
  // Written, not sparse: a state file is read up to its limit, where the
  // holes of a sparse one would be NUL bytes.
  const temp_file state("big-state.yaml", "version: 1\n" + std::string(std::size_t{17} << 20, ' '));
  const auto p = run_migplan({"place", "1g.10gb", "--current", state.path()});
  CHECK(p.code == 2);
  CHECK(p.err == "migplan: '" + state.path() +
                     "' is larger than 16 MiB, the most place reads of a state file\n");
  // A mig-parted config read for place names no other command.
  std::string bomb = "version: v1\na: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b', prev = 'a'; c <= 'k'; ++c, ++prev)
    bomb += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" +
            prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
  const temp_file config("bomb.yaml", bomb);
  const auto m =
      run_migplan({"place", "1g.10gb", "--current", migplan::test::plan_fixture("kube-nodes.json"),
                   "--mig-config", config.path()});
  INFO(m.err);
  CHECK(m.code == 2);
  CHECK(m.err.find("migplan stops reading it there") != std::string::npos);
  CHECK(m.err.find("check") == std::string::npos);
}

TEST_CASE("a demand list past its limit is refused at the first item too many", "[bounds]") {
  const temp_file yaml("demand.yaml", demand_yaml(100'000));
  const auto r = run_migplan({"plan", "--gpu", "h100-80gb", "--demand", yaml.path()});
  CHECK(r.code == 2);
  CHECK(r.err == "migplan: " + yaml.path() +
                     ":10003: more than 10000 demand items; the most a file may list is 10000\n");
  std::string json_text = R"({"version": 1, "demand": [)";
  for (int i = 0; i < 10'001; ++i)
    json_text += std::string(i == 0 ? "" : ",") + "\n" + R"({"count": 1, "profile": "1g.10gb"})";
  json_text += "]}\n";
  const auto j = parse_demand(builtin_models(), json_text, "d.json", plan_file_format::json);
  REQUIRE(!j);
  CHECK(j.error().message ==
        "d.json:10002: more than 10000 demand items; the most a file may list is 10000");
  // The limit itself is allowed.
  CHECK(parse_demand(builtin_models(), demand_yaml(10'000), "d.yaml", plan_file_format::yaml));
}

TEST_CASE("a list under another key is not held to the demand limit", "[bounds]") {
  std::string text = "version: 1\ncomment: [";
  for (int i = 0; i < 10'001; ++i) text += i == 0 ? "x" : ", x";
  text += "]\ndemand:\n  - {count: 1, profile: 1g.10gb}\n";
  const auto r = parse_demand(builtin_models(), text, "d.yaml", plan_file_format::yaml);
  if (!r) CHECK(r.error().message.find("more than 10000") == std::string::npos);
}

TEST_CASE("yaml aliases are expanded within the reader's budget", "[bounds]") {
  const auto r =
      parse_demand(builtin_models(),
                   "version: 1\nitem: &i {count: 2, profile: 1g.10gb}\ndemand:\n  - *i\n  - *i\n",
                   "d.yaml", plan_file_format::yaml);
  REQUIRE(!r);  // 'item' is no key of a demand file: the alias was read as its mapping
  CHECK(r.error().message.rfind("d.yaml:2: unknown key 'item'", 0) == 0);
  const auto ok = parse_demand(
      builtin_models(),
      "version: 1\ndemand:\n  - &i {name: a, count: 2, profile: 1g.10gb}\n  - {name: b, count: 3, "
      "profile: &p 3g.40gb}\n  - {count: 1, profile: *p}\n",
      "d.yaml", plan_file_format::yaml);
  REQUIRE(ok);
  REQUIRE(ok->size() == 3);
  CHECK((*ok)[2].profile == "3g.40gb");
}

TEST_CASE("a message quoting a raw byte of the input stays one line of UTF-8", "[bounds]") {
  // yaml-cpp quotes the byte after a backslash it does not know: the first
  // of the two of an "\xC3\xA9", not UTF-8 alone. (A byte that is not UTF-8
  // in the file is refused before yaml-cpp reads it.)
  const temp_file bad("escape.yaml",
                      "version: 1\ndemand:\n  - {count: 1, profile: \"\\\xc3\xa9\"}\n");
  const auto r = run_migplan({"plan", "--gpu", "h100-80gb", "--demand", bad.path()});
  one_line_error(r);
  CHECK(r.err ==
        "migplan: " + bad.path() + ":3: invalid yaml: unknown escape character: \xEF\xBF\xBD\n");
  const auto j = run_migplan({"plan", "--json", "--gpu", "h100-80gb", "--demand", bad.path()});
  one_line_error(j);
  REQUIRE(valid_utf8(j.out));
  CHECK(json::parse(j.out)["error"]["message"] ==
        bad.path() + ":3: invalid yaml: unknown escape character: \xEF\xBF\xBD");
}

TEST_CASE("a NUL byte in a value leaves the message one line", "[bounds]") {
  using namespace std::string_literals;
  // A NUL inside a quoted scalar, a plain scalar, a JSON string and a JSON key:
  // each reader refuses the file, and the message never splits or carries it.
  const temp_file quoted("nul-q.yaml",
                         "version: 1\ndemand:\n  - {count: 1, profile: \"1g.\0x\"}\n"s);
  const auto q = run_migplan({"plan", "--gpu", "h100-80gb", "--demand", quoted.path()});
  one_line_error(q);
  // Said as a NUL byte where it is, not as yaml-cpp's escape on another line.
  CHECK(q.err == "migplan: cannot read '" + quoted.path() +
                     "': a NUL byte at line 3, column 29: migplan reads text (is the file binary, "
                     "or UTF-16?)\n");
  const temp_file plain("nul-p.yaml", "version: 1\ndemand:\n  - {count: 1, profile: 1g.10\0gb}\n"s);
  one_line_error(run_migplan({"plan", "--gpu", "h100-80gb", "--demand", plain.path()}));
  const temp_file js("nul.json",
                     "{\"version\": 1, \"demand\": [{\"count\": 1, \"profile\": \"1g\0\"}]}"s);
  one_line_error(run_migplan({"plan", "--gpu", "h100-80gb", "--demand", js.path()}));
  const temp_file answer("nul-answer.json", "{\"gpu\0\": 1}"s);
  one_line_error(
      run_migplan({"pack", "--gpu", "h100-80gb", "--current", answer.path(), "1g.10gb"}));
}

TEST_CASE("a message never passes a control byte through", "[bounds]") {
  CHECK(one_line("a\nb\x01\x7f\\c \xff") == "a\\nb\\x01\\x7f\\c \xEF\xBF\xBD");
  CHECK(one_line("already 'a\\tb' clean") == "already 'a\\tb' clean");
  CHECK(each_line("x\x02\ny") == "x\\x02\ny");
}

TEST_CASE("nesting past a parser's limit is said as nesting", "[bounds]") {
  const std::string deep = std::string(3000, '[') + std::string(3000, ']') + "\n";
  const temp_file yaml("deep.yaml", deep);
  const auto y = run_migplan({"check", yaml.path()});
  CHECK(y.code == 2);
  CHECK(y.out.find("bad file") == std::string::npos);
  CHECK(y.out.find(":2:1: error: invalid yaml: values nest more than 500 levels deep, the most "
                   "the yaml parser reads\n") != std::string::npos);
  const temp_file js("deep.json", deep);
  const auto j = run_migplan({"check", js.path()});
  CHECK(j.code == 2);
  CHECK(j.out.find("bad file") == std::string::npos);
  // Valid JSON: what refuses it is the YAML reader mig-parted reads JSON with too.
  CHECK(j.out.find(":2:1: error: json read as yaml, as mig-parted reads it: values nest more "
                   "than 500 levels deep") != std::string::npos);
  const auto d = parse_demand(builtin_models(), deep, "d.yaml", plan_file_format::yaml);
  REQUIRE(!d);
  CHECK(d.error().message == "d.yaml:1: values nest more than 64 levels deep");
}

TEST_CASE("a byte-order mark is skipped on nvidia-smi listings", "[bounds]") {
  const std::string lgi =
      migplan::test::read_file(source_path("data/captures/a100-40gb-lgi-example1.txt"));
  REQUIRE(!lgi.empty());
  const auto plain = run_migplan({"pack", "--gpu", "a100-40gb", "--current", "-"}, lgi);
  const auto bom =
      run_migplan({"pack", "--gpu", "a100-40gb", "--current", "-"}, "\xEF\xBB\xBF" + lgi);
  INFO(bom.err);
  CHECK(plain.code == 0);
  CHECK(bom.code == plain.code);
  CHECK(bom.out == plain.out);
  const std::string lgipp = migplan::test::read_file(source_path("data/captures/a30-lgipp.txt"));
  const temp_file lgipp_file("lgipp.txt", lgipp);
  const std::string lgip = migplan::test::read_file(source_path("data/captures/a30-lgip.txt"));
  const auto imported =
      run_migplan({"import", "--lgip", "-", "--lgipp", lgipp_file.path()}, "\xEF\xBB\xBF" + lgip);
  INFO(imported.err);
  CHECK(imported.code == 0);
}

TEST_CASE("plan says what is wrong with a count or a start on the command line", "[bounds]") {
  const auto neg = run_migplan({"plan", "--gpu", "h100-80gb", "--", "-3x1g.10gb"});
  CHECK(neg.code == 2);
  CHECK(neg.err == "migplan: count -3 must be at least 1\n");
  const auto at = run_migplan({"plan", "--gpu", "h100-80gb", "1g.10gb@3"});
  CHECK(at.code == 2);
  CHECK(at.err ==
        "migplan: '1g.10gb@3' pins a start, which is not taken here: migplan chooses every "
        "instance's start itself; ask for '1g.10gb'\n");
}

TEST_CASE("a mig-parted count past 64 bits is too large, not no number", "[bounds]") {
  const temp_file cfg("huge.yaml",
                      "version: v1\nmig-configs:\n  big:\n    - devices: all\n      mig-enabled: "
                      "true\n      mig-devices:\n        1g.5gb: 99999999999999999999\n");
  const auto r = run_migplan({"check", cfg.path()});
  CHECK(r.code != 0);
  INFO(r.out);
  CHECK(r.out.find(":7:17: error: count of 1g.5gb 99999999999999999999 is too large (at most "
                   "9223372036854775807)\n") != std::string::npos);
  CHECK(r.out.find("must be a whole number") == std::string::npos);
}

TEST_CASE("plan refuses --available and --cost given twice for a model are refused", "[bounds]") {
  const auto a = run_migplan({"plan", "--gpu", "h100-80gb", "--available", "h100-80gb=1",
                              "--available", "h100-80gb=2", "1g.10gb"});
  CHECK(a.code == 2);
  CHECK(a.err == "migplan: --available h100-80gb is given twice\n");
  const auto c = run_migplan(
      {"plan", "--gpu", "h100-80gb", "--cost", "h100-80gb=1", "--cost", "h100-80gb=2", "1g.10gb"});
  CHECK(c.code == 2);
  CHECK(c.err == "migplan: --cost h100-80gb is given twice\n");
  // Two models, one each: fine.
  const auto two = run_migplan({"plan", "--gpu", "h100-80gb", "--gpu", "a100-80gb", "--cost",
                                "h100-80gb=1", "--cost", "a100-80gb=2", "1g.10gb"});
  CHECK(two.code == 0);
}

TEST_CASE("pack --current refuses a JSON answer with a key twice", "[bounds]") {
  const auto answer = run_migplan({"pack", "--json", "--gpu", "a100-40gb", "1g.5gb"});
  REQUIRE(answer.code == 0);
  const std::string doc = answer.out;
  const auto ok = run_migplan({"pack", "--current", "-", "1g.5gb"}, doc);
  CHECK(ok.code == 0);
  // The same answer with its "gpu" given again at the end.
  const std::size_t close = doc.rfind('}');
  REQUIRE(close != std::string::npos);
  const std::string twice =
      doc.substr(0, close) + ",\n\"gpu\": {\"id\": \"a100-80gb\"}\n" + doc.substr(close);
  const auto r = run_migplan({"pack", "--current", "-", "1g.5gb"}, twice);
  CHECK(r.code == 2);
  INFO(r.err);
  CHECK(r.err.rfind("migplan: <stdin>:", 0) == 0);
  CHECK(r.err.find(": key 'gpu' appears twice in one object\n") != std::string::npos);
}

TEST_CASE("an option given an empty value is refused, not taken as left out", "[bounds]") {
  // Each of these ran as if the option were not given ('--current ""': an
  // empty GPU; '--plot ""': no SVG; 'simulate --gpus ""': the static plan's
  // count), a script's unset variable passing silently.
  const std::string pods = MIGPLAN_SOURCE_DIR "/examples/pods.csv";
  const std::string state = MIGPLAN_SOURCE_DIR "/tests/fixtures/place/state.yaml";
  struct probe {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<probe> probes{
      {{"pack", "--gpu", "h100-80gb", "1g.10gb", "--current", ""},
       "--current is empty: expected FILE"},
      {{"pack", "--gpu", "h100-80gb", "1g.10gb", "--plot="}, "--plot is empty: expected FILE"},
      {{"pack", "--gpu", "h100-80gb", "1g.10gb", "--emit", "dra", "--node", ""},
       "--node is empty: expected NAME"},
      {{"place", "1g.10gb", "--current", state, "--allow-moves", ""},
       "--allow-moves is empty: expected K"},
      {{"place", "1g.10gb", "--current", state, "--emit", ""}, "--emit is empty: expected KIND"},
      {{"plan", "--gpu", "h100-80gb", "1g.10gb", "--demand", ""},
       "--demand is empty: expected FILE"},
      {{"plan", "--gpu", "h100-80gb", "1g.10gb", "--current", ""},
       "--current is empty: expected FILE"},
      {{"simulate", "--gpu", "h100-80gb", "--trace", pods, "--gpus", ""},
       "--gpus is empty: expected N"},
      {{"simulate", "--gpu", "h100-80gb", "--trace", pods, "--gpus", "2", "--plot", ""},
       "--plot is empty: expected FILE"},
      {{"check", pods, "--config", ""}, "--config is empty: expected LABEL"},
      {{"emit-config", "--merge", ""}, "--merge is empty: expected FILE"},
      {{"emit-config", "--output", ""}, "--output is empty: expected FILE"},
  };
  for (const probe& p : probes) {
    INFO(Catch::Detail::stringify(p.args));
    const auto r = run_migplan(p.args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "migplan: " + p.message + "\n");
  }
  // With --json the refusal is the error document too.
  const auto j = run_migplan({"plan", "--gpu", "h100-80gb", "1g.10gb", "--json", "--fleet="});
  CHECK(j.code == 2);
  CHECK(nlohmann::json::parse(j.out)["error"]["message"] == "--fleet is empty: expected FILE");
}

TEST_CASE("with --json an unknown command or MIGPLAN_DIAGNOSTICS is a document too", "[bounds]") {
  // doc/json.md: with --json, bad input of any kind, usage errors included,
  // is one error document on stdout; these two left stdout empty.
  const auto command = run_migplan({"pakc", "--json", "1g.5gb"});
  CHECK(command.code == 2);
  CHECK(command.err ==
        "migplan: unknown command 'pakc' (did you mean pack?); 'migplan --help' lists them\n");
  CHECK(nlohmann::json::parse(command.out)["error"]["code"] == "bad_input");
  const auto env = run_migplan({"pack", "--gpu", "h100-80gb", "1g.10gb", "--json"}, "",
                               {"MIGPLAN_DIAGNOSTICS=gihub"});
  CHECK(env.code == 2);
  CHECK(env.err ==
        "migplan: MIGPLAN_DIAGNOSTICS=gihub: expected text or github (did you mean github?)\n");
  CHECK(nlohmann::json::parse(env.out)["error"]["message"] ==
        "MIGPLAN_DIAGNOSTICS=gihub: expected text or github (did you mean github?)");
  // Without --json, stdout stays empty.
  CHECK(run_migplan({"pakc", "1g.5gb"}).out.empty());
}

TEST_CASE("an option that takes one value, given twice, says so in words", "[bounds]") {
  // CLI11's own text was "--gpu: At Most 1 required but received 2".
  const auto gpu = run_migplan({"pack", "--gpu", "h100-80gb", "--gpu", "a100-40gb", "1g.10gb"});
  CHECK(gpu.code == 2);
  CHECK(gpu.out.empty());
  CHECK(gpu.err == "migplan: --gpu is given 2 times; give it once\n");
  const auto emit = run_migplan(
      {"pack", "--gpu", "h100-80gb", "--emit", "nvml", "--emit", "k8s", "--emit", "dra", "1g.5gb"});
  CHECK(emit.err == "migplan: --emit is given 3 times; give it once\n");
  const auto trace = run_migplan({"simulate", "--trace", "a.csv", "--trace", "b.csv", "--json"});
  CHECK(trace.code == 2);
  CHECK(nlohmann::json::parse(trace.out)["error"]["message"] ==
        "--trace is given 2 times; give it once");
}

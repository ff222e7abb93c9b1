// SPDX-License-Identifier: Apache-2.0
// Fuzz target: a `pack --batch -` input, run through the whole command in
// process, as JSON and as --brief, on a100-40gb and (small inputs only, as
// inference tries every model) without --gpu. Besides no crash, hang or
// sanitizer report, the output must keep the README's promises: exit 0, 1 or
// 2 as the answers say; one line per request, naming its input line; each
// JSON line a strict (valid UTF-8) JSON object with schema_version; each
// --brief line five tab-separated fields with no raw control character; past
// the line limit, one last line and a message naming it; and the two formats
// giving the same verdict on every line.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "app.hpp"

namespace {

using nlohmann::json;

// The README's --batch limit on one line, in bytes.
constexpr std::size_t max_line = 65536;

// What a run printed and returned.
struct run_output {
  int code = 0;
  std::string out;
  std::string err;
};

// What the reader must make of an input, worked out here from the README's
// rules (lines end at LF, a CR before it and a leading byte-order mark are
// dropped, '#' starts a comment, items are separated by spaces, tabs and
// commas) without the reader's code.
struct expectation {
  bool empty = false;               // no line at all: "no input", exit 2
  std::vector<long long> requests;  // input line numbers that hold a request
  long long too_long = 0;           // the line over the limit, 0 if none
};

expectation expect(std::string_view input) {
  expectation e;
  e.empty = input.empty();
  long long number = 0;
  std::size_t pos = 0;
  while (pos < input.size()) {
    const std::size_t eol = input.find('\n', pos);
    const std::size_t end = eol == std::string_view::npos ? input.size() : eol;
    std::string_view line = input.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (number == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
    if (line.ends_with('\r')) line.remove_suffix(1);
    // The limit is on the line without its byte-order mark and CR.
    if (line.size() > max_line) {
      e.too_long = number;
      break;
    }
    line = line.substr(0, line.find('#'));
    if (line.find_first_not_of(" \t,\r") != std::string_view::npos) e.requests.push_back(number);
  }
  return e;
}

// The bytes as a C string literal body, at most `limit` of them.
std::string escaped(std::string_view s, std::size_t limit = 400) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < limit; ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (s[i] == '"' || s[i] == '\\') {
      out += '\\';
      out += s[i];
    } else if (u < 0x20 || u >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += s[i];
    }
  }
  if (s.size() > limit) out += "...";
  return out;
}

std::string joined(const std::vector<std::string>& args) {
  std::string out;
  for (std::size_t i = 1; i < args.size(); ++i) out += (i > 1 ? " " : "") + args[i];
  return out;
}

[[noreturn]] void fail(std::string_view input, const std::vector<std::string>& args,
                       const run_output& r, const std::string& what) {
  std::fprintf(stderr,
               "fuzz_batch: %s\n  command: migplan %s\n  input (%zu bytes): \"%s\"\n"
               "  exit code: %d\n  stdout: \"%s\"\n  stderr: \"%s\"\n",
               what.c_str(), joined(args).c_str(), input.size(), escaped(input).c_str(), r.code,
               escaped(r.out, 2000).c_str(), escaped(r.err).c_str());
  std::abort();
}

run_output run(std::string_view input, const std::vector<std::string>& args) {
  std::istringstream in{std::string(input)};
  std::ostringstream out, err;
  migplan::cli::context ctx{out, err, in, false};
  run_output r;
  r.code = migplan::cli::run(args, ctx);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// One output line as both formats agree on it.
struct verdict {
  long long line = 0;
  std::string kind;          // fits, no_fit or error
  std::string gpu;           // "-" for an error
  std::string layout_count;  // "0" unless it fits
  std::string reason;        // the reason code of a no_fit
};

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  for (std::size_t at; (at = s.find(sep, pos)) != std::string_view::npos; pos = at + 1)
    out.push_back(s.substr(pos, at - pos));
  out.push_back(s.substr(pos));
  return out;
}

// A run and its output lines as verdicts.
struct checked_run {
  run_output r;
  std::vector<verdict> verdicts;
};

// Checks what every run must satisfy and returns its lines as verdicts.
checked_run check_run(std::string_view input, const std::vector<std::string>& args, bool brief,
                      const expectation& e) {
  const run_output r = run(input, args);
  const auto bad = [&](const std::string& what) { fail(input, args, r, what); };
  if (r.code != 0 && r.code != 1 && r.code != 2) bad("exit code is not 0, 1 or 2");
  if (!r.err.empty() && !r.err.starts_with("migplan: ")) bad("stderr does not start 'migplan: '");
  if (!r.out.empty() && r.out.back() != '\n') bad("stdout does not end with a newline");
  std::vector<std::string_view> lines;
  if (!r.out.empty()) {
    lines = split(std::string_view(r.out).substr(0, r.out.size() - 1), '\n');
  }
  const std::size_t want_lines = e.requests.size() + (e.too_long != 0 ? 1 : 0);
  if (lines.size() != want_lines)
    bad("expected " + std::to_string(want_lines) + " output lines (" +
        std::to_string(e.requests.size()) + " requests" + (e.too_long ? " and a limit line" : "") +
        "), got " + std::to_string(lines.size()));

  std::vector<verdict> verdicts;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view text = lines[i];
    const std::string where = "output line " + std::to_string(i + 1) + " ";
    verdict v;
    if (brief) {
      for (const char c : text)
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == '\x7f')
          bad(where + "holds a raw control character");
      const auto f = split(text, '\t');
      if (f.size() != 5) bad(where + "does not have exactly 4 tabs");
      v.line = std::atoll(std::string(f[0]).c_str());
      if (f[0] != std::to_string(v.line)) bad(where + "does not start with a line number");
      v.gpu = f[1];
      v.kind = f[2];
      v.layout_count = f[3];
      if (v.kind == "no_fit") v.reason = f[4];
      if (v.kind != "fits" && v.kind != "no_fit" && v.kind != "error")
        bad(where + "has a third field other than fits, no_fit or error");
      if ((v.kind == "error") != (v.gpu == "-")) bad(where + "names no gpu but is no error");
    } else {
      const json j = json::parse(text, nullptr, false);
      if (j.is_discarded()) bad(where + "is not valid JSON (or not valid UTF-8)");
      if (!j.is_object() || !j.contains("schema_version") || j["schema_version"] != 1)
        bad(where + "is not an object with schema_version 1");
      if (!j.contains("line") || !j["line"].is_number_integer())
        bad(where + "has no integer \"line\"");
      v.line = j["line"].get<long long>();
      if (j.contains("error")) {
        const json& err = j["error"];
        if (!err.is_object() || !err.contains("code") || !err.contains("message") ||
            !err["message"].is_string())
          bad(where + "has an error without code and message");
        v.kind = "error";
        v.gpu = "-";
        v.layout_count = "0";
      } else {
        if (!j.contains("feasible") || !j["feasible"].is_boolean() || !j.contains("layout_count") ||
            !j["layout_count"].is_number_unsigned() || !j.contains("gpu") ||
            !j["gpu"].contains("id") || !j["gpu"]["id"].is_string())
          bad(where + "is an answer without gpu.id, feasible and layout_count");
        v.kind = j["feasible"].get<bool>() ? "fits" : "no_fit";
        v.gpu = j["gpu"]["id"].get<std::string>();
        v.layout_count = std::to_string(j["layout_count"].get<unsigned long long>());
        if (v.kind == "no_fit") {
          if (!j.contains("reason") || !j["reason"].is_object() || !j["reason"].contains("code") ||
              !j["reason"]["code"].is_string())
            bad(where + "does not fit but has no reason code");
          v.reason = j["reason"]["code"].get<std::string>();
        }
      }
    }
    if ((v.kind == "fits") == (v.layout_count == "0"))
      bad(where + "has a layout count that contradicts its verdict");
    const long long want =
        i < e.requests.size() ? e.requests[i] : e.too_long;  // the limit line comes last
    if (v.line != want)
      bad(where + "names line " + std::to_string(v.line) + ", expected " + std::to_string(want));
    verdicts.push_back(v);
  }

  // The README's exit code: 2 if any line was bad input (or there was no
  // input, or a limit was hit), else 1 if any request did not fit, else 0.
  bool any_error = e.empty || e.too_long != 0, any_no_fit = false;
  for (const verdict& v : verdicts) {
    any_error = any_error || v.kind == "error";
    any_no_fit = any_no_fit || v.kind == "no_fit";
  }
  const int want_code = any_error ? 2 : any_no_fit ? 1 : 0;
  if (r.code != want_code)
    bad("exit code " + std::to_string(r.code) + ", expected " + std::to_string(want_code));
  if (e.empty && r.err.find("no input") == std::string::npos)
    bad("an empty input does not say 'no input'");
  if (e.too_long != 0) {
    const std::string limit = "line " + std::to_string(e.too_long) + " is longer than " +
                              std::to_string(max_line) + " bytes";
    if (verdicts.empty() || verdicts.back().kind != "error" ||
        lines.back().find(limit) == std::string_view::npos)
      bad("the last output line does not name the line limit");
    if (r.err.find(limit) == std::string::npos) bad("stderr does not name the line limit");
  }
  return {r, verdicts};
}

// Runs the input as JSON and as --brief with the same gpu arguments and
// checks both formats give the same verdict on every line.
void check_both(std::string_view input, const std::vector<std::string>& gpu_args,
                const expectation& e) {
  std::vector<std::string> args{"migplan", "pack"};
  args.insert(args.end(), gpu_args.begin(), gpu_args.end());
  args.insert(args.end(), {"--batch", "-"});
  const checked_run as_json = check_run(input, args, false, e);
  args.push_back("--brief");
  const checked_run as_brief = check_run(input, args, true, e);
  // Both runs printed one line per request, so the line counts agree.
  for (std::size_t i = 0; i < as_json.verdicts.size(); ++i) {
    const verdict& a = as_json.verdicts[i];
    const verdict& b = as_brief.verdicts[i];
    if (a.kind != b.kind || a.gpu != b.gpu || a.layout_count != b.layout_count ||
        a.reason != b.reason) {
      std::fprintf(stderr, "fuzz_batch: as JSON: stdout \"%s\"\n",
                   escaped(as_json.r.out, 2000).c_str());
      fail(input, args, as_brief.r,
           "JSON and --brief disagree on output line " + std::to_string(i + 1) + ": JSON " +
               a.kind + " " + a.gpu + " " + a.layout_count + " " + a.reason + ", --brief " +
               b.kind + " " + b.gpu + " " + b.layout_count + " " + b.reason);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Room for one line over the limit, and a bound on the work per input.
  if (size > max_line + 1024) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const expectation e = expect(input);
  check_both(input, {"--gpu", "a100-40gb"}, e);
  if (size < 512) check_both(input, {}, e);
  return 0;
}

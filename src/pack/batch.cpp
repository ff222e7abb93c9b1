// SPDX-License-Identifier: Apache-2.0
#include "pack/batch.hpp"

#include <fmt/format.h>

#include <string_view>
#include <variant>
#include <vector>

#include "io/request.hpp"
#include "io/source.hpp"
#include "pack/session.hpp"

namespace migplan::cli::pack {

batch_result run_batch(model_list models, std::istream& in, const gpu_model* gpu, bool brief,
                       bool all, pack_batch_sink& sink) {
  line_reader lines(in, max_batch_line);
  session s(models, all);
  batch_result r;
  std::string line;
  const auto fail = [&](const std::string& message, const pack_ambiguity* amb) {
    sink.failure(lines.number(), message, amb);
    r.bad_input = true;
  };
  for (;;) {
    // Answer what has been read before waiting for more: a program that
    // writes one request and waits gets its answer.
    if (!sink.flush(!lines.ready())) {
      r.output_lost = true;
      return r;
    }
    const line_reader::status st = lines.next(line);
    if (st == line_reader::status::end) break;
    if (st == line_reader::status::failed) {
      // A read that fails is no end of the input: before the first line,
      // the input cannot be read at all (one error, as for a missing file);
      // later, the answers so far stand and the rest is bad input.
      r.read_failed = true;
      r.bad_input = true;
      if (lines.number() == 0) {
        r.stopped = lines.failure();
      } else {
        r.stopped = fmt::format("cannot read past line {}: {}; nothing after it is read",
                                lines.number(), lines.failure());
        sink.failure(lines.number() + 1, r.stopped, nullptr);
      }
      break;
    }
    if (st == line_reader::status::too_long || lines.bytes() > max_batch_bytes) {
      r.stopped =
          st == line_reader::status::too_long
              ? fmt::format("line {} is longer than {} bytes; nothing after it is read",
                            lines.number(), max_batch_line)
              : fmt::format("the input is larger than {} bytes; nothing after line {} is read",
                            max_batch_bytes, lines.number());
      fail(r.stopped, nullptr);
      break;
    }
    r.any_input = true;
    const std::size_t hash = line.find('#');
    const std::vector<std::string> words = split_items(std::string_view(line).substr(0, hash));
    if (words.empty()) continue;
    auto tokens = parse_items(words);
    if (!tokens) {
      fail(tokens.error().message, nullptr);
      continue;
    }
    const outcome o = s.answer(gpu, *tokens, !brief);
    if (const auto* e = std::get_if<error>(&o)) {
      fail(e->message, nullptr);
    } else if (const auto* amb = std::get_if<pack_ambiguity>(&o)) {
      fail({}, amb);
    } else {
      const pack_answer& a = std::get<pack_answer>(o);
      sink.answer(lines.number(), a);
      r.no_fit = r.no_fit || !a.sol.feasible();
    }
  }
  r.output_lost = !sink.flush(true);
  return r;
}

std::string batch_result::problem(std::string_view name) const {
  if (!stopped.empty())
    return read_failed && !any_input ? fmt::format("cannot read --batch '{}': {}", name, stopped)
                                     : stopped;
  if (empty() && !output_lost)
    return fmt::format("--batch {}: no input (the file or stream was empty)", name);
  return {};
}

}  // namespace migplan::cli::pack

// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan pack`'s outputs: the text report with its slice diagram, the JSON
// document of `--json`, and the per-line forms of `--batch` (a JSON line, or a
// tab-separated line with `--brief`).

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

#include "diagnostic.hpp"
#include "model/pack.hpp"

namespace migplan::cli::render {

/// The report: gpu, request, verdict, then the preferred layout (every layout
/// with `all`) with its diagram, or the reason and closest fits.
void pack_text(std::ostream& os, const pack_answer& a, bool all, bool color);

/// The answer as one indented JSON document (schema_version 1).
void pack_json(std::ostream& os, const pack_answer& a, bool all);

/// The answer as one compact JSON line with its input `line` number, appended to `out`.
void pack_json_line(std::string& out, const pack_answer& a, bool all, int line);

/// Answers on the GPUs of one listing (pack --current): with one answer as
/// pack_text or pack_json; with several, a text section each under a "GPU N"
/// line, or one JSON document per line.
void pack_answers(std::ostream& os, std::span<const pack_answer> answers, bool json, bool all,
                  bool color);

/// Why a request the existing instances block does not fit, naming those
/// whose removal would make room (the service's `blocking`): the message of
/// the JSON reason and of the picture.
std::string pack_blocked_message(const pack_answer& a);

/// Why --emit writes nothing for an answer that does not fit: "does not fit
/// (CODE): SENTENCE; nothing to emit".
std::string pack_no_emit(const pack_answer& a);

/// Why a request got no answer: bad input, or a gpu that must be named.
struct pack_failure {
  std::string_view code;                      ///< "bad_input" or "ambiguous_gpu"
  std::string_view message;                   ///< one sentence (no newline)
  const pack_ambiguity* ambiguity = nullptr;  ///< the candidates, for "ambiguous_gpu"
  const diagnostic* where = nullptr;          ///< a reader's error: its file, line and column
};

/// For stderr: why the gpu is ambiguous, one line per candidate saying what
/// it answers (fits with its layout count and preferred layout, or the reason).
std::string pack_ambiguity_text(const pack_ambiguity& amb);

/// The same in one sentence, for --brief and JSON messages.
std::string pack_ambiguity_sentence(const pack_ambiguity& amb);

/// A failure as one indented JSON document: {"schema_version","error":{...}}.
void pack_error_json(std::ostream& os, const pack_failure& f);

/// A failure as one compact JSON line with its input `line` number.
void pack_error_json_line(std::string& out, int line, const pack_failure& f);

/// The answer as one tab-separated line: line, gpu, fits|no_fit, layout count,
/// then the preferred layout or the reason code.
void pack_brief_line(std::string& out, const pack_answer& a, int line);

/// A failure as one tab-separated line: line, "-", error, 0, message, with
/// the message escaped as clip_token() escapes echoed input (\\, \t, \r, \n, \xNN,
/// invalid UTF-8 as U+FFFD), so that it stays one line of five fields.
void pack_brief_error_line(std::string& out, int line, std::string_view message);

/// `pack --batch`'s answers as JSON lines, or TSV lines with `brief`, kept
/// and written to `out` in blocks of 64 KiB, and before the input would block.
class pack_batch_writer final : public pack_batch_sink {
 public:
  pack_batch_writer(std::ostream& out, bool brief, bool all)
      : out_(out), brief_(brief), all_(all) {}
  void answer(long long line, const pack_answer& a) override;
  void failure(long long line, const std::string& message, const pack_ambiguity* amb) override;
  bool flush(bool before_wait) override;

 private:
  std::ostream& out_;
  bool brief_;
  bool all_;
  std::string kept_;
};

}  // namespace migplan::cli::render

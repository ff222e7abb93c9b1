// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the rows of the boxed nvidia-smi MIG listings. Each line of
// the input becomes a row line inside a well-formed -lgip, -lgi, -lci and
// -lcip table (title, column heading, frames), so the fuzzer spends its time
// on row values rather than on finding the frame syntax. The readers must
// answer or report, never throw or crash.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "io/smi.hpp"

namespace {

using namespace migplan::cli::smi;

constexpr std::string_view frame = "+--------------------------------------------------+\n";

// The table headed by `heading` (title and column heading) holding the input's lines as rows of
// `lines_per_row` lines each.
std::string table(std::string_view heading, std::string_view text, int lines_per_row) {
  std::string out(frame);
  out += heading;
  out += "|==================================================|\n";
  int in_row = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto nl = text.find('\n', pos);
    const std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    out += '|';
    out += line;
    out += "|\n";
    if (++in_row == lines_per_row) {
      out += frame;
      in_row = 0;
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  if (in_row != 0) out += frame;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)read_lgip(
      table("| GPU instance profiles: |\n"
            "| GPU   Name   ID   Instances   Memory   P2P   SM   DEC   ENC |\n"
            "|   Free/Total   GiB   CE   JPEG   OFA |\n",
            text, 2));
  (void)read_lgi(
      table("| GPU instances: |\n"
            "| GPU   Name   Profile  Instance   Placement |\n"
            "|   ID   ID   Start:Size |\n",
            text, 1));
  (void)read_lci(
      table("| Compute instances: |\n"
            "| GPU  GPU  Name  Profile  Instance  Placement |\n"
            "|  Instance  ID  ID  Start:Size |\n"
            "|  ID |\n",
            text, 1));
  (void)read_lcip(
      table("| Compute instance profiles: |\n"
            "| GPU  GPU  Name  Profile  Instances  Exclusive  Shared |\n"
            "|  Instance  ID  Free/Total  SM  DEC  ENC  OFA |\n"
            "|  ID  CE  JPEG |\n",
            text, 2));
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// Replays fuzz corpora as normal tests: `fuzz_replay TARGET DIR...` runs
// the target on every file of the directories given, so what the fuzzer
// found stays fixed. Every target is in this one binary, its entry point
// renamed migplan_fuzz_TARGET by tests/CMakeLists.txt; the libFuzzer builds
// (-DMIGPLAN_FUZZ=ON) keep one binary per target instead.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

extern "C" {
int migplan_fuzz_items(const std::uint8_t* data, std::size_t size);
int migplan_fuzz_check_input(const std::uint8_t* data, std::size_t size);
int migplan_fuzz_batch(const std::uint8_t* data, std::size_t size);
int migplan_fuzz_manifest(const std::uint8_t* data, std::size_t size);
int migplan_fuzz_smi(const std::uint8_t* data, std::size_t size);
int migplan_fuzz_smi_rows(const std::uint8_t* data, std::size_t size);
int migplan_fuzz_demand(const std::uint8_t* data, std::size_t size);
int migplan_fuzz_state(const std::uint8_t* data, std::size_t size);
int migplan_fuzz_model_file(const std::uint8_t* data, std::size_t size);
int migplan_fuzz_trace(const std::uint8_t* data, std::size_t size);
int migplan_fuzz_plan_answer(const std::uint8_t* data, std::size_t size);
}

namespace {

using entry = int (*)(const std::uint8_t*, std::size_t);

struct target {
  std::string_view name;
  entry run;
};

constexpr target targets[] = {
    {"items", migplan_fuzz_items},
    {"check_input", migplan_fuzz_check_input},
    {"batch", migplan_fuzz_batch},
    {"manifest", migplan_fuzz_manifest},
    {"smi", migplan_fuzz_smi},
    {"smi_rows", migplan_fuzz_smi_rows},
    {"demand", migplan_fuzz_demand},
    {"state", migplan_fuzz_state},
    {"model_file", migplan_fuzz_model_file},
    {"trace", migplan_fuzz_trace},
    {"plan_answer", migplan_fuzz_plan_answer},
};

}  // namespace

int main(int argc, char** argv) {
  entry run = nullptr;
  if (argc >= 2)
    for (const target& t : targets)
      if (t.name == argv[1]) run = t.run;
  if (run == nullptr) {
    std::fprintf(stderr, "usage: fuzz_replay TARGET DIR...; TARGET is one of:");
    for (const target& t : targets)
      std::fprintf(stderr, " %.*s", static_cast<int>(t.name.size()), t.name.data());
    std::fprintf(stderr, "\n");
    return 2;
  }
  std::size_t runs = 0;
  for (int i = 2; i < argc; ++i) {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(argv[i]))
      if (e.is_regular_file()) files.push_back(e.path());
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++runs;
    }
  }
  std::printf("replayed %zu inputs\n", runs);
  return runs > 0 ? 0 : 1;
}

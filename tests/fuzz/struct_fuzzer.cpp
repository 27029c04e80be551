// libFuzzer target that mutates the structure of Slang programs rather than their bytes
// (slang_mutator.h): starting from the test suite's programs, it deletes, duplicates,
// swaps and moves statements, renames, retypes, changes generic arguments, attributes,
// literals and parameters, wraps calls in fwd_diff / bwd_diff, swaps function bodies.
// Most results still parse, so they reach checking, lowering, autodiff and the writers.
// The oracle is compile_fuzzer.cpp's (fuzz_compile.h). Each input is compiled to one
// target picked from a hash of its text: SPIR-V mostly, CUDA or GLSL source sometimes;
// SLOPE_FUZZ_TARGET=spirv|cuda|glsl picks it instead (to reproduce or minimize a finding
// of one target).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_compile.h"
#include "tests/fuzz/slang_mutator.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using slope::driver::Target;

Target PickTarget(std::string_view text) {
  static const char* forced = std::getenv("SLOPE_FUZZ_TARGET");
  if (forced != nullptr) {
    if (std::strcmp(forced, "cuda") == 0) return Target::Cuda;
    if (std::strcmp(forced, "glsl") == 0) return Target::Glsl;
    return Target::SpirV;
  }
  uint32_t hash = 2166136261u;  // FNV-1a
  for (char c : text) hash = (hash ^ static_cast<uint8_t>(c)) * 16777619u;
  switch (hash % 8) {
    case 0:
      return Target::Cuda;
    case 1:
      return Target::Glsl;
    default:
      return Target::SpirV;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  slope::fuzz::CompileOrAbort(text, PickTarget(text));
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  // Byte mutations now and then, for the lexer and parser paths in between.
  if (seed % 10 == 0) return LLVMFuzzerMutate(data, size, max_size);
  std::string out;
  if (!slope::fuzz::MutateSlang(std::string_view(reinterpret_cast<const char*>(data), size),
                                max_size, seed / 10, &out)) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2, uint8_t* out,
                                            size_t max_out_size, unsigned int seed) {
  std::string result;
  if (!slope::fuzz::CrossOverSlang(std::string_view(reinterpret_cast<const char*>(data1), size1),
                                   std::string_view(reinterpret_cast<const char*>(data2), size2),
                                   max_out_size, seed, &result)) {
    return 0;
  }
  std::memcpy(out, result.data(), result.size());
  return result.size();
}

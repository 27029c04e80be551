#pragma once
// The SPIR-V optimizer: SPIRV-Tools' passes run on the written module at the level the
// user asked for (-O0 .. -O3). The pass lists never inline and never unroll: Slope's own
// inliner decides what is inlined under its size budget, so compile time and code size
// stay linear in the source.

#include <cstdint>
#include <string>
#include <vector>

namespace slope::targets::spirv {

/// slangc's optimization levels. O1 is the default.
enum class OptLevel : uint8_t { O0, O1, O2, O3 };

/// The SPIRV-Tools pass flags (spirv-opt spelling, e.g. "--eliminate-dead-code-aggressive")
/// run at `level`, in order; empty at O0.
std::vector<std::string> OptimizerPassFlags(OptLevel level);

/// Optimizes `words` in place at `level` (nothing at O0). The input must already be
/// valid (the caller validated it); the result is validated again by the caller. Returns
/// false with `message` set when SPIRV-Tools reports an error.
bool OptimizeSpirv(std::vector<uint32_t>* words, OptLevel level, bool scalar_layout,
                   std::string* message);

}  // namespace slope::targets::spirv

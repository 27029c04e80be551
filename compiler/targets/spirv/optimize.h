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

/// What the pass list depends on besides the level: a few passes of SPIRV-Tools take time
/// quadratic in some dimension of the module, and are left out past a size where that
/// time would dominate the compile.
struct ModuleShape {
  size_t functions = 0;       ///< OpFunction instructions
  size_t largest_switch = 0;  ///< the most targets (cases and default) of one OpSwitch
  size_t words = 0;           ///< the module's size
  /// OpVariable instructions of the Function and Private storage classes: the memory the
  /// local-to-SSA passes work on (`--private-to-local` turns the second into the first).
  /// Unknown (assumed some) unless measured.
  size_t local_variables = SIZE_MAX;
};

/// Past this many functions `--ccp` is left out: the pass walks every constant it has
/// found so far in the module once more for each function (10^4 functions: a second).
constexpr size_t kCcpMostFunctions = 2000;
/// Past this many targets of one OpSwitch `--ssa-rewrite` is left out: its block order
/// rescans a block's successors from the first each time it comes back to the block,
/// quadratic in a switch's cases (10^4 cases: a second). Slope's mem2reg has already put
/// the locals it can in SSA form.
constexpr size_t kSsaRewriteLargestSwitch = 1000;

/// Past this many words (a module 4x the 4,800-line benchmark shader's) each pass of the
/// list walks the whole module, and the list is cut to what a module that Slope's own
/// passes have already cleaned needs: `--ccp` goes (Slope folded the constants), and
/// `--eliminate-local-single-block` and `--eliminate-local-single-store` go, as
/// `--ssa-rewrite` does what they do; `--eliminate-dead-code-aggressive` runs once, last.
/// On a function of 10^4 differentiated lines that takes 1.5 s of the optimizer's 2 s.
constexpr size_t kFullListMostWords = size_t{1} << 18;

/// Past this many words (32x the benchmark shader; 10^4 differentiated lines or
/// 10^4 inlined generic calls) the default level, O1, runs no SPIRV-Tools pass: what it
/// does (locals to SSA, constants, dead code and branches, block merging) Slope's own
/// passes have done, and parsing the module into SPIRV-Tools' IR and the analyses each
/// pass rebuilds take more time than the rest of the compile (autodiff_long_body 10^4:
/// 1.3 s of 3.1 s). O2 and O3, which the user asks for, still run their cut list.
constexpr size_t kDefaultLevelMostWords = size_t{1} << 19;

/// At O1, a module with no Function or Private variables (Slope's mem2reg and scalar
/// replacement left none) gets no pass at all: on the lit suite's shaders that compile
/// alone, the list then changed 16 of 115 modules by a few words (a `dot` of constants,
/// left to the target on purpose; an integer `x * 0`), 0.09% of their size, while it
/// was a third of a small shader's
/// compile and of the 4,800-line benchmark shader's. Slope's writer merges loop headers
/// with their first block and continue blocks with the block before them, writes
/// constant vectors and structs as OpConstantComposite, and leaves out builtins nothing
/// reads (what `--merge-blocks`, `--ccp` and `--eliminate-dead-code-aggressive` found).

/// The shape of the SPIR-V module `words`.
ModuleShape MeasureModule(const std::vector<uint32_t>& words);

/// The SPIRV-Tools pass flags (spirv-opt spelling, e.g. "--eliminate-dead-code-aggressive")
/// run at `level` on a module of `shape`, in order; empty at O0.
std::vector<std::string> OptimizerPassFlags(OptLevel level, const ModuleShape& shape = {});

/// Optimizes `words` in place at `level` (nothing at O0). The input must already be
/// valid (the caller validated it); the result is validated again by the caller. Returns
/// false with `message` set when SPIRV-Tools reports an error.
bool OptimizeSpirv(std::vector<uint32_t>* words, OptLevel level, bool scalar_layout,
                   std::string* message);

}  // namespace slope::targets::spirv

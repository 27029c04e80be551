#include "compiler/targets/spirv/raise.h"

#include <algorithm>
#include <string>

#include "compiler/autodiff/passes.h"
#include "compiler/base/ice.h"
#include "compiler/ir/verifier.h"
#include "compiler/passes/passes.h"

namespace slope::targets::spirv {

const std::vector<std::string_view>& RaisePassNames() {
  autodiff::RegisterPasses();
  // SPIR-V cannot pass resources around: functions that take or return them are
  // inlined, structs holding them split into their members, and every buffer value
  // traced back to its global (legalize-resources reports the ones that cannot be).
  // Then locals become SSA values (block parameters turn into OpPhi), constants fold,
  // the branches they decide go, and what nothing uses any more goes. [unroll] loops
  // whose trip count is now known are unrolled, and the copies folded and cleaned up.
  // First, derivatives: the forward-mode pass writes what `fwd_diff` asks for (skipped
  // when nothing does); then recursion, which no shader target allows, is rejected.
  // GLSL.std.450 has sin, exp, pow, ... for 32-bit floats only: expand-f64-math writes
  // those of doubles as double-precision functions of the module. A very deep call graph
  // is made shallow (inline-call-chains), as the validator's time grows with its square.
  static const std::vector<std::string_view> kNames = {
      "reject-recursion", "mem2reg", "fold", "simplify-cfg", "unroll", "fold", "simplify-cfg",
      "fwd-diff", "bwd-diff",
      "expand-f64-math", "inline-resources", "inline-call-chains", "sroa", "mem2reg", "fold", "simplify-cfg", "legalize-resources", "dce",
      "unroll", "fold", "simplify-cfg", "dce"};
  return kNames;
}

void Raise(ir::Module& module, const AfterPass& after_pass, diag::DiagEngine* diags,
           bool verify_each) {
  passes::Options options;
  options.diags = diags;
  bool uses_fwd_diff =
      std::any_of(module.functions.begin(), module.functions.end(),
                  [](const ir::Function* f) { return f->autodiff.fwd_diff_of != nullptr; });
  bool uses_bwd_diff =
      std::any_of(module.functions.begin(), module.functions.end(),
                  [](const ir::Function* f) { return f->autodiff.bwd_diff_of != nullptr; });
  // The verifier costs about a fifth of a compile when run after each of the list's
  // passes, so by default it runs once, at the end, as compilers do in release builds;
  // `verify_each` (CompileOptions::verify_each_pass; the tools set it from
  // SLOPE_VERIFY_EACH=1, as the test suite does) verifies after every pass and names the
  // pass that broke the IR. slope-opt always verifies after each pass.
  for (std::string_view name : RaisePassNames()) {
    if (name == "fwd-diff" && !uses_fwd_diff) continue;
    if (name == "bwd-diff" && !uses_bwd_diff) continue;
    const passes::PassInfo* pass = passes::FindPass(name);
    SLOPE_ASSERT(pass != nullptr);
    uint32_t errors = diags != nullptr ? diags->ErrorCount() : 0;
    pass->run(module, options);
    if (verify_each) ir::VerifyOrIce(module, std::string(name));
    if (after_pass) after_pass(name, module);
    // Passes free nothing they remove; a derivative of 10^4 functions leaves most of
    // what reverse mode and inlining made behind.
    module.CollectGarbage();
    // A pass that reported an error left valid IR that the target cannot take.
    if (diags != nullptr && diags->ErrorCount() != errors) {
      ir::VerifyOrIce(module, std::string(name));
      return;
    }
  }
  ir::VerifyOrIce(module, "the last pass");
}

}  // namespace slope::targets::spirv

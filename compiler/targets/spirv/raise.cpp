#include "compiler/targets/spirv/raise.h"

#include <string>

#include "compiler/base/ice.h"
#include "compiler/ir/verifier.h"
#include "compiler/passes/passes.h"

namespace slope::targets::spirv {

const std::vector<std::string_view>& RaisePassNames() {
  // Locals become SSA values (block parameters turn into OpPhi), constants fold, the
  // branches they decide go, and what nothing uses any more goes last.
  static const std::vector<std::string_view> kNames = {"mem2reg", "fold", "simplify-cfg", "dce"};
  return kNames;
}

void Raise(ir::Module& module, const AfterPass& after_pass) {
  passes::Options options;
  for (std::string_view name : RaisePassNames()) {
    const passes::PassInfo* pass = passes::FindPass(name);
    SLOPE_ASSERT(pass != nullptr);
    pass->run(module, options);
    ir::VerifyOrIce(module, std::string(name));
    if (after_pass) after_pass(name, module);
  }
}

}  // namespace slope::targets::spirv

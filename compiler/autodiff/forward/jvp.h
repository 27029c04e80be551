#pragma once
// The JVP (forward-mode derivative) of one IR function in split form: the function
// computes its primal result as before and, next to every value that has a
// differential type, that value's tangent.

#include <functional>

#include "compiler/ir/ir.h"
#include "compiler/passes/passes.h"

namespace slope::autodiff::forward {

/// What transcribing one function needs from the rest of the pass.
struct JvpContext {
  ir::Module& module;
  const passes::Options& options;
  /// The split-form JVP of a [Differentiable] callee (declared on first request).
  std::function<ir::Function*(ir::Function*)> jvp_of;
  /// Linearizing for reverse mode: every call of a function with a derivative (custom
  /// ones included) goes through `jvp_of`, which reverse mode answers with a stand-in.
  bool for_reverse = false;
};

/// Declares the split-form JVP of `f`, empty: each parameter of `f` followed by its
/// tangent when its type has a differential (a pointer to the tangent for `inout`/`out`
/// pointers), then, when the result has a differential, a pointer the result's tangent
/// is stored through. It returns `f`'s result.
ir::Function* DeclareJvp(ir::Module& module, const ir::Function* f);

/// Writes the body of `jvp` (made by DeclareJvp(f)): `f`'s blocks, each instruction
/// followed by its tangent by the rule insts.def names for it. A function that is not
/// [Differentiable] gets a body that calls it and gives every tangent output zero.
void BuildJvp(const JvpContext& context, ir::Function* f, ir::Function* jvp);

}  // namespace slope::autodiff::forward

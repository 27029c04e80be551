#pragma once
// Reverse mode through a custom forward derivative. See compiler/autodiff/README.md
// ("Custom forward derivatives in reverse mode").

#include <vector>

#include "compiler/autodiff/reverse/reverse.h"
#include "compiler/ir/ir.h"

namespace slope::autodiff::reverse {

/// Writes the body of `jvp` (declared by forward::DeclareJvp(f), bodiless) from `f`'s
/// custom forward derivative `g` (`[ForwardDerivative(g)]`, DifferentialPair form): the
/// pairs of the arguments are built from the split form's parameters, `g`'s body and
/// the bodies of what it calls are copied in, and the pairs dissolve into their
/// members (struct-typed block parameters are split), so that reverse mode can unzip
/// and transpose it as it does a JVP it linearized itself. Functions made on the way
/// that the caller removes once done are appended to `scratch`. Null after reporting
/// an error (a derivative without a body, or control flow NormalizeControlFlow rejects).
ir::Function* JvpFromCustomForward(const ReverseContext& ctx, ir::Function* f, ir::Function* jvp,
                                   std::vector<ir::Function*>* scratch);

}  // namespace slope::autodiff::reverse

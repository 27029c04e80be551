#pragma once
// Reverse mode: the body of each function lowering made for a `bwd_diff(f)` (marked
// `bwd_diff(@f)`), as linearize -> unzip -> transpose. See compiler/autodiff/README.md.

#include <functional>

#include "compiler/ir/ir.h"
#include "compiler/passes/passes.h"

namespace slope::autodiff::reverse {

/// What writing one backward derivative needs from the rest of the pass.
struct ReverseContext {
  ir::Module& module;
  const passes::Options& options;
  /// The `bwd_diff` form of a callee (declared on first request, written later).
  std::function<ir::Function*(ir::Function*)> bwd_of;
};

/// Writes the body of `bwd` (marked `bwd_diff(@f)`, bodiless): `f`'s custom backward
/// derivative when it has one, else `f` linearized by forward mode (its JVP), split into
/// its primal part (kept, in order) and its linear part (transposed, in reverse order).
void BuildBackward(const ReverseContext& context, ir::Function* bwd);

}  // namespace slope::autodiff::reverse

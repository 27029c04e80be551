#pragma once
// Derivative rules of the `intrinsic` instruction, one per entry of intrinsics.def.

#include <vector>

#include "compiler/ir/builder.h"

namespace slope::autodiff::forward {

/// The tangent of `inst` (an `intrinsic`, already copied into the JVP as `primal`, whose
/// operands there are `args`), given one tangent per operand (none null: zeros stand
/// for operands without one). Null when the intrinsic's result has no derivative.
ir::Value* IntrinsicTangent(ir::Builder& b, const ir::Inst& primal,
                            const std::vector<ir::Value*>& args,
                            const std::vector<ir::Value*>& tangents);

/// False for intrinsics with no derivative at all (rule None of intrinsics.def), whose
/// operand may not carry one.
bool IsDifferentiable(ir::Intrinsic which);

}  // namespace slope::autodiff::forward

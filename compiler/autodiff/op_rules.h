#pragma once
// The derivative rules of every IR instruction and intrinsic, read from the columns of
// ir/insts.def and ir/intrinsics.def: forward mode's DiffRule and reverse mode's
// Transpose, side by side in one table so that no instruction gets one without the
// other (op_rules.cpp checks that they agree when it is compiled). Wave operations
// carry theirs in ir::WaveInfo (sync_ops.def).

#include "compiler/ir/ir.h"

namespace slope::autodiff {

/// The DiffRule column of insts.def.
enum class DiffRule {
  Linear, Product, Quotient, Remainder, Intrinsic, Zero, Convert, Memory, Call, Control, Atomic,
  Wave
};

/// The Transpose column of insts.def.
enum class TransposeRule {
  Sum, Difference, Negate, Scale, Divide, Convert, LaneSum, Concat, Pack, Unpack, Repack,
  Shuffle, Intrinsic, Wave, Load, Store, Address, Call, Control, None
};

/// The DiffRule column of intrinsics.def.
enum class IntrinsicRule { Zero, None, Linear, Product, Chain, Select };

/// The Transpose column of intrinsics.def.
enum class IntrinsicTranspose { Formula, None };

DiffRule DiffRuleOf(ir::Op op);
TransposeRule TransposeRuleOf(ir::Op op);
IntrinsicRule DiffRuleOf(ir::Intrinsic which);
IntrinsicTranspose TransposeRuleOf(ir::Intrinsic which);

}  // namespace slope::autodiff

#include "compiler/autodiff/op_rules.h"

#include "compiler/base/ice.h"

namespace slope::autodiff {

namespace {

// What the columns must agree on: an instruction forward mode applies to tangents
// (DiffRule Linear) is transposed by reverse mode, and one whose results carry no
// derivative (Zero) never is. An intrinsic forward mode applies to tangents (Linear or
// Product) has a transpose formula, and no other has one.
constexpr bool Agree(DiffRule rule, TransposeRule transpose) {
  if (rule == DiffRule::Linear) return transpose != TransposeRule::None;
  if (rule == DiffRule::Zero) return transpose == TransposeRule::None;
  return true;
}

constexpr bool Agree(IntrinsicRule rule, IntrinsicTranspose transpose) {
  bool applied_to_tangents = rule == IntrinsicRule::Linear || rule == IntrinsicRule::Product;
  return applied_to_tangents == (transpose == IntrinsicTranspose::Formula);
}

#define INST(name, mnemonic, flags, rule, transpose)                        \
  static_assert(Agree(DiffRule::rule, TransposeRule::transpose),            \
                "insts.def: " #name "'s DiffRule and Transpose disagree");
#include "compiler/ir/insts.def"
#undef INST

#define INTRINSIC(name, mnemonic, arity, sig, rule, transpose)              \
  static_assert(Agree(IntrinsicRule::rule, IntrinsicTranspose::transpose),  \
                "intrinsics.def: " #name "'s DiffRule and Transpose disagree");
#include "compiler/ir/intrinsics.def"
#undef INTRINSIC

constexpr bool Agree(ir::WaveDiff rule, ir::WaveTranspose transpose) {
  return (rule == ir::WaveDiff::Linear) == (transpose != ir::WaveTranspose::None);
}

#define WAVE(name, mnemonic, arity, sig, rule, transpose)                   \
  static_assert(Agree(ir::WaveDiff::rule, ir::WaveTranspose::transpose),    \
                "sync_ops.def: " #name "'s DiffRule and Transpose disagree");
#include "compiler/ir/sync_ops.def"
#undef WAVE

}  // namespace

DiffRule DiffRuleOf(ir::Op op) {
  switch (op) {
#define INST(name, mnemonic, flags, rule, transpose) \
  case ir::Op::name:                                 \
    return DiffRule::rule;
#include "compiler/ir/insts.def"
#undef INST
  }
  SLOPE_ICE("unknown instruction kind");
}

TransposeRule TransposeRuleOf(ir::Op op) {
  switch (op) {
#define INST(name, mnemonic, flags, rule, transpose) \
  case ir::Op::name:                                 \
    return TransposeRule::transpose;
#include "compiler/ir/insts.def"
#undef INST
  }
  SLOPE_ICE("unknown instruction kind");
}

IntrinsicRule DiffRuleOf(ir::Intrinsic which) {
  switch (which) {
#define INTRINSIC(name, mnemonic, arity, sig, rule, transpose) \
  case ir::Intrinsic::name:                                    \
    return IntrinsicRule::rule;
#include "compiler/ir/intrinsics.def"
#undef INTRINSIC
  }
  SLOPE_ICE("unknown intrinsic");
}

IntrinsicTranspose TransposeRuleOf(ir::Intrinsic which) {
  switch (which) {
#define INTRINSIC(name, mnemonic, arity, sig, rule, transpose) \
  case ir::Intrinsic::name:                                    \
    return IntrinsicTranspose::transpose;
#include "compiler/ir/intrinsics.def"
#undef INTRINSIC
  }
  SLOPE_ICE("unknown intrinsic");
}

}  // namespace slope::autodiff

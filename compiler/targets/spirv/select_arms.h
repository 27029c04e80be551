#pragma once
// If-conversion for the SPIR-V writer: which `if` diamonds are written as OpSelect.
//
// A `?:` chain or an `else if` chain that only picks a value lowers to `if` diamonds
// nested as deep as the chain is long: each arm a block computing a value and branching
// to the merge block, whose parameter receives it. Written as nested OpSelectionMerge
// constructs, such a chain costs the SPIRV-Tools validator (and optimizer) time that
// grows with the cube of its length: 400 arms took seconds. The writer instead writes
// each arm's instructions into the header block and each merge parameter as an
// OpSelect on the header's condition, so the chain becomes one straight-line block.
//
// A diamond `if %c, ^t, ^e, merge ^m` is converted when
//   - ^t and ^e are distinct blocks entered only from the header, neither is ^m, and
//     no structured header names either as its merge or continue block;
//   - each arm is side-effect free and cheap to run unconditionally: instructions that
//     compute values (no memory access, no call, no integer division), and at most
//     kMaxArmInsts of them outside the diamonds nested in it, which are converted too;
//   - each arm ends, through such nested diamonds, in a `br ^m(...)`, and ^m has exactly
//     those two predecessors and is named by this header only;
//   - every parameter of ^m is a scalar or a vector (OpSelect of SPIR-V 1.3).
// Both arms then run on every path; only instructions whose result is merely unused
// when the condition picks the other side are admitted, so behaviour does not change.

#include <cstddef>
#include <unordered_map>
#include <utility>

#include "compiler/ir/ir.h"

namespace slope::targets::spirv {

/// Arm instructions allowed outside nested converted diamonds.
inline constexpr size_t kMaxArmInsts = 64;

/// The diamonds of one function that the writer writes as OpSelect.
struct SelectPlan {
  /// Each converted header with the last block of its then arm and of its else arm
  /// (the blocks whose `br` passes the merge block's arguments).
  std::unordered_map<const ir::Block*, std::pair<const ir::Block*, const ir::Block*>> arms;
  /// Each block written inside another one (an arm's block, a converted merge block),
  /// with the block that is written with its own label and holds it.
  std::unordered_map<const ir::Block*, const ir::Block*> owner;

  bool Converted(const ir::Block* b) const { return arms.count(b) != 0; }
  bool Absorbed(const ir::Block* b) const { return owner.count(b) != 0; }
};

/// Plans the if-conversion of `f`'s reachable blocks; linear in the function's size.
SelectPlan PlanSelects(const ir::Function& f);

}  // namespace slope::targets::spirv

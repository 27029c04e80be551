#pragma once
// Block merging for the SPIR-V writer: which blocks of a loop are written inside the
// block before them, as SPIRV-Tools' `--merge-blocks` would merge them afterwards.
//
// Slope's IR keeps a loop's header apart from its first body block (the header ends in
// `loop ^body, merge ^m, continue ^c`) and its continue block apart from the body's end.
// Written as they are, every loop costs two extra blocks and branches, which the
// optimizer used to remove at -O1 (a third of its time on a small shader). The writer
// instead writes
//   - the first body block ^b inside the header, with the header's OpLoopMerge before
//     ^b's terminator, when ^b is entered only from the header, has no parameters and
//     ends in a plain `br` or `condbr`;
//   - the continue block ^c inside the block that branches to it, which then becomes
//     the loop's continue target, when ^c is entered only through one plain `br` and
//     has no parameters, and that block is not the loop's header, not another
//     construct's merge block or continue target, and not a header itself.
// Blocks that the if-conversion (select_arms.h) or the else-chain loops (else_chains.h)
// treat specially are left as they are.

#include <unordered_map>

#include "compiler/ir/ir.h"
#include "compiler/targets/spirv/else_chains.h"
#include "compiler/targets/spirv/select_arms.h"

namespace slope::targets::spirv {

struct MergePlan {
  /// Each loop header whose first body block is written inside it, with that block.
  std::unordered_map<const ir::Block*, const ir::Block*> header_body;
  /// Each block whose `br` to a continue block is replaced by that block's contents.
  std::unordered_map<const ir::Block*, const ir::Block*> continue_after;
  /// Each block written inside another one, with the block written with its own label
  /// (the loop header, or the block holding the continue block's predecessor).
  std::unordered_map<const ir::Block*, const ir::Block*> owner;

  bool Absorbed(const ir::Block* b) const { return owner.count(b) != 0; }
};

/// Plans the merges of `f`'s blocks given the writer's other plans; linear in its size.
MergePlan PlanMerges(const ir::Function& f, const SelectPlan& selects, const ChainPlan& chains);

}  // namespace slope::targets::spirv

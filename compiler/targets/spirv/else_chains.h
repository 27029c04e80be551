#pragma once
// Flat `else if` chains for the SPIR-V writer.
//
// `if (c0) A0 else if (c1) A1 else if ... else An` lowers to `if` headers nested as deep
// as the chain is long: header k's else block is header k+1, and each merge block k+1
// only branches on to merge block k. The SPIRV-Tools validator checks such nesting in
// time that grows with the cube of its depth (a minute at 1000 arms), so arms with side
// effects (those select_arms.h cannot turn into OpSelect) need another shape. The writer
// writes a chain of at least kMinChain headers as a loop that runs once, each arm
// breaking out of it, as C's `do { if (c0) { A0; break; } if (c1) { A1; break; } ...
// An; } while (false)` would be:
//
//   H0:  (H0's instructions)            OpBranch L
//   L:   OpLoopMerge M0 C               OpBranch B
//   B:   OpSelectionMerge H1            OpBranchConditional c0 A0 H1
//   A0:  ...                            OpBranch M0        (was M1 ... through M0)
//   H1:  (H1's instructions)            OpSelectionMerge H2, OpBranchConditional c1 A1 H2
//   ...
//   C:   OpBranch L                     (the continue block; unreachable)
//   M0:  OpPhi over every arm's end     (the merge blocks M1.. are not written)
//
// Every selection construct is one arm, not the rest of the chain. Conditions are still
// computed in order, each only when the ones before it failed.
//
// A chain is taken when each header's then block and the last else block begin a
// single-entry region whose ways out are its merge block and `br`s to an enclosing
// loop's merge or continue block or switch's merge (`break`, `continue`), and each merge
// block after the first holds nothing but a `br` to the one before.
//
// A `break` or `continue` inside the loop that runs once would leave two loops, which
// SPIR-V forbids; such an arm breaks out of the chain's loop instead, to a dispatch
// block D that then takes the branch the arm meant, as flags would:
//
//   D:   OpPhi (the exit block's parameters, a selector: 0 for the exit, j for foreign
//        target j, each foreign target's parameters; OpUndef where an edge has none)
//        OpSelectionMerge N1, OpBranchConditional (selector == 1) X1 N1
//   X1:  OpBranch T1                    (the enclosing loop's merge, say)
//   N1:  ... the next target ...        the last selection merges at the exit block
//
// The dispatch block also defines the parameters of dropped merge blocks that are used
// past the chain, which those blocks dominated (the arms before them all left): with no
// foreign target, it only branches on to the exit block.

#include <cstddef>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/targets/spirv/select_arms.h"

namespace slope::targets::spirv {

/// Shorter chains keep their nested form.
inline constexpr size_t kMinChain = 8;

/// The `else if` chains of one function that the writer flattens.
struct ChainPlan {
  struct Chain {
    std::vector<const ir::Block*> headers;  ///< H0 .. Hn-1: each `if`'s else block is the next
    const ir::Block* exit = nullptr;       ///< H0's merge block, the loop's merge
    /// Every edge into the chain's merge blocks from an arm: block and edge index.
    std::vector<std::pair<const ir::Block*, size_t>> exits;
    /// The values the loop's merge defines: the exit block's parameters, then those of
    /// dropped merge blocks used past the chain (where such a block dominated the use).
    std::vector<const ir::Value*> defined;
    /// For each exit, the values it brings to `defined`: its own arguments as the merge
    /// blocks between would have passed them on. Shorter than `defined` for an exit
    /// that does not pass the dropped block of a value (it never reaches that use).
    std::vector<std::vector<const ir::Value*>> exit_values;
    /// Blocks outside the chain that its arms `br` to (an enclosing loop's merge or
    /// continue block, a switch's merge), in the order first seen.
    std::vector<const ir::Block*> foreign_targets;
    /// The arm blocks whose `br` goes to a foreign target, with that target's index.
    std::vector<std::pair<const ir::Block*, size_t>> foreign_exits;
    /// True when the loop's merge is a dispatch block before the exit block: the arms
    /// leave for foreign targets, or values of dropped merge blocks need defining.
    bool Dispatched() const {
      return !foreign_targets.empty() || defined.size() > exit->params.size();
    }
  };
  std::vector<Chain> chains;
  /// Each chain header, with its chain's index.
  std::unordered_map<const ir::Block*, size_t> header_chain;
  /// Each chain's exit block, with the chain's index.
  std::unordered_map<const ir::Block*, size_t> exit_chain;
  /// The merge blocks after each chain's first, which are not written, with its exit.
  std::unordered_map<const ir::Block*, const ir::Block*> dropped;
  /// Arm blocks whose `br` the writer sends to their chain's dispatch block (chains with
  /// foreign exits): those leaving for a foreign target or for the exit block, with
  /// the chain's index.
  std::unordered_map<const ir::Block*, size_t> to_dispatch;
};

/// Finds the chains of `f` to flatten among the `if`s that `selects` keeps.
ChainPlan PlanChains(const ir::Function& f, const SelectPlan& selects);

}  // namespace slope::targets::spirv

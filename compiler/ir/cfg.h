#pragma once
// Control-flow facts about a function: the edges a terminator makes, the block arguments
// each edge carries, predecessors and the dominator tree of the reachable blocks. Passes
// and the verifier share these so that every stage agrees on what an edge is.
//
// Edges: `br` has one (to its target), `cond_br` two, `if` two (then, else; the merge
// block it names is not an edge), `loop` one (to the body; merge and continue are not
// edges), `switch` one per target but the last (default, then each case; the merge block
// is not an edge, and several cases may share a target), `ret` and `unreachable` none. Only `br` and `cond_br` edges carry block
// arguments; `cond_br` keeps them after its condition, the true target's first.

#include <cstddef>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/base/pointer_hash.h"
#include "compiler/ir/ir.h"

namespace slope::ir {

/// How many of `term`'s targets are real control-flow edges (its first N targets).
size_t EdgeCount(const Inst& term);

/// True when the edge to `term`'s `index`-th target can carry block arguments.
bool EdgeTakesArgs(const Inst& term);

/// The blocks control may go to from `block`, one entry per edge, in target order.
std::vector<Block*> Successors(const Block& block);

/// The arguments `term` passes along its `index`-th edge (empty for if/loop edges).
std::vector<Value*> EdgeArgs(const Inst& term, size_t index);

/// Replaces every edge's arguments of a `br` or `cond_br` (one list per edge).
void SetEdgeArgs(Inst& term, const std::vector<std::vector<Value*>>& args);

/// One incoming edge of a block: the predecessor and which of its targets it is.
struct Edge {
  Block* from;
  size_t index;
};

/// Incoming edges of every block of `f` (from all blocks, reachable or not), in
/// block order then target order.
std::map<const Block*, std::vector<Edge>> Predecessors(const Function& f);

/// The blocks that name `b` as the merge or continue block of a structured header.
bool IsMergeOrContinueTarget(const Function& f, const Block* b);

/// Dominators of the blocks reachable from the entry block.
class DomTree {
 public:
  explicit DomTree(const Function& f);

  bool IsReachable(const Block* b) const { return index_.count(b) != 0; }
  /// Reachable blocks in reverse post-order (the entry first).
  const std::vector<Block*>& ReversePostOrder() const { return rpo_; }
  /// The immediate dominator; the entry block is its own.
  Block* Idom(const Block* b) const { return rpo_[idom_[index_.at(b)]]; }
  /// The blocks `b` immediately dominates, in reverse post-order.
  const std::vector<Block*>& Children(const Block* b) const;
  /// True when `a` dominates `b` (every block dominates itself); false for unreachable.
  bool Dominates(const Block* a, const Block* b) const;
  /// The dominance frontier of `b`, in reverse post-order.
  std::vector<Block*> Frontier(const Block* b) const;

 private:
  /// Everything is kept by reverse post-order number, the one lookup being index_.
  std::vector<Block*> rpo_;
  std::unordered_map<const Block*, size_t> index_;
  std::vector<size_t> idom_;
  std::vector<std::vector<Block*>> children_;
  std::vector<std::vector<Block*>> frontier_;
  /// Each reachable block's entry and exit numbers in a walk of the dominator tree.
  std::vector<std::pair<size_t, size_t>> interval_;
  std::vector<Block*> no_children_;
};

/// Replaces every use of a key of `replacements` in `f` by its value, following chains
/// (a value replaced by a value that is itself replaced).
void ReplaceUses(Function& f, const std::map<const Value*, Value*>& replacements);
void ReplaceUses(Function& f, const base::PointerMap<Value, Value*>& replacements);

/// The zero of a scalar or vector type: a constant for scalars, otherwise a `splat` of
/// the scalar zero placed in the entry block after the `var`s (reused when present).
Value* ZeroValue(Module& module, Function& f, const Type* type);

}  // namespace slope::ir

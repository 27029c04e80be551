#pragma once
// The state of writing one backward derivative: reverse.cpp walks the JVP and writes the
// forward and reverse sweeps; transpose.cpp gives each linear instruction's transpose,
// by the Transpose column of insts.def (and of intrinsics.def and sync_ops.def).
// Internal to compiler/autodiff/reverse.

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/autodiff/differential.h"
#include "compiler/autodiff/reverse/reverse.h"
#include "compiler/base/pointer_hash.h"
#include "compiler/ir/builder.h"

namespace slope::autodiff::reverse {

using ir::Block;
using ir::Function;
using ir::Inst;
using ir::Op;
using ir::Value;


class Reverser {
 public:
  Reverser(const ReverseContext& context, Function* bwd)
      : ctx_(context), types_(context.module.Types()), bwd_(bwd), b_(context.module) {}

  void Run();

 private:
  struct LoopInfo;
  const ir::Type* Diff(const ir::Type* t) { return DifferentialType(types_, t); }
  void Error(source::SourceLoc loc, const std::string& what) {
    passes::ReportError(ctx_.options, diag::DiagId::NoBackwardDerivative, loc, SourceName(*f_),
                        what);
    failed_ = true;
  }
  Function* Stub(Function* callee);
  void Classify();
  bool Linear(const Value* v) const { return linear_.Contains(v); }
  bool MarkLinear(const Value* v) { return linear_.Insert(v); }
  void UnpackParams();
  void ForwardSweep();
  /// Forward-order walk of the structured region from `start` up to `end` (exclusive;
  /// null: to the `ret`), recording each block in `chain` and each arm's chain in
  /// arm_chain_; with `test_exit`, a loop's test, up to the block whose `cond_br` goes
  /// to `test_exit` (inclusive). False (reported) on a shape reverse mode does not take.
  bool Walk(Block* start, Block* end, std::vector<Block*>* chain, Block* test_exit = nullptr);
  /// Whether `copy` (in loop `info`) loads from a function variable that nothing in the
  /// loop writes or passes on by pointer: the same value in every iteration.
  bool InvariantLoad(const Value* copy, const LoopInfo* info) const;
  /// Records the loop `header` heads (its bound, its test, its body and the loops
  /// around it); false (reported) when it has no bound or another shape.
  bool WalkLoop(Block* header);
  /// At the builder: the tape index of the current iteration of loop `info`. In the
  /// reverse sweep, inside the reverse of `info`, the iteration being reversed;
  /// otherwise, the last one started (in the reverse sweep, the exit pass) of the
  /// iteration of the loops around it being reversed.
  Value* TapeIndex(const LoopInfo* info);
  /// At the builder: a pointer to loop `info`'s iteration counter (for a nested loop,
  /// the one of the current iteration of the loops around it, at tape index `outer`).
  Value* Counter(const LoopInfo* info, Value* outer);
  /// Whether `inst` (a forward-copy float) is formed again in the reverse sweep from
  /// free values and the loop-carried values it adds to `carried`.
  bool Reformable(const Inst* inst, int depth, std::set<const Value*>* carried);
  /// For an exact loop: which header parameter counts, from what, by what step.
  void ProveExact(Block* header, LoopInfo* info);
  /// An exact loop's iteration, from its counting parameter (forward copy).
  Value* ExactIteration(const LoopInfo* info);
  /// Emits the reverse of the loop `info`: its exit pass, then each iteration from the
  /// last to the first.
  void ReverseLoop(const LoopInfo& info);
  void ReverseInsts(Block* block);
  /// The loops being walked, innermost last; Walk adds each block to all of them.
  std::vector<LoopInfo*> walking_;
  /// The chain of blocks of each arm of a selection, by the arm's first block.
  std::map<const Block*, std::vector<Block*>> arm_chain_;
  /// Emits the reverse of the region `chain` (a Walk result) at the builder's block;
  /// leaves the builder in the block that continues after it.
  void ReverseRegion(const std::vector<Block*>& chain);
  void ReverseBlock(Block* block);
  /// A forward-sweep value for use in the reverse sweep: values of blocks that do not
  /// dominate the reverse sweep (inside if/switch arms) go through a `var`, those of
  /// loop blocks through a per-iteration array, unless Recomputed gives them again.
  Value* Spilled(Value* copy);
  /// `copy` computed again at the builder's position in the reverse sweep instead of
  /// kept: a load of read-only memory (a StructuredBuffer, a uniform or push constant)
  /// and the pointer it reads through, `detach` of such a value, and the result of a
  /// call of a [PreferRecompute] function that takes no pointer; null for the rest.
  /// Operands come through Spilled (kept, or recomputed in turn).
  Value* Recomputed(Value* copy);
  /// Whether `copy` can be formed again in the reverse sweep without storing anything:
  /// a constant, a global, a value of a block that dominates the end, a loop's
  /// induction variable (start plus iteration times step), a load of read-only memory,
  /// or integer and boolean arithmetic on such values (indices, counters, tests).
  bool Free(const Value* copy, int depth = 0);
  /// At the builder: the number of the iteration of loop `info` (not clamped): in the
  /// reverse sweep, inside the reverse of `info`, the one being reversed; otherwise the
  /// last one started.
  Value* Iteration(const LoopInfo* info);
  /// Finds the induction variables of the loops (header parameters that start at a
  /// value set before the loop and grow by a constant each iteration).
  void FindInductions();
  /// Whether `ptr` (a forward-sweep pointer) is an element or member path into a
  /// global nothing writes: a read-only buffer, a uniform or a push constant.
  bool ReadOnlyPath(const Value* ptr) const;
  /// Records what Spilled keeps, for -report-checkpoint-intermediates.
  void NoteStored(Value* copy, uint32_t copies);
  /// Reports the records as notes: the function's total, then one per source line.
  void ReportStored();
  void ForwardCall(Inst& call);
  void Transpose(Inst& inst);
  void TransposeIntrinsic(Inst& inst, Value* a);
  /// The transpose of a linear `wave` instruction with result adjoint `a`.
  void TransposeWave(Inst& inst, Value* a);
  /// Emits `wave which` at the builder.
  Inst* WaveOp(ir::WaveOp which, const ir::Type* type, std::vector<Value*> operands);
  /// Emits a loop header at the builder (a new block that branches to `body`, the
  /// loop's first block, with merge `merge` and continue block `cont`) and leaves the
  /// builder in `body`. Returns the header, which `cont` branches back to.
  Block* EnterLoop(Block* body, Block* merge, Block* cont);
  /// Emits `if (cond) { then() }` at the builder and leaves it after.
  void IfThen(Value* cond, const std::function<void()>& then);
  void TransposeCall(Inst& call);
  void WriteGradients();

  Value* P(Value* v);
  Value* Zero(const ir::Type* t) { return ZeroOf(b_, *bwd_, t); }
  /// A `var` of `t` holding zero.
  Inst* ZeroedVar(const ir::Type* t) {
    Inst* var = b_.Var(bwd_, t);
    b_.Store(var, Zero(t));
    return var;
  }
  Value* Adj(Value* v) { return b_.Load(adj_.At(v)); }
  Value* AdjPtr(Value* ptr);
  void AddAdj(Value* v, Value* x);
  void AddToMemory(Value* ptr, Value* x) { b_.Store(ptr, Add(b_.Load(ptr), x)); }
  /// a + b for differential values (member by member for structs and arrays).
  Value* Add(Value* a, Value* c);
  /// The sum of the components of a vector.
  Value* LaneSum(Value* v);
  Value* MatMul(const ir::Type* t, Value* a, Value* c) {
    return b_.CallIntrinsic(ir::Intrinsic::MatMul, t, {a, c});
  }
  Value* Transposed(Value* m) {
    const ir::Type* t = m->GetType();
    return b_.CallIntrinsic(ir::Intrinsic::Transpose, types_.Matrix(t->Scalar(), t->Cols(), t->Count()), {m});
  }
  /// The matrix whose row i is `u[i] * v`.
  Value* Outer(Value* u, Value* v);

  const ReverseContext& ctx_;
  ir::TypeTable& types_;
  Function* bwd_;
  Function* f_ = nullptr;
  Function* jvp_ = nullptr;
  ir::Builder b_;
  bool failed_ = false;
  std::map<const Function*, Function*> stub_of_;   ///< callee -> stand-in for its JVP
  std::map<const Function*, Function*> stubs_;     ///< stand-in -> callee
  base::PointerSet<Value> linear_;
  base::PointerMap<Value, Value*> primal_;              ///< JVP primal value -> its copy
  base::PointerMap<Value, Value*> adj_;                 ///< linear JVP value -> its adjoint var
  base::PointerMap<Value, Value*> adj_ptr_;             ///< linear JVP pointer -> adjoint memory
  std::map<const Block*, std::vector<Inst*>> reverse_;  ///< linear instructions per block
  std::map<const Block*, Block*> forward_;         ///< JVP block -> its forward copy
  std::set<const Block*> top_level_;               ///< forward blocks dominating the end
  std::map<const Value*, Value*> spills_;          ///< forward value -> its var
  Block* ret_block_ = nullptr;                     ///< the forward block that branches back
  bool in_reverse_ = false;
  /// A loop bounded by [MaxIters(n)] or a proved trip count: its blocks and its
  /// per-iteration storage. A value of a loop nested in others is kept at the index
  /// combining every enclosing loop's iteration: (((i1 * (n2 + 1)) + i2) * (n3 + 1)) +
  /// i3, each i clamped to its loop's bound n (so never out of bounds).
  struct LoopInfo {
    Block* header = nullptr;          ///< JVP blocks
    std::vector<Block*> test;         ///< from the loop's first block to `cond`
    Block* cond = nullptr;            ///< the block ending in the cond_br that leaves
    Block* cont = nullptr;            ///< the continue block
    std::vector<Block*> body;         ///< from the cond_br's true target to `cont`
    std::vector<Block*> all;          ///< every block of the loop, arms included
    uint32_t bound = 0;               ///< [MaxIters]
    const LoopInfo* parent = nullptr; ///< the loop around it
    uint64_t entries = 0;             ///< tape entries: (bound + 1) times the parent's
    /// var: iterations started, counted forward; for a nested loop, an array with one
    /// counter per entry of the parent's tape. Null for a loop that always runs `trips`
    /// times (`exact`): its iteration is (i - start) / step of its induction variable.
    Inst* iter = nullptr;
    bool exact = false;               ///< runs exactly `trips` times whenever entered
    uint32_t trips = 0;
    size_t counter_param = 0;         ///< the header parameter counting (when exact)
    int64_t start = 0;                ///< its value at entry
    int64_t step = 1;                 ///< what each iteration adds to it
  };
  std::map<const Block*, LoopInfo> loops_;          ///< by JVP header block
  std::map<const Block*, const LoopInfo*> loop_of_; ///< JVP and forward blocks -> innermost loop
  std::map<const Block*, Value*> forward_index_;   ///< forward loop block -> its tape index
  /// The loops being reversed, with the tape index of the iteration being reversed.
  std::map<const LoopInfo*, Value*> reverse_index_;
  /// The same loops, with the number of the iteration being reversed.
  std::map<const LoopInfo*, Value*> reverse_iter_;
  /// An induction variable: its loop, the JVP value it starts at, its step.
  struct Induction {
    const LoopInfo* loop = nullptr;
    Value* start = nullptr;
    int64_t step = 0;
  };
  std::map<const Value*, Induction> inductions_;   ///< forward-copy header param -> it
  std::map<const Value*, bool> free_;              ///< Free's answers
  std::map<const Value*, Inst*> tapes_;            ///< forward value -> array var
  /// What the forward sweep keeps for the reverse one: where, how many bytes, what.
  struct Stored {
    source::SourceLoc loc;
    uint64_t bytes = 0;
    std::string what;
  };
  std::vector<Stored> stored_;
  std::map<const Inst*, std::map<size_t, Value*>> saved_inout_;  ///< call -> param -> input
  /// Per parameter of f: how the backward function takes it.
  enum class ParamKind { Plain, Pair, InOutPair, OutGradient };
  std::vector<ParamKind> kinds_;
  std::vector<size_t> jvp_index_;                  ///< f param -> its JVP param
  Value* result_slot_ = nullptr;                   ///< the JVP's result tangent pointer
};

}  // namespace slope::autodiff::reverse

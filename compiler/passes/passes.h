#pragma once
// The IR passes. Each is a free function over a module, listed once in passes.def; a
// pass keeps the module valid (the verifier runs after each one in slope-opt, slopec and
// the tests). A target's "raise" list (targets/spirv/raise.h) says which run, in order.

#include <string>
#include <string_view>
#include <vector>

#include "compiler/base/ice.h"
#include "compiler/diag/diag.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/type_walk.h"

namespace slope::passes {

/// Settings every pass receives.
struct Options {
  /// inline: callees of at most this many instructions (terminators included) are
  /// inlined; `forceinline` functions always are.
  size_t inline_threshold = 32;
  /// unroll: the most instructions the copies of one fully unrolled loop may add.
  size_t unroll_budget = 2048;
  /// inline-call-chains: how deep the call graph may be, as the sum over functions of
  /// the longest chain of calls below each, before single-call functions are inlined.
  size_t call_chain_budget = 100000;
  /// inline-call-chains: how many functions the module may have before single-call
  /// functions are inlined whatever the depth of the call graph.
  size_t call_graph_most_functions = 2000;
  /// Where passes report user errors that only show once the IR is transformed (a
  /// resource that no global can be found for, a [ForceUnroll] loop of unknown trip
  /// count). slopec and slope-opt set it; a pass that reports leaves the IR valid.
  diag::DiagEngine* diags = nullptr;
};

/// Reports a user error found by a pass through `options.diags`.
template <typename... Args>
void ReportError(const Options& options, diag::DiagId id, source::SourceLoc loc,
                 const Args&... args) {
  SLOPE_ASSERT(options.diags != nullptr);
  options.diags->Report(id, loc, args...);
}

using ir::ContainsResource;  // compiler/ir/type_walk.h

/// True when `f` takes or returns a value for which ContainsResource holds.
bool TouchesResources(const ir::Function& f);

/// What a pass did.
struct Result {
  bool changed = false;  ///< false when the module is exactly as it was
};

/// One function per entry of passes.def, e.g. `Result Mem2Reg(ir::Module&, const
/// Options&)`: transforms every function of `module`, leaving it valid for the verifier.
#define PASS(function, name, summary) Result function(ir::Module& module, const Options& options);
#include "compiler/passes/passes.def"
#undef PASS

/// mem2reg on one function (a function a pass is building, not yet in the module's
/// list, or one it rewrote); true when it changed the function.
bool PromoteLocals(ir::Module& module, ir::Function& f);

/// One entry of passes.def.
struct PassInfo {
  const char* name;     ///< the command-line name ("mem2reg")
  const char* summary;  ///< one line for --help
  Result (*run)(ir::Module&, const Options&);
};

/// Runs `run(function)` (true when it changed the function) on every function.
template <typename RunOnFunction>
Result ForEachFunction(ir::Module& module, RunOnFunction run) {
  Result result;
  for (ir::Function* f : module.functions) {
    if (run(*f)) result.changed = true;
  }
  return result;
}

/// Replaces `call` (an instruction of `caller`) by a copy of its callee's body, as the
/// inline pass does, whatever the callee's size; false (and nothing changed) when the
/// callee cannot be copied there: no body, recursion, a call in a loop header, or a
/// `ret` inside one of the callee's loops.
bool InlineCallAt(ir::Module& module, ir::Function& caller, ir::Inst* call);

/// The constant a scalar instruction `op` computes from constant operands (`b` null for
/// unary ones), with fold's semantics; null when it is not folded. Shared by fold and sccp.
const ir::Constant* FoldScalarOp(ir::Module& module, ir::Op op, const ir::Type* result,
                                 const ir::Constant* a, const ir::Constant* b);

/// The constant a component-wise intrinsic computes from one constant lane of each
/// operand, with scalar result type `result`; null when it is left to the target
/// (fold_intrinsic.cpp lists which are folded).
const ir::Constant* FoldIntrinsicLane(ir::Module& module, ir::Intrinsic which,
                                      const ir::Type* result,
                                      const std::vector<const ir::Constant*>& lanes);

/// Every pass, in passes.def order, then the registered ones in registration order.
const std::vector<PassInfo>& AllPasses();

/// Adds a pass defined in a library built on this one (autodiff registers its passes,
/// compiler/autodiff/passes.h) to AllPasses and FindPass; a name already there is not
/// added again. Register before taking references into AllPasses.
void RegisterPass(const PassInfo& pass);

/// The pass called `name`, or null.
const PassInfo* FindPass(std::string_view name);

/// "mem2reg, fold, ...": every pass name, for diagnostics.
std::string PassNames();

}  // namespace slope::passes

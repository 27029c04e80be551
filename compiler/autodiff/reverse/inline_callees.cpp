// Differentiable callees inlined before a function is reversed: see
// compiler/autodiff/README.md ("Calls").

#include <algorithm>
#include <set>
#include <vector>

#include "compiler/autodiff/reverse/normalize.h"
#include "compiler/ir/cfg.h"

namespace slope::autodiff::reverse {

using ir::Block;
using ir::Function;
using ir::Inst;
using ir::Op;

namespace {

bool Inlinable(const Function& callee) {
  // Only derivatives this pass would generate: a custom one, a substitute, no_diff
  // parameters or [PreferRecompute] keep the call (and what they say about it). A callee
  // with early returns stays a call too: its copy would be wrapped in a loop that runs
  // once, which reverse mode would take for a loop without a bound.
  size_t returns = 0;
  for (const Block* b : callee.blocks) {
    if (b->Terminator() != nullptr && b->Terminator()->GetOp() == Op::Return) ++returns;
  }
  return returns == 1 && callee.autodiff.differentiable && !callee.blocks.empty() &&
         callee.autodiff.custom_bwd == nullptr && callee.autodiff.custom_fwd == nullptr &&
         callee.autodiff.primal_substitute == nullptr && callee.autodiff.fwd_diff_of == nullptr &&
         callee.autodiff.bwd_diff_of == nullptr && callee.autodiff.no_diff_params.empty() &&
         callee.autodiff.ptr_params.empty() && !callee.autodiff.prefer_recompute &&
         !callee.autodiff.zero_derivative && !callee.is_entry;
}

}  // namespace

Function* InlineCallees(ir::Module& module, Function* f) {
  // A call's backward derivative runs the callee's forward sweep again, after the
  // caller's forward sweep ran the callee once for its result: each level of calls
  // would add one more evaluation of everything below it (a 3-layer MLP whose layers
  // are calls ran each layer three times). A call outside the caller's loops is
  // replaced by the callee's body, so one forward sweep keeps what the whole reverse
  // sweep needs. Calls inside a loop stay calls: inlined, the callee's values would be
  // kept once per iteration of the caller's loops. Bodies are copied until the copy
  // reaches kMaxInlinedInsts instructions.
  constexpr size_t kMaxInlinedInsts = 20000;
  auto inlinable_calls = [&](Function* in, size_t* size) {
    ir::DomTree dom(*in);
    std::vector<const Block*> headers;
    for (const Block* b : in->blocks) {
      if (b->Terminator() != nullptr && b->Terminator()->GetOp() == Op::Loop) headers.push_back(b);
    }
    auto in_loop = [&](const Block* b) {
      for (const Block* h : headers) {
        const Block* merge = h->Terminator()->targets[1];
        if (dom.Dominates(h, b) && !(dom.IsReachable(merge) && dom.Dominates(merge, b))) return true;
      }
      return false;
    };
    std::vector<Inst*> calls;
    for (const Block* b : in->blocks) {
      *size += b->insts.size();
      if (!dom.IsReachable(b) || in_loop(b)) continue;
      for (Inst* inst : b->insts) {
        if (inst->GetOp() == Op::Call && Inlinable(*inst->callee)) calls.push_back(inst);
      }
    }
    return calls;
  };
  size_t size = 0;
  if (inlinable_calls(f, &size).empty()) return f;
  Function* g = CloneFunction(module, *f);
  for (int round = 0; round < 8; ++round) {
    size = 0;
    bool changed = false;
    for (Inst* call : inlinable_calls(g, &size)) {
      size_t callee_size = 0;
      for (const Block* b : call->callee->blocks) callee_size += b->insts.size();
      if (size + callee_size > kMaxInlinedInsts) continue;
      if (passes::InlineCallAt(module, *g, call)) {
        size += callee_size;
        changed = true;
      }
    }
    if (!changed) break;
  }
  return g;
}

}  // namespace slope::autodiff::reverse

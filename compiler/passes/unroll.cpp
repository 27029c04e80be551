// unroll: fully unrolls the loops marked `unroll` or `force_unroll` (from `[unroll]` and
// `[ForceUnroll]`) whose control flow is known at compile time.
//
// The loop is run at compile time on constants only: its header parameters start at the
// values the preheader passes, instructions whose operands are all known are computed
// with fold's rules (FoldScalarOp), and every branch taken inside the loop must have a
// known condition. That walk gives one path of blocks per iteration, ending when a
// branch leaves the loop for its merge block. The header then becomes one straight-line
// block: the copies of every block on that path in order, each block's parameters bound
// to the arguments its incoming edge passed, ending in a branch to the merge block. The
// loop's other blocks go. Values defined in the loop and used after it take their last
// copy's value. fold, simplify-cfg and dce clean up afterwards.
//
// A loop whose walk meets a condition that is not a constant, a `ret`, or more than
// Options::unroll_budget copied instructions is left as it was; for `force_unroll` that
// is a diagnostic (E4502, E4503).

#include <algorithm>
#include <map>
#include <set>

#include "compiler/ir/cfg.h"
#include "compiler/passes/passes.h"

namespace slope::passes {
namespace {

using ir::Block;
using ir::Function;
using ir::Inst;
using ir::Op;
using ir::Value;

/// One block of the walk and the edge that entered it.
struct Step {
  Block* block;
  std::vector<Value*> args;  ///< what the entering edge passed (original values)
};

enum class WalkResult { Done, NotConstant, TooLarge };

class State {
 public:
  State(ir::Module& module, const Options& options, Function& f)
      : module_(module), options_(options), f_(f) {}
  bool Run();

 private:
  bool UnrollLoop(Block* header);
  WalkResult Walk(Block* header, const std::set<Block*>& inside, Inst* entry_edge,
                  std::vector<Step>* path, std::vector<Value*>* exit_args);
  const ir::Constant* Known(const Value* v) const {
    if (v->VKind() == ir::ValueKind::Constant) return static_cast<const ir::Constant*>(v);
    auto it = known_.find(v);
    return it == known_.end() ? nullptr : it->second;
  }

  ir::Module& module_;
  const Options& options_;
  Function& f_;
  const Inst* undecided_ = nullptr;  ///< the branch a NotConstant walk stopped at
  std::map<const Value*, const ir::Constant*> known_;
  std::set<const Block*> tried_;  ///< headers of loops left as they were
};

WalkResult State::Walk(Block* header, const std::set<Block*>& inside, Inst* entry_edge,
                       std::vector<Step>* path, std::vector<Value*>* exit_args) {
  Inst* loop = header->Terminator();
  Block* merge = loop->targets[1];
  known_.clear();
  undecided_ = nullptr;
  size_t copied = 0;
  Block* b = header;
  std::vector<Value*> args = entry_edge->operands;
  while (true) {
    path->push_back({b, args});
    for (size_t i = 0; i < b->params.size(); ++i) {
      const ir::Constant* c = Known(args[i]);
      if (c != nullptr) {
        known_[b->params[i]] = c;
      } else {
        known_.erase(b->params[i]);
      }
    }
    copied += b->insts.size();
    if (copied > options_.unroll_budget) return WalkResult::TooLarge;
    for (const Inst* inst : b->insts) {
      if (inst->IsTerminator()) break;
      known_.erase(inst);
      size_t n = inst->operands.size();
      if (n == 0 || n > 2 || !inst->GetType()->IsScalar()) continue;
      const ir::Constant* a = Known(inst->operands[0]);
      const ir::Constant* c = n == 2 ? Known(inst->operands[1]) : nullptr;
      if (a == nullptr || (n == 2 && c == nullptr)) continue;
      if (const ir::Constant* r = FoldScalarOp(module_, inst->GetOp(), inst->GetType(), a, c)) {
        known_[inst] = r;
      }
    }
    Inst* t = b->Terminator();
    size_t edge = 0;
    switch (t->GetOp()) {
      case Op::Br:
      case Op::Loop:  // the header itself, or a nested loop: enter its body
        break;
      case Op::CondBr:
      case Op::If: {
        const ir::Constant* c = Known(t->operands[0]);
        if (c == nullptr) {
          undecided_ = t;
          return WalkResult::NotConstant;
        }
        edge = c->Bits() != 0 ? 0 : 1;
        break;
      }
      case Op::Switch: {
        const ir::Constant* c = Known(t->operands[0]);
        if (c == nullptr) {
          undecided_ = t;
          return WalkResult::NotConstant;
        }
        for (size_t i = 1; i < t->operands.size(); ++i) {
          if (static_cast<const ir::Constant*>(t->operands[i])->Bits() == c->Bits()) edge = i;
        }
        break;
      }
      case Op::Return:
        undecided_ = t;
        return WalkResult::NotConstant;
      case Op::Unreachable:
        return WalkResult::NotConstant;
      default:
        return WalkResult::NotConstant;
    }
    Block* next = t->targets[edge];
    args = ir::EdgeArgs(*t, edge);
    if (next == merge) {
      *exit_args = args;
      return WalkResult::Done;
    }
    if (inside.count(next) == 0) return WalkResult::NotConstant;  // leaves an outer loop
    b = next;
  }
}

bool State::UnrollLoop(Block* header) {
  Inst* loop = header->Terminator();
  auto control = static_cast<ir::LoopControl>(loop->imms.at(0));
  ir::DomTree dom(f_);
  Block* merge = loop->targets[1];
  // The loop's blocks: dominated by the header, not by its merge block.
  std::set<Block*> inside;
  for (Block* b : f_.blocks) {
    if (dom.Dominates(header, b) && !dom.Dominates(merge, b)) inside.insert(b);
  }
  // One edge from outside, a `br`.
  Inst* entry_edge = nullptr;
  size_t outside_edges = 0;
  std::map<const Block*, std::vector<ir::Edge>> preds = ir::Predecessors(f_);
  for (const ir::Edge& e : preds[header]) {
    if (inside.count(e.from) != 0 || !dom.IsReachable(e.from)) continue;
    ++outside_edges;
    entry_edge = e.from->Terminator();
  }
  if (outside_edges != 1 || entry_edge->GetOp() != Op::Br) return false;

  std::vector<Step> path;
  std::vector<Value*> exit_args;
  WalkResult walked = Walk(header, inside, entry_edge, &path, &exit_args);
  if (walked != WalkResult::Done) {
    if (control == ir::LoopControl::ForceUnroll) {
      // A test that leaves the loop on a run-time value: the trip count is unknown.
      bool exit_test = undecided_ != nullptr && undecided_->GetOp() == Op::CondBr &&
                       (undecided_->targets[0] == merge || undecided_->targets[1] == merge);
      if (walked == WalkResult::TooLarge) {
        ReportError(options_, diag::DiagId::ForceUnrollTooLarge, loop->loc,
                    std::to_string(options_.unroll_budget));
      } else if (undecided_ != nullptr && !exit_test) {
        // A branch inside the body on a run-time value (an `if`, a `?:`, a `break` or a
        // `return` under one): the loop runs as written, which computes the same
        // results; later runs of the pass take it as a plain `unroll` hint.
        ReportError(options_, diag::DiagId::ForceUnrollKeptLoop, undecided_->loc);
        loop->imms[0] = static_cast<uint32_t>(ir::LoopControl::Unroll);
      } else {
        ReportError(options_, diag::DiagId::ForceUnrollNotConstant, loop->loc);
      }
    }
    return false;
  }

  // The header becomes the copy of the whole walk.
  std::map<const Value*, Value*> copy;
  auto mapped = [&](Value* v) {
    auto it = copy.find(v);
    return it == copy.end() ? v : it->second;
  };
  std::vector<Inst*> out;
  for (Step& step : path) {
    // The arguments were mapped to the copies of the step that passed them.
    for (size_t i = 0; i < step.block->params.size(); ++i) {
      copy[step.block->params[i]] = step.args[i];
    }
    for (const Inst* inst : step.block->insts) {
      if (inst->IsTerminator()) break;
      Inst* clone = module_.NewInst(inst->GetOp(), inst->GetType());
      for (Value* v : inst->operands) clone->operands.push_back(mapped(v));
      clone->imms = inst->imms;
      clone->callee = inst->callee;
      clone->loc = inst->loc;
      clone->block = header;
      out.push_back(clone);
      copy[inst] = clone;
    }
    // The next edge's arguments read this step's copies: map them before later steps
    // copy the same blocks again.
    auto at = &step - path.data();
    if (static_cast<size_t>(at) + 1 < path.size()) {
      for (Value*& a : path[at + 1].args) a = mapped(a);
    } else {
      for (Value*& a : exit_args) a = mapped(a);
    }
  }
  Inst* br = module_.NewInst(Op::Br, module_.Types().Void());
  br->targets = {merge};
  br->operands = exit_args;
  br->block = header;
  br->loc = loop->loc;
  out.push_back(br);
  header->insts = std::move(out);
  header->params.clear();
  entry_edge->operands.clear();
  // Later uses of loop values read their last copies.
  std::map<const Value*, Value*> last;
  for (const auto& [from, to] : copy) {
    if (from != to) last[from] = to;
  }
  inside.erase(header);
  std::erase_if(f_.blocks, [&](Block* b) { return inside.count(b) != 0; });
  ir::ReplaceUses(f_, last);
  return true;
}

bool State::Run() {
  bool changed = false;
  // Innermost loops first would unroll less at once; outer loops carry their inner ones
  // through the walk, so the order is the blocks' order.
  for (bool again = true; again;) {
    again = false;
    for (Block* b : f_.blocks) {
      Inst* t = b->Terminator();
      if (t->GetOp() != Op::Loop || t->imms.empty() || t->imms[0] == 0) continue;
      if (!tried_.insert(b).second) continue;
      if (UnrollLoop(b)) {
        changed = again = true;
        break;  // blocks changed
      }
    }
  }
  return changed;
}

}  // namespace

Result Unroll(ir::Module& module, const Options& options) {
  return ForEachFunction(module, [&](Function& f) {
    return !f.blocks.empty() && State(module, options, f).Run();
  });
}

}  // namespace slope::passes

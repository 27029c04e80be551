// simplify-cfg: keeps control flow structured while making it smaller.
//
//  1. A `cond_br` or `if` on a constant becomes a `br` to the side taken, except a
//     `cond_br` whose dropped side is a loop's back edge (SPIR-V wants every loop to
//     keep exactly one). A `switch` on a constant becomes a `br` to the matching case's
//     target, or to its default target when no case matches.
//  2. Blocks no path reaches are removed. A merge or continue block that a reachable
//     header still names stays, reduced to what SPIR-V asks of it: `unreachable`, or a
//     branch back to its loop header passing zeros; a loop whose continue block is
//     unreachable runs its body at most once, and its `max_iters` says so.
//  3. A block ending in `br` to a block that only it enters, which no header names as a
//     merge or continue block, absorbs that block (its parameters become the arguments).
//  4. A block other than a loop header that one edge enters takes its parameters from
//     that edge's arguments (a loop's exit once a folded `break` left it one way in).
// The four repeat until nothing changes.

#include <algorithm>
#include <map>
#include <set>

#include "compiler/base/ice.h"
#include "compiler/ir/cfg.h"
#include "compiler/passes/passes.h"

namespace slope::passes {
namespace {

using ir::Block;
using ir::Inst;
using ir::Op;
using ir::Value;

const ir::Constant* AsConstant(const Value* v) {
  return v->VKind() == ir::ValueKind::Constant ? static_cast<const ir::Constant*>(v) : nullptr;
}

bool IsLoopHeader(const Block* b) {
  const Inst* t = b->Terminator();
  return t != nullptr && t->GetOp() == Op::Loop;
}

class State {
 public:
  State(ir::Module& module, ir::Function& f) : module_(module), f_(f) {}
  bool Run();

 private:
  bool FoldConstantBranches();
  bool RemoveUnreachableBlocks();
  bool MergeStraightLines();
  bool DropSingleEdgeParams();
  void ReplaceTerminator(Block* b, Block* dest, std::vector<Value*> args);

  ir::Module& module_;
  ir::Function& f_;
};

void State::ReplaceTerminator(Block* b, Block* dest, std::vector<Value*> args) {
  Inst* old = b->Terminator();
  Inst* br = module_.NewInst(Op::Br, module_.Types().Void());
  br->targets = {dest};
  br->operands = std::move(args);
  br->block = b;
  br->loc = old->loc;
  b->insts.back() = br;
}

bool State::FoldConstantBranches() {
  bool changed = false;
  for (Block* b : f_.blocks) {
    Inst* t = b->Terminator();
    if (t->GetOp() == Op::Switch) {
      const ir::Constant* c = AsConstant(t->operands[0]);
      if (c == nullptr) continue;
      size_t taken = 0;  // the default target
      for (size_t i = 1; i < t->operands.size(); ++i) {
        if (AsConstant(t->operands[i])->Bits() == c->Bits()) taken = i;
      }
      ReplaceTerminator(b, t->targets[taken], {});
      changed = true;
      continue;
    }
    if (t->GetOp() != Op::CondBr && t->GetOp() != Op::If) continue;
    const ir::Constant* c = AsConstant(t->operands[0]);
    if (c == nullptr) continue;
    size_t taken = c->Bits() != 0 ? 0 : 1;
    Block* dropped = t->targets[1 - taken];
    if (t->GetOp() == Op::CondBr && dropped != t->targets[taken] && IsLoopHeader(dropped)) continue;
    ReplaceTerminator(b, t->targets[taken], ir::EdgeArgs(*t, taken));
    changed = true;
  }
  return changed;
}

bool State::RemoveUnreachableBlocks() {
  ir::DomTree dom(f_);
  // Merge and continue blocks named by reachable headers stay.
  std::map<Block*, Block*> continue_of;  // continue block -> its loop header
  std::set<Block*> merges;
  for (Block* b : dom.ReversePostOrder()) {
    Inst* t = b->Terminator();
    if (t->GetOp() == Op::If) merges.insert(t->targets[2]);
    if (t->GetOp() == Op::Switch) merges.insert(t->targets.back());
    if (t->GetOp() == Op::Loop) {
      merges.insert(t->targets[1]);
      continue_of[t->targets[2]] = b;
    }
  }
  bool changed = false;
  std::vector<Block*> kept;
  for (Block* b : f_.blocks) {
    if (dom.IsReachable(b)) {
      kept.push_back(b);
      continue;
    }
    auto header = continue_of.find(b);
    if (header == continue_of.end() && merges.count(b) == 0) {
      changed = true;
      continue;
    }
    kept.push_back(b);
    if (header != continue_of.end()) {
      // Nothing reaches the continue block, so the body runs at most once: the loop's
      // bound says so (reverse mode then needs no trip count of its own).
      Inst* loop = header->second->Terminator();
      if (loop->imms.empty()) loop->imms.push_back(static_cast<uint32_t>(ir::LoopControl::None));
      if (loop->imms.size() < 2) loop->imms.push_back(1);
      if (loop->imms[1] > 1) {
        loop->imms[1] = 1;
        changed = true;
      }
    }
    Inst* t = b->Terminator();
    bool reduced = b->params.empty() && b->insts.size() == 1 &&
                   (header != continue_of.end()
                        ? t->GetOp() == Op::Br && t->targets[0] == header->second &&
                              std::all_of(t->operands.begin(), t->operands.end(),
                                          [](const Value* v) { return AsConstant(v) != nullptr; })
                        : t->GetOp() == Op::Unreachable);
    if (reduced) continue;
    // Nothing reaches it, so nothing it computes is used: keep only the terminator.
    changed = true;
    b->params.clear();
    Inst* term = nullptr;
    if (header != continue_of.end()) {
      term = module_.NewInst(Op::Br, module_.Types().Void());
      term->targets = {header->second};
      for (const ir::Param* p : header->second->params) {
        term->operands.push_back(ir::ZeroValue(module_, f_, p->GetType()));
      }
    } else {
      term = module_.NewInst(Op::Unreachable, module_.Types().Void());
    }
    term->block = b;
    term->loc = t->loc;
    b->insts = {term};
  }
  f_.blocks = std::move(kept);
  return changed;
}

bool State::MergeStraightLines() {
  bool changed = false;
  std::map<const Block*, std::vector<ir::Edge>> preds = ir::Predecessors(f_);
  std::set<const Block*> named;  // merge and continue blocks
  for (const Block* b : f_.blocks) {
    const Inst* t = b->Terminator();
    if (t->GetOp() == Op::If) named.insert(t->targets[2]);
    if (t->GetOp() == Op::Switch) named.insert(t->targets.back());
    if (t->GetOp() == Op::Loop) named.insert({t->targets[1], t->targets[2]});
  }
  std::set<const Block*> removed;
  std::map<const Value*, Value*> replace;
  for (Block* a : f_.blocks) {
    if (removed.count(a) != 0) continue;
    while (true) {
      Inst* t = a->Terminator();
      if (t->GetOp() != Op::Br) break;
      Block* b = t->targets[0];
      if (b == a || b == f_.blocks.front() || named.count(b) != 0 || preds[b].size() != 1) break;
      // A continue block stays a plain block: it does not take over a header.
      Op b_op = b->Terminator()->GetOp();
      if (named.count(a) != 0 && (b_op == Op::If || b_op == Op::Loop || b_op == Op::Switch)) {
        break;
      }
      for (size_t i = 0; i < b->params.size(); ++i) replace[b->params[i]] = t->operands[i];
      a->insts.pop_back();
      for (Inst* inst : b->insts) {
        inst->block = a;
        a->insts.push_back(inst);
      }
      // Edges out of `b` now leave from `a`.
      for (Block* s : ir::Successors(*a)) {
        for (ir::Edge& e : preds[s]) {
          if (e.from == b) e.from = a;
        }
      }
      b->insts.clear();
      removed.insert(b);
      changed = true;
    }
  }
  std::erase_if(f_.blocks, [&](const Block* b) { return removed.count(b) != 0; });
  ir::ReplaceUses(f_, replace);
  return changed;
}

bool State::DropSingleEdgeParams() {
  bool changed = false;
  std::map<const Block*, std::vector<ir::Edge>> preds = ir::Predecessors(f_);
  std::map<const Value*, Value*> replace;
  for (Block* b : f_.blocks) {
    if (b->params.empty() || b == f_.blocks.front() || IsLoopHeader(b)) continue;
    const std::vector<ir::Edge>& in = preds[b];
    if (in.size() != 1) continue;
    Inst* term = in[0].from->Terminator();
    if (!ir::EdgeTakesArgs(*term)) continue;
    std::vector<std::vector<Value*>> args;
    for (size_t i = 0; i < ir::EdgeCount(*term); ++i) args.push_back(ir::EdgeArgs(*term, i));
    std::vector<Value*>& mine = args[in[0].index];
    if (mine.size() != b->params.size()) continue;
    for (size_t i = 0; i < b->params.size(); ++i) replace[b->params[i]] = mine[i];
    mine.clear();
    ir::SetEdgeArgs(*term, args);
    b->params.clear();
    changed = true;
  }
  ir::ReplaceUses(f_, replace);
  return changed;
}

bool State::Run() {
  if (f_.blocks.empty()) return false;
  bool changed = false;
  for (bool again = true; again;) {
    again = FoldConstantBranches();
    again = RemoveUnreachableBlocks() || again;
    again = MergeStraightLines() || again;
    again = DropSingleEdgeParams() || again;
    changed = changed || again;
  }
  return changed;
}

}  // namespace

Result SimplifyCfg(ir::Module& module, const Options& options) {
  return ForEachFunction(module, [&](ir::Function& f) { return State(module, f).Run(); });
}

}  // namespace slope::passes

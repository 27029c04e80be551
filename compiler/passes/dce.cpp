// dce: removes instructions without side effects whose results nothing uses, block
// parameters nothing uses (with the matching argument of every branch into the block),
// and `var` slots that are only ever stored to (with those stores).
//
// A call has no side effects when its callee has none: every store of the callee is to
// one of its own `var`s, and it calls only such functions (no atomics, barriers, wave
// operations, printf or texture operations). Reading memory is allowed, so a call whose
// result nothing uses goes, as an unused load does (reverse mode leaves such calls: the
// primal pass of a function whose result its backward pass does not need).
//
// Liveness is computed by marking, not by counting uses, so cycles of dead values (a
// loop-carried parameter whose only use is its own update) go too: a branch argument is
// live only when the parameter it feeds is.

#include <algorithm>
#include <map>
#include <set>

#include "compiler/base/pointer_hash.h"
#include "compiler/ir/cfg.h"
#include "compiler/passes/passes.h"

namespace slope::passes {
namespace {

using ir::Block;
using ir::Inst;
using ir::Op;
using ir::Value;

/// The address a store writes through, followed back through member and element
/// pointers: true when it is a `var` of the function itself.
bool StoresToLocal(const Inst& store) {
  const Value* at = store.operands[0];
  while (at->VKind() == ir::ValueKind::Inst) {
    const auto* inst = static_cast<const Inst*>(at);
    if (inst->GetOp() == Op::Var) return true;
    if (inst->GetOp() != Op::ElementPtr && inst->GetOp() != Op::MemberPtr) return false;
    at = inst->operands[0];
  }
  return false;
}

/// The functions whose calls have no side effects (see the top of the file): those with a
/// body that do nothing else, found by walking back from the others to their callers
/// (linear in the module), so a cycle of calls among such functions keeps them.
std::set<const ir::Function*> SideEffectFree(const ir::Module& module) {
  std::map<const ir::Function*, std::vector<const ir::Function*>> callers;
  std::vector<const ir::Function*> work;
  std::set<const ir::Function*> effects;
  auto mark = [&](const ir::Function* f) {
    if (effects.insert(f).second) work.push_back(f);
  };
  for (const ir::Function* f : module.functions) {
    if (f->blocks.empty()) mark(f);
    for (const Block* b : f->blocks) {
      for (const Inst* inst : b->insts) {
        Op op = inst->GetOp();
        const ir::OpInfo& info = ir::GetOpInfo(op);
        if (!info.has_side_effects || info.is_terminator) continue;
        if (op == Op::Store && StoresToLocal(*inst)) continue;
        if (op == Op::Call) {
          callers[inst->callee].push_back(f);
          if (inst->callee->blocks.empty()) mark(inst->callee);
          continue;
        }
        mark(f);
      }
    }
  }
  while (!work.empty()) {
    const ir::Function* f = work.back();
    work.pop_back();
    for (const ir::Function* caller : callers[f]) mark(caller);
  }
  std::set<const ir::Function*> free;
  for (const ir::Function* f : module.functions) {
    if (effects.count(f) == 0) free.insert(f);
  }
  return free;
}

class State {
 public:
  State(ir::Function& f, const std::set<const ir::Function*>& free_calls)
      : f_(f), free_calls_(free_calls) {}
  bool Run();

 private:
  bool RemoveWriteOnlyVars();
  void MarkLive(const Value* v);
  void Propagate();

  ir::Function& f_;
  const std::set<const ir::Function*>& free_calls_;
  base::PointerSet<Value> live_;
  std::vector<const Value*> work_;
  std::map<const Block*, std::vector<ir::Edge>> preds_;
};

bool State::RemoveWriteOnlyVars() {
  // A var is read when it, or a member or element pointer formed from it, is used other
  // than as the address of a store or the base of another such pointer.
  base::PointerMap<Value, const Value*> root;  // pointer -> the var it was formed from
  std::vector<const Value*> pointers;          // the keys of `root`
  for (const Inst* inst : f_.blocks.front()->insts) {
    if (inst->GetOp() == Op::Var && root.Emplace(inst, inst).second) pointers.push_back(inst);
  }
  auto derives = [](const Inst* inst) {
    return inst->GetOp() == Op::ElementPtr || inst->GetOp() == Op::MemberPtr;
  };
  // Blocks are not listed in dominance order: find the derived pointers to a fixed point.
  for (bool grew = true; grew;) {
    grew = false;
    for (const Block* b : f_.blocks) {
      for (const Inst* inst : b->insts) {
        if (!derives(inst) || root.Contains(inst)) continue;
        const Value* const* r = root.Find(inst->operands[0]);
        if (r == nullptr) continue;
        root.Emplace(inst, *r);
        pointers.push_back(inst);
        grew = true;
      }
    }
  }
  base::PointerSet<Value> read;
  for (const Block* b : f_.blocks) {
    for (const Inst* inst : b->insts) {
      for (size_t i = 0; i < inst->operands.size(); ++i) {
        const Value* const* r = root.Find(inst->operands[i]);
        if (r == nullptr) continue;
        if (i == 0 && (inst->GetOp() == Op::Store || derives(inst))) continue;
        read.Insert(*r);
      }
    }
  }
  base::PointerSet<Value> dead;
  for (const Value* ptr : pointers) {
    if (!read.Contains(*root.Find(ptr))) dead.Insert(ptr);
  }
  if (dead.Empty()) return false;
  for (Block* b : f_.blocks) {
    std::erase_if(b->insts, [&](const Inst* inst) {
      return dead.Contains(inst) ||
             (inst->GetOp() == Op::Store && dead.Contains(inst->operands[0]));
    });
  }
  return true;
}

void State::MarkLive(const Value* v) {
  if (v->VKind() != ir::ValueKind::Inst && v->VKind() != ir::ValueKind::Param) return;
  if (live_.Insert(v)) work_.push_back(v);
}

void State::Propagate() {
  while (!work_.empty()) {
    const Value* v = work_.back();
    work_.pop_back();
    if (v->VKind() == ir::ValueKind::Param) {
      // A live block parameter keeps the argument every edge passes for it alive.
      const auto* p = static_cast<const ir::Param*>(v);
      const Block* b = p->GetBlock();
      if (b == nullptr) continue;  // a function parameter
      size_t index = std::find(b->params.begin(), b->params.end(), p) - b->params.begin();
      for (const ir::Edge& e : preds_[b]) {
        std::vector<Value*> args = ir::EdgeArgs(*e.from->Terminator(), e.index);
        if (index < args.size()) MarkLive(args[index]);
      }
      continue;
    }
    const auto* inst = static_cast<const Inst*>(v);
    if (inst->GetOp() == Op::Br) continue;
    if (inst->GetOp() == Op::CondBr) {
      MarkLive(inst->operands[0]);
      continue;
    }
    for (const Value* operand : inst->operands) MarkLive(operand);
  }
}

bool State::Run() {
  if (f_.blocks.empty()) return false;
  bool changed = RemoveWriteOnlyVars();
  preds_ = ir::Predecessors(f_);
  size_t values = 0;
  for (const Block* b : f_.blocks) values += b->params.size() + b->insts.size();
  live_.Reserve(values);
  for (const Block* b : f_.blocks) {
    for (const Inst* inst : b->insts) {
      bool free_call = inst->GetOp() == Op::Call && free_calls_.count(inst->callee) != 0;
      if (ir::GetOpInfo(inst->GetOp()).has_side_effects && !free_call) MarkLive(inst);
    }
  }
  Propagate();
  // Unused parameters first: the arguments they drop may be the last uses of values.
  for (Block* b : f_.blocks) {
    std::vector<size_t> dead;
    for (size_t i = 0; i < b->params.size(); ++i) {
      if (!live_.Contains(b->params[i])) dead.push_back(i);
    }
    if (dead.empty()) continue;
    std::map<Inst*, std::vector<std::vector<Value*>>> args;
    for (const ir::Edge& e : preds_[b]) {
      Inst* t = e.from->Terminator();
      if (args.count(t) != 0) continue;
      for (size_t i = 0; i < ir::EdgeCount(*t); ++i) args[t].push_back(ir::EdgeArgs(*t, i));
    }
    for (const ir::Edge& e : preds_[b]) {
      std::vector<Value*>& list = args[e.from->Terminator()][e.index];
      for (size_t k = dead.size(); k-- > 0;) {
        if (dead[k] < list.size()) list.erase(list.begin() + static_cast<std::ptrdiff_t>(dead[k]));
      }
    }
    for (size_t k = dead.size(); k-- > 0;) {
      b->params.erase(b->params.begin() + static_cast<std::ptrdiff_t>(dead[k]));
    }
    for (auto& [t, lists] : args) ir::SetEdgeArgs(*t, lists);
    changed = true;
  }
  for (Block* b : f_.blocks) {
    size_t before = b->insts.size();
    std::erase_if(b->insts, [&](const Inst* inst) { return !live_.Contains(inst); });
    changed = changed || b->insts.size() != before;
  }
  return changed;
}

}  // namespace

Result EliminateDeadCode(ir::Module& module, const Options& options) {
  std::set<const ir::Function*> free_calls = SideEffectFree(module);
  return ForEachFunction(module, [&](ir::Function& f) { return State(f, free_calls).Run(); });
}

}  // namespace slope::passes

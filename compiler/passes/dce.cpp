// dce: removes instructions without side effects whose results nothing uses, block
// parameters nothing uses (with the matching argument of every branch into the block),
// and `var` slots that are only ever stored to (with those stores).
//
// Liveness is computed by marking, not by counting uses, so cycles of dead values (a
// loop-carried parameter whose only use is its own update) go too: a branch argument is
// live only when the parameter it feeds is.

#include <algorithm>
#include <map>
#include <set>

#include "compiler/ir/cfg.h"
#include "compiler/passes/passes.h"

namespace slope::passes {
namespace {

using ir::Block;
using ir::Inst;
using ir::Op;
using ir::Value;

class State {
 public:
  explicit State(ir::Function& f) : f_(f) {}
  bool Run();

 private:
  bool RemoveWriteOnlyVars();
  void MarkLive(const Value* v);
  void Propagate();

  ir::Function& f_;
  std::set<const Value*> live_;
  std::vector<const Value*> work_;
  std::map<const Block*, std::vector<ir::Edge>> preds_;
};

bool State::RemoveWriteOnlyVars() {
  std::set<const Value*> read;  // vars used other than as a store's address
  for (const Block* b : f_.blocks) {
    for (const Inst* inst : b->insts) {
      for (size_t i = 0; i < inst->operands.size(); ++i) {
        if (!(inst->GetOp() == Op::Store && i == 0)) read.insert(inst->operands[i]);
      }
    }
  }
  std::set<const Value*> dead;
  for (const Inst* inst : f_.blocks.front()->insts) {
    if (inst->GetOp() == Op::Var && read.count(inst) == 0) dead.insert(inst);
  }
  if (dead.empty()) return false;
  for (Block* b : f_.blocks) {
    std::erase_if(b->insts, [&](const Inst* inst) {
      return dead.count(inst) != 0 ||
             (inst->GetOp() == Op::Store && dead.count(inst->operands[0]) != 0);
    });
  }
  return true;
}

void State::MarkLive(const Value* v) {
  if (v->VKind() != ir::ValueKind::Inst && v->VKind() != ir::ValueKind::Param) return;
  if (live_.insert(v).second) work_.push_back(v);
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
  for (const Block* b : f_.blocks) {
    for (const Inst* inst : b->insts) {
      if (ir::GetOpInfo(inst->GetOp()).has_side_effects) MarkLive(inst);
    }
  }
  Propagate();
  // Unused parameters first: the arguments they drop may be the last uses of values.
  for (Block* b : f_.blocks) {
    std::vector<size_t> dead;
    for (size_t i = 0; i < b->params.size(); ++i) {
      if (live_.count(b->params[i]) == 0) dead.push_back(i);
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
    std::erase_if(b->insts, [&](const Inst* inst) { return live_.count(inst) == 0; });
    changed = changed || b->insts.size() != before;
  }
  return changed;
}

}  // namespace

Result EliminateDeadCode(ir::Module& module, const Options& options) {
  return ForEachFunction(module, [&](ir::Function& f) { return State(f).Run(); });
}

}  // namespace slope::passes

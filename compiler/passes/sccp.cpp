// sccp: sparse conditional constant propagation (Wegman and Zadeck). Values and edges
// are assumed unknown and unreached until shown otherwise: starting from the entry
// block, only edges a terminator can take given what is known of its condition are
// followed, and a block parameter is the meet of the arguments of the edges that reach
// it. A value fed the same constant by every edge that can run is that constant even
// when edges that cannot run would pass something else, which `fold` alone cannot see
// (a loop-carried value that a never-taken branch would change, for example).
//
// Scalars only: each value is unknown, one constant, or varying. Instructions compute
// with fold's rules (FoldScalarOp); anything else varies. Afterwards every constant
// value's uses read the constant, and the instructions that computed one go; the
// branches that became constant are left for simplify-cfg, unused parameters for dce.

#include <algorithm>
#include <map>
#include <set>

#include "compiler/ir/cfg.h"
#include "compiler/passes/passes.h"

namespace slope::passes {
namespace {

using ir::Block;
using ir::Constant;
using ir::Inst;
using ir::Op;
using ir::Value;

/// What is known of a value: nothing yet, one constant, or that it varies.
struct Lattice {
  enum Kind : uint8_t { Unknown, Const, Varying } kind = Unknown;
  const Constant* constant = nullptr;
};

class State {
 public:
  State(ir::Module& module, ir::Function& f) : module_(module), f_(f) {}
  bool Run();

 private:
  Lattice Get(const Value* v) const;
  /// Lowers `v` to the meet of what it was and `with`; queues its users when it changed.
  void Lower(const Value* v, Lattice with);
  void Visit(Inst* inst);
  void VisitTerminator(Inst* t);
  void TakeEdge(Inst* t, size_t index);
  Lattice Evaluate(const Inst* inst) const;

  ir::Module& module_;
  ir::Function& f_;
  std::map<const Value*, Lattice> lattice_;
  std::set<std::pair<const Inst*, size_t>> edges_;  ///< executable edges
  std::set<const Block*> reached_;
  std::vector<Block*> block_work_;
  std::vector<const Value*> value_work_;
  std::map<const Value*, std::vector<Inst*>> users_;
};

Lattice State::Get(const Value* v) const {
  if (v->VKind() == ir::ValueKind::Constant) {
    return Lattice{Lattice::Const, static_cast<const Constant*>(v)};
  }
  if (v->VKind() == ir::ValueKind::Global) return Lattice{Lattice::Varying, nullptr};
  auto it = lattice_.find(v);
  return it == lattice_.end() ? Lattice{} : it->second;
}

void State::Lower(const Value* v, Lattice with) {
  Lattice old = Get(v);
  Lattice now = old;
  if (with.kind == Lattice::Unknown || old.kind == Lattice::Varying) return;
  if (old.kind == Lattice::Unknown) {
    now = with;
  } else if (with.kind == Lattice::Varying || with.constant != old.constant) {
    now = Lattice{Lattice::Varying, nullptr};
  }
  if (now.kind == old.kind && now.constant == old.constant) return;
  lattice_[v] = now;
  value_work_.push_back(v);
}

Lattice State::Evaluate(const Inst* inst) const {
  const ir::OpInfo& info = ir::GetOpInfo(inst->GetOp());
  bool scalar = inst->GetType()->IsScalar();
  if (info.has_side_effects || info.reads_memory || !scalar || inst->operands.empty() ||
      inst->operands.size() > 2) {
    return Lattice{Lattice::Varying, nullptr};
  }
  std::vector<const Constant*> args;
  for (const Value* v : inst->operands) {
    Lattice l = Get(v);
    if (l.kind == Lattice::Unknown) return Lattice{};
    if (l.kind == Lattice::Varying || !v->GetType()->IsScalar()) {
      return Lattice{Lattice::Varying, nullptr};
    }
    args.push_back(l.constant);
  }
  const Constant* c = FoldScalarOp(module_, inst->GetOp(), inst->GetType(), args[0],
                                   args.size() == 2 ? args[1] : nullptr);
  return c != nullptr ? Lattice{Lattice::Const, c} : Lattice{Lattice::Varying, nullptr};
}

void State::TakeEdge(Inst* t, size_t index) {
  Block* dest = t->targets[index];
  bool first = edges_.insert({t, index}).second;
  // Arguments flow along the edge each time the terminator is visited: they may have
  // changed since the edge was first taken.
  std::vector<Value*> args = ir::EdgeArgs(*t, index);
  for (size_t i = 0; i < args.size() && i < dest->params.size(); ++i) {
    Lower(dest->params[i], Get(args[i]));
  }
  if (first && reached_.insert(dest).second) block_work_.push_back(dest);
}

void State::VisitTerminator(Inst* t) {
  auto condition = [&]() { return Get(t->operands.at(0)); };
  switch (t->GetOp()) {
    case Op::Br:
    case Op::Loop:
      TakeEdge(t, 0);
      return;
    case Op::CondBr:
    case Op::If: {
      Lattice c = condition();
      if (c.kind == Lattice::Unknown) return;
      if (c.kind == Lattice::Const) {
        TakeEdge(t, c.constant->Bits() != 0 ? 0 : 1);
      } else {
        TakeEdge(t, 0);
        TakeEdge(t, 1);
      }
      return;
    }
    case Op::Switch: {
      Lattice c = condition();
      if (c.kind == Lattice::Unknown) return;
      if (c.kind == Lattice::Varying) {
        for (size_t i = 0; i < ir::EdgeCount(*t); ++i) TakeEdge(t, i);
        return;
      }
      size_t taken = 0;
      for (size_t i = 1; i < t->operands.size(); ++i) {
        if (static_cast<const Constant*>(t->operands[i])->Bits() == c.constant->Bits()) taken = i;
      }
      TakeEdge(t, taken);
      return;
    }
    default:
      return;  // ret, unreachable
  }
}

void State::Visit(Inst* inst) {
  if (inst->IsTerminator()) {
    VisitTerminator(inst);
    return;
  }
  if (inst->GetType()->IsVoid()) return;
  Lower(inst, Evaluate(inst));
}

bool State::Run() {
  if (f_.blocks.empty()) return false;
  for (Block* b : f_.blocks) {
    for (Inst* inst : b->insts) {
      for (const Value* v : inst->operands) users_[v].push_back(inst);
    }
  }
  for (const ir::Param* p : f_.params) lattice_[p] = Lattice{Lattice::Varying, nullptr};
  reached_.insert(f_.blocks.front());
  block_work_.push_back(f_.blocks.front());
  while (!block_work_.empty() || !value_work_.empty()) {
    if (!block_work_.empty()) {
      Block* b = block_work_.back();
      block_work_.pop_back();
      for (Inst* inst : b->insts) Visit(inst);
      continue;
    }
    const Value* v = value_work_.back();
    value_work_.pop_back();
    for (Inst* user : users_[v]) {
      if (reached_.count(user->block) != 0) Visit(user);
    }
  }
  // Uses of constant values read the constant; what computed them goes.
  std::map<const Value*, Value*> replace;
  for (Block* b : f_.blocks) {
    for (const ir::Param* p : b->params) {
      Lattice l = Get(p);
      if (l.kind == Lattice::Const) replace[p] = const_cast<Constant*>(l.constant);
    }
    for (const Inst* inst : b->insts) {
      Lattice l = Get(inst);
      if (l.kind == Lattice::Const) replace[inst] = const_cast<Constant*>(l.constant);
    }
  }
  if (replace.empty()) return false;
  for (Block* b : f_.blocks) {
    std::erase_if(b->insts, [&](const Inst* inst) { return replace.count(inst) != 0; });
  }
  ir::ReplaceUses(f_, replace);
  return true;
}

}  // namespace

Result PropagateConstants(ir::Module& module, const Options& options) {
  return ForEachFunction(module, [&](ir::Function& f) { return State(module, f).Run(); });
}

}  // namespace slope::passes

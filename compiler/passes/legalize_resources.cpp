// legalize-resources: after inline-resources, sroa and mem2reg, every buffer value should
// be a global. This pass finishes the job and checks it.
//
// `extract` of a `make_struct` becomes the member, a block parameter of buffer type
// whose incoming arguments (from the edges that can run) are all one value becomes that
// value, and a load of a buffer-typed function variable whose stores all store one
// global becomes that global (mem2reg leaves such a variable when it is written in one
// loop and read in another: reverse mode keeps a loop's buffer that way); these repeat
// until nothing changes, then dead code goes. A buffer value that is
// still not a global afterwards (chosen at run time, or read before anything was stored
// into it) is reported where it is used (E4500): SPIR-V names the buffer of each access
// statically. The IR stays valid either way.

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

class State {
 public:
  State(ir::Module& module, const Options& options, Function& f)
      : module_(module), options_(options), f_(f) {}
  bool Simplify();
  void Check();

 private:
  bool FoldExtracts();
  bool ResolveParams();
  bool ResolveVars();

  ir::Module& module_;
  const Options& options_;
  Function& f_;
};

bool State::FoldExtracts() {
  std::map<const Value*, Value*> replace;
  for (Block* b : f_.blocks) {
    for (Inst* inst : b->insts) {
      if (inst->GetOp() != Op::Extract || inst->operands[0]->VKind() != ir::ValueKind::Inst) {
        continue;
      }
      auto* from = static_cast<Inst*>(inst->operands[0]);
      if (from->GetOp() == Op::MakeStruct || from->GetOp() == Op::MakeArray) {
        replace[inst] = from->operands.at(inst->imms[0]);
      }
    }
  }
  if (replace.empty()) return false;
  ir::ReplaceUses(f_, replace);
  for (Block* b : f_.blocks) {
    std::erase_if(b->insts, [&](const Inst* inst) { return replace.count(inst) != 0; });
  }
  return true;
}

bool State::ResolveParams() {
  // Most functions have no block parameter of buffer type: no dominator tree for them.
  bool any = std::any_of(f_.blocks.begin(), f_.blocks.end(), [](const Block* b) {
    return std::any_of(b->params.begin(), b->params.end(),
                       [](const ir::Param* p) { return p->GetType()->IsResource(); });
  });
  if (!any) return false;
  ir::DomTree dom(f_);
  std::map<const Block*, std::vector<ir::Edge>> preds = ir::Predecessors(f_);
  for (Block* b : f_.blocks) {
    for (size_t index = 0; index < b->params.size(); ++index) {
      ir::Param* p = b->params[index];
      if (!p->GetType()->IsResource()) continue;
      Value* same = nullptr;
      bool unique = true;
      for (const ir::Edge& e : preds[b]) {
        if (!dom.IsReachable(e.from)) continue;
        Value* arg = ir::EdgeArgs(*e.from->Terminator(), e.index).at(index);
        if (arg == p || arg == same) continue;
        if (same != nullptr) unique = false;
        same = arg;
      }
      if (!unique || same == nullptr) continue;
      // Drop the parameter and its argument on every edge into the block.
      std::set<Inst*> done;
      for (const ir::Edge& e : preds[b]) {
        Inst* t = e.from->Terminator();
        if (!done.insert(t).second) continue;
        std::vector<std::vector<Value*>> args;
        for (size_t i = 0; i < ir::EdgeCount(*t); ++i) {
          args.push_back(ir::EdgeArgs(*t, i));
          if (t->targets[i] == b) args.back().erase(args.back().begin() + static_cast<std::ptrdiff_t>(index));
        }
        ir::SetEdgeArgs(*t, args);
      }
      b->params.erase(b->params.begin() + static_cast<std::ptrdiff_t>(index));
      ir::ReplaceUses(f_, {{p, same}});
      return true;  // edges changed: recompute
    }
  }
  return false;
}

bool State::ResolveVars() {
  // Per variable of buffer type: the one global stored into it, or null once it is
  // given anything else (or used other than by loads and stores into it).
  std::map<const Value*, Value*> stored;
  std::set<const Value*> mixed;
  for (const Block* b : f_.blocks) {
    for (const Inst* inst : b->insts) {
      for (size_t i = 0; i < inst->operands.size(); ++i) {
        const Value* v = inst->operands[i];
        if (v->VKind() != ir::ValueKind::Inst || static_cast<const Inst*>(v)->GetOp() != Op::Var ||
            !v->GetType()->Element()->IsResource()) {
          continue;
        }
        bool is_store = inst->GetOp() == Op::Store && i == 0;
        if (inst->GetOp() == Op::Load) continue;
        Value* value = is_store ? inst->operands[1] : nullptr;
        if (value == nullptr || value->VKind() != ir::ValueKind::Global) {
          mixed.insert(v);
          continue;
        }
        auto [it, fresh] = stored.emplace(v, value);
        if (!fresh && it->second != value) mixed.insert(v);
      }
    }
  }
  std::map<const Value*, Value*> replace;
  for (Block* b : f_.blocks) {
    for (Inst* inst : b->insts) {
      if (inst->GetOp() != Op::Load) continue;
      auto it = stored.find(inst->operands[0]);
      if (it != stored.end() && mixed.count(it->first) == 0) replace[inst] = it->second;
    }
  }
  if (replace.empty()) return false;
  ir::ReplaceUses(f_, replace);
  for (Block* b : f_.blocks) {
    std::erase_if(b->insts, [&](const Inst* inst) { return replace.count(inst) != 0; });
  }
  return true;
}

bool State::Simplify() {
  bool changed = false;
  for (bool again = true; again;) {
    again = FoldExtracts();
    again = ResolveVars() || again;
    while (ResolveParams()) again = true;
    changed = changed || again;
  }
  return changed;
}

void State::Check() {
  bool reported = false;
  const Inst* first_leftover = nullptr;
  for (const Block* b : f_.blocks) {
    for (const Inst* inst : b->insts) {
      if (inst->GetOp() == Op::ElementPtr && inst->operands[0]->GetType()->IsBuffer() &&
          inst->operands[0]->VKind() != ir::ValueKind::Global) {
        ReportError(options_, diag::DiagId::UnresolvedResource, inst->loc);
        reported = true;
      }
      if (first_leftover == nullptr && inst->GetOp() != Op::Call &&
          (ContainsResource(inst->GetType()) ||
           std::any_of(inst->operands.begin(), inst->operands.end(), [](const Value* v) {
             return v->VKind() != ir::ValueKind::Global && ContainsResource(v->GetType());
           }))) {
        first_leftover = inst;
      }
    }
  }
  // Calls were reported by inline-resources; anything else holding a resource is too.
  if (!reported && first_leftover != nullptr) {
    ReportError(options_, diag::DiagId::UnresolvedResource, first_leftover->loc);
  }
}

}  // namespace

Result LegalizeResources(ir::Module& module, const Options& options) {
  Result result = ForEachFunction(
      module, [&](Function& f) { return !f.blocks.empty() && State(module, options, f).Simplify(); });
  if (EliminateDeadCode(module, options).changed) result.changed = true;
  for (Function* f : module.functions) {
    if (!TouchesResources(*f)) State(module, options, *f).Check();
  }
  return result;
}

}  // namespace slope::passes

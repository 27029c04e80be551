// Reverse mode of a function whose only derivative is a custom forward one
// (`[ForwardDerivative(g)]`): its linearization is `g` itself, put in split form. See
// compiler/autodiff/README.md ("Custom forward derivatives in reverse mode").

#include "compiler/autodiff/reverse/custom_forward.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "compiler/autodiff/differential.h"
#include "compiler/autodiff/forward/jvp.h"
#include "compiler/autodiff/reverse/normalize.h"
#include "compiler/autodiff/reverse/values.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/cfg.h"

namespace slope::autodiff::reverse {

using ir::Function;
using ir::Inst;
using ir::Op;

namespace {

/// Splits every struct-typed block parameter of `f` into one parameter per member, so
/// that a pair chosen by control flow becomes its primal and its tangent, each
/// classified on its own. True when one was split.
bool SplitStructParams(ir::Module& module, Function& f) {
  ir::Builder b(module);
  std::map<const ir::Value*, ir::Value*> replaced;
  for (ir::Block* block : f.blocks) {
    for (size_t i = 0; i < block->params.size(); ++i) {
      ir::Param* p = block->params[i];
      const ir::Type* t = p->GetType();
      if (!t->IsStruct()) continue;
      size_t n = t->Members().size();
      std::vector<ir::Param*> parts;
      std::vector<ir::Value*> members;
      for (size_t m = 0; m < n; ++m) {
        parts.push_back(module.AddParam(t->Members()[m], block));
        members.push_back(parts.back());
      }
      // Each edge into `block` passes the members of what it passed.
      for (ir::Block* pred : f.blocks) {
        Inst* term = pred->Terminator();
        if (term == nullptr || term->GetOp() != Op::Br || term->targets[0] != block) continue;
        ir::Value* arg = term->operands.at(i);
        pred->insts.pop_back();
        b.SetInsertBlock(pred);
        std::vector<ir::Value*> split;
        for (size_t m = 0; m < n; ++m) split.push_back(b.Extract(arg, static_cast<uint32_t>(m)));
        pred->insts.push_back(term);
        term->operands.erase(term->operands.begin() + static_cast<std::ptrdiff_t>(i));
        term->operands.insert(term->operands.begin() + static_cast<std::ptrdiff_t>(i),
                              split.begin(), split.end());
      }
      Inst* make = module.NewInst(Op::MakeStruct, t);
      make->operands = members;
      make->block = block;
      block->insts.insert(block->insts.begin(), make);
      block->params.erase(block->params.begin() + static_cast<std::ptrdiff_t>(i));
      block->params.insert(block->params.begin() + static_cast<std::ptrdiff_t>(i), parts.begin(),
                           parts.end());
      replaced[p] = make;
      ir::ReplaceUses(f, replaced);
      return true;
    }
  }
  return false;
}

/// Splits each struct `var` of `f` that is only loaded, stored and stepped into by
/// `member_ptr`s that are themselves only loaded and stored into one `var` per member,
/// which mem2reg can then promote. True when one was split.
bool SplitStructVars(ir::Module& module, Function& f) {
  // Whether `ptr` is used only as the address of loads and stores.
  std::map<const ir::Value*, std::vector<Inst*>> users;
  for (ir::Block* block : f.blocks) {
    for (Inst* inst : block->insts) {
      for (const ir::Value* v : inst->operands) users[v].push_back(inst);
    }
  }
  auto only_accessed = [&](const ir::Value* ptr) {
    for (const Inst* u : users[ptr]) {
      bool load = u->GetOp() == Op::Load && u->operands[0] == ptr;
      bool store = u->GetOp() == Op::Store && u->operands[0] == ptr && u->operands[1] != ptr;
      if (!load && !store) return false;
    }
    return true;
  };
  ir::Builder b(module);
  for (ir::Block* block : f.blocks) {
    for (Inst* var : block->insts) {
      if (var->GetOp() != Op::Var || !var->GetType()->Element()->IsStruct()) continue;
      const ir::Type* t = var->GetType()->Element();
      bool splittable = true;
      for (const Inst* u : users[var]) {
        bool at_var = u->operands[0] == var;
        if (u->GetOp() == Op::MemberPtr) {
          splittable &= at_var && only_accessed(u);
        } else if (u->GetOp() == Op::Load) {
          splittable &= at_var;
        } else {
          splittable &= u->GetOp() == Op::Store && at_var && u->operands[1] != var;
        }
      }
      if (!splittable) continue;
      std::vector<ir::Value*> parts;
      for (const ir::Type* m : t->Members()) {
        Inst* part = module.NewInst(Op::Var, module.Types().Pointer(ir::AddressSpace::Function, m));
        part->block = f.blocks.front();
        part->loc = var->loc;
        auto& entry = f.blocks.front()->insts;
        entry.insert(entry.begin(), part);
        parts.push_back(part);
      }
      std::map<const ir::Value*, ir::Value*> replaced;
      for (ir::Block* at : f.blocks) {
        std::vector<Inst*> rewritten;
        for (Inst* inst : at->insts) {
          bool uses_var = !inst->operands.empty() && inst->operands[0] == var;
          if (!uses_var) {
            rewritten.push_back(inst);
            continue;
          }
          if (inst->GetOp() == Op::MemberPtr) {
            replaced[inst] = parts.at(inst->imms.at(0));
            continue;
          }
          // Rebuilt through a scratch block, so the builder's checks apply.
          ir::Block scratch(&f);
          b.SetInsertBlock(&scratch);
          if (inst->GetOp() == Op::Load) {
            std::vector<ir::Value*> members;
            for (ir::Value* part : parts) members.push_back(b.Load(part));
            replaced[inst] = b.MakeStruct(t, members);
          } else {
            for (uint32_t m = 0; m < parts.size(); ++m) {
              b.Store(parts[m], b.Extract(inst->operands[1], m));
            }
          }
          for (Inst* made : scratch.insts) {
            made->block = at;
            made->loc = inst->loc;
            rewritten.push_back(made);
          }
        }
        at->insts = std::move(rewritten);
      }
      ir::ReplaceUses(f, replaced);
      auto& insts = var->block->insts;
      insts.erase(std::find(insts.begin(), insts.end(), var));
      return true;
    }
  }
  return false;
}

/// Folds `extract(make_struct(...), i)` to the member, and removes pure instructions
/// nothing uses. True when something changed.
bool FoldPairs(Function& f) {
  std::map<const ir::Value*, ir::Value*> replaced;
  for (ir::Block* block : f.blocks) {
    for (Inst* inst : block->insts) {
      if (inst->GetOp() != Op::Extract || inst->operands[0]->VKind() != ir::ValueKind::Inst)
        continue;
      auto* from = static_cast<Inst*>(inst->operands[0]);
      if (from->GetOp() == Op::MakeStruct) replaced[inst] = from->operands.at(inst->imms.at(0));
    }
  }
  if (!replaced.empty()) ir::ReplaceUses(f, replaced);
  bool changed = !replaced.empty();
  for (bool removed = true; removed;) {
    removed = false;
    std::map<const ir::Value*, size_t> uses;
    for (ir::Block* block : f.blocks) {
      for (Inst* inst : block->insts) {
        for (const ir::Value* v : inst->operands) ++uses[v];
      }
    }
    for (ir::Block* block : f.blocks) {
      auto dead = [&](const Inst* inst) {
        return PureOp(inst->GetOp()) && !inst->IsTerminator() && !inst->GetType()->IsVoid() &&
               uses.count(inst) == 0;
      };
      size_t before = block->insts.size();
      block->insts.erase(std::remove_if(block->insts.begin(), block->insts.end(), dead),
                         block->insts.end());
      removed |= block->insts.size() != before;
    }
    changed |= removed;
  }
  return changed;
}

}  // namespace

Function* JvpFromCustomForward(const ReverseContext& ctx, Function* f, Function* jvp,
                               std::vector<Function*>* scratch) {
  ir::Module& module = ctx.module;
  ir::TypeTable& types = module.Types();
  Function* g = f->autodiff.custom_fwd;
  if (g->blocks.empty() && ctx.ensure_body) ctx.ensure_body(g);
  if (g->blocks.empty()) return nullptr;
  // One `ret`, no early exits: the shape that inlines into structured code.
  Function* body = NormalizeControlFlow(module, ctx.options, g);
  if (body == nullptr) return nullptr;
  if (body != g) scratch->push_back(body);

  ir::Builder b(module);
  ir::Block* entry = module.AddBlock(jvp);
  jvp->blocks.push_back(entry);
  b.SetInsertBlock(entry);
  std::vector<ir::Value*> args;
  std::vector<std::pair<size_t, Inst*>> copy_back;  // jvp parameter of the primal, pair slot
  size_t k = 0;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const ir::Type* t = f->params[i]->GetType();
    const ir::Type* d = DifferentialType(types, t);
    const ir::Type* param = body->params.at(i)->GetType();
    ir::Value* primal = jvp->params.at(k);
    ir::Value* tangent = d != nullptr ? jvp->params.at(k + 1) : nullptr;
    k += d != nullptr ? 2 : 1;
    if (d == nullptr || param == t) {  // no derivative, or a no_diff parameter
      args.push_back(primal);
    } else if (d->IsPointer()) {
      Inst* slot = b.Var(jvp, param->Element());
      b.Store(slot, b.MakeStruct(param->Element(), {b.Load(primal), b.Load(tangent)}));
      args.push_back(slot);
      copy_back.push_back({k - 2, slot});
    } else {
      args.push_back(b.MakeStruct(param, {primal, tangent}));
    }
  }
  Inst* call = b.Call(body, std::move(args));
  for (auto& [j, slot] : copy_back) {
    ir::Value* pair = b.Load(slot);
    b.Store(jvp->params.at(j), b.Extract(pair, 0));
    b.Store(jvp->params.at(j + 1), b.Extract(pair, 1));
  }
  if (f->ResultType()->IsVoid()) {
    b.Return();
  } else if (k == jvp->params.size()) {  // the result has no derivative
    b.Return(call);
  } else if (body->ResultType() == f->ResultType()) {  // no_diff result
    ir::Value* slot = jvp->params.back();
    b.Store(slot, ir::ZeroValue(module, *jvp, slot->GetType()->Element()));
    b.Return(call);
  } else {
    b.Store(jvp->params.back(), b.Extract(call, 1));
    b.Return(b.Extract(call, 0));
  }
  // The derivative's body, and what it calls, join the split form; the pairs dissolve
  // into their members, which reverse mode classifies one by one.
  passes::InlineCallAt(module, *jvp, call);
  for (int round = 0; round < 8; ++round) {
    bool inlined = false;
    std::vector<Inst*> calls;
    for (ir::Block* block : jvp->blocks) {
      for (Inst* inst : block->insts) {
        if (inst->GetOp() == Op::Call && !inst->callee->blocks.empty()) calls.push_back(inst);
      }
    }
    for (Inst* c : calls) inlined |= passes::InlineCallAt(module, *jvp, c);
    if (!inlined) break;
  }
  while (SplitStructVars(module, *jvp)) {
  }
  passes::PromoteLocals(module, *jvp);
  while (SplitStructParams(module, *jvp) || FoldPairs(*jvp)) {
  }
  return jvp;
}

}  // namespace slope::autodiff::reverse

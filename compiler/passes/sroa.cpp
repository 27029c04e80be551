// sroa: scalar replacement of the aggregates that hold resources.
//
// A `var` of a struct type holding a resource (a buffer member, directly or in a nested
// struct) becomes one `var` per member when every use of it is a `load`, a `store` into
// it or a `member_ptr`: a load becomes a `make_struct` of the members' loads, a store one
// store per member of the stored value's `extract`s, and `member_ptr %v, k` is the k-th
// new variable. A block parameter of such a type becomes one parameter per member: each
// edge passes the `extract`s of its argument, and the block rebuilds the struct with a
// `make_struct` for the uses it had. Both repeat until no such struct is left, so nested
// structs split all the way down.
//
// What this leaves is for mem2reg (the member variables are scalars, vectors or buffers)
// and fold (`extract` of a `make_struct` is the member): together they reduce every
// buffer value to the global it came from. Structs without resources are left alone.

#include <algorithm>
#include <map>
#include <set>

#include "compiler/base/ice.h"
#include "compiler/ir/cfg.h"
#include "compiler/passes/passes.h"

namespace slope::passes {
namespace {

using ir::Block;
using ir::Function;
using ir::Inst;
using ir::Op;
using ir::Value;

bool IsSplitType(const ir::Type* t) { return t->IsStruct() && ContainsResource(t); }

class State {
 public:
  State(ir::Module& module, Function& f) : module_(module), f_(f) {}
  bool Run();

 private:
  bool SplitVars();
  bool SplitParams();
  bool SplitVar(Inst* var);
  void SplitParam(Block* b, size_t index);
  Inst* Make(Op op, const ir::Type* type, std::vector<Value*> operands, Block* b,
             source::SourceLoc loc, std::vector<uint32_t> imms = {}) {
    Inst* inst = module_.NewInst(op, type);
    inst->operands = std::move(operands);
    inst->imms = std::move(imms);
    inst->block = b;
    inst->loc = loc;
    return inst;
  }

  ir::Module& module_;
  Function& f_;
};

bool State::SplitVar(Inst* var) {
  // Only loads, stores into it and member pointers: anything else sees the whole struct.
  for (const Block* b : f_.blocks) {
    for (const Inst* inst : b->insts) {
      for (size_t i = 0; i < inst->operands.size(); ++i) {
        if (inst->operands[i] != var) continue;
        bool ok = i == 0 && (inst->GetOp() == Op::Load || inst->GetOp() == Op::Store ||
                             inst->GetOp() == Op::MemberPtr);
        if (!ok) return false;
      }
    }
  }
  const ir::Type* type = var->GetType()->Element();
  Block* entry = f_.blocks.front();
  std::vector<Inst*> members;
  for (const ir::Type* m : type->Members()) {
    members.push_back(Make(Op::Var, module_.Types().Pointer(ir::AddressSpace::Function, m), {},
                           entry, var->loc));
  }
  std::map<const Value*, Value*> replace;
  for (Block* b : f_.blocks) {
    std::vector<Inst*> out;
    for (Inst* inst : b->insts) {
      if (inst == var) {
        out.insert(out.end(), members.begin(), members.end());
        continue;
      }
      if (inst->operands.empty() || inst->operands[0] != var) {
        out.push_back(inst);
        continue;
      }
      switch (inst->GetOp()) {
        case Op::Load: {
          std::vector<Value*> parts;
          for (Inst* m : members) {
            out.push_back(Make(Op::Load, m->GetType()->Element(), {m}, b, inst->loc));
            parts.push_back(out.back());
          }
          out.push_back(Make(Op::MakeStruct, type, parts, b, inst->loc));
          replace[inst] = out.back();
          break;
        }
        case Op::Store:
          for (uint32_t k = 0; k < members.size(); ++k) {
            Inst* part = Make(Op::Extract, type->Members()[k], {inst->operands[1]}, b, inst->loc,
                              {k});
            out.push_back(part);
            out.push_back(Make(Op::Store, module_.Types().Void(), {members[k], part}, b, inst->loc));
          }
          break;
        case Op::MemberPtr:
          replace[inst] = members.at(inst->imms[0]);
          break;
        default:
          SLOPE_ICE("sroa: unexpected use of a split variable");
      }
    }
    b->insts = std::move(out);
  }
  ir::ReplaceUses(f_, replace);
  return true;
}

bool State::SplitVars() {
  std::vector<Inst*> candidates;
  for (Inst* inst : f_.blocks.front()->insts) {
    if (inst->GetOp() == Op::Var && IsSplitType(inst->GetType()->Element())) {
      candidates.push_back(inst);
    }
  }
  bool changed = false;
  for (Inst* var : candidates) changed = SplitVar(var) || changed;
  return changed;
}

void State::SplitParam(Block* b, size_t index) {
  ir::Param* p = b->params[index];
  const ir::Type* type = p->GetType();
  std::vector<ir::Param*> members;
  for (const ir::Type* m : type->Members()) members.push_back(module_.AddParam(m, b));
  // Every edge into `b` passes the members of its argument instead of the struct.
  std::map<const Block*, std::vector<ir::Edge>> preds = ir::Predecessors(f_);
  std::set<Inst*> done;
  for (const ir::Edge& e : preds[b]) {
    Inst* t = e.from->Terminator();
    if (!done.insert(t).second) continue;
    std::vector<std::vector<Value*>> args;
    for (size_t i = 0; i < ir::EdgeCount(*t); ++i) args.push_back(ir::EdgeArgs(*t, i));
    auto before = e.from->insts.end() - 1;
    std::vector<Inst*> extracts;
    for (size_t i = 0; i < args.size(); ++i) {
      if (t->targets[i] != b) continue;
      Value* whole = args[i][index];
      std::vector<Value*> parts;
      for (uint32_t k = 0; k < members.size(); ++k) {
        extracts.push_back(Make(Op::Extract, type->Members()[k], {whole}, e.from, t->loc, {k}));
        parts.push_back(extracts.back());
      }
      args[i].erase(args[i].begin() + static_cast<std::ptrdiff_t>(index));
      args[i].insert(args[i].begin() + static_cast<std::ptrdiff_t>(index), parts.begin(),
                     parts.end());
    }
    e.from->insts.insert(before, extracts.begin(), extracts.end());
    ir::SetEdgeArgs(*t, args);
  }
  b->params.erase(b->params.begin() + static_cast<std::ptrdiff_t>(index));
  b->params.insert(b->params.begin() + static_cast<std::ptrdiff_t>(index), members.begin(),
                   members.end());
  std::vector<Value*> parts(members.begin(), members.end());
  Inst* whole = Make(Op::MakeStruct, type, parts, b, source::SourceLoc());
  b->insts.insert(b->insts.begin(), whole);
  ir::ReplaceUses(f_, {{p, whole}});
}

bool State::SplitParams() {
  bool changed = false;
  for (Block* b : f_.blocks) {
    for (size_t i = 0; i < b->params.size(); ++i) {
      if (!IsSplitType(b->params[i]->GetType())) continue;
      SplitParam(b, i);
      changed = true;
      --i;  // the first member now sits at `i`; it may need splitting too
    }
  }
  return changed;
}

bool State::Run() {
  if (f_.blocks.empty()) return false;
  bool changed = false;
  for (bool again = true; again;) {
    again = SplitVars();
    again = SplitParams() || again;
    changed = changed || again;
  }
  return changed;
}

}  // namespace

Result ScalarReplace(ir::Module& module, const Options& options) {
  return ForEachFunction(module, [&](Function& f) { return State(module, f).Run(); });
}

}  // namespace slope::passes

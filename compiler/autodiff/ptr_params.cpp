// Locations derivatives flow through (types conforming to IDifferentiablePtrType):
// derivatives take a `DifferentialPtrPair<P>` {p, d} in place of a parameter of such a
// type P, as an input in both modes. Before either pass differentiates anything, each
// function lowering marked `ptr_pair(i: T, ...)` gets a copy (`f.ptr`) that takes the
// pair instead and reads `.p` where `f` read the parameter; in the copy, a call passing
// such a parameter's `.p` to another marked function calls that function's copy with the
// pair itself. The copy's pair parameters are `no_diff`, so the passes treat them as the
// inputs they are: primal values, never accumulated into nor made zero, and a custom
// derivative of `f` (written over the pair) is the copy's custom derivative as it
// stands. Every `fwd_diff(@f)` and `bwd_diff(@f)` then differentiates the copy. A call
// of a marked function left in differentiated code (its location is not a parameter of
// the function differentiated, so the location of its derivative is unknown) is E4550,
// reported by the JVP builder. See compiler/autodiff/README.md.

#include <functional>
#include <map>
#include <vector>

#include "compiler/autodiff/differential.h"
#include "compiler/autodiff/passes.h"
#include "compiler/ir/ir.h"

namespace slope::autodiff {

using ir::Function;
using ir::Inst;
using ir::Op;
using ir::Value;

namespace {

class Lifter {
 public:
  explicit Lifter(ir::Module& module) : module_(module) {}

  void Run() {
    std::vector<Function*> todo;
    for (Function* f : module_.functions) {
      if (!f->autodiff.ptr_params.empty() && f->autodiff.ptr_lifted == nullptr &&
          !f->blocks.empty()) {
        todo.push_back(f);
      }
    }
    if (todo.empty()) return;
    for (Function* f : todo) Declare(f);
    for (Function* f : todo) Copy(*f, f->autodiff.ptr_lifted);
    for (Function* f : module_.functions) {
      for (Function** link : {&f->autodiff.fwd_diff_of, &f->autodiff.bwd_diff_of}) {
        if (*link != nullptr && (*link)->autodiff.ptr_lifted != nullptr) {
          *link = (*link)->autodiff.ptr_lifted;
        }
      }
    }
  }

 private:
  void Declare(Function* f) {
    Function* g = module_.AddFunction(f->Name() + ".ptr", f->ResultType());
    g->autodiff.differentiable = f->autodiff.differentiable;
    g->autodiff.prefer_recompute = f->autodiff.prefer_recompute;
    g->autodiff.zero_derivative = f->autodiff.zero_derivative;
    g->autodiff.no_diff_result = f->autodiff.no_diff_result;
    g->autodiff.custom_fwd = f->autodiff.custom_fwd;
    g->autodiff.custom_bwd = f->autodiff.custom_bwd;
    g->autodiff.no_diff_params = f->autodiff.no_diff_params;
    g->autodiff.ptr_lifted_from = f;
    g->precise = f->precise;
    g->loc = f->loc;
    for (ir::Param* p : f->params) g->params.push_back(module_.AddParam(p->GetType(), nullptr));
    for (const auto& [i, pair] : f->autodiff.ptr_params) {
      g->params[i] = module_.AddParam(pair, nullptr);
      g->autodiff.no_diff_params.push_back(i);
    }
    f->autodiff.ptr_lifted = g;
  }

  /// `f`'s body into `g`, each location parameter read as its pair's `.p`.
  void Copy(const Function& f, Function* g) {
    std::map<const Value*, Value*> values;
    std::map<const ir::Block*, ir::Block*> blocks;
    std::map<const Value*, Value*> pair_of;  // `.p` extracted in g -> its pair parameter
    for (size_t i = 0; i < f.params.size(); ++i) values[f.params[i]] = g->params[i];
    std::vector<Inst*> extracts;
    for (const auto& [i, pair] : f.autodiff.ptr_params) {
      Inst* p = module_.NewInst(Op::Extract, f.params[i]->GetType());
      p->operands = {g->params[i]};
      p->imms = {0};
      p->loc = f.loc;
      values[f.params[i]] = p;
      pair_of[p] = g->params[i];
      extracts.push_back(p);
    }
    for (ir::Block* b : f.blocks) {
      ir::Block* nb = module_.AddBlock(g);
      g->blocks.push_back(nb);
      blocks[b] = nb;
      for (ir::Param* p : b->params) {
        nb->params.push_back(module_.AddParam(p->GetType(), nb));
        values[p] = nb->params.back();
      }
      bool placed = b != f.blocks.front();
      for (Inst* inst : b->insts) {
        if (!placed && inst->GetOp() != Op::Var) {
          // After the entry block's variables, which come first.
          for (Inst* p : extracts) {
            p->block = nb;
            nb->insts.push_back(p);
          }
          placed = true;
        }
        values[inst] = AppendInstCopy(module_, *inst, nb);
      }
    }
    for (ir::Block* b : f.blocks) {
      ir::Block* nb = blocks.at(b);
      size_t k = 0;
      for (Inst* inst : b->insts) {
        while (nb->insts[k]->GetOp() == Op::Extract && pair_of.count(nb->insts[k]) != 0) ++k;
        Inst* copy = nb->insts[k++];
        for (Value* v : inst->operands) {
          auto it = values.find(v);
          copy->operands.push_back(it == values.end() ? v : it->second);
        }
        for (ir::Block* t : inst->targets) copy->targets.push_back(blocks.at(t));
      }
    }
    TraceVars(*g, &pair_of);
    for (ir::Block* b : g->blocks) {
      for (Inst* inst : b->insts) {
        if (inst->GetOp() == Op::Call) PassPairs(inst, pair_of);
      }
    }
  }

  /// The pair whose `.p` `v` is: an extracted parameter, or a load of a variable
  /// `TraceVars` found to hold one.
  static Value* PairOf(Value* v, const std::map<const Value*, Value*>& pair_of) {
    if (auto it = pair_of.find(v); it != pair_of.end()) return it->second;
    if (v->VKind() != ir::ValueKind::Inst || static_cast<Inst*>(v)->GetOp() != Op::Load) {
      return nullptr;
    }
    auto it = pair_of.find(static_cast<Inst*>(v)->operands[0]);
    return it == pair_of.end() ? nullptr : it->second;
  }

  /// Locals of struct types holding resources stay `var`s until after differentiation
  /// (mem2reg leaves them to sroa): a `var` every store of which stores `.p` of one pair,
  /// and that is otherwise only read, holds that location; its loads are the location.
  static void TraceVars(const Function& g, std::map<const Value*, Value*>* pair_of) {
    std::map<const Value*, std::vector<Inst*>> uses;
    std::vector<Inst*> vars;
    for (ir::Block* b : g.blocks) {
      for (Inst* inst : b->insts) {
        if (inst->GetOp() == Op::Var) vars.push_back(inst);
        for (Value* v : inst->operands) uses[v].push_back(inst);
      }
    }
    // Only read through `ptr` (or pointers into it).
    std::function<bool(const Value*)> read_only = [&](const Value* ptr) {
      for (Inst* use : uses[ptr]) {
        Op op = use->GetOp();
        if (op == Op::Load) continue;
        if ((op == Op::MemberPtr || op == Op::ElementPtr) && use->operands[0] == ptr &&
            read_only(use)) {
          continue;
        }
        return false;
      }
      return true;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (Inst* var : vars) {
        if (pair_of->count(var) != 0) continue;
        Value* pair = nullptr;
        bool ok = true;
        size_t stores = 0;
        for (Inst* use : uses[var]) {
          Op op = use->GetOp();
          if (op == Op::Store && use->operands[0] == var && use->operands[1] != var) {
            Value* p = PairOf(use->operands[1], *pair_of);
            ok = ok && p != nullptr && (pair == nullptr || pair == p);
            pair = p;
            ++stores;
          } else if (op == Op::Load) {
            continue;
          } else if (!((op == Op::MemberPtr || op == Op::ElementPtr) && use->operands[0] == var &&
                       read_only(use))) {
            ok = false;
          }
        }
        if (ok && stores > 0) {
          (*pair_of)[var] = pair;
          changed = true;
        }
      }
    }
  }

  /// A call of a marked function whose locations are all `.p` of pairs g received:
  /// calls the callee's copy with the pairs.
  static void PassPairs(Inst* call, const std::map<const Value*, Value*>& pair_of) {
    Function* lifted = call->callee->autodiff.ptr_lifted;
    if (lifted == nullptr) return;
    std::vector<Value*> operands = call->operands;
    for (const auto& [i, pair] : call->callee->autodiff.ptr_params) {
      Value* p = PairOf(operands.at(i), pair_of);
      if (p == nullptr || p->GetType() != pair) return;
      operands[i] = p;
    }
    call->operands = std::move(operands);
    call->callee = lifted;
  }

  ir::Module& module_;
};

}  // namespace

void LiftPtrParams(ir::Module& module) { Lifter(module).Run(); }

}  // namespace slope::autodiff

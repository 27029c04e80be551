// Early exits made into flags, for reverse mode: the reverse sweep walks each structured
// region backwards from its end, so every region must end at its merge (or continue)
// block and the function at its one `ret`. This works on a copy of the function whose
// block parameters are first moved into `var`s (so any block may branch anywhere without
// arguments); the copy is rewritten region by region, values whose definition no longer
// dominates a use go through a `var` too, and mem2reg makes SSA values of the `var`s
// again.

#include "compiler/autodiff/reverse/normalize.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/autodiff/differential.h"
#include "compiler/base/ice.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/cfg.h"

namespace slope::autodiff::reverse {

using ir::Block;
using ir::Function;
using ir::Inst;
using ir::Op;
using ir::Value;

bool ProveTripCount(const Function& f, const Block* header, uint32_t* count) {
  // `for (int i = c0; i < n; i += s)` with constants c0, n and s > 0 (or `<=`): the
  // test compares a header parameter with a constant, the entry edge passes a constant
  // and the back edge the parameter plus a constant.
  const Inst* loop = header->Terminator();
  const Inst* test = loop->targets[0]->Terminator();
  if (test->GetOp() != Op::CondBr || test->operands.empty()) return false;
  Value* cond = test->operands[0];
  if (cond->VKind() != ir::ValueKind::Inst) return false;
  auto* cmp = static_cast<Inst*>(cond);
  if ((cmp->GetOp() != Op::Lt && cmp->GetOp() != Op::Le) || cmp->operands.size() != 2 ||
      cmp->operands[1]->VKind() != ir::ValueKind::Constant ||
      !cmp->operands[0]->GetType()->IsInt()) {
    return false;
  }
  auto* param = cmp->operands[0]->VKind() == ir::ValueKind::Param
                    ? static_cast<ir::Param*>(cmp->operands[0])
                    : nullptr;
  if (param == nullptr || param->GetBlock() != header) return false;
  size_t index =
      std::find(header->params.begin(), header->params.end(), param) - header->params.begin();
  const Inst* back = loop->targets[2]->Terminator();
  const Inst* entry = nullptr;
  for (const Block* b : f.blocks) {
    const Inst* t = b->Terminator();
    if (t != nullptr && t != back && t->GetOp() == Op::Br && t->targets[0] == header) entry = t;
  }
  if (entry == nullptr || back->GetOp() != Op::Br || back->operands.size() <= index) return false;
  Value* init = entry->operands.at(index);
  Value* next = back->operands[index];
  if (init->VKind() != ir::ValueKind::Constant || next->VKind() != ir::ValueKind::Inst) {
    return false;
  }
  auto* step = static_cast<Inst*>(next);
  if (step->GetOp() != Op::Add || step->operands[0] != param ||
      step->operands[1]->VKind() != ir::ValueKind::Constant) {
    return false;
  }
  int64_t c0 = static_cast<const ir::Constant*>(init)->AsSigned();
  int64_t n = static_cast<const ir::Constant*>(cmp->operands[1])->AsSigned();
  int64_t s = static_cast<const ir::Constant*>(step->operands[1])->AsSigned();
  if (s <= 0) return false;
  if (cmp->GetOp() == Op::Le) ++n;
  int64_t trips = n <= c0 ? 0 : (n - c0 + s - 1) / s;
  if (trips > (1 << 20)) return false;
  *count = static_cast<uint32_t>(trips);
  return true;
}

Function* CloneFunction(ir::Module& module, const Function& f) {
  Function* g = module.AddFunction(f.Name(), f.ResultType());
  g->autodiff.differentiable = f.autodiff.differentiable;
  g->autodiff.prefer_recompute = f.autodiff.prefer_recompute;
  g->autodiff.zero_derivative = f.autodiff.zero_derivative;
  g->autodiff.no_diff_result = f.autodiff.no_diff_result;
  g->precise = f.precise;
  g->loc = f.loc;
  g->autodiff.fwd_diff_of = f.autodiff.fwd_diff_of;
  g->autodiff.bwd_diff_of = f.autodiff.bwd_diff_of;
  g->autodiff.no_diff_params = f.autodiff.no_diff_params;
  std::map<const Value*, Value*> values;
  std::map<const Block*, Block*> blocks;
  for (ir::Param* p : f.params) {
    g->params.push_back(module.AddParam(p->GetType(), nullptr));
    values[p] = g->params.back();
  }
  for (Block* b : f.blocks) {
    Block* nb = module.AddBlock(g);
    g->blocks.push_back(nb);
    blocks[b] = nb;
    for (ir::Param* p : b->params) {
      nb->params.push_back(module.AddParam(p->GetType(), nb));
      values[p] = nb->params.back();
    }
    for (Inst* inst : b->insts) values[inst] = AppendInstCopy(module, *inst, nb);
  }
  for (Block* b : f.blocks) {
    for (size_t i = 0; i < b->insts.size(); ++i) {
      Inst* copy = blocks.at(b)->insts[i];
      for (Value* v : b->insts[i]->operands) {
        auto it = values.find(v);
        copy->operands.push_back(it == values.end() ? v : it->second);
      }
      for (Block* t : b->insts[i]->targets) copy->targets.push_back(blocks.at(t));
    }
  }
  return g;
}

namespace {

/// Flag `var`s, in the order they were first needed (the code testing them follows it).
using Flags = std::vector<Inst*>;

void AddFlag(Flags* flags, Inst* flag) {
  if (std::find(flags->begin(), flags->end(), flag) == flags->end()) flags->push_back(flag);
}

void AddFlags(Flags* flags, const Flags& more) {
  for (Inst* flag : more) AddFlag(flags, flag);
}

void RemoveFlag(Flags* flags, const Inst* flag) {
  flags->erase(std::remove(flags->begin(), flags->end(), flag), flags->end());
}

class Normalizer {
 public:
  Normalizer(ir::Module& module, const passes::Options& options, Function* f)
      : module_(module), options_(options), f_(f), b_(module) {}

  Function* Run();

 private:
  /// A construct the walk is inside: where `break` and `continue` of it go, and the
  /// flags they set (made when first needed).
  struct Construct {
    Op op;
    Block* merge;
    Block* cont = nullptr;   ///< a loop's continue block
    Inst* brk = nullptr;     ///< set by a `break` of a loop or switch
    Inst* cnt = nullptr;     ///< set by a `continue`
  };

  Function* Clone();
  /// Moves every block parameter into a `var`: each edge stores its arguments, and the
  /// block loads them on entry. Notes in `pointer_param_` a parameter no `var` can hold
  /// (a pointer), which is an error only when the function needs rewriting.
  void DemoteParams();
  /// Walks the region from `start` to `end` (the block its natural edges go to; null for
  /// the function's body), making `out` the block those edges go to instead. A `ret`,
  /// `break` or `continue` that leaves the region otherwise sets its flag and goes to
  /// `out` too. Returns the flags some path through the region may have set (those the
  /// code after it must test); records each block it walks or makes in `inside`.
  Flags Region(Block* start, Block* end, Block* out, std::vector<Block*>* inside);
  /// Rewrites the loop `header` heads (see NormalizeControlFlow); returns the flags
  /// that leave it set (a `return`'s) and in `resets` the flags to clear after it.
  Flags Loop(Block* header, std::vector<Block*>* inside, Flags* resets);
  /// The blocks from a loop's first block to the one ending in `cond_br %c, body,
  /// merge` (its test), with the arms of the selections between them; null when the
  /// loop has no such test (a `while (true)` or do-while loop).
  Block* FindTest(Block* first, Block* merge, Block* cont, std::vector<Block*>* test);
  /// The block of the continue region from `cont` (recorded in `blocks`) that branches
  /// back to `header` (on a do-while loop's condition), or null.
  Block* FindBackEdge(Block* cont, Block* header, std::vector<Block*>* blocks);
  /// Moves the continue region of loop `term` (which branches back from `back`) to the
  /// body's end (`body_end`, the builder's block), under `if` no flag of `stop` is set,
  /// and gives the loop a continue block that only branches back. A do-while loop's
  /// condition sets `brk` when false.
  void MoveContinue(Inst* term, Block* body_end, Block* back, Inst* brk, const Flags& stop,
                    std::vector<Block*>* inside);
  /// Makes loop `term`'s test (`tested` ends it, null when it has none) fail once a flag
  /// of `stop` is set.
  void StopTest(Inst* term, Block* tested, const std::vector<Block*>& test, const Flags& stop,
                std::vector<Block*>* inside);
  /// After a construct (terminator `term`, merge block `merge`, blocks `blocks`): a
  /// block between the construct and its merge block clears `resets` and, when some
  /// path may have set one of `pending`, enters `merge` (the rest of the region) only
  /// when none is set. Returns the block the region goes on with, null when it ends.
  Block* After(Inst* term, Block* merge, const Flags& pending, const Flags& resets,
               const std::vector<Block*>& blocks, Block* end, Block** out,
               std::vector<Block*>* inside);
  /// The flag a branch to `target` sets when it leaves constructs (a `break` or
  /// `continue`); null when `target` is not such a place.
  Inst* ExitFlag(Block* target);
  Inst* NewFlag();
  /// At the builder: true when no flag of `flags` is set.
  Value* NoneSet(const Flags& flags);
  Block* NewBlock() {
    Block* b = module_.AddBlock(g_);
    g_->blocks.push_back(b);
    return b;
  }
  /// Removes `block`'s terminator and leaves the builder at its end.
  void Reopen(Block* block) {
    b_.SetLoc(block->insts.back()->loc);
    block->insts.pop_back();
    b_.SetInsertBlock(block);
  }
  Inst* Make(Op op, const ir::Type* type, std::vector<Value*> operands, Block* block) {
    Inst* inst = module_.NewInst(op, type);
    inst->operands = std::move(operands);
    inst->block = block;
    return inst;
  }
  /// Stores `value` into `var` at the start of the function (after its `var`s).
  void InitAtEntry(Inst* var, Value* value);
  /// A use in `block` (before position `*at`) of `v`, which may not dominate it: the
  /// value itself, a pointer formed again there, or a load of a `var` it is kept in.
  Value* Available(Value* v, Block* block, size_t* at, const ir::DomTree& dom);
  void FixDominance();
  void Error(source::SourceLoc loc, const std::string& what) {
    passes::ReportError(options_, diag::DiagId::NoBackwardDerivative, loc, SourceName(*f_), what);
    failed_ = true;
  }

  ir::Module& module_;
  const passes::Options& options_;
  Function* f_;
  Function* g_ = nullptr;
  ir::Builder b_;
  bool changed_ = false;
  bool failed_ = false;
  std::vector<Construct> stack_;
  Inst* ret_flag_ = nullptr;
  Inst* ret_value_ = nullptr;
  std::map<const Value*, Inst*> kept_;  ///< value -> the var FixDominance keeps it in
  const Inst* pointer_param_ = nullptr;  ///< a branch into a block taking a pointer
};

Function* Normalizer::Clone() { return CloneFunction(module_, *f_); }

void Normalizer::DemoteParams() {
  std::map<const Value*, Value*> loads;
  std::map<const ir::Param*, Inst*> var_of;
  for (Block* b : g_->blocks) {
    size_t at = 0;
    for (ir::Param* p : b->params) {
      if (p->GetType()->IsPointer()) {
        if (pointer_param_ == nullptr) pointer_param_ = b->Terminator();
        continue;
      }
      Inst* var = b_.Var(g_, p->GetType());
      var_of[p] = var;
      Inst* load = Make(Op::Load, p->GetType(), {var}, b);
      b->insts.insert(b->insts.begin() + static_cast<std::ptrdiff_t>(at++), load);
      loads[p] = load;
    }
  }
  ir::ReplaceUses(*g_, loads);
  for (Block* b : g_->blocks) {
    Inst* term = b->Terminator();
    if (!ir::EdgeTakesArgs(*term)) continue;
    std::vector<std::vector<Value*>> none;
    for (size_t i = 0; i < ir::EdgeCount(*term); ++i) {
      std::vector<Value*> args = ir::EdgeArgs(*term, i);
      for (size_t j = 0; j < args.size(); ++j) {
        auto var = var_of.find(term->targets[i]->params.at(j));
        if (var == var_of.end()) continue;  // a pointer (pointer_param_)
        Inst* store = Make(Op::Store, module_.Types().Void(), {var->second, args[j]}, b);
        b->insts.insert(b->insts.end() - 1, store);
      }
      none.emplace_back();
    }
    ir::SetEdgeArgs(*term, none);
  }
  for (Block* b : g_->blocks) b->params.clear();
}

void Normalizer::InitAtEntry(Inst* var, Value* value) {
  Block* entry = g_->blocks.front();
  size_t at = 0;
  while (at < entry->insts.size() && entry->insts[at]->GetOp() == Op::Var) ++at;
  Inst* store = Make(Op::Store, module_.Types().Void(), {var, value}, entry);
  entry->insts.insert(entry->insts.begin() + static_cast<std::ptrdiff_t>(at), store);
}

Inst* Normalizer::NewFlag() {
  Inst* flag = b_.Var(g_, module_.Types().Bool());
  InitAtEntry(flag, module_.ConstBool(false));
  return flag;
}

Value* Normalizer::NoneSet(const Flags& flags) {
  Value* any = nullptr;
  for (Inst* flag : flags) {
    Value* set = b_.Load(flag);
    any = any == nullptr ? set : b_.Binary(Op::LogicalOr, any, set);
  }
  return b_.Unary(Op::LogicalNot, any);
}

Inst* Normalizer::ExitFlag(Block* target) {
  for (size_t i = stack_.size(); i-- > 0;) {
    Construct& c = stack_[i];
    bool breaks = c.op != Op::If && target == c.merge;
    if (breaks) {
      if (c.brk == nullptr) c.brk = NewFlag();
      return c.brk;
    }
    if (c.op == Op::Loop && target == c.cont) {
      if (c.cnt == nullptr) c.cnt = NewFlag();
      return c.cnt;
    }
  }
  return nullptr;
}

Flags Normalizer::Region(Block* start, Block* end, Block* out, std::vector<Block*>* inside) {
  Flags pending;
  for (Block* b = start; !failed_;) {
    inside->push_back(b);
    Inst* term = b->Terminator();
    switch (term->GetOp()) {
      case Op::Return: {
        if (!stack_.empty()) changed_ = true;
        Value* value = term->operands.empty() ? nullptr : term->operands[0];
        Reopen(b);
        if (value != nullptr) b_.Store(ret_value_, value);
        b_.Store(ret_flag_, module_.ConstBool(true));
        b_.Br(out);
        AddFlag(&pending, ret_flag_);
        return pending;
      }
      case Op::Unreachable:
        Reopen(b);
        b_.Br(out);
        return pending;
      case Op::Br: {
        Block* target = term->targets[0];
        if (target == end) {
          term->targets[0] = out;
          return pending;
        }
        if (Inst* flag = ExitFlag(target)) {
          changed_ = true;
          Reopen(b);
          b_.Store(flag, module_.ConstBool(true));
          b_.Br(out);
          AddFlag(&pending, flag);
          return pending;
        }
        b = target;
        break;
      }
      case Op::If:
      case Op::Switch: {
        Block* merge = term->targets.back();
        stack_.push_back({term->GetOp(), merge});
        Flags inner;
        std::vector<Block*> blocks;
        std::set<Block*> seen;
        for (size_t i = 0; i < ir::EdgeCount(*term) && !failed_; ++i) {
          Block* arm = term->targets[i];
          if (arm == merge || !seen.insert(arm).second) continue;
          AddFlags(&inner, Region(arm, merge, merge, &blocks));
        }
        Construct self = stack_.back();
        stack_.pop_back();
        Flags resets;
        if (self.brk != nullptr) {
          RemoveFlag(&inner, self.brk);
          resets.push_back(self.brk);
        }
        inside->insert(inside->end(), blocks.begin(), blocks.end());
        AddFlags(&pending, inner);
        b = After(term, merge, inner, resets, blocks, end, &out, inside);
        if (b == nullptr) return pending;
        break;
      }
      case Op::Loop: {
        std::vector<Block*> blocks;
        Flags resets;
        Flags inner = Loop(b, &blocks, &resets);
        inside->insert(inside->end(), blocks.begin(), blocks.end());
        AddFlags(&pending, inner);
        b = After(term, term->targets[1], inner, resets, blocks, end, &out, inside);
        if (b == nullptr) return pending;
        break;
      }
      default:
        Error(term->loc, std::string("'") + ir::GetOpInfo(term->GetOp()).mnemonic +
                             "' control flow outside a loop's test");
        return pending;
    }
  }
  return pending;
}

Block* Normalizer::After(Inst* term, Block* merge, const Flags& pending, const Flags& resets,
                         const std::vector<Block*>& blocks, Block* end, Block** out,
                         std::vector<Block*>* inside) {
  bool at_end = merge == end;
  if (pending.empty() && resets.empty() && (!at_end || *out == end)) {
    return at_end ? nullptr : merge;
  }
  // A block between the construct and its merge block: the construct's edges into the
  // merge block go to it.
  Block* between = NewBlock();
  inside->push_back(between);
  auto retarget = [&](Inst* t, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      if (t->targets[i] == merge) t->targets[i] = between;
    }
  };
  if (term->GetOp() == Op::Loop) {
    term->targets[1] = between;
  } else {
    retarget(term, 0, term->targets.size());
  }
  for (Block* b : blocks) {
    Inst* t = b->Terminator();
    retarget(t, 0, ir::EdgeCount(*t));
  }
  b_.SetInsertBlock(between);
  b_.SetLoc(term->loc);
  for (Inst* flag : resets) b_.Store(flag, module_.ConstBool(false));
  if (at_end) {
    b_.Br(*out);
    return nullptr;
  }
  if (pending.empty()) {
    b_.Br(merge);
    return merge;
  }
  Block* skip = NewBlock();
  inside->push_back(skip);
  b_.If(NoneSet(pending), merge, skip, skip);
  b_.SetInsertBlock(skip);
  b_.Br(*out);
  *out = skip;
  return merge;
}

/// Appends to `blocks` the arms of the selection `term` heads (blocks up to its merge).
void AddArms(const Inst* term, std::vector<Block*>* blocks) {
  Block* join = term->targets.back();
  std::vector<Block*> work(term->targets.begin(), term->targets.end() - 1);
  std::set<Block*> seen;
  while (!work.empty()) {
    Block* arm = work.back();
    work.pop_back();
    if (arm == join || !seen.insert(arm).second) continue;
    blocks->push_back(arm);
    for (Block* s : ir::Successors(*arm)) work.push_back(s);
  }
}

Block* Normalizer::FindTest(Block* first, Block* merge, Block* cont, std::vector<Block*>* test) {
  for (Block* b = first; b != cont;) {
    test->push_back(b);
    const Inst* term = b->Terminator();
    switch (term->GetOp()) {
      case Op::CondBr: return term->targets[1] == merge ? b : nullptr;
      case Op::Br:
        if (term->targets[0] == merge) return nullptr;
        b = term->targets[0];
        break;
      case Op::If:
      case Op::Switch:
        // A condition's selections (`&&`, `||`, `?:`): their arms only compute.
        AddArms(term, test);
        b = term->targets.back();
        break;
      default: return nullptr;
    }
  }
  return nullptr;
}

Block* Normalizer::FindBackEdge(Block* cont, Block* header, std::vector<Block*>* blocks) {
  for (Block* b = cont; b != nullptr;) {
    blocks->push_back(b);
    const Inst* t = b->Terminator();
    if ((t->GetOp() == Op::Br || t->GetOp() == Op::CondBr) && t->targets[0] == header) return b;
    if (t->GetOp() == Op::Br) {
      b = t->targets[0];
    } else if (t->GetOp() == Op::If || t->GetOp() == Op::Switch) {
      AddArms(t, blocks);
      b = t->targets.back();
    } else {
      b = nullptr;
    }
  }
  return nullptr;
}

void Normalizer::MoveContinue(Inst* term, Block* body_end, Block* back, Inst* brk,
                              const Flags& stop, std::vector<Block*>* inside) {
  Block* header = term->block;
  Block* cont = term->targets[2];
  Block* new_cont = NewBlock();
  inside->push_back(new_cont);
  b_.SetInsertBlock(body_end);
  b_.SetLoc(term->loc);
  Block* after = new_cont;
  if (!stop.empty()) {
    after = NewBlock();
    inside->push_back(after);
    b_.If(NoneSet(stop), cont, after, after);
    b_.SetInsertBlock(after);
    b_.Br(new_cont);
  } else {
    b_.Br(cont);
  }
  // A do-while loop's condition, false, now sets the `break` flag.
  const Inst* back_edge = back->Terminator();
  Value* again = back_edge->GetOp() == Op::CondBr ? back_edge->operands[0] : nullptr;
  Reopen(back);
  if (again != nullptr) b_.Store(brk, b_.Unary(Op::LogicalNot, again));
  b_.Br(after);
  b_.SetInsertBlock(new_cont);
  b_.SetLoc(term->loc);
  b_.Br(header);
  term->targets[2] = new_cont;
}

void Normalizer::StopTest(Inst* term, Block* tested, const std::vector<Block*>& test,
                          const Flags& stop, std::vector<Block*>* inside) {
  Block* first = term->targets[0];
  Block* merge = term->targets[1];
  b_.SetLoc(term->loc);
  if (tested == nullptr) {
    Block* top = NewBlock();
    inside->push_back(top);
    b_.SetInsertBlock(top);
    b_.CondBr(stop.empty() ? module_.ConstBool(true) : NoneSet(stop), first, merge);
    term->targets[0] = top;
    return;
  }
  if (stop.empty()) return;
  // A store (an edge's argument included) or a call in the test must not run again once
  // the loop is left.
  bool effects = std::any_of(test.begin(), test.end(), [](const Block* b) {
    return std::any_of(b->insts.begin(), b->insts.end() - 1, [](const Inst* inst) {
      return ir::GetOpInfo(inst->GetOp()).has_side_effects;
    });
  });
  Inst* branch = tested->Terminator();
  Value* cond = branch->operands[0];
  Block* body = branch->targets[0];
  if (!effects) {
    // Evaluating the condition once more changes nothing: and it with the flags.
    Reopen(tested);
    b_.CondBr(b_.Binary(Op::LogicalAnd, cond, NoneSet(stop)), body, merge);
    return;
  }
  // The condition is evaluated only while no flag is set.
  Inst* go = b_.Var(g_, module_.Types().Bool());
  InitAtEntry(go, module_.ConstBool(false));
  Block* top = NewBlock();
  Block* join = NewBlock();
  inside->push_back(top);
  inside->push_back(join);
  Reopen(tested);
  b_.Store(go, cond);
  b_.Br(join);
  b_.SetInsertBlock(top);
  b_.Store(go, module_.ConstBool(false));
  b_.If(NoneSet(stop), first, join, join);
  b_.SetInsertBlock(join);
  b_.CondBr(b_.Load(go), body, merge);
  term->targets[0] = top;
}

Flags Normalizer::Loop(Block* header, std::vector<Block*>* inside, Flags* resets) {
  Inst* term = header->Terminator();
  Block* first = term->targets[0];
  Block* merge = term->targets[1];
  Block* cont = term->targets[2];
  inside->push_back(header);
  std::vector<Block*> test;
  Block* tested = FindTest(first, merge, cont, &test);
  if (tested == nullptr) test.clear();
  inside->insert(inside->end(), test.begin(), test.end());
  // The body ends in a block of its own, where `continue` lands.
  Block* body_end = NewBlock();
  inside->push_back(body_end);
  Block* body = tested != nullptr ? tested->Terminator()->targets[0] : first;
  stack_.push_back({Op::Loop, merge, cont});
  Flags inner;
  if (body == cont) {
    // An empty body: the new body_end makes one.
    changed_ = true;
    if (tested != nullptr) tested->Terminator()->targets[0] = body_end;
    if (tested == nullptr) term->targets[0] = first = body_end;
  } else {
    inner = Region(body, cont, body_end, inside);
  }
  Construct self = stack_.back();
  stack_.pop_back();
  if (failed_) return {};
  std::vector<Block*> cont_blocks;
  Block* back = FindBackEdge(cont, header, &cont_blocks);
  if (back == nullptr) {
    Error(term->loc, "this loop's continue block does not branch back to it");
    return {};
  }
  inside->insert(inside->end(), cont_blocks.begin(), cont_blocks.end());
  bool do_while = back->Terminator()->GetOp() == Op::CondBr;
  bool simple_cont = back == cont && !do_while;
  Flags stop;  // the flags that end the loop
  if (self.brk != nullptr) AddFlag(&stop, self.brk);
  if (std::find(inner.begin(), inner.end(), ret_flag_) != inner.end()) AddFlag(&stop, ret_flag_);
  if (do_while && self.brk == nullptr) {
    self.brk = NewFlag();
    AddFlag(&stop, self.brk);
  }
  if (self.cnt != nullptr || !simple_cont || tested == nullptr) changed_ = true;
  // At the body's end `continue` is over; the continue block's code runs there, unless
  // the loop is being left.
  b_.SetInsertBlock(body_end);
  b_.SetLoc(term->loc);
  if (self.cnt != nullptr) b_.Store(self.cnt, module_.ConstBool(false));
  if (simple_cont && stop.empty()) {
    b_.Br(cont);
  } else {
    MoveContinue(term, body_end, back, self.brk, stop, inside);
  }
  StopTest(term, tested, test, stop, inside);
  if (self.brk != nullptr) resets->push_back(self.brk);
  RemoveFlag(&inner, self.brk);
  RemoveFlag(&inner, self.cnt);
  return inner;
}

Value* Normalizer::Available(Value* v, Block* block, size_t* at, const ir::DomTree& dom) {
  if (v->VKind() != ir::ValueKind::Inst) return v;
  auto* def = static_cast<Inst*>(v);
  if (def->block == block || dom.Dominates(def->block, block)) return v;
  auto insert = [&](Inst* inst) {
    block->insts.insert(block->insts.begin() + static_cast<std::ptrdiff_t>((*at)++), inst);
    return inst;
  };
  if (def->GetOp() == Op::ElementPtr || def->GetOp() == Op::MemberPtr) {
    // Pointers are formed again where used.
    Inst* copy = Make(def->GetOp(), def->GetType(), {}, block);
    copy->imms = def->imms;
    for (Value* operand : def->operands) {
      copy->operands.push_back(Available(operand, block, at, dom));
    }
    return insert(copy);
  }
  auto [it, fresh] = kept_.emplace(def, nullptr);
  if (fresh) {
    it->second = b_.Var(g_, def->GetType());
    Block* home = def->block;
    auto pos = std::find(home->insts.begin(), home->insts.end(), def);
    home->insts.insert(pos + 1, Make(Op::Store, module_.Types().Void(), {it->second, def}, home));
  }
  return insert(Make(Op::Load, def->GetType(), {it->second}, block));
}

void Normalizer::FixDominance() {
  ir::DomTree dom(*g_);
  for (Block* block : g_->blocks) {
    if (!dom.IsReachable(block) || block == g_->blocks.front()) continue;
    for (size_t i = 0; i < block->insts.size(); ++i) {
      Inst* inst = block->insts[i];
      for (size_t k = 0; k < inst->operands.size(); ++k) {
        inst->operands[k] = Available(inst->operands[k], block, &i, dom);
      }
    }
  }
}

Function* Normalizer::Run() {
  size_t returns = 0;
  for (const Block* b : f_->blocks) {
    if (b->Terminator()->GetOp() == Op::Return) ++returns;
  }
  g_ = Clone();
  // Trip counts the copy's form no longer shows.
  std::map<Inst*, uint32_t> proved;
  for (Block* b : g_->blocks) {
    Inst* t = b->Terminator();
    uint32_t count = 0;
    if (t->GetOp() == Op::Loop && t->imms.size() < 2 && ProveTripCount(*g_, b, &count)) {
      proved[t] = count;
    }
  }
  auto drop = [&] {
    auto& fs = module_.functions;
    fs.erase(std::remove(fs.begin(), fs.end(), g_), fs.end());
  };
  DemoteParams();
  if (!f_->ResultType()->IsVoid()) ret_value_ = b_.Var(g_, f_->ResultType());
  ret_flag_ = NewFlag();
  Block* exit = NewBlock();
  b_.SetInsertBlock(exit);
  b_.SetLoc(f_->loc);
  b_.Return(ret_value_ != nullptr ? b_.Load(ret_value_) : nullptr);
  std::vector<Block*> inside;
  Region(g_->blocks.front(), nullptr, exit, &inside);
  if (failed_ || (!changed_ && returns <= 1)) {
    drop();
    return failed_ ? nullptr : f_;
  }
  if (pointer_param_ != nullptr) {
    Error(pointer_param_->loc, "a pointer chosen by control flow, in a function that leaves "
                               "a construct early ('return', 'break', 'continue')");
    drop();
    return nullptr;
  }
  for (auto& [loop, count] : proved) {
    uint32_t control = loop->imms.empty() ? 0 : loop->imms[0];
    loop->imms = {control, count};
  }
  FixDominance();
  // Definitions before uses, as the reverse pass copies blocks in order.
  ir::DomTree dom(*g_);
  std::vector<Block*> order = dom.ReversePostOrder();
  for (Block* b : g_->blocks) {
    if (!dom.IsReachable(b)) order.push_back(b);
  }
  g_->blocks = order;
  passes::PromoteLocals(module_, *g_);
  return g_;
}

}  // namespace

Function* NormalizeControlFlow(ir::Module& module, const passes::Options& options, Function* f) {
  return Normalizer(module, options, f).Run();
}

}  // namespace slope::autodiff::reverse

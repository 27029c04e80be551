// Blocks with `defer`, `return`, `break`/`continue`, and error handling.
//
// `defer`: each block (and each switch clause) is a scope holding the bodies deferred in
// it. Every way out of a scope lowers those bodies again at the point of exit, last
// deferred first: the block's normal end, `return` (after its value is computed),
// `break`/`continue` (down to the loop's scope) and an error leaving for a `catch` or
// out of the function.
//
// Errors: a function declared `throws E` gets two hidden trailing parameters, a
// `ptr<function, bool>` it sets when it throws (cleared on entry) and a
// `ptr<function, E>` receiving the error; it then returns a zero value. The caller
// passes two local slots and tests the flag after the call. A `do { } catch` is a loop
// that runs once: an error for one of its clauses stores the error in that clause's
// variable and leaves the loop with the clause's number (1, 2, ...) in the loop's flag,
// crossing nested loops and switches one construct at a time like a `break outer;`
// (SPIR-V's structured control flow). After the loop the flag chooses the clause; -1 and
// -2 pass on a `break` or `continue` of an enclosing loop written in the `do` body.

#include "compiler/lower/lowerer.h"

namespace slope::lower {

void Lowerer::LowerBlock(const std::vector<ast::Stmt*>& stmts) {
  defer_scopes_.emplace_back();
  for (const ast::Stmt* s : stmts) {
    if (s->kind == ast::StmtKind::Defer) {
      defer_scopes_.back().push_back(static_cast<const ast::DeferStmt*>(s)->body);
    } else {
      LowerStmt(s);
    }
  }
  if (!defer_scopes_.back().empty() && !b_.IsTerminated() && b_.GetInsertBlock() != dead_block_) {
    RunDefers(defer_scopes_.size() - 1);
  }
  defer_scopes_.pop_back();
}

void Lowerer::RunDefers(size_t down_to) {
  for (size_t i = defer_scopes_.size(); i-- > down_to;) {
    // A copy: the bodies' own blocks push scopes of their own.
    std::vector<const ast::Stmt*> bodies = defer_scopes_[i];
    for (size_t j = bodies.size(); j-- > 0;) LowerStmt(bodies[j]);
  }
}

void Lowerer::LowerReturn(const ast::ReturnStmt* s) {
  if (decl_->func_kind == ast::FuncKind::Init) {
    RunDefers(0);
    b_.Return(b_.Load(locals_.at(decl_->this_param)));
  } else if (s->value != nullptr) {
    Value* v = LowerExpr(s->value);
    // `no_diff R f(...)`: the result carries no derivative into differentiated callers.
    if ((decl_->modifiers & ast::kModNoDiff) != 0) v = Detach(v);
    RunDefers(0);
    Loc(s->range);
    b_.Return(v);
  } else {
    RunDefers(0);
    Loc(s->range);
    b_.Return();
  }
  StartDeadBlock();
}

void Lowerer::LowerJump(bool is_continue, bool run_defers) {
  // The construct it leaves: the innermost one not a `do`/`catch` (for `continue`, not
  // a switch either).
  size_t k = loops_.size();
  while (k > 0 && (loops_[k - 1].is_catch || (is_continue && loops_[k - 1].is_switch))) --k;
  if (k == 0) SLOPE_ICE("a break or continue outside a loop reached lowering");
  --k;
  size_t through = loops_.size();  // the innermost `do`/`catch` inside it, if any
  for (size_t j = loops_.size(); j-- > k + 1;) {
    if (loops_[j].is_catch) {
      through = j;
      break;
    }
  }
  if (run_defers) RunDefers(loops_[k].defer_depth);
  if (through == loops_.size()) {
    b_.Br(is_continue ? loops_.back().continue_target : loops_.back().break_target);
    StartDeadBlock();
    return;
  }
  for (CatchTarget& c : catches_) {
    if (c.loop_index != through) continue;
    (is_continue ? c.uses_continue : c.uses_break) = true;
  }
  JumpToCatch(through, is_continue ? -2 : -1);
}

void Lowerer::JumpToCatch(size_t index, int64_t code) {
  const ir::Type* int_type = LowerType(types_.Int());
  b_.Store(loops_[index].exit_flag, module_->ConstInt(int_type, code));
  if (index + 1 == loops_.size()) {
    b_.Br(loops_[index].break_target);
  } else {
    std::vector<size_t>& pending = loops_.back().pending;
    if (std::find(pending.begin(), pending.end(), index) == pending.end()) {
      pending.push_back(index);
    }
    b_.Br(loops_.back().break_target);
  }
  StartDeadBlock();
}

Lowerer::CatchTarget Lowerer::LowerOnceLoop(const ast::Stmt* body, Value* which,
                                            CatchTarget target) {
  target.loop_index = loops_.size();
  target.defer_depth = defer_scopes_.size();
  ir::Block* header = NewBlock();
  ir::Block* first = NewBlock();
  ir::Block* cont = NewBlock();
  ir::Block* exit = NewBlock();
  b_.Br(header);
  Place(header);
  b_.Loop(first, exit, cont);
  Place(first);
  loops_.push_back({exit, cont, std::string(), which});
  loops_.back().defer_depth = defer_scopes_.size();
  loops_.back().is_catch = true;
  catches_.push_back(std::move(target));
  LowerStmt(body);
  target = std::move(catches_.back());
  catches_.pop_back();
  std::vector<size_t> pending = std::move(loops_.back().pending);
  loops_.pop_back();
  if (!b_.IsTerminated()) b_.Br(exit);  // the body runs once
  Place(cont);
  b_.Br(header);  // never taken: the back edge a loop needs
  Place(exit);
  ExitPending(pending);
  return target;
}

void Lowerer::WhenFlag(Value* which, int64_t code, const std::function<void()>& body) {
  const ir::Type* int_type = LowerType(types_.Int());
  Value* cond = b_.Compare(ir::Op::Eq, b_.Load(which), module_->ConstInt(int_type, code));
  ir::Block* then_block = NewBlock();
  ir::Block* merge = NewBlock();
  b_.If(cond, then_block, merge, merge);
  Place(then_block);
  body();
  if (!b_.IsTerminated()) b_.Br(merge);
  Place(merge);
}

Value* Lowerer::NewExitFlag() {
  const ir::Type* int_type = LowerType(types_.Int());
  Value* which = b_.Var(func_, int_type);
  b_.Store(which, module_->ConstInt(int_type, 0));
  return which;
}

void Lowerer::LowerDoCatch(const ast::DoCatchStmt* s) {
  Value* which = NewExitFlag();
  CatchTarget target;
  for (const ast::CatchClause& c : s->clauses) {
    Value* slot = b_.Var(func_, LowerType(c.var->type));
    locals_[c.var] = slot;
    target.types.push_back(Concrete(c.var->type));
    target.slots.push_back(slot);
  }
  target = LowerOnceLoop(s->body, which, std::move(target));
  // The clause the flag names, or the break/continue the body passed on.
  for (size_t i = 0; i < s->clauses.size(); ++i) {
    WhenFlag(which, static_cast<int64_t>(i) + 1, [&] { LowerStmt(s->clauses[i].body); });
  }
  if (target.uses_break) WhenFlag(which, -1, [&] { LowerJump(false, false); });
  if (target.uses_continue) WhenFlag(which, -2, [&] { LowerJump(true, false); });
}

void Lowerer::LowerBodyBeforeThrowingStep(const ast::Stmt* body) {
  // As a `do` with no catch clause: a `continue` of the loop leaves this one-iteration
  // loop with -2 in its flag, a `break` with -1; after it, -1 breaks the loop and
  // anything else falls through to the step.
  Value* which = NewExitFlag();
  CatchTarget target = LowerOnceLoop(body, which, CatchTarget());
  if (target.uses_break) WhenFlag(which, -1, [&] { LowerJump(false, false); });
}

void Lowerer::LowerThrow(const sema::Type* err, Value* value) {
  const sema::Type* type = Concrete(err);
  for (size_t c = catches_.size(); c-- > 0;) {
    const CatchTarget& target = catches_[c];
    for (size_t i = 0; i < target.types.size(); ++i) {
      if (target.types[i] != type) continue;
      b_.Store(target.slots[i], value);
      RunDefers(target.defer_depth);
      JumpToCatch(target.loop_index, static_cast<int64_t>(i) + 1);
      return;
    }
  }
  if (throw_flag_ == nullptr) SLOPE_ICE("an uncaught error in a function that does not throw");
  b_.Store(throw_flag_, module_->ConstBool(true));
  b_.Store(throw_err_, value);
  RunDefers(0);
  if (decl_->func_kind == ast::FuncKind::Init) {
    b_.Return(b_.Load(locals_.at(decl_->this_param)));
  } else if (func_->ResultType()->IsVoid()) {
    b_.Return();
  } else {
    b_.Return(Zero(func_->ResultType()));
  }
  StartDeadBlock();
}

void Lowerer::LowerCallError(const OutArg& out) {
  Value* threw = b_.Load(out.slot);
  ir::Block* then_block = NewBlock();
  ir::Block* merge = NewBlock();
  b_.If(threw, then_block, merge, merge);
  Place(then_block);
  LowerThrow(out.thrown, b_.Load(out.err_slot));
  if (!b_.IsTerminated()) b_.Br(merge);
  Place(merge);
}

void Lowerer::AddErrorParams(const ast::FuncDecl* decl, ir::Function* f) {
  const sema::Type* err = decl->throws_type;
  if (err == nullptr || err->IsError()) return;
  ir::TypeTable& types = module_->Types();
  const ir::Type* flag_type = types.Pointer(ir::AddressSpace::Function, LowerType(types_.Bool()));
  const ir::Type* err_type = types.Pointer(ir::AddressSpace::Function, LowerType(Concrete(err)));
  ir::Param* flag = module_->AddParam(flag_type, nullptr);
  ir::Param* slot = module_->AddParam(err_type, nullptr);
  f->params.push_back(flag);
  f->params.push_back(slot);
  throw_flag_ = flag;
  throw_err_ = slot;
  b_.Store(flag, module_->ConstBool(false));
}

}  // namespace slope::lower

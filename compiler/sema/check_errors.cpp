// Error handling (`throws`, `throw`, `try`, `do`/`catch`) and `defer` statements.
//
// A function declares the one enum type it throws (`int f() throws MyError`). Every call
// of a throwing function is written `try f()`; its error, like a `throw`'s, goes to the
// nearest enclosing `catch` of its type, else out of the function, which must then
// declare `throws` that type. A `defer` body runs when its block is left; nothing may
// leave the body itself (no return, no break or continue of an outer loop, no error
// that is not caught inside it).

#include <algorithm>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

void Checker::CheckThrowsClause(ast::FuncDecl* func) {
  func->throws_type = ResolveType(func->throws_type_expr);
  const Type* err = func->throws_type;
  source::SourceRange at = func->throws_type_expr->range;
  if (!err->IsEnum() && !err->IsError()) {
    diags_.Report(DiagId::ErrorTypeInvalid, at, "the 'throws' type", err->Name());
    func->throws_type = types_.Error();
    return;
  }
  if (func->parent != nullptr && func->parent->kind == ast::DeclKind::Interface) {
    diags_.Report(DiagId::ThrowsUnsupported, at, "interface requirement '" + func->name + "'",
                  "yet (call a throwing function of the conforming type directly)");
  } else if (func->func_kind != ast::FuncKind::Plain &&
             func->func_kind != ast::FuncKind::Operator) {
    diags_.Report(DiagId::ThrowsUnsupported, at, "a constructor or property accessor",
                  "yet (make it a method that throws)");
  } else if (IsDifferentiableFunction(func)) {
    diags_.Report(DiagId::ThrowsUnsupported, at, "differentiable function '" + func->name + "'",
                  "(derivatives of code that throws are not supported yet)");
  } else if (func->FindAttribute("shader") != nullptr ||
             func->FindAttribute("numthreads") != nullptr) {
    diags_.Report(DiagId::ThrowsUnsupported, at, "entry point '" + func->name + "'",
                  "(an entry point has no caller to catch its errors)");
  } else {
    return;
  }
  func->throws_type = types_.Error();
}

void Checker::CheckErrorHandled(const Type* err, source::SourceRange at, const char* what) {
  if (err == nullptr || err->IsError()) return;
  if (current_function_ != nullptr && IsDifferentiableFunction(current_function_)) {
    diags_.Report(DiagId::ErrorHandlingInDiff, at, what, current_function_->name);
    return;
  }
  for (size_t i = error_scopes_.size(); i-- > 0;) {
    const ErrorScope& scope = error_scopes_[i];
    if (scope.is_defer) {
      std::string word(what);  // "'try'" -> "try"
      diags_.Report(DiagId::JumpOutOfDefer, at, word.substr(1, word.size() - 2));
      return;
    }
    if (std::find(scope.catches.begin(), scope.catches.end(), err) != scope.catches.end()) return;
  }
  const ast::FuncDecl* f = current_function_;
  if (f == nullptr || f->throws_type == err) return;
  if (f->throws_type != nullptr && f->throws_type->IsError()) return;
  std::string why =
      f->throws_type == nullptr
          ? "'" + f->name + "' does not declare 'throws " + err->Name() + "'"
          : "'" + f->name + "' throws '" + f->throws_type->Name() + "', not '" + err->Name() + "'";
  diags_.Report(DiagId::ErrorNotHandled, at, what, err->Name(), why);
}

void Checker::CheckTryCall(ast::CallExpr* call, const ast::Expr* checked) {
  const ast::FuncDecl* f = checked == call ? call->func : nullptr;
  const Type* err = f != nullptr ? f->throws_type : nullptr;
  if (err == nullptr) {
    if (call->is_try) {
      std::string name = f != nullptr ? f->name : "this function";
      diags_.Report(DiagId::TryWithoutThrow, call->try_range, name);
      call->is_try = false;
    }
    return;
  }
  if (err->IsError()) return;
  if (!call->is_try) {
    diags_.Report(DiagId::CallNeedsTry, call->range, f->name, err->Name(), f->name);
    return;
  }
  if (in_loop_continue_ != nullptr) *in_loop_continue_ = true;
  CheckErrorHandled(err, call->try_range, "'try'");
}

bool Checker::CheckThrow(ast::ThrowStmt* s) {
  s->value = CheckExpr(s->value);
  const Type* t = s->value->type;
  if (!t->IsEnum()) {
    if (!t->IsError()) {
      diags_.Report(DiagId::ErrorTypeInvalid, s->value->range, "the thrown value's type",
                    t->Name());
    }
    return false;
  }
  CheckErrorHandled(t, source::SourceRange(s->range.begin), "'throw'");
  return false;
}

bool Checker::CheckDoCatch(ast::DoCatchStmt* s) {
  if (current_function_ != nullptr && IsDifferentiableFunction(current_function_)) {
    diags_.Report(DiagId::ErrorHandlingInDiff, source::SourceRange(s->range.begin), "'do'/'catch'",
                  current_function_->name);
  }
  ErrorScope scope;
  for (ast::CatchClause& c : s->clauses) {
    c.var->type = ResolveType(c.var->type_expr);
    const Type* t = c.var->type;
    if (!t->IsEnum()) {
      if (!t->IsError()) {
        diags_.Report(DiagId::ErrorTypeInvalid, c.var->type_expr->range, "the caught type",
                      t->Name());
      }
      continue;
    }
    if (std::find(scope.catches.begin(), scope.catches.end(), t) != scope.catches.end()) {
      diags_.Report(DiagId::DuplicateCatch, c.range, t->Name());
      continue;
    }
    scope.catches.push_back(t);
  }
  error_scopes_.push_back(std::move(scope));
  scopes_.emplace_back();
  bool falls = CheckStmt(s->body);
  scopes_.pop_back();
  error_scopes_.pop_back();
  for (ast::CatchClause& c : s->clauses) {
    scopes_.emplace_back();
    Declare(c.var);
    falls = CheckStmt(c.body) || falls;
    scopes_.pop_back();
  }
  return falls;
}

bool Checker::CheckDefer(ast::DeferStmt* s) {
  ErrorScope scope;
  scope.is_defer = true;
  scope.loop_depth = loop_depth_;
  scope.switch_count = switches_.size();
  error_scopes_.push_back(std::move(scope));
  scopes_.emplace_back();
  CheckStmt(s->body);
  scopes_.pop_back();
  error_scopes_.pop_back();
  return true;
}

void Checker::CheckJumpFromDefer(const ast::Stmt* stmt) {
  auto defer = std::find_if(error_scopes_.rbegin(), error_scopes_.rend(),
                            [](const ErrorScope& e) { return e.is_defer; });
  if (defer == error_scopes_.rend()) return;
  bool leaves = false;
  if (stmt->kind == ast::StmtKind::Return) {
    leaves = true;
  } else {
    bool labeled = std::any_of(stmt->attributes.begin(), stmt->attributes.end(),
                               [](const ast::Attribute& a) { return a.name == "__label"; });
    bool in_switch = stmt->kind == ast::StmtKind::Break && switches_.size() > defer->switch_count &&
                     switches_.back().loop_depth == loop_depth_;
    leaves = labeled || (!in_switch && loop_depth_ <= defer->loop_depth);
  }
  if (leaves) {
    const char* word = stmt->kind == ast::StmtKind::Return  ? "return"
                       : stmt->kind == ast::StmtKind::Break ? "break"
                                                            : "continue";
    diags_.Report(DiagId::JumpOutOfDefer, stmt->range, word);
  }
}

}  // namespace slope::sema

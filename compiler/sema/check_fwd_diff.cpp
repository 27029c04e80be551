// Typing of `fwd_diff(f)(args)` and of custom forward derivatives.
//
// For `[Differentiable] R f(T0 a, inout T1 b, out T2 c, no_diff U u)`, `fwd_diff(f)`
// has type `DifferentialPair<R> (DifferentialPair<T0>, inout DifferentialPair<T1>,
// out DifferentialPair<T2>, U)`: parameters and results of differentiable types (not
// `no_diff`) become pairs. `fwd_diff(fwd_diff(f))` applies the rule twice. A function
// named by `[ForwardDerivative(g)]` (or carrying `[ForwardDerivativeOf(f)]`) must have
// exactly that type.

#include <string>
#include <string_view>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {

bool IsNoDiff(const ast::VarDecl* p) { return (p->modifiers & ast::kModNoDiff) != 0; }

const char* DirectionPrefix(ast::ParamDirection d) {
  switch (d) {
    case ast::ParamDirection::In: return "";
    case ast::ParamDirection::Out: return "out ";
    case ast::ParamDirection::InOut: return "inout ";
  }
  return "";
}

/// The innermost operand of nested `fwd_diff`s; `*order` gets how many there are.
ast::NameExpr* InnermostName(ast::DiffExpr* diff, size_t* order) {
  *order = 1;
  while (diff->operand->kind == ast::ExprKind::Diff) {
    diff = static_cast<ast::DiffExpr*>(diff->operand);
    ++*order;
  }
  return static_cast<ast::NameExpr*>(diff->operand);
}

bool AnyBackward(const ast::DiffExpr* diff) {
  for (const ast::Expr* e = diff; e->kind == ast::ExprKind::Diff;
       e = static_cast<const ast::DiffExpr*>(e)->operand) {
    if (static_cast<const ast::DiffExpr*>(e)->backward) return true;
  }
  return false;
}

}  // namespace

const Type* Checker::DifferentialPairOf(const Type* t) {
  auto it = scopes_.front().find("DifferentialPair");
  if (it == scopes_.front().end()) return nullptr;
  auto st = struct_types_.find(it->second);
  return st == struct_types_.end() ? nullptr : types_.StructOf(st->second->Info(), {t});
}

FwdSignature Checker::FwdDiffSignature(const ast::FuncDecl* f, size_t order) {
  FwdSignature sig;
  sig.result = f->result_type;
  for (const ast::VarDecl* p : f->params) {
    sig.params.push_back(p->type);
    sig.directions.push_back(p->direction);
  }
  for (size_t level = 0; level < order; ++level) {
    for (size_t i = 0; i < sig.params.size(); ++i) {
      if (!IsNoDiff(f->params[i]) && IsDifferentiableType(sig.params[i])) {
        sig.params[i] = DifferentialPairOf(sig.params[i]);
      }
    }
    if (IsDifferentiableType(sig.result)) sig.result = DifferentialPairOf(sig.result);
  }
  return sig;
}

std::string FwdSignature::Describe() const {
  std::string s = result->Name() + " (";
  for (size_t i = 0; i < params.size(); ++i) {
    s += (i == 0 ? "" : ", ") + std::string(DirectionPrefix(directions[i])) + params[i]->Name();
  }
  return s + ")";
}

ast::Expr* Checker::CheckDiff(ast::DiffExpr* expr) {
  expr->type = types_.Error();
  if (CheckDiffOperand(expr)) {
    diags_.Report(DiagId::UnsupportedConstruct, expr->range,
                  "'fwd_diff' and 'bwd_diff' as values (not called)", "are");
  }
  return expr;
}

ast::Expr* Checker::CheckDiffCall(ast::CallExpr* call) {
  auto* diff = static_cast<ast::DiffExpr*>(call->callee);
  diff->type = types_.Error();
  call->type = types_.Error();
  for (ast::Expr*& a : call->args) a = CheckExpr(a);
  if (!CheckDiffOperand(diff)) return call;
  if (AnyBackward(diff)) {
    diags_.Report(DiagId::UnsupportedConstruct, call->range, "calls of 'bwd_diff'", "are");
    return call;
  }
  size_t order = 0;
  ast::NameExpr* name = InnermostName(diff, &order);
  const ast::FuncDecl* f = nullptr;
  for (const ast::FuncDecl* candidate : OverloadsOf(static_cast<ast::FuncDecl*>(name->decl))) {
    if (IsDifferentiableFunction(candidate) &&
        (f == nullptr || candidate->params.size() == call->args.size())) {
      f = candidate;
    }
  }
  if (!f->generic_context.empty()) {
    diags_.Report(DiagId::UnsupportedConstruct, name->range, "'fwd_diff' of generic functions",
                  "is");
    return call;
  }
  FwdSignature sig = FwdDiffSignature(f, order);
  if (call->args.size() != sig.params.size()) {
    diags_.Report(DiagId::WrongArgumentCount, call->range, "fwd_diff(" + name->name + ")",
                  sig.params.size(), call->args.size());
    return call;
  }
  for (size_t i = 0; i < call->args.size(); ++i) call->args[i] = Coerce(call->args[i], sig.params[i]);
  call->func = const_cast<ast::FuncDecl*>(f);
  CheckOutArguments(call, f);
  // Record each level's type for lowering, the outermost first.
  size_t level = order;
  for (ast::Expr* e = diff; e->kind == ast::ExprKind::Diff;
       e = static_cast<ast::DiffExpr*>(e)->operand, --level) {
    auto* d = static_cast<ast::DiffExpr*>(e);
    FwdSignature at = FwdDiffSignature(f, level);
    d->param_types = at.params;
    d->result_type = at.result;
    d->func = f;
  }
  call->type = sig.result;
  return call;
}

void Checker::CheckCustomDerivatives(const std::vector<ast::Decl*>& decls) {
  for (ast::Decl* decl : decls) {
    if (decl->kind != ast::DeclKind::Func) continue;
    auto* func = static_cast<ast::FuncDecl*>(decl);
    for (const char* attr_name : {"ForwardDerivative", "ForwardDerivativeOf"}) {
      const ast::Attribute* attr = func->FindAttribute(attr_name);
      if (attr == nullptr) continue;
      ast::FuncDecl* other = AttributeFunction(*attr);
      if (other == nullptr) continue;
      bool of = std::string_view(attr_name) == "ForwardDerivativeOf";
      LinkForwardDerivative(of ? other : func, of ? func : other, *attr);
    }
  }
}

ast::FuncDecl* Checker::AttributeFunction(const ast::Attribute& attr) {
  ast::Decl* decl = nullptr;
  if (attr.args.size() == 1 && attr.args[0]->kind == ast::ExprKind::Name) {
    decl = Lookup(static_cast<ast::NameExpr*>(attr.args[0])->name);
  }
  if (decl == nullptr || decl->kind != ast::DeclKind::Func) {
    diags_.Report(DiagId::InvalidAttributeArgs, attr.range, attr.name, "the name of a function");
    return nullptr;
  }
  return static_cast<ast::FuncDecl*>(decl);
}

void Checker::LinkForwardDerivative(ast::FuncDecl* primal, ast::FuncDecl* derivative,
                                    const ast::Attribute& attr) {
  if (!primal->generic_context.empty() || !derivative->generic_context.empty()) {
    diags_.Report(DiagId::UnsupportedConstruct, attr.range,
                  "custom derivatives of generic functions", "are");
    return;
  }
  FwdSignature want = FwdDiffSignature(primal, 1);
  FwdSignature have;
  have.result = derivative->result_type;
  for (const ast::VarDecl* p : derivative->params) {
    have.params.push_back(p->type);
    have.directions.push_back(p->direction);
  }
  if (have.params != want.params || have.directions != want.directions ||
      have.result != want.result) {
    diags_.Report(DiagId::DerivativeSignatureMismatch, attr.range, derivative->name,
                  primal->name, have.Describe(), primal->name, want.Describe())
        .Note(DiagId::DeclaredHere, derivative->name_range, derivative->name);
    return;
  }
  primal->fwd_derivative = derivative;
}

}  // namespace slope::sema

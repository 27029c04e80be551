// Typing of `bwd_diff(f)(args)` and of custom backward derivatives.
//
// For `[Differentiable] R f(T0 a, inout T1 b, out T2 c, no_diff U u)`, `bwd_diff(f)`
// has type `void (inout DifferentialPair<T0>, inout DifferentialPair<T1>,
// T2.Differential, U, R.Differential)`: each differentiable input is a pair whose `.d`
// receives its gradient, each differentiable `out` parameter becomes the gradient of
// that output, and the gradient of the result comes last. A function named by
// `[BackwardDerivative(g)]` (or carrying `[BackwardDerivativeOf(f)]`) must have exactly
// that type.

#include <string>
#include <string_view>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

FwdSignature Checker::BwdDiffSignature(const ast::FuncDecl* f) {
  FwdSignature sig;
  sig.result = types_.Void();
  for (const ast::VarDecl* p : f->params) {
    bool no_diff = (p->modifiers & ast::kModNoDiff) != 0;
    if (no_diff || !IsDifferentiableType(p->type)) {
      sig.params.push_back(p->type);
      sig.directions.push_back(p->direction);
    } else if (p->direction == ast::ParamDirection::Out) {
      sig.params.push_back(DifferentialOf(p->type));
      sig.directions.push_back(ast::ParamDirection::In);
    } else {
      sig.params.push_back(DifferentialPairOf(p->type));
      sig.directions.push_back(ast::ParamDirection::InOut);
    }
  }
  if (IsDifferentiableType(f->result_type)) {
    sig.params.push_back(DifferentialOf(f->result_type));
    sig.directions.push_back(ast::ParamDirection::In);
  }
  return sig;
}

ast::Expr* Checker::CheckBwdDiffCall(ast::CallExpr* call) {
  auto* diff = static_cast<ast::DiffExpr*>(call->callee);
  if (diff->operand->kind == ast::ExprKind::Diff) {
    diags_.Report(DiagId::UnsupportedConstruct, diff->range,
                  "'bwd_diff' of a derivative and derivatives of 'bwd_diff'", "are");
    return call;
  }
  if (diff->operand->kind != ast::ExprKind::Name) {
    diags_.Report(DiagId::UnsupportedConstruct, diff->operand->range,
                  "'bwd_diff' of methods", "are");
    return call;
  }
  for (const ast::Expr* a : call->args) {
    if (a->type->IsError()) return call;
  }
  DiffTarget target = DiffTargetOf(diff);
  // Of several differentiable overloads, the one taking as many arguments.
  const ast::FuncDecl* f = nullptr;
  for (const Candidate& c : target.candidates) {
    if (!IsDifferentiableFunction(c.func)) continue;
    if (f == nullptr || BwdDiffSignature(c.func).params.size() == call->args.size()) f = c.func;
  }
  if (f == nullptr) return call;
  if (!f->generic_context.empty() || f->parent != nullptr) {
    diags_.Report(DiagId::UnsupportedConstruct, diff->operand->range,
                  "'bwd_diff' of generic functions and methods", "are");
    return call;
  }
  std::string shown = "bwd_diff(" + target.name + ")";
  FwdSignature sig = BwdDiffSignature(f);
  if (call->args.size() != sig.params.size()) {
    diags_.Report(DiagId::WrongArgumentCount, call->range, shown, sig.params.size(),
                  call->args.size());
    return call;
  }
  for (size_t i = 0; i < call->args.size(); ++i) {
    call->args[i] = Coerce(call->args[i], sig.params[i]);
    if (sig.directions[i] == ast::ParamDirection::In || call->args[i]->type->IsError()) continue;
    if (!IsAssignableQuietly(call->args[i])) {
      diags_.Report(DiagId::OutArgNotLValue, call->args[i]->range, i + 1, shown,
                    sig.directions[i] == ast::ParamDirection::Out ? "out" : "inout");
      return call;
    }
    NoteWritten(call->args[i]);
  }
  diff->generic_args.clear();
  diff->param_types = sig.params;
  diff->param_directions = sig.directions;
  diff->result_type = sig.result;
  diff->func = f;
  diff->explicit_this = false;
  diff->type = types_.Error();
  call->type = sig.result;
  return call;
}

void Checker::LinkBackwardDerivatives(ast::FuncDecl* func) {
  for (const char* attr_name : {"BackwardDerivative", "BackwardDerivativeOf"}) {
    const ast::Attribute* attr = func->FindAttribute(attr_name);
    if (attr == nullptr) continue;
    ast::FuncDecl* other = AttributeFunction(*attr, func);
    if (other == nullptr) continue;
    bool of = std::string_view(attr_name) == "BackwardDerivativeOf";
    ast::FuncDecl* primal = of ? other : func;
    ast::FuncDecl* derivative = of ? func : other;
    if (!primal->generic_context.empty() || !derivative->generic_context.empty() ||
        primal->parent != nullptr || derivative->parent != nullptr) {
      diags_.Report(DiagId::UnsupportedConstruct, attr->range,
                    "backward derivatives of generic functions and methods", "are");
      continue;
    }
    FwdSignature want = BwdDiffSignature(primal);
    FwdSignature have;
    have.result = derivative->result_type;
    for (const ast::VarDecl* p : derivative->params) {
      have.params.push_back(p->type);
      have.directions.push_back(p->direction);
    }
    if (have.params != want.params || have.directions != want.directions ||
        have.result != want.result || derivative == primal) {
      diags_.Report(DiagId::BackwardDerivativeMismatch, attr->range, derivative->name,
                    primal->name, have.Describe(), primal->name, want.Describe())
          .Note(DiagId::DeclaredHere, derivative->name_range, derivative->name);
      continue;
    }
    primal->bwd_derivative = derivative;
  }
}

}  // namespace slope::sema

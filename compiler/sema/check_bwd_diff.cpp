// Typing of `bwd_diff(f)(args)` and of custom backward derivatives.
//
// For `[Differentiable] R f(T0 a, inout T1 b, out T2 c, no_diff U u)`, `bwd_diff(f)`
// has type `void (inout DifferentialPair<T0>, inout DifferentialPair<T1>,
// T2.Differential, U, R.Differential)`: each differentiable input is a pair whose `.d`
// receives its gradient, each differentiable `out` parameter becomes the gradient of
// that output, and the gradient of the result comes last. `fwd_diff` and `bwd_diff`
// nest, with one `bwd_diff` at most: each applies its rule to the type of its operand
// (`fwd_diff(bwd_diff(f))` is the forward derivative of the backward one). A function named by
// `[BackwardDerivative(g)]` (or carrying `[BackwardDerivativeOf(f)]`) must have exactly
// that type.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

FwdSignature Checker::ApplyDiffLevel(const FwdSignature& sig, std::vector<bool>* no_diff,
                                    bool backward) {
  FwdSignature out;
  std::vector<bool> out_no_diff;
  if (!backward) {
    out = sig;
    for (size_t i = 0; i < sig.params.size(); ++i) {
      if (!(*no_diff)[i] && IsDifferentiableType(sig.params[i])) {
        out.params[i] = DifferentialPairOf(sig.params[i]);
      }
    }
    if (IsDifferentiableType(sig.result)) out.result = DifferentialPairOf(sig.result);
    return out;
  }
  out.result = types_.Void();
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const Type* t = sig.params[i];
    out_no_diff.push_back((*no_diff)[i]);
    if ((*no_diff)[i] || !IsDifferentiableType(t)) {
      out.params.push_back(t);
      out.directions.push_back(sig.directions[i]);
    } else if (sig.directions[i] == ast::ParamDirection::Out) {
      out.params.push_back(DifferentialOf(t));
      out.directions.push_back(ast::ParamDirection::In);
    } else {
      out.params.push_back(DifferentialPairOf(t));
      out.directions.push_back(ast::ParamDirection::InOut);
    }
  }
  if (IsDifferentiableType(sig.result)) {
    out.params.push_back(DifferentialOf(sig.result));
    out.directions.push_back(ast::ParamDirection::In);
    out_no_diff.push_back(false);
  }
  *no_diff = std::move(out_no_diff);
  return out;
}

FwdSignature Checker::BwdDiffSignature(const ast::FuncDecl* f) {
  std::vector<bool> no_diff;
  for (const ast::VarDecl* p : f->params) no_diff.push_back((p->modifiers & ast::kModNoDiff) != 0);
  return ApplyDiffLevel(FwdDiffSignature(f, 0, nullptr, false), &no_diff, true);
}

std::vector<FwdSignature> Checker::DiffChainSignatures(const ast::FuncDecl* f,
                                                       const std::vector<ast::DiffExpr*>& chain) {
  std::vector<bool> no_diff;
  for (const ast::VarDecl* p : f->params) no_diff.push_back((p->modifiers & ast::kModNoDiff) != 0);
  std::vector<FwdSignature> levels(chain.size());
  FwdSignature sig = FwdDiffSignature(f, 0, nullptr, false);
  for (size_t i = chain.size(); i-- > 0;) {
    sig = ApplyDiffLevel(sig, &no_diff, chain[i]->backward);
    levels[i] = sig;
  }
  return levels;
}

ast::Expr* Checker::CheckBwdDiffCall(ast::CallExpr* call) {
  auto* diff = static_cast<ast::DiffExpr*>(call->callee);
  // The operators, the outermost first; reverse mode applies once at most.
  std::vector<ast::DiffExpr*> chain{diff};
  while (chain.back()->operand->kind == ast::ExprKind::Diff) {
    chain.push_back(static_cast<ast::DiffExpr*>(chain.back()->operand));
  }
  size_t backward = 0;
  for (const ast::DiffExpr* d : chain) backward += d->backward ? 1 : 0;
  if (backward > 1) {
    diags_.Report(DiagId::UnsupportedConstruct, diff->range,
                  "'bwd_diff' of a backward derivative (reverse mode applied twice)", "is");
    return call;
  }
  ast::DiffExpr* inner = chain.back();
  if (inner->operand->kind != ast::ExprKind::Name) {
    diags_.Report(DiagId::UnsupportedConstruct, inner->operand->range,
                  "'bwd_diff' of methods", "are");
    return call;
  }
  for (const ast::Expr* a : call->args) {
    if (a->type->IsError()) return call;
  }
  DiffTarget target = DiffTargetOf(inner);
  // Of several differentiable overloads, the one taking as many arguments.
  const ast::FuncDecl* f = nullptr;
  for (const Candidate& c : target.candidates) {
    if (!IsDifferentiableFunction(c.func)) continue;
    if (f == nullptr ||
        DiffChainSignatures(c.func, chain).front().params.size() == call->args.size()) {
      f = c.func;
    }
  }
  if (f == nullptr) return call;
  if (!f->generic_context.empty() || f->parent != nullptr) {
    diags_.Report(DiagId::UnsupportedConstruct, inner->operand->range,
                  "'bwd_diff' of generic functions and methods", "are");
    return call;
  }
  std::string shown = target.name;
  for (size_t i = chain.size(); i-- > 0;) {
    shown = std::string(chain[i]->backward ? "bwd_diff(" : "fwd_diff(") + shown + ")";
  }
  // fwd_diff over bwd_diff(f) differentiates f's custom backward derivative, if any.
  if (inner->backward && chain.size() > 1 && f->bwd_derivative != nullptr &&
      !IsDifferentiableFunction(f->bwd_derivative)) {
    diags_.Report(DiagId::DiffOfNonDifferentiable, diff->range, shown, f->bwd_derivative->name)
        .Note(DiagId::DeclaredHere, f->bwd_derivative->name_range, f->bwd_derivative->name);
    return call;
  }
  std::vector<FwdSignature> levels = DiffChainSignatures(f, chain);
  const FwdSignature& sig = levels.front();
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
  // Each level's type, for lowering.
  for (size_t i = 0; i < chain.size(); ++i) {
    ast::DiffExpr* d = chain[i];
    d->generic_args.clear();
    d->param_types = levels[i].params;
    d->param_directions = levels[i].directions;
    d->result_type = levels[i].result;
    d->func = f;
    d->explicit_this = false;
    d->type = types_.Error();
  }
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

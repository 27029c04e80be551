// Typing of `bwd_diff(f)(args)` and of custom backward derivatives.
//
// For `[Differentiable] R f(T0 a, inout T1 b, out T2 c, no_diff U u)`, `bwd_diff(f)`
// has type `void (inout DifferentialPair<T0>, inout DifferentialPair<T1>,
// T2.Differential, U, R.Differential)`: each differentiable input is a pair whose `.d`
// receives its gradient, each differentiable `out` parameter becomes the gradient of
// that output, and the gradient of the result comes last. A location (a type conforming
// to IDifferentiablePtrType P) becomes an `in DifferentialPtrPair<P>`. `fwd_diff` and `bwd_diff`
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
                                     bool backward, bool no_diff_result) {
  FwdSignature out;
  std::vector<bool> out_no_diff;
  if (!backward) {
    out = sig;
    for (size_t i = 0; i < sig.params.size(); ++i) {
      if (!(*no_diff)[i] && IsDifferentiableType(sig.params[i])) {
        out.params[i] = DifferentialPairOf(sig.params[i]);
      } else if (!(*no_diff)[i] && IsDifferentiablePtrType(sig.params[i])) {
        out.params[i] = DifferentialPtrPairOf(sig.params[i]);
      }
    }
    if (!no_diff_result && IsDifferentiableType(sig.result)) {
      out.result = DifferentialPairOf(sig.result);
    }
    return out;
  }
  out.result = types_.Void();
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const Type* t = sig.params[i];
    out_no_diff.push_back((*no_diff)[i]);
    if (!(*no_diff)[i] && IsDifferentiablePtrType(t)) {
      // A location: its derivative's location is an input, nothing is written back.
      out.params.push_back(DifferentialPtrPairOf(t));
      out.directions.push_back(ast::ParamDirection::In);
    } else if ((*no_diff)[i] || !IsDifferentiableType(t)) {
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
  if (!no_diff_result && IsDifferentiableType(sig.result)) {
    out.params.push_back(DifferentialOf(sig.result));
    out.directions.push_back(ast::ParamDirection::In);
    out_no_diff.push_back(false);
  }
  *no_diff = std::move(out_no_diff);
  return out;
}

namespace {

/// Which parameters of `f` carry no derivative, `this` first with `explicit_this` (the
/// operand names a method by its type: `this` is a parameter like the others, with no
/// derivative under [NoDiffThis]).
std::vector<bool> NoDiffParams(const ast::FuncDecl* f, bool explicit_this) {
  std::vector<bool> no_diff;
  if (explicit_this) no_diff.push_back(f->FindAttribute("NoDiffThis") != nullptr);
  for (const ast::VarDecl* p : f->params) no_diff.push_back((p->modifiers & ast::kModNoDiff) != 0);
  return no_diff;
}

}  // namespace

FwdSignature Checker::BwdDiffSignature(const ast::FuncDecl* f, const Subst* bindings,
                                       bool explicit_this) {
  std::vector<bool> no_diff = NoDiffParams(f, explicit_this);
  return ApplyDiffLevel(FwdDiffSignature(f, 0, bindings, explicit_this), &no_diff, true,
                        HasNoDiffResult(f));
}

std::vector<FwdSignature> Checker::DiffChainSignatures(const ast::FuncDecl* f,
                                                       const std::vector<ast::DiffExpr*>& chain,
                                                       const Subst* bindings, bool explicit_this) {
  std::vector<bool> no_diff = NoDiffParams(f, explicit_this);
  std::vector<FwdSignature> levels(chain.size());
  FwdSignature sig = FwdDiffSignature(f, 0, bindings, explicit_this);
  for (size_t i = chain.size(); i-- > 0;) {
    sig = ApplyDiffLevel(sig, &no_diff, chain[i]->backward, HasNoDiffResult(f));
    levels[i] = sig;
  }
  return levels;
}

std::string DiffChainName(const std::vector<ast::DiffExpr*>& chain, const std::string& name) {
  std::string shown = name;
  for (size_t i = chain.size(); i-- > 0;) {
    shown = std::string(chain[i]->backward ? "bwd_diff(" : "fwd_diff(") + shown + ")";
  }
  return shown;
}

FwdSignature Checker::BoundThisBwdSignature(const ast::FuncDecl* f, const Type* receiver,
                                            const Subst& bindings) {
  FwdSignature primal = FwdDiffSignature(f, 0, &bindings, false);
  primal.params.insert(primal.params.begin(), receiver);
  primal.directions.insert(primal.directions.begin(),
                           f->is_mutating ? ast::ParamDirection::InOut : ast::ParamDirection::In);
  std::vector<bool> no_diff = NoDiffParams(f, true);
  return ApplyDiffLevel(primal, &no_diff, true, HasNoDiffResult(f));
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
  for (const ast::Expr* a : call->args) {
    if (a->type->IsError()) return call;
  }
  DiffTarget target = DiffTargetOf(inner);
  // A method named by its type (`S.m`) takes `this` first; `obj.m` binds `obj` as `this`.
  const Candidate* chosen = ChooseDiffOverload(target, chain, call);
  if (chosen == nullptr) return call;
  const ast::FuncDecl* f = chosen->func;
  bool explicit_this = target.by_type && f->this_param != nullptr;
  std::string shown = DiffChainName(chain, target.name);
  // fwd_diff over bwd_diff(f) differentiates f's custom backward derivative, if any.
  if (inner->backward && chain.size() > 1 && f->bwd_derivative != nullptr &&
      !IsDifferentiableFunction(f->bwd_derivative)) {
    diags_.Report(DiagId::DiffOfNonDifferentiable, diff->range, shown, f->bwd_derivative->name)
        .Note(DiagId::DeclaredHere, f->bwd_derivative->name_range, f->bwd_derivative->name);
    return call;
  }
  if (HasNoDiffResult(f) && chain.size() > 1) {
    diags_.Report(DiagId::UnsupportedConstruct, diff->range,
                  "'bwd_diff' nested with 'fwd_diff' over a function whose result is 'no_diff'",
                  "is");
    return call;
  }
  // Nested operators over `obj.m` differentiate `S.m` with `this` first, given the
  // object with zero derivatives.
  bool receiver_first = inner->receiver != nullptr && chain.size() > 1;
  if (receiver_first && inner->receiver->type->IsDependent()) {
    diags_.Report(DiagId::UnsupportedConstruct, inner->operand->range,
                  "nested 'fwd_diff'/'bwd_diff' of a method bound to an object of a generic "
                  "parameter's type (name the method by its type: '" +
                      inner->receiver->type->Name() + "." + f->name + "')",
                  "are");
    return call;
  }
  Subst bindings;
  if (!BindDiffGenerics(call, target, *chosen, chain, explicit_this, &bindings)) return call;
  std::vector<FwdSignature> levels =
      DiffChainSignatures(f, chain, &bindings, explicit_this || receiver_first);
  const FwdSignature sig = levels.front();
  size_t first = receiver_first ? 1 : 0;
  for (size_t i = 0; i < call->args.size(); ++i) {
    call->args[i] = Coerce(call->args[i], sig.params[first + i]);
    ast::ParamDirection direction = sig.directions[first + i];
    if (direction == ast::ParamDirection::In || call->args[i]->type->IsError()) continue;
    if (!IsAssignableQuietly(call->args[i])) {
      diags_.Report(DiagId::OutArgNotLValue, call->args[i]->range, i + 1, shown,
                    direction == ast::ParamDirection::Out ? "out" : "inout");
      return call;
    }
    NoteWritten(call->args[i]);
  }
  // `bwd_diff(obj.m)`: lowering calls the backward derivative `bwd_diff(S.m)` names.
  if (inner->receiver != nullptr && !receiver_first) {
    const Type* receiver = inner->receiver->type;
    levels.front() = BoundThisBwdSignature(f, receiver, bindings);
    if (receiver->IsDependent() && !IsDifferentiableType(receiver) &&
        f->FindAttribute("NoDiffThis") == nullptr) {
      // Known once specialized: the type may conform to IDifferentiable.
      inner->this_pair = DifferentialPairOf(receiver);
      inner->differentiable = DifferentiableInterface();
    }
  }
  // How the innermost operator's function is instantiated, and each level's type, for
  // lowering.
  inner->generic_args.clear();
  for (size_t i = f->own_generic_begin; i < f->generic_context.size(); ++i) {
    inner->generic_args.push_back(bindings.at(f->generic_context[i]));
  }
  inner->via_interface = chosen->via_interface;
  // `no_diff R f(...)`: the backward derivative lowering makes still takes the gradient
  // of the result, which the call passes as zero.
  inner->dropped_result_diff = nullptr;
  if (HasNoDiffResult(f)) {
    const Type* result = types_.Substitute(f->result_type, bindings);
    if (IsDifferentiableType(result)) inner->dropped_result_diff = DifferentialOf(result);
  }
  for (size_t i = 0; i < chain.size(); ++i) {
    ast::DiffExpr* d = chain[i];
    d->param_types = levels[i].params;
    d->param_directions = levels[i].directions;
    d->result_type = levels[i].result;
    d->func = f;
    d->explicit_this = explicit_this;
    d->receiver_first = receiver_first;
    d->type = types_.Error();
  }
  call->type = sig.result;
  return call;
}

void Checker::LinkBackwardDerivatives(ast::FuncDecl* func) {
  for (const char* attr_name : {"BackwardDerivative", "BackwardDerivativeOf"}) {
    const ast::Attribute* attr = func->FindAttribute(attr_name);
    if (attr == nullptr) continue;
    bool of = std::string_view(attr_name) == "BackwardDerivativeOf";
    LinkFirstMatch(AttributeFunctions(*attr, func), [&](ast::FuncDecl* other, bool report) {
      return LinkBackwardDerivative(of ? other : func, of ? func : other, *attr, report);
    });
  }
}

bool Checker::LinkBackwardDerivative(ast::FuncDecl* primal, ast::FuncDecl* derivative,
                                     const ast::Attribute& attr, bool report) {
  if (HasNoDiffResult(primal)) {
    if (report) {
      diags_.Report(DiagId::UnsupportedConstruct, attr.range,
                    "custom derivatives of a function whose result is 'no_diff'", "are");
    }
    return false;
  }
  // As for forward derivatives (LinkForwardDerivative): a generic derivative has the
  // primal's generic parameters, compared after renaming them to the primal's; methods
  // are compared as the functions they lower to, `this` first. An instance method's
  // `this` is `inout DifferentialPair<S>` when its type is differentiable (and not
  // [NoDiffThis]), so such a method's derivative is a static method (or free function)
  // taking the pair; an instance derivative receives the same plain `this`.
  Subst to_primal;
  bool generics_match = MatchGenericDerivative(primal, derivative, &to_primal);
  bool primal_this = primal->this_param != nullptr;
  bool derivative_this = derivative->this_param != nullptr;
  FwdSignature want = BwdDiffSignature(primal, nullptr, primal_this);
  FwdSignature have = FwdDiffSignature(derivative, 0, nullptr, derivative_this);
  for (const Type*& t : have.params) t = types_.Substitute(t, to_primal);
  have.result = types_.Substitute(have.result, to_primal);
  if (!generics_match || have.params != want.params || have.directions != want.directions ||
      have.result != want.result || derivative == primal) {
    if (!report) return false;
    FwdSignature shown = FwdDiffSignature(derivative, 0, nullptr, derivative_this);
    diags_.Report(DiagId::BackwardDerivativeMismatch, attr.range, derivative->name, primal->name,
                  GenericHeader(derivative) + shown.Describe(), primal->name,
                  GenericHeader(primal) + want.Describe())
        .Note(DiagId::DeclaredHere, derivative->name_range, derivative->name);
    return false;
  }
  primal->bwd_derivative = derivative;
  return true;
}

}  // namespace slope::sema

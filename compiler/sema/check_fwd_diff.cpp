// Typing of `fwd_diff(f)(args)` and of custom forward derivatives.
//
// For `[Differentiable] R f(T0 a, inout T1 b, out T2 c, no_diff U u)`, `fwd_diff(f)`
// has type `DifferentialPair<R> (DifferentialPair<T0>, inout DifferentialPair<T1>,
// out DifferentialPair<T2>, U)`: parameters and results of differentiable types (not
// `no_diff`) become pairs; a location (IDifferentiablePtrType P) becomes an `in`
// `DifferentialPtrPair<P>`. `fwd_diff(fwd_diff(f))` applies the rule twice. A function
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

/// The innermost of nested `fwd_diff`s; `*order` gets how many there are.
ast::DiffExpr* Innermost(ast::DiffExpr* diff, size_t* order) {
  *order = 1;
  while (diff->operand->kind == ast::ExprKind::Diff) {
    diff = static_cast<ast::DiffExpr*>(diff->operand);
    ++*order;
  }
  return diff;
}

/// Nested `fwd_diff`/`bwd_diff` operators allowed on one function: each level doubles
/// the derivative's parameters and code, and eight levels already pass SPIR-V's 255
/// parameters (E5004); more would take exponential time before any target refused them.
constexpr size_t kMaxDiffOrder = 8;

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

FwdSignature Checker::FwdDiffSignature(const ast::FuncDecl* f, size_t order,
                                       const Subst* bindings, bool explicit_this) {
  auto bound = [&](const Type* t) {
    return bindings != nullptr ? types_.Substitute(t, *bindings) : t;
  };
  FwdSignature sig;
  std::vector<bool> no_diff;
  if (explicit_this) {
    sig.params.push_back(bound(f->owner));
    sig.directions.push_back(f->is_mutating ? ast::ParamDirection::InOut : ast::ParamDirection::In);
    no_diff.push_back(f->FindAttribute("NoDiffThis") != nullptr);
  }
  sig.result = bound(f->result_type);
  for (const ast::VarDecl* p : f->params) {
    sig.params.push_back(bound(p->type));
    sig.directions.push_back(p->direction);
    no_diff.push_back(IsNoDiff(p));
  }
  for (size_t level = 0; level < order; ++level) {
    for (size_t i = 0; i < sig.params.size(); ++i) {
      if (!no_diff[i] && IsDifferentiableType(sig.params[i])) {
        sig.params[i] = DifferentialPairOf(sig.params[i]);
      } else if (!no_diff[i] && IsDifferentiablePtrType(sig.params[i])) {
        sig.params[i] = DifferentialPtrPairOf(sig.params[i]);  // an input in both modes
      }
    }
    if (!HasNoDiffResult(f) && IsDifferentiableType(sig.result)) {
      sig.result = DifferentialPairOf(sig.result);
    }
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

bool Checker::BindDiffGenerics(ast::CallExpr* call, const DiffTarget& target,
                               const Candidate& chosen, const std::vector<ast::DiffExpr*>& chain,
                               bool explicit_this, Subst* out) {
  // Generic arguments: written, or inferred from the arguments as for a call of the
  // derivative (a DifferentialPair<T> argument binds T).
  Subst& bindings = *out;
  bindings = chosen.context;
  const ast::FuncDecl* f = chosen.func;
  std::string shown = DiffChainName(chain, target.name);
  std::vector<const Type*> own(f->generic_context.begin() + static_cast<long>(f->own_generic_begin),
                               f->generic_context.end());
  std::vector<const Type*> explicit_args;
  if (!ResolveExplicitArgs(*target.generic_args, target.generic_values, &explicit_args)) {
    return false;
  }
  if (explicit_args.size() > own.size()) {
    diags_.Report(DiagId::WrongArgumentCount, target.range, "generic arguments of " + target.name,
                  own.size(), explicit_args.size());
    return false;
  }
  for (size_t i = 0; i < explicit_args.size(); ++i) bindings[own[i]] = explicit_args[i];
  if (f->intrinsic_op >= 0 && f->body == nullptr && f->this_param == nullptr) {
    // A built-in's parameters of an IArithmetic type (`max`, `abs`, `dot`) are paired
    // only once that type is known to be a float: bind it from the primal values the
    // arguments pair (`DifferentialPair<float>` binds T = float).
    const Type* float_pair = DifferentialPairOf(types_.Float());
    for (size_t i = 0; i < call->args.size() && i < f->params.size(); ++i) {
      const Type* a = call->args[i]->type;
      // Each order of differentiation pairs once more.
      while (float_pair != nullptr && a->IsStruct() && a->Info() == float_pair->Info() &&
             a->Args().size() == 1) {
        a = a->Args()[0];
      }
      Subst inferred;
      const Type* param = types_.Substitute(f->params[i]->type, bindings);
      if (param->IsDependent() && types_.Unify(param, a, own, &inferred)) {
        for (auto& [gp, t] : inferred) bindings.emplace(gp, t);
      }
    }
  }
  FwdSignature pattern = DiffChainSignatures(f, chain, &bindings, explicit_this).front();
  if (call->args.size() != pattern.params.size()) {
    diags_.Report(DiagId::WrongArgumentCount, call->range, shown, pattern.params.size(),
                  call->args.size());
    return false;
  }
  for (size_t i = 0; i < call->args.size(); ++i) {
    Subst inferred;
    if (pattern.params[i]->IsDependent() &&
        types_.Unify(pattern.params[i], call->args[i]->type, own, &inferred)) {
      for (auto& [p, t] : inferred) bindings.emplace(p, t);
    }
  }
  for (const Type* p : own) {
    if (bindings.count(p) != 0) continue;
    std::string arg_types;
    for (const ast::Expr* a : call->args) {
      arg_types += (arg_types.empty() ? "" : ", ") + a->type->Name();
    }
    diags_.Report(DiagId::CannotInferGenericArgs, call->range, shown, arg_types)
        .Note(DiagId::DeclaredHere, f->name_range, f->name);
    return false;
  }
  if (!CheckConstraints(own, bindings, target.name, call->range, true)) return false;
  if (f->intrinsic_op >= 0 && f->body == nullptr) {
    // A built-in of IArithmetic values differentiates only when they are floats.
    const Type* result = types_.Substitute(f->result_type, bindings);
    if (!IsDifferentiableType(result)) {
      diags_.Report(DiagId::UnsupportedConstruct, call->range,
                    shown + " of " + result->Name() + " values (not differentiable)", "is");
      return false;
    }
  }
  return true;
}

ast::Expr* Checker::CheckDiffCall(ast::CallExpr* call) {
  auto* diff = static_cast<ast::DiffExpr*>(call->callee);
  diff->type = types_.Error();
  call->type = types_.Error();
  // The arguments are checked (CheckCall): checking them again would check a subscript
  // that became an accessor call a second time.
  size_t depth = 0;
  Innermost(diff, &depth);
  if (depth > kMaxDiffOrder) {
    diags_.Report(DiagId::DiffNestedTooDeep, diff->range, depth, kMaxDiffOrder);
    return call;
  }
  if (!CheckDiffOperand(diff)) return call;
  if (AnyBackward(diff)) return CheckBwdDiffCall(call);
  for (const ast::Expr* a : call->args) {
    if (a->type->IsError()) return call;
  }
  size_t order = 0;
  ast::DiffExpr* inner = Innermost(diff, &order);
  std::vector<ast::DiffExpr*> chain{diff};
  while (chain.back() != inner) chain.push_back(static_cast<ast::DiffExpr*>(chain.back()->operand));
  DiffTarget target = DiffTargetOf(inner);
  const Candidate* chosen = ChooseDiffOverload(target, chain, call);
  if (chosen == nullptr) return call;
  const ast::FuncDecl* f = chosen->func;
  bool explicit_this = target.by_type && f->this_param != nullptr;
  std::string shown = "fwd_diff(" + target.name + ")";
  Subst bindings;
  if (!BindDiffGenerics(call, target, *chosen, chain, explicit_this, &bindings)) return call;
  std::vector<const Type*> own(f->generic_context.begin() + static_cast<long>(f->own_generic_begin),
                               f->generic_context.end());
  FwdSignature sig = FwdDiffSignature(f, order, &bindings, explicit_this);
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
  inner->generic_args.clear();
  for (const Type* p : own) inner->generic_args.push_back(bindings.at(p));
  inner->via_interface = chosen->via_interface;
  inner->explicit_this = explicit_this;
  // Record each level's type for lowering, the outermost first.
  size_t level = order;
  for (ast::Expr* e = diff; e->kind == ast::ExprKind::Diff;
       e = static_cast<ast::DiffExpr*>(e)->operand, --level) {
    auto* d = static_cast<ast::DiffExpr*>(e);
    FwdSignature at = FwdDiffSignature(f, level, &bindings, explicit_this);
    d->param_types = at.params;
    d->param_directions = at.directions;
    d->result_type = at.result;
    d->func = f;
    d->explicit_this = explicit_this;
  }
  call->type = sig.result;
  return call;
}

void Checker::CheckCustomDerivatives(const std::vector<ast::Decl*>& decls) {
  // Free functions, then the methods of structs and of extensions (static, instance
  // and [mutating] alike).
  std::vector<ast::FuncDecl*> funcs;
  for (ast::Decl* decl : decls) {
    if (decl->kind == ast::DeclKind::Func) funcs.push_back(static_cast<ast::FuncDecl*>(decl));
  }
  for (const Type* s : struct_list_) {
    for (ast::FuncDecl* f : s->Info()->methods) funcs.push_back(f);
  }
  for (const ExtensionInfo* e : extension_list_) {
    for (ast::FuncDecl* f : e->methods) {
      if (f->func_kind != ast::FuncKind::Init) funcs.push_back(f);
    }
  }
  for (ast::FuncDecl* func : funcs) {
    LinkBackwardDerivatives(func);
    for (const char* attr_name : {"ForwardDerivative", "ForwardDerivativeOf"}) {
      const ast::Attribute* attr = func->FindAttribute(attr_name);
      if (attr == nullptr) continue;
      bool of = std::string_view(attr_name) == "ForwardDerivativeOf";
      LinkFirstMatch(AttributeFunctions(*attr, func), [&](ast::FuncDecl* other, bool report) {
        return LinkForwardDerivative(of ? other : func, of ? func : other, *attr, report);
      });
    }
    for (const char* attr_name : {"PrimalSubstitute", "PrimalSubstituteOf"}) {
      const ast::Attribute* attr = func->FindAttribute(attr_name);
      if (attr == nullptr) continue;
      bool of = std::string_view(attr_name) == "PrimalSubstituteOf";
      std::vector<ast::FuncDecl*> others = AttributeFunctions(*attr, func);
      if (others.empty()) continue;
      if (func->owner != nullptr || others.front()->owner != nullptr) {
        diags_.Report(DiagId::UnsupportedConstruct, attr->range,
                      "primal substitutes of methods", "are");
        continue;
      }
      LinkFirstMatch(others, [&](ast::FuncDecl* other, bool report) {
        return LinkPrimalSubstitute(of ? other : func, of ? func : other, *attr, report);
      });
    }
  }
}

void Checker::LinkFirstMatch(const std::vector<ast::FuncDecl*>& others,
                             const std::function<bool(ast::FuncDecl*, bool)>& link) {
  if (others.empty()) return;
  for (ast::FuncDecl* other : others) {
    if (link(other, false)) return;
  }
  link(others.front(), true);
}

bool Checker::LinkPrimalSubstitute(ast::FuncDecl* primal, ast::FuncDecl* substitute,
                                   const ast::Attribute& attr, bool report) {
  if (!primal->generic_context.empty() || !substitute->generic_context.empty()) {
    if (report) {
      diags_.Report(DiagId::UnsupportedConstruct, attr.range,
                    "primal substitutes of generic functions", "are");
    }
    return false;
  }
  // The substitute stands in for the function itself: the same type, unpaired.
  FwdSignature want = FwdDiffSignature(primal, 0, nullptr, false);
  FwdSignature have = FwdDiffSignature(substitute, 0, nullptr, false);
  if (have.params != want.params || have.directions != want.directions ||
      have.result != want.result || substitute == primal) {
    if (report) {
      diags_.Report(DiagId::PrimalSubstituteMismatch, attr.range, substitute->name, primal->name,
                    have.Describe(), primal->name, want.Describe())
          .Note(DiagId::DeclaredHere, substitute->name_range, substitute->name);
    }
    return false;
  }
  primal->primal_substitute = substitute;
  return true;
}

const Checker::Candidate* Checker::ChooseDiffOverload(const DiffTarget& target,
                                                      const std::vector<ast::DiffExpr*>& chain,
                                                      const ast::CallExpr* call) {
  // Of several differentiable overloads: one taking as many arguments, the cheapest
  // conversion of the arguments winning (a generic one is compared by count only).
  const Candidate* chosen = nullptr;
  int best = 0;
  for (const Candidate& c : target.candidates) {
    if (!IsDifferentiableFunction(c.func)) continue;
    bool explicit_this = target.by_type && c.func->this_param != nullptr;
    int cost = kNoConversion;
    FwdSignature sig = DiffChainSignatures(c.func, chain, &c.context, explicit_this).front();
    if (sig.params.size() == call->args.size()) {
      cost = kNoConversion - 1;
      if (c.func->generic_context.empty()) {
        cost = 0;
        for (size_t i = 0; i < sig.params.size() && cost < kNoConversion; ++i) {
          cost = std::min(kNoConversion, cost + ConversionCost(call->args[i]->type, sig.params[i]));
        }
      }
    }
    if (chosen == nullptr || cost < best) {
      chosen = &c;
      best = cost;
    }
  }
  return chosen;
}

std::vector<ast::FuncDecl*> Checker::AttributeFunctions(const ast::Attribute& attr,
                                                        const ast::FuncDecl* holder) {
  std::vector<ast::FuncDecl*> found;
  // A method names functions of its own type first (`[ForwardDerivative(d)]` on a
  // method finds the methods `d`), then those in scope; `S.d` / `S::d` names members of S.
  auto members_of = [&](const Type* owner, const std::string& name) {
    if (owner == nullptr || !owner->IsStruct()) return;
    for (const Candidate& c : FindMethods(owner, name)) found.push_back(c.func);
  };
  if (attr.args.size() == 1 && attr.args[0]->kind == ast::ExprKind::Name) {
    const std::string& name = static_cast<ast::NameExpr*>(attr.args[0])->name;
    members_of(holder->owner, name);
    if (found.empty()) {
      ast::Decl* decl = Lookup(name);
      if (decl != nullptr && decl->kind == ast::DeclKind::Func) {
        found = OverloadsOf(static_cast<ast::FuncDecl*>(decl));
        if (found.empty()) found.push_back(static_cast<ast::FuncDecl*>(decl));
      }
    }
  } else if (attr.args.size() == 1 && attr.args[0]->kind == ast::ExprKind::Member) {
    auto* m = static_cast<ast::MemberExpr*>(attr.args[0]);
    if (m->base->kind == ast::ExprKind::Name) {
      ast::Decl* base = Lookup(static_cast<ast::NameExpr*>(m->base)->name);
      members_of(base != nullptr ? StructTypeOf(base) : nullptr, m->member);
    }
  }
  if (found.empty()) {
    diags_.Report(DiagId::InvalidAttributeArgs, attr.range, attr.name, "the name of a function");
  }
  return found;
}

std::string GenericHeader(const ast::FuncDecl* f) {
  if (f->generic_context.empty()) return "";
  std::string s = "<";
  for (size_t i = 0; i < f->generic_context.size(); ++i) {
    const GenericParamInfo* p = f->generic_context[i]->Generic();
    s += (i == 0 ? "" : ", ") + std::string(p->value_type != nullptr ? "let " : "") + p->name;
    if (p->value_type != nullptr) s += " : " + p->value_type->Name();
    for (size_t c = 0; c < p->constraints.size(); ++c) {
      s += (c == 0 ? " : " : " & ") + p->constraints[c]->Name();
    }
  }
  return s + "> ";
}

bool Checker::MatchGenericDerivative(const ast::FuncDecl* primal, const ast::FuncDecl* derivative,
                                     Subst* to_primal) {
  const auto& want = primal->generic_context;
  const auto& have = derivative->generic_context;
  if (want.size() != have.size()) return false;
  for (size_t i = 0; i < have.size(); ++i) (*to_primal)[have[i]] = want[i];
  for (size_t i = 0; i < have.size(); ++i) {
    const GenericParamInfo* w = want[i]->Generic();
    const GenericParamInfo* h = have[i]->Generic();
    if ((w->value_type == nullptr) != (h->value_type == nullptr) ||
        (w->value_type != nullptr && w->value_type != h->value_type) ||
        w->constraints.size() != h->constraints.size()) {
      return false;
    }
    for (size_t c = 0; c < h->constraints.size(); ++c) {
      if (types_.Substitute(h->constraints[c], *to_primal) != w->constraints[c]) return false;
    }
  }
  return true;
}

bool Checker::LinkForwardDerivative(ast::FuncDecl* primal, ast::FuncDecl* derivative,
                                    const ast::Attribute& attr, bool report) {
  if (HasNoDiffResult(primal)) {
    if (report) {
      diags_.Report(DiagId::UnsupportedConstruct, attr.range,
                    "custom derivatives of a function whose result is 'no_diff'", "are");
    }
    return false;
  }
  // A generic derivative has the primal's generic parameters (same kinds, same
  // constraints, in order); its signature is compared with them renamed to the primal's.
  Subst to_primal;
  bool generics_match = MatchGenericDerivative(primal, derivative, &to_primal);
  // Methods are compared as the functions they lower to, `this` first: an instance
  // method's `this` is a pair when its type is differentiable (and not [NoDiffThis]),
  // so such a method's derivative is a static method (or free function) taking
  // `DifferentialPair<S>`; an instance derivative receives the same plain `this`.
  bool primal_this = primal->this_param != nullptr;
  bool derivative_this = derivative->this_param != nullptr;
  FwdSignature want = FwdDiffSignature(primal, 1, nullptr, primal_this);
  FwdSignature have = FwdDiffSignature(derivative, 0, nullptr, derivative_this);
  for (const Type*& t : have.params) t = types_.Substitute(t, to_primal);
  have.result = types_.Substitute(have.result, to_primal);
  if (!generics_match || have.params != want.params || have.directions != want.directions ||
      have.result != want.result) {
    if (!report) return false;
    FwdSignature shown = FwdDiffSignature(derivative, 0, nullptr, derivative_this);
    diags_.Report(DiagId::DerivativeSignatureMismatch, attr.range, derivative->name,
                  primal->name, GenericHeader(derivative) + shown.Describe(), primal->name,
                  GenericHeader(primal) + want.Describe())
        .Note(DiagId::DeclaredHere, derivative->name_range, derivative->name);
    return false;
  }
  primal->fwd_derivative = derivative;
  return true;
}

}  // namespace slope::sema

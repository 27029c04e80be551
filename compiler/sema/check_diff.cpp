// Differentiability checks that need only types: which types and functions are
// differentiable, `no_diff` calls, `detach(x)`, the operands of `fwd_diff`/`bwd_diff`,
// and, in the body of a [Differentiable] function, which values carry a derivative.
//
// Whether a value carries a derivative is decided without following control flow: a
// parameter of differentiable type (not `no_diff`) carries one, `this` of a method of
// a differentiable type carries one, and so does every local or `out` parameter that
// some assignment in the function gives a value that carries one. An expression carries
// one when its type is differentiable and a value it is computed from carries one;
// literals, constants, buffer loads, `no_diff` fields, `detach(x)` and `no_diff f(x)`
// carry none.

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string_view>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {

/// Attributes that make a function differentiable where it is called.
constexpr std::string_view kDifferentiableAttributes[] = {
    "Differentiable", "ForwardDifferentiable", "BackwardDifferentiable", "TreatAsDifferentiable",
    "ForwardDerivative", "BackwardDerivative"};

/// The attribute that asks for `f`'s body to be differentiated, or null.
const ast::Attribute* DifferentiateAttribute(const ast::FuncDecl* f) {
  for (std::string_view name : {"Differentiable", "ForwardDifferentiable", "BackwardDifferentiable"}) {
    if (const ast::Attribute* a = f->FindAttribute(name)) return a;
  }
  return nullptr;
}

bool HasNoDiff(const ast::Decl* d) { return (d->modifiers & ast::kModNoDiff) != 0; }

/// The variable an l-value is stored in (`a` of `a.b[i].c`), or null.
const ast::VarDecl* RootVar(const ast::Expr* e) {
  while (e != nullptr) {
    switch (e->kind) {
      case ast::ExprKind::Name: {
        const ast::Decl* d = static_cast<const ast::NameExpr*>(e)->decl;
        return d != nullptr && d->kind == ast::DeclKind::Var ? static_cast<const ast::VarDecl*>(d)
                                                              : nullptr;
      }
      case ast::ExprKind::Member: e = static_cast<const ast::MemberExpr*>(e)->base; break;
      case ast::ExprKind::Index: e = static_cast<const ast::IndexExpr*>(e)->base; break;
      default: return nullptr;
    }
  }
  return nullptr;
}

/// The field of a struct that `m` (a checked field access) names, or null.
const ast::VarDecl* FieldOf(const ast::MemberExpr* m) {
  if (m->field_index < 0 || m->base->type == nullptr || !m->base->type->IsStruct()) return nullptr;
  const auto& fields = m->base->type->Info()->fields;
  auto index = static_cast<size_t>(m->field_index);
  return index < fields.size() ? fields[index] : nullptr;
}

/// The `no_diff` field or variable an l-value writes into, or null.
const ast::VarDecl* NoDiffTarget(const ast::Expr* e) {
  while (e != nullptr) {
    switch (e->kind) {
      case ast::ExprKind::Name: {
        const ast::VarDecl* var = RootVar(e);
        return var != nullptr && HasNoDiff(var) ? var : nullptr;
      }
      case ast::ExprKind::Member: {
        auto* m = static_cast<const ast::MemberExpr*>(e);
        const ast::VarDecl* field = FieldOf(m);
        if (field != nullptr && HasNoDiff(field)) return field;
        e = m->base;
        break;
      }
      case ast::ExprKind::Index: e = static_cast<const ast::IndexExpr*>(e)->base; break;
      default: return nullptr;
    }
  }
  return nullptr;
}

}  // namespace

void Checker::MarkConstructorDifferentiable(ast::FuncDecl* init) {
  if (init->body == nullptr || init->owner == nullptr || IsDifferentiableFunction(init) ||
      !IsDifferentiableType(init->owner)) {
    return;
  }
  bool any = std::any_of(init->params.begin(), init->params.end(), [&](const ast::VarDecl* p) {
    return !HasNoDiff(p) && p->type != nullptr && IsDifferentiableType(p->type);
  });
  // Its derivative is that of its body, which then follows the rules of [Differentiable]
  // bodies (a non-differentiable call inside needs `no_diff`).
  if (any) init->attributes.push_back(ast::Attribute{"Differentiable", {}, init->name_range});
}

bool IsDifferentiableFunction(const ast::FuncDecl* f) {
  // Intrinsics carry the derivative rules of ir/intrinsics.def.
  if (f->intrinsic_op >= 0) return true;
  if (f->fwd_derivative != nullptr || f->bwd_derivative != nullptr) return true;
  if (f->primal_substitute != nullptr && f->primal_substitute != f &&
      IsDifferentiableFunction(f->primal_substitute)) {
    return true;
  }
  for (std::string_view name : kDifferentiableAttributes) {
    if (f->FindAttribute(name) != nullptr) return true;
  }
  return false;
}

const Type* Checker::DifferentiableInterface() {
  if (idifferentiable_ == nullptr && !scopes_.empty()) {
    auto it = scopes_.front().find("IDifferentiable");
    if (it != scopes_.front().end() && interfaces_.count(it->second) != 0) {
      idifferentiable_ = types_.InterfaceOf(interfaces_.at(it->second), {});
    }
  }
  return idifferentiable_;
}

const Type* Checker::DifferentiablePtrInterface() {
  if (idifferentiable_ptr_ == nullptr && !scopes_.empty()) {
    auto it = scopes_.front().find("IDifferentiablePtrType");
    if (it != scopes_.front().end() && interfaces_.count(it->second) != 0) {
      idifferentiable_ptr_ = types_.InterfaceOf(interfaces_.at(it->second), {});
    }
  }
  return idifferentiable_ptr_;
}

bool Checker::IsDifferentiablePtrType(const Type* t) {
  if (t == nullptr || t->IsError() || (!t->IsStruct() && !t->IsDependent())) return false;
  const Type* iface = DifferentiablePtrInterface();
  return iface != nullptr && types_.Conforms(t, iface);
}

const Type* Checker::DifferentialPtrPairOf(const Type* t) {
  auto it = scopes_.front().find("DifferentialPtrPair");
  if (it == scopes_.front().end()) return nullptr;
  auto st = struct_types_.find(it->second);
  return st == struct_types_.end() ? nullptr : types_.StructOf(st->second->Info(), {t});
}

bool Checker::IsDifferentiableType(const Type* t) {
  if (t == nullptr || t->IsError()) return false;
  // `vector<T, N>` / `matrix<T, R, C>` of a generic T: differentiable when T is.
  if ((t->IsVector() || t->IsMatrix()) && t->ScalarType()->IsDependent()) {
    return IsDifferentiableType(t->ScalarType());
  }
  if (t->IsNumericLike()) return t->ScalarType()->Kind() == TypeKind::Float;
  if (t->IsArray()) return IsDifferentiableType(t->Element());
  if (!t->IsStruct() && !t->IsDependent()) return false;
  // A generic parameter constrained to IFloat stands for float scalars and vectors.
  if (t->IsDependent() && types_.CapabilitiesOf(t).find('f') != std::string::npos) return true;
  const Type* iface = DifferentiableInterface();
  return iface != nullptr && types_.Conforms(t, iface);
}

bool Checker::IsSynthesizedConformance(const Type* self, const Type* iface) {
  const Type* diff = DifferentiableInterface();
  return self->IsStruct() && diff != nullptr && iface->IsInterface() &&
         iface->Iface() == diff->Iface();
}

ast::Expr* Checker::CheckNoDiff(ast::NoDiffExpr* expr) {
  // `no_diff f(x)`, `no_diff(a[i])`, `no_diff(x * x)`: the value without its derivative.
  expr->operand = CheckExpr(expr->operand);
  expr->type = expr->operand->type;
  return expr;
}

ast::Expr* Checker::CheckDetach(ast::CallExpr* call) {
  if (call->args.size() != 1) {
    diags_.Report(DiagId::WrongArgumentCount, call->range, "detach", 1, call->args.size());
    return call;
  }
  ast::Expr* value = call->args[0];
  if (!IsDifferentiableType(value->type)) {
    diags_.Report(DiagId::DetachNotDifferentiable, value->range, value->type->Name());
    return call;
  }
  // `detach(x)` is `x` without its derivative: the same node as `no_diff f(x)`.
  auto* detached = ctx_.New<ast::NoDiffExpr>(call->range, value);
  detached->type = value->type;
  return detached;
}

bool Checker::CheckDiffOperand(ast::DiffExpr* expr) {
  const char* op = expr->backward ? "bwd_diff" : "fwd_diff";
  ast::Expr* operand = expr->operand;
  if (operand->kind == ast::ExprKind::Diff) {
    // Higher order: the inner operator's operand decides.
    operand->type = types_.Error();
    return CheckDiffOperand(static_cast<ast::DiffExpr*>(operand));
  }
  if (operand->kind == ast::ExprKind::Member) {
    return CheckDiffMethodOperand(expr, static_cast<ast::MemberExpr*>(operand));
  }
  if (operand->kind != ast::ExprKind::Name) {
    diags_.Report(DiagId::DiffOperandNotFunction, operand->range, op);
    return false;
  }
  auto* name = static_cast<ast::NameExpr*>(operand);
  ast::Decl* decl = Lookup(name->name);
  if (decl == nullptr) {
    diags_.Report(DiagId::UndeclaredIdentifier, name->range, name->name);
    return false;
  }
  if (decl->kind != ast::DeclKind::Func) {
    diags_.Report(DiagId::DiffOperandNotFunction, operand->range, op)
        .Note(DiagId::DeclaredHere, decl->name_range, decl->name);
    return false;
  }
  if (!CheckAccess(decl, name->range)) return false;
  name->decl = decl;
  bool intrinsic = false;
  for (const ast::FuncDecl* f : OverloadsOf(static_cast<ast::FuncDecl*>(decl))) {
    // A built-in math function of float values (`sin`, `pow`, `exp`): lowering wraps it
    // in a function whose body is the call, differentiated by the intrinsic's rule.
    if (f->intrinsic_op >= 0 && f->body == nullptr) {
      if (IsDifferentiableIntrinsic(f)) return true;
      intrinsic = true;
      continue;
    }
    if (IsDifferentiableFunction(f)) return true;
  }
  if (intrinsic) {
    diags_.Report(DiagId::UnsupportedConstruct, name->range,
                  std::string(op) + " of the built-in function '" + name->name + "'", "is");
    return false;
  }
  diags_.Report(DiagId::DiffOfNonDifferentiable, name->range, op, name->name)
      .Note(DiagId::DeclaredHere, decl->name_range, decl->name);
  return false;
}

bool Checker::IsDifferentiableIntrinsic(const ast::FuncDecl* f) {
  // Math of floats only: not barriers, atomics, wave operations or constructors of
  // objects, and a result of a float type. IFloat generics count, and so do IArithmetic
  // ones (`max`, `abs`, `clamp`, `dot`): BindDiffGenerics checks that the arguments bind
  // them to a float type.
  auto differentiable = [&](const Type* t) {
    if (IsDifferentiableType(t)) return true;
    const Type* scalar = t->IsVector() ? t->ScalarType() : t;
    return scalar->IsGenericParam() && types_.CapabilitiesOf(scalar).find('a') != std::string::npos;
  };
  if (f->intrinsic_inst >= 0 || f->name == "createDynamicObject" || f->result_type == nullptr ||
      !differentiable(f->result_type)) {
    return false;
  }
  return std::all_of(f->params.begin(), f->params.end(), [&](const ast::VarDecl* p) {
    return p->direction == ast::ParamDirection::In && p->type != nullptr &&
           (differentiable(p->type) || p->type->IsNumericLike());
  });
}

bool Checker::CheckDiffMethodOperand(ast::DiffExpr* expr, ast::MemberExpr* member) {
  const char* op = expr->backward ? "bwd_diff" : "fwd_diff";
  // `S.method` names a type's method; `obj.method` binds `obj` as `this`.
  const Type* owner = nullptr;
  if (member->base->kind == ast::ExprKind::Name) {
    auto* base_name = static_cast<ast::NameExpr*>(member->base);
    ast::Decl* decl = Lookup(base_name->name);
    if (decl == nullptr || decl->kind != ast::DeclKind::Var) {
      ast::TypeExpr te;
      te.name = base_name->name;
      te.range = base_name->range;
      te.type_args = base_name->generic_args;
      if (!base_name->generic_args.empty()) {
        if (decl != nullptr && decl->kind == ast::DeclKind::Struct) owner = ApplyGeneric(&te, decl);
      } else {
        owner = LookupBuiltinTypeName(types_, te.name);
        if (owner == nullptr) owner = ResolveUserTypeName(&te);
      }
      if (owner != nullptr && owner->IsError()) return false;
      if (owner != nullptr && owner->IsInterface()) {
        diags_.Report(DiagId::StaticMemberMisuse, member->range,
                      "'" + owner->Name() + "' is an interface; differentiate '" + member->member +
                          "' of a type that conforms to it");
        return false;
      }
      if (owner != nullptr) base_name->type = owner;
    }
  }
  if (owner == nullptr) {
    member->base = CheckExpr(member->base);
    if (member->base->type->IsError()) return false;
    expr->receiver = member->base;
  } else {
    expr->static_owner = owner;
  }
  const Type* in = owner != nullptr ? owner : member->base->type;
  std::vector<Candidate> methods = FindMethods(in, member->member);
  if (methods.empty()) {
    diags_.Report(DiagId::NoSuchMember, member->member_range, in->Name(), member->member);
    return false;
  }
  for (const Candidate& c : methods) {
    if (c.func->intrinsic_op >= 0 && c.func->body == nullptr) {
      diags_.Report(DiagId::UnsupportedConstruct, member->member_range,
                    std::string(op) + " of the built-in method '" + member->member + "'", "is");
      return false;
    }
    if (!IsDifferentiableFunction(c.func)) continue;
    if (owner == nullptr && c.func->this_param == nullptr) {
      // `obj.staticMethod`: the object only names its type.
      expr->receiver = nullptr;
      expr->static_owner = member->base->type;
    }
    if (expr->receiver != nullptr && c.func->is_mutating && !IsAssignableQuietly(expr->receiver)) {
      diags_.Report(DiagId::MutatingCallOnValue, member->range, in->Name() + "." + member->member,
                    "this expression")
          .Note(DiagId::DeclaredHere, c.func->name_range, c.func->name);
      return false;
    }
    if (expr->receiver != nullptr && c.func->is_mutating) NoteWritten(expr->receiver);
    return true;
  }
  diags_.Report(DiagId::DiffOfNonDifferentiable, member->member_range, op,
                in->Name() + "." + member->member)
      .Note(DiagId::DeclaredHere, methods.front().func->name_range, methods.front().func->name);
  return false;
}

void Checker::CheckDifferentiableWitness(const ast::FuncDecl* requirement,
                                         const ast::FuncDecl* witness, const Type* self,
                                         const Type* iface) {
  if (DifferentiateAttribute(requirement) == nullptr || IsDifferentiableFunction(witness)) return;
  // A witness found in the core library for a built-in type carries its own rules.
  if (witness->intrinsic_op >= 0) return;
  diags_.Report(DiagId::WitnessNotDifferentiable, witness->name_range, witness->name, self->Name(),
                requirement->name, iface->Name())
      .Note(DiagId::RequirementHere, requirement->name_range, requirement->name);
}

// ---------------------------------------------------------------------------------------
// Differential types of structs

namespace {

/// The `Differential` type member of struct `t`, or null.
ast::Decl* DifferentialAlias(const Type* t) {
  for (ast::Decl* m : t->Info()->type_members) {
    if (m->name == "Differential") return m;
  }
  return nullptr;
}

}  // namespace

const Type* Checker::DifferentialOf(const Type* t) {
  if (t == nullptr || t->IsError() || !IsDifferentiableType(t)) return nullptr;
  if (t->IsNumericLike()) return t;
  if (t->IsArray()) {
    const Type* element = DifferentialOf(t->Element());
    if (element == nullptr) return nullptr;
    // `float[N]` of a generic struct keeps its length parameter.
    return t->LengthParam() != nullptr ? types_.ArrayOfParam(element, t->LengthParam())
                                       : types_.Array(element, t->Count());
  }
  if (!t->IsStruct()) {
    // A generic parameter or associated type: its `Differential`, known once specialized.
    const Type* iface = DifferentiableInterface();
    if (iface == nullptr || iface->Iface()->assocs.empty()) return nullptr;
    return types_.AssocOf(t, iface->Iface()->assocs.front());
  }
  ast::Decl* alias = DifferentialAlias(t);
  if (alias == nullptr) {
    // Declared by the generic extension that makes it differentiable (tuples).
    const Type* d = types_.ExtensionDifferential(t);
    return d != nullptr && !d->IsError() ? d : nullptr;
  }
  auto it = types_.AliasTypes().find(alias);
  if (it == types_.AliasTypes().end() || it->second->IsError()) return nullptr;
  // A generic struct's Differential is written in terms of its parameters.
  return types_.Substitute(it->second, types_.StructSubst(t));
}

void Checker::SynthesizeDifferentials() {
  const Type* iface = DifferentiableInterface();
  if (iface == nullptr) return;
  // `struct S : ILayer` with `interface ILayer : IDifferentiable` declares it too, and
  // so does `extension S : IDifferentiable {}` (an existing struct made differentiable).
  auto reaches = [&](std::vector<const Type*> pending) {
    std::set<const InterfaceInfo*> seen;
    while (!pending.empty()) {
      const Type* b = pending.back();
      pending.pop_back();
      if (!b->IsInterface() || !seen.insert(b->Iface()).second) continue;
      if (b->Iface() == iface->Iface()) return true;
      pending.insert(pending.end(), b->Iface()->bases.begin(), b->Iface()->bases.end());
    }
    return false;
  };
  // A generic extension that adds the conformance (`extension<A : IDifferentiable> S<A>
  // : IDifferentiable`), for a diagnostic where its constraints would be needed.
  std::map<const StructInfo*, const ExtensionInfo*> generic_ext;
  auto declares = [&](const Type* t) {
    if (reaches(t->Info()->bases)) return true;
    bool found = false;
    for (const ExtensionInfo* ext : extension_list_) {
      if (ext->target != nullptr && ext->target->IsStruct() && ext->target->Info() == t->Info() &&
          reaches(ext->bases)) {
        found = true;
        if (!ext->params.empty()) generic_ext.emplace(t->Info(), ext);
      }
    }
    return found;
  };
  // Fields' struct types first: a struct's Differential is made of theirs.
  // A generic struct is synthesized once, over its own parameters: each specialization
  // `S<float>` takes the Differential `S.Differential<float>` by substitution.
  std::set<const StructInfo*> done;
  std::function<void(const Type*)> synthesize = [&](const Type* applied) {
    StructInfo* info = applied->Info();
    if (!done.insert(info).second) return;
    const Type* t = info->self;
    for (const ast::VarDecl* field : info->fields) {
      if (field->type != nullptr && field->type->IsStruct()) synthesize(field->type);
    }
    if (!declares(t)) return;
    for (const ast::VarDecl* field : info->fields) {
      if ((field->modifiers & ast::kModNoDiff) == 0 && IsDifferentiablePtrType(field->type)) {
        diags_.Report(DiagId::DiffPtrField, field->name_range, field->name, info->name,
                      field->type->Name());
      }
    }
    ast::Decl* alias = DifferentialAlias(t);
    if (alias != nullptr) {
      // Written by hand: fields map to it by [DerivativeMember] or by name.
      const Type* d = DifferentialOf(t);
      if (d == nullptr || d == t || !d->IsStruct()) return;
      for (ast::VarDecl* field : info->fields) {
        const Type* want =
            (field->modifiers & ast::kModNoDiff) != 0 ? nullptr : DifferentialOf(field->type);
        int index = -1;
        const ast::Attribute* a = field->FindAttribute("DerivativeMember");
        std::string name = field->name;
        if (a != nullptr) {
          name.clear();
          if (a->args.size() == 1 && a->args[0]->kind == ast::ExprKind::Member) {
            name = static_cast<const ast::MemberExpr*>(a->args[0])->member;
          }
        }
        int found = name.empty() ? -1 : d->Info()->FieldIndex(name);
        if (found >= 0 && want != nullptr &&
            types_.FieldType(d, static_cast<size_t>(found)) == want) {
          index = found;
        } else if (a != nullptr) {
          std::string wanted =
              want != nullptr ? want->Name() : "(none: the field carries no derivative)";
          diags_.Report(DiagId::DerivativeMemberInvalid, a->range, field->name, d->Name(), wanted);
        }
        info->derivative_members.push_back(index);
      }
      return;
    }
    if (auto ext = generic_ext.find(info); ext != generic_ext.end() && !info->params.empty()) {
      // A Differential the extension declares (`typealias Differential =
      // S<A.Differential, ...>`, as the core library's tuples do): each field maps to the
      // field of the same name, whose type follows the extension's bindings.
      const ast::Decl* declared = nullptr;
      for (const ast::Decl* m : ext->second->type_members) {
        if (m->name == "Differential") declared = m;
      }
      auto at =
          declared != nullptr ? types_.AliasTypes().find(declared) : types_.AliasTypes().end();
      if (at != types_.AliasTypes().end() && at->second->IsStruct()) {
        for (ast::VarDecl* field : info->fields) {
          int found = (field->modifiers & ast::kModNoDiff) != 0
                          ? -1
                          : at->second->Info()->FieldIndex(field->name);
          info->derivative_members.push_back(found);
        }
        return;
      }
    }
    if (auto ext = generic_ext.find(info); ext != generic_ext.end()) {
      // The extension's constraints do not reach the struct's own fields: a field of a
      // generic parameter's type would silently carry no derivative.
      for (const ast::VarDecl* field : info->fields) {
        if ((field->modifiers & ast::kModNoDiff) == 0 && field->type != nullptr &&
            field->type->IsDependent() && DifferentialOf(field->type) == nullptr) {
          diags_.Report(DiagId::UnsupportedConstruct, ext->second->decl->name_range,
                        "IDifferentiable added by a generic extension to '" + info->name +
                            "', whose field '" + field->name +
                            "' has a generic type the struct does not constrain to "
                            "IDifferentiable (constrain the struct's parameter instead)",
                        "is");
          return;
        }
      }
    }
    std::vector<ast::VarDecl*> kept;
    std::vector<const Type*> kept_types;
    bool self = true;
    for (ast::VarDecl* field : info->fields) {
      const Type* d =
          (field->modifiers & ast::kModNoDiff) != 0 ? nullptr : DifferentialOf(field->type);
      self = self && d == field->type && !d->IsDependent();
      if (d == nullptr) continue;
      kept.push_back(field);
      kept_types.push_back(d);
    }
    auto* own_alias = ctx_.New<ast::TypeAliasDecl>("Differential", info->decl->name_range);
    info->type_members.push_back(own_alias);
    if (self) {
      types_.AliasTypes()[own_alias] = t;
      return;
    }
    auto* decl = ctx_.New<ast::AggregateDecl>(ast::DeclKind::Struct, info->name + ".Differential",
                                              info->decl->name_range);
    auto dinfo = std::make_unique<StructInfo>();
    dinfo->decl = decl;
    dinfo->name = decl->name;
    dinfo->params = info->params;
    dinfo->bases.push_back(iface);
    for (size_t i = 0; i < kept.size(); ++i) {
      auto* f = ctx_.New<ast::VarDecl>(ast::VarRole::Field, kept[i]->name, kept[i]->name_range);
      f->type = kept_types[i];
      decl->members.push_back(f);
      dinfo->fields.push_back(f);
    }
    // The differential of the differential is itself: its fields are their own.
    auto* diff_alias = ctx_.New<ast::TypeAliasDecl>("Differential", info->decl->name_range);
    dinfo->type_members.push_back(diff_alias);
    dinfo->checked = true;
    const Type* d = types_.Struct(std::move(dinfo));
    types_.AliasTypes()[diff_alias] = d;
    types_.AliasTypes()[own_alias] = d;
    DeclContext context;
    context.this_type = d;
    contexts_[decl] = std::move(context);
    struct_types_[decl] = d;
    struct_list_.push_back(d);
    done.insert(d->Info());
    for (ast::VarDecl* field : info->fields) {
      auto at = std::find(kept.begin(), kept.end(), field);
      int index = at == kept.end() ? -1 : static_cast<int>(at - kept.begin());
      info->derivative_members.push_back(index);
    }
  };
  std::vector<const Type*> structs = struct_list_;
  for (const Type* t : structs) synthesize(t);
}

Checker::DiffTarget Checker::DiffTargetOf(ast::DiffExpr* inner) {
  static const std::vector<ast::TypeExpr*> kNone;
  DiffTarget target;
  target.generic_args = &kNone;
  if (inner->operand->kind == ast::ExprKind::Member) {
    auto* member = static_cast<ast::MemberExpr*>(inner->operand);
    const Type* in = inner->static_owner != nullptr ? inner->static_owner : member->base->type;
    target.candidates = FindMethods(in, member->member);
    target.by_type = inner->static_owner != nullptr;
    target.name = in->Name() + "." + member->member;
    target.range = member->range;
    target.generic_args = &member->generic_args;
    return target;
  }
  auto* name = static_cast<ast::NameExpr*>(inner->operand);
  for (ast::FuncDecl* f : OverloadsOf(static_cast<ast::FuncDecl*>(name->decl))) {
    target.candidates.push_back({f, {}});
  }
  target.name = name->name;
  target.range = name->range;
  target.generic_args = &name->generic_args;
  target.generic_values = &name->generic_values;
  return target;
}

// ---------------------------------------------------------------------------------------
// Bodies of [Differentiable] functions

namespace {

/// Walks the body of one differentiable function: first to find the variables that
/// carry a derivative (until nothing changes), then to report.
class DiffBodyChecker {
 public:
  DiffBodyChecker(Checker& c, ast::FuncDecl* func) : c_(c), func_(func) {}

  void Run() {
    if (func_->this_param != nullptr && func_->FindAttribute("NoDiffThis") == nullptr &&
        c_.IsDifferentiableType(func_->this_param->type)) {
      active_.insert(func_->this_param);
    }
    for (const ast::VarDecl* p : func_->params) {
      if (p->direction != ast::ParamDirection::Out && !HasNoDiff(p) &&
          c_.IsDifferentiableType(p->type)) {
        active_.insert(p);
      }
    }
    // Each round marks at least one more variable or ends.
    for (size_t round = 0; round < 1024; ++round) {
      changed_ = false;
      WalkStmt(func_->body);
      if (!changed_) break;
    }
    reporting_ = true;
    WalkStmt(func_->body);
  }

 private:
  /// Whether `e` (checked) carries a derivative.
  bool Carries(const ast::Expr* e) {
    if (e == nullptr || !c_.IsDifferentiableType(e->type)) return false;
    switch (e->kind) {
      case ast::ExprKind::Name: {
        const ast::VarDecl* var = RootVar(e);
        return var != nullptr && active_.count(var) != 0;
      }
      case ast::ExprKind::Member: {
        auto* m = static_cast<const ast::MemberExpr*>(e);
        const ast::VarDecl* field = FieldOf(m);
        if (field != nullptr && HasNoDiff(field)) return false;
        return Carries(m->base);
      }
      case ast::ExprKind::Index: {
        auto* ix = static_cast<const ast::IndexExpr*>(e);
        return !ix->base->type->IsBuffer() && Carries(ix->base);
      }
      case ast::ExprKind::Call: {
        auto* call = static_cast<const ast::CallExpr*>(e);
        if (call->func != nullptr && !IsDifferentiableFunction(call->func) &&
            call->func->func_kind != ast::FuncKind::Init) {
          return false;  // reported where it is called
        }
        if (call->func != nullptr && HasNoDiffResult(call->func)) return false;
        return CarryingArg(call) != nullptr;
      }
      case ast::ExprKind::Unary:
        return Carries(static_cast<const ast::UnaryExpr*>(e)->operand);
      case ast::ExprKind::Binary: {
        auto* b = static_cast<const ast::BinaryExpr*>(e);
        return Carries(b->lhs) || Carries(b->rhs);
      }
      case ast::ExprKind::Assign: {
        auto* a = static_cast<const ast::AssignExpr*>(e);
        return Carries(a->rhs) || Carries(a->lhs);
      }
      case ast::ExprKind::Conditional: {
        auto* c = static_cast<const ast::ConditionalExpr*>(e);
        return Carries(c->then_expr) || Carries(c->else_expr);
      }
      case ast::ExprKind::Cast: return Carries(static_cast<const ast::CastExpr*>(e)->operand);
      case ast::ExprKind::ImplicitCast:
        return Carries(static_cast<const ast::ImplicitCastExpr*>(e)->operand);
      case ast::ExprKind::InitList:
        for (const ast::Expr* el : static_cast<const ast::InitListExpr*>(e)->elements) {
          if (Carries(el)) return true;
        }
        return false;
      default:  // literals, `no_diff`, `detach`, `fwd_diff`
        return false;
    }
  }

  /// The first value a call reads that carries a derivative (the receiver, then the
  /// arguments of parameters that are neither `out` nor `no_diff`), or null.
  const ast::Expr* CarryingArg(const ast::CallExpr* call) {
    if (call->receiver != nullptr && Carries(call->receiver)) return call->receiver;
    for (size_t i = 0; i < call->args.size(); ++i) {
      const ast::VarDecl* param =
          call->func != nullptr && i < call->func->params.size() ? call->func->params[i] : nullptr;
      if (param != nullptr &&
          (param->direction == ast::ParamDirection::Out || HasNoDiff(param))) {
        continue;
      }
      if (Carries(call->args[i])) return call->args[i];
    }
    return nullptr;
  }

  /// Whether `target` is a place reached through a pointer (`*p`, `p->f`, `p[i].v`).
  static bool ThroughPointer(const ast::Expr* target) {
    while (true) {
      if (target->kind == ast::ExprKind::Unary) {
        return static_cast<const ast::UnaryExpr*>(target)->op == ast::OpKind::Deref;
      }
      if (target->kind == ast::ExprKind::Member) {
        target = static_cast<const ast::MemberExpr*>(target)->base;
      } else if (target->kind == ast::ExprKind::Index) {
        target = static_cast<const ast::IndexExpr*>(target)->base;
      } else {
        return false;
      }
    }
  }

  void Mark(const ast::Expr* target) {
    if (NoDiffTarget(target) != nullptr) return;
    const ast::VarDecl* var = RootVar(target);
    if (var != nullptr && var->role != ast::VarRole::Global && active_.insert(var).second) {
      changed_ = true;
    }
  }

  void StoreInto(const ast::Expr* target, const ast::Expr* value) {
    if (!Carries(value)) return;
    if (!reporting_) {
      Mark(target);
      return;
    }
    if (ThroughPointer(target)) {
      // Pointers are not differentiable: the derivative would be silently lost.
      c_.Diags().Report(DiagId::PointerStoreInDerivative, value->range);
      return;
    }
    if (const ast::VarDecl* nd = NoDiffTarget(target)) {
      const char* what = nd->role == ast::VarRole::Field   ? "field"
                         : nd->role == ast::VarRole::Param ? "parameter"
                                                           : "variable";
      c_.Diags()
          .Report(DiagId::NoDiffStore, value->range, what, nd->name)
          .Note(DiagId::DeclaredHere, nd->name_range, nd->name);
    }
  }

  void VisitCall(const ast::CallExpr* call) {
    const ast::FuncDecl* f = call->func;
    if (f == nullptr) return;
    // A constructor of a type that carries no derivative makes a value without one.
    if (f->func_kind == ast::FuncKind::Init && !IsDifferentiableFunction(f)) return;
    if (IsDifferentiableFunction(f)) {
      // Results written through `out`/`inout` parameters and `[mutating]` receivers.
      if (reporting_ || CarryingArg(call) == nullptr) return;
      for (size_t i = 0; i < call->args.size() && i < f->params.size(); ++i) {
        if (f->params[i]->direction != ast::ParamDirection::In && !HasNoDiff(f->params[i])) {
          Mark(call->args[i]);
        }
      }
      if (f->is_mutating && call->receiver != nullptr) Mark(call->receiver);
      return;
    }
    if (!reporting_) return;
    if (const ast::Expr* arg = CarryingArg(call)) {
      c_.Diags()
          .Report(DiagId::NonDifferentiableCall, call->range, f->name, f->name)
          .Note(DiagId::CarriesDerivativeHere, arg->range)
          .Note(DiagId::DeclaredHere, f->name_range, f->name);
    }
  }

  void WalkExpr(const ast::Expr* e) {
    if (e == nullptr) return;
    switch (e->kind) {
      case ast::ExprKind::Member: WalkExpr(static_cast<const ast::MemberExpr*>(e)->base); return;
      case ast::ExprKind::Index: {
        auto* ix = static_cast<const ast::IndexExpr*>(e);
        WalkExpr(ix->base);
        WalkExpr(ix->index);
        return;
      }
      case ast::ExprKind::Call: {
        auto* call = static_cast<const ast::CallExpr*>(e);
        WalkExpr(call->receiver);
        for (const ast::Expr* a : call->args) WalkExpr(a);
        VisitCall(call);
        return;
      }
      case ast::ExprKind::Unary: WalkExpr(static_cast<const ast::UnaryExpr*>(e)->operand); return;
      case ast::ExprKind::Pack: {
        auto* p = static_cast<const ast::PackExpr*>(e);
        if (p->form == ast::PackExpr::kExpand || p->form == ast::PackExpr::kEach) {
          WalkExpr(p->operand);
        }
        for (const ast::Expr* x : p->elements) WalkExpr(x);
        return;
      }
      case ast::ExprKind::Binary: {
        auto* b = static_cast<const ast::BinaryExpr*>(e);
        WalkExpr(b->lhs);
        WalkExpr(b->rhs);
        return;
      }
      case ast::ExprKind::Assign: {
        auto* a = static_cast<const ast::AssignExpr*>(e);
        WalkExpr(a->lhs);
        WalkExpr(a->rhs);
        StoreInto(a->lhs, a->rhs);
        return;
      }
      case ast::ExprKind::Conditional: {
        auto* c = static_cast<const ast::ConditionalExpr*>(e);
        WalkExpr(c->cond);
        WalkExpr(c->then_expr);
        WalkExpr(c->else_expr);
        return;
      }
      case ast::ExprKind::Cast: WalkExpr(static_cast<const ast::CastExpr*>(e)->operand); return;
      case ast::ExprKind::ImplicitCast:
        WalkExpr(static_cast<const ast::ImplicitCastExpr*>(e)->operand);
        return;
      case ast::ExprKind::InitList:
        for (const ast::Expr* el : static_cast<const ast::InitListExpr*>(e)->elements) WalkExpr(el);
        return;
      default:  // leaves; `no_diff` and `detach` drop what is inside
        return;
    }
  }

  void WalkLocal(const ast::VarDecl* var) {
    if (var->init == nullptr || !Carries(var->init)) return;
    if (!reporting_) {
      if (!HasNoDiff(var) && active_.insert(var).second) changed_ = true;
    } else if (HasNoDiff(var)) {
      c_.Diags()
          .Report(DiagId::NoDiffStore, var->init->range, "variable", var->name)
          .Note(DiagId::DeclaredHere, var->name_range, var->name);
    }
  }

  void WalkStmt(const ast::Stmt* s) {
    if (s == nullptr) return;
    switch (s->kind) {
      case ast::StmtKind::Block:
        for (const ast::Stmt* child : static_cast<const ast::BlockStmt*>(s)->stmts) WalkStmt(child);
        return;
      case ast::StmtKind::Decl:
        for (const ast::VarDecl* var : static_cast<const ast::DeclStmt*>(s)->vars) {
          WalkExpr(var->init);
          WalkLocal(var);
        }
        return;
      case ast::StmtKind::Expr: WalkExpr(static_cast<const ast::ExprStmt*>(s)->expr); return;
      case ast::StmtKind::If: {
        auto* i = static_cast<const ast::IfStmt*>(s);
        WalkExpr(i->cond);
        WalkStmt(i->then_stmt);
        WalkStmt(i->else_stmt);
        return;
      }
      case ast::StmtKind::For: {
        auto* f = static_cast<const ast::ForStmt*>(s);
        WalkStmt(f->init);
        WalkExpr(f->cond);
        WalkExpr(f->step);
        WalkStmt(f->body);
        return;
      }
      case ast::StmtKind::While: {
        auto* w = static_cast<const ast::WhileStmt*>(s);
        WalkExpr(w->cond);
        WalkStmt(w->body);
        return;
      }
      case ast::StmtKind::DoWhile: {
        auto* d = static_cast<const ast::DoWhileStmt*>(s);
        WalkStmt(d->body);
        WalkExpr(d->cond);
        return;
      }
      case ast::StmtKind::Return: WalkExpr(static_cast<const ast::ReturnStmt*>(s)->value); return;
      case ast::StmtKind::Switch: {
        auto* sw = static_cast<const ast::SwitchStmt*>(s);
        WalkExpr(sw->value);
        WalkStmt(sw->body);
        return;
      }
      case ast::StmtKind::Defer:
        WalkStmt(static_cast<const ast::DeferStmt*>(s)->body);
        return;
      case ast::StmtKind::Throw:
      case ast::StmtKind::DoCatch:  // sema rejected these in differentiable functions
      case ast::StmtKind::Break:
      case ast::StmtKind::Continue:
      case ast::StmtKind::Empty:
      case ast::StmtKind::Case:
        return;
    }
  }

  Checker& c_;
  ast::FuncDecl* func_;
  std::set<const ast::VarDecl*> active_;
  bool changed_ = false;
  bool reporting_ = false;
};

}  // namespace

void Checker::CheckDifferentiableBody(ast::FuncDecl* func) {
  const ast::Attribute* attr = DifferentiateAttribute(func);
  if (attr == nullptr || func->body == nullptr) return;
  bool any = IsDifferentiableType(func->result_type);
  if (func->this_param != nullptr) any = any || IsDifferentiableType(func->this_param->type);
  for (const ast::VarDecl* p : func->params) {
    // A view of memory (`DiffTensorView`) carries derivatives through the custom
    // derivatives of its methods.
    any = any || (!HasNoDiff(p) && (IsDifferentiableType(p->type) ||
                                    (p->type->IsStruct() && ContainsResource(p->type))));
  }
  // A location (IDifferentiablePtrType) is an input of the derivative: its derivative's
  // location comes with it as a DifferentialPtrPair, which nothing writes back.
  if (IsDifferentiablePtrType(func->result_type)) {
    diags_.Report(DiagId::DiffPtrResult, func->name_range, func->name, func->result_type->Name());
  }
  for (const ast::VarDecl* p : func->params) {
    if (HasNoDiff(p) || !IsDifferentiablePtrType(p->type)) continue;
    any = true;
    if (p->direction != ast::ParamDirection::In) {
      diags_.Report(DiagId::DiffPtrNotInput, p->name_range, p->name, func->name, p->type->Name());
    }
  }
  // The core library's makeTuple is differentiable for the element types that are (its
  // tuple's IDifferentiable extension says which).
  bool core = modules_ != nullptr && modules_->deferred_bodies_file != 0 &&
              func->name_range.begin.file == modules_->deferred_bodies_file;
  if (!any && !core) {
    diags_.Report(DiagId::NothingToDifferentiate, func->name_range, func->name, attr->name);
  }
  DiffBodyChecker(*this, func).Run();
}

}  // namespace slope::sema

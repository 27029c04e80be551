// Generics, interfaces and extensions: declaring them, resolving their headers,
// checking conformances, looking up methods through constraints and extensions, and
// resolving calls with generic argument inference.
//
// Generic code is checked once, in terms of its parameters; lowering specializes it
// for each list of concrete arguments it is used with.

#include <algorithm>
#include <limits>
#include <set>

#include "compiler/base/ice.h"
#include <limits>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

ContextScope::ContextScope(Checker& c, const ast::Decl* decl) : c_(c), saved_this_(c.this_type_) {
  c_.scopes_.emplace_back();
  auto it = c_.contexts_.find(decl);
  if (it == c_.contexts_.end()) return;
  for (const Type* p : it->second.params) {
    if (p->Generic()->decl != nullptr) {
      c_.scopes_.back()[p->Generic()->decl->name] = p->Generic()->decl;
    }
  }
  for (ast::Decl* n : it->second.names) c_.scopes_.back()[n->name] = n;
  if (it->second.this_type != nullptr) c_.this_type_ = it->second.this_type;
}

ContextScope::~ContextScope() {
  c_.scopes_.pop_back();
  c_.this_type_ = saved_this_;
}

namespace {
/// Interfaces of the core library whose conforming types support built-in operators in
/// generic code, and which operators.
std::string CapabilitiesOfCoreInterface(const std::string& name) {
  if (name == "IArithmetic") return "ac";
  if (name == "IComparable") return "c";
  if (name == "IInteger") return "aci";
  if (name == "IFloat") return "acf";
  if (name == "ILogical") return "l";
  if (name == "__EnumType") return "c";
  return "";
}

/// `signature` ("U apply(U)") with `f`'s own generic parameters as written inserted
/// before the parameter list ("U apply<U : IFloat>(U)"); unchanged for a plain function.
std::string WithGenericParams(std::string signature, const ast::FuncDecl* f) {
  if (f->generic_params.empty()) return signature;
  std::string params;
  for (const ast::GenericParamDecl* p : f->generic_params) {
    if (!params.empty()) params += ", ";
    params += (p->is_value ? "let " : "") + p->name;
    if (p->constraint != nullptr) params += " : " + p->constraint->name;
  }
  size_t paren = signature.find('(');
  if (paren == std::string::npos) return signature;
  return signature.insert(paren, "<" + params + ">");
}

std::string ParamTypeList(TypeContext& types, const ast::FuncDecl* f, const Subst& s) {
  std::string list;
  for (size_t i = 0; i < f->params.size(); ++i) {
    if (i != 0) list += ", ";
    list += f->params[i]->type != nullptr ? types.Substitute(f->params[i]->type, s)->Name() : "?";
  }
  return list;
}

/// "float get(int)" as seen through `s`.
std::string SignatureIn(TypeContext& types, const ast::FuncDecl* f, const Subst& s) {
  std::string result =
      f->result_type != nullptr ? types.Substitute(f->result_type, s)->Name() : std::string("?");
  // The method that reads a required `static const` (parse/static_consts.cpp).
  std::string_view suffix = ast::kStaticConstGetterSuffix;
  if (f->params.empty() && f->name.size() > suffix.size() &&
      std::string_view(f->name).substr(f->name.size() - suffix.size()) == suffix) {
    return "static const " + result + " " + f->name.substr(0, f->name.size() - suffix.size());
  }
  return result + " " + f->name + "(" + ParamTypeList(types, f, s) + ")";
}

bool IsStaticFunc(const ast::FuncDecl* f) { return (f->modifiers & ast::kModStatic) != 0; }

/// The interfaces `iface` stands for: itself and every interface it inherits, with
/// their arguments substituted.
std::vector<const Type*> WithInherited(TypeContext& types, const Type* iface) {
  std::vector<const Type*> all{iface};
  for (size_t i = 0; i < all.size() && i < 256; ++i) {
    const InterfaceInfo* info = all[i]->Iface();
    Subst s;
    for (size_t k = 0; k < info->params.size() && k < all[i]->Args().size(); ++k) {
      s[info->params[k]] = all[i]->Args()[k];
    }
    for (const Type* b : info->bases) {
      const Type* sb = types.Substitute(b, s);
      if (std::find(all.begin(), all.end(), sb) == all.end()) all.push_back(sb);
    }
  }
  return all;
}
}  // namespace

const ast::AssociatedTypeDecl* Checker::FindAssociatedType(
    const std::vector<const Type*>& constraints, const std::string& name) {
  for (const Type* c : constraints) {
    for (const Type* iface : WithInherited(types_, c)) {
      for (const ast::AssociatedTypeDecl* a : iface->Iface()->assocs) {
        if (a->name == name) return a;
      }
    }
  }
  return nullptr;
}

std::vector<const Type*> Checker::MakeGenericParams(
    const std::vector<ast::GenericParamDecl*>& params, const char* owner_kind) {
  std::vector<const Type*> result;
  for (ast::GenericParamDecl* p : params) {
    auto info = std::make_unique<GenericParamInfo>();
    info->decl = p;
    info->name = p->name;
    if (p->is_pack && owner_kind != nullptr) {
      diags_.Report(DiagId::VariadicNotHere, p->name_range, p->name, owner_kind);
    }
    info->is_pack = p->is_pack && owner_kind == nullptr;
    if (p->is_value) info->value_type = types_.Int();  // until its declared type is resolved
    const Type* t = types_.GenericParam(std::move(info));
    p->type = t;
    generic_param_types_[p] = t;
    result.push_back(t);
  }
  return result;
}

const Type* Checker::ResolveInterface(ast::TypeExpr* te) {
  const Type* t = ResolveType(te);
  if (t->IsError()) return nullptr;
  if (!t->IsInterface()) {
    diags_.Report(DiagId::NotAnInterface, te->range, t->Name());
    return nullptr;
  }
  return t;
}

void Checker::ResolveConstraints(const std::vector<const Type*>& params) {
  for (const Type* p : params) {
    ast::GenericParamDecl* decl = p->Generic()->decl;
    if (decl != nullptr && decl->is_value) {
      const Type* vt = decl->constraint != nullptr ? ResolveType(decl->constraint) : types_.Int();
      if (vt != types_.Int() && vt != types_.UInt() && vt != types_.Bool() && !vt->IsEnum()) {
        if (!vt->IsError()) diags_.Report(DiagId::InvalidValueParam, decl->name_range, decl->name);
        continue;
      }
      p->Generic()->value_type = vt;
      if (decl->default_value != nullptr && p->Generic()->default_arg == nullptr) {
        const Type* d = GenericValueArg(decl->default_value);
        if (!d->IsError()) p->Generic()->default_arg = d;
      }
      continue;
    }
    if (decl != nullptr && decl->default_type != nullptr && p->Generic()->default_arg == nullptr) {
      const Type* d = ResolveType(decl->default_type);
      if (!d->IsError()) p->Generic()->default_arg = d;
    }
    for (ast::TypeExpr* optional :
         decl != nullptr ? decl->optional_constraints : std::vector<ast::TypeExpr*>{}) {
      const Type* o = ResolveInterface(optional);
      if (o != nullptr) p->Generic()->optional_constraints.push_back(o);
    }
    if (decl == nullptr || decl->constraint == nullptr) continue;
    const Type* c = ResolveInterface(decl->constraint);
    if (c != nullptr) p->Generic()->constraints.push_back(c);
    for (ast::TypeExpr* more : decl->more_constraints) {
      const Type* m = ResolveInterface(more);
      if (m != nullptr) p->Generic()->constraints.push_back(m);
    }
    for (const ast::GenericParamDecl::MemberConstraint& mc : decl->member_constraints) {
      const std::string& member = mc.member;
      // `where T.Assoc : IFoo`: Assoc must be an associated type of T's constraints.
      const ast::AssociatedTypeDecl* assoc = FindAssociatedType(p->Generic()->constraints, member);
      if (assoc == nullptr) {
        diags_.Report(DiagId::NoSuchAssociatedType, mc.subject->range, p->Generic()->name, member);
        continue;
      }
      const Type* m = ResolveInterface(mc.constraint);
      if (m != nullptr) p->Generic()->assoc_constraints.push_back({assoc, m});
    }
  }
  // `where T.Assoc == type`: from here on T.Assoc is that type. Resolved once every
  // parameter has its constraints: `where A.Value == B.Value` names B's.
  for (const Type* p : params) {
    ast::GenericParamDecl* decl = p->Generic()->decl;
    if (decl == nullptr) continue;
    for (const ast::GenericParamDecl::MemberEquality& me : decl->member_equalities) {
      const ast::AssociatedTypeDecl* assoc =
          FindAssociatedType(p->Generic()->constraints, me.member);
      if (assoc == nullptr) {
        diags_.Report(DiagId::NoSuchAssociatedType, me.subject->range, p->Generic()->name,
                      me.member);
        continue;
      }
      const Type* t = ResolveType(me.type);
      if (!t->IsError()) EquateAssoc(types_.AssocOf(p, assoc), t, me.subject->range);
    }
  }
}

void Checker::EquateAssoc(const Type* a, const Type* b, source::SourceRange range) {
  // Each side stands for what earlier equalities made it: `where A.V == B.V where
  // A.V == float` makes both float. An associated type of a parameter not yet equated
  // takes the other side; two different known types conflict.
  auto canonical = [&](const Type* t) {
    for (int steps = 0;
         steps < 64 && t->Kind() == TypeKind::AssocType && t->Base()->IsGenericParam(); ++steps) {
      auto& equal = t->Base()->Generic()->assoc_equalities;
      auto it = equal.find(t->Assoc());
      if (it == equal.end() || it->second == t) break;
      t = it->second;
    }
    return t;
  };
  a = canonical(a);
  b = canonical(b);
  if (a == b) return;
  auto open = [](const Type* t) {
    return t->Kind() == TypeKind::AssocType && t->Base()->IsGenericParam();
  };
  if (open(a)) {
    a->Base()->Generic()->assoc_equalities[a->Assoc()] = b;
  } else if (open(b)) {
    b->Base()->Generic()->assoc_equalities[b->Assoc()] = a;
  } else {
    diags_.Report(DiagId::TypeEqualityConflict, range, a->Name(), b->Name());
  }
}

void Checker::DeclareInterfaces(const std::vector<ast::Decl*>& decls) {
  for (ast::Decl* decl : decls) {
    if (decl->kind != ast::DeclKind::Interface) continue;
    auto* agg = static_cast<ast::AggregateDecl*>(decl);
    auto owned = std::make_unique<InterfaceInfo>();
    InterfaceInfo* info = types_.NewInterface(std::move(owned));
    info->decl = agg;
    info->name = agg->name;
    if (auto ns = decl_ns_.find(agg); ns != decl_ns_.end()) {
      info->name = ns->second->path + "::" + agg->name;  // named by its path in messages
    }
    // `__IFunc2` is what `IFunc<R, A, B>` names (check_lambda.cpp): messages say IFunc.
    for (const char* family : {"__IFunc", "__IMutatingFunc"}) {
      std::string prefix = family;
      if (agg->name.size() == prefix.size() + 1 &&
          agg->name.compare(0, prefix.size(), prefix) == 0) {
        info->name = prefix.substr(2);
      }
    }
    info->capabilities = CapabilitiesOfCoreInterface(agg->name);
    ReadAnyValueSize(agg, info);
    info->params = MakeGenericParams(agg->generic_params, "interfaces");
    auto this_info = std::make_unique<GenericParamInfo>();
    this_info->name = "This";
    info->this_type = types_.GenericParam(std::move(this_info));
    info->this_type->Generic()->constraints.push_back(types_.InterfaceOf(info, info->params));
    DeclContext ctx;
    ctx.params = info->params;
    ctx.this_type = info->this_type;
    for (ast::Decl* member : agg->members) {
      switch (member->kind) {
        case ast::DeclKind::Func: {
          auto* f = static_cast<ast::FuncDecl*>(member);
          if (f->func_kind != ast::FuncKind::Plain && f->func_kind != ast::FuncKind::Init) {
            diags_.Report(DiagId::UnsupportedConstruct, f->name_range,
                          "requirements other than methods and initializers", "are");
            continue;
          }
          CheckAttributes(f->attributes,
                          {"mutating", "Differentiable", "ForwardDifferentiable",
                           "BackwardDifferentiable", "TreatAsDifferentiable", "NoDiffThis"},
                          "an interface requirement");
          for (ast::VarDecl* p : f->params) {
            CheckAttributes(p->attributes, {}, "a parameter",
                            agg->name + "." + f->name + "." + p->name);
          }
          f->parent = agg;
          info->methods.push_back(f);
          break;
        }
        case ast::DeclKind::AssociatedType: {
          auto* assoc = static_cast<ast::AssociatedTypeDecl*>(member);
          info->assocs.push_back(assoc);
          types_.SetAssocOwner(assoc, info);
          ctx.names.push_back(assoc);
          break;
        }
        default:
          diags_.Report(DiagId::UnsupportedConstruct, member->name_range,
                        "interface members other than methods and associated types", "are");
          break;
      }
    }
    contexts_[agg] = std::move(ctx);
    interfaces_[agg] = info;
    interface_list_.push_back(info);
  }
}

void Checker::ResolveGenericHeaders(const std::vector<ast::Decl*>& decls) {
  // Interfaces: constraints, inherited interfaces, associated type constraints and the
  // signatures of requirements.
  for (InterfaceInfo* info : interface_list_) {
    NamespaceScope ns(*this, info->decl);
    ContextScope scope(*this, info->decl);
    ResolveConstraints(info->params);
    for (ast::TypeExpr* base : info->decl->bases) {
      const Type* b = ResolveInterface(base);
      if (b == nullptr) continue;
      info->bases.push_back(b);
    }
    for (ast::AssociatedTypeDecl* assoc : info->assocs) {
      for (ast::TypeExpr* c : assoc->constraints) {
        const Type* ct = ResolveInterface(c);
        if (ct == nullptr) continue;
        info->assoc_constraints[assoc].push_back(ct);
      }
    }
    for (ast::FuncDecl* f : info->methods) {
      CheckFunctionSignature(f);
      f->owner = info->this_type;
      if (f->func_kind == ast::FuncKind::Init) {
        // `__init(float x);`: each conforming type has an initializer taking these
        // parameters; `T(x)` in generic code calls it.
        f->result_type = info->this_type;
        f->is_mutating = true;
        f->this_param = ctx_.New<ast::VarDecl>(ast::VarRole::Param, "this", f->name_range);
        f->this_param->type = info->this_type;
        continue;
      }
      if (!IsStaticFunc(f)) {
        f->is_mutating = f->FindAttribute("mutating") != nullptr;
        f->this_param = ctx_.New<ast::VarDecl>(ast::VarRole::Param, "this", f->name_range);
        f->this_param->type = info->this_type;
        f->this_param->is_let = !f->is_mutating;
      }
    }
  }
  // Structs: constraints of generic parameters and conformance lists.
  for (const Type* type : struct_list_) {
    StructInfo* info = type->Info();
    NamespaceScope ns(*this, info->decl);
    ContextScope scope(*this, info->decl);
    ResolveConstraints(info->params);
    for (ast::TypeExpr* base : info->decl->bases) {
      if (ResolveInheritedStruct(info, base)) continue;
      const Type* b = ResolveInterface(base);
      if (b == nullptr) continue;
      info->bases.push_back(b);
    }
    for (ast::Decl* m : info->type_members) {
      auto* alias = static_cast<ast::TypeAliasDecl*>(m);
      types_.AliasTypes()[alias] = ResolveType(alias->target);
    }
  }
  // Extensions: their own parameters, the type they extend, what they add.
  for (ast::Decl* decl : decls) {
    if (decl->kind != ast::DeclKind::Extension) continue;
    auto* agg = static_cast<ast::AggregateDecl*>(decl);
    auto owned = std::make_unique<ExtensionInfo>();
    ExtensionInfo* ext = types_.NewExtension(std::move(owned));
    ext->decl = agg;
    ext->params = MakeGenericParams(agg->generic_params, "extensions");
    DeclContext ctx;
    ctx.params = ext->params;
    contexts_[agg] = ctx;
    {
      ContextScope scope(*this, agg);
      ResolveConstraints(ext->params);
      ext->target = ResolveType(agg->target);
    }
    types_.ExtensionsChanged();
    if (ext->target->IsError()) continue;
    if (ext->target->IsInterface()) {
      // `extension IFoo { ... }`: default implementations for every conforming type,
      // written in terms of a `This` that conforms to IFoo.
      auto this_info = std::make_unique<GenericParamInfo>();
      this_info->name = "This";
      this_info->constraints.push_back(ext->target);
      const Type* self = types_.GenericParam(std::move(this_info));
      ext->params.push_back(self);
      contexts_[agg].params = ext->params;
      contexts_[agg].this_type = self;
    } else if (ext->target->IsBuffer() || ext->target->Kind() == TypeKind::AssocType ||
               (ext->target->IsGenericParam() &&
                std::find(ext->params.begin(), ext->params.end(), ext->target) ==
                    ext->params.end())) {
      diags_.Report(DiagId::UnsupportedConstruct, agg->target->range,
                    "extensions of type '" + ext->target->Name() + "'", "are");
      ext->target = nullptr;
      types_.ExtensionsChanged();
      continue;
    } else {
      contexts_[agg].this_type = ext->target;
    }
    ContextScope scope(*this, agg);
    for (ast::TypeExpr* base : agg->bases) {
      const Type* b = ResolveInterface(base);
      if (b == nullptr) continue;
      if (ext->target->IsInterface()) {
        diags_.Report(DiagId::UnsupportedConstruct, base->range,
                      "conformances added to interfaces by extensions", "are");
        continue;
      }
      ext->bases.push_back(b);
    }
    types_.ExtensionsChanged();
    for (ast::Decl* member : agg->members) {
      if (member->kind == ast::DeclKind::TypeAlias) {
        auto* alias = static_cast<ast::TypeAliasDecl*>(member);
        types_.AliasTypes()[alias] = ResolveType(alias->target);
        ext->type_members.push_back(alias);
        contexts_[agg].names.push_back(alias);
        continue;
      }
      if (member->kind != ast::DeclKind::Func) {
        diags_.Report(DiagId::UnsupportedConstruct, member->name_range,
                      "extension members other than methods and type aliases", "are");
        continue;
      }
      auto* f = static_cast<ast::FuncDecl*>(member);
      if (f->func_kind == ast::FuncKind::Getter || f->func_kind == ast::FuncKind::Setter) {
        diags_.Report(DiagId::UnsupportedConstruct, f->name_range,
                      "accessors outside a property or subscript", "are");
        continue;
      }
      CheckMethodAttributes(f);
      f->parent = agg;
      CheckFunctionSignature(f);
      f->owner = contexts_[agg].this_type;
      bool is_init = f->func_kind == ast::FuncKind::Init;
      if (is_init) {
        if (!ext->target->IsStruct()) {
          diags_.Report(DiagId::UnsupportedConstruct, f->name_range,
                        "'__init' in extensions of non-struct types", "is");
          continue;
        }
        f->result_type = f->owner;
        MarkConstructorDifferentiable(f);
      }
      if (!IsStaticFunc(f) || is_init) {
        f->is_mutating = is_init || f->FindAttribute("mutating") != nullptr;
        f->this_param = ctx_.New<ast::VarDecl>(ast::VarRole::Param, "this", f->name_range);
        f->this_param->type = f->owner;
        f->this_param->is_let = !f->is_mutating;
      }
      ext->methods.push_back(f);
    }
    extension_list_.push_back(ext);
  }
}

const Type* Checker::ResolveGenericMemberType(ast::TypeExpr* te) {
  if (te->type_args.empty() && te->value_args.empty()) return nullptr;
  size_t dot = te->name.rfind('.');
  size_t colons = te->name.rfind("::");
  size_t split = dot;
  size_t skip = 1;
  if (dot == std::string::npos || (colons != std::string::npos && colons > dot)) {
    split = colons;
    skip = 2;
  }
  if (split == std::string::npos) return nullptr;
  ast::TypeExpr base_expr = *te;
  base_expr.name = te->name.substr(0, split);
  if (base_expr.name == "Tuple" && te->value_args.empty() && Lookup("Tuple") == nullptr) {
    // `Tuple<float, float3>.Differential`
    const Type* tuple = ResolveTupleType(&base_expr);
    return tuple->IsError() ? tuple : MemberType(tuple, te->name.substr(split + skip), te->range);
  }
  ast::Decl* generic = Lookup(base_expr.name);
  if (generic == nullptr || (generic->kind != ast::DeclKind::Struct &&
                             generic->kind != ast::DeclKind::Interface)) {
    return nullptr;
  }
  const Type* base = ResolveType(&base_expr);
  if (base->IsError()) return base;
  return MemberType(base, te->name.substr(split + skip), te->range);
}

const Type* Checker::ResolveUserTypeName(ast::TypeExpr* te) {
  const std::string& name = te->name;
  // `T.Assoc`, `This.Differential`, `S::Alias`: a member type of a type.
  size_t dot = name.rfind('.');
  size_t colons = name.rfind("::");
  size_t split = std::string::npos;
  size_t skip = 0;
  if (dot != std::string::npos && (colons == std::string::npos || dot > colons)) {
    split = dot;
    skip = 1;
  } else if (colons != std::string::npos) {
    split = colons;
    skip = 2;
  }
  if (split != std::string::npos) {
    ast::TypeExpr base_expr;
    base_expr.name = name.substr(0, split);
    base_expr.range = te->range;
    const Type* base = LookupBuiltinTypeName(types_, base_expr.name);
    if (base == nullptr) base = ResolveUserTypeName(&base_expr);
    if (base == nullptr) return nullptr;
    if (base->IsError()) return base;
    return MemberType(base, name.substr(split + skip), te->range);
  }
  if (name == "This") {
    if (this_type_ == nullptr) return nullptr;
    return this_type_;
  }
  ast::Decl* decl = Lookup(name);
  if (decl == nullptr) return nullptr;
  switch (decl->kind) {
    case ast::DeclKind::GenericParam: {
      auto it = generic_param_types_.find(decl);
      return it != generic_param_types_.end() ? it->second : nullptr;
    }
    case ast::DeclKind::Struct: {
      const Type* st = StructTypeOf(decl);
      if (st == nullptr) return nullptr;
      if (!st->Info()->params.empty()) {
        // Inside a generic struct, its bare name is the struct itself.
        if (this_type_ == st) return st;
        // `Flag` for `struct Flag<let On : bool = true>`: every argument by default.
        bool all_default = true;
        for (const Type* p : st->Info()->params) {
          const ast::GenericParamDecl* pd = p->Generic()->decl;
          all_default = all_default && pd != nullptr &&
                        (pd->default_type != nullptr || pd->default_value != nullptr);
        }
        if (all_default) return ApplyGeneric(te, decl);
        diags_.Report(DiagId::GenericNeedsArgs, te->range, name);
        return types_.Error();
      }
      return st;
    }
    case ast::DeclKind::Interface: {
      InterfaceInfo* info = interfaces_.at(decl);
      if (!info->params.empty()) {
        diags_.Report(DiagId::GenericNeedsArgs, te->range, name);
        return types_.Error();
      }
      return types_.InterfaceOf(info, {});
    }
    case ast::DeclKind::AssociatedType:
      if (this_type_ == nullptr) return nullptr;
      return types_.AssocOf(this_type_, static_cast<ast::AssociatedTypeDecl*>(decl));
    case ast::DeclKind::TypeAlias: {
      auto it = types_.AliasTypes().find(decl);
      return it != types_.AliasTypes().end() ? it->second : nullptr;
    }
    default:
      return nullptr;
  }
}

const Type* Checker::MemberType(const Type* base, const std::string& name,
                                source::SourceRange range) {
  if (base->IsDependent()) {
    // Associated types of the interfaces the type is constrained by.
    std::vector<const Type*> work = types_.DirectConformances(base);
    for (size_t i = 0; i < work.size() && i < 256; ++i) {
      if (!work[i]->IsInterface()) continue;
      for (ast::AssociatedTypeDecl* assoc : work[i]->Iface()->assocs) {
        if (assoc->name == name) return types_.AssocOf(base, assoc);
      }
      for (const Type* b : work[i]->Iface()->bases) work.push_back(b);
    }
    if (base->IsStruct()) {
      for (ast::Decl* m : base->Info()->type_members) {
        if (m->name != name) continue;
        auto it = types_.AliasTypes().find(m);
        if (it != types_.AliasTypes().end()) {
          return types_.Substitute(it->second, types_.StructSubst(base));
        }
      }
    }
  } else {
    // A concrete type: its own type aliases and those of its extensions.
    if (base->IsStruct()) {
      for (ast::Decl* m : base->Info()->type_members) {
        if (m->name != name) continue;
        auto it = types_.AliasTypes().find(m);
        if (it != types_.AliasTypes().end()) {
          return types_.Substitute(it->second, types_.StructSubst(base));
        }
      }
    }
    for (auto& [ext, bindings] : types_.ExtensionsOf(base)) {
      for (ast::Decl* m : ext->type_members) {
        if (m->name != name) continue;
        return types_.Substitute(types_.AliasTypes().at(m), bindings);
      }
    }
  }
  diags_.Report(DiagId::NoSuchAssociatedType, range, base->Name(), name);
  return types_.Error();
}

bool Checker::CheckConstraints(const std::vector<const Type*>& params, const Subst& bindings,
                               const std::string& owner, source::SourceRange range, bool report) {
  bool ok = true;
  for (const Type* p : params) {
    auto found = bindings.find(p);
    if (found == bindings.end()) continue;
    // A type pack satisfies a constraint when each of its elements does.
    std::vector<const Type*> bound_types{found->second};
    if (found->second->IsPack()) {
      bound_types = found->second->PackPattern() != nullptr
                        ? std::vector<const Type*>{found->second->PackPattern()}
                        : found->second->Args();
    }
    for (const Type* bound : bound_types) {
      ok = CheckConstraintsOf(p, bound, bindings, owner, range, report) && ok;
      if (!ok && !report) return false;
    }
  }
  return ok;
}

bool Checker::CheckConstraintsOf(const Type* p, const Type* bound, const Subst& bindings,
                                 const std::string& owner, source::SourceRange range,
                                 bool report) {
  bool ok = true;
  auto note = [&](diag::DiagBuilder& builder) {
    if (p->Generic()->decl != nullptr) {
      builder.Note(DiagId::DeclaredHere, p->Generic()->decl->name_range, p->Generic()->name);
    }
  };
  for (const Type* c : p->Generic()->constraints) {
    const Type* required = types_.Substitute(c, bindings);
    if (types_.Conforms(bound, required)) continue;
    ok = false;
    if (!report) return false;
    auto offers = [&](const Type* iface) { return types_.Inherits(iface, required); };
    if (ReportOptionalUse(bound, "'" + owner + "'", offers, range)) continue;
    auto builder = diags_.Report(DiagId::ConstraintNotSatisfied, range, bound->Name(),
                                 required->Name(), p->Generic()->name, owner);
    note(builder);
  }
  for (auto& [assoc, c] : p->Generic()->assoc_constraints) {
    const Type* witness = types_.ResolveAssoc(bound, assoc);
    const Type* required = types_.Substitute(c, bindings);
    if (witness == nullptr || types_.Conforms(witness, required)) continue;
    ok = false;
    if (!report) return false;
    std::string subject = p->Generic()->name + "." + assoc->name;
    auto builder = diags_.Report(DiagId::ConstraintNotSatisfied, range, witness->Name(),
                                 required->Name(), subject, owner);
    note(builder);
  }
  for (auto& [assoc, equal] : p->Generic()->assoc_equalities) {
    const Type* witness = types_.ResolveAssoc(bound, assoc);
    const Type* required = types_.Substitute(equal, bindings);
    if (witness == nullptr || witness == required || witness->IsError() || required->IsError()) {
      continue;
    }
    ok = false;
    if (!report) return false;
    std::string subject = p->Generic()->name + "." + assoc->name;
    auto builder =
        diags_.Report(DiagId::TypeEqualityNotSatisfied, range, bound->Name() + "." + assoc->name,
                      witness->Name(), required->Name(), subject, equal->Name(), owner);
    note(builder);
  }
  return ok;
}

const Type* Checker::ApplyGeneric(ast::TypeExpr* te, ast::Decl* decl) {
  std::vector<const Type*> params;
  StructInfo* sinfo = nullptr;
  InterfaceInfo* iinfo = nullptr;
  const Type* alias_pattern = nullptr;
  if (decl->kind == ast::DeclKind::Struct) {
    const Type* st = StructTypeOf(decl);
    if (st == nullptr) return types_.Error();
    sinfo = st->Info();
    params = sinfo->params;
  } else if (decl->kind == ast::DeclKind::TypeAlias) {
    alias_pattern = ResolveAlias(static_cast<ast::TypeAliasDecl*>(decl));
    if (alias_pattern->IsError()) return alias_pattern;
    params = contexts_[decl].params;
  } else {
    iinfo = interfaces_.at(decl);
    params = iinfo->params;
  }
  size_t required = params.size();
  while (required > 0 && params[required - 1]->Generic()->decl != nullptr &&
         (params[required - 1]->Generic()->decl->default_type != nullptr ||
          params[required - 1]->Generic()->decl->default_value != nullptr)) {
    --required;
  }
  size_t given = te->type_args.size() + te->value_args.size();
  if (given > params.size() || given < required) {
    diags_.Report(DiagId::GenericArgCount, te->range, te->name, params.size(),
                  te->type_args.size() + te->value_args.size())
        .Note(DiagId::DeclaredHere, decl->name_range, decl->name);
    return types_.Error();
  }
  // Type arguments go to type parameters in order, values to value parameters; a name
  // that denotes a value parameter (`Stack<T, N>`) parses as a type and is a value here.
  std::vector<const Type*> types_in, values_in;
  std::vector<source::SourceRange> type_ranges, value_ranges;
  for (ast::TypeExpr* arg : te->type_args) {
    if (const Type* value = EnumCaseArg(arg)) {
      values_in.push_back(value);
      value_ranges.push_back(arg->range);
      continue;
    }
    const Type* a = ResolveType(arg);
    if (a->IsError()) return a;
    bool is_value = a->IsGenericParam() && a->Generic()->value_type != nullptr;
    (is_value ? values_in : types_in).push_back(a);
    (is_value ? value_ranges : type_ranges).push_back(arg->range);
  }
  for (ast::Expr* e : te->value_args) {
    const Type* v = GenericValueArg(e);
    if (v->IsError()) return v;
    values_in.push_back(v);
    value_ranges.push_back(e->range);
  }
  std::vector<const Type*> args;
  Subst bindings;
  size_t next_type = 0, next_value = 0;
  for (const Type* p : params) {
    bool wants_value = p->Generic()->value_type != nullptr;
    const std::vector<const Type*>& pool = wants_value ? values_in : types_in;
    size_t& next = wants_value ? next_value : next_type;
    if (next >= pool.size() && p->Generic()->default_arg != nullptr) {
      const Type* d = types_.Substitute(p->Generic()->default_arg, bindings);
      args.push_back(d);
      bindings[p] = d;
      continue;
    }
    if (next >= pool.size()) {
      diags_.Report(DiagId::GenericValueArgExpected, te->range, p->Generic()->name, te->name,
                    wants_value ? "an integer constant" : "a type");
      return types_.Error();
    }
    const Type* a = pool[next++];
    if (a->IsVoid() || a->IsInterface()) {
      diags_.Report(DiagId::UnsupportedConstruct, te->range,
                    "generic arguments of type '" + a->Name() + "'", "are");
      return types_.Error();
    }
    args.push_back(a);
    bindings[p] = a;
  }
  // Constraints are checked once every declaration's header is resolved.
  if (headers_resolved_ && !CheckConstraints(params, bindings, te->name, te->range, true)) {
    return types_.Error();
  }
  if (alias_pattern != nullptr) {
    const Type* aliased = types_.Substitute(alias_pattern, bindings);
    if (!aliased->IsDependent()) {
      concrete_types_.push_back({alias_pattern, bindings, te->name, te->range});
    }
    return aliased;
  }
  if (sinfo == nullptr) return types_.InterfaceOf(iinfo, args);
  const Type* applied = types_.StructOf(sinfo, args);
  if (!applied->IsDependent()) {
    concrete_types_.push_back({applied, {}, applied->Name(), te->range});
  }
  return applied;
}

// ---------------------------------------------------------------------------------------
// Conformance


std::vector<Checker::Candidate> Checker::FindMethods(const Type* t, const std::string& name) {
  std::vector<Candidate> result;
  if (t->IsStruct()) {
    for (ast::FuncDecl* m : t->Info()->methods) {
      if (m->name == name) result.push_back({m, types_.StructSubst(t)});
    }
  }
  if ((t->IsDependent() && !t->IsStruct()) || t->IsInterface()) {
    // A generic parameter (or associated type): the requirements of its constraints; a
    // value of interface type: the interface's requirements.
    // (Interfaces added by blanket extensions give their methods below.)
    for (const Type* c : types_.DirectConformances(t, /*with_extensions=*/false)) {
      for (const Type* iface : WithInherited(types_, c)) {
        for (ast::FuncDecl* m : iface->Iface()->methods) {
          if (m->name == name) result.push_back({m, types_.RequirementSubst(iface, t), iface});
        }
      }
    }
  }
  // A method of a blanket extension or a default implementation is hidden by a method
  // with as many parameters already found (the type's own, or a requirement, whose
  // implementation specialization picks).
  size_t own_count = result.size();
  auto hidden = [&](const ast::FuncDecl* m) {
    for (size_t i = 0; i < own_count; ++i) {
      if (result[i].func->params.size() == m->params.size()) return true;
    }
    return false;
  };
  if (!t->IsInterface()) {
    for (auto& [ext, bindings] : types_.ExtensionsOf(t)) {
      bool blanket = ext->target->IsGenericParam();
      for (ast::FuncDecl* m : ext->methods) {
        if (m->name == name && m->func_kind != ast::FuncKind::Init && !(blanket && hidden(m))) {
          result.push_back({m, bindings});
        }
      }
    }
  }
  own_count = result.size();
  // Default implementations in extensions of interfaces the type conforms to.
  for (ExtensionInfo* ext : extension_list_) {
    if (ext->target == nullptr || !ext->target->IsInterface()) continue;
    bool any = false;
    for (ast::FuncDecl* m : ext->methods) any = any || m->name == name;
    if (!any || !types_.Conforms(t, ext->target)) continue;
    Subst bindings{{ext->params.back(), t}};
    for (ast::FuncDecl* m : ext->methods) {
      if (m->name == name && !hidden(m)) result.push_back({m, bindings});
    }
  }
  // `S.dzero()`, `S.dadd(a, b)`, `S.dmul(s, a)` of a struct whose IDifferentiable
  // conformance is synthesized: the requirement, which lowering implements for S
  // (Lowerer::SynthesizedDiffOp), as it does for generic code calling `T.dzero()`.
  if (result.empty() && t->IsStruct()) {
    const Type* diff = DifferentiableInterface();
    if (diff != nullptr && types_.Conforms(t, diff)) {
      for (ast::FuncDecl* m : diff->Iface()->methods) {
        if (m->name == name) result.push_back({m, types_.RequirementSubst(diff, t), diff});
      }
    }
  }
  // A method found both as a requirement and as its implementation is one candidate:
  // keep the implementation (the requirement is what generic code sees).
  return result;
}

bool Checker::CheckExistentialArgument(const ast::CallExpr* call, const Type* iface) {
  for (const Type* i : WithInherited(types_, iface)) {
    if (!i->Iface()->assocs.empty()) {
      diags_.Report(DiagId::RequirementNotDispatchable, call->range,
                    i->Iface()->assocs[0]->name, iface->Name(),
                    "an associated type needs a concrete type; pass a value of a concrete type");
      return false;
    }
    for (ast::FuncDecl* m : i->Iface()->methods) {
      if (!CheckDispatchable(call, m, i)) return false;
    }
  }
  return true;
}

void Checker::CheckLinkTypeConformances() {
  for (ast::Decl* decl : alias_list_) {
    auto* alias = static_cast<ast::TypeAliasDecl*>(decl);
    if (alias->conformances.empty() || alias->target == nullptr) continue;
    const Type* target = ResolveAlias(alias);
    if (target->IsError()) continue;
    NamespaceScope ns(*this, alias);
    for (ast::TypeExpr* te : alias->conformances) {
      const Type* iface = ResolveType(te);
      if (iface->IsError()) continue;
      if (!iface->IsInterface() || !types_.Conforms(target, iface)) {
        diags_.Report(DiagId::LinkTypeConformance, alias->target->range, alias->name,
                      target->Name(), iface->Name());
      }
    }
  }
}

void Checker::CheckConformances() {
  CheckLinkTypeConformances();
  // Only the declarations that name conformances (most structs name none: 10^5 of them
  // must not cost a copy each).
  struct Conformer {
    const Type* self;
    const std::vector<const Type*>* bases;
    source::SourceRange range;
  };
  std::vector<Conformer> conformers;
  for (const Type* type : struct_list_) {
    if (type->Info()->bases.empty()) continue;
    conformers.push_back({type, &type->Info()->bases, type->Info()->decl->name_range});
  }
  for (ExtensionInfo* ext : extension_list_) {
    if (ext->target == nullptr || ext->bases.empty()) continue;
    conformers.push_back({ext->target, &ext->bases, ext->decl->target->range});
  }
  for (const Conformer& c : conformers) {
    for (const Type* base : *c.bases) {
      // IComparable, IArithmetic, ILogical, IInteger, IFloat stand for the built-in
      // operators of numbers: generic code over them uses `<`, `+`, ... directly, which a
      // struct does not have, so a struct may not claim them.
      if (c.self->IsStruct() && base->IsInterface() && !base->Iface()->capabilities.empty()) {
        diags_.Report(DiagId::BuiltinInterfaceConformance, c.range, c.self->Name(),
                      base->Name());
        continue;
      }
      for (const Type* iface : WithInherited(types_, base)) {
        Subst req = types_.RequirementSubst(iface, c.self);
        const InterfaceInfo* info = iface->Iface();
        for (ast::AssociatedTypeDecl* assoc : info->assocs) {
          const Type* witness = c.self->IsDependent() && !c.self->IsStruct()
                                    ? nullptr
                                    : types_.ResolveAssoc(c.self, assoc);
          if (witness == nullptr || witness->Kind() == TypeKind::AssocType) {
            if (IsSynthesizedConformance(c.self, iface)) continue;  // made by autodiff
            diags_.Report(DiagId::MissingAssociatedType, c.range, c.self->Name(), assoc->name,
                          iface->Name())
                .Note(DiagId::RequirementHere, assoc->name_range, assoc->name);
            continue;
          }
          auto constraints = info->assoc_constraints.find(assoc);
          if (constraints == info->assoc_constraints.end()) continue;
          for (const Type* ct : constraints->second) {
            const Type* required = types_.Substitute(ct, req);
            if (!types_.Conforms(witness, required)) {
              diags_.Report(DiagId::ConstraintNotSatisfied, c.range, witness->Name(),
                            required->Name(), assoc->name, iface->Name())
                  .Note(DiagId::RequirementHere, assoc->name_range, assoc->name);
            }
          }
        }
        for (ast::FuncDecl* r : info->methods) {
          if (r->result_type == nullptr) continue;
          Subst context;
          const ast::FuncDecl* near = nullptr;
          if (const ast::FuncDecl* w = types_.FindWitness(c.self, r, iface, &context, &near)) {
            CheckDifferentiableWitness(r, w, c.self, iface);
            continue;
          }
          // IDifferentiable's `dmul` scales a derivative; versions of Slang's interface
          // differ in its first parameter (`float`, `This`, a generic real), so a static
          // `dmul` returning the Differential from one is accepted (calls through the
          // interface use the member-wise scaling lowering makes).
          if (near != nullptr && r->name == "dmul" && iface->Iface()->name == "IDifferentiable" &&
              (near->modifiers & ast::kModStatic) != 0 && near->params.size() == 2 &&
              near->result_type != nullptr && near->params[1]->type != nullptr &&
              types_.Substitute(near->result_type, context) == types_.Substitute(r->result_type, req) &&
              types_.Substitute(near->params[1]->type, context) ==
                  types_.Substitute(r->params[1]->type, req)) {
            continue;
          }
          // A struct whose fields all have default values gets IDefaultInitializable's
          // `__init()` made for it (lowering's DefaultOf).
          if (near == nullptr && r->func_kind == ast::FuncKind::Init && r->params.empty() &&
              types_.DefaultInitializable(c.self)) {
            continue;
          }
          std::string wanted = WithGenericParams(SignatureIn(types_, r, req), r);
          if (near != nullptr) {
            diags_.Report(DiagId::RequirementMismatch, near->name_range,
                          WithGenericParams(SignatureIn(types_, near, context), near),
                          c.self->Name(), wanted,
                          iface->Name())
                .Note(DiagId::RequirementHere, r->name_range, wanted);
          } else if (!IsSynthesizedConformance(c.self, iface)) {
            diags_.Report(DiagId::MissingRequirement, c.range, c.self->Name(), wanted,
                          iface->Name())
                .Note(DiagId::RequirementHere, r->name_range, wanted);
          }
        }
      }
    }
  }
}

void Checker::CheckExtensionBodies(CheckedModule* out) {
  for (ExtensionInfo* ext : extension_list_) {
    if (!CheckMethodBodies(ext->methods, out)) return;
  }
}

bool Checker::CheckMethodBodies(const std::vector<ast::FuncDecl*>& methods, CheckedModule* out) {
  for (ast::FuncDecl* f : methods) {
    if (diags_.LimitReached()) return false;
    if (f->body == nullptr && f->intrinsic_inst < 0) {
      diags_.Report(DiagId::UnsupportedConstruct, f->name_range, "methods without a body", "are");
      continue;
    }
    if (!DeferBody(f)) CheckFunctionBody(f);
    out->functions.push_back(f);
  }
  return true;
}

// ---------------------------------------------------------------------------------------
// Calls

bool Checker::ResolveCall(ast::CallExpr* call, const std::vector<Candidate>& candidates,
                          const std::string& name, const std::vector<const Type*>& explicit_args) {
  struct Viable {
    const Candidate* cand;
    Subst bindings;
    std::vector<const Type*> param_types;
    int cost;
  };
  std::vector<Viable> best;
  int best_cost = std::numeric_limits<int>::max();
  const Candidate* constraint_failure = nullptr;
  Subst failed_bindings;
  bool inference_failed = false;
  bool too_many_explicit = false;  // more explicit generic arguments than parameters
  PackSplit split_failure = PackSplit::kFits;
  std::vector<const Type*> arg_types;
  for (const Candidate& cand : candidates) {
    ast::FuncDecl* f = cand.func;
    // A variadic function sees one pack per variadic parameter (check_pack.cpp).
    if (PackSplit split = SplitPackArgs(f, call, &arg_types); split != PackSplit::kFits) {
      split_failure = split;
      continue;
    }
    size_t nargs = arg_types.size();
    bool variadic = VariadicParamCount(f) != 0;
    if (nargs > f->params.size() || nargs < RequiredParams(f) || f->result_type == nullptr) {
      continue;
    }
    std::vector<const Type*> own(f->generic_context.begin() + static_cast<long>(f->own_generic_begin),
                                 f->generic_context.end());
    Subst bindings = cand.context;
    if (!BindExplicitPackArgs(own, explicit_args, &bindings)) {
      too_many_explicit = true;
      continue;
    }
    if (!variadic) JoinNumericArgs(f, own, call, &bindings);
    // Parameters whose type mentions the function's own generic parameters bind them
    // from the argument types; the others accept conversions as usual.
    bool ok = true;
    for (size_t i = 0; i < nargs && ok; ++i) {
      const Type* pattern = types_.Substitute(f->params[i]->type, bindings);
      // An initializer list binds nothing: it takes the type the others infer.
      if (pattern->IsDependent() && arg_types[i] != types_.InitList()) {
        Subst own_bindings;
        if (types_.Unify(pattern, arg_types[i], own, &own_bindings)) {
          for (auto& [p, t] : own_bindings) bindings[p] = t;
        }
      }
    }
    for (const Type* p : own) {
      // A parameter neither given nor inferred takes its default (`f<T = float>()`).
      if (bindings.count(p) == 0 && p->Generic()->default_arg != nullptr) {
        bindings[p] = types_.Substitute(p->Generic()->default_arg, bindings);
      }
      ok = ok && bindings.count(p) != 0;
    }
    if (!ok) {
      inference_failed = true;
      continue;
    }
    if (!CheckConstraints(own, bindings, name, call->range, false) &&
        !PromoteToFloat(own, name, call, &bindings)) {
      constraint_failure = &cand;
      failed_bindings = bindings;
      continue;
    }
    Viable v{&cand, bindings, {}, 0};
    for (size_t i = 0; i < f->params.size() && v.cost < kNoConversion; ++i) {
      const Type* pt = types_.Substitute(f->params[i]->type, bindings);
      v.param_types.push_back(pt);
      if (i >= nargs) continue;  // a default value
      int c = call->args.size() == nargs && call->args[i]->kind == ast::ExprKind::InitList
                  ? InitListCost(static_cast<const ast::InitListExpr*>(call->args[i]), pt)
                  : PackConversionCost(arg_types[i], pt);
      v.cost = c >= kNoConversion ? kNoConversion : v.cost + c;
    }
    if (v.cost >= kNoConversion) continue;
    // At the same cost, a candidate filling fewer parameters with default values is
    // preferred, then a non-generic one over a generic one.
    int defaults = static_cast<int>(std::min<size_t>(f->params.size() - nargs, 15));
    int rank = v.cost * 32 + defaults * 2 + (own.empty() ? 0 : 1);
    if (rank < best_cost) {
      best_cost = rank;
      best.clear();
    }
    if (rank == best_cost) best.push_back(std::move(v));
  }
  if (best.empty()) {
    if (constraint_failure != nullptr) {
      ast::FuncDecl* f = constraint_failure->func;
      std::vector<const Type*> own(f->generic_context.begin() + static_cast<long>(f->own_generic_begin),
                                   f->generic_context.end());
      CheckConstraints(own, failed_bindings, name, call->range, true);
      return false;
    }
    if (candidates.size() == 1 && split_failure != PackSplit::kFits) {
      ReportPackSplit(candidates[0].func, call, name, split_failure);
      return false;
    }
    if (candidates.size() == 1 && VariadicParamCount(candidates[0].func) != 0 && inference_failed) {
      ast::FuncDecl* f = candidates[0].func;
      diags_.Report(DiagId::CannotInferGenericArgs, call->range, name, ArgTypeList(call->args))
          .Note(DiagId::DeclaredHere, f->name_range, f->name);
      return false;
    }
    if (candidates.size() == 1 && VariadicParamCount(candidates[0].func) == 0) {
      ast::FuncDecl* f = candidates[0].func;
      if (too_many_explicit) {
        diags_
            .Report(DiagId::GenericArgCount, call->range, name,
                    f->generic_context.size() - f->own_generic_begin, explicit_args.size())
            .Note(DiagId::DeclaredHere, f->name_range, f->name);
        return false;
      }
      if (call->args.size() > f->params.size() || call->args.size() < RequiredParams(f)) {
        size_t expected = call->args.size() > f->params.size() ? f->params.size() : RequiredParams(f);
        diags_.Report(DiagId::WrongArgumentCount, call->range, name, expected, call->args.size())
            .Note(DiagId::DeclaredHere, f->name_range, f->name);
        return false;
      }
      if (inference_failed) {
        diags_.Report(DiagId::CannotInferGenericArgs, call->range, name, ArgTypeList(call->args))
            .Note(DiagId::DeclaredHere, f->name_range, f->name);
        return false;
      }
      // An initializer list that fits no parameter is the error to show.
      bool list = false;
      for (const ast::Expr* a : call->args) list = list || a->type == types_.InitList();
      for (size_t i = 0; i < call->args.size(); ++i) {
        if (list && call->args[i]->type != types_.InitList()) continue;
        call->args[i] = Coerce(call->args[i], types_.Substitute(f->params[i]->type, candidates[0].context));
      }
      return false;
    }
    bool constructors = candidates[0].func->func_kind == ast::FuncKind::Init;
    auto builder = diags_.Report(
        constructors ? DiagId::NoMatchingConstructor : DiagId::NoMatchingOverload, call->range,
        name, ArgTypeList(call->args));
    for (const Candidate& c : candidates) {
      builder.Note(DiagId::CandidateHere, c.func->name_range, SignatureIn(types_, c.func, c.context));
    }
    return false;
  }
  if (best.size() > 1) {
    auto builder = diags_.Report(DiagId::AmbiguousCall, call->range, name);
    for (const Viable& v : best) {
      builder.Note(DiagId::CandidateHere, v.cand->func->name_range,
                   SignatureIn(types_, v.cand->func, v.bindings));
    }
    return false;
  }
  const Viable& v = best[0];
  ast::FuncDecl* f = v.cand->func;
  GroupPackArgs(call, f, v.param_types);
  for (size_t i = 0; i < f->params.size(); ++i) {
    if (i < call->args.size()) {
      call->args[i] = Coerce(call->args[i], v.param_types[i]);
    } else {
      call->args.push_back(DefaultArgument(f->params[i], v.param_types[i]));
    }
  }
  if (f->body == nullptr && f->intrinsic_op < 0 && !v.cand->via_interface &&
      (f->parent == nullptr || f->parent->kind != ast::DeclKind::Interface)) {
    diags_.Report(DiagId::FunctionNotDefined, call->range, name)
        .Note(DiagId::DeclaredHere, f->name_range, name);
    return false;
  }
  call->func = f;
  CheckOutArguments(call, f);
  call->via_interface = v.cand->via_interface;
  call->generic_args.clear();
  for (size_t i = f->own_generic_begin; i < f->generic_context.size(); ++i) {
    const Type* arg = v.bindings.at(f->generic_context[i]);
    call->generic_args.push_back(arg);
    if (arg->IsInterface() && !CheckExistentialArgument(call, arg)) return false;
  }
  RecordGenericCall(f, v.bindings, call->range);
  call->type = f->func_kind == ast::FuncKind::Init ? types_.Substitute(f->owner, v.bindings)
                                                   : types_.Substitute(f->result_type, v.bindings);
  if (current_function_ != nullptr) calls_[current_function_].emplace_back(f, call->range);
  return true;
}

const Type* Checker::GenericValueArg(ast::Expr* e) {
  if (e->type == nullptr) e = CheckExpr(e);
  if (e->type->IsError()) return types_.Error();
  if (e->kind == ast::ExprKind::Name) {
    ast::Decl* decl = static_cast<ast::NameExpr*>(e)->decl;
    if (decl != nullptr && decl->kind == ast::DeclKind::GenericParam) {
      return static_cast<ast::GenericParamDecl*>(decl)->type;
    }
  }
  int64_t v = 0;
  bool constant = EvaluateIntConstant(e, &v);
  if (!constant) {
    // `Stack<N + 1>`: known once N is.
    const Type* value = GenericIntValue(e);
    if (value != nullptr && value->IsDependent()) return value;
    if (value != nullptr && e->type->IsScalar()) return value;  // `Stack<2>.kCap`
  }
  if (!constant || !(e->type->IsScalar() || e->type->IsEnum())) {
    if (ReportSpecConstantUse(e, "a generic value argument")) return types_.Error();
    diags_.Report(DiagId::GenericValueNotConstant, e->range);
    return types_.Error();
  }
  return types_.IntValue(v);
}

const Type* Checker::GenericOperatorResult(ast::OpKind op, const Type* a, const Type* b) {
  if (a != b || !a->IsDependent()) return nullptr;
  std::string caps = types_.CapabilitiesOf(a);
  auto has = [&](char c) { return caps.find(c) != std::string::npos; };
  switch (op) {
    case ast::OpKind::Add:
    case ast::OpKind::Sub:
    case ast::OpKind::Mul:
    case ast::OpKind::Div:
    case ast::OpKind::Rem:
      return has('a') ? a : nullptr;
    case ast::OpKind::BitAnd:
    case ast::OpKind::BitOr:
    case ast::OpKind::BitXor:
    case ast::OpKind::Shl:
    case ast::OpKind::Shr:
      return has('i') || has('l') ? a : nullptr;
    case ast::OpKind::Eq:
    case ast::OpKind::Ne:
      return has('c') || has('l') ? types_.Bool() : nullptr;
    case ast::OpKind::Lt:
    case ast::OpKind::Le:
    case ast::OpKind::Gt:
    case ast::OpKind::Ge:
      return has('c') ? types_.Bool() : nullptr;
    default:
      return nullptr;
  }
}

}  // namespace slope::sema

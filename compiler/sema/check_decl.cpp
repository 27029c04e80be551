// Enums, type aliases and namespaces: declaring them, the types they name and the
// expressions that refer to their members.
//
// An enum is a distinct type represented by its underlying `int` or `uint`; an
// enumerator is a constant of the enum type (sema replaces each use by a literal). The
// cases of a plain enum are also visible in the enclosing scope and the enum converts
// implicitly to numbers; those of an `enum class` only as `Mode.Fast` / `Mode::Fast`.
//
// A namespace's members are checked like top-level declarations; while one of them is
// checked, lookups see the members of its namespace (and the enclosing ones) before the
// global scope. Outside, they are named `geo::f` or `geo.f`.

#include <algorithm>
#include <functional>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

NamespaceScope::NamespaceScope(Checker& c, const ast::Decl* decl) : c_(c), saved_(c.current_ns_) {
  if (decl == nullptr) return;
  auto it = c.decl_ns_.find(decl);
  c.current_ns_ = it != c.decl_ns_.end() ? it->second : nullptr;
}

NamespaceScope::~NamespaceScope() { c_.current_ns_ = saved_; }

ast::Decl* Checker::LookupInNamespaces(const std::string& name) const {
  for (const NamespaceInfo* ns = current_ns_; ns != nullptr; ns = ns->parent) {
    auto it = ns->members.find(name);
    if (it != ns->members.end()) return it->second;
    if (ast::Decl* d = LookupInUsed(ns->used, name)) return d;
  }
  return nullptr;
}

ast::Decl* Checker::LookupInUsed(const std::vector<const NamespaceInfo*>& used,
                                 const std::string& name) const {
  ast::Decl* found = nullptr;
  const NamespaceInfo* found_ns = nullptr;
  for (const NamespaceInfo* ns : used) {
    auto it = ns->members.find(name);
    if (it == ns->members.end() || it->second == found) continue;
    if (found == nullptr) {
      found = it->second;
      found_ns = ns;
    } else if (ambiguity_.name.empty()) {
      ambiguity_ = {name, found_ns, found, ns, it->second};
    }
  }
  return found;
}

bool Checker::ReportAmbiguousLookup(const std::string& name, source::SourceRange range) {
  if (ambiguity_.name.empty() || ambiguity_.name != name) return false;
  Ambiguity a = ambiguity_;
  ambiguity_ = {};
  diags_.Report(DiagId::AmbiguousUsing, range, name, a.first_ns->path, a.second_ns->path)
      .Note(DiagId::DeclaredHere, a.first->name_range, a.first_ns->path + "::" + name)
      .Note(DiagId::DeclaredHere, a.second->name_range, a.second_ns->path + "::" + name);
  return true;
}

void Checker::ResolveUsings() {
  for (auto& [decl, holder] : using_list_) {
    // The path is looked up from where the declaration stands outwards.
    const NamespaceInfo* target = nullptr;
    for (const NamespaceInfo* scope = holder;; scope = scope->parent) {
      std::string prefix = scope != nullptr ? scope->path + "::" : "";
      for (auto& info : namespace_list_) {
        if (info->path == prefix + decl->name) target = info.get();
      }
      if (target != nullptr || scope == nullptr) break;
    }
    if (target == nullptr) {
      diags_.Report(DiagId::UsingNotNamespace, decl->name_range, decl->name);
      continue;
    }
    auto& used = holder != nullptr ? holder->used : global_used_;
    if (target != holder && std::find(used.begin(), used.end(), target) == used.end()) {
      used.push_back(target);
    }
  }
}

const Type* Checker::EnumTypeOf(const ast::Decl* decl) const {
  if (decl == nullptr || decl->kind != ast::DeclKind::Enum) return nullptr;
  auto it = enum_types_.find(decl);
  return it == enum_types_.end() ? nullptr : it->second;
}

const std::vector<ast::FuncDecl*>& Checker::OverloadsOf(const ast::FuncDecl* func) {
  auto it = decl_ns_.find(func);
  if (it != decl_ns_.end()) return it->second->functions[func->name];
  EnsureSignatures(func->name);
  return functions_[func->name];
}

void Checker::DeclareScopedDecls(std::vector<ast::Decl*>* decls) {
  std::vector<ast::Decl*> kept;
  // Declares `decl` in namespace `ns` (the global scope when null).
  auto declare_in = [&](NamespaceInfo* ns, ast::Decl* decl) {
    if (ns == nullptr) {
      Declare(decl);
      return;
    }
    auto [it, inserted] = ns->members.emplace(decl->name, decl);
    if (!inserted) {
      diags_.Report(DiagId::Redefinition, decl->name_range, decl->name)
          .Note(DiagId::PreviousDefinition, it->second->name_range, decl->name);
    }
  };
  std::function<void(ast::Decl*, NamespaceInfo*)> add = [&](ast::Decl* decl, NamespaceInfo* ns) {
    std::string prefix = ns != nullptr ? ns->path + "::" : "";
    switch (decl->kind) {
      case ast::DeclKind::Namespace: {
        auto* agg = static_cast<ast::AggregateDecl*>(decl);
        std::string path = prefix + agg->name;
        NamespaceInfo* info = nullptr;
        for (auto& existing : namespace_list_) {
          if (existing->path == path) info = existing.get();  // reopened
        }
        if (info == nullptr) {
          namespace_list_.push_back(std::make_unique<NamespaceInfo>());
          info = namespace_list_.back().get();
          info->path = path;
          info->parent = ns;
          info->first = decl;
          declare_in(ns, decl);
        }
        namespaces_[decl] = info;
        if (ns != nullptr) decl_ns_[decl] = ns;
        for (ast::Decl* member : agg->members) add(member, info);
        return;
      }
      case ast::DeclKind::Enum: {
        auto* e = static_cast<ast::EnumDecl*>(decl);
        const Type* underlying = types_.Int();
        if (e->underlying != nullptr) {
          const Type* u = e->underlying->array_dims.empty()
                              ? LookupBuiltinTypeName(types_, e->underlying->name)
                              : nullptr;
          if (u != nullptr && u->IsScalar() &&
              (u->Kind() == TypeKind::Int || u->Kind() == TypeKind::UInt)) {
            underlying = u;
          } else {
            diags_.Report(DiagId::EnumUnderlyingType, e->underlying->range, prefix + e->name,
                          e->underlying->name);
          }
          e->underlying->resolved = underlying;
        }
        auto info = std::make_unique<EnumInfo>();
        info->decl = e;
        info->name = prefix + e->name;
        info->is_class = e->is_class;
        info->cases = e->cases;
        const Type* type = types_.Enum(std::move(info), underlying);
        enum_types_[decl] = type;
        enum_list_.push_back(type);
        if (ns != nullptr) decl_ns_[decl] = ns;
        declare_in(ns, decl);
        std::map<std::string, ast::EnumCaseDecl*> seen;
        for (ast::EnumCaseDecl* c : e->cases) {
          case_enums_[c] = type;
          if (ns != nullptr) decl_ns_[c] = ns;
          auto [it, inserted] = seen.emplace(c->name, c);
          if (!inserted) {
            diags_.Report(DiagId::Redefinition, c->name_range, c->name)
                .Note(DiagId::PreviousDefinition, it->second->name_range, c->name);
            continue;
          }
          // The cases of a plain enum are also names of the enclosing scope.
          if (!e->is_class) declare_in(ns, c);
        }
        return;
      }
      case ast::DeclKind::Using:
        using_list_.emplace_back(decl, ns);
        return;
      case ast::DeclKind::TypeAlias:
        alias_list_.push_back(decl);
        alias_state_[decl] = 0;
        if (ns != nullptr) decl_ns_[decl] = ns;
        declare_in(ns, decl);
        return;
      case ast::DeclKind::Var:
      case ast::DeclKind::Func:
      case ast::DeclKind::Struct:
      case ast::DeclKind::Interface:
        if (ns != nullptr) {
          decl_ns_[decl] = ns;
          if (decl->kind != ast::DeclKind::Func && decl->kind != ast::DeclKind::Var) {
            for (ast::Decl* member : static_cast<ast::AggregateDecl*>(decl)->members) {
              decl_ns_[member] = ns;
            }
          }
        }
        kept.push_back(decl);
        return;
      default:
        if (ns == nullptr) {
          kept.push_back(decl);  // interfaces, extensions, ...: checked elsewhere
        } else {
          diags_.Report(DiagId::UnsupportedConstruct, decl->name_range,
                        "declarations of this kind inside a namespace", "are");
        }
        return;
    }
  };
  for (ast::Decl* decl : *decls) add(decl, nullptr);
  *decls = std::move(kept);
  ResolveUsings();
}

bool Checker::DeclareInNamespace(ast::Decl* decl) {
  auto it = decl_ns_.find(decl);
  if (it == decl_ns_.end()) return false;
  NamespaceInfo* ns = it->second;
  auto [existing, inserted] = ns->members.emplace(decl->name, decl);
  bool overload = decl->kind == ast::DeclKind::Func && existing->second->kind == ast::DeclKind::Func;
  if (!inserted && !overload) {
    diags_.Report(DiagId::Redefinition, decl->name_range, decl->name)
        .Note(DiagId::PreviousDefinition, existing->second->name_range, decl->name);
    return true;
  }
  if (decl->kind == ast::DeclKind::Func) {
    ns->functions[decl->name].push_back(static_cast<ast::FuncDecl*>(decl));
  }
  return true;
}

void Checker::ResolveAliasesAndEnums() {
  for (ast::Decl* decl : alias_list_) ResolveAlias(static_cast<ast::TypeAliasDecl*>(decl));
  for (const Type* type : enum_list_) EvaluateEnum(type);
  // Structs declared in a namespace are named by their path in messages.
  for (const Type* type : struct_list_) {
    auto it = decl_ns_.find(type->Info()->decl);
    if (it != decl_ns_.end()) type->Info()->name = it->second->path + "::" + type->Info()->decl->name;
  }
}

const Type* Checker::ResolveAlias(ast::TypeAliasDecl* decl) {
  int& state = alias_state_[decl];
  if (state == 2) {
    auto it = types_.AliasTypes().find(decl);
    return it != types_.AliasTypes().end() ? it->second : types_.Error();
  }
  if (state == 1) {
    diags_.Report(DiagId::AliasCycle, decl->name_range, decl->name);
    types_.AliasTypes()[decl] = types_.Error();
    state = 2;
    return types_.Error();
  }
  state = 1;
  const Type* type = types_.Error();
  if (!decl->generic_params.empty()) {
    // `typealias Vec<T> = vector<T, 3>;`: the target with the parameters left open, a
    // pattern that each use (`Vec<float>`) substitutes (ApplyGeneric).
    NamespaceScope ns(*this, decl);
    std::vector<const Type*> params = MakeGenericParams(decl->generic_params, "type aliases");
    contexts_[decl].params = params;
    ContextScope scope(*this, decl);
    ResolveConstraints(params);
    type = ResolveType(decl->target);
  } else {
    NamespaceScope ns(*this, decl);
    type = ResolveType(decl->target);
  }
  int& done = alias_state_[decl];
  if (done == 2) return types_.AliasTypes()[decl];  // a cycle through it was reported
  done = 2;
  types_.AliasTypes()[decl] = type;
  return type;
}

void Checker::EvaluateEnum(const Type* type) {
  EnumInfo* info = type->Enumeration();
  if (info->evaluated || info->evaluating) return;
  info->evaluating = true;
  NamespaceScope ns(*this, info->decl);
  const Type* underlying = type->Element();
  int64_t next = 0;
  scopes_.emplace_back();  // earlier cases are visible by their bare names
  for (ast::EnumCaseDecl* c : info->cases) {
    if (c->value != nullptr) {
      CheckConstantsUsedBy(c->value);
      ast::Expr* value = CheckExpr(c->value);
      value = value->type == type ? ExplicitConvert(value, underlying) : Coerce(value, underlying);
      c->value = value;
      int64_t v = 0;
      if (value->type->IsError()) {
        // reported
      } else if (!EvaluateIntConstant(value, &v)) {
        diags_.Report(DiagId::EnumValueNotConstant, value->range, c->name);
      } else {
        next = v;
      }
    }
    // The value as the underlying type holds it (wrapped to its width).
    next = WrapToWidth(next, underlying->Width(), underlying->Kind() == TypeKind::Int);
    info->values.push_back(next);
    ++next;
    scopes_.back().emplace(c->name, c);
  }
  scopes_.pop_back();
  info->evaluating = false;
  info->evaluated = true;
}

ast::Expr* Checker::EnumCaseValue(const Type* type, int index, source::SourceRange range) {
  EnumInfo* info = type->Enumeration();
  EvaluateEnum(type);
  const Type* underlying = type->Element();
  auto* literal = ctx_.New<ast::IntLiteralExpr>(range, 0, underlying->Kind() == TypeKind::UInt);
  literal->width = underlying->Width() == 64 ? 64 : 32;
  if (static_cast<size_t>(index) >= info->values.size()) {
    // Named by an earlier case's value: not known yet.
    diags_.Report(DiagId::EnumValueNotConstant, range, info->cases[static_cast<size_t>(index)]->name);
    literal->type = types_.Error();
    return literal;
  }
  literal->value = static_cast<uint64_t>(info->values[static_cast<size_t>(index)]);
  if (literal->width == 32) literal->value &= 0xFFFFFFFFull;
  // Inside its own declaration, an enumerator is a plain number.
  literal->type = info->evaluating ? type->Element() : type;
  return literal;
}

Checker::NamespaceInfo* Checker::NamespaceOf(const ast::Expr* e) {
  if (e->kind == ast::ExprKind::Name) {
    ast::Decl* decl = Lookup(static_cast<const ast::NameExpr*>(e)->name);
    if (decl == nullptr || decl->kind != ast::DeclKind::Namespace) return nullptr;
    return namespaces_.at(decl);
  }
  if (e->kind == ast::ExprKind::Member) {
    auto* m = static_cast<const ast::MemberExpr*>(e);
    NamespaceInfo* outer = NamespaceOf(m->base);
    if (outer == nullptr) return nullptr;
    auto it = outer->members.find(m->member);
    if (it == outer->members.end() || it->second->kind != ast::DeclKind::Namespace) return nullptr;
    return namespaces_.at(it->second);
  }
  return nullptr;
}

namespace {
/// "geo::Ray" split at its last "::" into "geo" and "Ray"; false without one.
bool SplitQualified(const std::string& name, std::string* prefix, std::string* last) {
  size_t colons = name.rfind("::");
  if (colons == std::string::npos) return false;
  *prefix = name.substr(0, colons);
  *last = name.substr(colons + 2);
  return true;
}
}  // namespace

const Type* Checker::ResolveScopedTypeName(ast::TypeExpr* te) {
  ast::Decl* decl = nullptr;
  std::string prefix, last;
  if (size_t dot = te->name.find('.'); dot != std::string::npos) {
    // `geo.Ray`, `geo.inner.Mode`: a namespace path written with dots reads as `geo::Ray`.
    size_t colons = te->name.find("::");
    std::string head = te->name.substr(0, std::min(dot, colons));
    ast::Decl* d = head.empty() ? nullptr : Lookup(head);
    if (d != nullptr && d->kind == ast::DeclKind::Namespace) {
      std::string path;
      for (char ch : te->name) path += ch == '.' ? std::string("::") : std::string(1, ch);
      te->name = path;
    }
  }
  if (SplitQualified(te->name, &prefix, &last) && !prefix.empty()) {
    // `geo::Ray`, `geo::inner::Mode`: resolve the namespace path one part at a time
    // (`::geo::Ray`: its first part in the global scope).
    NamespaceInfo* ns = nullptr;
    bool global = prefix.compare(0, 2, "::") == 0;
    size_t start = global ? 2 : 0;
    while (true) {
      size_t end = prefix.find("::", start);
      std::string part = prefix.substr(start, end == std::string::npos ? end : end - start);
      ast::Decl* d = nullptr;
      if (ns == nullptr) {
        d = Lookup(global ? "::" + part : part);
      } else if (auto it = ns->members.find(part); it != ns->members.end()) {
        d = it->second;
      }
      if (d == nullptr || d->kind != ast::DeclKind::Namespace) {
        if (ns == nullptr) return nullptr;  // not a namespace path: `S::Alias` and the like
        diags_.Report(DiagId::NoSuchNamespaceMember, te->range, ns->path, part);
        return types_.Error();
      }
      ns = namespaces_.at(d);
      if (end == std::string::npos) break;
      start = end + 2;
    }
    auto it = ns->members.find(last);
    if (it == ns->members.end()) {
      diags_.Report(DiagId::NoSuchNamespaceMember, te->range, ns->path, last);
      return types_.Error();
    }
    decl = it->second;
    if (decl->kind == ast::DeclKind::Struct) {
      const Type* st = StructTypeOf(decl);
      if (st != nullptr && st->Info()->params.empty()) return st;
    }
    if (decl->kind == ast::DeclKind::Interface) {
      auto iface = interfaces_.find(decl);
      if (iface != interfaces_.end() && iface->second->params.empty()) {
        return types_.InterfaceOf(iface->second, {});
      }
    }
  } else {
    decl = Lookup(te->name);
    if (decl == nullptr) return nullptr;
    if (ReportAmbiguousLookup(te->name, te->range)) return types_.Error();
  }
  switch (decl->kind) {
    case ast::DeclKind::Enum:
      return EnumTypeOf(decl);
    case ast::DeclKind::TypeAlias:
      if (alias_state_.count(decl) == 0) return nullptr;  // a struct's member alias
      if (!static_cast<ast::TypeAliasDecl*>(decl)->generic_params.empty()) {
        diags_.Report(DiagId::GenericNeedsArgs, te->range, te->name)
            .Note(DiagId::DeclaredHere, decl->name_range, decl->name);
        return types_.Error();
      }
      return ResolveAlias(static_cast<ast::TypeAliasDecl*>(decl));
    case ast::DeclKind::Namespace:
      diags_.Report(DiagId::NotAType, te->range, te->name);
      return types_.Error();
    default:
      if (!prefix.empty()) {
        diags_.Report(DiagId::NotAType, te->range, te->name);
        return types_.Error();
      }
      return nullptr;
  }
}

ast::Expr* Checker::CheckScopedName(ast::NameExpr* expr, ast::Decl* decl) {
  if (decl == nullptr) return nullptr;
  if (decl->kind == ast::DeclKind::EnumCase) {
    const Type* type = case_enums_.at(decl);
    return EnumCaseValue(type, type->Enumeration()->CaseIndex(decl->name), expr->range);
  }
  if (decl->kind == ast::DeclKind::Namespace) {
    diags_.Report(DiagId::NamespaceUsedAsValue, expr->range, expr->name);
    expr->type = types_.Error();
    return expr;
  }
  return nullptr;
}

const Type* Checker::TypeThroughMembers(const ast::Expr* e) {
  // `Mode` inside the struct declaring it, `Outer.Mode`, `Outer::Pair::Tag`: a path of
  // names that starts at a struct or at a struct's type member, each further name a
  // type member of the struct before it. Nothing is reported for other expressions.
  std::vector<const ast::MemberExpr*> path;
  while (e->kind == ast::ExprKind::Member) {
    auto* m = static_cast<const ast::MemberExpr*>(e);
    if (!m->generic_args.empty()) return nullptr;
    path.push_back(m);
    e = m->base;
  }
  if (e->kind != ast::ExprKind::Name) return nullptr;
  auto* head = static_cast<const ast::NameExpr*>(e);
  if (!head->generic_args.empty()) return nullptr;
  ast::Decl* decl = Lookup(head->name);
  const Type* type = nullptr;
  if (decl != nullptr && decl->kind == ast::DeclKind::TypeAlias && alias_state_.count(decl) == 0) {
    ast::TypeExpr te;
    te.name = head->name;
    te.range = head->range;
    type = ResolveType(&te);
  } else if (decl != nullptr && decl->kind == ast::DeclKind::Struct && !path.empty()) {
    type = StructTypeOf(decl);
    if (type != nullptr && !type->Info()->params.empty()) return nullptr;
  }
  for (size_t i = path.size(); i-- > 0 && type != nullptr;) {
    if (!type->IsStruct()) return nullptr;
    bool found = false;
    for (const ast::Decl* m : type->Info()->type_members) found = found || m->name == path[i]->member;
    if (!found) return nullptr;
    type = MemberType(type, path[i]->member, path[i]->range);
  }
  return type == nullptr || type->IsError() || type->IsEnum() || type->IsStruct() ? type : nullptr;
}

ast::Expr* Checker::CheckScopedMember(ast::MemberExpr* expr) {
  auto error = [&] {
    expr->type = types_.Error();
    return expr;
  };
  // The enum named by the base, if it names one: `E`, `geo::E` or an alias of one.
  const Type* type = nullptr;
  ast::Decl* base_decl = nullptr;
  if (expr->base->kind == ast::ExprKind::Name) {
    base_decl = Lookup(static_cast<ast::NameExpr*>(expr->base)->name);
  } else if (expr->base->kind == ast::ExprKind::Member) {
    auto* inner = static_cast<ast::MemberExpr*>(expr->base);
    if (NamespaceInfo* ns = NamespaceOf(inner->base)) {
      auto it = ns->members.find(inner->member);
      if (it != ns->members.end()) base_decl = it->second;
    }
  }
  const Type* nested_struct = nullptr;
  if (base_decl == nullptr && expr->base->kind == ast::ExprKind::Member) {
    // `Outer.Inner.N`: a constant of a type nested in a struct.
    const Type* t = TypeThroughMembers(expr->base);
    if (t != nullptr && t->IsStruct()) nested_struct = t;
  }
  if (nested_struct != nullptr ||
      (base_decl != nullptr && base_decl->kind == ast::DeclKind::Struct)) {
    // `S.N` / `S::N`: a `static const` member.
    const Type* s = nested_struct != nullptr ? nested_struct : StructTypeOf(base_decl);
    auto* base_name =
        expr->base->kind == ast::ExprKind::Name ? static_cast<ast::NameExpr*>(expr->base) : nullptr;
    if (s != nullptr && !s->Info()->params.empty() && base_name != nullptr &&
        (!base_name->generic_args.empty() || !base_name->generic_values.empty())) {
      // `Plus<One>.N`: its initializer may use the struct's generic parameters, so it is
      // read through the getter the parser made (parse/static_consts.cpp), whose call
      // binds them.
      std::string getter = expr->member + std::string(ast::kStaticConstGetterSuffix);
      std::vector<Candidate> getters = FindMethods(s, getter);
      for (const Candidate& c : getters) {
        ast::FuncDecl* g = c.func;
        // A global `static const` is checked before the methods of structs: its getter's
        // signature is resolved here (again later, to the same types).
        if (g->result_type != nullptr) continue;
        CheckFunctionSignature(g);
        g->owner = s;
      }
      if (!getters.empty()) {
        auto* callee =
            ctx_.New<ast::MemberExpr>(expr->range, expr->base, getter, expr->member_range);
        auto* call = ctx_.New<ast::CallExpr>(expr->range, callee, std::vector<ast::Expr*>{});
        return CheckExpr(call);
      }
    }
    for (ast::VarDecl* constant : s != nullptr ? s->Info()->constants : std::vector<ast::VarDecl*>{}) {
      if (constant->name != expr->member) continue;
      auto* name = ctx_.New<ast::NameExpr>(expr->range, constant->name);
      name->decl = constant;
      name->type = constant->type != nullptr ? constant->type : types_.Error();
      return name;
    }
  }
  if (base_decl != nullptr) {
    if (base_decl->kind == ast::DeclKind::Enum) {
      type = EnumTypeOf(base_decl);
    } else if (base_decl->kind == ast::DeclKind::TypeAlias && alias_state_.count(base_decl) != 0) {
      type = ResolveAlias(static_cast<ast::TypeAliasDecl*>(base_decl));
      if (type->IsError()) return error();
    }
  }
  if (type == nullptr) type = TypeThroughMembers(expr->base);
  if (type != nullptr && type->IsError()) return error();
  if (type != nullptr && type->IsEnum()) {
    int index = type->Enumeration()->CaseIndex(expr->member);
    if (index < 0) {
      diags_.Report(DiagId::NoSuchEnumCase, expr->member_range, type->Name(), expr->member);
      return error();
    }
    return EnumCaseValue(type, index, expr->range);
  }
  NamespaceInfo* ns = NamespaceOf(expr->base);
  if (ns == nullptr) return nullptr;
  auto it = ns->members.find(expr->member);
  if (it == ns->members.end()) {
    diags_.Report(DiagId::NoSuchNamespaceMember, expr->member_range, ns->path, expr->member);
    return error();
  }
  ast::Decl* decl = it->second;
  switch (decl->kind) {
    case ast::DeclKind::Var: {
      auto* name = ctx_.New<ast::NameExpr>(expr->range, decl->name);
      name->decl = decl;
      auto* var = static_cast<ast::VarDecl*>(decl);
      name->type = var->type != nullptr ? var->type : types_.Error();
      return name;
    }
    case ast::DeclKind::EnumCase: {
      const Type* et = case_enums_.at(decl);
      return EnumCaseValue(et, et->Enumeration()->CaseIndex(decl->name), expr->range);
    }
    case ast::DeclKind::Namespace:
      diags_.Report(DiagId::NamespaceUsedAsValue, expr->range, ns->path + "::" + expr->member);
      return error();
    case ast::DeclKind::Func:
      diags_.Report(DiagId::UnsupportedConstruct, expr->range, "functions used as values", "are");
      return error();
    default:
      diags_.Report(DiagId::TypeUsedAsValue, expr->range, ns->path + "::" + expr->member);
      return error();
  }
}

ast::Expr* Checker::CheckScopedCall(ast::CallExpr* call, ast::Decl* decl) {
  std::string shown;
  std::vector<ast::TypeExpr*> generic_args;
  if (call->callee->kind == ast::ExprKind::Member) {
    auto* callee = static_cast<ast::MemberExpr*>(call->callee);
    NamespaceInfo* ns = NamespaceOf(callee->base);
    if (ns == nullptr) {
      // `Outer.Inner(...)`: a type nested in a struct, constructed.
      if (const Type* nested = TypeThroughMembers(callee)) {
        if (nested->IsError()) return call;
        if (nested->IsStruct()) return CheckStructConstructor(call, nested);
      }
      // `T.Value(x)`: an associated type of a type parameter, converted to.
      const Type* owner = TypeNamedBy(callee->base);
      if (owner != nullptr && owner->Kind() == TypeKind::GenericParam &&
          callee->generic_args.empty() && FindMethods(owner, callee->member).empty() &&
          FindAssociatedType(types_.DirectConformances(owner), callee->member) != nullptr) {
        ast::TypeExpr te;
        te.name = static_cast<ast::NameExpr*>(callee->base)->name + "." + callee->member;
        te.range = callee->range;
        return CheckGenericConversion(call, ResolveType(&te), te.name);
      }
      return CheckArrayMethod(call, callee);
    }
    shown = ns->path + "::" + callee->member;
    auto it = ns->members.find(callee->member);
    if (it == ns->members.end()) {
      diags_.Report(DiagId::NoSuchNamespaceMember, callee->member_range, ns->path, callee->member);
      return call;
    }
    decl = it->second;
    generic_args = callee->generic_args;
    if (decl->kind == ast::DeclKind::Func) {
      std::vector<const Type*> explicit_args;
      if (!ResolveExplicitArgs(generic_args, &callee->generic_values, &explicit_args)) return call;
      std::vector<Candidate> candidates;
      for (ast::FuncDecl* f : ns->functions[decl->name]) candidates.push_back({f, {}});
      ResolveCall(call, candidates, shown, explicit_args);
      return call;
    }
    if (decl->kind == ast::DeclKind::Struct) {
      const Type* st = StructTypeOf(decl);
      if (st == nullptr) return call;
      if (!st->Info()->params.empty() || !generic_args.empty()) {
        diags_.Report(DiagId::UnsupportedConstruct, callee->range,
                      "generic structs inside namespaces", "are");
        return call;
      }
      return CheckStructConstructor(call, st);
    }
    if (decl->kind == ast::DeclKind::Var || decl->kind == ast::DeclKind::EnumCase) {
      diags_.Report(DiagId::NotCallable, callee->range, shown)
          .Note(DiagId::DeclaredHere, decl->name_range, decl->name);
      return call;
    }
  } else if (decl == nullptr) {
    return nullptr;
  } else {
    shown = decl->name;
  }
  const Type* type = nullptr;
  if (decl->kind == ast::DeclKind::Enum) {
    type = EnumTypeOf(decl);
  } else if (decl->kind == ast::DeclKind::TypeAlias && alias_state_.count(decl) != 0) {
    auto* alias = static_cast<ast::TypeAliasDecl*>(decl);
    if (!alias->generic_params.empty() && call->callee->kind == ast::ExprKind::Name) {
      // `Vec<float>(1, 2, 3)`: the alias applied, then constructed.
      auto* name = static_cast<ast::NameExpr*>(call->callee);
      ast::TypeExpr te;
      te.name = name->name;
      te.range = name->range;
      te.type_args = name->generic_args;
      te.value_args = name->generic_values;
      type = ResolveType(&te);
    } else {
      type = ResolveAlias(alias);
    }
  } else if (call->callee->kind == ast::ExprKind::Member) {
    diags_.Report(DiagId::NotCallable, call->callee->range, shown)
        .Note(DiagId::DeclaredHere, decl->name_range, decl->name);
    return call;
  } else {
    return nullptr;
  }
  if (type == nullptr || type->IsError()) return call;
  if (type->IsEnum()) {
    // `E(3)`: an explicit conversion from a number.
    if (call->args.size() != 1 || !call->args[0]->type->IsScalar()) {
      diags_.Report(DiagId::InvalidConstructor, call->range, type->Name(),
                    call->args.size() != 1 ? std::to_string(call->args.size()) + " arguments"
                                           : "a value of type '" + call->args[0]->type->Name() + "'");
      return call;
    }
    return ExplicitConvert(call->args[0], type);
  }
  if (type->IsStruct()) return CheckStructConstructor(call, type);
  if (type->IsNumericLike()) return CheckConstructor(call, type);
  diags_.Report(DiagId::NotCallable, call->callee->range, shown)
      .Note(DiagId::DeclaredHere, decl->name_range, decl->name);
  return call;
}

}  // namespace slope::sema

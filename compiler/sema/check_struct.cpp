// User-defined structs: declaring their types, fields with default values, methods
// (instance, [mutating] and static), `__init` constructors and member-wise construction.

#include <functional>
#include <set>

#include "compiler/base/ice.h"
#include "compiler/ir/ir.h"
#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {
/// The deepest nesting of structs SPIR-V allows.
constexpr int kMaxStructNesting = 255;
}  // namespace

namespace {
/// What to call a struct member this version of sema does not check; null when it does.
const char* UnsupportedMemberName(const ast::Decl* member) {
  switch (member->kind) {
    case ast::DeclKind::Var:
      return nullptr;
    case ast::DeclKind::Func: {
      auto* f = static_cast<const ast::FuncDecl*>(member);
      if (f->func_kind == ast::FuncKind::Getter || f->func_kind == ast::FuncKind::Setter) {
        return "accessors";
      }
      return nullptr;
    }
    case ast::DeclKind::Property: return "'property' declarations";
    case ast::DeclKind::Subscript: return "'__subscript' declarations";
    case ast::DeclKind::TypeAlias:
      return static_cast<const ast::TypeAliasDecl*>(member)->generic_params.empty()
                 ? nullptr
                 : "generic type aliases";
    case ast::DeclKind::Struct:
    case ast::DeclKind::Interface:
    case ast::DeclKind::Enum:
    case ast::DeclKind::AssociatedType:
      // Nested types of other structs moved out beside them (parse/hoist_nested.cpp).
      return "nested type declarations in generic structs";
    case ast::DeclKind::Extension:
    case ast::DeclKind::EnumCase:
    case ast::DeclKind::Namespace:
    case ast::DeclKind::Import:
    case ast::DeclKind::Using:
    case ast::DeclKind::GenericParam:
    case ast::DeclKind::BufferBlock:
      return "declarations of this kind inside a struct";
  }
  return "declarations of this kind inside a struct";
}

bool IsStatic(const ast::FuncDecl* f) { return (f->modifiers & ast::kModStatic) != 0; }
}  // namespace

const Type* Checker::StructTypeOf(const ast::Decl* decl) const {
  if (decl == nullptr || decl->kind != ast::DeclKind::Struct) return nullptr;
  auto it = struct_types_.find(decl);
  return it == struct_types_.end() ? nullptr : it->second;
}

void Checker::DeclareStructs(const std::vector<ast::Decl*>& decls) {
  for (ast::Decl* decl : decls) {
    if (decl->kind != ast::DeclKind::Struct) continue;
    auto* agg = static_cast<ast::AggregateDecl*>(decl);
    auto info = std::make_unique<StructInfo>();
    info->decl = agg;
    info->name = agg->name;
    info->params = MakeGenericParams(agg->generic_params, "structs");
    DeclContext context;
    context.params = info->params;
    std::map<std::string, ast::Decl*> names;
    for (ast::Decl* member : agg->members) {
      if (const char* what = UnsupportedMemberName(member)) {
        diags_.Report(DiagId::UnsupportedConstruct, member->name_range, what, "are");
        continue;
      }
      bool is_init = member->kind == ast::DeclKind::Func &&
                     static_cast<ast::FuncDecl*>(member)->func_kind == ast::FuncKind::Init;
      if (!is_init) {
        auto [it, inserted] = names.emplace(member->name, member);
        bool overload = member->kind == ast::DeclKind::Func &&
                        it->second->kind == ast::DeclKind::Func;
        if (!inserted && !overload) {
          diags_.Report(DiagId::Redefinition, member->name_range, member->name)
              .Note(DiagId::PreviousDefinition, it->second->name_range, member->name);
          continue;
        }
      }
      if (member->kind == ast::DeclKind::TypeAlias) {
        info->type_members.push_back(member);
        context.names.push_back(member);
      } else if (member->kind == ast::DeclKind::Var &&
                 (static_cast<ast::VarDecl*>(member)->is_const ||
                  (member->modifiers & ast::kModStatic) != 0)) {
        // `static const`: a named constant of the type, visible unqualified inside it;
        // a plain `static` field is a static global of each invocation, named alike.
        auto* constant = static_cast<ast::VarDecl*>(member);
        constant->role = ast::VarRole::Global;
        info->constants.push_back(constant);
        context.names.push_back(constant);
      } else if (member->kind == ast::DeclKind::Var) {
        info->fields.push_back(static_cast<ast::VarDecl*>(member));
      } else if (is_init) {
        info->inits.push_back(static_cast<ast::FuncDecl*>(member));
      } else {
        info->methods.push_back(static_cast<ast::FuncDecl*>(member));
      }
    }
    for (ast::FuncDecl* f : info->inits) f->parent = agg;
    for (ast::FuncDecl* f : info->methods) f->parent = agg;
    const Type* type = types_.Struct(std::move(info));
    context.this_type = type;
    contexts_[agg] = std::move(context);
    struct_types_[decl] = type;
    struct_list_.push_back(type);
  }
}

void Checker::ResolveStructFields() {
  for (const Type* type : struct_list_) {
    ContextScope scope(*this, type->Info()->decl);
    NamespaceScope ns(*this, type->Info()->decl);
    for (ast::VarDecl* field : type->Info()->fields) {
      CheckGroupSharedPlacement(field, "a field");
      field->type = ResolveType(field->type_expr);
      if (field->type->IsVoid()) {
        diags_.Report(DiagId::UnsupportedConstruct, field->type_expr->range,
                      "fields of type '" + field->type->Name() + "'", "are");
        field->type = types_.Error();
      }
    }
  }
  // A struct that contains itself by value has no finite size.
  std::set<const Type*> done, active;
  std::function<void(const Type*)> visit = [&](const Type* t) {
    active.insert(t);
    for (ast::VarDecl* field : t->Info()->fields) {
      if (!field->type->IsStruct() || done.count(field->type) != 0) continue;
      if (active.count(field->type) != 0) {
        if (field->name == kBaseFieldName) {
          diags_.Report(DiagId::InheritanceCycle, field->name_range, field->type->Name());
        } else {
          diags_.Report(DiagId::RecursiveStruct, field->name_range, field->type->Name(), field->name);
        }
        field->type = types_.Error();
        continue;
      }
      visit(field->type);
    }
    active.erase(t);
    done.insert(t);
  };
  for (const Type* type : struct_list_) {
    if (done.count(type) == 0) visit(type);
    type->Info()->checked = true;
  }
  // SPIR-V allows structs nested 255 deep (a struct of scalars is one level): deeper is
  // an error at the struct that passes the limit, not an invalid module.
  std::map<const Type*, int> depth;
  std::function<int(const Type*)> nesting = [&](const Type* t) -> int {
    if (auto it = depth.find(t); it != depth.end()) return it->second;
    depth[t] = 1;
    int d = 1;
    for (ast::VarDecl* field : t->Info()->fields) {
      const Type* ft = field->type;
      while (ft != nullptr && ft->IsArray()) ft = ft->Element();
      if (ft != nullptr && ft->IsStruct()) d = std::max(d, 1 + nesting(ft));
    }
    depth[t] = d;
    return d;
  };
  for (const Type* type : struct_list_) {
    if (nesting(type) != kMaxStructNesting + 1) continue;
    diags_.Report(DiagId::StructNestingTooDeep, type->Info()->decl->name_range, type->Name(),
                  kMaxStructNesting + 1, kMaxStructNesting);
  }
}

bool Checker::ContainsResource(const Type* type) const {
  if (type->IsResource()) return true;
  if (type->IsArray()) return ContainsResource(type->Element());
  if (!type->IsStruct()) return false;
  for (size_t i = 0; i < type->Info()->fields.size(); ++i) {
    if (ContainsResource(types_.FieldType(type, i))) return true;
  }
  return false;
}

bool Checker::IsBufferElement(const Type* type) const {
  if (type->IsError()) return true;
  if (type->IsStruct()) {
    for (size_t i = 0; i < type->Info()->fields.size(); ++i) {
      if (types_.FieldIsAbsent(type, i)) continue;  // `Conditional<T, false>`: no storage
      if (!IsBufferElement(types_.FieldType(type, i))) return false;
    }
    return !type->Info()->fields.empty() && !types_.TakesNoStorage(type);
  }
  if (type->IsDependent()) return true;  // checked when specialized
  if (type->IsEnum()) return true;         // stored as its underlying integer
  if (type->IsPointer()) return true;      // a 64-bit address
  if (type->IsArray()) return IsBufferElement(type->Element());
  // Integer matrices have no SPIR-V matrix type to carry a buffer layout.
  if (type->IsMatrix()) return type->ScalarType()->Kind() == TypeKind::Float;
  return type->IsNumericLike() && type->ScalarType()->Kind() != TypeKind::Bool;
}

void Checker::CheckStructMembers() {
  for (const Type* type : struct_list_) {
    StructInfo* info = type->Info();
    ContextScope scope(*this, info->decl);
    NamespaceScope ns(*this, info->decl);
    for (ast::VarDecl* constant : info->constants) CheckGlobalVar(constant, nullptr);
    for (ast::VarDecl* field : info->fields) {
      CheckAttributes(field->attributes, {"DerivativeMember"}, "a field",
                      info->name + "." + field->name);
      if ((field->modifiers & (ast::kModRowMajor | ast::kModColumnMajor)) != 0 &&
          field->type != nullptr && !field->type->IsError()) {
        const Type* inner = field->type;
        while (inner->IsArray()) inner = inner->Element();
        if (!inner->IsMatrix() && !inner->IsDependent()) {
          bool row = (field->modifiers & ast::kModRowMajor) != 0;
          diags_.Report(DiagId::MatrixLayoutOnNonMatrix, field->name_range,
                        row ? "row_major" : "column_major", field->name, field->type->Name());
        }
      }
      if (field->init == nullptr || field->type->IsError()) continue;
      if (field->init->kind == ast::ExprKind::InitList) {
        field->init = CheckInitList(static_cast<ast::InitListExpr*>(field->init), field->type);
        continue;
      }
      field->init = Coerce(CheckExpr(field->init), field->type);
    }
    auto prepare = [&](ast::FuncDecl* f, bool is_init) {
      CheckMethodAttributes(f);
      CheckFunctionSignature(f);
      f->owner = type;
      if (is_init) {
        f->result_type = type;
        MarkConstructorDifferentiable(f);
      }
      if (IsStatic(f) && !is_init) return;
      f->is_mutating = is_init || f->FindAttribute("mutating") != nullptr;
      f->this_param = ctx_.New<ast::VarDecl>(ast::VarRole::Param, "this", f->name_range);
      f->this_param->type = type;
      f->this_param->is_let = !f->is_mutating;
    };
    for (ast::FuncDecl* f : info->inits) prepare(f, true);
    for (ast::FuncDecl* f : info->methods) prepare(f, false);
    // Same parameter types: a redefinition, not an overload.
    auto same_params = [](const ast::FuncDecl* a, const ast::FuncDecl* b) {
      if (a->params.size() != b->params.size()) return false;
      for (size_t k = 0; k < a->params.size(); ++k) {
        if (a->params[k]->type != b->params[k]->type) return false;
      }
      return true;
    };
    for (const auto* list : {&info->inits, &info->methods}) {
      for (size_t i = 0; i < list->size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          ast::FuncDecl* a = (*list)[i];
          ast::FuncDecl* b = (*list)[j];
          if (a->name != b->name || !same_params(a, b)) continue;
          diags_.Report(DiagId::Redefinition, a->name_range, a->name)
              .Note(DiagId::PreviousDefinition, b->name_range, b->name);
          break;
        }
      }
    }
  }
  // As in Slang, a derived struct's default value (`D d;`, and the object an `__init` of D
  // starts from) runs the base's `__init()` for its base part.
  for (const Type* type : struct_list_) {
    StructInfo* info = type->Info();
    if (!info->has_base || info->fields.empty()) continue;
    ast::VarDecl* base = info->fields[0];
    if (base->init != nullptr || base->type == nullptr || !base->type->IsStruct()) continue;
    base->init = DefaultConstructionOf(base->type, base->name_range);
  }
}

void Checker::CheckStructBodies(CheckedModule* out) {
  for (const Type* type : struct_list_) {
    StructInfo* info = type->Info();
    if (!info->params.empty()) {
      for (ast::VarDecl* v : info->constants) {
        if (!v->is_const) {
          diags_.Report(DiagId::UnsupportedConstruct, v->name_range,
                        "static fields of generic structs", "are");
        }
      }
    } else {
      ContextScope scope(*this, info->decl);
      NamespaceScope ns(*this, info->decl);
      for (ast::VarDecl* v : info->constants) {
        if (!v->is_const && v->type != nullptr && !v->type->IsError()) CheckStaticGlobal(v, out);
      }
    }
    for (const auto* list : {&info->inits, &info->methods}) {
      if (!CheckMethodBodies(*list, out)) return;
    }
  }
}

ast::FuncDecl* Checker::PickOverload(const std::vector<ast::FuncDecl*>& candidates,
                                     const std::vector<ast::Expr*>& args, bool* ambiguous) {
  std::vector<ast::FuncDecl*> best;
  int best_cost = kNoConversion;
  for (ast::FuncDecl* f : candidates) {
    if (f->params.size() != args.size() || f->result_type == nullptr) continue;
    int cost = 0;
    for (size_t i = 0; i < f->params.size() && cost < kNoConversion; ++i) {
      int c = ConversionCost(args[i]->type, f->params[i]->type);
      cost = c >= kNoConversion ? kNoConversion : cost + c;
    }
    if (cost >= kNoConversion) continue;
    if (cost < best_cost) {
      best_cost = cost;
      best.clear();
    }
    if (cost == best_cost) best.push_back(f);
  }
  *ambiguous = best.size() > 1;
  return best.size() == 1 ? best[0] : nullptr;
}

ast::Expr* Checker::CheckStructConstructor(ast::CallExpr* call, const Type* type) {
  StructInfo* info = type->Info();
  call->constructed = type;
  // `(Base)derived`, `Base(derived)`: the derived value's base part.
  if (call->args.size() == 1 && call->args[0]->type != nullptr && call->args[0]->type != type &&
      call->args[0]->type->IsStruct() && call->args[0]->type->Info()->has_base &&
      ConversionCost(call->args[0]->type, type) < kNoConversion) {
    ast::Expr* base = Coerce(call->args[0], type);
    base->range = call->range;
    return base;
  }
  std::vector<Candidate> inits;
  for (ast::FuncDecl* f : info->inits) inits.push_back({f, types_.StructSubst(type)});
  for (auto& [ext, bindings] : types_.ExtensionsOf(type)) {
    for (ast::FuncDecl* f : ext->methods) {
      if (f->func_kind == ast::FuncKind::Init) inits.push_back({f, bindings});
    }
  }
  bool has_default_init = false;
  for (const Candidate& c : inits) has_default_init = has_default_init || RequiredParams(c.func) == 0;
  if (!inits.empty() && (!call->args.empty() || has_default_init)) {
    if (!ResolveCall(call, inits, info->name, {})) {
      call->func = nullptr;
      call->type = types_.Error();
      return call;
    }
    call->type = type;
    return call;
  }
  // `Optional<T>(value)`: the Optional holding value, as the conversion gives it.
  auto optional = core_yielding_.find("Optional");
  if (call->args.size() == 1 && optional != core_yielding_.end() &&
      info->decl == optional->second && info->fields.size() == 2) {
    ast::Expr* arg = call->args[0];
    if (arg->type != nullptr && !arg->type->IsError() &&
        ConversionCost(arg->type, types_.FieldType(type, 1)) < kNoConversion) {
      ast::Expr* built = Coerce(arg, type);
      built->range = call->range;
      return built;
    }
  }
  // Without `__init`: `S()` is the default value; otherwise one value per field, in order.
  if (!call->args.empty() && info->decl != nullptr && info->decl->has_bit_fields) {
    diags_.Report(DiagId::BitFieldInitList, call->range, info->name, "member-wise construction");
    return call;
  }
  const Type* base = BaseStructOf(type);
  if (base != nullptr && base->Info()->inits.empty() && call->args.size() >= info->fields.size() &&
      (call->args.size() > info->fields.size() ||
       ConversionCost(call->args[0]->type, base) >= kNoConversion)) {
    // `Derived(1, 2)` for `struct Derived : Base { int y; }` with `Base { int x; }`: the
    // base's fields come first, as in the initializer that the base would take.
    size_t own = info->fields.size() - 1;
    std::vector<ast::Expr*> base_args(call->args.begin(),
                                      call->args.end() - static_cast<std::ptrdiff_t>(own));
    source::SourceRange range(base_args.front()->range.begin, base_args.back()->range.end);
    auto* base_call = ctx_.New<ast::CallExpr>(range, ctx_.New<ast::NameExpr>(range, base->Name()),
                                              std::move(base_args));
    ast::Expr* built = CheckStructConstructor(base_call, base);
    if (built->type == nullptr || built->type->IsError()) return call;
    std::vector<ast::Expr*> args{built};
    args.insert(args.end(), call->args.end() - static_cast<std::ptrdiff_t>(own), call->args.end());
    call->args = std::move(args);
  }
  if (!call->args.empty() && call->args.size() != info->fields.size()) {
    diags_.Report(DiagId::MemberwiseFieldCount, call->range, info->name, info->fields.size(),
                  call->args.size());
    return call;
  }
  for (size_t i = 0; i < call->args.size(); ++i) {
    call->args[i] = Coerce(call->args[i], types_.FieldType(type, i));
  }
  call->type = type;
  return call;
}

ast::Expr* Checker::DefaultConstruction(ast::VarDecl* var) {
  return DefaultConstructionOf(var->type, var->name_range);
}

ast::Expr* Checker::GenericDefaultConstruction(ast::VarDecl* var) {
  // `T obj;` where an interface of T requires `__init()`: that initializer of the type T
  // stands for, as `T obj = T();` would call it.
  std::vector<const Type*> work = types_.DirectConformances(var->type);
  bool found = false;
  for (size_t i = 0; i < work.size() && i < 256 && !found; ++i) {
    if (!work[i]->IsInterface()) continue;
    for (const ast::FuncDecl* req : work[i]->Iface()->methods) {
      found = found || (req->func_kind == ast::FuncKind::Init && RequiredParams(req) == 0);
    }
    for (const Type* base : work[i]->Iface()->bases) work.push_back(base);
  }
  if (!found) return nullptr;
  auto* callee = ctx_.New<ast::NameExpr>(var->name_range, var->type->Name());
  auto* call = ctx_.New<ast::CallExpr>(var->name_range, callee, std::vector<ast::Expr*>{});
  return CheckGenericConversion(call, var->type, var->type->Name());
}

ast::Expr* Checker::DefaultConstructionOf(const Type* type, source::SourceRange range) {
  for (ast::FuncDecl* init : type->Info()->inits) {
    if (RequiredParams(init) != 0 || init->result_type == nullptr) continue;
    auto* callee = ctx_.New<ast::NameExpr>(range, type->Name());
    auto* call = ctx_.New<ast::CallExpr>(range, callee, std::vector<ast::Expr*>{});
    Subst bindings = types_.StructSubst(type);
    for (ast::VarDecl* param : init->params) {
      call->args.push_back(DefaultArgument(param, types_.Substitute(param->type, bindings)));
    }
    call->constructed = type;
    call->func = init;
    call->type = type;
    if (current_function_ != nullptr) calls_[current_function_].emplace_back(init, call->range);
    return call;
  }
  return nullptr;
}

ast::Expr* Checker::CheckStructMember(ast::MemberExpr* expr) {
  const Type* base = expr->base->type;
  StructInfo* info = base->Info();
  int index = info->FieldIndex(expr->member);
  if (index < 0 && InheritsField(BaseStructOf(base), expr->member)) {
    expr->base = BasePart(expr->base);  // `d.x` for a field x of the struct D inherits
    return CheckStructMember(expr);
  }
  if (index < 0) {
    for (ast::FuncDecl* m : info->methods) {
      if (m->name != expr->member) continue;
      diags_.Report(DiagId::StaticMemberMisuse, expr->member_range,
                    "method '" + m->name + "' of '" + info->name + "' must be called");
      expr->type = types_.Error();
      return expr;
    }
    diags_.Report(DiagId::NoSuchMember, expr->member_range, base->Name(), expr->member);
    expr->type = types_.Error();
    return expr;
  }
  if (TypeContext::IsCoreConditional(base) && info->decl != nullptr &&
      expr->member_range.begin.file != info->decl->name_range.begin.file) {
    // Only the core library's own methods reach a Conditional's value directly.
    diags_.Report(DiagId::ConditionalStorage, expr->member_range, expr->member, base->Name());
    expr->type = types_.Error();
    return expr;
  }
  expr->field_index = index;
  expr->type = CheckAccess(info->fields[static_cast<size_t>(index)], expr->member_range)
                   ? types_.FieldType(base, static_cast<size_t>(index))
                   : types_.Error();
  return expr;
}

ast::Expr* Checker::CheckImplicitField(ast::NameExpr* expr) {
  auto* self = ctx_.New<ast::NameExpr>(expr->range, "this");
  auto* member = ctx_.New<ast::MemberExpr>(expr->range, self, expr->name, expr->range);
  member->base = CheckExpr(self);
  return CheckStructMember(member);
}

bool Checker::IsAssignableQuietly(const ast::Expr* expr) const {
  switch (expr->kind) {
    case ast::ExprKind::Name: {
      auto* decl = static_cast<const ast::NameExpr*>(expr)->decl;
      if (decl == nullptr || decl->kind != ast::DeclKind::Var) return false;
      auto* var = static_cast<const ast::VarDecl*>(decl);
      return !(var->type->IsResource() && var->role == ast::VarRole::Global) && !var->is_let &&
             !var->is_const;
    }
    case ast::ExprKind::Index: {
      auto* index = static_cast<const ast::IndexExpr*>(expr);
      if (index->base->type->IsBuffer() || index->base->type->IsTexture()) {
        return index->base->type->IsWritable();
      }
      return IsAssignableQuietly(index->base);
    }
    case ast::ExprKind::Member:
      return static_cast<const ast::MemberExpr*>(expr)->field_index >= 0 &&
             IsAssignableQuietly(static_cast<const ast::MemberExpr*>(expr)->base);
    case ast::ExprKind::Unary:
      // `*p` (and `p->f`, `p[i]`, which become it): device memory is writable.
      return static_cast<const ast::UnaryExpr*>(expr)->op == ast::OpKind::Deref;
    default:
      return false;
  }
}

std::string DescribeReceiver(const ast::Expr* e) {
  if (e->kind == ast::ExprKind::Name) {
    const std::string& name = static_cast<const ast::NameExpr*>(e)->name;
    return name == "this" ? std::string("'this' in a non-mutating method") : "'" + name + "'";
  }
  return "this expression";
}

ast::Expr* Checker::CheckMethodCall(ast::CallExpr* call, ast::MemberExpr* callee) {
  // `S.make()`, `S::make()`, `T.make()` name a type; anything else is an object.
  const Type* owner = nullptr;
  ast::Expr* receiver = nullptr;
  if (callee->base->kind == ast::ExprKind::Name) {
    auto* base_name = static_cast<ast::NameExpr*>(callee->base);
    ast::Decl* decl = Lookup(base_name->name);
    bool is_value = decl != nullptr && decl->kind == ast::DeclKind::Var;
    if (!is_value) {
      ast::TypeExpr te;
      te.name = base_name->name;
      te.range = base_name->range;
      te.type_args = base_name->generic_args;
      te.value_args = base_name->generic_values;
      if (!base_name->generic_args.empty() || !base_name->generic_values.empty()) {
        if (decl != nullptr && (decl->kind == ast::DeclKind::Struct)) owner = ApplyGeneric(&te, decl);
      } else {
        owner = LookupBuiltinTypeName(types_, te.name);
        if (owner == nullptr) owner = ResolveUserTypeName(&te);
      }
      if (owner != nullptr && owner->IsError()) return call;
      if (owner != nullptr && owner->IsInterface()) {
        diags_.Report(DiagId::StaticMemberMisuse, callee->range,
                      "'" + owner->Name() + "' is an interface; call '" + callee->member +
                          "' on a type that conforms to it");
        return call;
      }
      if (owner != nullptr) {
        base_name->decl = decl;
        base_name->type = owner;
      }
    }
  }
  if (owner == nullptr && callee->base->kind == ast::ExprKind::Member) {
    // `T.Differential.dzero()`, `Pair.Differential.dadd(a, b)`: a static method of a type
    // member named through a type.
    owner = TypeMemberPath(callee->base);
    if (owner != nullptr && owner->IsError()) return call;
  }
  if (owner == nullptr) {
    if (callee->is_static) {
      diags_.Report(DiagId::UnsupportedConstruct, callee->range, "static member access with '::'",
                    "is");
      return call;
    }
    receiver = CheckExpr(callee->base);
    // `p->f()` and `p.f()` call the method of the struct `p` points at, on `*p` (a
    // `[mutating]` one copies it in and out through the pointer, as for a buffer element).
    if (receiver->type->IsPointer()) receiver = Deref(receiver, receiver->range);
    callee->base = receiver;
    if (receiver->type->IsError()) return call;
    if (receiver->type->IsBuffer()) return CheckBufferMethod(call, callee);
    if (receiver->type->IsTexture()) return CheckTextureMethod(call, callee);
  }
  return CheckMethodCallOn(call, owner != nullptr ? owner : receiver->type, receiver,
                           callee->member, callee->member_range, callee->generic_args,
                           &callee->generic_values);
}

bool Checker::ResolveExplicitArgs(const std::vector<ast::TypeExpr*>& args,
                                  std::vector<ast::Expr*>* values,
                                  std::vector<const Type*>* out) {
  for (ast::TypeExpr* te : args) {
    if (const Type* value = EnumCaseArg(te)) {
      out->push_back(value);
      continue;
    }
    const Type* t = ResolveType(te);
    if (t->IsError()) return false;
    out->push_back(t);
  }
  if (values == nullptr) return true;
  for (ast::Expr*& v : *values) {
    v = CheckExpr(v);
    const Type* value = GenericValueArg(v);
    if (value->IsError()) return false;
    out->push_back(value);
  }
  return true;
}

const Type* Checker::TypeMemberPath(const ast::Expr* e) {
  std::string path;
  source::SourceRange range = e->range;
  while (e->kind == ast::ExprKind::Member) {
    auto* m = static_cast<const ast::MemberExpr*>(e);
    if (!m->generic_args.empty() || !m->generic_values.empty()) return nullptr;
    path = "." + m->member + path;
    e = m->base;
  }
  if (e->kind != ast::ExprKind::Name) return nullptr;
  auto* head = static_cast<const ast::NameExpr*>(e);
  if (!head->generic_args.empty() || !head->generic_values.empty()) return nullptr;
  ast::Decl* decl = Lookup(head->name);
  bool names_type = decl == nullptr ? LookupBuiltinTypeName(types_, head->name) != nullptr
                                    : decl->kind == ast::DeclKind::Struct ||
                                          decl->kind == ast::DeclKind::GenericParam ||
                                          decl->kind == ast::DeclKind::TypeAlias;
  if (!names_type) return nullptr;
  ast::TypeExpr te;
  te.name = head->name + path;
  te.range = range;
  return ResolveType(&te);
}

ast::Expr* Checker::CheckMethodCallOn(ast::CallExpr* call, const Type* owner, ast::Expr* receiver,
                                      const std::string& name, source::SourceRange name_range,
                                      const std::vector<ast::TypeExpr*>& generic_args,
                                      std::vector<ast::Expr*>* generic_values) {
  std::vector<Candidate> candidates = FindMethods(owner, name);
  if (candidates.empty() && InheritsMethod(BaseStructOf(owner), name)) {
    // A method of the struct `owner` inherits, on the inherited part of the value.
    ast::Expr* part = receiver != nullptr ? BasePart(receiver) : nullptr;
    return CheckMethodCallOn(call, BaseStructOf(owner), part, name, name_range, generic_args,
                             generic_values);
  }
  if (candidates.empty()) {
    auto offers = [&](const Type* iface) { return !FindMethods(iface, name).empty(); };
    if (ReportOptionalUse(owner, "'" + name + "'", offers, name_range)) return call;
    if (owner->IsStruct() && owner->Info()->FieldIndex(name) >= 0) {
      diags_.Report(DiagId::NotCallable, name_range, name);
    } else {
      diags_.Report(DiagId::NoSuchMember, name_range, owner->Name(), name);
    }
    return call;
  }
  std::vector<const Type*> explicit_args;
  if (!ResolveExplicitArgs(generic_args, generic_values, &explicit_args)) return call;
  std::string qualified = owner->Name() + "." + name;
  if (!ResolveCall(call, candidates, qualified, explicit_args)) return call;
  ast::FuncDecl* method = call->func;
  CheckAccess(method, name_range);
  if (owner->IsInterface() && call->via_interface != nullptr &&
      !CheckDispatchable(call, method, call->via_interface)) {
    call->type = types_.Error();
    return call;
  }
  if (method->this_param == nullptr) {  // static: the object is not needed
    call->static_owner = owner;
    return call;
  }
  if (receiver == nullptr) {
    diags_.Report(DiagId::StaticMemberMisuse, call->range,
                  "'" + qualified + "' is not static; call it on a value of type '" +
                      owner->Name() + "'");
    call->type = types_.Error();
    return call;
  }
  if (method->is_mutating && !IsAssignableQuietly(receiver)) {
    if (!capture_refs_.empty() && ReportCaptureAssign(receiver)) {
      call->type = types_.Error();
      return call;
    }
    diags_.Report(DiagId::MutatingCallOnValue, call->range, qualified, DescribeReceiver(receiver))
        .Note(DiagId::DeclaredHere, method->name_range, qualified);
    call->type = types_.Error();
    return call;
  }
  call->receiver = receiver;
  if (method->intrinsic_inst == static_cast<int>(ir::Op::Atomic)) return CheckAtomicMethod(call);
  return call;
}

ast::Expr* Checker::CheckImplicitMethodCall(ast::CallExpr* call, ast::NameExpr* name) {
  // `f()` inside a method means `this.f()` (or `This.f()` for a static method).
  const Type* owner = CurrentOwner();
  ast::Expr* receiver = nullptr;
  if (current_function_->this_param != nullptr) {
    receiver = CheckExpr(ctx_.New<ast::NameExpr>(name->range, "this"));
  }
  std::vector<const Type*> explicit_args;
  return CheckMethodCallOn(call, owner, receiver, name->name, name->range, name->generic_args,
                           &name->generic_values);
}

}  // namespace slope::sema

// Fixed-size arrays: `T[N]` types (N a positive integer constant expression), indexing
// with constant indices checked against the size, `.getCount()`, and initializer lists
// for arrays and structs (`{1, 2, 3}`, nested for nested arrays; missing trailing
// elements are zero or the field defaults).

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {
/// The largest array size accepted; a larger array is almost certainly a mistake.
constexpr int64_t kMaxArraySize = 1 << 20;
}  // namespace

const Type* Checker::ApplyArrayDims(ast::TypeExpr* te, const Type* element) {
  if (element->IsError()) return element;
  // `RWStructuredBuffer<int> bufs[2];` at global scope: one binding per element.
  bool buffer_array = element->IsBuffer() && buffer_arrays_ok_ && te->array_dims.size() == 1;
  if (element->IsVoid() || element->IsTexture() || element->IsSampler() ||
      (element->IsBuffer() && !buffer_array)) {
    diags_.Report(DiagId::ArrayUnsupported, te->range,
                  "arrays of '" + element->Name() + "' are not supported");
    return types_.Error();
  }
  // `T[4][2]` is four arrays of two: the last dimension applies first.
  const Type* type = element;
  int64_t total = 1;  // elements in all, over the dimensions with a known size
  for (size_t i = te->array_dims.size(); i-- > 0;) {
    ast::Expr*& dim = te->array_dims[i];
    if (dim == nullptr) {
      diags_.Report(DiagId::ArraySizeNeeded, te->range, te->name + "[]");
      return types_.Error();
    }
    if (dim->type == nullptr) {
      CheckConstantsUsedBy(dim);
      dim = CheckExpr(dim);
    }
    int64_t n = 0;
    if (dim->type->IsError()) return types_.Error();
    constant_wrapped_ = false;
    bool constant = EvaluateIntConstant(dim, &n);
    if (!constant && !dim->type->IsEnum() && dim->type != types_.Bool()) {
      // `T items[N]`, `float data[N * 2]`, `int idx[kCap]` (a constant defined from N)
      // with `let N : int`: the length is known once specialized, where
      // CheckGenericArraySizes checks it.
      const Type* length = GenericIntValue(dim);
      if (length != nullptr && length->IsDependent()) {
        type = types_.ArrayOfParam(type, length);
        continue;
      }
      // `Stack<2>.kCap`: a constant of a specialization, known here.
      if (length != nullptr) {
        constant = true;
        n = length->Value();
      }
    }
    if (constant && n <= 0 && constant_wrapped_ && !dim->type->IsEnum() &&
        dim->type != types_.Bool()) {
      // `int a[65536 * 65536]`, `float f[1 << 31]`: too large, not "not positive".
      diags_.Report(DiagId::ArraySizeOverflow, dim->range, dim->type->Name(), n, kMaxArraySize);
      return types_.Error();
    }
    if (!constant && ReportSpecConstantUse(dim, "an array size")) return types_.Error();
    if (!constant && dim->kind == ast::ExprKind::Call) {
      // `float taps[K.kTaps]` in code generic over K: the constant is known only per
      // specialization, and array sizes are not yet computed from interface constants.
      const auto* call = static_cast<const ast::CallExpr*>(dim);
      const std::string suffix(ast::kStaticConstGetterSuffix);
      if (call->func != nullptr && call->static_owner != nullptr &&
          call->static_owner->IsDependent() && call->func->name.size() > suffix.size() &&
          call->func->name.ends_with(suffix)) {
        std::string name = call->func->name.substr(0, call->func->name.size() - suffix.size());
        diags_.Report(DiagId::UnsupportedConstruct, dim->range,
                      "an array size read from '" + call->static_owner->Name() + "." + name +
                          "', a static constant of a generic type,",
                      "is");
        return types_.Error();
      }
    }
    if (!constant || dim->type->IsEnum() || dim->type == types_.Bool() || n <= 0) {
      diags_.Report(DiagId::ArraySizeNotConstant, dim->range);
      return types_.Error();
    }
    // Both factors are at most kMaxArraySize here, so the product cannot overflow.
    if (n > kMaxArraySize || (total *= n) > kMaxArraySize) {
      diags_.Report(DiagId::ArrayTooLarge, dim->range, n > kMaxArraySize ? n : total,
                    kMaxArraySize);
      return types_.Error();
    }
    type = types_.Array(type, static_cast<uint32_t>(n));
  }
  return type;
}

void Checker::CheckConstantsUsedBy(const ast::Expr* e) {
  switch (e->kind) {
    case ast::ExprKind::Name: {
      ast::Decl* decl = Lookup(static_cast<const ast::NameExpr*>(e)->name);
      if (decl == nullptr || decl->kind != ast::DeclKind::Var) return;
      auto* var = static_cast<ast::VarDecl*>(decl);
      if (var->role == ast::VarRole::Global && var->is_const && var->type == nullptr) {
        CheckedModule unused;  // only buffers are recorded there
        CheckGlobalVar(var, &unused);
      }
      return;
    }
    case ast::ExprKind::Unary:
      CheckConstantsUsedBy(static_cast<const ast::UnaryExpr*>(e)->operand);
      return;
    case ast::ExprKind::Binary:
      CheckConstantsUsedBy(static_cast<const ast::BinaryExpr*>(e)->lhs);
      CheckConstantsUsedBy(static_cast<const ast::BinaryExpr*>(e)->rhs);
      return;
    case ast::ExprKind::Conditional: {
      auto* c = static_cast<const ast::ConditionalExpr*>(e);
      CheckConstantsUsedBy(c->cond);
      CheckConstantsUsedBy(c->then_expr);
      CheckConstantsUsedBy(c->else_expr);
      return;
    }
    case ast::ExprKind::Cast:
      CheckConstantsUsedBy(static_cast<const ast::CastExpr*>(e)->operand);
      return;
    default:
      return;
  }
}

const Type* Checker::InferArraySize(ast::VarDecl* var) {
  ast::TypeExpr* te = var->type_expr;
  if (te->array_dims.empty() || te->array_dims[0] != nullptr) return ResolveType(te);
  // `T name[] = {...}`: the outermost size is the number of elements.
  if (var->init == nullptr || var->init->kind != ast::ExprKind::InitList ||
      static_cast<ast::InitListExpr*>(var->init)->elements.empty()) {
    diags_.Report(DiagId::ArraySizeNeeded, var->name_range, var->name);
    te->resolved = types_.Error();
    return te->resolved;
  }
  ast::TypeExpr inner = *te;
  inner.array_dims.erase(inner.array_dims.begin());
  const Type* element = ResolveType(&inner);
  if (element->IsError()) {
    te->resolved = element;
    return element;
  }
  if (element->IsVoid() || element->IsResource()) {
    diags_.Report(DiagId::ArrayUnsupported, te->range,
                  "arrays of '" + element->Name() + "' are not supported");
    te->resolved = types_.Error();
    return te->resolved;
  }
  auto count = static_cast<uint32_t>(static_cast<ast::InitListExpr*>(var->init)->elements.size());
  te->resolved = types_.Array(element, count);
  return te->resolved;
}

ast::Expr* Checker::CheckAs(ast::Expr* expr, const Type* target) {
  if (expr->kind == ast::ExprKind::InitList) {
    return CheckInitList(static_cast<ast::InitListExpr*>(expr), target);
  }
  return Coerce(CheckExpr(expr), target);
}

ast::Expr* Checker::InitListAsConstructor(ast::InitListExpr* list, const Type* target) {
  // As in Slang, `S s = {a, b};` for a struct with `__init`s is the constructor call
  // `S(a, b)` (an empty list stays the default value unless an `__init()` exists), and
  // `T t = {a, b};` for a type parameter whose interface requires `__init(...)` calls
  // that initializer. Nested lists keep the member-wise reading.
  for (const ast::Expr* e : list->elements) {
    if (e->kind == ast::ExprKind::InitList) return nullptr;
  }
  bool generic = target->Kind() == TypeKind::GenericParam;
  if (!generic) {
    if (!target->IsStruct() || target->IsDependent()) return nullptr;
    bool has_init = !target->Info()->inits.empty();
    bool has_default = false;
    for (ast::FuncDecl* f : target->Info()->inits) has_default |= RequiredParams(f) == 0;
    for (auto& [ext, bindings] : types_.ExtensionsOf(target)) {
      for (ast::FuncDecl* f : ext->methods) {
        if (f->func_kind != ast::FuncKind::Init) continue;
        has_init = true;
        has_default |= RequiredParams(f) == 0;
      }
    }
    if (!has_init || (list->elements.empty() && !has_default)) return nullptr;
  }
  auto* callee = ctx_.New<ast::NameExpr>(list->range, target->Name());
  auto* call = ctx_.New<ast::CallExpr>(list->range, callee, list->elements);
  call->type = types_.Error();
  for (ast::Expr*& arg : call->args) {
    arg = CheckOnce(arg);
    if (arg->type->IsError()) return call;
  }
  if (generic) return CheckGenericConversion(call, target, target->Name());
  return CheckStructConstructor(call, target);
}

ast::Expr* Checker::CheckInitList(ast::InitListExpr* list, const Type* target) {
  list->type = target;
  if (target->IsError()) {
    for (ast::Expr*& e : list->elements) e = CheckAs(e, target);
    return list;
  }
  if ((target->IsVector() || target->IsMatrix()) && !target->IsDependent()) {
    // `float4 v = {a.xy, 1, 2}` is the constructor `float4(a.xy, 1, 2)`, which takes
    // scalars and vectors whose components add up to the vector's. A matrix also takes
    // one nested list per row: `float2x2 m = {{1, 2}, {3, 4}}`, flattened as HLSL does.
    std::vector<ast::Expr*> flat;
    for (ast::Expr* e : list->elements) {
      if (e->kind != ast::ExprKind::InitList) {
        flat.push_back(e);
        continue;
      }
      auto* row = static_cast<ast::InitListExpr*>(e);
      bool scalars = target->IsMatrix();
      for (ast::Expr* r : row->elements) scalars = scalars && r->kind != ast::ExprKind::InitList;
      if (!scalars) {
        diags_.Report(DiagId::InitListNotAllowed, e->range, target->ScalarType()->Name());
        list->type = types_.Error();
        return list;
      }
      flat.insert(flat.end(), row->elements.begin(), row->elements.end());
    }
    // A list with fewer components than the vector or matrix zero-fills the rest.
    uint32_t total = 0;
    bool components = true;
    for (ast::Expr*& e : flat) {
      e = CheckOnce(e);
      if (e->type->IsError()) {
        list->type = types_.Error();
        return list;
      }
      components = components && (e->type->IsScalar() || e->type->IsVector());
      total += e->type->Components();
    }
    uint32_t want = target->IsMatrix() ? target->Rows() * target->Cols() : target->Count();
    if (components) {
      // `float2 v = {};` is the zero vector, as Slang's default initialization.
      for (; total < want; ++total) {
        flat.push_back(CheckExpr(ctx_.New<ast::IntLiteralExpr>(list->range, 0, false)));
      }
    }
    auto* callee = ctx_.New<ast::NameExpr>(list->range, target->Name());
    auto* call = ctx_.New<ast::CallExpr>(list->range, callee, std::move(flat));
    call->type = types_.Error();
    return CheckConstructor(call, target);
  }
  if (ast::Expr* call = InitListAsConstructor(list, target)) return call;
  std::vector<const Type*> element_types;
  if (target->IsArray()) {
    element_types.assign(target->Count(), target->Element());
  } else if (target->IsStruct() && !target->IsDependent()) {
    if (!list->elements.empty() && target->Info()->decl != nullptr &&
        target->Info()->decl->has_bit_fields) {
      // Its fields are the hidden words the bit fields live in, not the bit fields.
      diags_.Report(DiagId::BitFieldInitList, list->range, target->Name(), "an initializer list");
      list->type = types_.Error();
      return list;
    }
    GroupBaseInitializers(list, target);
    for (size_t i = 0; i < target->Info()->fields.size(); ++i) {
      element_types.push_back(types_.FieldType(target, i));
    }
  } else {
    diags_.Report(DiagId::InitListNotAllowed, list->range, target->Name());
    list->type = types_.Error();
    return list;
  }
  ElideBraces(list, element_types);
  if (list->type->IsError()) return list;
  if (list->elements.size() > element_types.size()) {
    diags_.Report(DiagId::TooManyInitializers, list->elements[element_types.size()]->range,
                  target->Name(), list->elements.size(), element_types.size());
    list->type = types_.Error();
    return list;
  }
  for (size_t i = 0; i < list->elements.size(); ++i) {
    ast::Expr*& e = list->elements[i];
    e = e->kind == ast::ExprKind::InitList
            ? CheckInitList(static_cast<ast::InitListExpr*>(e), element_types[i])
            : Coerce(CheckOnce(e), element_types[i]);
    if (e->type->IsError()) list->type = types_.Error();
  }
  return list;
}

ast::Expr* Checker::CheckOnce(ast::Expr* e) { return e->type != nullptr ? e : CheckExpr(e); }

namespace {

/// An array, or a struct without constructors of its own (HLSL's C-style aggregate).
bool ElidableAggregate(const Type* t) {
  if (t->IsDependent()) return false;
  if (t->IsArray()) return t->LengthParam() == nullptr;
  return t->IsStruct() && t->Info()->inits.empty();
}

/// A value that fills components of an aggregate one by one: a scalar or a vector.
bool FlatValue(const ast::Expr* e) {
  return e->kind != ast::ExprKind::InitList && !e->type->IsError() &&
         (e->type->IsScalar() || e->type->IsVector());
}

}  // namespace

void Checker::ElideBraces(ast::InitListExpr* list, const std::vector<const Type*>& slots) {
  // As HLSL reads an initializer list, a list whose values are too many for its slots,
  // or that puts a scalar where an array or a C-style struct goes, fills the members of
  // the nested aggregates in order: with `struct Outer { Inner i; Inner j; }`,
  // `Outer o = {1, 2, 3};` is `{{1, 2}, {3}}` (the rest zero, as `{}` leaves it).
  bool needed = list->elements.size() > slots.size();
  for (size_t i = 0; i < list->elements.size(); ++i) {
    ast::Expr*& e = list->elements[i];
    if (e->kind == ast::ExprKind::InitList) continue;
    e = CheckOnce(e);
    if (e->type->IsError()) return;
    if (i < slots.size() && ElidableAggregate(slots[i]) && FlatValue(e)) needed = true;
  }
  if (!needed) return;
  std::vector<ast::Expr*> grouped;
  size_t next = 0;
  for (const Type* slot : slots) {
    if (next == list->elements.size()) break;
    grouped.push_back(FillSlot(slot, list->elements, &next));
  }
  if (next < list->elements.size()) {
    // Counted in the flat values the user wrote, not in the groups made from them.
    diags_.Report(DiagId::TooManyInitializers, list->elements[next]->range, list->type->Name(),
                  list->elements.size(), next);
    list->type = types_.Error();
    return;
  }
  list->elements = std::move(grouped);
}

ast::Expr* Checker::FillSlot(const Type* slot, const std::vector<ast::Expr*>& values,
                             size_t* next) {
  ast::Expr* first = values[*next];
  bool vector_slot = (slot->IsVector() || slot->IsMatrix()) && !slot->IsDependent();
  if (!FlatValue(first) || first->type == slot || (!vector_slot && !ElidableAggregate(slot))) {
    ++*next;
    return first;
  }
  auto* group = ctx_.New<ast::InitListExpr>(first->range);
  if (vector_slot) {
    uint32_t want = slot->IsMatrix() ? slot->Rows() * slot->Cols() : slot->Count();
    for (uint32_t total = 0; total < want && *next < values.size() && FlatValue(values[*next]);
         ++*next) {
      total += values[*next]->type->Components();
      group->elements.push_back(values[*next]);
    }
  } else {
    size_t members = slot->IsArray() ? slot->Count() : slot->Info()->fields.size();
    for (size_t i = 0; i < members && *next < values.size(); ++i) {
      const Type* member = slot->IsArray() ? slot->Element() : types_.FieldType(slot, i);
      group->elements.push_back(FillSlot(member, values, next));
    }
  }
  group->range.end = group->elements.back()->range.end;
  return group;
}

ast::Expr* Checker::CheckArrayIndex(ast::IndexExpr* expr) {
  const Type* base = expr->base->type;
  expr->type = base->Element();
  int64_t index = 0;
  // A size a generic parameter gives (`int a[N]`) is known only once specialized.
  bool known_size = base->LengthParam() == nullptr;
  if (!expr->index->type->IsError() && EvaluateIntConstant(expr->index, &index) &&
      (index < 0 || (known_size && index >= static_cast<int64_t>(base->Count())))) {
    diags_.Report(DiagId::ArrayIndexOutOfRange, expr->index->range, index, base->Count());
  }
  return expr;
}

ast::Expr* Checker::CheckArrayMethod(ast::CallExpr* call, ast::MemberExpr* callee) {
  if (callee->member != "getCount" || callee->is_static) return nullptr;
  if (callee->base->kind == ast::ExprKind::Name) {
    ast::Decl* decl = Lookup(static_cast<ast::NameExpr*>(callee->base)->name);
    if (decl == nullptr || decl->kind != ast::DeclKind::Var) return nullptr;  // a type
  }
  ast::Expr* receiver = CheckExpr(callee->base);
  callee->base = receiver;
  if (receiver->type->IsError()) return call;
  if (!receiver->type->IsArray()) {
    return CheckMethodCallOn(call, receiver->type, receiver, callee->member, callee->member_range,
                             callee->generic_args, &callee->generic_values);
  }
  if (!call->args.empty()) {
    diags_.Report(DiagId::WrongArgumentCount, call->range, "getCount", 0, call->args.size());
    return call;
  }
  // `int a[N]` in generic code: the count is the parameter's value, known once
  // specialized (lowering reads it from the specialization, as for `N` itself).
  const Type* length = receiver->type->LengthParam();
  if (length != nullptr && length->IsGenericParam() && length->Generic()->decl != nullptr) {
    auto* param = ctx_.New<ast::NameExpr>(call->range, length->Generic()->name);
    param->decl = length->Generic()->decl;
    param->type = types_.Int();
    return param;
  }
  if (length != nullptr && length->Kind() == TypeKind::IntExpr) {
    // `float a[N * 2]`: the expression's value in each specialization.
    auto* value = ctx_.New<ast::PackExpr>(call->range, ast::PackExpr::kValueOf, nullptr);
    value->pack = length;
    value->type = types_.Int();
    return value;
  }
  auto* count = ctx_.New<ast::IntLiteralExpr>(call->range, receiver->type->Count(), false);
  count->type = types_.Int();
  return count;
}

}  // namespace slope::sema

// Typing of expressions other than calls.

#include <cctype>

#include "compiler/ast/ast.h"
#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;


namespace {
bool IsIntegerScalar(const Type* t) {
  return t->Kind() == TypeKind::Int || t->Kind() == TypeKind::UInt;
}
}  // namespace

ast::Expr* Checker::CheckExpr(ast::Expr* expr) {
  switch (expr->kind) {
    case ast::ExprKind::IntLiteral: {
      auto* lit = static_cast<ast::IntLiteralExpr*>(expr);
      if (!lit->is_unsigned && lit->width == 32 && lit->value > 0x7FFFFFFFull) {
        // Only `-2147483648` may use this value; unary minus folds it before we get here.
        diags_.Report(DiagId::IntegerLiteralTooLarge, lit->range,
                      std::to_string(lit->value), "int");
      }
      expr->type = types_.Scalar(lit->is_unsigned ? TypeKind::UInt : TypeKind::Int, lit->width);
      return expr;
    }
    case ast::ExprKind::FloatLiteral:
      expr->type = types_.Scalar(TypeKind::Float,
                                 static_cast<ast::FloatLiteralExpr*>(expr)->width);
      return expr;
    case ast::ExprKind::BoolLiteral:
      expr->type = types_.Bool();
      return expr;
    case ast::ExprKind::StringLiteral:
      diags_.Report(DiagId::UnsupportedConstruct, expr->range, "string literals outside attributes",
                    "are");
      expr->type = types_.Error();
      return expr;
    case ast::ExprKind::Name:
      return CheckName(static_cast<ast::NameExpr*>(expr));
    case ast::ExprKind::Member:
      return CheckMember(static_cast<ast::MemberExpr*>(expr));
    case ast::ExprKind::Index:
      return CheckIndex(static_cast<ast::IndexExpr*>(expr));
    case ast::ExprKind::Call:
      return CheckCall(static_cast<ast::CallExpr*>(expr));
    case ast::ExprKind::Unary:
      return CheckUnary(static_cast<ast::UnaryExpr*>(expr));
    case ast::ExprKind::Binary:
      return CheckBinary(static_cast<ast::BinaryExpr*>(expr));
    case ast::ExprKind::Assign:
      return CheckAssign(static_cast<ast::AssignExpr*>(expr));
    case ast::ExprKind::Conditional:
      return CheckConditional(static_cast<ast::ConditionalExpr*>(expr));
    case ast::ExprKind::Cast: {
      auto* cast = static_cast<ast::CastExpr*>(expr);
      if (ast::Expr* zero = ZeroCastAsInitList(cast)) return zero;
      if (ast::Expr* call = CastAsCall(cast)) return CheckExpr(call);
      const Type* target = ResolveType(cast->target);
      cast->operand = CheckExpr(cast->operand);
      if (ast::Expr* pointer = CheckPointerCast(cast, target)) return pointer;
      if (!target->IsError() && !target->IsNumericLike() && !target->IsEnum()) {
        diags_.Report(DiagId::CannotConvert, cast->range, cast->operand->type->Name(),
                      target->Name());
        cast->type = types_.Error();
        return cast;
      }
      cast->operand = ExplicitConvert(cast->operand, target);
      cast->type = target;
      return cast;
    }
    case ast::ExprKind::ImplicitCast:
      return expr;  // already checked
    case ast::ExprKind::InitList:
      // Lists are checked against the type expected where they appear (CheckAs).
      diags_.Report(DiagId::InitListNeedsType, expr->range);
      expr->type = types_.Error();
      return expr;
    case ast::ExprKind::Diff:
      return CheckDiff(static_cast<ast::DiffExpr*>(expr));
    case ast::ExprKind::NoDiff:
      return CheckNoDiff(static_cast<ast::NoDiffExpr*>(expr));
    case ast::ExprKind::TypeTest:
      return CheckTypeTest(static_cast<ast::TypeTestExpr*>(expr));
    case ast::ExprKind::Lambda:
      return CheckLambda(static_cast<ast::LambdaExpr*>(expr));
    case ast::ExprKind::Pack:
      return CheckPackExpr(static_cast<ast::PackExpr*>(expr), false);
    case ast::ExprKind::SpirvAsm:
      return CheckSpirvAsm(static_cast<ast::SpirvAsmExpr*>(expr));
  }
  return expr;
}

ast::Expr* Checker::CheckName(ast::NameExpr* expr) {
  if (!expr->generic_args.empty() || !expr->generic_values.empty()) {
    diags_.Report(DiagId::UnsupportedConstruct, expr->range, "explicit generic arguments", "are");
    expr->type = types_.Error();
    return expr;
  }
  ast::Decl* decl = Lookup(expr->name);
  if (ReportAmbiguousLookup(expr->name, expr->range)) {
    expr->type = types_.Error();
    return expr;
  }
  if (ast::Expr* captured = CaptureName(expr, decl)) return captured;
  if (const Type* owner = CurrentStruct()) {
    // Inside a method, a field named alone is `this.field` unless a local hides it.
    bool global = decl != nullptr && scopes_.front().count(expr->name) != 0 &&
                  scopes_.front().at(expr->name) == decl;
    if (current_function_->this_param != nullptr && (decl == nullptr || global) &&
        InheritsField(owner, expr->name)) {
      return CheckImplicitField(expr);
    }
  }
  if (ast::Expr* property = CheckImplicitProperty(expr)) return property;
  if (ast::Expr* scoped = CheckScopedName(expr, decl)) return scoped;
  expr->decl = decl;
  if (decl != nullptr && !CheckAccess(decl, expr->range)) {
    expr->type = types_.Error();
    return expr;
  }
  if (decl != nullptr && decl->kind == ast::DeclKind::GenericParam &&
      static_cast<ast::GenericParamDecl*>(decl)->is_value) {
    // `N` of `let N : int`: a constant once specialized.
    const Type* value_type = static_cast<ast::GenericParamDecl*>(decl)->type->Generic()->value_type;
    expr->type = value_type != nullptr ? value_type : types_.Int();
    return expr;
  }
  if (decl != nullptr && decl->kind != ast::DeclKind::Var && decl->kind != ast::DeclKind::Func) {
    diags_.Report(DiagId::TypeUsedAsValue, expr->range, expr->name);
    expr->type = types_.Error();
    return expr;
  }
  if (decl == nullptr && expr->name == "nullptr") return NullPointer(expr);
  if (decl == nullptr) {
    if (LookupBuiltinTypeName(types_, expr->name) != nullptr) {
      diags_.Report(DiagId::TypeUsedAsValue, expr->range, expr->name);
    } else {
      diags_.Report(DiagId::UndeclaredIdentifier, expr->range, expr->name);
    }
    expr->type = types_.Error();
    return expr;
  }
  if (decl->kind == ast::DeclKind::Func) {
    diags_.Report(DiagId::UnsupportedConstruct, expr->range, "functions used as values", "are");
    expr->type = types_.Error();
    return expr;
  }
  auto* var = static_cast<ast::VarDecl*>(decl);
  if ((var->modifiers & ast::kModExtern) != 0 && var->is_static && var->init == nullptr) {
    diags_.Report(DiagId::ExternNotExported, expr->range, var->name)
        .Note(DiagId::DeclaredHere, var->name_range, var->name);
    expr->type = types_.Error();
    return expr;
  }
  if (var->type != nullptr && var->type->IsPack()) {
    diags_.Report(DiagId::PackValueNotHere, expr->range, var->name, var->name, var->name);
    expr->type = types_.Error();
    return expr;
  }
  expr->type = var->type != nullptr ? var->type : types_.Error();
  return expr;
}

ast::Expr* Checker::ZeroCastAsInitList(ast::CastExpr* cast) {
  // HLSL's `(MyStruct)0` is the empty initializer list `MyStruct s = {};`.
  ast::TypeExpr* t = cast->target;
  const ast::Expr* operand = cast->operand;
  if (operand->kind != ast::ExprKind::IntLiteral || !t->array_dims.empty() ||
      t->pointer_depth > 0) {
    return nullptr;
  }
  auto* lit = static_cast<const ast::IntLiteralExpr*>(operand);
  if (lit->value != 0 || lit->is_nullptr) return nullptr;
  ast::Decl* decl = Lookup(t->name);
  if (decl == nullptr || decl->kind != ast::DeclKind::Struct) return nullptr;
  const Type* target = ResolveType(cast->target);
  if (!target->IsStruct() || target->IsDependent()) return nullptr;
  return CheckInitList(ctx_.New<ast::InitListExpr>(cast->range), target);
}

ast::Expr* Checker::CastAsCall(ast::CastExpr* cast) {
  ast::TypeExpr* t = cast->target;
  if (!t->array_dims.empty() || t->pointer_depth > 0 || LookupBuiltinTypeName(types_, t->name) != nullptr) return nullptr;
  ast::Decl* decl = Lookup(t->name);
  if (decl == nullptr) return nullptr;
  bool value = decl->kind == ast::DeclKind::Func || decl->kind == ast::DeclKind::Var ||
               (decl->kind == ast::DeclKind::GenericParam &&
                static_cast<ast::GenericParamDecl*>(decl)->is_value);
  bool constructible = (decl->kind == ast::DeclKind::GenericParam && !value) ||
                       decl->kind == ast::DeclKind::Struct;
  if (!value && !constructible) return nullptr;
  // `(f)(x)` calls f; `(T)x` on a type parameter or a struct converts as `T(x)` does.
  auto* callee = ctx_.New<ast::NameExpr>(t->range, t->name);
  callee->generic_args = t->type_args;
  callee->generic_values = t->value_args;
  return ctx_.New<ast::CallExpr>(cast->range, callee, std::vector<ast::Expr*>{cast->operand});
}

const Type* Checker::TypeNamedBy(const ast::Expr* e) {
  if (e->kind != ast::ExprKind::Name) return nullptr;
  auto* name = static_cast<const ast::NameExpr*>(e);
  if (!name->generic_args.empty()) return nullptr;
  if (name->name == "This") return this_type_;
  if (ast::Decl* decl = Lookup(name->name)) {
    if (decl->kind == ast::DeclKind::GenericParam) {
      auto it = generic_param_types_.find(decl);
      return it != generic_param_types_.end() ? it->second : nullptr;
    }
    if (decl->kind == ast::DeclKind::Struct) {
      const Type* st = StructTypeOf(decl);
      return st != nullptr && st->Info()->params.empty() ? st : nullptr;
    }
    return nullptr;
  }
  return LookupBuiltinTypeName(types_, name->name);
}

namespace {

/// `_0_2`, `_1_1_0`: two or more tuple element numbers, each written `_N`.
bool IsTupleSwizzle(const std::string& member) {
  size_t parts = 0;
  for (size_t i = 0; i < member.size();) {
    if (member[i] != '_' || i + 1 >= member.size() || !std::isdigit(member[i + 1])) return false;
    i += 1;
    while (i < member.size() && std::isdigit(member[i])) ++i;
    ++parts;
  }
  return parts >= 2;
}

bool IsTuple(const Type* t) {
  if (!t->IsStruct() || t->Info()->decl == nullptr) return false;
  const std::string& name = t->Info()->decl->name;
  return name.size() == 8 && name.compare(0, 7, "__Tuple") == 0;
}

}  // namespace

ast::Expr* Checker::ClonePath(const ast::Expr* e) {
  if (e->kind == ast::ExprKind::Name) {
    auto* name = static_cast<const ast::NameExpr*>(e);
    if (!name->generic_args.empty() || !name->generic_values.empty()) return nullptr;
    return ctx_.New<ast::NameExpr>(name->range, name->name);
  }
  if (e->kind == ast::ExprKind::Member) {
    auto* m = static_cast<const ast::MemberExpr*>(e);
    if (!m->generic_args.empty() || !m->generic_values.empty() || m->is_static) return nullptr;
    ast::Expr* base = ClonePath(m->base);
    if (base == nullptr) return nullptr;
    return ctx_.New<ast::MemberExpr>(m->range, base, m->member, m->member_range);
  }
  return nullptr;
}

ast::Expr* Checker::CheckTupleSwizzle(ast::MemberExpr* expr,
                                      const std::vector<ast::Expr*>& path_copies) {
  // `t._0_2` is `makeTuple(t._0, t._2)`: each element read from its own copy of the path.
  if (path_copies.empty()) {
    diags_.Report(DiagId::UnsupportedConstruct, expr->member_range,
                  "a tuple swizzle of a value other than a variable or its member (store it in "
                  "a variable first)",
                  "is");
    expr->type = types_.Error();
    return expr;
  }
  std::vector<ast::Expr*> elements;
  size_t copy = 0;
  for (size_t i = 0; i < expr->member.size();) {
    size_t end = expr->member.find('_', i + 1);
    if (end == std::string::npos) end = expr->member.size();
    std::string field = expr->member.substr(i, end - i);
    if (expr->base->type->Info()->FieldIndex(field) < 0) {
      diags_.Report(DiagId::NoSuchMember, expr->member_range, expr->base->type->Name(), field);
      expr->type = types_.Error();
      return expr;
    }
    elements.push_back(
        ctx_.New<ast::MemberExpr>(expr->range, path_copies[copy++], field, expr->member_range));
    i = end;
  }
  if (elements.size() > 8) {
    diags_.Report(DiagId::UnsupportedConstruct, expr->member_range,
                  "a tuple of more than 8 elements", "is");
    expr->type = types_.Error();
    return expr;
  }
  auto* callee = ctx_.New<ast::NameExpr>(expr->range, "makeTuple");
  return CheckExpr(ctx_.New<ast::CallExpr>(expr->range, callee, std::move(elements)));
}

ast::Expr* Checker::CheckMember(ast::MemberExpr* expr) {
  if (ast::Expr* scoped = CheckScopedMember(expr)) return scoped;
  // `T.maxValue`, `int.maxValue`: a `static const` an interface requires, read through
  // the method the parser made for it (parse/static_consts.cpp).
  if (expr->generic_args.empty()) {
    if (const Type* t = TypeNamedBy(expr->base)) {
      std::string getter = expr->member + std::string(ast::kStaticConstGetterSuffix);
      if (!FindMethods(t, getter).empty()) {
        auto* callee = ctx_.New<ast::MemberExpr>(expr->range, expr->base, getter, expr->member_range);
        callee->is_static = expr->is_static;
        auto* call = ctx_.New<ast::CallExpr>(expr->range, callee, std::vector<ast::Expr*>{});
        return CheckExpr(call);
      }
    }
  }
  if (expr->is_static || !expr->generic_args.empty()) {
    if (expr->is_static) {
      diags_.Report(DiagId::UnsupportedConstruct, expr->range, "static member access with '::'",
                    "is");
    } else {
      diags_.Report(DiagId::UnsupportedConstruct, expr->range, "explicit generic arguments",
                    "are");
    }
    expr->type = types_.Error();
    return expr;
  }
  // A path of names (`t`, `s.pair`) that a tuple swizzle may read once per element.
  ast::Expr* written_base = ClonePath(expr->base) != nullptr ? expr->base : nullptr;
  std::vector<ast::Expr*> path_copies;
  if (written_base != nullptr && IsTupleSwizzle(expr->member)) {
    for (size_t i = 0; i < expr->member.size(); ++i) path_copies.push_back(ClonePath(written_base));
  }
  expr->base = CheckExpr(expr->base);
  // `p.f` and `p->f` read the member of the struct `p` points at.
  if (expr->base->type->IsPointer()) expr->base = Deref(expr->base, expr->base->range);
  const Type* base = expr->base->type;
  if (base->IsError()) {
    expr->type = types_.Error();
    return expr;
  }
  if (ast::Expr* property = CheckPropertyRead(expr)) return property;
  if (base->IsStruct() && IsTupleSwizzle(expr->member) && IsTuple(base)) {
    return CheckTupleSwizzle(expr, path_copies);
  }
  if (base->IsStruct()) return CheckStructMember(expr);
  if (base->IsMatrix()) return CheckMatrixElements(expr);
  if (!base->IsNumericLike()) {
    // A property of an interface T may conform to (`where optional`): E3742.
    std::string getter = expr->member + ".get";
    auto offers = [&](const Type* iface) { return !FindMethods(iface, getter).empty(); };
    if (ReportOptionalUse(base, "'" + expr->member + "'", offers, expr->member_range)) {
      expr->type = types_.Error();
      return expr;
    }
    diags_.Report(DiagId::NoSuchMember, expr->member_range, base->Name(), expr->member);
    expr->type = types_.Error();
    return expr;
  }
  static constexpr std::string_view kSets[] = {"xyzw", "rgba"};
  bool ok = !expr->member.empty() && expr->member.size() <= 4;
  for (std::string_view set : kSets) {
    if (!ok || set.find(expr->member[0]) == std::string_view::npos) continue;
    expr->swizzle.clear();
    for (char c : expr->member) {
      size_t index = set.find(c);
      if (index == std::string_view::npos || index >= base->Count()) {
        ok = false;
        break;
      }
      expr->swizzle.push_back(static_cast<uint32_t>(index));
    }
    break;
  }
  if (!ok || expr->swizzle.size() != expr->member.size()) {
    diags_.Report(DiagId::InvalidSwizzle, expr->member_range, expr->member, base->Name());
    expr->type = types_.Error();
    return expr;
  }
  // A swizzle of `vector<T, N>` for a generic T is a vector of T too.
  const Type* scalar = base->ScalarType();
  auto width = static_cast<uint32_t>(expr->swizzle.size());
  expr->type = width == 1 || scalar->IsScalar()
                   ? types_.Vector(scalar, width)
                   : types_.DependentVector(scalar, types_.IntValue(width));
  return expr;
}

ast::Expr* Checker::CheckIndex(ast::IndexExpr* expr) {
  expr->base = CheckExpr(expr->base);
  expr->index = CheckExpr(expr->index);
  bool index_error = expr->index->type->IsError();
  for (ast::Expr*& index : expr->more_indices) {
    index = CheckExpr(index);
    index_error = index_error || index->type->IsError();
  }
  if (!expr->more_indices.empty() && index_error) {
    expr->type = types_.Error();
    return expr;
  }
  if (expr->base->type->IsPointer() && expr->more_indices.empty() &&
      !expr->index->type->IsError()) {
    // `p[i]` is `*(p + i)`.
    return Deref(OffsetPointer(expr->base, expr->index, ast::OpKind::Add, expr->range,
                               expr->index->range),
                 expr->range);
  }
  if (ast::Expr* element = CheckSubscriptRead(expr)) return element;
  const Type* base = expr->base->type;
  if (!expr->more_indices.empty() && !base->IsError()) {
    diags_.Report(DiagId::TooManyIndices, expr->more_indices[0]->range, base->Name(),
                  expr->more_indices.size() + 1);
    expr->type = types_.Error();
    return expr;
  }
  if (!expr->index->type->IsError() && !IsIntegerScalar(expr->index->type) &&
      !base->IsTexture()) {
    expr->index = Coerce(expr->index, types_.Int());
  }
  if (base->IsError()) {
    expr->type = types_.Error();
  } else if (base->IsByteAddressBuffer()) {
    diags_.Report(DiagId::ByteAddressIndexed, expr->base->range, base->Name());
    expr->type = types_.Error();
  } else if (base->IsCounterBuffer()) {
    diags_.Report(DiagId::CounterBufferIndexed, expr->base->range, base->Name(),
                  base->IsAppendBuffer() ? "write it with Append" : "read it with Consume");
    expr->type = types_.Error();
  } else if (base->IsBuffer()) {
    expr->type = base->Element();
  } else if (base->IsTexture()) {
    expr->type = CheckTextureIndex(expr);
  } else if (base->IsVector()) {
    expr->type = base->Element();
  } else if (base->IsMatrix()) {
    return CheckMatrixIndex(expr);
  } else if (base->IsArray()) {
    return CheckArrayIndex(expr);
  } else {
    diags_.Report(DiagId::NotIndexable, expr->base->range, base->Name());
    expr->type = types_.Error();
  }
  return expr;
}

bool Checker::CheckAssignable(ast::Expr* expr) {
  if (expr->type->IsError()) return false;
  if (!capture_refs_.empty() && ReportCaptureAssign(expr)) return false;
  switch (expr->kind) {
    case ast::ExprKind::Name: {
      auto* name = static_cast<ast::NameExpr*>(expr);
      auto* var = static_cast<ast::VarDecl*>(name->decl);
      if (var->type->IsResource() && var->role == ast::VarRole::Global) {
        const char* what = var->type->IsTexture()   ? "texture '"
                           : var->type->IsSampler() ? "sampler '"
                                                    : "buffer '";
        diags_.Report(DiagId::NotAssignable, expr->range, what + var->name + "'")
            .Note(DiagId::DeclaredHere, var->name_range, var->name);
        return false;
      }
      if (var->uniform_kind != ast::UniformKind::None ||
          (var->role == ast::VarRole::Param && var->is_uniform && current_function_ != nullptr &&
           current_function_->FindAttribute("shader") != nullptr)) {
        diags_.Report(DiagId::NotAssignable, expr->range,
                      "'" + var->name + "', which is uniform data and read-only")
            .Note(DiagId::DeclaredHere, var->name_range, var->name);
        return false;
      }
      if (var->is_let || var->is_const) {
        diags_.Report(DiagId::NotAssignable, expr->range,
                      "'" + var->name + "', which is immutable")
            .Note(DiagId::DeclaredHere, var->name_range, var->name);
        return false;
      }
      return true;
    }
    case ast::ExprKind::Index: {
      auto* index = static_cast<ast::IndexExpr*>(expr);
      const Type* base = index->base->type;
      if (base->IsBuffer()) {
        if (!base->IsWritable()) {
          diags_.Report(DiagId::NotAssignable, expr->range,
                        "an element of read-only '" + base->Name() + "'");
          return false;
        }
        return true;
      }
      if (base->IsTexture()) {
        if (!base->IsWritable()) {
          std::string rw = "RW" + base->Name();
          diags_.Report(DiagId::TextureReadOnly, expr->range, base->Name(),
                        base->IsTypedBuffer() ? "typed buffer" : "texture", rw);
          return false;
        }
        return true;
      }
      if (index->base->kind == ast::ExprKind::Member && base->IsVector() &&
          static_cast<ast::MemberExpr*>(index->base)->field_index < 0) {
        diags_.Report(DiagId::UnsupportedConstruct, expr->range,
                      "assignments to a dynamically indexed swizzle", "are");
        return false;
      }
      return CheckAssignable(index->base);
    }
    case ast::ExprKind::Member: {
      auto* member = static_cast<ast::MemberExpr*>(expr);
      if (member->base->type->IsMatrix() && member->swizzle.size() > 1) {
        diags_.Report(DiagId::MatrixElementAssign, member->member_range, member->member);
        return false;
      }
      if (member->field_index >= 0 && member->base->kind == ast::ExprKind::Name) {
        auto* base = static_cast<ast::NameExpr*>(member->base);
        auto* var = static_cast<ast::VarDecl*>(base->decl);
        if (current_function_ != nullptr && var == current_function_->this_param &&
            var->is_let) {
          diags_.Report(DiagId::AssignInNonMutatingMethod, member->range, member->member,
                        current_function_->name)
              .Note(DiagId::DeclaredHere, current_function_->name_range, current_function_->name);
          return false;
        }
      }
      for (size_t i = 0; i < member->swizzle.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (member->swizzle[i] == member->swizzle[j]) {
            diags_.Report(DiagId::NotAssignable, member->member_range,
                          "swizzle '" + member->member + "', which repeats a component");
            return false;
          }
        }
      }
      return CheckAssignable(member->base);
    }
    case ast::ExprKind::Unary:
      // `*p = v`: device memory is writable.
      if (static_cast<ast::UnaryExpr*>(expr)->op == ast::OpKind::Deref) return true;
      diags_.Report(DiagId::NotAssignable, expr->range, "this expression");
      return false;
    default:
      diags_.Report(DiagId::NotAssignable, expr->range, "this expression");
      return false;
  }
}

const Type* Checker::ArithmeticResult(ast::OpKind op, const Type* a, const Type* b, bool* ok) {
  *ok = true;
  if ((a->IsDependent() || b->IsDependent()) && !LengthGeneric(a, b)) {
    const Type* result = GenericOperatorResult(op, a, b);
    *ok = result != nullptr;
    return result != nullptr ? result : types_.Error();
  }
  const Type* common = CommonType(a, b);
  if (common == nullptr) {
    *ok = false;
    return types_.Error();
  }
  if (common->IsError()) return common;
  if (common->IsEnum()) {  // enums have no arithmetic; plain ones convert to numbers
    *ok = false;
    return types_.Error();
  }
  TypeKind scalar = common->ScalarType()->Kind();
  switch (op) {
    case ast::OpKind::Add:
    case ast::OpKind::Sub:
    case ast::OpKind::Mul:
    case ast::OpKind::Div:
    case ast::OpKind::Rem:
      if (scalar == TypeKind::Bool) common = types_.WithScalar(common, types_.Int());
      return common;
    case ast::OpKind::BitAnd:
    case ast::OpKind::BitOr:
    case ast::OpKind::BitXor:
    case ast::OpKind::Shl:
    case ast::OpKind::Shr:
      if (scalar == TypeKind::Float) {
        *ok = false;
        return types_.Error();
      }
      if (scalar == TypeKind::Bool) common = types_.WithScalar(common, types_.Int());
      if (op == ast::OpKind::Shl || op == ast::OpKind::Shr) {
        // Shifts keep the left operand's integer kind.
        const Type* left_scalar = a->ScalarType()->Kind() == TypeKind::Bool ? types_.Int()
                                                                            : a->ScalarType();
        if (left_scalar->Kind() == TypeKind::Float) {
          *ok = false;
          return types_.Error();
        }
        common = types_.WithScalar(common, left_scalar);
      }
      return common;
    default:
      *ok = false;
      return types_.Error();
  }
}

ast::Expr* Checker::CheckUnary(ast::UnaryExpr* expr) {
  // Fold `-literal` so that -2147483648 is a valid int.
  if (expr->op == ast::OpKind::Neg && expr->operand->kind == ast::ExprKind::IntLiteral) {
    auto* lit = static_cast<ast::IntLiteralExpr*>(expr->operand);
    if (!lit->is_unsigned && lit->width == 32 && lit->value == 0x80000000ull) {
      lit->range = expr->range;
      lit->value = static_cast<uint64_t>(-static_cast<int64_t>(lit->value)) & 0xFFFFFFFFull;
      lit->type = types_.Int();
      // Represent as the bit pattern; lowering reads it as a 32-bit value.
      auto* neg = lit;
      neg->is_unsigned = false;
      expr->operand = neg;
      expr->type = types_.Int();
      expr->op = ast::OpKind::Plus;
      return expr;
    }
  }
  if (ast::Expr* pointer = CheckPointerUnary(expr)) return pointer;
  expr->operand = CheckExpr(expr->operand);
  const Type* t = expr->operand->type;
  if (t->IsError()) {
    expr->type = t;
    return expr;
  }
  if (ast::Expr* atomic = CheckAtomicOperator(expr->operand, expr->op, nullptr, expr->range)) {
    return atomic;
  }
  if (t->IsPointer() && (expr->op == ast::OpKind::PreInc || expr->op == ast::OpKind::PreDec ||
                         expr->op == ast::OpKind::PostInc || expr->op == ast::OpKind::PostDec)) {
    return CheckPointerIncDec(expr);
  }
  auto fail = [&] {
    diags_.Report(DiagId::NoMatchingUnaryOperator, expr->range, ast::OpSpelling(expr->op),
                  t->Name());
    expr->type = types_.Error();
    return expr;
  };
  if (expr->op == ast::OpKind::PreInc || expr->op == ast::OpKind::PreDec ||
      expr->op == ast::OpKind::PostInc || expr->op == ast::OpKind::PostDec) {
    if (IsAccessorRead(expr->operand)) return CheckAccessorIncDec(expr);
  } else if (ast::Expr* user = CheckUserOperator(std::string("operator") +
                                                     ast::OpSpelling(expr->op),
                                                 {expr->operand}, expr->range, expr->range,
                                                 true)) {
    return user;
  }
  // `vector<float, N>` takes the operators of concrete vectors.
  bool generic = t->IsDependent() && !LengthGeneric(t, t);
  if (generic && (expr->op == ast::OpKind::Neg || expr->op == ast::OpKind::Plus)) {
    if (types_.CapabilitiesOf(t).find('a') == std::string::npos) return fail();
    expr->type = t;
    return expr;
  }
  if (generic && expr->op == ast::OpKind::BitNot) {
    std::string caps = types_.CapabilitiesOf(t);
    if (caps.find('i') == std::string::npos && caps.find('l') == std::string::npos) return fail();
    expr->type = t;
    return expr;
  }
  if (!t->IsNumericLike()) return fail();
  TypeKind scalar = t->ScalarType()->Kind();
  switch (expr->op) {
    case ast::OpKind::Neg:
    case ast::OpKind::Plus:
      if (scalar == TypeKind::Bool) {
        expr->operand = Coerce(expr->operand, types_.WithScalar(t, types_.Int()));
      }
      expr->type = expr->operand->type;
      return expr;
    case ast::OpKind::Not:
      expr->operand = Coerce(expr->operand, types_.WithScalar(t, types_.Bool()));
      expr->type = expr->operand->type;
      return expr;
    case ast::OpKind::BitNot:
      if (scalar == TypeKind::Float) return fail();
      if (scalar == TypeKind::Bool) {
        expr->operand = Coerce(expr->operand, types_.WithScalar(t, types_.Int()));
      }
      expr->type = expr->operand->type;
      return expr;
    case ast::OpKind::PreInc:
    case ast::OpKind::PreDec:
    case ast::OpKind::PostInc:
    case ast::OpKind::PostDec:
      if (scalar == TypeKind::Bool) return fail();
      if (CheckAssignable(expr->operand)) NoteWritten(expr->operand);
      expr->type = t;
      return expr;
    default:
      return fail();
  }
}

void Checker::CheckConstantOperand(const ast::BinaryExpr* expr) {
  ast::OpKind op = expr->op;
  bool divides = op == ast::OpKind::Div || op == ast::OpKind::Rem;
  bool shifts = op == ast::OpKind::Shl || op == ast::OpKind::Shr;
  const Type* t = expr->type;
  if ((!divides && !shifts) || !t->IsScalar() ||
      (t->Kind() != TypeKind::Int && t->Kind() != TypeKind::UInt)) {
    return;
  }
  int64_t count = 0;
  if (!EvaluateIntConstant(expr->rhs, &count)) return;
  if (divides && count == 0) {
    diags_.Report(DiagId::DivisionByZero, expr->op_range,
                  op == ast::OpKind::Div ? "division" : "remainder");
    return;
  }
  // Shift counts wrap at the width (as the targets compute them): defined, but surely
  // not what was meant when the count is a constant that large.
  const auto width = static_cast<int64_t>(t->Width());
  if (shifts && (count < 0 || count >= width)) {
    diags_.Report(DiagId::ShiftCountTooLarge, expr->op_range, count, width - 1, t->Name(), width,
                  static_cast<int64_t>(static_cast<uint64_t>(count) & static_cast<uint64_t>(width - 1)));
  }
}

ast::Expr* Checker::CheckNoneComparison(ast::BinaryExpr* expr) {
  // `o == none` is `!o.hasValue` and `o != none` is `o.hasValue` (either side), for the
  // core library's Optional<T> and `none`.
  if (expr->op != ast::OpKind::Eq && expr->op != ast::OpKind::Ne) return nullptr;
  auto core = [&](const Type* t, const char* name) {
    auto found = core_yielding_.find(name);
    return found != core_yielding_.end() && t->IsStruct() && t->Info()->decl == found->second;
  };
  ast::Expr* optional = nullptr;
  if (core(expr->lhs->type, "Optional") && core(expr->rhs->type, "__NoneType")) optional = expr->lhs;
  if (core(expr->rhs->type, "Optional") && core(expr->lhs->type, "__NoneType")) optional = expr->rhs;
  if (optional == nullptr) return nullptr;
  auto* has = ctx_.New<ast::MemberExpr>(expr->range, optional, "hasValue", expr->op_range);
  has->field_index = 0;
  has->type = types_.Bool();
  if (expr->op == ast::OpKind::Ne) return has;
  auto* negated = ctx_.New<ast::UnaryExpr>(expr->range, ast::OpKind::Not, has);
  negated->type = types_.Bool();
  return negated;
}

ast::Expr* Checker::CheckBinary(ast::BinaryExpr* expr) {
  expr->lhs = CheckExpr(expr->lhs);
  expr->rhs = CheckExpr(expr->rhs);
  const Type* a = expr->lhs->type;
  const Type* b = expr->rhs->type;
  if (expr->op == ast::OpKind::Comma) {
    // `a, b`: the value (and type) of b; a may be void.
    expr->type = b;
    return expr;
  }
  if (a->IsError() || b->IsError()) {
    expr->type = types_.Error();
    return expr;
  }
  auto fail = [&] {
    diags_.Report(DiagId::NoMatchingOperator, expr->op_range, ast::OpSpelling(expr->op), a->Name(),
                  b->Name());
    expr->type = types_.Error();
    return expr;
  };
  if (ast::Expr* test = CheckNoneComparison(expr)) return test;
  if (ast::Expr* pointer = CheckPointerBinary(expr)) return pointer;
  if (expr->op != ast::OpKind::LogicalAnd && expr->op != ast::OpKind::LogicalOr) {
    if (ast::Expr* user = CheckUserOperator(std::string("operator") + ast::OpSpelling(expr->op),
                                            {expr->lhs, expr->rhs}, expr->range,
                                            expr->op_range, true)) {
      return user;
    }
  }
  if ((a->IsDependent() || b->IsDependent()) && !LengthGeneric(a, b) &&
      expr->op != ast::OpKind::LogicalAnd && expr->op != ast::OpKind::LogicalOr) {
    // Generic operands: the operator must come with the type's interfaces.
    const Type* result = GenericOperatorResult(expr->op, a, b);
    if (result == nullptr) return fail();
    expr->type = result;
    return expr;
  }
  switch (expr->op) {
    case ast::OpKind::LogicalAnd:
    case ast::OpKind::LogicalOr:
      if (!a->IsScalar() || !b->IsScalar()) return fail();
      expr->lhs = Coerce(expr->lhs, types_.Bool());
      expr->rhs = Coerce(expr->rhs, types_.Bool());
      expr->type = types_.Bool();
      return expr;
    case ast::OpKind::Eq:
    case ast::OpKind::Ne:
    case ast::OpKind::Lt:
    case ast::OpKind::Le:
    case ast::OpKind::Gt:
    case ast::OpKind::Ge: {
      const Type* common = CommonType(a, b);
      if (common == nullptr) return fail();
      // Booleans are ordered as the integers 0 and 1.
      bool ordering = expr->op != ast::OpKind::Eq && expr->op != ast::OpKind::Ne;
      if (ordering && common->ScalarType()->Kind() == TypeKind::Bool) {
        common = types_.WithScalar(common, types_.Int());
      }
      expr->lhs = Coerce(expr->lhs, common);
      expr->rhs = Coerce(expr->rhs, common);
      expr->type = types_.WithScalar(common, types_.Bool());
      return expr;
    }
    default: {
      bool ok = false;
      const Type* result = ArithmeticResult(expr->op, a, b, &ok);
      if (!ok) return fail();
      expr->lhs = Coerce(expr->lhs, result);
      const Type* rhs_type = result;
      expr->rhs = Coerce(expr->rhs, rhs_type);
      expr->type = result;
      CheckConstantOperand(expr);
      return expr;
    }
  }
}

ast::Expr* Checker::CheckAssign(ast::AssignExpr* expr) {
  expr->lhs = CheckExpr(expr->lhs);
  if (expr->rhs->kind == ast::ExprKind::InitList && expr->op == ast::OpKind::Assign) {
    // `a = {1, 2}`: the list takes a's type.
    expr->rhs = CheckAs(expr->rhs, expr->lhs->type);
  } else {
    expr->rhs = CheckExpr(expr->rhs);
  }
  const Type* lhs = expr->lhs->type;
  expr->type = lhs;
  if (lhs->IsError() || expr->rhs->type->IsError()) return expr;
  if (IsAccessorRead(expr->lhs)) return CheckAccessorAssign(expr);
  if (expr->op != ast::OpKind::Assign) {
    if (CheckPointerCompoundAssign(expr)) return expr;
    if (ast::Expr* user = CheckUserCompoundAssign(expr)) return user;
    if (ast::Expr* atomic = CheckAtomicOperator(expr->lhs, expr->op, expr->rhs, expr->range)) {
      return atomic;
    }
  }
  if (!CheckAssignable(expr->lhs)) return expr;
  NoteWritten(expr->lhs);
  if (expr->op == ast::OpKind::Assign) {
    expr->rhs = Coerce(expr->rhs, lhs);
    return expr;
  }
  bool ok = false;
  const Type* op_type = ArithmeticResult(expr->op, lhs, expr->rhs->type, &ok);
  if (!ok) {
    diags_.Report(DiagId::NoMatchingOperator, expr->range,
                  std::string(ast::OpSpelling(expr->op)) + "=", lhs->Name(),
                  expr->rhs->type->Name());
    return expr;
  }
  // `a op= b` computes in the common type and converts back to a's type, as in HLSL;
  // a lossy conversion back warns like any other.
  if (op_type != lhs && op_type->Count() == lhs->Count() &&
      ConversionCost(op_type, lhs) >= kNarrowingCost) {
    diags_.Report(DiagId::ImplicitTruncation, expr->range, op_type->Name(), lhs->Name());
  }
  if (op_type->Count() != lhs->Count()) op_type = types_.WithScalar(lhs, op_type->ScalarType());
  expr->op_type = op_type;
  expr->rhs = Coerce(expr->rhs, op_type);
  return expr;
}

ast::Expr* Checker::CheckConditional(ast::ConditionalExpr* expr) {
  expr->cond = CheckExpr(expr->cond);
  bool per_component = expr->cond->type->IsVector();
  if (!per_component) expr->cond = CoerceToBool(expr->cond);
  expr->then_expr = CheckExpr(expr->then_expr);
  expr->else_expr = CheckExpr(expr->else_expr);
  const Type* a = expr->then_expr->type;
  const Type* b = expr->else_expr->type;
  if (a->IsError() || b->IsError() || expr->cond->type->IsError()) {
    expr->type = types_.Error();
    return expr;
  }
  if (per_component) return CheckVectorConditional(expr);
  if (ast::Expr* pointer = CheckPointerConditional(expr)) return pointer;
  if (a == b && (a->IsStruct() || a->IsEnum() || a->IsArray() ||
                 (a->IsDependent() && !a->IsNumericLike()))) {
    expr->type = a;
    return expr;
  }
  if (!a->IsNumericLike() || !b->IsNumericLike()) {
    diags_.Report(DiagId::UnsupportedConstruct, expr->range,
                  "'?:' with operands of type '" + a->Name() + "' and '" + b->Name() + "'", "is");
    expr->type = types_.Error();
    return expr;
  }
  if (a == b) {
    expr->type = a;
    return expr;
  }
  const Type* common = CommonType(a, b);
  if (common == nullptr) {
    diags_.Report(DiagId::CannotConvert, expr->else_expr->range, b->Name(), a->Name());
    expr->type = types_.Error();
    return expr;
  }
  expr->then_expr = Coerce(expr->then_expr, common);
  expr->else_expr = Coerce(expr->else_expr, common);
  expr->type = common;
  return expr;
}

/// `c ? a : b` with a vector condition, as HLSL has it: both operands are evaluated and
/// each component is chosen by its own condition (as `select(c, a, b)`); the operands are
/// scalars or vectors of the condition's length.
ast::Expr* Checker::CheckVectorConditional(ast::ConditionalExpr* expr) {
  uint32_t n = expr->cond->type->Count();
  const Type* a = expr->then_expr->type;
  const Type* b = expr->else_expr->type;
  const Type* common = CommonType(a, b);
  if (common == nullptr || common->IsMatrix()) {
    diags_.Report(DiagId::CannotConvert, expr->else_expr->range, b->Name(), a->Name());
    expr->type = types_.Error();
    return expr;
  }
  const Type* result = types_.Vector(common->ScalarType(), n);
  for (ast::Expr* operand : {expr->then_expr, expr->else_expr}) {
    if (!operand->type->IsScalar() && operand->type->Count() != n) {
      diags_.Report(DiagId::CannotConvert, operand->range, operand->type->Name(), result->Name());
      expr->type = types_.Error();
      return expr;
    }
  }
  expr->cond = Coerce(expr->cond, types_.Vector(types_.Bool(), n));
  expr->then_expr = Coerce(expr->then_expr, result);
  expr->else_expr = Coerce(expr->else_expr, result);
  expr->type = result;
  return expr;
}

}  // namespace slope::sema

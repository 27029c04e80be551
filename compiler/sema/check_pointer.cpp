// Pointers into device memory: `T*` and `Ptr<T>` (one type), `nullptr`, `*p`, `p->f`
// and `p.f`, `p[i]`, `p + i`, `p - i`, `p += i`, `++p`, comparisons, `c ? p : q`, `&` of
// a place reached through a pointer, and casts between pointers and 64-bit integers.
//
// `p[i]` becomes `*(p + i)` and a member read through a pointer `(*p).f`, so lowering
// sees only dereferences, pointer offsets and the places below them.

#include "compiler/ast/ast.h"
#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {
bool IsIntegerScalar(const Type* t) {
  return t->Kind() == TypeKind::Int || t->Kind() == TypeKind::UInt;
}

bool IsNullPointer(const Type* t) { return t->IsPointer() && t->Element()->IsVoid(); }

bool Is64BitInteger(const Type* t) { return IsIntegerScalar(t) && t->Width() == 64; }
}  // namespace

const Type* Checker::ResolvePointerType(ast::TypeExpr* te) {
  if (te->pointer_depth > 0) {
    ast::TypeExpr pointee = *te;
    --pointee.pointer_depth;
    return PointerTo(ResolveType(&pointee), te->range);
  }
  // `Ptr<T>` unless the program declares its own `Ptr`.
  if (te->name == "Ptr" && te->array_dims.empty() && Lookup("Ptr") == nullptr) {
    if (te->type_args.size() != 1 || !te->value_args.empty()) {
      diags_.Report(DiagId::InvalidAttributeArgs, te->range, "Ptr", "one type argument");
      return types_.Error();
    }
    return PointerTo(ResolveType(te->type_args[0]), te->range);
  }
  return nullptr;
}

const Type* Checker::PointerTo(const Type* pointee, source::SourceRange range) {
  if (pointee->IsError()) return pointee;
  const char* why = nullptr;
  if (pointee->IsResource() ||
      (!pointee->IsStruct() && !pointee->IsDependent() && ContainsResource(pointee))) {
    why = "resources (buffers, textures, samplers) are bound, not stored in memory";
  } else if (pointee->IsVoid()) {
    why = "a pointer points at a value of a known type";
  } else if (pointee->IsInterface()) {
    why = "an interface has no layout in memory";
  } else if (pointee->IsScalar() && pointee->Kind() == TypeKind::Bool) {
    why = "'bool' has no layout in device memory; use 'int' or 'uint'";
  }
  // A struct's fields may not be known yet (`struct Node { Node* next; }`): its layout is
  // checked where the pointer is dereferenced.
  if (why != nullptr) {
    diags_.Report(DiagId::PointerPointee, range, pointee->Name(), why);
    return types_.Error();
  }
  return types_.Pointer(pointee);
}

ast::Expr* Checker::NullPointer(ast::NameExpr* expr) {
  auto* null = ctx_.New<ast::IntLiteralExpr>(expr->range, 0, true);
  null->width = 64;
  null->is_nullptr = true;
  null->type = types_.Pointer(types_.Void());
  return null;
}

ast::Expr* Checker::Deref(ast::Expr* pointer, source::SourceRange range) {
  auto* deref = ctx_.New<ast::UnaryExpr>(range, ast::OpKind::Deref, pointer);
  deref->height = pointer->height + 1;
  const Type* t = pointer->type;
  if (t->IsError()) {
    deref->type = t;
    return deref;
  }
  if (!t->IsPointer() || IsNullPointer(t)) {
    diags_.Report(DiagId::DerefNonPointer, range, t->Name());
    deref->type = types_.Error();
    return deref;
  }
  const Type* pointee = t->Element();
  if (!pointee->IsDependent() && (!IsBufferElement(pointee) || ContainsResource(pointee))) {
    diags_.Report(DiagId::PointerPointee, range, pointee->Name(),
                  "its type has no layout in device memory (bool, resources or an empty struct)");
    deref->type = types_.Error();
    return deref;
  }
  deref->type = pointee;
  return deref;
}

ast::Expr* Checker::OffsetPointer(ast::Expr* pointer, ast::Expr* count, ast::OpKind op,
                                  source::SourceRange range, source::SourceRange op_range) {
  auto* sum = ctx_.New<ast::BinaryExpr>(range, op, pointer, count, op_range);
  sum->height = std::max(pointer->height, count->height) + 1;
  if (!IsIntegerScalar(count->type)) {
    diags_.Report(DiagId::PointerArithmetic, op_range, ast::OpSpelling(op), pointer->type->Name(),
                  count->type->Name());
    sum->type = types_.Error();
    return sum;
  }
  sum->type = pointer->type;
  return sum;
}

ast::Expr* Checker::CheckPointerUnary(ast::UnaryExpr* expr) {
  if (expr->op == ast::OpKind::Deref) {
    ast::Expr* operand = CheckExpr(expr->operand);
    return Deref(operand, expr->range);
  }
  if (expr->op == ast::OpKind::AddrOf) {
    expr->operand = CheckExpr(expr->operand);
    if (expr->operand->type->IsError()) {
      expr->type = types_.Error();
      return expr;
    }
    // The place must be reached through a pointer: fields and array elements of `*p`.
    const ast::Expr* place = expr->operand;
    while (true) {
      if (place->kind == ast::ExprKind::Member &&
          static_cast<const ast::MemberExpr*>(place)->field_index >= 0) {
        place = static_cast<const ast::MemberExpr*>(place)->base;
      } else if (place->kind == ast::ExprKind::Index &&
                 (static_cast<const ast::IndexExpr*>(place)->base->type->IsArray())) {
        place = static_cast<const ast::IndexExpr*>(place)->base;
      } else {
        break;
      }
    }
    bool through_pointer = place->kind == ast::ExprKind::Unary &&
                           static_cast<const ast::UnaryExpr*>(place)->op == ast::OpKind::Deref;
    if (!through_pointer) {
      std::string what = place->kind == ast::ExprKind::Name
                             ? "'" + static_cast<const ast::NameExpr*>(place)->name + "'"
                             : "this expression";
      diags_.Report(DiagId::AddressOfNotDevice, expr->range, what);
      expr->type = types_.Error();
      return expr;
    }
    expr->type = types_.Pointer(expr->operand->type);
    return expr;
  }
  return nullptr;
}

ast::Expr* Checker::CheckPointerIncDec(ast::UnaryExpr* expr) {
  if (CheckAssignable(expr->operand)) NoteWritten(expr->operand);
  expr->type = expr->operand->type;
  return expr;
}

ast::Expr* Checker::CheckPointerBinary(ast::BinaryExpr* expr) {
  const Type* a = expr->lhs->type;
  const Type* b = expr->rhs->type;
  if (!a->IsPointer() && !b->IsPointer()) return nullptr;
  auto fail = [&] {
    diags_.Report(DiagId::PointerArithmetic, expr->op_range, ast::OpSpelling(expr->op), a->Name(),
                  b->Name());
    expr->type = types_.Error();
    return expr;
  };
  switch (expr->op) {
    case ast::OpKind::Add:
      if (a->IsPointer() && !IsNullPointer(a) && IsIntegerScalar(b)) {
        expr->type = a;
        return expr;
      }
      if (b->IsPointer() && !IsNullPointer(b) && IsIntegerScalar(a)) {
        std::swap(expr->lhs, expr->rhs);  // `i + p` is `p + i`
        expr->type = b;
        return expr;
      }
      return fail();
    case ast::OpKind::Sub:
      if (a->IsPointer() && !IsNullPointer(a) && IsIntegerScalar(b)) {
        expr->type = a;
        return expr;
      }
      return fail();
    case ast::OpKind::Eq:
    case ast::OpKind::Ne:
    case ast::OpKind::Lt:
    case ast::OpKind::Le:
    case ast::OpKind::Gt:
    case ast::OpKind::Ge: {
      if (!a->IsPointer() || !b->IsPointer()) return fail();
      if (IsNullPointer(a) && IsNullPointer(b)) {
        diags_.Report(DiagId::NullptrWithoutType, expr->range);
        expr->type = types_.Error();
        return expr;
      }
      if (IsNullPointer(a)) expr->lhs = Coerce(expr->lhs, b);
      if (IsNullPointer(b)) expr->rhs = Coerce(expr->rhs, a);
      if (expr->lhs->type != expr->rhs->type) return fail();
      expr->type = types_.Bool();
      return expr;
    }
    default:
      return fail();
  }
}

ast::Expr* Checker::CheckPointerConditional(ast::ConditionalExpr* expr) {
  const Type* a = expr->then_expr->type;
  const Type* b = expr->else_expr->type;
  if (!a->IsPointer() && !b->IsPointer()) return nullptr;
  if (IsNullPointer(a) && IsNullPointer(b)) {
    diags_.Report(DiagId::NullptrWithoutType, expr->range);
    expr->type = types_.Error();
    return expr;
  }
  // `nullptr` takes the other arm's pointer type, as in a comparison.
  if (IsNullPointer(a) && b->IsPointer()) expr->then_expr = Coerce(expr->then_expr, b);
  if (IsNullPointer(b) && a->IsPointer()) expr->else_expr = Coerce(expr->else_expr, a);
  a = expr->then_expr->type;
  b = expr->else_expr->type;
  if (a != b) {
    diags_.Report(DiagId::CannotConvert, expr->else_expr->range, b->Name(), a->Name());
    expr->type = types_.Error();
    return expr;
  }
  expr->type = a;
  return expr;
}

ast::Expr* Checker::CheckPointerCast(ast::CastExpr* cast, const Type* target) {
  const Type* from = cast->operand->type;
  if (!target->IsPointer() && !from->IsPointer()) return nullptr;
  cast->type = target;
  if (from->IsError() || target->IsError()) return cast;
  bool ok = false;
  if (target->IsPointer() && !IsNullPointer(target)) {
    ok = from->IsPointer() || Is64BitInteger(from);
  } else if (from->IsPointer() && !IsNullPointer(from)) {
    ok = Is64BitInteger(target);
  }
  if (IsNullPointer(from) && target->IsPointer()) {
    cast->operand = Coerce(cast->operand, target);
    ok = true;
  }
  if (!ok) {
    diags_.Report(DiagId::PointerCast, cast->range, from->Name(), target->Name());
    cast->type = types_.Error();
  }
  return cast;
}

bool Checker::CheckPointerCompoundAssign(ast::AssignExpr* expr) {
  const Type* lhs = expr->lhs->type;
  if (!lhs->IsPointer()) return false;
  const Type* rhs = expr->rhs->type;
  if ((expr->op != ast::OpKind::Add && expr->op != ast::OpKind::Sub) || !IsIntegerScalar(rhs)) {
    diags_.Report(DiagId::PointerArithmetic, expr->range,
                  std::string(ast::OpSpelling(expr->op)) + "=", lhs->Name(), rhs->Name());
    return true;
  }
  if (CheckAssignable(expr->lhs)) NoteWritten(expr->lhs);
  expr->op_type = lhs;
  return true;
}

}  // namespace slope::sema

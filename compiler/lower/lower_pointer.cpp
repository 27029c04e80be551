// Pointers into device memory: `*p` is the place `p` holds, `&x` the address of a place
// reached through a pointer, `p + i` a `ptr_offset`, and comparisons and casts go through
// the pointer's 64 bits (`ptr_cast`).

#include "compiler/lower/lowerer.h"

namespace slope::lower {

bool Lowerer::IsThroughPointer(const ast::Expr* e) const {
  while (true) {
    if (e->kind == ast::ExprKind::Unary) {
      return static_cast<const ast::UnaryExpr*>(e)->op == ast::OpKind::Deref;
    }
    if (e->kind == ast::ExprKind::Member) {
      e = static_cast<const ast::MemberExpr*>(e)->base;
    } else if (e->kind == ast::ExprKind::Index &&
               !static_cast<const ast::IndexExpr*>(e)->base->type->IsBuffer() &&
               !static_cast<const ast::IndexExpr*>(e)->base->type->IsTexture()) {
      e = static_cast<const ast::IndexExpr*>(e)->base;
    } else {
      return false;
    }
  }
}

Value* Lowerer::NullPointer(const ir::Type* type) {
  return b_.Emit(Op::PtrCast, type, {module_->ConstInt(module_->Types().Int(64, false), 0)});
}

Value* Lowerer::OffsetPointer(ast::OpKind op, Value* pointer, Value* count) {
  // A signed 64-bit element count: `p - 1u` moves back one element.
  Value* n = ConvertValue(count, module_->Types().Int(64, true));
  if (op == ast::OpKind::Sub) n = b_.Unary(Op::Neg, n);
  return b_.Emit(Op::PtrOffset, pointer->GetType(), {pointer, n});
}

Value* Lowerer::PointerBits(Value* pointer) {
  return b_.Emit(Op::PtrCast, module_->Types().Int(64, false), {pointer});
}

Value* Lowerer::LowerPointerUnary(const ast::UnaryExpr* e) {
  if (e->op == ast::OpKind::Deref) return b_.Load(LowerExpr(e->operand));
  if (e->op == ast::OpKind::AddrOf) return LowerLValue(e->operand).ptr;
  // `++p`, `p--`: one element on.
  LValue lv = LowerLValue(e->operand);
  Value* old = LoadLValue(lv);
  bool inc = e->op == ast::OpKind::PreInc || e->op == ast::OpKind::PostInc;
  Value* one = module_->ConstInt(module_->Types().Int(64, true), 1);
  Value* updated = OffsetPointer(inc ? ast::OpKind::Add : ast::OpKind::Sub, old, one);
  StoreLValue(lv, updated);
  bool pre = e->op == ast::OpKind::PreInc || e->op == ast::OpKind::PreDec;
  return pre ? updated : old;
}

}  // namespace slope::lower

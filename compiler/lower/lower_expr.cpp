// Lowering of expressions, lvalues and conversions.

#include "compiler/base/ice.h"
#include "compiler/lower/lowerer.h"

namespace slope::lower {

using ir::Op;
using ir::Value;

Value* Lowerer::Zero(const ir::Type* t) {
  std::map<const ir::Type*, Value*> made;
  return Zero(t, &made);
}

Value* Lowerer::Zero(const ir::Type* t, std::map<const ir::Type*, Value*>* made) {
  // Each type's zero is made once per call: a struct whose members share a type (a
  // generic struct nested in itself) takes instructions linear in its distinct types,
  // not in its leaves.
  auto found = made->find(t);
  if (found != made->end()) return found->second;
  Value* zero = ZeroOnce(t, made);
  made->emplace(t, zero);
  return zero;
}

Value* Lowerer::ZeroOnce(const ir::Type* t, std::map<const ir::Type*, Value*>* made) {
  if (t->IsResource()) {
    // No buffer is "zero": a read of a slot nothing was stored into. Unused, it goes;
    // used, legalize-resources reports the resource it cannot trace to a global.
    return b_.Load(b_.Var(func_, t));
  }
  if (t->IsArray()) {
    std::vector<Value*> elements(t->Count(), Zero(t->Element(), made));
    return b_.MakeArray(t, elements);
  }
  if (t->IsMatrix()) return SplatMatrix(Zero(t->Scalar(), made), t);
  if (t->IsDevicePointer()) return NullPointer(t);
  if (t->IsStruct()) {
    if (ExistentialByType(t) != nullptr) return ZeroExistential(t);
    std::vector<Value*> members;
    for (const ir::Type* m : t->Members()) members.push_back(Zero(m, made));
    return b_.MakeStruct(t, members);
  }
  const ir::Type* s = t->Scalar();
  Value* z = s->IsBool()    ? module_->ConstBool(false)
             : s->IsFloat() ? module_->ConstFloat(s, 0.0)
                            : module_->ConstInt(s, 0);
  return t->IsVector() ? b_.Splat(z, t->Count()) : z;
}

Value* Lowerer::One(const ir::Type* t) {
  const ir::Type* s = t->Scalar();
  Value* one = s->IsFloat() ? module_->ConstFloat(s, 1.0) : module_->ConstInt(s, 1);
  if (t->IsMatrix()) return SplatMatrix(one, t);
  return t->IsVector() ? b_.Splat(one, t->Count()) : one;
}

Value* Lowerer::ConvertValue(Value* v, const ir::Type* to) {
  const ir::Type* from = v->GetType();
  if (from == to) return v;
  if (from->IsDevicePointer() || to->IsDevicePointer()) return b_.Emit(Op::PtrCast, to, {v});
  // Truncate, then change the scalar kind, then splat.
  if (from->IsMatrix() && to->IsMatrix() && (from->Count() != to->Count() || from->Cols() != to->Cols())) {
    // The upper-left block (sema allows only a larger matrix to shrink).
    std::vector<Value*> rows;
    for (uint32_t r = 0; r < to->Count(); ++r) {
      Value* row = b_.Extract(v, r);
      if (from->Cols() != to->Cols()) {
        std::vector<uint32_t> lanes;
        for (uint32_t c = 0; c < to->Cols(); ++c) lanes.push_back(c);
        row = b_.Shuffle(row, row, lanes);
      }
      rows.push_back(row);
    }
    v = b_.Emit(Op::MakeMatrix, module_->Types().Matrix(from->Scalar(), to->Count(), to->Cols()), rows);
    from = v->GetType();
  }
  if (from->IsVector() && from->Count() > to->Count()) {
    if (to->Count() == 1) {
      v = b_.Extract(v, 0);
    } else {
      std::vector<uint32_t> lanes;
      for (uint32_t i = 0; i < to->Count(); ++i) lanes.push_back(i);
      v = b_.Shuffle(v, v, lanes);
    }
    from = v->GetType();
  }
  if (from->Scalar() != to->Scalar()) {
    v = b_.Convert(v, module_->Types().WithScalar(from, to->Scalar()));
    from = v->GetType();
  }
  if (from->IsScalar() && to->IsVector()) v = b_.Splat(v, to->Count());
  if (from->IsScalar() && to->IsMatrix()) v = SplatMatrix(v, to);
  SLOPE_ASSERT(v->GetType() == to);
  return v;
}

Value* Lowerer::LowerExpr(const ast::Expr* e) {
  Loc(e->range);
  if (const ast::IndexExpr* choice = BufferChoiceIn(e)) return LowerPerBuffer(e, choice);
  switch (e->kind) {
    case ast::ExprKind::IntLiteral: {
      auto* lit = static_cast<const ast::IntLiteralExpr*>(e);
      if (lit->is_nullptr) return NullPointer(LowerType(e->type));
      return module_->ConstInt(LowerType(e->type), static_cast<int64_t>(lit->value));
    }
    case ast::ExprKind::FloatLiteral:
      return module_->ConstFloat(LowerType(e->type),
                                 static_cast<const ast::FloatLiteralExpr*>(e)->value);
    case ast::ExprKind::BoolLiteral:
      return module_->ConstBool(static_cast<const ast::BoolLiteralExpr*>(e)->value);
    case ast::ExprKind::StringLiteral:
      SLOPE_ICE("string literal reached lowering");
    case ast::ExprKind::Name: {
      auto* name = static_cast<const ast::NameExpr*>(e);
      if (name->decl->kind == ast::DeclKind::GenericParam) {
        const sema::Type* value = Concrete(static_cast<const ast::GenericParamDecl*>(name->decl)->type);
        SLOPE_ASSERT(value->Kind() == sema::TypeKind::IntValue);
        if (e->type->Kind() == sema::TypeKind::Bool) return module_->ConstBool(value->Value() != 0);
        return module_->ConstInt(LowerType(e->type), value->Value());
      }
      auto* var = static_cast<const ast::VarDecl*>(name->decl);
      if (auto spec = spec_constants_.find(var); spec != spec_constants_.end()) return spec->second;
      if (var->role == ast::VarRole::Global && var->is_const) return LowerExpr(var->init);
      // A global buffer is a value of buffer type: it may be stored in a local or a field
      // and passed on; legalize-resources traces those back to the global.
      if (var->role == ast::VarRole::Global && var->type->IsResource()) return globals_.at(var);
      if (auto arr = buffer_arrays_.find(var); arr != buffer_arrays_.end()) {
        // An array of the globals: `bufs[1]` folds to the second one (legalize-resources).
        return b_.MakeArray(LowerType(var->type),
                            std::vector<Value*>(arr->second.begin(), arr->second.end()));
      }
      if (var->uniform_kind == ast::UniformKind::ResourceStruct ||
          var->uniform_kind == ast::UniformKind::ParameterBlock) {
        return LoadResourceStruct(var);
      }
      return b_.Load(StorageOf(var));
    }
    case ast::ExprKind::Member: {
      auto* m = static_cast<const ast::MemberExpr*>(e);
      const sema::Type* owner = Concrete(m->base->type);
      if (IsCoreAtomic(owner)) return LowerExpr(m->base);  // its value
      if (m->field_index >= 0 && types_.FieldIsAbsent(owner, m->field_index)) {
        LowerExpr(m->base);               // for its effects
        return Zero(LowerType(e->type));  // a field without storage reads as zero
      }
      // A member of device memory is loaded alone, not with the whole struct around it.
      if (m->field_index >= 0 && IsThroughPointer(e)) return LoadLValue(LowerLValue(e));
      Value* base = LowerExpr(m->base);
      Loc(e->range);
      if (m->field_index >= 0) {
        return b_.Extract(base, static_cast<uint32_t>(MemberIndex(owner, m->field_index)));
      }
      if (base->GetType()->IsMatrix()) return MatrixElements(base, m->swizzle);
      if (base->GetType()->IsScalar()) {
        return m->swizzle.size() == 1 ? base : b_.Splat(base, static_cast<uint32_t>(m->swizzle.size()));
      }
      if (m->swizzle.size() == 1) return b_.Extract(base, m->swizzle[0]);
      return b_.Shuffle(base, base, m->swizzle);
    }
    case ast::ExprKind::Index: {
      auto* ix = static_cast<const ast::IndexExpr*>(e);
      if (ix->base->type->IsArray() && IsThroughPointer(e)) return LoadLValue(LowerLValue(e));
      if (ix->base->type->IsArray() || ix->base->type->IsMatrix()) return LowerArrayIndex(ix);
      if (ix->base->type->IsBuffer()) return LoadLValue(LowerLValue(e));
      if (ix->base->type->IsTexture()) return LowerTextureIndex(ix);
      Value* base = LowerExpr(ix->base);
      Value* index = LowerExpr(ix->index);
      // `v[i]` on a vector<T, N> specialized with N = 1, which is the scalar itself.
      if (base->GetType()->IsScalar()) return base;
      return b_.Emit(Op::ExtractDynamic, base->GetType()->Element(), {base, index});
    }
    case ast::ExprKind::Call:
      return LowerCall(static_cast<const ast::CallExpr*>(e));
    case ast::ExprKind::Unary:
      return LowerUnary(static_cast<const ast::UnaryExpr*>(e));
    case ast::ExprKind::Binary:
      return LowerBinary(static_cast<const ast::BinaryExpr*>(e));
    case ast::ExprKind::Assign:
      return LowerAssign(static_cast<const ast::AssignExpr*>(e));
    case ast::ExprKind::Conditional:
      return LowerConditional(static_cast<const ast::ConditionalExpr*>(e));
    case ast::ExprKind::Cast:
      return ConvertValue(LowerExpr(static_cast<const ast::CastExpr*>(e)->operand), LowerType(e->type));
    case ast::ExprKind::InitList:
      return LowerInitList(static_cast<const ast::InitListExpr*>(e));
    case ast::ExprKind::NoDiff:
      return Detach(LowerExpr(static_cast<const ast::NoDiffExpr*>(e)->operand));
    case ast::ExprKind::TypeTest:
      return LowerTypeTest(static_cast<const ast::TypeTestExpr*>(e));
    case ast::ExprKind::Pack:
      return LowerPackExpr(static_cast<const ast::PackExpr*>(e));
    case ast::ExprKind::SpirvAsm:
      return LowerSpirvAsm(static_cast<const ast::SpirvAsmExpr*>(e));
    case ast::ExprKind::Diff:
    case ast::ExprKind::Lambda:
      SLOPE_ICE("expression kind rejected by sema reached lowering");
    case ast::ExprKind::ImplicitCast: {
      const ast::Expr* operand = static_cast<const ast::ImplicitCastExpr*>(e)->operand;
      if (Concrete(e->type)->IsInterface()) return Pack(LowerExpr(operand), operand->type, e->type);
      return ConvertValue(LowerExpr(operand), LowerType(e->type));
    }
  }
  SLOPE_ICE("unhandled expression kind");
}

Value* Lowerer::LowerCall(const ast::CallExpr* call) {
  if (call->is_printf) return LowerPrintf(call);
  if (call->buffer_method == ast::BufferMethod::Texture) return LowerTextureMethod(call);
  if (call->buffer_method == ast::BufferMethod::TextureDims) return LowerTextureDims(call);
  if (call->buffer_method != ast::BufferMethod::None) return LowerBufferMethod(call);
  if (call->callee->kind == ast::ExprKind::Diff) {
    if (static_cast<const ast::DiffExpr*>(call->callee)->backward) return LowerBwdDiffCall(call);
    return LowerFwdDiffCall(call);
  }
  // `S(x)`, and `T(x)` in generic code through an interface's `__init` requirement.
  if (call->constructed != nullptr && Concrete(call->constructed)->IsStruct()) {
    return LowerStructConstructor(call);
  }
  if (call->constructed != nullptr && call->func != nullptr &&
      call->func->func_kind == ast::FuncKind::Init && call->args.empty()) {
    // `T()` through IDefaultInitializable, T a number, vector, matrix or array.
    Loc(call->range);
    return b_.Call(Callee(call), {});
  }
  // `a.add(v)` on an `Atomic<T>`: sema made it the atomic on `a`'s value.
  if (call->func != nullptr && call->func->intrinsic_inst >= 0 && call->receiver == nullptr) {
    return LowerSyncCall(call);
  }
  if (call->func != nullptr && call->func->owner != nullptr) return LowerMethodCall(call);
  if (call->constructed != nullptr && call->constructed->IsMatrix()) {
    return LowerMatrixConstructor(call);
  }
  if (call->constructed != nullptr) {
    if (call->args.size() == 1) return LowerExpr(call->args[0]);
    std::vector<Value*> parts;
    for (const ast::Expr* a : call->args) parts.push_back(LowerExpr(a));
    Loc(call->range);
    return b_.Emit(Op::MakeVector, LowerType(call->type), parts);
  }
  if (call->func != nullptr && call->func->intrinsic_op >= 0) return LowerIntrinsicCall(call);
  std::vector<OutArg> outs;
  std::vector<Value*> args = LowerArgs(call, &outs);
  Loc(call->range);
  Value* result = b_.Call(Callee(call), args);
  CopyBack(outs);
  return result;
}

Value* Lowerer::ArithmeticOp(ast::OpKind op, Value* a, Value* b) {
  if (a->GetType()->IsDevicePointer()) {
    if (op == ast::OpKind::Add || op == ast::OpKind::Sub) return OffsetPointer(op, a, b);
    // Comparisons order the addresses.
    a = PointerBits(a);
    b = PointerBits(b);
  }
  bool ordered = op == ast::OpKind::Lt || op == ast::OpKind::Le || op == ast::OpKind::Gt ||
                 op == ast::OpKind::Ge;
  if (ordered && a->GetType()->Scalar()->IsBool()) {
    // `a < b` on bools in generic code (`T : IComparable` with T = bool): false < true.
    const ir::Type* u = module_->Types().WithScalar(a->GetType(), module_->Types().Int(32, false));
    a = ConvertValue(a, u);
    b = ConvertValue(b, u);
  }
  bool bitwise = op == ast::OpKind::BitAnd || op == ast::OpKind::BitOr ||
                 op == ast::OpKind::BitXor || op == ast::OpKind::Shl || op == ast::OpKind::Shr;
  if (bitwise && a->GetType()->Scalar()->IsBool()) {
    // `a & b` on bools in generic code (`T : ILogical` with T = bool): on 0 and 1, and the
    // result back to a bool.
    const ir::Type* bools = a->GetType();
    const ir::Type* u = module_->Types().WithScalar(bools, module_->Types().Int(32, false));
    Value* r = ArithmeticOp(op, ConvertValue(a, u), ConvertValue(b, u));
    return ConvertValue(r, bools);
  }
  switch (op) {
    case ast::OpKind::Add: return b_.Binary(Op::Add, a, b);
    case ast::OpKind::Sub: return b_.Binary(Op::Sub, a, b);
    case ast::OpKind::Mul: return b_.Binary(Op::Mul, a, b);
    case ast::OpKind::Div: return b_.Binary(Op::Div, a, b);
    case ast::OpKind::Rem: return b_.Binary(Op::Rem, a, b);
    case ast::OpKind::BitAnd: return b_.Binary(Op::BitAnd, a, b);
    case ast::OpKind::BitOr: return b_.Binary(Op::BitOr, a, b);
    case ast::OpKind::BitXor: return b_.Binary(Op::BitXor, a, b);
    case ast::OpKind::Shl:
    case ast::OpKind::Shr: {
      // Shift counts wrap at the bit width, as in HLSL; never undefined behaviour.
      const ir::Type* s = b->GetType()->Scalar();
      Value* mask = module_->ConstInt(s, s->Width() - 1);
      if (b->GetType()->IsVector()) mask = b_.Splat(mask, b->GetType()->Count());
      if (b->GetType()->IsMatrix()) mask = SplatMatrix(mask, b->GetType());
      Value* count = b_.Binary(Op::BitAnd, b, mask);
      return b_.Binary(op == ast::OpKind::Shl ? Op::Shl : Op::Shr, a, count);
    }
    case ast::OpKind::Eq: return b_.Compare(Op::Eq, a, b);
    case ast::OpKind::Ne: return b_.Compare(Op::Ne, a, b);
    case ast::OpKind::Lt: return b_.Compare(Op::Lt, a, b);
    case ast::OpKind::Le: return b_.Compare(Op::Le, a, b);
    case ast::OpKind::Gt: return b_.Compare(Op::Gt, a, b);
    case ast::OpKind::Ge: return b_.Compare(Op::Ge, a, b);
    default: SLOPE_ICE("not a binary arithmetic operator");
  }
}

Value* Lowerer::LowerBinary(const ast::BinaryExpr* e) {
  if (e->op == ast::OpKind::LogicalAnd || e->op == ast::OpKind::LogicalOr) {
    return LowerShortCircuit(e);
  }
  if (e->op == ast::OpKind::Comma) {
    LowerExpr(e->lhs);
    return LowerExpr(e->rhs);
  }
  Value* a = LowerExpr(e->lhs);
  Value* b = LowerExpr(e->rhs);
  Loc(e->range);
  Value* result = ArithmeticOp(e->op, a, b);
  // A comparison in generic code (`x > T(0)` with T : IComparable) is one bool; with T
  // specialized to a vector it compares component by component, and the bool is whether
  // every component compares so (`!=`: whether any differs, so that it negates `==`).
  const ir::Type* rt = result->GetType();
  if (rt->IsVector() && rt->Element()->IsBool() && LowerType(e->type)->IsBool()) {
    Op fold = e->op == ast::OpKind::Ne ? Op::LogicalOr : Op::LogicalAnd;
    Value* folded = b_.Extract(result, 0);
    for (uint32_t i = 1; i < rt->Count(); ++i) folded = b_.Binary(fold, folded, b_.Extract(result, i));
    result = folded;
  }
  return result;
}

Value* Lowerer::LowerShortCircuit(const ast::BinaryExpr* e) {
  // result = lhs; if (lhs == is_and) result = rhs;
  bool is_and = e->op == ast::OpKind::LogicalAnd;
  Value* slot = b_.Var(func_, module_->Types().Bool());
  Value* lhs = LowerExpr(e->lhs);
  b_.Store(slot, lhs);
  Value* cond = is_and ? lhs : b_.Unary(Op::LogicalNot, lhs);
  ir::Block* rhs_block = NewBlock();
  ir::Block* merge = NewBlock();
  b_.If(cond, rhs_block, merge, merge);
  Place(rhs_block);
  b_.Store(slot, LowerExpr(e->rhs));
  b_.Br(merge);
  Place(merge);
  return b_.Load(slot);
}

Value* Lowerer::LowerConditional(const ast::ConditionalExpr* e) {
  if (e->cond->type->IsVector()) {
    // A vector condition: both operands first, then a choice per component.
    Value* cond = LowerExpr(e->cond);
    Value* a = LowerExpr(e->then_expr);
    Value* b = LowerExpr(e->else_expr);
    const ir::Type* type = LowerType(e->type);
    std::vector<Value*> parts;
    for (uint32_t i = 0; i < type->Count(); ++i) {
      Value* part = b_.Var(func_, type->Element());
      ir::Block* then_block = NewBlock();
      ir::Block* else_block = NewBlock();
      ir::Block* merge = NewBlock();
      b_.If(b_.Extract(cond, i), then_block, else_block, merge);
      Place(then_block);
      b_.Store(part, b_.Extract(a, i));
      b_.Br(merge);
      Place(else_block);
      b_.Store(part, b_.Extract(b, i));
      b_.Br(merge);
      Place(merge);
      parts.push_back(b_.Load(part));
    }
    return b_.Emit(Op::MakeVector, type, parts);
  }
  Value* slot = b_.Var(func_, LowerType(e->type));
  Value* cond = LowerExpr(e->cond);
  ir::Block* then_block = NewBlock();
  ir::Block* else_block = NewBlock();
  ir::Block* merge = NewBlock();
  b_.If(cond, then_block, else_block, merge);
  Place(then_block);
  b_.Store(slot, LowerExpr(e->then_expr));
  b_.Br(merge);
  Place(else_block);
  b_.Store(slot, LowerExpr(e->else_expr));
  b_.Br(merge);
  Place(merge);
  return b_.Load(slot);
}

Value* Lowerer::LowerUnary(const ast::UnaryExpr* e) {
  if (e->op == ast::OpKind::Deref || e->op == ast::OpKind::AddrOf ||
      e->type->IsPointer()) {
    return LowerPointerUnary(e);
  }
  switch (e->op) {
    case ast::OpKind::Plus:
      return LowerExpr(e->operand);
    case ast::OpKind::Neg: {
      Value* v = LowerExpr(e->operand);
      return b_.Unary(Op::Neg, v);
    }
    case ast::OpKind::Not:
      return b_.Unary(Op::LogicalNot, LowerExpr(e->operand));
    case ast::OpKind::BitNot: {
      Value* v = LowerExpr(e->operand);
      // `~x` on bools in generic code (`T : ILogical` with T = bool) is logical not.
      if (v->GetType()->Scalar()->IsBool()) return b_.Unary(Op::LogicalNot, v);
      return b_.Unary(Op::BitNot, v);
    }
    case ast::OpKind::PreInc:
    case ast::OpKind::PreDec:
    case ast::OpKind::PostInc:
    case ast::OpKind::PostDec: {
      LValue lv = LowerLValue(e->operand);
      Value* old = LoadLValue(lv);
      bool inc = e->op == ast::OpKind::PreInc || e->op == ast::OpKind::PostInc;
      Value* updated = b_.Binary(inc ? Op::Add : Op::Sub, old, One(old->GetType()));
      StoreLValue(lv, updated);
      bool pre = e->op == ast::OpKind::PreInc || e->op == ast::OpKind::PreDec;
      return pre ? updated : old;
    }
    default:
      SLOPE_ICE("not a unary operator");
  }
}

Value* Lowerer::LowerAssign(const ast::AssignExpr* e) {
  if (e->setter != nullptr || e->op_call != nullptr) return LowerUserAssign(e);
  // The right operand is evaluated before the left one, as in C++17.
  Value* rhs = LowerExpr(e->rhs);
  LValue lv = LowerLValue(e->lhs);
  Loc(e->range);
  if (e->op == ast::OpKind::Assign) {
    StoreLValue(lv, rhs);
    return rhs;
  }
  Value* old = LoadLValue(lv);
  const ir::Type* op_type = LowerType(e->op_type);
  Value* result = ArithmeticOp(e->op, ConvertValue(old, op_type), rhs);
  Value* stored = ConvertValue(result, old->GetType());
  StoreLValue(lv, stored);
  return stored;
}

LValue Lowerer::LowerLValue(const ast::Expr* e) {
  switch (e->kind) {
    case ast::ExprKind::Pack:
      return LValue{EachSlot(static_cast<const ast::PackExpr*>(e)), {}, nullptr};
    case ast::ExprKind::Name: {
      auto* var = static_cast<const ast::VarDecl*>(static_cast<const ast::NameExpr*>(e)->decl);
      if (var->uniform_kind == ast::UniformKind::ResourceStruct ||
          var->uniform_kind == ast::UniformKind::ParameterBlock) {
        // A receiver (`t[i] = v` calls t's setter): a copy, whose buffers are the globals'.
        Value* slot = b_.Var(func_, LowerType(var->type));
        b_.Store(slot, LoadResourceStruct(var));
        return LValue{slot, {}, nullptr};
      }
      return LValue{StorageOf(var), {}, nullptr};
    }
    case ast::ExprKind::Index: {
      auto* ix = static_cast<const ast::IndexExpr*>(e);
      if (ix->base->type->IsBuffer()) {
        Value* buffer = LowerExpr(ix->base);
        Value* index = LowerExpr(ix->index);
        Loc(e->range);
        return LValue{b_.ElementPtr(buffer, index), {}, nullptr};
      }
      if (ix->base->type->IsTexture()) {
        LValue lv;
        lv.texture = LowerExpr(ix->base);
        lv.texel_coord = LowerExpr(ix->index);
        Loc(e->range);
        return lv;
      }
      LValue base = LowerLValue(ix->base);
      SLOPE_ASSERT(base.swizzle.empty() && base.dynamic_index == nullptr);
      if (ix->base->type->IsArray() || ix->base->type->IsMatrix()) {
        Value* index = LowerExpr(ix->index);
        Loc(e->range);
        return LValue{b_.IndexPtr(base.ptr, index), {}, nullptr};
      }
      base.dynamic_index = LowerExpr(ix->index);
      // A vector<T, N> specialized with N = 1 is a scalar: `v[i]` names it whole.
      const ir::Type* whole = base.texture != nullptr ? base.texture->GetType()->Element()
                                                      : base.ptr->GetType()->Element();
      if (whole->IsScalar()) base.dynamic_index = nullptr;
      return base;
    }
    case ast::ExprKind::Member: {
      auto* m = static_cast<const ast::MemberExpr*>(e);
      LValue base = LowerLValue(m->base);
      const sema::Type* owner = Concrete(m->base->type);
      if (IsCoreAtomic(owner)) return base;  // `Atomic<T>` is its value
      if (m->field_index >= 0) {
        SLOPE_ASSERT(base.texture == nullptr);
        SLOPE_ASSERT(base.swizzle.empty() && base.dynamic_index == nullptr);
        if (types_.FieldIsAbsent(owner, m->field_index)) return AbsentFieldPlace(e->type);
        Loc(e->range);
        uint32_t member = static_cast<uint32_t>(MemberIndex(owner, m->field_index));
        return LValue{b_.MemberPtr(base.ptr, member), {}, nullptr};
      }
      // `.x` of a scalar (such as v[i].x) names the scalar itself.
      if (m->base->type->IsScalar()) return base;
      if (m->base->type->IsMatrix()) {
        // `m._m12`: sema allows one element only; its row, then its lane.
        SLOPE_ASSERT(base.swizzle.empty() && base.dynamic_index == nullptr &&
                     m->swizzle.size() == 1);
        Loc(e->range);
        Value* row = module_->ConstInt(module_->Types().Int(32, true), m->swizzle[0] / 4);
        return LValue{b_.IndexPtr(base.ptr, row), {m->swizzle[0] % 4}, nullptr};
      }
      SLOPE_ASSERT(base.dynamic_index == nullptr);
      std::vector<uint32_t> lanes;
      for (uint32_t lane : m->swizzle) lanes.push_back(base.swizzle.empty() ? lane : base.swizzle.at(lane));
      base.swizzle = lanes;
      return base;
    }
    case ast::ExprKind::Unary:
      // `*p`: the place the pointer holds.
      SLOPE_ASSERT(static_cast<const ast::UnaryExpr*>(e)->op == ast::OpKind::Deref);
      return LValue{LowerExpr(static_cast<const ast::UnaryExpr*>(e)->operand), {}, nullptr};
    default:
      SLOPE_ICE("expression is not an lvalue");
  }
}

Value* Lowerer::LoadLValue(const LValue& lv) {
  Value* whole = lv.texture != nullptr ? LoadTexel(lv) : b_.Load(lv.ptr);
  // An element of `StructuredBuffer<IFoo>`: its stored form, read as an IFoo value.
  if (ExistentialByStored(whole->GetType()) != nullptr) return LoadStored(whole);
  if (lv.dynamic_index != nullptr) {
    return b_.Emit(Op::ExtractDynamic, whole->GetType()->Element(), {whole, lv.dynamic_index});
  }
  if (lv.swizzle.empty()) return whole;
  if (whole->GetType()->IsScalar()) {
    return lv.swizzle.size() == 1 ? whole : b_.Splat(whole, static_cast<uint32_t>(lv.swizzle.size()));
  }
  if (lv.swizzle.size() == 1) return b_.Extract(whole, lv.swizzle[0]);
  return b_.Shuffle(whole, whole, lv.swizzle);
}

void Lowerer::StoreLValue(const LValue& lv, Value* value) {
  const bool texel = lv.texture != nullptr;
  const ir::Type* pointee = texel ? lv.texture->GetType()->Element() : lv.ptr->GetType()->Element();
  auto load_whole = [&]() { return texel ? LoadTexel(lv) : b_.Load(lv.ptr); };
  auto store_whole = [&](Value* whole) {
    if (texel) {
      StoreTexel(lv, whole);
    } else {
      b_.Store(lv.ptr, whole);
    }
  };
  if (ExistentialByStored(pointee) != nullptr) {
    store_whole(StoreStored(value, pointee));
    return;
  }
  if (lv.dynamic_index != nullptr) {
    Value* whole = load_whole();
    store_whole(b_.Emit(Op::InsertDynamic, pointee, {whole, value, lv.dynamic_index}));
    return;
  }
  if (lv.swizzle.empty() || pointee->IsScalar()) {
    store_whole(value);
    return;
  }
  Value* whole = load_whole();
  for (size_t i = 0; i < lv.swizzle.size(); ++i) {
    Value* part = value->GetType()->IsVector() ? b_.Extract(value, static_cast<uint32_t>(i)) : value;
    whole = b_.Emit(Op::Insert, pointee, {whole, part}, {lv.swizzle[i]});
  }
  store_whole(whole);
}

}  // namespace slope::lower

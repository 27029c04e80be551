// Lowering of calls of the core library's intrinsic functions: each becomes the IR
// `intrinsic` its `[__intrinsic_op]` names, except on the types the intrinsic does not
// take (integer dot products, lengths of scalars, identity bit casts), which become the
// exact arithmetic they stand for.

#include "compiler/base/ice.h"
#include "compiler/ir/cfg.h"
#include "compiler/ir/spirv_asm.h"
#include "compiler/lower/lowerer.h"

namespace slope::lower {

using ir::Intrinsic;
using ir::Op;
using ir::Value;

Value* Lowerer::LowerSyncCall(const ast::CallExpr* call) {
  auto op = static_cast<ir::Op>(call->func->intrinsic_inst);
  auto imm = static_cast<uint32_t>(call->func->intrinsic_op);
  const ir::Type* type = LowerType(call->type);
  if (op == Op::Barrier) {
    Loc(call->range);
    return b_.Emit(Op::Barrier, type, {}, {imm});
  }
  if (op == Op::Wave) {
    std::vector<Value*> args;
    for (const ast::Expr* a : call->args) args.push_back(LowerExpr(a));
    Loc(call->range);
    return b_.Emit(Op::Wave, type, std::move(args), {imm});
  }
  // An atomic works on its destination in place: a pointer to it (sema checked that it
  // is a scalar in buffer or groupshared memory), the values, then `original_value`.
  const ir::AtomicInfo& info = ir::GetAtomicInfo(static_cast<ir::AtomicOp>(imm));
  LValue dest = LowerLValue(call->args[0]);
  if (dest.texture != nullptr) {
    // An RWBuffer element: a `texture atomic` at its index.
    std::vector<Value*> operands{dest.texture, dest.texel_coord};
    for (uint32_t i = 1; i <= info.values; ++i) operands.push_back(LowerExpr(call->args[i]));
    Loc(call->range);
    Value* original = b_.Emit(Op::Texture, dest.texture->GetType()->Element(), std::move(operands),
                              {static_cast<uint32_t>(ir::TextureOp::Atomic), imm});
    if (call->args.size() > 1 + info.values) {
      StoreLValue(LowerLValue(call->args[1 + info.values]), original);
    }
    return original;
  }
  Value* ptr = dest.ptr;
  if (dest.dynamic_index != nullptr || !dest.swizzle.empty()) {
    // One component of a vector in memory (sema checked the destination is a scalar).
    SLOPE_ASSERT(dest.swizzle.size() <= 1 && ptr->GetType()->Element()->IsVector());
    Value* lane = dest.dynamic_index != nullptr
                      ? dest.dynamic_index
                      : module_->ConstInt(module_->Types().Int(32, true), dest.swizzle[0]);
    Loc(call->args[0]->range);
    ptr = b_.IndexPtr(ptr, lane);
  }
  std::vector<Value*> operands{ptr};
  for (uint32_t i = 1; i <= info.values; ++i) operands.push_back(LowerExpr(call->args[i]));
  Loc(call->range);
  Value* original = b_.Emit(Op::Atomic, ptr->GetType()->Element(), std::move(operands), {imm});
  if (call->args.size() > 1 + info.values) {
    StoreLValue(LowerLValue(call->args[1 + info.values]), original);
  }
  return original;  // the call is a statement: nothing reads its (void) value
}

Value* Lowerer::LowerPrintf(const ast::CallExpr* call) {
  // The values as the debug-printf instruction takes them: 32-bit integers and f32
  // (narrower integers widen; half and double convert to float).
  std::vector<Value*> args;
  for (size_t i = 1; i < call->args.size(); ++i) {
    Value* v = LowerExpr(call->args[i]);
    const ir::Type* t = v->GetType();
    const ir::Type* s = t->Scalar();
    const ir::Type* to = s->IsFloat() ? module_->Types().Float(32)
                                      : module_->Types().Int(32, s->IsSigned());
    if (s != to) {
      Loc(call->args[i]->range);
      v = ConvertValue(v, t->IsVector() ? module_->Types().Vector(to, t->Count()) : to);
    }
    args.push_back(v);
  }
  const auto* format = static_cast<const ast::StringLiteralExpr*>(call->args[0]);
  Loc(call->range);
  return b_.Emit(Op::Printf, module_->Types().Void(), std::move(args),
                 ir::PackString(format->value));
}

Value* Lowerer::LowerSpirvAsm(const ast::SpirvAsmExpr* e) {
  using Kind = ast::SpirvAsmOperand::Kind;
  std::vector<Value*> operands;
  std::vector<ir::AsmInst> insts;
  for (const ast::SpirvAsmInst& inst : e->insts) {
    ir::AsmInst out;
    out.opcode = inst.opcode;
    for (const ast::SpirvAsmOperand& op : inst.checked) {
      ir::AsmOperand o;
      o.number = op.number;
      o.text = op.text;
      switch (op.kind) {
        case Kind::Value:
          o.kind = ir::AsmOperand::Kind::Value;
          o.index = static_cast<uint32_t>(operands.size());
          operands.push_back(LowerExpr(op.value));
          break;
        case Kind::Type:
          o.kind = ir::AsmOperand::Kind::Type;
          o.index = static_cast<uint32_t>(operands.size());
          operands.push_back(ir::ZeroValue(*module_, *func_, LowerType(op.type->resolved)));
          break;
        case Kind::Local:
          o.kind = ir::AsmOperand::Kind::Local;
          break;
        case Kind::Result:
          o.kind = ir::AsmOperand::Kind::Result;
          break;
        case Kind::Int:
          o.kind = ir::AsmOperand::Kind::Int;
          break;
        case Kind::String:
          o.kind = ir::AsmOperand::Kind::String;
          break;
        case Kind::Name:
          o.kind = ir::AsmOperand::Kind::Name;
          break;
        case Kind::Builtin:
        case Kind::Address:
          SLOPE_ICE("spirv_asm operand rejected by sema reached lowering");
      }
      out.operands.push_back(std::move(o));
    }
    insts.push_back(std::move(out));
  }
  Loc(e->range);
  return b_.Emit(e->pure ? Op::SpirvAsmValue : Op::SpirvAsm, LowerType(e->type),
                 std::move(operands), ir::PackString(ir::PrintAsm(insts)));
}

Value* Lowerer::LowerIntrinsicCall(const ast::CallExpr* call) {
  if (call->func->intrinsic_inst >= 0) return LowerSyncCall(call);
  if (call->func->name == "createDynamicObject") return LowerDynamicObject(call);
  std::vector<Value*> args;
  for (const ast::Expr* a : call->args) args.push_back(LowerExpr(a));
  Loc(call->range);
  const ir::Type* type = LowerType(call->type);
  const ir::Type* arg_type = args[0]->GetType();
  auto which = static_cast<Intrinsic>(call->func->intrinsic_op);
  // bit_cast / reinterpret / asfloat to the argument's own type (also a struct's).
  if (which == Intrinsic::Bitcast && arg_type == type) return args[0];
  if (which == Intrinsic::Bitcast &&
      (arg_type->IsStruct() || arg_type->IsArray() || type->IsStruct() || type->IsArray())) {
    return ReinterpretWords(args[0], type);  // `reinterpret<float4>(s)`: word by word
  }
  bool is_int = arg_type->Scalar()->IsInt();
  if (which == Intrinsic::Abs && is_int && !arg_type->Scalar()->IsSigned()) return args[0];
  if (which == Intrinsic::Dot && (is_int || arg_type->IsScalar())) {
    // Integer dot products (and the "dot" of scalars) are a sum of products.
    Value* products = b_.Binary(Op::Mul, args[0], args[1]);
    if (arg_type->IsScalar()) return products;
    Value* sum = b_.Extract(products, 0);
    for (uint32_t i = 1; i < arg_type->Count(); ++i) {
      sum = b_.Binary(Op::Add, sum, b_.Extract(products, i));
    }
    return sum;
  }
  if (which == Intrinsic::Length && arg_type->IsScalar()) {
    return b_.CallIntrinsic(Intrinsic::Abs, type, args);
  }
  return b_.CallIntrinsic(which, type, args);
}

}  // namespace slope::lower

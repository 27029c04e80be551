// Atomics: OpAtomic* on a pointer into storage-buffer, workgroup or device memory, and
// on an RWBuffer element through OpImageTexelPointer (`texture atomic`).

#include "compiler/targets/spirv/writer_internal.h"

namespace slope::targets::spirv {

void Writer::WriteAtomic(const ir::Inst& inst) {
  bool workgroup = inst.operands[0]->GetType()->Space() == ir::AddressSpace::Workgroup;
  EmitAtomic(inst, static_cast<ir::AtomicOp>(inst.imms[0]), ValueId(inst.operands[0]),
             workgroup ? spv::Scope::Workgroup : spv::Scope::Device, 1);
}

void Writer::WriteTexelAtomic(const ir::Inst& inst) {
  // A pointer to the texel in the Image storage class, from the image variable itself.
  const ir::Type* t = inst.GetType();
  uint32_t ptr = NewId();
  functions_.Emit(SpvOp::OpImageTexelPointer,
                  {PointerTypeId(spv::StorageClass::Image, t), ptr, ValueId(inst.operands[0]),
                   ValueId(inst.operands[1]), U32Const(0)});
  EmitAtomic(inst, static_cast<ir::AtomicOp>(inst.imms[1]), ptr, spv::Scope::Device, 2);
}

void Writer::EmitAtomic(const ir::Inst& inst, ir::AtomicOp which, uint32_t pointer,
                        spv::Scope scope_kind, size_t first) {
  using A = ir::AtomicOp;
  const ir::Type* t = inst.GetType();
  uint32_t scope = U32Const(static_cast<uint32_t>(scope_kind));
  uint32_t relaxed = U32Const(0);
  if (t->Width() == 64) Require(spv::Capability::Int64Atomics);
  std::vector<uint32_t> ops{TypeId(t), ValueId(&inst), pointer, scope, relaxed};
  if (which == A::CompareExchange) {
    // SPIR-V takes the value before the comparator; the IR has the comparator first.
    ops.insert(ops.end(),
               {relaxed, ValueId(inst.operands[first + 1]), ValueId(inst.operands[first])});
    functions_.Emit(SpvOp::OpAtomicCompareExchange, ops);
    return;
  }
  ops.push_back(ValueId(inst.operands[first]));
  bool is_signed = t->IsInt() && t->IsSigned();
  SpvOp op = SpvOp::OpAtomicIAdd;
  switch (which) {
    case A::Add:
      if (t->IsFloat()) {
        Require(spv::Capability::AtomicFloat32AddEXT);
        op = SpvOp::OpAtomicFAddEXT;
      }
      break;
    case A::And: op = SpvOp::OpAtomicAnd; break;
    case A::Or: op = SpvOp::OpAtomicOr; break;
    case A::Xor: op = SpvOp::OpAtomicXor; break;
    case A::Min: op = is_signed ? SpvOp::OpAtomicSMin : SpvOp::OpAtomicUMin; break;
    case A::Max: op = is_signed ? SpvOp::OpAtomicSMax : SpvOp::OpAtomicUMax; break;
    case A::Exchange: op = SpvOp::OpAtomicExchange; break;
    case A::CompareExchange: break;
  }
  functions_.Emit(op, ops);
}

}  // namespace slope::targets::spirv

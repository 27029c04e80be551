// Device pointers (`ptr<device, T>`, the language's `T*`) as SPIR-V PhysicalStorageBuffer
// pointers (SPV_KHR_physical_storage_buffer, PhysicalStorageBuffer64 addressing).

#include "compiler/targets/spirv/writer_internal.h"

namespace slope::targets::spirv {

uint32_t Writer::DevicePointerTypeId(const ir::Type* pointee) {
  auto key = std::make_pair(spv::StorageClass::PhysicalStorageBuffer, pointee);
  if (auto it = pointer_types_.find(key); it != pointer_types_.end()) return it->second;
  uses_device_pointers_ = true;
  // Declared ahead: a struct's laid-out form may hold this very pointer type.
  uint32_t id = NewId();
  pointer_types_[key] = id;
  const auto sc = static_cast<uint32_t>(spv::StorageClass::PhysicalStorageBuffer);
  if (pointee->IsStruct()) globals_.Emit(SpvOp::OpTypeForwardPointer, {id, sc});
  RequireStorageWidths(pointee);
  BufferLayout rules = RulesOf(spv::StorageClass::PhysicalStorageBuffer);
  uint32_t pointee_id = LayoutTypeId(pointee, rules);
  globals_.Emit(SpvOp::OpTypePointer, {id, sc, pointee_id});
  decorations_.Emit(SpvOp::OpDecorate,
                    {id, static_cast<uint32_t>(spv::Decoration::ArrayStride),
                     LayoutArrayStride(pointee, rules, options_.matrix_layout)});
  return id;
}

uint32_t Writer::DeviceAlign(const ir::Type* t) {
  return LayoutAlign(t, RulesOf(spv::StorageClass::PhysicalStorageBuffer), options_.matrix_layout);
}

void Writer::WritePtrOffset(const ir::Inst& inst) {
  functions_.Emit(SpvOp::OpPtrAccessChain, {TypeId(inst.GetType()), ValueId(&inst),
                                            ValueId(inst.operands[0]), ValueId(inst.operands[1])});
}

void Writer::WritePtrCast(const ir::Inst& inst) {
  const ir::Type* from = inst.operands[0]->GetType();
  const ir::Type* to = inst.GetType();
  uint32_t value = ValueId(inst.operands[0]);
  const ir::Type* u64 = module_.Types().Int(64, false);
  if (from->IsPointer() && to->IsPointer()) {
    functions_.Emit(SpvOp::OpBitcast, {TypeId(to), ValueId(&inst), value});
  } else if (from->IsPointer()) {
    // OpConvertPtrToU yields an unsigned integer; a signed one is its bits.
    uint32_t bits = to == u64 ? ValueId(&inst) : NewId();
    functions_.Emit(SpvOp::OpConvertPtrToU, {TypeId(u64), bits, value});
    if (to != u64) functions_.Emit(SpvOp::OpBitcast, {TypeId(to), ValueId(&inst), bits});
  } else {
    if (from != u64) {
      uint32_t bits = NewId();
      functions_.Emit(SpvOp::OpBitcast, {TypeId(u64), bits, value});
      value = bits;
    }
    functions_.Emit(SpvOp::OpConvertUToPtr, {TypeId(to), ValueId(&inst), value});
  }
}

void Writer::DecorateDevicePointerHolder(uint32_t id, const ir::Type* held, bool param) {
  while (held->IsArray()) held = held->Element();
  if (!held->IsDevicePointer()) return;
  spv::Decoration decoration =
      param ? spv::Decoration::Aliased : spv::Decoration::AliasedPointer;
  decorations_.Emit(SpvOp::OpDecorate, {id, static_cast<uint32_t>(decoration)});
}

}  // namespace slope::targets::spirv

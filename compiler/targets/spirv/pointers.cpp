// Device pointers (`ptr<device, T>`, the language's `T*`) as SPIR-V PhysicalStorageBuffer
// pointers (SPV_KHR_physical_storage_buffer, PhysicalStorageBuffer64 addressing), and
// the loads and stores of laid-out memory (buffers and device pointers) they share with
// buffers: a struct or array is moved member by member, since its laid-out type differs
// from the plain one.

#include "compiler/targets/spirv/writer_internal.h"

namespace slope::targets::spirv {

uint32_t Writer::StorageBufferPointerTypeId(const ir::Type* buffer) {
  // Buffers of one element type share their types: a runtime array per buffer would
  // give the validator's name mapper thousands of arrays of one name to tell apart,
  // each by a search that grows with their number.
  const ir::Type* element = buffer->Element();
  RequireStorageWidths(element);
  uint32_t element_id = LayoutTypeId(element, options_.layout);
  auto key = std::make_pair(element_id, buffer->IsWritable());
  if (auto it = buffer_pointer_types_.find(key); it != buffer_pointer_types_.end()) {
    return it->second;
  }
  uint32_t array = NewId();
  globals_.Emit(SpvOp::OpTypeRuntimeArray, {array, element_id});
  decorations_.Emit(SpvOp::OpDecorate, {array, static_cast<uint32_t>(spv::Decoration::ArrayStride),
                                        LayoutArrayStride(element, options_.layout,
                                                          options_.matrix_layout)});
  uint32_t block = NewId();
  globals_.Emit(SpvOp::OpTypeStruct, {block, array});
  decorations_.Emit(SpvOp::OpDecorate, {block, static_cast<uint32_t>(spv::Decoration::Block)});
  decorations_.Emit(SpvOp::OpMemberDecorate,
                    {block, 0, static_cast<uint32_t>(spv::Decoration::Offset), 0});
  DecorateMatrixMember(block, 0, element, options_.matrix_layout, options_.layout);
  if (!buffer->IsWritable()) {
    decorations_.Emit(SpvOp::OpMemberDecorate,
                      {block, 0, static_cast<uint32_t>(spv::Decoration::NonWritable)});
  }
  uint32_t ptr = NewId();
  globals_.Emit(SpvOp::OpTypePointer,
                {ptr, static_cast<uint32_t>(spv::StorageClass::StorageBuffer), block});
  buffer_pointer_types_[key] = ptr;
  return ptr;
}

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

std::vector<uint32_t> Writer::MemoryOperands(spv::StorageClass sc, const ir::Type* t) {
  // PhysicalStorageBuffer accesses must say the alignment they may assume.
  if (sc != spv::StorageClass::PhysicalStorageBuffer) return {};
  return {static_cast<uint32_t>(spv::MemoryAccessMask::Aligned), DeviceAlign(t)};
}

uint32_t Writer::LoadLaidOut(uint32_t ptr, const ir::Type* t, spv::StorageClass sc,
                             uint32_t result) {
  if (!t->IsStruct() && !t->IsArray()) {
    std::vector<uint32_t> ops{TypeId(t), result != 0 ? result : NewId(), ptr};
    for (uint32_t word : MemoryOperands(sc, t)) ops.push_back(word);
    functions_.Emit(SpvOp::OpLoad, ops);
    return ops[1];
  }
  std::vector<uint32_t> ops{TypeId(t), 0};
  auto count = static_cast<uint32_t>(t->IsArray() ? t->Count() : t->Members().size());
  for (uint32_t i = 0; i < count; ++i) {
    const ir::Type* m = t->IsArray() ? t->Element() : t->Members()[i];
    uint32_t member_ptr = NewId();
    functions_.Emit(SpvOp::OpAccessChain,
                    {PointerTypeId(sc, m), member_ptr, ptr, IndexConst(i)});
    ops.push_back(LoadLaidOut(member_ptr, m, sc, 0));
  }
  ops[1] = result != 0 ? result : NewId();
  functions_.Emit(SpvOp::OpCompositeConstruct, ops);
  return ops[1];
}

void Writer::StoreLaidOut(uint32_t ptr, const ir::Type* t, uint32_t value, spv::StorageClass sc) {
  if (!t->IsStruct() && !t->IsArray()) {
    std::vector<uint32_t> ops{ptr, value};
    for (uint32_t word : MemoryOperands(sc, t)) ops.push_back(word);
    functions_.Emit(SpvOp::OpStore, ops);
    return;
  }
  auto count = static_cast<uint32_t>(t->IsArray() ? t->Count() : t->Members().size());
  for (uint32_t i = 0; i < count; ++i) {
    const ir::Type* m = t->IsArray() ? t->Element() : t->Members()[i];
    uint32_t part = NewId();
    functions_.Emit(SpvOp::OpCompositeExtract, {TypeId(m), part, value, i});
    uint32_t member_ptr = NewId();
    functions_.Emit(SpvOp::OpAccessChain,
                    {PointerTypeId(sc, m), member_ptr, ptr, IndexConst(i)});
    StoreLaidOut(member_ptr, m, part, sc);
  }
}

}  // namespace slope::targets::spirv

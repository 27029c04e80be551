// Textures and samplers on the host: each `texture` instruction fills a
// SlopeCpuTexelQuery on the stack and calls the runtime's slope_cpu_texture with the
// binding's SlopeCpuTexture and SlopeCpuSampler (cpu_abi.h), which reads, writes,
// filters or measures the texture as Vulkan does.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <algorithm>

#include "compiler/targets/llvm/cpu_abi.h"
#include "compiler/targets/llvm/writer_internal.h"

namespace slope::targets::llvm {
namespace {

/// Fields of SlopeCpuTexelQuery, in order.
enum QueryField : unsigned {
  kCoord,
  kTexel,
  kOffset,
  kLod,
  kLevel,
  kDdx,
  kDdy,
  kReference,
  kComponent,
  kValue
};

/// How a query field takes an operand's components: converted to float or int, or as bits.
enum class As { Float, Int, Bits };

}  // namespace

L::Value* FunctionWriter::Texture(const ir::Inst& inst) {
  using T = ir::TextureOp;
  auto op = static_cast<T>(inst.imms[0]);
  const ir::Type* tex = inst.operands[0]->GetType();
  if (mw_.Gpu()) {
    mw_.Error(inst.loc, "textures are not supported on the ptx target yet");
    return nullptr;
  }
  if (!tex->IsTexture()) {
    mw_.Error(inst.loc, "internal error: a texture operation on a value that is not a texture");
    return nullptr;
  }
  const ir::Type* texel = tex->Element()->Scalar();
  if (texel->Width() != 32 || !(texel->IsFloat() || texel->IsInt())) {
    mw_.Error(inst.loc, "the cpu target reads and writes textures of 32-bit texels only");
    return nullptr;
  }
  L::Type* i32 = b_.getInt32Ty();
  L::Type* f32 = b_.getFloatTy();
  L::Type* ptr = L::PointerType::get(ctx_, 0);
  L::StructType* query_type =
      L::StructType::get(ctx_, {L::ArrayType::get(f32, 4), L::ArrayType::get(i32, 4),
                                L::ArrayType::get(i32, 3), f32, i32, L::ArrayType::get(f32, 3),
                                L::ArrayType::get(f32, 3), f32, i32, L::ArrayType::get(i32, 4)});
  L::AllocaInst* query = EntryAlloca(query_type);
  L::ArrayType* out_type = L::ArrayType::get(i32, 4);
  L::AllocaInst* out = EntryAlloca(out_type);
  b_.CreateStore(L::Constant::getNullValue(query_type), query);

  // Component i of operand `v` as a float, an i32, or its 32 bits.
  auto component = [&](const ir::Value* v, L::Value* value, uint32_t i, As as) -> L::Value* {
    const ir::Type* t = v->GetType();
    const ir::Type* s = t->Scalar();
    L::Value* c = t->IsVector() ? b_.CreateExtractElement(value, i) : value;
    if (s->IsBool()) c = b_.CreateZExt(c, i32);
    switch (as) {
      case As::Float:
        if (s->IsFloat()) return s->Width() == 32 ? c : b_.CreateFPCast(c, f32);
        return s->IsSigned() ? b_.CreateSIToFP(c, f32) : b_.CreateUIToFP(c, f32);
      case As::Int:
        if (s->IsFloat())
          return b_.CreateIntrinsic(L::Intrinsic::fptosi_sat, {i32, c->getType()}, {c});
        return b_.CreateSExtOrTrunc(c, i32);
      case As::Bits:
        if (s->IsFloat())
          return b_.CreateBitCast(s->Width() == 32 ? c : b_.CreateFPCast(c, f32), i32);
        return b_.CreateSExtOrTrunc(c, i32);
    }
    return c;
  };
  // Operand `index` (when the instruction has it) into field `field`, component by component.
  auto put = [&](size_t index, unsigned field, As as, uint32_t limit) {
    if (index >= inst.operands.size()) return;
    const ir::Value* v = inst.operands[index];
    L::Value* value = Val(v);
    uint32_t n = std::min(v->GetType()->IsVector() ? v->GetType()->Count() : 1u, limit);
    L::Type* field_type = query_type->getElementType(field);
    L::Value* at = b_.CreateStructGEP(query_type, query, field);
    for (uint32_t i = 0; i < n; ++i) {
      L::Value* slot =
          field_type->isArrayTy() ? b_.CreateConstInBoundsGEP2_32(field_type, at, 0, i) : at;
      b_.CreateStore(component(v, value, i, as), slot);
    }
  };

  L::Value* sampler = L::ConstantPointerNull::get(L::PointerType::get(ctx_, 0));
  bool takes_sampler =
      op == T::SampleLevel || op == T::SampleGrad || op == T::Gather || op == T::SampleCmpLevelZero;
  if (takes_sampler && !tex->IsCombined()) sampler = Val(inst.operands[1]);
  switch (op) {
    case T::Fetch:
      put(1, kTexel, As::Int, 4);
      put(2, kLevel, As::Int, 1);
      put(3, kOffset, As::Int, 3);
      break;
    case T::Read:
      put(1, kTexel, As::Int, 4);
      break;
    case T::Write:
      put(1, kTexel, As::Int, 4);
      put(2, kValue, As::Bits, 4);
      break;
    case T::SampleLevel:
      put(2, kCoord, As::Float, 4);
      put(3, kLod, As::Float, 1);
      put(4, kOffset, As::Int, 3);
      break;
    case T::SampleGrad:
      put(2, kCoord, As::Float, 4);
      put(3, kDdx, As::Float, 3);
      put(4, kDdy, As::Float, 3);
      put(5, kOffset, As::Int, 3);
      break;
    case T::Gather:
      put(2, kCoord, As::Float, 4);
      put(3, kOffset, As::Int, 3);
      b_.CreateStore(b_.getInt32(inst.imms.size() > 1 ? inst.imms[1] : 0),
                     b_.CreateStructGEP(query_type, query, kComponent));
      break;
    case T::SampleCmpLevelZero:
      put(2, kCoord, As::Float, 4);
      put(3, kReference, As::Float, 1);
      put(4, kOffset, As::Int, 3);
      break;
    case T::Size:
      put(1, kLevel, As::Int, 1);
      break;
    case T::Levels:
      break;
    case T::Atomic:
      // An RWBuffer element: the values in value[0] (and value[1]), the ir::AtomicOp in
      // `component`; the runtime does it atomically and returns the texel before.
      put(1, kTexel, As::Int, 4);
      for (size_t i = 2; i < inst.operands.size(); ++i) {
        L::Value* field = b_.CreateStructGEP(query_type, query, kValue);
        b_.CreateStore(component(inst.operands[i], Val(inst.operands[i]), 0, As::Bits),
                       b_.CreateConstInBoundsGEP2_32(query_type->getElementType(kValue), field, 0,
                                                     static_cast<unsigned>(i - 2)));
      }
      b_.CreateStore(b_.getInt32(inst.imms[1]), b_.CreateStructGEP(query_type, query, kComponent));
      break;
  }
  auto* fn_type = L::FunctionType::get(b_.getVoidTy(), {ptr, ptr, i32, ptr, ptr}, false);
  b_.CreateCall(
      mw_.Callback("slope_cpu_texture", fn_type),
      {Val(inst.operands[0]), sampler, b_.getInt32(static_cast<uint32_t>(op)), query, out});
  const ir::Type* t = inst.GetType();
  if (op == T::Write || t->IsVoid()) return b_.getInt32(0);
  // The result's components from the four written.
  const ir::Type* s = t->Scalar();
  uint32_t n = t->IsVector() ? t->Count() : 1;
  L::Value* result = L::PoisonValue::get(mw_.RegType(t));
  for (uint32_t i = 0; i < n; ++i) {
    L::Value* bits = b_.CreateLoad(i32, b_.CreateConstInBoundsGEP2_32(out_type, out, 0, i));
    L::Value* c = s->IsFloat() ? b_.CreateBitCast(bits, mw_.RegType(s))
                               : b_.CreateSExtOrTrunc(bits, mw_.RegType(s));
    result = t->IsVector() ? b_.CreateInsertElement(result, c, i) : c;
  }
  return result;
}

}  // namespace slope::targets::llvm

// Memory shared between invocations and the invocations of a wave: atomics (LLVM's
// atomic instructions), barriers and wave operations (calls into the CPU runtime's
// scheduler on the host; NVVM's intrinsics on NVPTX), and printf.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "compiler/base/printf_format.h"
#include "compiler/targets/llvm/cpu_abi.h"
#include "compiler/targets/llvm/writer_internal.h"

namespace slope::targets::llvm {

using A = ir::AtomicOp;
using W = ir::WaveOp;

L::Value* FunctionWriter::Atomic(const ir::Inst& inst) {
  const ir::Type* t = inst.GetType();
  L::Value* ptr = Val(inst.operands[0]);
  L::Value* v = Val(inst.operands[1]);
  auto order = L::AtomicOrdering::SequentiallyConsistent;
  auto op = static_cast<A>(inst.imms[0]);
  if (op == A::CompareExchange) {
    L::Value* desired = Val(inst.operands[2]);
    L::Value* pair = b_.CreateAtomicCmpXchg(ptr, v, desired, L::MaybeAlign(), order, order);
    return b_.CreateExtractValue(pair, {0});
  }
  bool is_float = t->IsFloat();
  bool is_signed = t->IsInt() && t->IsSigned();
  L::AtomicRMWInst::BinOp bin = L::AtomicRMWInst::Add;
  switch (op) {
    case A::Add: bin = is_float ? L::AtomicRMWInst::FAdd : L::AtomicRMWInst::Add; break;
    case A::And: bin = L::AtomicRMWInst::And; break;
    case A::Or: bin = L::AtomicRMWInst::Or; break;
    case A::Xor: bin = L::AtomicRMWInst::Xor; break;
    case A::Min: bin = is_signed ? L::AtomicRMWInst::Min : L::AtomicRMWInst::UMin; break;
    case A::Max: bin = is_signed ? L::AtomicRMWInst::Max : L::AtomicRMWInst::UMax; break;
    case A::Exchange: bin = L::AtomicRMWInst::Xchg; break;
    case A::CompareExchange: break;
  }
  return b_.CreateAtomicRMW(bin, ptr, v, L::MaybeAlign(), order);
}

void FunctionWriter::Barrier(const ir::Inst& inst) {
  const ir::BarrierInfo& info = ir::GetBarrierInfo(static_cast<ir::BarrierKind>(inst.imms[0]));
  if (mw_.Gpu()) {
    // As the CUDA C++ target: __threadfence_block / __threadfence, __syncthreads.
    b_.CreateIntrinsic(info.memory == ir::BarrierMemory::Group ? L::Intrinsic::nvvm_membar_cta
                                                                : L::Intrinsic::nvvm_membar_gl,
                       {}, {});
    if (info.sync) b_.CreateIntrinsic(L::Intrinsic::nvvm_barrier0, {}, {});
    return;
  }
  b_.CreateFence(L::AtomicOrdering::SequentiallyConsistent);
  if (!info.sync) return;
  L::Type* ptr = L::PointerType::get(ctx_, 0);
  b_.CreateCall(mw_.Callback("slope_cpu_barrier", L::FunctionType::get(b_.getVoidTy(), {ptr}, false)), {Inv()});
  b_.CreateFence(L::AtomicOrdering::SequentiallyConsistent);
}

L::Value* FunctionWriter::TypeCode(const ir::Type* t) {
  const ir::Type* s = t->Scalar();
  uint32_t kind = s->IsBool() ? kSlopeCpuBool
                  : s->IsFloat() ? kSlopeCpuFloat
                  : s->IsSigned() ? kSlopeCpuSInt
                                  : kSlopeCpuUInt;
  uint32_t bytes = s->IsBool() ? 4 : s->Width() / 8;
  uint32_t count = t->IsVector() ? t->Count() : 1;
  return b_.getInt32(kind | bytes << 4 | count << 8);
}

L::Value* FunctionWriter::Wave(const ir::Inst& inst) {
  auto op = static_cast<W>(inst.imms[0]);
  if (op == W::LaneIndex) {
    return b_.CreateLoad(b_.getInt32Ty(), b_.CreateStructGEP(mw_.InvocationType(), Inv(), kInvLane));
  }
  if (op == W::LaneCount) {
    if (mw_.Gpu()) return b_.getInt32(32);
    return b_.CreateLoad(b_.getInt32Ty(),
                         b_.CreateStructGEP(mw_.InvocationType(), Inv(), kInvLaneCount));
  }
  if (mw_.Gpu()) return GpuWave(inst);
  // The scheduler runs the lanes of the wave that reached this site together, reads each
  // one's operand and writes each one's result (runtime/cpu/scheduler.h).
  const ir::Type* t = inst.GetType();
  L::Type* ptr = L::PointerType::get(ctx_, 0);
  L::Value* in = L::ConstantPointerNull::get(L::PointerType::get(ctx_, 0));
  L::Value* type = b_.getInt32(0);
  if (!inst.operands.empty()) {
    const ir::Type* operand = inst.operands[0]->GetType();
    L::AllocaInst* slot = EntryAlloca(mw_.MemType(operand));
    Store(slot, Val(inst.operands[0]), operand);
    in = slot;
    type = TypeCode(operand);
  }
  L::Value* lane = inst.operands.size() > 1 ? Val(inst.operands[1]) : b_.getInt32(0);
  L::AllocaInst* out = EntryAlloca(mw_.MemType(t));
  auto* fn_type = L::FunctionType::get(
      b_.getVoidTy(), {ptr, b_.getInt32Ty(), b_.getInt32Ty(), b_.getInt32Ty(), ptr, ptr, b_.getInt32Ty()}, false);
  b_.CreateCall(mw_.Callback("slope_cpu_wave", fn_type),
                {Inv(), b_.getInt32(mw_.NextWaveSite()), b_.getInt32(inst.imms[0]), type, in, out, lane});
  return Load(out, t);
}

L::Value* FunctionWriter::ReduxSync(W op, const ir::Type* operand, L::Value* mask, L::Value* x) {
  // Integer sums, minima, maxima and bitwise folds give the same result in any order, so
  // the hardware's warp reduction is exact; floats keep the lane-order fold below.
  const std::string& arch = mw_.Options().gpu_arch;
  int sm = arch.rfind("sm_", 0) == 0 ? std::atoi(arch.c_str() + 3) : 0;
  if (sm < 80 || operand->IsVector() || !operand->IsInt() || operand->Width() != 32) return nullptr;
  bool is_signed = operand->IsSigned();
  L::Intrinsic::ID id;
  switch (op) {
    case W::Sum:
      id = L::Intrinsic::nvvm_redux_sync_add;
      break;
    case W::Min:
      id = is_signed ? L::Intrinsic::nvvm_redux_sync_min : L::Intrinsic::nvvm_redux_sync_umin;
      break;
    case W::Max:
      id = is_signed ? L::Intrinsic::nvvm_redux_sync_max : L::Intrinsic::nvvm_redux_sync_umax;
      break;
    case W::BitAnd:
      id = L::Intrinsic::nvvm_redux_sync_and;
      break;
    case W::BitOr:
      id = L::Intrinsic::nvvm_redux_sync_or;
      break;
    case W::BitXor:
      id = L::Intrinsic::nvvm_redux_sync_xor;
      break;
    default:
      return nullptr;
  }
  return b_.CreateIntrinsic(id, {}, {x, mask});
}

L::Value* FunctionWriter::GpuWave(const ir::Inst& inst) {
  // A wave is a warp. Every operation folds the active lanes' values in lane order with
  // shuffles, as the CUDA C++ target's prelude does, so results are exact.
  auto op = static_cast<W>(inst.imms[0]);
  const ir::Type* t = inst.GetType();
  L::Type* i32 = b_.getInt32Ty();
  L::Value* mask = b_.CreateIntrinsic(L::Intrinsic::nvvm_activemask, {}, {});
  L::Value* lane = b_.CreateLoad(i32, b_.CreateStructGEP(mw_.InvocationType(), Inv(), kInvLane));
  L::Value* first = b_.CreateBinaryIntrinsic(L::Intrinsic::cttz, mask, b_.getTrue());
  if (op == W::IsFirstLane) return b_.CreateICmpEQ(lane, first);
  if (op == W::Ballot || op == W::CountBits || op == W::PrefixCountBits || op == W::AllTrue ||
      op == W::AnyTrue) {
    L::Value* pred = Val(inst.operands[0]);
    L::Value* bits = b_.CreateIntrinsic(L::Intrinsic::nvvm_vote_ballot_sync, {}, {mask, pred});
    switch (op) {
      case W::Ballot: {
        L::Value* v = L::Constant::getNullValue(mw_.RegType(t));
        return b_.CreateInsertElement(v, bits, uint64_t{0});
      }
      case W::CountBits: return b_.CreateUnaryIntrinsic(L::Intrinsic::ctpop, bits);
      case W::PrefixCountBits: {
        L::Value* below = b_.CreateSub(b_.CreateShl(b_.getInt32(1), lane), b_.getInt32(1));
        return b_.CreateUnaryIntrinsic(L::Intrinsic::ctpop, b_.CreateAnd(bits, below));
      }
      case W::AllTrue: return b_.CreateICmpEQ(bits, mask);
      default: return b_.CreateICmpNE(bits, b_.getInt32(0));
    }
  }
  const ir::Type* operand = inst.operands[0]->GetType();
  const ir::Type* s = operand->Scalar();
  L::Value* x = Val(inst.operands[0]);
  // Lane `src`'s value of the scalar `v` (of IR scalar type `st`).
  auto shuffle = [&](L::Value* v, const ir::Type* st, L::Value* src) -> L::Value* {
    auto one = [&](L::Value* w32) {
      return b_.CreateIntrinsic(L::Intrinsic::nvvm_shfl_sync_idx_i32, {}, {mask, w32, src, b_.getInt32(31)});
    };
    L::Type* vt = v->getType();
    if (st->IsBool()) return b_.CreateICmpNE(one(b_.CreateZExt(v, i32)), b_.getInt32(0));
    uint32_t width = st->Width();
    L::Value* bits = b_.CreateBitCast(v, b_.getIntNTy(width));
    if (width == 64) {
      L::Value* lo = one(b_.CreateTrunc(bits, i32));
      L::Value* hi = one(b_.CreateTrunc(b_.CreateLShr(bits, 32), i32));
      L::Value* r = b_.CreateOr(b_.CreateZExt(lo, b_.getInt64Ty()), b_.CreateShl(b_.CreateZExt(hi, b_.getInt64Ty()), 32));
      return b_.CreateBitCast(r, vt);
    }
    L::Value* r = one(width == 32 ? bits : b_.CreateZExt(bits, i32));
    if (width < 32) r = b_.CreateTrunc(r, b_.getIntNTy(width));
    return b_.CreateBitCast(r, vt);
  };
  auto shuffle_value = [&](L::Value* v, L::Value* src) -> L::Value* {
    if (!operand->IsVector()) return shuffle(v, s, src);
    L::Value* out = L::PoisonValue::get(v->getType());
    for (uint32_t i = 0; i < operand->Count(); ++i) {
      out = b_.CreateInsertElement(out, shuffle(b_.CreateExtractElement(v, i), s, src), i);
    }
    return out;
  };
  if (op == W::ReadLaneFirst) return shuffle_value(x, first);
  if (op == W::ReadLaneAt) return shuffle_value(x, Val(inst.operands[1]));
  bool is_float = s->IsFloat();
  bool is_signed = s->IsInt() && s->IsSigned();
  auto combine = [&](L::Value* a, L::Value* b) -> L::Value* {
    switch (op) {
      case W::Sum:
      case W::PrefixSum: return is_float ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b);
      case W::Product:
      case W::PrefixProduct: return is_float ? b_.CreateFMul(a, b) : b_.CreateMul(a, b);
      case W::Min:
        return is_float ? b_.CreateBinaryIntrinsic(L::Intrinsic::minnum, a, b)
                        : b_.CreateBinaryIntrinsic(is_signed ? L::Intrinsic::smin : L::Intrinsic::umin, a, b);
      case W::Max:
        return is_float ? b_.CreateBinaryIntrinsic(L::Intrinsic::maxnum, a, b)
                        : b_.CreateBinaryIntrinsic(is_signed ? L::Intrinsic::smax : L::Intrinsic::umax, a, b);
      case W::BitAnd: return b_.CreateAnd(a, b);
      case W::BitOr: return b_.CreateOr(a, b);
      case W::BitXor: return b_.CreateXor(a, b);
      default: return b_.CreateICmpEQ(a, b);
    }
  };
  bool prefix = op == W::PrefixSum || op == W::PrefixProduct;
  if (op == W::AllEqual) {
    L::Value* f = shuffle_value(x, first);
    L::Value* same = is_float ? b_.CreateFCmpOEQ(x, f) : b_.CreateICmpEQ(x, f);
    if (operand->IsVector()) same = b_.CreateAndReduce(same);
    L::Value* bits = b_.CreateIntrinsic(L::Intrinsic::nvvm_vote_ballot_sync, {}, {mask, same});
    return b_.CreateICmpEQ(bits, mask);
  }
  if (L::Value* r = ReduxSync(op, operand, mask, x)) return r;
  // acc = fold over active lanes i (below this lane's for a prefix operation).
  L::Value* acc = nullptr;
  // Min, max, and, or start from the first active lane's value, which folding in again
  // does not change; sum, product and xor start from their identity.
  L::Value* identity = op == W::Sum || op == W::PrefixSum || op == W::BitXor ? Splat(operand, 0)
                       : op == W::Product || op == W::PrefixProduct          ? Splat(operand, 1)
                                                                             : nullptr;
  acc = identity != nullptr ? identity : shuffle_value(x, first);
  // A loop over the 32 lanes, kept a loop (unrolled, a function with many wave operations
  // grows past what ptxas's register allocator takes at -O2 and above). Every active lane
  // runs each iteration, so each shuffle has the whole active mask converged.
  L::Function* fn = b_.GetInsertBlock()->getParent();
  L::BasicBlock* before = b_.GetInsertBlock();
  L::BasicBlock* body = L::BasicBlock::Create(ctx_, "wave.fold", fn);
  L::BasicBlock* done = L::BasicBlock::Create(ctx_, "wave.done", fn);
  b_.CreateBr(body);
  b_.SetInsertPoint(body);
  L::PHINode* i = b_.CreatePHI(i32, 2);
  L::PHINode* so_far = b_.CreatePHI(acc->getType(), 2);
  i->addIncoming(b_.getInt32(0), before);
  so_far->addIncoming(acc, before);
  L::Value* bit = b_.CreateAnd(b_.CreateLShr(mask, i), b_.getInt32(1));
  L::Value* active = b_.CreateICmpNE(bit, b_.getInt32(0));
  if (prefix) active = b_.CreateAnd(active, b_.CreateICmpULT(i, lane));
  L::Value* v = shuffle_value(x, i);
  L::Value* next = b_.CreateSelect(active, combine(so_far, v), so_far);
  L::Value* i_next = b_.CreateAdd(i, b_.getInt32(1));
  L::BranchInst* back = b_.CreateCondBr(b_.CreateICmpULT(i_next, b_.getInt32(32)), body, done);
  L::MDNode* no_unroll =
      L::MDNode::get(ctx_, {L::MDString::get(ctx_, "llvm.loop.unroll.disable")});
  L::MDNode* loop = L::MDNode::getDistinct(ctx_, {nullptr, no_unroll});
  loop->replaceOperandWith(0, loop);
  back->setMetadata(L::LLVMContext::MD_loop, loop);
  i->addIncoming(i_next, body);
  so_far->addIncoming(next, body);
  b_.SetInsertPoint(done);
  (void)t;
  return next;
}

void FunctionWriter::Printf(const ir::Inst& inst) {
  std::string format;
  if (!ir::UnpackString(inst.imms, &format)) {
    mw_.Error(inst.loc, "internal error: printf without a format");
    return;
  }
  L::Type* ptr = L::PointerType::get(ctx_, 0);
  if (mw_.Gpu()) {
    // CUDA's device printf: vprintf(format, the arguments packed as C's varargs).
    std::vector<L::Type*> fields;
    std::vector<L::Value*> values;
    for (const ir::Value* operand : inst.operands) {
      const ir::Type* t = operand->GetType();
      L::Value* v = Val(operand);
      uint32_t n = t->IsVector() ? t->Count() : 1;
      for (uint32_t i = 0; i < n; ++i) {
        L::Value* c = t->IsVector() ? b_.CreateExtractElement(v, i) : v;
        const ir::Type* s = t->Scalar();
        if (s->IsFloat()) {
          c = b_.CreateFPExt(c, b_.getDoubleTy());
        } else if (s->IsBool()) {
          c = b_.CreateZExt(c, b_.getInt32Ty());
        } else if (s->Width() < 32) {
          c = s->IsSigned() ? b_.CreateSExt(c, b_.getInt32Ty()) : b_.CreateZExt(c, b_.getInt32Ty());
        }
        fields.push_back(c->getType());
        values.push_back(c);
      }
    }
    L::Value* args = L::ConstantPointerNull::get(L::PointerType::get(ctx_, 0));
    if (!values.empty()) {
      L::StructType* pack = L::StructType::get(ctx_, fields);
      L::AllocaInst* slot = EntryAlloca(pack);
      for (size_t i = 0; i < values.size(); ++i) {
        b_.CreateStore(values[i], b_.CreateConstInBoundsGEP2_32(pack, slot, 0, i));
      }
      args = slot;
    }
    // CUDA prints the format as C's printf reads it: Vulkan's %vNf becomes N conversions
    // (the values above are already the components).
    L::Value* text = b_.CreateGlobalStringPtr(base::ExpandVectorConversions(format));
    b_.CreateCall(mw_.Callback("vprintf", L::FunctionType::get(b_.getInt32Ty(), {ptr, ptr}, false)), {text, args});
    return;
  }
  size_t n = inst.operands.size();
  L::ArrayType* ptrs = L::ArrayType::get(ptr, n == 0 ? 1 : n);
  L::ArrayType* codes = L::ArrayType::get(b_.getInt32Ty(), n == 0 ? 1 : n);
  L::AllocaInst* values = EntryAlloca(ptrs);
  L::AllocaInst* types = EntryAlloca(codes);
  for (size_t i = 0; i < n; ++i) {
    const ir::Type* t = inst.operands[i]->GetType();
    L::AllocaInst* slot = EntryAlloca(mw_.MemType(t));
    Store(slot, Val(inst.operands[i]), t);
    b_.CreateStore(slot, b_.CreateConstInBoundsGEP2_32(ptrs, values, 0, i));
    b_.CreateStore(TypeCode(t), b_.CreateConstInBoundsGEP2_32(codes, types, 0, i));
  }
  L::Value* text = b_.CreateGlobalStringPtr(format);
  auto* fn_type = L::FunctionType::get(b_.getVoidTy(), {ptr, ptr, b_.getInt32Ty(), ptr, ptr}, false);
  b_.CreateCall(mw_.Callback("slope_cpu_printf", fn_type),
                {Inv(), text, b_.getInt32(static_cast<uint32_t>(n)), types, values});
}

}  // namespace slope::targets::llvm

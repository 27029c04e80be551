// The IR's instructions as LLVM instructions: arithmetic (integer division made total),
// conversions (float to integer saturating), composites, memory.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include "compiler/targets/llvm/writer_internal.h"

namespace slope::targets::llvm {

using ir::Op;

L::Value* FunctionWriter::Splat(const ir::Type* t, double v) {
  const ir::Type* s = t->Scalar();
  L::Type* st = mw_.RegType(s);
  L::Constant* c = s->IsFloat() ? L::ConstantFP::get(st, v)
                                : L::ConstantInt::get(st, static_cast<uint64_t>(static_cast<int64_t>(v)), true);
  if (t->IsScalar()) return c;
  if (t->IsVector()) return L::ConstantVector::getSplat(L::ElementCount::getFixed(t->Count()), c);
  return L::PoisonValue::get(mw_.RegType(t));
}

namespace {

/// Memory whose layout the reflection reports (and the host or another kernel reads).
bool BufferVisible(ir::AddressSpace space) {
  return space == ir::AddressSpace::StorageBuffer || space == ir::AddressSpace::Uniform ||
         space == ir::AddressSpace::PushConstant || space == ir::AddressSpace::Device;
}

}  // namespace

L::Value* FunctionWriter::ToMem(L::Value* v, const ir::Type* t) {
  if (t->IsBool()) return b_.CreateZExt(v, b_.getInt32Ty());
  if (t->IsVector()) {
    L::Value* out = L::PoisonValue::get(mw_.MemType(t));
    for (uint32_t i = 0; i < t->Count(); ++i) {
      out = b_.CreateInsertValue(out, ToMem(b_.CreateExtractElement(v, i), t->Element()), {i});
    }
    return out;
  }
  if (t->IsMatrix()) {
    L::Value* out = L::PoisonValue::get(mw_.MemType(t));
    for (uint32_t r = 0; r < t->Count(); ++r) {
      out = b_.CreateInsertValue(out, ToMem(b_.CreateExtractValue(v, {r}), t->Element()), {r});
    }
    return out;
  }
  return v;
}

L::Value* FunctionWriter::ToReg(L::Value* v, const ir::Type* t) {
  if (t->IsBool()) return b_.CreateICmpNE(v, b_.getInt32(0));
  if (t->IsVector()) {
    L::Value* out = L::PoisonValue::get(mw_.RegType(t));
    for (uint32_t i = 0; i < t->Count(); ++i) {
      out = b_.CreateInsertElement(out, ToReg(b_.CreateExtractValue(v, {i}), t->Element()), i);
    }
    return out;
  }
  if (t->IsMatrix()) {
    L::Value* out = L::PoisonValue::get(mw_.RegType(t));
    for (uint32_t r = 0; r < t->Count(); ++r) {
      out = b_.CreateInsertValue(out, ToReg(b_.CreateExtractValue(v, {r}), t->Element()), {r});
    }
    return out;
  }
  return v;
}

L::Value* FunctionWriter::Load(L::Value* ptr, const ir::Type* t) {
  if (t->IsVector()) {
    // A vector in memory is an array of its scalars: loaded as a vector aligned to one.
    const ir::Type* s = t->Element();
    L::Type* ms = mw_.MemType(s);
    L::LoadInst* v = b_.CreateAlignedLoad(L::FixedVectorType::get(ms, t->Count()), ptr, mw_.AlignOf(s));
    if (invariant_loads_) v->setMetadata(L::LLVMContext::MD_invariant_load, L::MDNode::get(ctx_, {}));
    return s->IsBool() ? b_.CreateICmpNE(v, L::Constant::getNullValue(v->getType())) : v;
  }
  if (t->IsMatrix()) {
    L::Value* out = L::PoisonValue::get(mw_.RegType(t));
    for (uint32_t r = 0; r < t->Count(); ++r) {
      L::Value* row = b_.CreateConstInBoundsGEP2_32(mw_.MemType(t), ptr, 0, r);
      out = b_.CreateInsertValue(out, Load(row, t->Element()), {r});
    }
    return out;
  }
  L::LoadInst* v = b_.CreateAlignedLoad(mw_.MemType(t), ptr, mw_.AlignOf(t));
  if (invariant_loads_) v->setMetadata(L::LLVMContext::MD_invariant_load, L::MDNode::get(ctx_, {}));
  return ToReg(v, t);
}

void FunctionWriter::Store(L::Value* ptr, L::Value* v, const ir::Type* t) {
  if (t->IsVector()) {
    const ir::Type* s = t->Element();
    L::Type* ms = mw_.MemType(s);
    if (s->IsBool()) v = b_.CreateZExt(v, L::FixedVectorType::get(ms, t->Count()));
    b_.CreateAlignedStore(v, ptr, mw_.AlignOf(s));
    return;
  }
  if (t->IsMatrix()) {
    for (uint32_t r = 0; r < t->Count(); ++r) {
      L::Value* row = b_.CreateConstInBoundsGEP2_32(mw_.MemType(t), ptr, 0, r);
      Store(row, b_.CreateExtractValue(v, {r}), t->Element());
    }
    return;
  }
  b_.CreateAlignedStore(ToMem(v, t), ptr, mw_.AlignOf(t));
}

L::Value* FunctionWriter::Index64(const ir::Value* index) {
  L::Value* v = Val(index);
  const ir::Type* t = index->GetType();
  if (t->IsBool()) return b_.CreateZExt(v, b_.getInt64Ty());
  if (t->Width() == 64) return v;
  return t->IsSigned() ? b_.CreateSExt(v, b_.getInt64Ty()) : b_.CreateZExt(v, b_.getInt64Ty());
}

L::Value* FunctionWriter::ElementPtr(const ir::Inst& inst) {
  const ir::Type* base = inst.operands[0]->GetType();
  L::Value* index = Index64(inst.operands[1]);
  if (auto row = rows_.find(inst.operands[0]); row != rows_.end()) {
    // Element c of row r of a column-major matrix: scalar c * rows + r.
    const RowPtr& r = row->second;
    L::Value* flat = b_.CreateAdd(b_.CreateMul(index, b_.getInt64(r.type->Count())), r.row);
    return b_.CreateInBoundsGEP(mw_.MemType(r.type->Scalar()), r.matrix, {flat});
  }
  if (base->IsPointer() && base->Element()->IsMatrix() && BufferVisible(base->Space()) &&
      PointerLayout(inst.operands[0]) == ir::MatrixLayout::ColumnMajor) {
    rows_[&inst] = RowPtr{Val(inst.operands[0]), index, base->Element()};
    return nullptr;
  }
  if (base->IsBuffer()) {
    return b_.CreateInBoundsGEP(mw_.MemType(base->Element()), Val(inst.operands[0]), {index});
  }
  // A pointer to an array, a vector (one of its lanes) or a matrix (one of its rows).
  return b_.CreateInBoundsGEP(mw_.MemType(base->Element()), Val(inst.operands[0]),
                              {b_.getInt64(0), index});
}

// Column-major matrices in buffer memory. Values (registers, and structs and arrays in
// memory form, wherever they are) hold matrices row by row; a matrix that storage,
// uniform or push-constant memory lays out column by column is permuted as it is loaded
// or stored, and a pointer to one of its rows (not contiguous there) is the matrix's
// address and the row index, which loads, stores and element pointers use.

ir::MatrixLayout FunctionWriter::Resolve(ir::MatrixLayout layout) const {
  if (layout == ir::MatrixLayout::Default) layout = mw_.Options().matrices;
  return layout == ir::MatrixLayout::ColumnMajor ? layout : ir::MatrixLayout::RowMajor;
}

bool FunctionWriter::HoldsColumnMajor(const ir::Type* t, ir::MatrixLayout bare) const {
  if (t->IsMatrix()) return bare == ir::MatrixLayout::ColumnMajor;
  if (t->IsArray()) return HoldsColumnMajor(t->Element(), bare);
  if (!t->IsStruct()) return false;
  for (size_t i = 0; i < t->Members().size(); ++i) {
    if (HoldsColumnMajor(t->Members()[i], Resolve(t->MemberMatrixLayout(i)))) return true;
  }
  return false;
}

/// The layout of the matrices `ptr` points at (through arrays): a struct field's own, or
/// the compile's.
ir::MatrixLayout FunctionWriter::PointerLayout(const ir::Value* ptr) {
  if (ptr->VKind() == ir::ValueKind::Global) return Resolve(ir::MatrixLayout::Default);
  if (ptr->VKind() == ir::ValueKind::Inst) {
    const auto& inst = static_cast<const ir::Inst&>(*ptr);
    const ir::Type* base = inst.operands.empty() ? nullptr : inst.operands[0]->GetType();
    if (inst.GetOp() == Op::MemberPtr) {
      return Resolve(base->Element()->MemberMatrixLayout(inst.imms[0]));
    }
    if (inst.GetOp() == Op::ElementPtr && base->IsBuffer()) return Resolve(ir::MatrixLayout::Default);
    if (inst.GetOp() == Op::ElementPtr && base->IsPointer() && base->Element()->IsArray()) {
      return PointerLayout(inst.operands[0]);
    }
  }
  // A pointer from a parameter or a branch: its field is not known here.
  const ir::Type* pointee = ptr->GetType()->Element();
  bool any = mw_.Options().matrices == ir::MatrixLayout::ColumnMajor;
  for (const ir::Type* s : ir_.Types().Structs()) {
    for (size_t i = 0; i < s->Members().size() && !any; ++i) {
      any = s->MemberMatrixLayout(i) == ir::MatrixLayout::ColumnMajor;
    }
  }
  if (any && HoldsColumnMajor(pointee, ir::MatrixLayout::ColumnMajor)) {
    mw_.Error(loc_, "the LLVM targets cannot follow a pointer to matrices in buffer memory "
                    "through a function parameter or a branch when a column-major layout is in use");
  }
  return Resolve(ir::MatrixLayout::Default);
}

/// `v` (memory form) between the row-by-row order of values and the order buffer memory
/// holds it in: element (r, c) of a column-major matrix is its scalar c * rows + r.
L::Value* FunctionWriter::Permute(L::Value* v, const ir::Type* t, ir::MatrixLayout bare,
                                  bool to_buffer) {
  if (!HoldsColumnMajor(t, bare)) return v;
  L::Value* out = L::PoisonValue::get(v->getType());
  if (t->IsMatrix()) {
    uint32_t rows = t->Count(), cols = t->Cols();
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t c = 0; c < cols; ++c) {
        uint32_t flat = c * rows + r;
        std::vector<unsigned> value_at = {r, c}, buffer_at = {flat / cols, flat % cols};
        const auto& from = to_buffer ? value_at : buffer_at;
        const auto& into = to_buffer ? buffer_at : value_at;
        out = b_.CreateInsertValue(out, b_.CreateExtractValue(v, from), into);
      }
    }
    return out;
  }
  if (t->IsArray()) {
    constexpr uint32_t kMaxElements = 4096;
    if (t->Count() > kMaxElements) {
      mw_.Error(loc_, "the LLVM targets load or store an array of " + std::to_string(t->Count()) +
                          " elements holding column-major matrices whole only up to " +
                          std::to_string(kMaxElements) + " elements; access its elements instead");
      return v;
    }
    for (uint32_t i = 0; i < t->Count(); ++i) {
      out = b_.CreateInsertValue(out, Permute(b_.CreateExtractValue(v, {i}), t->Element(), bare, to_buffer), {i});
    }
    return out;
  }
  for (size_t i = 0; i < t->Members().size(); ++i) {
    auto k = static_cast<unsigned>(i);
    out = b_.CreateInsertValue(out, Permute(b_.CreateExtractValue(v, {k}), t->Members()[i],
                                            Resolve(t->MemberMatrixLayout(i)), to_buffer), {k});
  }
  return out;
}

bool FunctionWriter::ReadOnlyPointer(const ir::Value* ptr) {
  while (ptr->VKind() == ir::ValueKind::Inst) {
    const auto* inst = static_cast<const ir::Inst*>(ptr);
    if (inst->GetOp() != ir::Op::ElementPtr && inst->GetOp() != ir::Op::MemberPtr) return false;
    ptr = inst->operands.at(0);
  }
  if (ptr->VKind() != ir::ValueKind::Global) return false;
  const auto* global = static_cast<const ir::Global*>(ptr);
  const ir::Type* t = global->GetType();
  return (t->IsBuffer() && !t->IsWritable()) || global->IsUniform() || global->IsPushConstant();
}

L::Value* FunctionWriter::LoadThrough(const ir::Value* ptr, const ir::Type* t) {
  struct Invariant {
    bool& flag;
    bool saved;
    ~Invariant() { flag = saved; }
  } invariant{invariant_loads_, invariant_loads_};
  invariant_loads_ = ReadOnlyPointer(ptr);
  if (auto row = rows_.find(ptr); row != rows_.end()) {
    const RowPtr& r = row->second;
    L::Value* out = L::PoisonValue::get(mw_.RegType(t));
    for (uint32_t c = 0; c < t->Count(); ++c) {
      L::Value* flat = b_.CreateAdd(r.row, b_.getInt64(uint64_t{c} * r.type->Count()));
      L::Value* at = b_.CreateInBoundsGEP(mw_.MemType(t->Element()), r.matrix, {flat});
      out = b_.CreateInsertElement(out, Load(at, t->Element()), c);
    }
    return out;
  }
  L::Value* p = Val(ptr);
  const ir::Type* pt = ptr->GetType();
  if (!pt->IsPointer() || !BufferVisible(pt->Space())) return Load(p, t);
  ir::MatrixLayout bare = PointerLayout(ptr);
  if (!HoldsColumnMajor(t, bare)) return Load(p, t);
  L::Value* v = b_.CreateAlignedLoad(mw_.MemType(t), p, mw_.AlignOf(t));
  return ToReg(Permute(v, t, bare, /*to_buffer=*/false), t);
}

void FunctionWriter::StoreThrough(const ir::Value* ptr, L::Value* v, const ir::Type* t) {
  if (auto row = rows_.find(ptr); row != rows_.end()) {
    const RowPtr& r = row->second;
    for (uint32_t c = 0; c < t->Count(); ++c) {
      L::Value* flat = b_.CreateAdd(r.row, b_.getInt64(uint64_t{c} * r.type->Count()));
      L::Value* at = b_.CreateInBoundsGEP(mw_.MemType(t->Element()), r.matrix, {flat});
      Store(at, b_.CreateExtractElement(v, c), t->Element());
    }
    return;
  }
  L::Value* p = Val(ptr);
  const ir::Type* pt = ptr->GetType();
  ir::MatrixLayout bare = pt->IsPointer() && BufferVisible(pt->Space()) ? PointerLayout(ptr)
                                                                        : ir::MatrixLayout::RowMajor;
  if (!HoldsColumnMajor(t, bare)) {
    Store(p, v, t);
    return;
  }
  b_.CreateAlignedStore(Permute(ToMem(v, t), t, bare, /*to_buffer=*/true), p, mw_.AlignOf(t));
}

L::Value* FunctionWriter::IntDivRem(Op op, bool is_signed, L::Value* a, L::Value* d) {
  // Division by zero (and the signed overflow INT_MIN / -1) traps on some hosts; the
  // shader languages leave the result undefined, so the divisor is made 1 there (which
  // gives INT_MIN / -1 its wrapped value INT_MIN, and INT_MIN % -1 its value 0).
  L::Type* t = d->getType();
  L::Value* one = L::ConstantInt::get(t, 1);
  L::Value* zero = L::Constant::getNullValue(t);
  L::Value* bad = b_.CreateICmpEQ(d, zero);
  if (is_signed) {
    unsigned width = t->getScalarSizeInBits();
    L::Value* min = L::ConstantInt::get(t, L::APInt::getSignedMinValue(width));
    L::Value* minus_one = L::ConstantInt::get(t, -1, true);
    bad = b_.CreateOr(bad, b_.CreateAnd(b_.CreateICmpEQ(a, min), b_.CreateICmpEQ(d, minus_one)));
  }
  L::Value* safe = b_.CreateSelect(bad, one, d);
  if (op == Op::Div) return is_signed ? b_.CreateSDiv(a, safe) : b_.CreateUDiv(a, safe);
  return is_signed ? b_.CreateSRem(a, safe) : b_.CreateURem(a, safe);
}

L::Value* FunctionWriter::Convert(const ir::Type* to, const ir::Type* from, L::Value* v) {
  const ir::Type* ts = to->Scalar();
  const ir::Type* fs = from->Scalar();
  L::Type* lt = mw_.RegType(to);
  if (ts == fs) return v;
  if (ts->IsBool()) {
    if (fs->IsFloat()) return b_.CreateFCmpUNE(v, L::Constant::getNullValue(v->getType()));
    return b_.CreateICmpNE(v, L::Constant::getNullValue(v->getType()));
  }
  if (fs->IsBool()) return ts->IsFloat() ? b_.CreateUIToFP(v, lt) : b_.CreateZExt(v, lt);
  if (ts->IsInt() && fs->IsInt()) {
    if (ts->Width() < fs->Width()) return b_.CreateTrunc(v, lt);
    if (ts->Width() > fs->Width()) return fs->IsSigned() ? b_.CreateSExt(v, lt) : b_.CreateZExt(v, lt);
    return v;  // the same bits
  }
  if (ts->IsFloat() && fs->IsInt()) return fs->IsSigned() ? b_.CreateSIToFP(v, lt) : b_.CreateUIToFP(v, lt);
  if (ts->IsInt() && fs->IsFloat()) {
    // Saturating, NaN to 0: an out-of-range value is undefined in the shader languages,
    // and must not be LLVM's poison.
    auto id = ts->IsSigned() ? L::Intrinsic::fptosi_sat : L::Intrinsic::fptoui_sat;
    return b_.CreateIntrinsic(id, {lt, v->getType()}, {v});
  }
  if (ts->Width() < fs->Width()) return b_.CreateFPTrunc(v, lt);
  return b_.CreateFPExt(v, lt);
}

L::Value* FunctionWriter::ScalarOrVector(Op op, const ir::Type* result, const ir::Type* operand,
                                         const std::vector<L::Value*>& ops) {
  const ir::Type* s = operand->Scalar();
  bool is_float = s->IsFloat();
  bool is_signed = s->IsInt() && s->IsSigned();
  switch (op) {
    case Op::Add: return is_float ? b_.CreateFAdd(ops[0], ops[1]) : b_.CreateAdd(ops[0], ops[1]);
    case Op::Sub: return is_float ? b_.CreateFSub(ops[0], ops[1]) : b_.CreateSub(ops[0], ops[1]);
    case Op::Mul: return is_float ? b_.CreateFMul(ops[0], ops[1]) : b_.CreateMul(ops[0], ops[1]);
    case Op::Div:
      return is_float ? b_.CreateFDiv(ops[0], ops[1]) : IntDivRem(op, is_signed, ops[0], ops[1]);
    case Op::Rem:
      if (is_float) {
        // The sign of the dividend, as SPIR-V's OpFRem: x - y * trunc(x / y).
        L::Value* q = b_.CreateUnaryIntrinsic(L::Intrinsic::trunc, b_.CreateFDiv(ops[0], ops[1]));
        return b_.CreateFSub(ops[0], b_.CreateFMul(ops[1], q));
      }
      return IntDivRem(op, is_signed, ops[0], ops[1]);
    case Op::Neg: return is_float ? b_.CreateFNeg(ops[0]) : b_.CreateNeg(ops[0]);
    case Op::BitAnd:
    case Op::LogicalAnd: return b_.CreateAnd(ops[0], ops[1]);
    case Op::BitOr:
    case Op::LogicalOr: return b_.CreateOr(ops[0], ops[1]);
    case Op::BitXor: return b_.CreateXor(ops[0], ops[1]);
    case Op::BitNot:
    case Op::LogicalNot: return b_.CreateNot(ops[0]);
    case Op::Shl:
    case Op::Shr: {
      // The shift amount modulo the width, as HLSL defines it (never LLVM's poison).
      L::Value* amount = ops[1];
      if (amount->getType() != ops[0]->getType()) amount = b_.CreateZExtOrTrunc(amount, ops[0]->getType());
      unsigned width = ops[0]->getType()->getScalarSizeInBits();
      amount = b_.CreateAnd(amount, L::ConstantInt::get(ops[0]->getType(), width - 1));
      if (op == Op::Shl) return b_.CreateShl(ops[0], amount);
      return is_signed ? b_.CreateAShr(ops[0], amount) : b_.CreateLShr(ops[0], amount);
    }
    case Op::Eq:
      return is_float ? b_.CreateFCmpOEQ(ops[0], ops[1]) : b_.CreateICmpEQ(ops[0], ops[1]);
    case Op::Ne:
      return is_float ? b_.CreateFCmpUNE(ops[0], ops[1]) : b_.CreateICmpNE(ops[0], ops[1]);
    case Op::Lt:
      return is_float ? b_.CreateFCmpOLT(ops[0], ops[1])
                      : is_signed ? b_.CreateICmpSLT(ops[0], ops[1]) : b_.CreateICmpULT(ops[0], ops[1]);
    case Op::Le:
      return is_float ? b_.CreateFCmpOLE(ops[0], ops[1])
                      : is_signed ? b_.CreateICmpSLE(ops[0], ops[1]) : b_.CreateICmpULE(ops[0], ops[1]);
    case Op::Gt:
      return is_float ? b_.CreateFCmpOGT(ops[0], ops[1])
                      : is_signed ? b_.CreateICmpSGT(ops[0], ops[1]) : b_.CreateICmpUGT(ops[0], ops[1]);
    case Op::Ge:
      return is_float ? b_.CreateFCmpOGE(ops[0], ops[1])
                      : is_signed ? b_.CreateICmpSGE(ops[0], ops[1]) : b_.CreateICmpUGE(ops[0], ops[1]);
    case Op::Convert: return Convert(result, operand, ops[0]);
    default: break;
  }
  mw_.Error({}, "internal error: not a component-wise operation");
  return L::PoisonValue::get(mw_.RegType(result));
}

L::Value* FunctionWriter::Componentwise(const ir::Inst& inst, const ir::Type* t,
                                        const std::vector<L::Value*>& ops) {
  const ir::Type* operand = inst.operands[0]->GetType();
  if (!t->IsMatrix()) return ScalarOrVector(inst.GetOp(), t, operand, ops);
  L::Value* out = L::PoisonValue::get(mw_.RegType(t));
  for (uint32_t r = 0; r < t->Count(); ++r) {
    std::vector<L::Value*> row;
    for (size_t i = 0; i < ops.size(); ++i) {
      row.push_back(inst.operands[i]->GetType()->IsMatrix() ? b_.CreateExtractValue(ops[i], {r}) : ops[i]);
    }
    out = b_.CreateInsertValue(out, ScalarOrVector(inst.GetOp(), t->Element(), operand->Element(), row), {r});
  }
  return out;
}

void FunctionWriter::EmitInst(const ir::Inst& inst) {
  const ir::Type* t = inst.GetType();
  loc_ = inst.loc;
  auto op = [&](size_t i) { return Val(inst.operands[i]); };
  L::Value* result = nullptr;
  switch (inst.GetOp()) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::Rem:
    case Op::Neg:
    case Op::BitAnd:
    case Op::BitOr:
    case Op::BitXor:
    case Op::BitNot:
    case Op::Shl:
    case Op::Shr:
    case Op::LogicalAnd:
    case Op::LogicalOr:
    case Op::LogicalNot:
    case Op::Eq:
    case Op::Ne:
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::Convert: {
      std::vector<L::Value*> ops;
      for (size_t i = 0; i < inst.operands.size(); ++i) ops.push_back(op(i));
      result = Componentwise(inst, t, ops);
      break;
    }
    case Op::MakeVector: {
      result = L::PoisonValue::get(mw_.RegType(t));
      unsigned lane = 0;
      for (size_t i = 0; i < inst.operands.size(); ++i) {
        const ir::Type* part = inst.operands[i]->GetType();
        L::Value* v = op(i);
        if (!part->IsVector()) {
          result = b_.CreateInsertElement(result, v, lane++);
          continue;
        }
        for (uint32_t k = 0; k < part->Count(); ++k) {
          result = b_.CreateInsertElement(result, b_.CreateExtractElement(v, k), lane++);
        }
      }
      break;
    }
    case Op::Splat:
      if (t->IsMatrix()) {
        L::Value* row = b_.CreateVectorSplat(t->Cols(), op(0));
        result = L::PoisonValue::get(mw_.RegType(t));
        for (uint32_t r = 0; r < t->Count(); ++r) result = b_.CreateInsertValue(result, row, {r});
      } else {
        result = b_.CreateVectorSplat(t->Count(), op(0));
      }
      break;
    case Op::MakeMatrix:
      result = L::PoisonValue::get(mw_.RegType(t));
      for (size_t i = 0; i < inst.operands.size(); ++i) {
        result = b_.CreateInsertValue(result, op(i), {static_cast<unsigned>(i)});
      }
      break;
    case Op::MakeStruct:
    case Op::MakeArray:
      result = L::Constant::getNullValue(mw_.RegType(t));
      for (size_t i = 0; i < inst.operands.size(); ++i) {
        result = b_.CreateInsertValue(result, ToMem(op(i), inst.operands[i]->GetType()),
                                      {static_cast<unsigned>(i)});
      }
      break;
    case Op::Extract: {
      const ir::Type* from = inst.operands[0]->GetType();
      uint32_t k = inst.imms[0];
      if (from->IsVector()) {
        result = b_.CreateExtractElement(op(0), k);
      } else if (from->IsMatrix()) {
        result = b_.CreateExtractValue(op(0), {k});
      } else {
        result = ToReg(b_.CreateExtractValue(op(0), {k}), t);
      }
      break;
    }
    case Op::Insert: {
      const ir::Type* into = t;
      uint32_t k = inst.imms[0];
      if (into->IsVector()) {
        result = b_.CreateInsertElement(op(0), op(1), k);
      } else if (into->IsMatrix()) {
        result = b_.CreateInsertValue(op(0), op(1), {k});
      } else {
        result = b_.CreateInsertValue(op(0), ToMem(op(1), inst.operands[1]->GetType()), {k});
      }
      break;
    }
    case Op::ExtractDynamic:
    case Op::InsertDynamic: {
      const ir::Type* agg = inst.operands[0]->GetType();
      bool insert = inst.GetOp() == Op::InsertDynamic;
      // An index past the end is undefined in the source: clamped, never out of bounds.
      L::Value* index = Index64(inst.operands[insert ? 2 : 1]);
      index = b_.CreateBinaryIntrinsic(L::Intrinsic::umin, index, b_.getInt64(agg->Count() - 1));
      if (agg->IsVector() && mw_.Gpu()) {
        // Lane by lane with selects: NVPTX turns a dynamic extractelement of a loaded
        // vector into a load through the address it came from, and from a local array
        // (a frame index) it then loads a generic address from the local window.
        L::Value* v = op(0);
        if (insert) {
          result = v;
          for (uint32_t i = 0; i < agg->Count(); ++i) {
            L::Value* here = b_.CreateICmpEQ(index, b_.getInt64(i));
            L::Value* lane = b_.CreateSelect(here, op(1), b_.CreateExtractElement(v, uint64_t{i}));
            result = b_.CreateInsertElement(result, lane, uint64_t{i});
          }
        } else {
          result = b_.CreateExtractElement(v, uint64_t{0});
          for (uint32_t i = 1; i < agg->Count(); ++i) {
            L::Value* here = b_.CreateICmpEQ(index, b_.getInt64(i));
            result = b_.CreateSelect(here, b_.CreateExtractElement(v, uint64_t{i}), result);
          }
        }
        break;
      }
      if (agg->IsVector()) {
        result = insert ? b_.CreateInsertElement(op(0), op(1), index) : b_.CreateExtractElement(op(0), index);
        break;
      }
      // Arrays and matrices through memory.
      L::Type* rt = mw_.RegType(agg);
      L::AllocaInst* slot = EntryAlloca(rt);
      b_.CreateStore(op(0), slot);
      L::Value* place = b_.CreateInBoundsGEP(rt, slot, {b_.getInt64(0), index});
      const ir::Type* element = agg->Element();
      if (agg->IsMatrix()) {
        L::Type* row = mw_.RegType(element);
        if (insert) {
          b_.CreateStore(op(1), place);
          result = b_.CreateLoad(rt, slot);
        } else {
          result = b_.CreateLoad(row, place);
        }
      } else if (insert) {
        Store(place, op(1), element);
        result = b_.CreateLoad(rt, slot);
      } else {
        result = Load(place, element);
      }
      break;
    }
    case Op::Shuffle: {
      L::Value* a = op(0);
      L::Value* bv = op(1);
      uint32_t n = inst.operands[0]->GetType()->Count();
      if (a->getType() == bv->getType() && t->IsVector()) {
        std::vector<int> mask(inst.imms.begin(), inst.imms.end());
        result = b_.CreateShuffleVector(a, bv, mask);
      } else {
        result = L::PoisonValue::get(mw_.RegType(t));
        for (size_t i = 0; i < inst.imms.size(); ++i) {
          uint32_t lane = inst.imms[i];
          L::Value* v = lane < n ? b_.CreateExtractElement(a, lane) : b_.CreateExtractElement(bv, lane - n);
          result = t->IsVector() ? b_.CreateInsertElement(result, v, i) : v;
        }
      }
      break;
    }
    case Op::Intrinsic:
      result = Intrinsic(inst);
      break;
    case Op::Call: {
      std::vector<L::Value*> args{Inv()};
      for (size_t i = 0; i < inst.operands.size(); ++i) args.push_back(op(i));
      L::Value* depth = mw_.TracksWaves() ? EnterTracked(mw_.NextWaveSite()) : nullptr;
      result = b_.CreateCall(mw_.FunctionFor(inst.callee), args);
      if (depth != nullptr) LeaveTracked(depth);
      break;
    }
    case Op::Var: {
      const ir::Type* pointee = t->Element();
      L::AllocaInst* a = EntryAlloca(mw_.MemType(pointee));
      a->setAlignment(std::max(mw_.AlignOf(pointee), L::Align(4)));
      result = a;
      break;
    }
    case Op::Load:
      result = LoadThrough(inst.operands[0], t);
      break;
    case Op::Store:
      StoreThrough(inst.operands[0], op(1), inst.operands[1]->GetType());
      return;
    case Op::ElementPtr:
      result = ElementPtr(inst);
      break;
    case Op::MemberPtr: {
      const ir::Type* s = inst.operands[0]->GetType()->Element();
      result = b_.CreateConstInBoundsGEP2_32(mw_.MemType(s), op(0), 0, inst.imms[0]);
      break;
    }
    case Op::PtrOffset: {
      // A device pointer is a host pointer: elements step by the pointee's memory size.
      const ir::Type* pointee = inst.GetType()->Element();
      result = b_.CreateGEP(mw_.MemType(pointee), op(0), {op(1)});
      break;
    }
    case Op::PtrCast: {
      const ir::Type* from = inst.operands[0]->GetType();
      const ir::Type* to = inst.GetType();
      if (from->IsPointer() && to->IsPointer()) {
        result = op(0);
      } else if (from->IsPointer()) {
        result = b_.CreatePtrToInt(op(0), b_.getInt64Ty());
      } else {
        result = b_.CreateIntToPtr(op(0), L::PointerType::get(ctx_, 0));
      }
      break;
    }
    case Op::BufferInfo: {
      const ir::Type* element = inst.operands[0]->GetType()->Element();
      // The stride the element pointers step by (the scalar layout's, CheckLayouts says).
      auto stride = static_cast<uint32_t>(mw_.Module().getDataLayout().getTypeAllocSize(mw_.MemType(element)));
      if (inst.imms[0] != 0) {
        result = b_.getInt32(stride);
        break;
      }
      if (inst.operands[0]->VKind() != ir::ValueKind::Global) {
        mw_.Error(inst.loc, "internal error: the element count of a buffer that is not a global");
        return;
      }
      int slot = mw_.SlotOf(static_cast<const ir::Global*>(inst.operands[0]));
      L::Type* ptr = L::PointerType::get(ctx_, 0);
      L::Value* sizes = b_.CreateLoad(ptr, b_.CreateStructGEP(mw_.InvocationType(), Inv(), kInvSizes));
      L::Value* bytes = b_.CreateLoad(b_.getInt64Ty(), b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), sizes, slot < 0 ? 0 : slot));
      result = b_.CreateTrunc(b_.CreateUDiv(bytes, b_.getInt64(stride)), b_.getInt32Ty());
      break;
    }
    case Op::Atomic:
      result = Atomic(inst);
      break;
    case Op::Barrier:
      Barrier(inst);
      return;
    case Op::Wave:
      result = Wave(inst);
      break;
    case Op::Printf:
      Printf(inst);
      return;
    case Op::Texture:
      result = Texture(inst);
      if (result == nullptr) return;
      break;
    default:
      mw_.Error(inst.loc, "internal error: unexpected instruction");
      return;
  }
  values_[&inst] = result;
}

}  // namespace slope::targets::llvm

// The IR's intrinsics: LLVM's intrinsics where LLVM has the operation exactly, the C
// library's functions (host) or libdevice's (NVPTX) for the transcendental ones, and
// otherwise the expansion the SPIR-V and CUDA C++ writers compute.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <functional>

#include "compiler/targets/llvm/writer_internal.h"

namespace slope::targets::llvm {

using I = ir::Intrinsic;

L::Value* FunctionWriter::PerLane(const ir::Type* t, const std::vector<L::Value*>& args,
                                  const std::function<L::Value*(const std::vector<L::Value*>&)>& f) {
  if (!t->IsVector()) return f(args);
  L::Value* out = nullptr;
  for (uint32_t i = 0; i < t->Count(); ++i) {
    std::vector<L::Value*> lane;
    for (L::Value* a : args) lane.push_back(a->getType()->isVectorTy() ? b_.CreateExtractElement(a, i) : a);
    L::Value* v = f(lane);
    if (out == nullptr) out = L::PoisonValue::get(L::FixedVectorType::get(v->getType(), t->Count()));
    out = b_.CreateInsertElement(out, v, i);
  }
  return out;
}

L::Value* FunctionWriter::MathCall(const char* name, const ir::Type* t,
                                   const std::vector<L::Value*>& args) {
  uint32_t width = t->Scalar()->Width();
  return PerLane(t, args, [&](const std::vector<L::Value*>& lane) -> L::Value* {
    L::Type* f32 = b_.getFloatTy();
    L::Type* ft = width == 64 ? b_.getDoubleTy() : f32;
    std::vector<L::Value*> call_args;
    for (L::Value* a : lane) call_args.push_back(width == 16 ? b_.CreateFPExt(a, f32) : a);
    std::string symbol = name;
    if (mw_.Gpu()) {
      symbol = "__nv_" + symbol + (width == 64 ? "" : "f");
    } else if (width != 64) {
      symbol += "f";
    }
    std::vector<L::Type*> params(call_args.size(), ft);
    L::FunctionCallee fn = mw_.Callback(symbol, L::FunctionType::get(ft, params, false));
    if (auto* decl = L::dyn_cast<L::Function>(fn.getCallee())) {
      decl->addFnAttr(L::Attribute::NoUnwind);
      decl->setOnlyAccessesInaccessibleMemOrArgMem();
    }
    L::Value* r = b_.CreateCall(fn, call_args);
    return width == 16 ? b_.CreateFPTrunc(r, b_.getHalfTy()) : r;
  });
}

L::Value* FunctionWriter::Dot(L::Value* a, L::Value* b, const ir::Type* vt) {
  if (!vt->IsVector()) return vt->Scalar()->IsFloat() ? b_.CreateFMul(a, b) : b_.CreateMul(a, b);
  bool is_float = vt->Scalar()->IsFloat();
  L::Value* sum = nullptr;
  for (uint32_t i = 0; i < vt->Count(); ++i) {
    L::Value* x = b_.CreateExtractElement(a, i);
    L::Value* y = b_.CreateExtractElement(b, i);
    L::Value* p = is_float ? b_.CreateFMul(x, y) : b_.CreateMul(x, y);
    sum = sum == nullptr ? p : is_float ? b_.CreateFAdd(sum, p) : b_.CreateAdd(sum, p);
  }
  return sum;
}

L::Value* FunctionWriter::MatMul(const ir::Inst& inst, L::Value* a, L::Value* b) {
  const ir::Type* ta = inst.operands[0]->GetType();
  const ir::Type* tb = inst.operands[1]->GetType();
  const ir::Type* t = inst.GetType();
  bool is_float = t->Scalar()->IsFloat();
  auto mul = [&](L::Value* x, L::Value* y) { return is_float ? b_.CreateFMul(x, y) : b_.CreateMul(x, y); };
  auto add = [&](L::Value* x, L::Value* y) { return is_float ? b_.CreateFAdd(x, y) : b_.CreateAdd(x, y); };
  auto scale = [&](L::Value* s, L::Value* v, const ir::Type* vt) -> L::Value* {
    if (vt->IsScalar()) return mul(s, v);
    if (vt->IsVector()) return mul(b_.CreateVectorSplat(vt->Count(), s), v);
    L::Value* out = L::PoisonValue::get(mw_.RegType(vt));
    for (uint32_t r = 0; r < vt->Count(); ++r) {
      out = b_.CreateInsertValue(out, mul(b_.CreateVectorSplat(vt->Cols(), s), b_.CreateExtractValue(v, {r})), {r});
    }
    return out;
  };
  if (ta->IsScalar()) return scale(a, b, tb);
  if (tb->IsScalar()) return scale(b, a, ta);
  // v * m: v as a row: the sum of v[r] * row r.
  auto row_times = [&](L::Value* v, const ir::Type* vt, L::Value* m, const ir::Type* mt) {
    L::Value* sum = nullptr;
    for (uint32_t r = 0; r < mt->Count(); ++r) {
      L::Value* term = mul(b_.CreateVectorSplat(mt->Cols(), b_.CreateExtractElement(v, r)),
                           b_.CreateExtractValue(m, {r}));
      sum = sum == nullptr ? term : add(sum, term);
    }
    (void)vt;
    return sum;
  };
  if (ta->IsMatrix() && tb->IsVector()) {
    L::Value* out = L::PoisonValue::get(mw_.RegType(t));
    for (uint32_t r = 0; r < ta->Count(); ++r) {
      out = b_.CreateInsertElement(out, Dot(b_.CreateExtractValue(a, {r}), b, tb), r);
    }
    return out;
  }
  if (ta->IsVector() && tb->IsMatrix()) return row_times(a, ta, b, tb);
  L::Value* out = L::PoisonValue::get(mw_.RegType(t));
  for (uint32_t r = 0; r < ta->Count(); ++r) {
    out = b_.CreateInsertValue(out, row_times(b_.CreateExtractValue(a, {r}), ta->Element(), b, tb), {r});
  }
  return out;
}

L::Value* FunctionWriter::Determinant(L::Value* m, uint32_t n, const ir::Type* s) {
  auto at = [&](uint32_t r, uint32_t c) { return b_.CreateExtractElement(b_.CreateExtractValue(m, {r}), c); };
  auto mul = [&](L::Value* x, L::Value* y) { return b_.CreateFMul(x, y); };
  auto sub = [&](L::Value* x, L::Value* y) { return b_.CreateFSub(x, y); };
  auto add = [&](L::Value* x, L::Value* y) { return b_.CreateFAdd(x, y); };
  // The determinant of the minor with rows `rows` and columns `cols`, by cofactors along
  // its first row (the expansion the other writers use).
  std::function<L::Value*(std::vector<uint32_t>, std::vector<uint32_t>)> det =
      [&](std::vector<uint32_t> rows, std::vector<uint32_t> cols) -> L::Value* {
    if (rows.size() == 2) {
      return sub(mul(at(rows[0], cols[0]), at(rows[1], cols[1])), mul(at(rows[0], cols[1]), at(rows[1], cols[0])));
    }
    std::vector<uint32_t> rest(rows.begin() + 1, rows.end());
    L::Value* sum = nullptr;
    for (size_t c = 0; c < cols.size(); ++c) {
      std::vector<uint32_t> minor;
      for (size_t j = 0; j < cols.size(); ++j) {
        if (j != c) minor.push_back(cols[j]);
      }
      L::Value* term = mul(at(rows[0], cols[c]), det(rest, minor));
      sum = sum == nullptr ? term : c % 2 == 0 ? add(sum, term) : sub(sum, term);
    }
    return sum;
  };
  std::vector<uint32_t> all;
  for (uint32_t i = 0; i < n; ++i) all.push_back(i);
  (void)s;
  return det(all, all);
}

L::Value* FunctionWriter::Intrinsic(const ir::Inst& inst) {
  auto which = static_cast<I>(inst.imms[0]);
  const ir::Type* t = inst.GetType();
  const ir::Type* arg = inst.operands[0]->GetType();
  std::vector<L::Value*> ops;
  for (const ir::Value* v : inst.operands) ops.push_back(Val(v));
  if (which == I::MatMul) return MatMul(inst, ops[0], ops[1]);
  if (which == I::Transpose) {
    L::Value* out = L::PoisonValue::get(mw_.RegType(t));
    for (uint32_t r = 0; r < t->Count(); ++r) {
      L::Value* row = L::PoisonValue::get(mw_.RegType(t->Element()));
      for (uint32_t c = 0; c < t->Cols(); ++c) {
        row = b_.CreateInsertElement(row, b_.CreateExtractElement(b_.CreateExtractValue(ops[0], {c}), r), c);
      }
      out = b_.CreateInsertValue(out, row, {r});
    }
    return out;
  }
  if (which == I::Determinant) return Determinant(ops[0], arg->Count(), arg->Scalar());
  if (arg->IsMatrix()) {
    // Component-wise on each row.
    L::Value* out = L::PoisonValue::get(mw_.RegType(t));
    for (uint32_t r = 0; r < arg->Count(); ++r) {
      std::vector<L::Value*> row;
      for (size_t i = 0; i < ops.size(); ++i) {
        row.push_back(inst.operands[i]->GetType()->IsMatrix() ? b_.CreateExtractValue(ops[i], {r}) : ops[i]);
      }
      out = b_.CreateInsertValue(out, IntrinsicOn(which, t->IsMatrix() ? t->Element() : t, arg->Element(), row), {r});
    }
    return out;
  }
  return IntrinsicOn(which, t, arg, ops);
}

L::Value* FunctionWriter::IntrinsicOn(I which, const ir::Type* t, const ir::Type* arg,
                                      const std::vector<L::Value*>& ops) {
  const ir::Type* s = arg->Scalar();
  bool is_float = s->IsFloat();
  bool is_signed = s->IsInt() && s->IsSigned();
  L::Value* x = ops[0];
  L::Value* y = ops.size() > 1 ? ops[1] : nullptr;
  L::Value* z = ops.size() > 2 ? ops[2] : nullptr;
  auto unary = [&](L::Intrinsic::ID id) { return b_.CreateUnaryIntrinsic(id, x); };
  auto fmin = [&](L::Value* a, L::Value* b) { return b_.CreateBinaryIntrinsic(L::Intrinsic::minnum, a, b); };
  auto fmax = [&](L::Value* a, L::Value* b) { return b_.CreateBinaryIntrinsic(L::Intrinsic::maxnum, a, b); };
  auto min = [&](L::Value* a, L::Value* b) {
    if (is_float) return fmin(a, b);
    return b_.CreateBinaryIntrinsic(is_signed ? L::Intrinsic::smin : L::Intrinsic::umin, a, b);
  };
  auto max = [&](L::Value* a, L::Value* b) {
    if (is_float) return fmax(a, b);
    return b_.CreateBinaryIntrinsic(is_signed ? L::Intrinsic::smax : L::Intrinsic::umax, a, b);
  };
  auto splat = [&](double v) { return Splat(arg, v); };
  auto scalar_of = [&](L::Value* v, uint32_t count) { return count > 1 ? b_.CreateVectorSplat(count, v) : v; };
  auto sqrt = [&](L::Value* v) { return b_.CreateUnaryIntrinsic(L::Intrinsic::sqrt, v); };
  switch (which) {
    case I::Sqrt: return unary(L::Intrinsic::sqrt);
    case I::Abs:
      if (is_float) return unary(L::Intrinsic::fabs);
      return b_.CreateBinaryIntrinsic(L::Intrinsic::abs, x, b_.getFalse());
    case I::Min: return min(x, y);
    case I::Max: return max(x, y);
    case I::Clamp: return min(max(x, y), z);
    case I::Floor: return unary(L::Intrinsic::floor);
    case I::Ceil: return unary(L::Intrinsic::ceil);
    case I::Trunc: return unary(L::Intrinsic::trunc);
    case I::Round: return unary(L::Intrinsic::roundeven);
    case I::Exp: return MathCall("exp", arg, ops);
    case I::Log: return MathCall("log", arg, ops);
    case I::Sin: return MathCall("sin", arg, ops);
    case I::Cos: return MathCall("cos", arg, ops);
    case I::Pow: return MathCall("pow", arg, ops);
    case I::Exp2: return MathCall("exp2", arg, ops);
    case I::Log2: return MathCall("log2", arg, ops);
    case I::Log10:  // log2(x) * log10(2), as the other writers compute it
      return b_.CreateFMul(MathCall("log2", arg, ops), splat(0.30102999566398119521));
    case I::Tan: return MathCall("tan", arg, ops);
    case I::Asin: return MathCall("asin", arg, ops);
    case I::Acos: return MathCall("acos", arg, ops);
    case I::Atan: return MathCall("atan", arg, ops);
    case I::Atan2: return MathCall("atan2", arg, ops);
    case I::Sinh: return MathCall("sinh", arg, ops);
    case I::Cosh: return MathCall("cosh", arg, ops);
    case I::Tanh: return MathCall("tanh", arg, ops);
    case I::Lerp:  // x (1 - z) + y z, as SPIR-V's FMix
      return b_.CreateFAdd(b_.CreateFMul(x, b_.CreateFSub(splat(1), z)), b_.CreateFMul(y, z));
    case I::Dot: return Dot(x, y, arg);
    case I::Length:
      if (!arg->IsVector()) return unary(L::Intrinsic::fabs);
      return sqrt(Dot(x, x, arg));
    case I::Distance: {
      L::Value* d = b_.CreateFSub(x, y);
      if (!arg->IsVector()) return b_.CreateUnaryIntrinsic(L::Intrinsic::fabs, d);
      return sqrt(Dot(d, d, arg));
    }
    case I::Normalize: {
      L::Value* inv = b_.CreateFDiv(Splat(s, 1), sqrt(Dot(x, x, arg)));
      return b_.CreateFMul(x, scalar_of(inv, arg->Count()));
    }
    case I::Saturate: return fmin(fmax(x, splat(0)), splat(1));
    case I::Step:  // step(edge, v) = v < edge ? 0 : 1
      return b_.CreateSelect(b_.CreateFCmpOLT(y, x), splat(0), splat(1));
    case I::Smoothstep: {
      L::Value* u = b_.CreateFDiv(b_.CreateFSub(z, x), b_.CreateFSub(y, x));
      u = fmin(fmax(u, splat(0)), splat(1));
      return b_.CreateFMul(b_.CreateFMul(u, u), b_.CreateFSub(splat(3), b_.CreateFMul(splat(2), u)));
    }
    case I::Sign: {
      L::Value* pos = is_float ? b_.CreateFCmpOGT(x, splat(0)) : b_.CreateICmpSGT(x, splat(0));
      L::Value* neg = is_float ? b_.CreateFCmpOLT(x, splat(0)) : b_.CreateICmpSLT(x, splat(0));
      L::Type* rt = mw_.RegType(t);
      return b_.CreateSub(b_.CreateZExt(pos, rt), b_.CreateZExt(neg, rt));
    }
    case I::Frac: return b_.CreateFSub(x, unary(L::Intrinsic::floor));
    case I::Fmod: {
      L::Value* q = b_.CreateUnaryIntrinsic(L::Intrinsic::trunc, b_.CreateFDiv(x, y));
      return b_.CreateFSub(x, b_.CreateFMul(y, q));
    }
    case I::Rsqrt: return b_.CreateFDiv(splat(1), sqrt(x));
    case I::Rcp: return b_.CreateFDiv(splat(1), x);
    case I::Fma: return b_.CreateIntrinsic(L::Intrinsic::fma, {x->getType()}, {x, y, z});
    case I::Mad:
      if (is_float) return b_.CreateIntrinsic(L::Intrinsic::fma, {x->getType()}, {x, y, z});
      return b_.CreateAdd(b_.CreateMul(x, y), z);
    case I::IsNan: return b_.CreateFCmpUNO(x, x);
    case I::IsInf: return b_.CreateFCmpOEQ(unary(L::Intrinsic::fabs), splat(HUGE_VAL));
    case I::Cross: {
      auto lane = [&](L::Value* v, unsigned i) { return b_.CreateExtractElement(v, i); };
      auto term = [&](unsigned i, unsigned j) {
        return b_.CreateFSub(b_.CreateFMul(lane(x, i), lane(y, j)), b_.CreateFMul(lane(y, i), lane(x, j)));
      };
      L::Value* out = L::PoisonValue::get(x->getType());
      out = b_.CreateInsertElement(out, term(1, 2), uint64_t{0});
      out = b_.CreateInsertElement(out, term(2, 0), 1);
      return b_.CreateInsertElement(out, term(0, 1), 2);
    }
    case I::Reflect: {
      L::Value* d = b_.CreateFMul(Splat(s, 2), Dot(y, x, arg));
      return b_.CreateFSub(x, b_.CreateFMul(scalar_of(d, arg->Count()), y));
    }
    case I::Refract: {
      L::Value* d = Dot(y, x, arg);
      L::Value* one = Splat(s, 1);
      L::Value* k = b_.CreateFSub(one, b_.CreateFMul(b_.CreateFMul(z, z), b_.CreateFSub(one, b_.CreateFMul(d, d))));
      L::Value* coef = b_.CreateFAdd(b_.CreateFMul(z, d), sqrt(k));
      uint32_t n = arg->Count();
      L::Value* r = b_.CreateFSub(b_.CreateFMul(scalar_of(z, n), x), b_.CreateFMul(scalar_of(coef, n), y));
      return b_.CreateSelect(b_.CreateFCmpOLT(k, Splat(s, 0)), splat(0), r);
    }
    case I::FaceForward:
      return b_.CreateSelect(b_.CreateFCmpOLT(Dot(z, y, arg), Splat(s, 0)), x, b_.CreateFNeg(x));
    case I::CountBits:
      return b_.CreateZExtOrTrunc(unary(L::Intrinsic::ctpop), mw_.RegType(t));
    case I::FirstBitHigh: {
      L::Value* v = is_signed ? b_.CreateSelect(b_.CreateICmpSLT(x, splat(0)), b_.CreateNot(x), x) : x;
      unsigned width = s->Width();
      L::Value* lz = b_.CreateBinaryIntrinsic(L::Intrinsic::ctlz, v, b_.getTrue());
      L::Value* bit = b_.CreateSub(splat(width - 1), lz);
      return b_.CreateSelect(b_.CreateICmpEQ(v, splat(0)), splat(-1), bit);
    }
    case I::FirstBitLow: {
      L::Value* tz = b_.CreateBinaryIntrinsic(L::Intrinsic::cttz, x, b_.getTrue());
      return b_.CreateSelect(b_.CreateICmpEQ(x, splat(0)), splat(-1), tz);
    }
    case I::ReverseBits: return unary(L::Intrinsic::bitreverse);
    case I::Bitcast: return b_.CreateBitCast(x, mw_.RegType(t));
    case I::F32ToF16: {
      uint32_t n = arg->Count();
      L::Type* half = n > 1 ? static_cast<L::Type*>(L::FixedVectorType::get(b_.getHalfTy(), n)) : b_.getHalfTy();
      L::Type* i16 = n > 1 ? static_cast<L::Type*>(L::FixedVectorType::get(b_.getInt16Ty(), n)) : b_.getInt16Ty();
      return b_.CreateZExt(b_.CreateBitCast(b_.CreateFPTrunc(x, half), i16), mw_.RegType(t));
    }
    case I::F16ToF32: {
      uint32_t n = arg->Count();
      L::Type* half = n > 1 ? static_cast<L::Type*>(L::FixedVectorType::get(b_.getHalfTy(), n)) : b_.getHalfTy();
      L::Type* i16 = n > 1 ? static_cast<L::Type*>(L::FixedVectorType::get(b_.getInt16Ty(), n)) : b_.getInt16Ty();
      return b_.CreateFPExt(b_.CreateBitCast(b_.CreateTrunc(x, i16), half), mw_.RegType(t));
    }
    default: break;
  }
  mw_.Error({}, std::string("internal error: intrinsic '") + ir::GetIntrinsicInfo(which).mnemonic +
                    "' has no LLVM form");
  return L::PoisonValue::get(mw_.RegType(t));
}

}  // namespace slope::targets::llvm

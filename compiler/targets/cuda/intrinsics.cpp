// The IR's intrinsics in CUDA C++: the prelude's functions (slope_cuda_prelude.h), which
// compute what the SPIR-V writer computes, or the same exact expansion.

#include "compiler/base/ice.h"
#include "compiler/targets/cuda/function_writer.h"

namespace slope::targets::cuda {

using ctext::Atom;
using ctext::Binary;
using ctext::Call;
using ctext::Expr;
using ctext::Index;
using ctext::Prec;

namespace {

/// The prelude function of a component-wise intrinsic (one that also applies to each row
/// of a matrix), or nullptr.
const char* ComponentwiseName(ir::Intrinsic which) {
  using I = ir::Intrinsic;
  switch (which) {
    case I::Sqrt: return "sqrt";
    case I::Abs: return "abs";
    case I::Min: return "min";
    case I::Max: return "max";
    case I::Clamp: return "clamp";
    case I::Floor: return "floor";
    case I::Ceil: return "ceil";
    case I::Exp: return "exp";
    case I::Log: return "log";
    case I::Sin: return "sin";
    case I::Cos: return "cos";
    case I::Pow: return "pow";
    case I::Lerp: return "lerp";
    case I::Round: return "round_even";
    case I::Trunc: return "trunc";
    case I::Frac: return "frac";
    case I::Fma: return "fma";
    case I::Saturate: return "saturate";
    case I::Step: return "step";
    case I::Smoothstep: return "smoothstep";
    case I::Rsqrt: return "rsqrt";
    case I::Exp2: return "exp2";
    case I::Log2: return "log2";
    case I::Tan: return "tan";
    case I::Asin: return "asin";
    case I::Acos: return "acos";
    case I::Atan: return "atan";
    case I::Atan2: return "atan2";
    case I::Sinh: return "sinh";
    case I::Cosh: return "cosh";
    case I::Tanh: return "tanh";
    default: return nullptr;
  }
}

}  // namespace

Expr FunctionWriter::IntrinsicExpr(const ir::Inst& inst) {
  using I = ir::Intrinsic;
  auto which = static_cast<I>(inst.imms[0]);
  const ir::Type* t = inst.GetType();
  const ir::Type* arg = inst.operands[0]->GetType();
  const ir::Type* s = arg->Scalar();
  ir::TypeTable& types = context_.module_.Types();
  std::vector<Expr> args;
  for (const ir::Value* v : inst.operands) args.push_back(ValueExpr(v));
  auto call = [&](const char* fn) { return Call(fn, args); };
  const char* componentwise = ComponentwiseName(which);
  if (t->IsMatrix() && which != I::MatMul && which != I::Transpose) {
    if (componentwise == nullptr) SLOPE_ICE("intrinsic on matrices that the CUDA writer does not expand");
    std::vector<Expr> rows;
    for (uint32_t r = 0; r < t->Count(); ++r) {
      std::vector<Expr> row_args;
      for (const Expr& e : args) row_args.push_back(Index(e, Atom(std::to_string(r))));
      rows.push_back(Call(componentwise, row_args));
    }
    return Call("make_mat", rows);
  }
  if (componentwise != nullptr) return call(componentwise);
  switch (which) {
    case I::Dot:
      return call("dot");
    case I::Length:
      return call("length");
    case I::Sign:
      // The prelude's sign keeps the operand's type; the result is a signed int.
      return Cast(t, arg, call("sign"));
    case I::Fmod: {
      // The sign of x, as SPIR-V's OpFRem: x - y * trunc(x / y).
      Expr q = Call("trunc", {Binary(args[0], "/", args[1], Prec::Multiplicative)});
      return Binary(args[0], "-", Binary(args[1], "*", q, Prec::Multiplicative), Prec::Additive);
    }
    case I::Rcp:
      return Binary(Splat(arg, 1.0), "/", args[0], Prec::Multiplicative);
    case I::Log10:  // log10(x) = log2(x) * log10(2)
      return Binary(Call("log2", args), "*", Splat(arg, 0.30102999566398119521),
                    Prec::Multiplicative);
    case I::Mad:
      if (s->IsFloat()) return call("fma");
      return Binary(Binary(args[0], "*", args[1], Prec::Multiplicative), "+", args[2],
                    Prec::Additive);
    case I::IsNan:
      return Cast(t, types.WithScalar(arg, types.Bool()), call("is_nan"));
    case I::IsInf:
      return Cast(t, types.WithScalar(arg, types.Bool()), call("is_inf"));
    case I::Cross:
      return call("cross");
    case I::Distance:
      return call("distance");
    case I::Normalize:
      return call("normalize");
    case I::Reflect:
      return call("reflect");
    case I::Refract:
      return call("refract");
    case I::FaceForward:
      return call("faceforward");
    case I::CountBits:
    case I::FirstBitHigh:
    case I::FirstBitLow: {
      const char* fn = which == I::CountBits      ? "count_bits"
                       : which == I::FirstBitHigh ? "first_bit_high"
                                                  : "first_bit_low";
      // The prelude answers a signed int of the operand's shape.
      return Cast(t, types.WithScalar(arg, types.Int(32, true)), call(fn));
    }
    case I::ReverseBits:
      return call("reverse_bits");
    case I::Bitcast:
      if (t == arg) return args[0];
      if (t->Scalar()->IsFloat() && s->IsFloat() && t->Count() == arg->Count()) return args[0];
      return Call("bit_cast<" + context_.TypeName(t) + ">", args);
    case I::F32ToF16:
      context_.RequireHalf();
      return call("f32tof16");
    case I::F16ToF32:
      context_.RequireHalf();
      return call("f16tof32");
    case I::MatMul: {
      const ir::Type* b = inst.operands[1]->GetType();
      // The scalar first, as the prelude's mul(s, x) takes it.
      if (b->IsScalar() && !arg->IsScalar()) return Call("mul", {args[1], args[0]});
      return call("mul");
    }
    case I::Transpose:
      return call("transpose");
    case I::Determinant:
      return call("determinant");
    default:
      break;
  }
  SLOPE_ICE("unknown intrinsic");
}

}  // namespace slope::targets::cuda

// The IR's intrinsics in GLSL: a built-in function where GLSL has the operation with the
// SPIR-V writer's semantics, otherwise the same exact expansion the SPIR-V writer uses.

#include "compiler/base/ice.h"
#include "compiler/targets/glsl/function_writer.h"

namespace slope::targets::glsl {

using ctext::Atom;
using ctext::Binary;
using ctext::Call;
using ctext::Expr;
using ctext::Index;
using ctext::Prec;

namespace {

/// `a.x * b.x + a.y * b.y + ...`: an integer dot product (GLSL's dot takes floats).
Expr IntDot(const Expr& a, const Expr& b, uint32_t n) {
  static const char* kLanes[] = {"x", "y", "z", "w"};
  Expr sum;
  for (uint32_t i = 0; i < n; ++i) {
    Expr term =
        Binary(ctext::Member(a, kLanes[i]), "*", ctext::Member(b, kLanes[i]), Prec::Multiplicative);
    sum = i == 0 ? term : Binary(sum, "+", term, Prec::Additive);
  }
  return sum;
}

Expr Row(const Expr& m, uint32_t r) { return Index(m, Atom(std::to_string(r))); }

}  // namespace

Expr FunctionWriter::Transpose(const ir::Type* t, const ir::Type* m, const Expr& x) {
  if (t->Scalar()->IsFloat()) return Call("transpose", {x});
  std::vector<Expr> rows;
  for (uint32_t c = 0; c < t->Count(); ++c) {
    std::vector<Expr> lanes;
    for (uint32_t r = 0; r < m->Count(); ++r) lanes.push_back(Lane(Row(x, r), c));
    rows.push_back(Call(context_.TypeName(t->Element()), lanes));
  }
  return Call(context_.TypeName(t), rows);
}

Expr FunctionWriter::MatMul(const ir::Inst& inst) {
  const ir::Type* t = inst.GetType();
  const ir::Type* a = inst.operands[0]->GetType();
  const ir::Type* b = inst.operands[1]->GetType();
  Expr x = ValueExpr(inst.operands[0]), y = ValueExpr(inst.operands[1]);
  bool is_float = t->Scalar()->IsFloat();
  if (a->IsScalar() || b->IsScalar()) {
    // A scaling, the scalar first as in the SPIR-V writer.
    if (b->IsScalar()) std::swap(x, y);
    const ir::Type* scaled = a->IsScalar() ? b : a;
    if (is_float || !scaled->IsMatrix()) return Binary(x, "*", y, Prec::Multiplicative);
    std::vector<Expr> rows;
    for (uint32_t r = 0; r < scaled->Count(); ++r) {
      rows.push_back(Binary(x, "*", Row(y, r), Prec::Multiplicative));
    }
    return Call(context_.TypeName(t), rows);
  }
  if (is_float) {
    // GLSL's matrix is the transpose of the HLSL one (its columns are HLSL's rows):
    // mul(m, v) = v * M, mul(v, m) = M * v, mul(a, b) = B * A.
    return Binary(y, "*", x, Prec::Multiplicative);
  }
  // Integer matrices are arrays of rows.
  auto vector_times_matrix = [&](const Expr& v, const ir::Type* m_type, const Expr& m) {
    Expr sum;
    for (uint32_t i = 0; i < m_type->Count(); ++i) {
      Expr term = Binary(Lane(v, i), "*", Row(m, i), Prec::Multiplicative);
      sum = i == 0 ? term : Binary(sum, "+", term, Prec::Additive);
    }
    return sum;
  };
  if (a->IsVector()) return vector_times_matrix(x, b, y);
  std::vector<Expr> parts;
  for (uint32_t r = 0; r < a->Count(); ++r) {
    if (b->IsMatrix()) {
      parts.push_back(vector_times_matrix(Row(x, r), b, y));
    } else {
      parts.push_back(IntDot(Row(x, r), y, b->Count()));
    }
  }
  return Call(context_.TypeName(t), parts);
}

Expr FunctionWriter::SameShapeBitcast(const ir::Type* t, const ir::Type* arg, const Expr& x) {
  const ir::Type* s = arg->Scalar();
  const ir::Type* ts = t->Scalar();
  if (t == arg || (s->IsFloat() && ts->IsFloat())) return x;
  // floatBitsToInt, doubleBitsToUint64, float16BitsToInt16, uint64BitsToDouble, ...
  uint32_t w = s->Width();
  std::string f = w == 64 ? "double" : w == 16 ? "float16" : "float";
  std::string i = w == 32 ? "Int" : "Int" + std::to_string(w);
  std::string u = w == 32 ? "Uint" : "Uint" + std::to_string(w);
  std::string f_of = w == 64 ? "Double" : w == 16 ? "Float16" : "Float";
  if (s->IsFloat()) return Call(f + "BitsTo" + (ts->IsSigned() ? i : u), {x});
  if (ts->IsFloat()) {
    std::string from = s->IsSigned() ? i : u;
    from[0] = static_cast<char>(from[0] - 'A' + 'a');
    return Call(from + "BitsTo" + f_of, {x});
  }
  return Cast(t, arg, x);
}

Expr FunctionWriter::Bitcast(const ir::Type* t, const ir::Type* arg, const Expr& x) {
  uint32_t ws = arg->Scalar()->Width();
  uint32_t wt = t->Scalar()->Width();
  if (ws == wt) return SameShapeBitcast(t, arg, x);
  // Lanes of another width: through unsigned lanes of each width, joined by packNN or split
  // by unpackNN (GL_EXT_shader_explicit_arithmetic_types), lowest lane in the low bits as
  // SPIR-V's OpBitcast orders them.
  ir::TypeTable& types = context_.module_.Types();
  context_.Require("GL_EXT_shader_explicit_arithmetic_types");
  const ir::Type* us = types.WithScalar(arg, types.Int(ws, false));
  const ir::Type* ut = types.WithScalar(t, types.Int(wt, false));
  Expr bits = SameShapeBitcast(us, arg, x);
  auto lane = [&](const ir::Type* of, const Expr& e, uint32_t i) {
    return of->IsVector() ? Lane(e, i) : e;
  };
  std::vector<Expr> parts;
  if (ws < wt) {
    uint32_t r = wt / ws;
    const ir::Type* group = types.Vector(types.Int(ws, false), r);
    for (uint32_t i = 0; i < t->Count(); ++i) {
      std::vector<Expr> lanes;
      for (uint32_t k = 0; k < r; ++k) lanes.push_back(lane(us, bits, i * r + k));
      Expr packed = arg->Count() == r ? bits : Call(context_.TypeName(group), lanes);
      parts.push_back(Call("pack" + std::to_string(wt), {packed}));
    }
  } else {
    for (uint32_t j = 0; j < arg->Count(); ++j) {
      parts.push_back(Call("unpack" + std::to_string(wt), {lane(us, bits, j)}));
    }
  }
  Expr joined = parts.size() == 1 ? parts[0] : Call(context_.TypeName(ut), parts);
  return SameShapeBitcast(t, ut, joined);
}

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
  // Component-wise intrinsics on matrices go row by row.
  if (t->IsMatrix() && which != I::MatMul && which != I::Transpose) {
    std::vector<Expr> rows;
    for (uint32_t r = 0; r < t->Count(); ++r) {
      std::vector<Expr> row_args;
      for (const Expr& e : args) row_args.push_back(Row(e, r));
      const char* fn = nullptr;
      switch (which) {
        case I::Abs:
          fn = "abs";
          break;
        case I::Min:
          fn = "min";
          break;
        case I::Max:
          fn = "max";
          break;
        case I::Clamp:
          fn = "clamp";
          break;
        case I::Floor:
          fn = "floor";
          break;
        case I::Ceil:
          fn = "ceil";
          break;
        case I::Sqrt:
          fn = "sqrt";
          break;
        case I::Exp:
          fn = "exp";
          break;
        case I::Log:
          fn = "log";
          break;
        case I::Sin:
          fn = "sin";
          break;
        case I::Cos:
          fn = "cos";
          break;
        case I::Pow:
          fn = "pow";
          break;
        case I::Lerp:
          fn = "mix";
          break;
        case I::Round:
          fn = "roundEven";
          break;
        case I::Trunc:
          fn = "trunc";
          break;
        case I::Frac:
          fn = "fract";
          break;
        case I::Fma:
          fn = "fma";
          break;
        default:
          SLOPE_ICE("intrinsic on matrices that the GLSL writer does not expand");
      }
      rows.push_back(Call(fn, row_args));
    }
    return Call(context_.TypeName(t), rows);
  }
  switch (which) {
    case I::Sqrt:
      return call("sqrt");
    case I::Abs:
      if (s->IsInt() && !s->IsSigned()) {
        // SAbs on the bits read as signed, as the SPIR-V writer does.
        const ir::Type* signed_t = types.WithScalar(arg, types.Int(s->Width(), true));
        return Cast(t, signed_t, Call("abs", {Cast(signed_t, arg, args[0])}));
      }
      return call("abs");
    case I::Min:
      return call("min");
    case I::Max:
      return call("max");
    case I::Clamp:
      return call("clamp");
    case I::Floor:
      return call("floor");
    case I::Ceil:
      return call("ceil");
    case I::Exp:
      return call("exp");
    case I::Log:
      return call("log");
    case I::Sin:
      return call("sin");
    case I::Cos:
      return call("cos");
    case I::Pow:
      return call("pow");
    case I::Lerp:
      return call("mix");
    case I::Dot:
      return call("dot");
    case I::Length:
      return call("length");
    case I::Saturate:
      return Call("clamp", {args[0], Splat(arg, 0.0), Splat(arg, 1.0)});
    case I::Step:
      return call("step");
    case I::Smoothstep:
      return call("smoothstep");
    case I::Sign: {
      if (s->IsFloat()) return Cast(t, arg, call("sign"));
      const ir::Type* signed_t = types.WithScalar(arg, types.Int(s->Width(), true));
      return Cast(t, signed_t, Call("sign", {Cast(signed_t, arg, args[0])}));
    }
    case I::Round:
      return call("roundEven");
    case I::Trunc:
      return call("trunc");
    case I::Frac:
      return call("fract");
    case I::Fmod: {
      // The sign of x, as SPIR-V's OpFRem: x - y * trunc(x / y).
      Expr q = Call("trunc", {Binary(args[0], "/", args[1], Prec::Multiplicative)});
      return Binary(args[0], "-", Binary(args[1], "*", q, Prec::Multiplicative), Prec::Additive);
    }
    case I::Rsqrt:
      return call("inversesqrt");
    case I::Rcp:
      return Binary(context_.LiteralOf(s, 1.0), "/", args[0], Prec::Multiplicative);
    case I::Exp2:
      return call("exp2");
    case I::Log2:
      return call("log2");
    case I::Log10:  // log10(x) = log2(x) * log10(2)
      return Binary(call("log2"), "*", context_.LiteralOf(s, 0.30102999566398119521),
                    Prec::Multiplicative);
    case I::Tan:
      return call("tan");
    case I::Asin:
      return call("asin");
    case I::Acos:
      return call("acos");
    case I::Atan:
      return call("atan");
    case I::Atan2:
      return call("atan");  // atan(y, x)
    case I::Sinh:
      return call("sinh");
    case I::Cosh:
      return call("cosh");
    case I::Tanh:
      return call("tanh");
    case I::Fma:
      return call("fma");
    case I::Mad:
      if (s->IsFloat()) return call("fma");
      return Binary(Binary(args[0], "*", args[1], Prec::Multiplicative), "+", args[2],
                    Prec::Additive);
    case I::IsNan:
      return call("isnan");
    case I::IsInf:
      return call("isinf");
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
    case I::CountBits: {
      // bitCount returns a signed int of the operand's shape.
      const ir::Type* int_t = types.WithScalar(arg, types.Int(32, true));
      return Cast(t, int_t, call("bitCount"));
    }
    case I::FirstBitHigh:
    case I::FirstBitLow: {
      const ir::Type* int_t = types.WithScalar(arg, types.Int(32, true));
      return Cast(t, int_t, call(which == I::FirstBitHigh ? "findMSB" : "findLSB"));
    }
    case I::ReverseBits:
      return call("bitfieldReverse");
    case I::Bitcast:
      return Bitcast(t, arg, args[0]);
    case I::F32ToF16: {
      // packHalf2x16 converts pairs: lane i goes through the low half of a pair.
      std::vector<Expr> lanes;
      for (uint32_t i = 0; i < t->Count(); ++i) {
        Expr lane = arg->IsVector() ? Lane(args[0], i) : args[0];
        lanes.push_back(Call("packHalf2x16", {Call("vec2", {lane, Atom("0.0")})}));
      }
      return t->IsVector() ? Call(context_.TypeName(t), lanes) : lanes[0];
    }
    case I::F16ToF32: {
      std::vector<Expr> lanes;
      for (uint32_t i = 0; i < t->Count(); ++i) {
        Expr lane = arg->IsVector() ? Lane(args[0], i) : args[0];
        lanes.push_back(Lane(Call("unpackHalf2x16", {lane}), 0));
      }
      return t->IsVector() ? Call(context_.TypeName(t), lanes) : lanes[0];
    }
    case I::MatMul:
      return MatMul(inst);
    case I::Transpose:
      return Transpose(t, arg, args[0]);
    case I::Determinant:
      return call("determinant");
  }
  SLOPE_ICE("unknown intrinsic");
}

}  // namespace slope::targets::glsl

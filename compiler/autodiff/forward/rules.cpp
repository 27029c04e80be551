// The derivative rules of intrinsics. intrinsics.def gives each intrinsic a rule:
//   Zero     no derivative (floor, ceil: piecewise constant)
//   Linear   the intrinsic applied to the tangents
//   Product  bilinear: f(da, b) + f(a, db)
//   Chain    the chain rule with the intrinsic's own derivative, written below
//   Select   picks one operand by a comparison: the tangent of the operand picked
// Chain and Select rules need a formula per intrinsic: the switch over all intrinsics
// in ChainRule makes a new one a compile error until it has its formula here.

#include "compiler/autodiff/forward/rules.h"

#include "compiler/autodiff/op_rules.h"
#include "compiler/base/ice.h"

namespace slope::autodiff::forward {

namespace {

using ir::Intrinsic;
using ir::Op;
using ir::Value;

using Rule = IntrinsicRule;

constexpr double kLn2 = 0.69314718055994530942;
constexpr double kLn10 = 2.30258509299404568402;

/// Builds tangent arithmetic; operands of a binary step may be null (a zero tangent).
class Rules {
 public:
  Rules(ir::Builder& b, const ir::Inst& primal, const std::vector<Value*>& args,
        const std::vector<Value*>& tangents)
      : b_(b), primal_(primal), args_(args), tangents_(tangents) {}

  Value* Tangent() {
    switch (DiffRuleOf(Which())) {
      case Rule::Zero:
      case Rule::None: return nullptr;
      case Rule::Linear: return Apply(Which(), Filled());
      case Rule::Product: return Product();
      case Rule::Chain:
      case Rule::Select: return ChainRule();
    }
    SLOPE_ICE("unknown derivative rule");
  }

 private:
  Intrinsic Which() const { return static_cast<Intrinsic>(primal_.imms.at(0)); }
  const ir::Type* Type() const { return primal_.GetType(); }
  Value* X(size_t i) const { return args_.at(i); }
  Value* D(size_t i) const { return tangents_.at(i); }
  /// The tangent of operand `i`, zero when it has none.
  Value* Dz(size_t i) { return D(i) != nullptr ? D(i) : Const(args_.at(i)->GetType(), 0.0); }
  std::vector<Value*> Filled() {
    std::vector<Value*> all;
    for (size_t i = 0; i < args_.size(); ++i) all.push_back(Dz(i));
    return all;
  }

  Value* Const(const ir::Type* type, double v) {
    Value* scalar = b_.GetModule().ConstFloat(type->Scalar(), v);
    if (type->IsMatrix()) {
      Value* row = b_.Splat(scalar, type->Cols());
      return b_.Emit(Op::MakeMatrix, type, std::vector<Value*>(type->Count(), row));
    }
    return type->IsVector() ? b_.Splat(scalar, type->Count()) : scalar;
  }
  Value* Apply(Intrinsic which, std::vector<Value*> operands) {
    return b_.CallIntrinsic(which, Type(), std::move(operands));
  }
  Value* Call1(Intrinsic which, Value* x) { return b_.CallIntrinsic(which, x->GetType(), {x}); }
  Value* Mul(Value* a, Value* b) { return a == nullptr || b == nullptr ? nullptr : b_.Binary(Op::Mul, a, b); }
  Value* Div(Value* a, Value* b) { return a == nullptr ? nullptr : b_.Binary(Op::Div, a, b); }
  Value* Sub(Value* a, Value* b) {
    if (b == nullptr) return a;
    return a == nullptr ? Neg(b) : b_.Binary(Op::Sub, a, b);
  }
  Value* Add(Value* a, Value* b) {
    if (a == nullptr) return b;
    return b == nullptr ? a : b_.Binary(Op::Add, a, b);
  }
  /// 1.0 where `op(a, b)` holds, else 0.0, in `a`'s type.
  Value* Mask(Op op, Value* a, Value* b) { return b_.Convert(b_.Compare(op, a, b), a->GetType()); }

  Value* Product() {
    Value* sum = nullptr;
    for (size_t i = 0; i < 2; ++i) {
      if (D(i) == nullptr) continue;
      std::vector<Value*> operands = args_;
      operands[i] = D(i);
      sum = Add(sum, Apply(Which(), operands));
    }
    return sum;
  }

  /// `b + mask * (a - b)`: the tangent of the operand a comparison picked.
  Value* Pick(Value* mask, Value* a, Value* b) { return Add(b, Mul(mask, Sub(a, b))); }

  Value* ChainRule();
  Value* Smoothstep();
  Value* Refract();
  Value* Neg(Value* a) { return a == nullptr ? nullptr : b_.Unary(Op::Neg, a); }
  /// `s` (a scalar) as `type` (splatted for a vector type).
  Value* SplatTo(Value* s, const ir::Type* type) {
    return type->IsVector() && !s->GetType()->IsVector() ? b_.Splat(s, type->Count()) : s;
  }
  /// Scalar `s` times `v`; null when either is.
  Value* Scale(Value* s, Value* v) {
    return s == nullptr || v == nullptr ? nullptr : Mul(SplatTo(s, v->GetType()), v);
  }
  /// dot(a, b) for vectors, a * b for scalars.
  Value* DotOf(Value* a, Value* b) {
    if (a == nullptr || b == nullptr) return nullptr;
    return a->GetType()->IsVector()
               ? b_.CallIntrinsic(Intrinsic::Dot, a->GetType()->Scalar(), {a, b})
               : b_.Binary(Op::Mul, a, b);
  }
  /// sqrt(1 - x x).
  Value* OneMinusSquareRoot(Value* x) {
    return Call1(Intrinsic::Sqrt, Sub(Const(x->GetType(), 1.0), b_.Binary(Op::Mul, x, x)));
  }

  ir::Builder& b_;
  const ir::Inst& primal_;
  const std::vector<Value*>& args_;
  const std::vector<Value*>& tangents_;
};

Value* Rules::ChainRule() {
  Value* r = const_cast<ir::Inst*>(&primal_);
  const ir::Type* t = Type();
  switch (Which()) {
    case Intrinsic::Sqrt: return Div(Mul(D(0), Const(t, 0.5)), r);
    case Intrinsic::Abs:
      return Mul(D(0), Sub(Mask(Op::Gt, X(0), Const(t, 0.0)), Mask(Op::Lt, X(0), Const(t, 0.0))));
    case Intrinsic::Min: return Pick(Mask(Op::Le, X(0), X(1)), Dz(0), Dz(1));
    case Intrinsic::Max: return Pick(Mask(Op::Ge, X(0), X(1)), Dz(0), Dz(1));
    case Intrinsic::Clamp: {
      Value* inside = Pick(Mask(Op::Lt, X(0), X(1)), Dz(1), Dz(0));
      return Pick(Mask(Op::Gt, X(0), X(2)), Dz(2), inside);
    }
    case Intrinsic::Saturate:
      return Mul(D(0), Mul(Mask(Op::Gt, X(0), Const(t, 0.0)), Mask(Op::Lt, X(0), Const(t, 1.0))));
    case Intrinsic::Exp: return Mul(D(0), r);
    case Intrinsic::Exp2: return Mul(D(0), Mul(r, Const(t, kLn2)));
    case Intrinsic::Log: return Div(D(0), X(0));
    case Intrinsic::Log2: return Div(D(0), Mul(X(0), Const(t, kLn2)));
    case Intrinsic::Log10: return Div(D(0), Mul(X(0), Const(t, kLn10)));
    case Intrinsic::Sin: return Mul(D(0), Call1(Intrinsic::Cos, X(0)));
    case Intrinsic::Cos: return Neg(Mul(D(0), Call1(Intrinsic::Sin, X(0))));
    case Intrinsic::Tan: return Mul(D(0), Add(Const(t, 1.0), Mul(r, r)));
    case Intrinsic::Asin: return Div(D(0), OneMinusSquareRoot(X(0)));
    case Intrinsic::Acos: return Neg(Div(D(0), OneMinusSquareRoot(X(0))));
    case Intrinsic::Atan: return Div(D(0), Add(Const(t, 1.0), Mul(X(0), X(0))));
    case Intrinsic::Atan2: {
      // atan2(y, x): (x dy - y dx) / (x^2 + y^2)
      Value* num = Sub(Mul(X(1), Dz(0)), Mul(X(0), Dz(1)));
      return Div(num, Add(Mul(X(0), X(0)), Mul(X(1), X(1))));
    }
    case Intrinsic::Sinh: return Mul(D(0), Call1(Intrinsic::Cosh, X(0)));
    case Intrinsic::Cosh: return Mul(D(0), Call1(Intrinsic::Sinh, X(0)));
    case Intrinsic::Tanh: return Mul(D(0), Sub(Const(t, 1.0), Mul(r, r)));
    case Intrinsic::Rsqrt: return Neg(Div(Mul(D(0), r), Mul(X(0), Const(t, 2.0))));
    case Intrinsic::Rcp: return Neg(Mul(D(0), Mul(r, r)));
    case Intrinsic::Pow: {
      // d(a^b) = b a^(b-1) da + a^b log(a) db; the db term only when b has a tangent,
      // so that a base <= 0 with a constant exponent stays finite.
      Value* power = Apply(Intrinsic::Pow, {X(0), Sub(X(1), Const(t, 1.0))});
      return Add(Mul(D(0), Mul(X(1), power)), Mul(D(1), Mul(r, Call1(Intrinsic::Log, X(0)))));
    }
    case Intrinsic::Frac: return D(0);
    case Intrinsic::Fmod: {
      Value* quotient = D(1) != nullptr ? Apply(Intrinsic::Trunc, {b_.Binary(Op::Div, X(0), X(1))}) : nullptr;
      return Add(D(0), Neg(Mul(D(1), quotient)));
    }
    case Intrinsic::Lerp: {
      // lerp(a, b, t) = a + t (b - a)
      Value* along = Add(Dz(0), Mul(X(2), Sub(Dz(1), Dz(0))));
      return Add(along, Mul(D(2), Sub(X(1), X(0))));
    }
    case Intrinsic::Fma:
    case Intrinsic::Mad: return Add(Add(Mul(D(0), X(1)), Mul(X(0), D(1))), D(2));
    case Intrinsic::Smoothstep: return Smoothstep();
    case Intrinsic::Length: return Div(DotOf(X(0), D(0)), r);
    case Intrinsic::Distance: {
      Value* diff = Sub(X(0), X(1));
      return Div(DotOf(diff, Sub(Dz(0), Dz(1))), r);
    }
    case Intrinsic::Normalize: {
      Value* length = b_.CallIntrinsic(Intrinsic::Length, t->Scalar(), {X(0)});
      return Div(Sub(D(0), Scale(DotOf(r, D(0)), r)), SplatTo(length, t));
    }
    case Intrinsic::Reflect: {
      // r = x - 2 dot(y, x) y
      Value* two = Const(t->Scalar(), 2.0);
      Value* dd = Add(DotOf(Dz(1), X(0)), DotOf(X(1), Dz(0)));
      Value* t1 = Sub(Dz(0), Scale(b_.Binary(Op::Mul, two, dd), X(1)));
      return Sub(t1, Scale(b_.Binary(Op::Mul, two, DotOf(X(1), X(0))), Dz(1)));
    }
    case Intrinsic::Refract: return Refract();
    case Intrinsic::Determinant: {
      // The sum over rows i of dot(cofactors of row i, dx row i): the cofactor of (i, j) is
      // det(x with row i replaced by the unit vector e_j), from the primal alone, so the
      // tangent is a dot with dx that reverse mode transposes.
      if (D(0) == nullptr) return nullptr;
      const ir::Type* mt = X(0)->GetType();
      const ir::Type* row_type = b_.GetModule().Types().Vector(mt->Scalar(), mt->Cols());
      Value* sum = nullptr;
      for (uint32_t i = 0; i < mt->Count(); ++i) {
        std::vector<Value*> cofactors;
        for (uint32_t j = 0; j < mt->Cols(); ++j) {
          std::vector<Value*> unit;
          for (uint32_t k = 0; k < mt->Cols(); ++k) unit.push_back(Const(mt->Scalar(), k == j));
          Value* e = b_.Emit(Op::MakeVector, row_type, unit);
          Value* replaced = b_.Emit(Op::Insert, mt, {X(0), e}, {i});
          cofactors.push_back(Apply(Intrinsic::Determinant, {replaced}));
        }
        Value* c = b_.Emit(Op::MakeVector, row_type, cofactors);
        sum = Add(sum, DotOf(c, b_.Extract(D(0), i)));
      }
      return sum;
    }
    case Intrinsic::FaceForward: {
      // dot(z, y) < 0 ? x : -x
      Value* m = Mask(Op::Lt, DotOf(X(2), X(1)), Const(t->Scalar(), 0.0));
      Value* sign = Sub(b_.Binary(Op::Mul, m, Const(t->Scalar(), 2.0)), Const(t->Scalar(), 1.0));
      return Scale(sign, Dz(0));
    }
    case Intrinsic::Floor:
    case Intrinsic::Ceil:
    case Intrinsic::Step:
    case Intrinsic::Sign:
    case Intrinsic::Round:
    case Intrinsic::Trunc:
    case Intrinsic::IsNan:
    case Intrinsic::IsInf:
    case Intrinsic::CountBits:
    case Intrinsic::FirstBitHigh:
    case Intrinsic::FirstBitLow:
    case Intrinsic::ReverseBits:
    case Intrinsic::Bitcast:
    case Intrinsic::F32ToF16:
    case Intrinsic::F16ToF32:
    case Intrinsic::Dot:
    case Intrinsic::Cross:
    case Intrinsic::MatMul:
    case Intrinsic::Transpose:
      SLOPE_ICE("intrinsic '" + std::string(ir::GetIntrinsicInfo(Which()).mnemonic) +
                "' has no chain rule");
  }
  SLOPE_ICE("unknown intrinsic");
}

Value* Rules::Smoothstep() {
  // u = (v - e0) / (e1 - e0); inside (0, 1): 6 u (1 - u) du, with
  // du = ((dv - de0)(e1 - e0) - (v - e0)(de1 - de0)) / (e1 - e0)^2
  const ir::Type* t = Type();
  Value* width = Sub(X(1), X(0));
  Value* offset = Sub(X(2), X(0));
  Value* u = b_.Binary(Op::Div, offset, width);
  Value* du_num = Sub(Mul(Sub(Dz(2), Dz(0)), width), Mul(offset, Sub(Dz(1), Dz(0))));
  Value* du = Div(du_num, Mul(width, width));
  Value* slope = Mul(Const(t, 6.0), Mul(u, Sub(Const(t, 1.0), u)));
  Value* inside = Mul(Mask(Op::Gt, u, Const(t, 0.0)), Mask(Op::Lt, u, Const(t, 1.0)));
  return Mul(Mul(slope, du), inside);
}

Value* Rules::Refract() {
  // refract(x, y, z) = z x - (z c + sqrt(k)) y with c = dot(y, x), k = 1 - z^2 (1 - c^2);
  // zero when k < 0.
  const ir::Type* s = Type()->Scalar();
  Value* z = X(2);
  Value* dz = Dz(2);
  Value* c = DotOf(X(1), X(0));
  Value* dc = Add(DotOf(Dz(1), X(0)), DotOf(X(1), Dz(0)));
  Value* one_minus_cc = Sub(Const(s, 1.0), Mul(c, c));
  Value* k = Sub(Const(s, 1.0), Mul(Mul(z, z), one_minus_cc));
  Value* root = b_.CallIntrinsic(Intrinsic::Sqrt, s, {b_.CallIntrinsic(Intrinsic::Max, s, {k, Const(s, 1e-30)})});
  Value* dk = Add(Mul(Mul(Const(s, -2.0), Mul(z, dz)), one_minus_cc),
                  Mul(Mul(Const(s, 2.0), Mul(z, z)), Mul(c, dc)));
  Value* dcoef = Add(Add(Mul(dz, c), Mul(z, dc)), Div(dk, Mul(Const(s, 2.0), root)));
  Value* t = Add(Scale(dz, X(0)), Scale(z, Dz(0)));
  t = Sub(t, Scale(dcoef, X(1)));
  t = Sub(t, Scale(Add(Mul(z, c), root), Dz(1)));
  return Scale(Mask(Op::Ge, k, Const(s, 0.0)), t);
}

}  // namespace

Value* IntrinsicTangent(ir::Builder& b, const ir::Inst& primal, const std::vector<Value*>& args,
                       const std::vector<Value*>& tangents) {
  return Rules(b, primal, args, tangents).Tangent();
}

bool IsDifferentiable(ir::Intrinsic which) { return DiffRuleOf(which) != Rule::None; }

}  // namespace slope::autodiff::forward

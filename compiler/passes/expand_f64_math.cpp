// expand-f64-math: GLSL.std.450 defines its transcendental functions (sin, exp, pow,
// atan2, ...) for 16- and 32-bit floats only. On f64 values this pass replaces each one
// by a call of a function it writes into the module (`slope.f64.exp`, ...), computed in
// double from operations SPIR-V has for f64 (add, mul, div, sqrt, floor, round, bit
// casts to 64-bit integers): range reduction, then a polynomial. Vectors and matrices
// call the function once per component.
//
// Accuracy: within 2 ulp of the correctly rounded result on random samples of each
// function's range (tests/lit/exec/double_math.slang checks 124 values, special ones
// included, at 1e-14), with IEEE results for 0, -0, infinities and NaN (C99 Annex F
// for pow and atan2). The
// reductions use double-word arithmetic (Dekker's exact products, Knuth's two-sum),
// so the written functions are `precise`: targets must not fuse or reassociate them.
// sin/cos/tan reduce by a three-part pi/2, exact while |x| < 2^50 (about 1.1e15);
// beyond that the reduction, and the result, lose accuracy gradually.

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/ir/cfg.h"
#include "compiler/passes/passes.h"

namespace slope::passes {
namespace {

using ir::Block;
using ir::Inst;
using ir::Intrinsic;
using ir::Op;
using ir::Value;

// Constants, from a 80-digit evaluation: hi + lo (+ lo2) is the value to 106+ bits.
constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 21 trailing zero bits
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kLn2 = 0.6931471805599453;
constexpr double kLn2Tail = 2.3190468138462996e-17;
constexpr double kInvLn2 = 1.4426950408889634;
constexpr double kInvLn10 = 0.4342944819032518;
constexpr double kLog10Of2Hi = 0.30102999560767785;  // 20 trailing zero bits
constexpr double kLog10Of2Lo = 5.630334806675098e-11;
constexpr double kPio2[3] = {1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33};
constexpr double kTwoOverPi = 0.6366197723675814;
constexpr double kPiHi = 3.141592653589793;
constexpr double kPiLo = 1.2246467991473532e-16;
constexpr double kPio4Hi = 0.7853981633974483;
constexpr double kPio4Lo = 3.061616997868383e-17;
constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kTanPiOver8 = 0.41421356237309503;

enum class Fn { ExpDD, Exp, Exp2, Log, Log2, Log10, Pow, Sin, Cos, Tan, Atan, Asin, Acos, Atan2,
                Sinh, Cosh, Tanh };

const char* FnName(Fn fn) {
  switch (fn) {
    case Fn::ExpDD: return "exp_dd";
    case Fn::Exp: return "exp";
    case Fn::Exp2: return "exp2";
    case Fn::Log: return "log";
    case Fn::Log2: return "log2";
    case Fn::Log10: return "log10";
    case Fn::Pow: return "pow";
    case Fn::Sin: return "sin";
    case Fn::Cos: return "cos";
    case Fn::Tan: return "tan";
    case Fn::Atan: return "atan";
    case Fn::Asin: return "asin";
    case Fn::Acos: return "acos";
    case Fn::Atan2: return "atan2";
    case Fn::Sinh: return "sinh";
    case Fn::Cosh: return "cosh";
    case Fn::Tanh: return "tanh";
  }
  return "";
}

bool FnOf(Intrinsic which, Fn* fn) {
  switch (which) {
    case Intrinsic::Exp: *fn = Fn::Exp; return true;
    case Intrinsic::Exp2: *fn = Fn::Exp2; return true;
    case Intrinsic::Log: *fn = Fn::Log; return true;
    case Intrinsic::Log2: *fn = Fn::Log2; return true;
    case Intrinsic::Log10: *fn = Fn::Log10; return true;
    case Intrinsic::Pow: *fn = Fn::Pow; return true;
    case Intrinsic::Sin: *fn = Fn::Sin; return true;
    case Intrinsic::Cos: *fn = Fn::Cos; return true;
    case Intrinsic::Tan: *fn = Fn::Tan; return true;
    case Intrinsic::Asin: *fn = Fn::Asin; return true;
    case Intrinsic::Acos: *fn = Fn::Acos; return true;
    case Intrinsic::Atan: *fn = Fn::Atan; return true;
    case Intrinsic::Atan2: *fn = Fn::Atan2; return true;
    case Intrinsic::Sinh: *fn = Fn::Sinh; return true;
    case Intrinsic::Cosh: *fn = Fn::Cosh; return true;
    case Intrinsic::Tanh: *fn = Fn::Tanh; return true;
    default: return false;
  }
}

/// Taylor coefficients sign^n / (step n + offset)!, n = 0..count-1 (exact factorials).
std::vector<double> Taylor(int offset, int step, int count, bool alternate) {
  std::vector<double> c;
  for (int n = 0; n < count; ++n) {
    double fact = 1.0;
    for (int i = 2; i <= step * n + offset; ++i) fact *= i;
    c.push_back(((alternate && n % 2 == 1) ? -1.0 : 1.0) / fact);
  }
  return c;
}

/// Writes one scalar f64 function's body with a small vocabulary of double operations.
/// Selections evaluate both sides (they are pure) and pick with a structured `if`.
class Emitter {
 public:
  Emitter(ir::Module& m, ir::Function* f) : m_(m), b_(m), f_(f) {
    f64_ = m.Types().Float(64);
    i64_ = m.Types().Int(64, true);
    b_.SetInsertBlock(NewBlock());
  }

  Value* C(double v) { return m_.ConstFloat(f64_, v); }
  Value* Add(Value* a, Value* b) { return b_.Binary(Op::Add, a, b); }
  Value* Sub(Value* a, Value* b) { return b_.Binary(Op::Sub, a, b); }
  Value* Mul(Value* a, Value* b) { return b_.Binary(Op::Mul, a, b); }
  Value* Div(Value* a, Value* b) { return b_.Binary(Op::Div, a, b); }
  Value* Neg(Value* a) { return b_.Unary(Op::Neg, a); }
  Value* Fn1(Intrinsic which, Value* a) { return b_.CallIntrinsic(which, f64_, {a}); }
  Value* Abs(Value* a) { return Fn1(Intrinsic::Abs, a); }
  Value* Floor(Value* a) { return Fn1(Intrinsic::Floor, a); }
  /// An integer nearest to a (halves up). Built on floor: some Vulkan drivers compute
  /// the f64 RoundEven and Trunc of GLSL.std.450 through 32-bit integers.
  Value* NearestInt(Value* a) { return Floor(Add(a, C(0.5))); }
  Value* Sqrt(Value* a) { return Fn1(Intrinsic::Sqrt, a); }
  Value* Cmp(Op op, Value* a, Value* b) { return b_.Compare(op, a, b); }
  Value* Lt(Value* a, Value* b) { return Cmp(Op::Lt, a, b); }
  Value* Gt(Value* a, Value* b) { return Cmp(Op::Gt, a, b); }
  Value* Le(Value* a, Value* b) { return Cmp(Op::Le, a, b); }
  Value* Eq(Value* a, Value* b) { return Cmp(Op::Eq, a, b); }
  Value* And(Value* a, Value* b) { return b_.Binary(Op::LogicalAnd, a, b); }
  Value* Or(Value* a, Value* b) { return b_.Binary(Op::LogicalOr, a, b); }
  Value* Not(Value* a) { return b_.Unary(Op::LogicalNot, a); }
  Value* IsNan(Value* a) { return b_.CallIntrinsic(Intrinsic::IsNan, m_.Types().Bool(), {a}); }
  Value* IsInf(Value* a) { return b_.CallIntrinsic(Intrinsic::IsInf, m_.Types().Bool(), {a}); }
  /// True for negative numbers, -0 and -inf.
  Value* SignBit(Value* a) {
    return Or(Lt(a, C(0.0)), And(Eq(a, C(0.0)), Lt(Div(C(1.0), a), C(0.0))));
  }
  Value* Call(ir::Function* callee, std::vector<Value*> args) { return b_.Call(callee, args); }

  /// `c ? a : b`.
  Value* Sel(Value* c, Value* a, Value* b) {
    Block* then_block = NewBlock();
    Block* else_block = NewBlock();
    Block* merge = NewBlock();
    ir::Param* p = m_.AddParam(a->GetType(), merge);
    merge->params.push_back(p);
    b_.If(c, then_block, else_block, merge);
    b_.SetInsertBlock(then_block);
    b_.Br(merge, {a});
    b_.SetInsertBlock(else_block);
    b_.Br(merge, {b});
    b_.SetInsertBlock(merge);
    return p;
  }

  /// Horner: c[0] + x (c[1] + x (c[2] + ...)).
  Value* Poly(Value* x, const std::vector<double>& c) {
    Value* acc = C(c.back());
    for (size_t i = c.size() - 1; i-- > 0;) acc = Add(C(c[i]), Mul(x, acc));
    return acc;
  }

  /// Dekker's product: a * b == hi + lo exactly (no overflow for |a|, |b| < 2^995).
  void TwoProd(Value* a, Value* b, Value** hi, Value** lo) {
    Value *ah, *al, *bh, *bl;
    Split(a, &ah, &al);
    Split(b, &bh, &bl);
    *hi = Mul(a, b);
    *lo = Add(Add(Add(Sub(Mul(ah, bh), *hi), Mul(ah, bl)), Mul(al, bh)), Mul(al, bl));
  }
  /// Knuth's sum: a + b == hi + lo exactly.
  void TwoSum(Value* a, Value* b, Value** hi, Value** lo) {
    *hi = Add(a, b);
    Value* bb = Sub(*hi, a);
    *lo = Add(Sub(a, Sub(*hi, bb)), Sub(b, bb));
  }

  /// 2^k for an integral double k in [-1022, 1023], built from its bits.
  Value* Pow2(Value* k) {
    Value* bits = b_.Binary(Op::Add, b_.Convert(k, i64_), m_.ConstInt(i64_, 1023));
    bits = b_.Binary(Op::Shl, bits, m_.ConstInt(i64_, 52));
    return b_.CallIntrinsic(Intrinsic::Bitcast, f64_, {bits});
  }
  /// The biased exponent field of x (a double) and x's significand scaled into [1, 2).
  void Unpack(Value* x, Value** exponent, Value** significand) {
    Value* bits = b_.CallIntrinsic(Intrinsic::Bitcast, i64_, {x});
    Value* e = b_.Binary(Op::BitAnd, b_.Binary(Op::Shr, bits, m_.ConstInt(i64_, 52)),
                         m_.ConstInt(i64_, 0x7ff));
    *exponent = b_.Convert(e, f64_);
    Value* m = b_.Binary(Op::BitAnd, bits, m_.ConstInt(i64_, 0x000fffffffffffffLL));
    m = b_.Binary(Op::BitOr, m, m_.ConstInt(i64_, 0x3ff0000000000000LL));
    *significand = b_.CallIntrinsic(Intrinsic::Bitcast, f64_, {m});
  }

  void Return(Value* v) { b_.Return(v); }

 private:
  Block* NewBlock() {
    Block* block = m_.AddBlock(f_);
    f_->blocks.push_back(block);
    return block;
  }
  void Split(Value* a, Value** hi, Value** lo) {
    Value* c = Mul(C(134217729.0), a);
    *hi = Sub(c, Sub(c, a));
    *lo = Sub(a, *hi);
  }

  ir::Module& m_;
  ir::Builder b_;
  ir::Function* f_;
  const ir::Type* f64_;
  const ir::Type* i64_;
};

Value* C(Emitter& e, double v) { return e.C(v); }
/// `x` where Dekker's splitting of it cannot overflow, else 0 (callers then drop the
/// low part of the product).
Value* Guard(Emitter& e, Value* x) {
  return e.Sel(e.Lt(e.Abs(x), e.C(1e300)), x, e.C(0.0));
}

class State {
 public:
  explicit State(ir::Module& module) : m_(module) {}
  bool Run();

 private:
  ir::Function* Get(Fn fn);
  void WriteBody(Fn fn, Emitter& e, const std::vector<Value*>& x);
  /// log(x) = e ln 2 + hi + lo for finite x > 0: the exponent e and log of the reduced
  /// significand as a double-word.
  void LogParts(Emitter& e, Value* x, Value** ex, Value** hi, Value** lo);
  /// x = k pi/2 + r with |r| <= pi/4 (about), and k mod 4.
  void ReducePio2(Emitter& e, Value* x, Value** r, Value** quadrant);
  Value* SinKernel(Emitter& e, Value* r);
  Value* CosKernel(Emitter& e, Value* r);
  /// sinh by its series, for |x| <= 1.
  Value* SinhSeries(Emitter& e, Value* x);
  /// Replaces the f64 math intrinsics of one function by calls, per component.
  bool RunOn(ir::Function& f);
  Value* CallPerComponent(Fn fn, const std::vector<Value*>& args, const Inst& at,
                          std::vector<Inst*>* out);

  ir::Module& m_;
  std::map<Fn, ir::Function*> functions_;
  /// The functions written, each after the ones it calls.
  std::vector<ir::Function*> finished_;
};

ir::Function* State::Get(Fn fn) {
  auto it = functions_.find(fn);
  if (it != functions_.end()) return it->second;
  const ir::Type* f64 = m_.Types().Float(64);
  ir::Function* f = m_.AddFunction(std::string("slope.f64.") + FnName(fn), f64);
  f->precise = true;
  functions_[fn] = f;
  int arity = fn == Fn::ExpDD || fn == Fn::Pow || fn == Fn::Atan2 ? 2 : 1;
  std::vector<Value*> params;
  for (int i = 0; i < arity; ++i) {
    f->params.push_back(m_.AddParam(f64, nullptr));
    params.push_back(f->params.back());
  }
  Emitter e(m_, f);
  WriteBody(fn, e, params);
  finished_.push_back(f);
  return f;
}

void State::LogParts(Emitter& e, Value* x, Value** ex, Value** hi, Value** lo) {
  // Subnormals are scaled into the normal range first.
  Value* sub = e.Lt(x, C(e, 2.2250738585072014e-308));
  Value* xs = e.Sel(sub, e.Mul(x, C(e, 18014398509481984.0)), x);  // 2^54
  Value *biased, *m;
  e.Unpack(xs, &biased, &m);
  Value* k = e.Sub(biased, e.Sel(sub, C(e, 1023.0 + 54.0), C(e, 1023.0)));
  // m in [sqrt(2)/2, sqrt(2)), f = m - 1 exactly.
  Value* big = e.Gt(m, C(e, kSqrt2));
  m = e.Sel(big, e.Mul(m, C(e, 0.5)), m);
  *ex = e.Sel(big, e.Add(k, C(e, 1.0)), k);
  Value* f = e.Sub(m, C(e, 1.0));
  // log(1 + f) = 2 atanh(s) = 2s + 2s^3/3 + 2s^5/5 + ..., s = f / (2 + f) as s + s_lo.
  Value* d = e.Add(C(e, 2.0), f);
  Value* d_lo = e.Add(e.Sub(C(e, 2.0), d), f);
  Value* s = e.Div(f, d);
  Value *sd_hi, *sd_lo;
  e.TwoProd(s, d, &sd_hi, &sd_lo);
  Value* residual = e.Sub(e.Sub(e.Sub(f, sd_hi), sd_lo), e.Mul(s, d_lo));
  Value* s_lo = e.Div(residual, d);
  Value* z = e.Mul(s, s);
  std::vector<double> c;
  for (int n = 1; n <= 12; ++n) c.push_back(2.0 / (2 * n + 1));
  Value* tail = e.Mul(e.Mul(s, z), e.Poly(z, c));
  *hi = e.Add(s, s);
  *lo = e.Add(e.Add(s_lo, s_lo), tail);
}

void State::ReducePio2(Emitter& e, Value* x, Value** r, Value** quadrant) {
  Value* k = e.NearestInt(e.Mul(x, C(e, kTwoOverPi)));
  // x - k P1 is exact while k P1 is near x: the product as a double-word, then the
  // smaller parts of pi/2.
  Value *p_hi, *p_lo, *q_hi, *q_lo;
  e.TwoProd(k, C(e, kPio2[0]), &p_hi, &p_lo);
  e.TwoProd(k, C(e, kPio2[1]), &q_hi, &q_lo);
  Value* t = e.Sub(e.Sub(x, p_hi), p_lo);
  Value *u, *u_lo;
  e.TwoSum(t, e.Neg(q_hi), &u, &u_lo);
  Value* rest = e.Sub(e.Sub(u_lo, q_lo), e.Mul(k, C(e, kPio2[2])));
  *r = e.Add(u, rest);
  *quadrant = e.Sub(k, e.Mul(C(e, 4.0), e.Floor(e.Mul(k, C(e, 0.25)))));
}

Value* State::SinKernel(Emitter& e, Value* r) {
  Value* z = e.Mul(r, r);
  std::vector<double> c = Taylor(3, 2, 9, false);  // 1/3!, 1/5!, ... alternating below
  for (size_t i = 0; i < c.size(); ++i) c[i] = (i % 2 == 0 ? -1.0 : 1.0) * c[i];
  return e.Add(r, e.Mul(e.Mul(r, z), e.Poly(z, c)));
}

Value* State::CosKernel(Emitter& e, Value* r) {
  Value* z = e.Mul(r, r);
  std::vector<double> c = Taylor(2, 2, 9, false);  // 1/2!, 1/4!, ...
  for (size_t i = 0; i < c.size(); ++i) c[i] = (i % 2 == 0 ? -1.0 : 1.0) * c[i];
  // 1 - z/2 + ...: the leading terms added last, smallest first.
  Value* hz = e.Mul(z, C(e, 0.5));
  Value* w = e.Sub(C(e, 1.0), hz);
  std::vector<double> rest(c.begin() + 1, c.end());
  Value* tail = e.Mul(e.Mul(z, z), e.Poly(z, rest));
  // w + ((1 - w) - hz) recovers the rounding of 1 - hz.
  return e.Add(w, e.Add(e.Sub(e.Sub(C(e, 1.0), w), hz), tail));
}

Value* State::SinhSeries(Emitter& e, Value* x) {
  Value* z = e.Mul(x, x);
  std::vector<double> c = Taylor(3, 2, 9, false);  // 1/3!, 1/5!, ...
  return e.Add(x, e.Mul(e.Mul(x, z), e.Poly(z, c)));
}

void State::WriteBody(Fn fn, Emitter& e, const std::vector<Value*>& x) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (fn) {
    case Fn::ExpDD: {
      // exp(hi + lo), |lo| tiny against hi: hi clamped where exp is 0 or inf anyway,
      // k = round(hi / ln 2), r = hi - k ln 2 + lo, exp(r) by its series, times 2^k in
      // two steps so that neither overflows before the result does.
      Value* hi = e.Sel(e.Gt(x[0], C(e, 1000.0)), C(e, 1000.0), x[0]);
      hi = e.Sel(e.Lt(hi, C(e, -1000.0)), C(e, -1000.0), hi);
      Value* k = e.NearestInt(e.Mul(hi, C(e, kInvLn2)));
      Value* r = e.Sub(hi, e.Mul(k, C(e, kLn2Hi)));
      r = e.Add(r, e.Sub(x[1], e.Mul(k, C(e, kLn2Lo))));
      Value* p = e.Poly(r, Taylor(0, 1, 15, false));
      Value* k1 = e.Floor(e.Mul(k, C(e, 0.5)));
      Value* k2 = e.Sub(k, k1);
      // NaN: k is NaN and so is p; the scale factors' bits do not matter.
      Value* k1c = e.Sel(e.IsNan(k1), C(e, 0.0), k1);
      Value* k2c = e.Sel(e.IsNan(k2), C(e, 0.0), k2);
      return e.Return(e.Mul(e.Mul(p, e.Pow2(k1c)), e.Pow2(k2c)));
    }
    case Fn::Exp:
      return e.Return(e.Call(Get(Fn::ExpDD), {x[0], C(e, 0.0)}));
    case Fn::Exp2: {
      // x ln 2 as a double-word.
      Value *hi, *lo;
      e.TwoProd(Guard(e, x[0]), C(e, kLn2), &hi, &lo);
      lo = e.Add(lo, e.Mul(x[0], C(e, kLn2Tail)));
      lo = e.Sel(e.Lt(e.Abs(hi), C(e, 1000.0)), lo, C(e, 0.0));
      hi = e.Mul(x[0], C(e, kLn2));
      return e.Return(e.Call(Get(Fn::ExpDD), {hi, lo}));
    }
    case Fn::Log: case Fn::Log2: case Fn::Log10: {
      Value *k, *hi, *lo;
      LogParts(e, x[0], &k, &hi, &lo);
      Value* v;
      if (fn == Fn::Log) {
        v = e.Add(e.Add(e.Mul(k, C(e, kLn2Hi)), hi), e.Add(lo, e.Mul(k, C(e, kLn2Lo))));
      } else if (fn == Fn::Log2) {
        v = e.Add(k, e.Mul(e.Add(hi, lo), C(e, kInvLn2)));
      } else {
        v = e.Add(e.Mul(k, C(e, kLog10Of2Hi)),
                  e.Add(e.Mul(e.Add(hi, lo), C(e, kInvLn10)), e.Mul(k, C(e, kLog10Of2Lo))));
      }
      v = e.Sel(e.IsInf(x[0]), x[0], v);
      v = e.Sel(e.Eq(x[0], C(e, 0.0)), C(e, -inf), v);
      v = e.Sel(e.Lt(x[0], C(e, 0.0)), C(e, nan), v);
      return e.Return(e.Sel(e.IsNan(x[0]), x[0], v));
    }
    case Fn::Pow: {
      Value* px = x[0];
      Value* y = x[1];
      Value* ax = e.Abs(px);
      // y log|x| as a double-word, then exp of it.
      Value *k, *hi, *lo;
      LogParts(e, ax, &k, &hi, &lo);
      Value *h, *h_lo;
      e.TwoSum(e.Mul(k, C(e, kLn2Hi)), hi, &h, &h_lo);
      Value* l = e.Add(e.Add(h_lo, lo), e.Mul(k, C(e, kLn2Lo)));
      Value *p, *p_lo;
      e.TwoProd(Guard(e, y), h, &p, &p_lo);
      p = e.Mul(y, h);
      p_lo = e.Add(p_lo, e.Mul(y, l));
      p_lo = e.Sel(e.Lt(e.Abs(p), C(e, 1000.0)), p_lo, C(e, 0.0));
      Value* v = e.Call(Get(Fn::ExpDD), {p, p_lo});
      // |x| 0 or inf, y inf: exp(y log|x|) has the limit C99 asks for.
      Value* special = e.Or(e.Or(e.Eq(ax, C(e, 0.0)), e.IsInf(ax)), e.IsInf(y));
      Value* log_ax = e.Call(Get(Fn::Log), {ax});
      Value* naive = e.Call(Get(Fn::Exp), {e.Mul(y, log_ax)});
      v = e.Sel(special, naive, v);
      // Negative x: integer y keeps the sign of an odd power, others have no real result.
      Value* y_int = e.Eq(e.Floor(y), y);
      Value* half = e.Mul(y, C(e, 0.5));
      Value* y_odd = e.And(y_int, e.Not(e.Eq(e.Floor(half), half)));
      v = e.Sel(e.And(e.SignBit(px), y_odd), e.Neg(v), v);
      v = e.Sel(e.And(e.And(e.Lt(px, C(e, 0.0)), e.Not(e.IsInf(px))), e.Not(y_int)), C(e, nan), v);
      v = e.Sel(e.Or(e.IsNan(px), e.IsNan(y)), C(e, nan), v);
      Value* one = e.Or(e.Or(e.Eq(y, C(e, 0.0)), e.Eq(px, C(e, 1.0))),
                        e.And(e.Eq(px, C(e, -1.0)), e.IsInf(y)));
      return e.Return(e.Sel(one, C(e, 1.0), v));
    }
    case Fn::Sin: case Fn::Cos: case Fn::Tan: {
      Value *r, *q;
      ReducePio2(e, x[0], &r, &q);
      Value* s = SinKernel(e, r);
      Value* c = CosKernel(e, r);
      Value* odd = e.Or(e.Eq(q, C(e, 1.0)), e.Eq(q, C(e, 3.0)));
      Value* v;
      if (fn == Fn::Sin) {
        v = e.Sel(odd, c, s);
        v = e.Sel(e.Le(C(e, 2.0), q), e.Neg(v), v);
      } else if (fn == Fn::Cos) {
        v = e.Sel(odd, s, c);
        v = e.Sel(e.Or(e.Eq(q, C(e, 1.0)), e.Eq(q, C(e, 2.0))), e.Neg(v), v);
      } else {
        v = e.Sel(odd, e.Neg(e.Div(c, s)), e.Div(s, c));
      }
      if (fn != Fn::Cos) v = e.Sel(e.Eq(x[0], C(e, 0.0)), x[0], v);  // keeps -0
      return e.Return(v);
    }
    case Fn::Atan: {
      // |x| > 1: pi/2 - atan(1/|x|); t > tan(pi/8): pi/4 + atan((t - 1) / (t + 1)); then
      // one halving atan(t) = 2 atan(t / (1 + sqrt(1 + t^2))) leaves |t| < 0.2 for
      // the series t - t^3/3 + t^5/5 - ...
      Value* a = e.Abs(x[0]);
      Value* inv = e.Gt(a, C(e, 1.0));
      Value* t = e.Sel(inv, e.Div(C(e, 1.0), a), a);
      Value* mid = e.Gt(t, C(e, kTanPiOver8));
      t = e.Sel(mid, e.Div(e.Sub(t, C(e, 1.0)), e.Add(t, C(e, 1.0))), t);
      Value* h = e.Div(t, e.Add(C(e, 1.0), e.Sqrt(e.Add(C(e, 1.0), e.Mul(t, t)))));
      Value* z = e.Mul(h, h);
      std::vector<double> c;
      for (int n = 1; n <= 13; ++n) c.push_back((n % 2 == 1 ? -1.0 : 1.0) / (2 * n + 1));
      Value* series = e.Add(h, e.Mul(e.Mul(h, z), e.Poly(z, c)));
      Value* v = e.Add(series, series);
      v = e.Sel(mid, e.Add(C(e, kPio4Hi), e.Add(v, C(e, kPio4Lo))), v);
      v = e.Sel(inv, e.Add(C(e, kPio2[0]), e.Sub(C(e, kPio2[1]), v)), v);
      v = e.Sel(e.Lt(x[0], C(e, 0.0)), e.Neg(v), v);
      return e.Return(e.Sel(e.Eq(x[0], C(e, 0.0)), x[0], v));
    }
    case Fn::Asin: case Fn::Acos: {
      Value* a = e.Abs(x[0]);
      Value* v;
      if (fn == Fn::Asin) {
        Value* root = e.Sqrt(e.Mul(e.Sub(C(e, 1.0), a), e.Add(C(e, 1.0), a)));
        v = e.Call(Get(Fn::Atan), {e.Div(a, root)});
        v = e.Sel(e.Lt(x[0], C(e, 0.0)), e.Neg(v), v);
        v = e.Sel(e.Eq(x[0], C(e, 0.0)), x[0], v);
      } else {
        Value* q = e.Div(e.Sub(C(e, 1.0), x[0]), e.Add(C(e, 1.0), x[0]));
        Value* at = e.Call(Get(Fn::Atan), {e.Sqrt(q)});
        v = e.Add(at, at);
      }
      return e.Return(e.Sel(e.Gt(a, C(e, 1.0)), C(e, nan), v));
    }
    case Fn::Atan2: {
      Value* y = x[0];
      Value* xx = x[1];
      Value* ay = e.Abs(y);
      Value* ax = e.Abs(xx);
      Value* both_inf = e.And(e.IsInf(ay), e.IsInf(ax));
      Value* t = e.Call(Get(Fn::Atan), {e.Sel(both_inf, C(e, 1.0), e.Div(ay, ax))});
      // Both zero: atan(0/0) would be NaN; the angle is 0 (or pi for x = -0).
      t = e.Sel(e.And(e.Eq(ay, C(e, 0.0)), e.Eq(ax, C(e, 0.0))), C(e, 0.0), t);
      Value* left = e.SignBit(xx);
      Value* v = e.Sel(left, e.Add(C(e, kPiHi), e.Sub(C(e, kPiLo), t)), t);
      v = e.Sel(e.SignBit(y), e.Neg(v), v);
      return e.Return(e.Sel(e.Or(e.IsNan(y), e.IsNan(xx)), C(e, nan), v));
    }
    case Fn::Sinh: case Fn::Cosh: case Fn::Tanh: {
      Value* a = e.Abs(x[0]);
      Value* ex = e.Call(Get(Fn::Exp), {a});
      Value* big_half = e.Call(Get(Fn::Exp), {e.Mul(a, C(e, 0.5))});
      Value* big = e.Mul(e.Mul(big_half, C(e, 0.5)), big_half);  // e^a / 2 without overflow
      Value* v;
      if (fn == Fn::Sinh) {
        v = e.Mul(e.Sub(ex, e.Div(C(e, 1.0), ex)), C(e, 0.5));
        v = e.Sel(e.Gt(a, C(e, 22.0)), big, v);
        v = e.Sel(e.Lt(a, C(e, 1.0)), SinhSeries(e, a), v);
        v = e.Sel(e.Lt(x[0], C(e, 0.0)), e.Neg(v), v);
        v = e.Sel(e.Eq(x[0], C(e, 0.0)), x[0], v);
      } else if (fn == Fn::Cosh) {
        v = e.Mul(e.Add(ex, e.Div(C(e, 1.0), ex)), C(e, 0.5));
        v = e.Sel(e.Gt(a, C(e, 22.0)), big, v);
      } else {
        Value* s = SinhSeries(e, a);
        Value* small = e.Div(s, e.Sqrt(e.Add(C(e, 1.0), e.Mul(s, s))));
        Value* e2 = e.Call(Get(Fn::Exp), {e.Add(a, a)});
        v = e.Sub(C(e, 1.0), e.Div(C(e, 2.0), e.Add(e2, C(e, 1.0))));
        v = e.Sel(e.Lt(a, C(e, 1.0)), small, v);
        v = e.Sel(e.Lt(x[0], C(e, 0.0)), e.Neg(v), v);
        v = e.Sel(e.Eq(x[0], C(e, 0.0)), x[0], v);
      }
      return e.Return(e.Sel(e.IsNan(x[0]), x[0], v));
    }
  }
}

bool State::RunOn(ir::Function& f) {
  std::map<const Value*, Value*> replaced;
  for (Block* b : f.blocks) {
    std::vector<Inst*> insts;
    for (Inst* inst : b->insts) {
      Fn fn;
      const ir::Type* s = inst->GetType()->Scalar();
      if (inst->GetOp() != Op::Intrinsic || !s->IsFloat() || s->Width() != 64 ||
          !FnOf(static_cast<Intrinsic>(inst->imms[0]), &fn)) {
        insts.push_back(inst);
        continue;
      }
      replaced[inst] = CallPerComponent(fn, inst->operands, *inst, &insts);
    }
    b->insts = std::move(insts);
  }
  if (replaced.empty()) return false;
  ir::ReplaceUses(f, replaced);
  return true;
}

Value* State::CallPerComponent(Fn fn, const std::vector<Value*>& args, const Inst& at,
                               std::vector<Inst*>* out) {
  auto place = [&](Inst* inst) {
    inst->block = at.block;
    inst->loc = at.loc;
    out->push_back(inst);
    return inst;
  };
  const ir::Type* t = args[0]->GetType();
  if (t->IsScalar()) {
    Inst* call = m_.NewInst(Op::Call, t);
    call->callee = Get(fn);
    call->operands = args;
    return place(call);
  }
  // A vector's lanes or a matrix's rows, one by one.
  uint32_t count = t->Count();
  std::vector<Value*> parts;
  for (uint32_t i = 0; i < count; ++i) {
    std::vector<Value*> lane_args;
    for (Value* a : args) {
      const ir::Type* part = t->IsMatrix() ? t->Element() : t->Scalar();
      Inst* ex = m_.NewInst(Op::Extract, part);
      ex->operands = {a};
      ex->imms = {i};
      lane_args.push_back(place(ex));
    }
    parts.push_back(CallPerComponent(fn, lane_args, at, out));
  }
  Inst* whole = m_.NewInst(t->IsMatrix() ? Op::MakeMatrix : Op::MakeVector, t);
  whole->operands = parts;
  return place(whole);
}

bool State::Run() {
  bool changed = false;
  // Only the functions there are now: the ones this pass writes call no intrinsic it
  // replaces.
  std::vector<ir::Function*> existing = m_.functions;
  for (ir::Function* f : existing) changed |= RunOn(*f);
  // The written functions go first, callees before callers, for targets that need a
  // function defined before its calls (GLSL).
  if (!finished_.empty()) {
    std::vector<ir::Function*> order = finished_;
    for (ir::Function* f : existing) order.push_back(f);
    m_.functions = std::move(order);
  }
  return changed;
}

}  // namespace

Result ExpandF64Math(ir::Module& module, const Options&) {
  Result result;
  result.changed = State(module).Run();
  return result;
}

}  // namespace slope::passes

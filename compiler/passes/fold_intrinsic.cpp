// Constant folding of the component-wise intrinsics whose result the target computes
// exactly (rounding, selection, integer bit counts) or correctly rounded (sqrt), so
// that a folded value is the one the target would produce. Transcendentals, fma and mad
// on floats are left to the target, whose precision differs from the host's.

#include <bit>
#include <cmath>

#include "compiler/passes/passes.h"

namespace slope::passes {
namespace {

using ir::Constant;
using ir::Intrinsic;

const Constant* AsConst(ir::Value* v) { return static_cast<const Constant*>(v); }

/// A float intrinsic on lanes x, y, z (f32 results are computed in float); NaN when it
/// is not folded.
double FloatLane(Intrinsic which, double x, double y, double z) {
  switch (which) {
    case Intrinsic::Abs: return std::fabs(x);
    case Intrinsic::Min: return std::fmin(x, y);
    case Intrinsic::Max: return std::fmax(x, y);
    case Intrinsic::Clamp: return y <= z ? std::fmin(std::fmax(x, y), z) : NAN;
    case Intrinsic::Saturate: return std::fmin(std::fmax(x, 0.0), 1.0);
    case Intrinsic::Floor: return std::floor(x);
    case Intrinsic::Ceil: return std::ceil(x);
    case Intrinsic::Round: return std::nearbyint(x);  // to nearest, halves to even
    case Intrinsic::Trunc: return std::trunc(x);
    case Intrinsic::Frac: return x - std::floor(x);
    case Intrinsic::Fmod: return y != 0.0 ? std::fmod(x, y) : NAN;
    case Intrinsic::Step: return y >= x ? 1.0 : 0.0;  // step(edge, v): v >= edge
    case Intrinsic::Sqrt: return x >= 0.0 ? std::sqrt(x) : NAN;
    default: return NAN;
  }
}

/// An integer intrinsic on lanes of width `w` (sign-extended when signed); false when
/// it is not folded.
bool IntLane(Intrinsic which, const ir::Type* t, int64_t x, int64_t y, int64_t z, uint64_t* out) {
  uint32_t w = t->Width();
  uint64_t mask = w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  uint64_t ux = static_cast<uint64_t>(x) & mask;
  bool is_signed = t->IsSigned();
  auto less = [&](int64_t a, int64_t b) {
    return is_signed ? a < b
                     : (static_cast<uint64_t>(a) & mask) < (static_cast<uint64_t>(b) & mask);
  };
  switch (which) {
    case Intrinsic::Abs: *out = static_cast<uint64_t>(is_signed && x < 0 ? -x : x); return true;
    case Intrinsic::Min: *out = static_cast<uint64_t>(less(y, x) ? y : x); return true;
    case Intrinsic::Max: *out = static_cast<uint64_t>(less(x, y) ? y : x); return true;
    case Intrinsic::Clamp:
      if (less(z, y)) return false;
      *out = static_cast<uint64_t>(less(x, y) ? y : less(z, x) ? z : x);
      return true;
    case Intrinsic::Mad:
      *out = static_cast<uint64_t>(x) * static_cast<uint64_t>(y) + static_cast<uint64_t>(z);
      return true;
    case Intrinsic::Sign: *out = static_cast<uint64_t>(x > 0 ? 1 : x < 0 ? -1 : 0); return true;
    case Intrinsic::CountBits: *out = static_cast<uint64_t>(std::popcount(ux)); return true;
    case Intrinsic::FirstBitLow:
      *out = ux == 0 ? ~uint64_t{0} : static_cast<uint64_t>(std::countr_zero(ux));
      return true;
    case Intrinsic::FirstBitHigh: {
      // Signed: the highest bit that differs from the sign bit.
      uint64_t v = is_signed && x < 0 ? ~ux & mask : ux;
      *out = v == 0 ? ~uint64_t{0} : static_cast<uint64_t>(63 - std::countl_zero(v));
      return true;
    }
    case Intrinsic::ReverseBits: {
      uint64_t r = 0;
      for (uint32_t i = 0; i < w; ++i) r |= ((ux >> i) & 1) << (w - 1 - i);
      *out = r;
      return true;
    }
    default: return false;
  }
}

}  // namespace

const ir::Constant* FoldIntrinsicLane(ir::Module& module, ir::Intrinsic which,
                                      const ir::Type* result,
                                      const std::vector<const ir::Constant*>& lanes) {
  const ir::Type* t = lanes[0]->GetType();
  auto lane = [&](size_t i) { return i < lanes.size() ? lanes[i] : lanes[0]; };
  if (t->IsFloat()) {
    double x = lanes[0]->AsDouble();
    if (which == Intrinsic::IsNan) return AsConst(module.ConstBool(std::isnan(x)));
    if (which == Intrinsic::IsInf) return AsConst(module.ConstBool(std::isinf(x)));
    if (which == Intrinsic::Sign)
      return AsConst(module.ConstInt(result, x > 0 ? 1 : x < 0 ? -1 : 0));
    if (std::isnan(x) || std::isnan(lane(1)->AsDouble()) || std::isnan(lane(2)->AsDouble()))
      return nullptr;
    double v = FloatLane(which, x, lane(1)->AsDouble(), lane(2)->AsDouble());
    if (t->Width() == 32 && which == Intrinsic::Sqrt) v = std::sqrt(static_cast<float>(x));
    return std::isnan(v) ? nullptr : AsConst(module.ConstFloat(result, v));
  }
  if (!t->IsInt()) return nullptr;
  uint64_t bits = 0;
  if (!IntLane(which, t, lanes[0]->AsSigned(), lane(1)->AsSigned(), lane(2)->AsSigned(), &bits)) {
    return nullptr;
  }
  return AsConst(module.ConstInt(result, static_cast<int64_t>(bits)));
}

}  // namespace slope::passes

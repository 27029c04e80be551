#include "compiler/base/half.h"

#include <cmath>
#include <limits>

namespace slope::base {

uint16_t HalfFromDouble(double value) {
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  const double a = std::fabs(value);
  if (std::isnan(value)) return sign | 0x7e00;
  // 65504 is the largest half; from halfway to the next power of two on, it rounds up.
  if (a >= 65520.0) return sign | 0x7c00;
  if (a < std::ldexp(1.0, -14)) {
    // Subnormal: a multiple of 2^-24. A result of 1024 is the smallest normal, whose
    // bits are the same number.
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(a, 24))));
  }
  int exp = 0;
  std::frexp(a, &exp);  // a = f * 2^exp with f in [0.5, 1)
  // The significand with its leading one, in [1024, 2048]; 2048 carries into the
  // exponent when added below.
  auto significand = static_cast<uint32_t>(std::nearbyint(std::ldexp(a, 11 - exp)));
  uint32_t biased = static_cast<uint32_t>(exp - 1 + 15);
  return static_cast<uint16_t>(sign | ((biased << 10) + significand - 1024));
}

double HalfToDouble(uint16_t bits) {
  const double sign = (bits & 0x8000) != 0 ? -1.0 : 1.0;
  const int exponent = (bits >> 10) & 0x1f;
  const int fraction = bits & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(fraction, -24);
  if (exponent == 31) {
    return fraction != 0 ? std::numeric_limits<double>::quiet_NaN()
                         : sign * std::numeric_limits<double>::infinity();
  }
  return sign * std::ldexp(fraction + 1024, exponent - 25);
}

}  // namespace slope::base

#pragma once
// IEEE 754 binary16 ("half") conversions, for constants the compiler folds and writes and
// for buffer values the tools read and print.

#include <cstdint>

namespace slope::base {

/// The half nearest to `value` (ties to even), as its 16 bits; values at or beyond
/// 65520 in magnitude become infinities, NaN stays NaN.
uint16_t HalfFromDouble(double value);

/// The value of the half whose bits are `bits` (exact in a double).
double HalfToDouble(uint16_t bits);

/// `value` rounded to the nearest half, as a double.
inline double RoundToHalf(double value) { return HalfToDouble(HalfFromDouble(value)); }

}  // namespace slope::base

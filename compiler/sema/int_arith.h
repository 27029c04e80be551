#pragma once
// Two's complement arithmetic on 64 bits without signed overflow: what constant
// expressions (check_switch.cpp) and generic value expressions (int_exprs.cpp) compute
// with before wrapping to their type (WrapToWidth).

#include <cstdint>

namespace slope::sema {

/// `v` wrapped to an integer of `width` bits, sign-extended when `is_signed`.
inline int64_t WrapToWidth(int64_t v, int64_t width, bool is_signed) {
  if (width >= 64) return v;
  uint64_t mask = (uint64_t{1} << width) - 1;
  uint64_t bits = static_cast<uint64_t>(v) & mask;
  if (is_signed && (bits >> (width - 1)) != 0) bits |= ~mask;
  return static_cast<int64_t>(bits);
}

inline int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t WrapNeg(int64_t a) { return static_cast<int64_t>(0 - static_cast<uint64_t>(a)); }
inline int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
inline bool Less(int64_t a, int64_t b, bool unsigned64) {
  return unsigned64 ? static_cast<uint64_t>(a) < static_cast<uint64_t>(b) : a < b;
}
/// `a / b` (or, with `remainder`, `a % b`); false when it has no value (by zero, or
/// INT64_MIN / -1).
inline bool DivideInts(bool remainder, int64_t a, int64_t b, bool unsigned64, int64_t* out) {
  if (b == 0) return false;
  if (unsigned64) {
    uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    *out = static_cast<int64_t>(remainder ? ua % ub : ua / ub);
    return true;
  }
  if (a == INT64_MIN && b == -1) return false;
  *out = remainder ? a % b : a / b;
  return true;
}

}  // namespace slope::sema

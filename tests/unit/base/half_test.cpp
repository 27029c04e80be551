// Half conversions against values worked out by hand from the binary16 format: 1 sign
// bit, 5 exponent bits (bias 15), 10 fraction bits.

#include "compiler/base/half.h"

#include <gtest/gtest.h>

#include <cmath>

namespace slope::base {
namespace {

TEST(HalfTest, ExactValuesKeepTheirBits) {
  EXPECT_EQ(HalfFromDouble(1.0), 0x3c00);   // exponent 15, fraction 0
  EXPECT_EQ(HalfFromDouble(-2.0), 0xc000);  // sign, exponent 16
  EXPECT_EQ(HalfFromDouble(65504.0), 0x7bff);  // the largest half
  EXPECT_EQ(HalfFromDouble(std::ldexp(1.0, -24)), 0x0001);  // the smallest subnormal
  EXPECT_EQ(HalfFromDouble(0.0), 0x0000);
  EXPECT_EQ(HalfFromDouble(-0.0), 0x8000);
}

TEST(HalfTest, RoundsToNearestEven) {
  // 2049 lies halfway between 2048 (fraction 0) and 2050 (fraction 1): the even one wins.
  EXPECT_EQ(HalfToDouble(HalfFromDouble(2049.0)), 2048.0);
  // 2051 lies halfway between 2050 (odd) and 2052 (even).
  EXPECT_EQ(HalfToDouble(HalfFromDouble(2051.0)), 2052.0);
  // 0.1 is 1.6 * 2^-4: fraction 0.6 * 1024 = 614.4 rounds to 614, 0.0999755859375.
  EXPECT_EQ(HalfFromDouble(0.1), 0x2e66);
  EXPECT_EQ(HalfToDouble(0x2e66), 0.0999755859375);
  // A subnormal rounding up into the smallest normal, 2^-14.
  EXPECT_EQ(HalfFromDouble(std::ldexp(1023.75, -24)), 0x0400);
}

TEST(HalfTest, OverflowAndNaN) {
  EXPECT_EQ(HalfFromDouble(65519.0), 0x7bff);  // below the halfway point 65520
  EXPECT_EQ(HalfFromDouble(65520.0), 0x7c00);  // rounds up to infinity
  EXPECT_EQ(HalfFromDouble(-1e10), 0xfc00);
  EXPECT_TRUE(std::isnan(HalfToDouble(HalfFromDouble(std::nan("")))));
  EXPECT_TRUE(std::isinf(HalfToDouble(0x7c00)));
}

}  // namespace
}  // namespace slope::base

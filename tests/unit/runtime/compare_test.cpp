// slope-run -backend=all's comparison of two backends' outputs: integers exactly, floats
// within the tolerance, the -time line ignored, and the first difference named.

#include "tools/slope-run/compare.h"

#include <gtest/gtest.h>

namespace slope::run {
namespace {

TEST(CompareTest, IntegersMustBeEqual) {
  EXPECT_TRUE(SameWord("42", "42", 1e-5));
  EXPECT_FALSE(SameWord("8", "32", 1e-5));
  EXPECT_FALSE(SameWord("100000", "100001", 1e-5));  // within 1e-5 relative, but integers
}

TEST(CompareTest, FloatsAgreeWithinTheTolerance) {
  EXPECT_TRUE(SameWord("0.3", "0.30000001", 1e-5));
  EXPECT_TRUE(SameWord("12345.678", "12345.75", 1e-5));   // relative to the magnitude
  EXPECT_FALSE(SameWord("12345.678", "12346.5", 1e-5));
  EXPECT_TRUE(SameWord("1e-9", "-2e-9", 1e-5));           // near zero: absolute, scale 1
  EXPECT_FALSE(SameWord("0.5", "0.5001", 1e-5));
  EXPECT_TRUE(SameWord("0.5", "0.5001", 1e-3));
  EXPECT_TRUE(SameWord("nan", "-nan", 1e-5));
  EXPECT_FALSE(SameWord("nan", "0.5", 1e-5));
  EXPECT_TRUE(SameWord("inf", "inf", 1e-5));
  EXPECT_FALSE(SameWord("inf", "-inf", 1e-5));
  EXPECT_FALSE(SameWord("out:", "back:", 1e-5));
}

TEST(CompareTest, NamesTheFirstDifference) {
  EXPECT_EQ(FirstDifference("out: 1 2 3\nback: 0.5\n", "out: 1 2 3\nback: 0.5000001\n", 1e-5),
            "");
  EXPECT_EQ(FirstDifference("out: 1 2 3\n", "out: 1 2 4\n", 1e-5),
            "line 1 ('out:'), word 4: 3 vs 4");
  EXPECT_EQ(FirstDifference("out: 1 2\n", "out: 1 2 3\n", 1e-5),
            "line 1 ('out:'), word 4: (nothing) vs 3");
  EXPECT_EQ(FirstDifference("out: 1\nback: 2\n", "out: 1\n", 1e-5),
            "line 2 is missing from one: 'back: 2'");
}

TEST(CompareTest, TheTimeLineIsNotAResult) {
  EXPECT_EQ(FirstDifference("out: 1\nkernel time: 0.9 ms\n", "out: 1\nkernel time: 0.05 ms\n",
                            1e-5),
            "");
  std::vector<std::string> lines = ResultLines("a: 1\nkernel time: 3 ms\nb: 2\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "b: 2");
}

}  // namespace
}  // namespace slope::run

#include <gtest/gtest.h>

#include "compiler/base/ice.h"

namespace slope::base {
namespace {

TEST(IceDeathTest, ReportsTheLocationBeingCompiledAndExitsNonZero) {
  EXPECT_EXIT(
      {
        IceLocationScope outer("kernel.slang:3:7");
        IceLocationScope inner("kernel.slang:12:5");
        SLOPE_ICE("bad thing");
      },
      ::testing::ExitedWithCode(kIceExitCode),
      "kernel.slang:12:5: internal compiler error: bad thing");
}

TEST(IceDeathTest, FailedAssertionIsAnIce) {
  EXPECT_EXIT(
      {
        IceLocationScope where("a.slang:1:1");
        int two = 2;
        SLOPE_ASSERT(two == 3);
      },
      ::testing::ExitedWithCode(kIceExitCode),
      "a.slang:1:1: internal compiler error: assertion failed: two == 3");
}

TEST(IceTest, ScopesRestoreTheOuterLocation) {
  IceLocationScope outer("outer");
  {
    IceLocationScope inner("inner");
    EXPECT_EQ(IceLocationScope::Current()->Where(), "inner");
  }
  EXPECT_EQ(IceLocationScope::Current()->Where(), "outer");
}

}  // namespace
}  // namespace slope::base

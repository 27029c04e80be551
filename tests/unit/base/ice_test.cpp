#include <gtest/gtest.h>

#include <string>

#include "compiler/base/ice.h"

namespace slope::base {
namespace {

/// The report of the InternalError `raise` throws; fails the test when none is thrown.
template <typename Raise>
std::string ReportOf(Raise raise) {
  try {
    raise();
  } catch (const InternalError& error) {
    return error.Report();
  }
  ADD_FAILURE() << "no InternalError was thrown";
  return "";
}

TEST(IceTest, ThrowsAReportNamingTheLocationBeingCompiled) {
  std::string report = ReportOf([] {
    IceLocationScope outer("kernel.slang:3:7");
    IceLocationScope inner("kernel.slang:12:5");
    SLOPE_ICE("bad thing");
  });
  EXPECT_EQ(report.rfind("kernel.slang:12:5: internal compiler error: bad thing\n"
                         "note: raised at ",
                         0),
            0u)
      << report;
  EXPECT_NE(report.find("ice_test.cpp:"), std::string::npos) << report;
  EXPECT_NE(report.find("; please report this bug"), std::string::npos) << report;
}

TEST(IceTest, FailedAssertionIsAnIce) {
  std::string report = ReportOf([] {
    IceLocationScope where("a.slang:1:1");
    int two = 2;
    SLOPE_ASSERT(two == 3);
  });
  EXPECT_EQ(report.rfind("a.slang:1:1: internal compiler error: assertion failed: two == 3", 0),
            0u)
      << report;
}

TEST(IceTest, WithoutAScopeTheReportHasNoLocation) {
  std::string report = ReportOf([] { SLOPE_ICE("lost"); });
  EXPECT_EQ(report.rfind("internal compiler error: lost\n", 0), 0u) << report;
}

TEST(IceDeathTest, ToolsExitWithTheReportAndStatus70) {
  EXPECT_EXIT(
      {
        try {
          IceLocationScope where("kernel.slang:12:5");
          SLOPE_ICE("bad thing");
        } catch (const InternalError& error) {
          ExitWithIce(error);
        }
      },
      ::testing::ExitedWithCode(70), "kernel.slang:12:5: internal compiler error: bad thing");
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

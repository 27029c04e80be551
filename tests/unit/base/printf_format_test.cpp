// Vulkan's vector printf conversions written out for C's printf (CUDA C++ and PTX).

#include "compiler/base/printf_format.h"

#include <gtest/gtest.h>

namespace slope::base {
namespace {

TEST(PrintfFormatTest, VectorConversionsBecomeOnePerComponent) {
  EXPECT_EQ(ExpandVectorConversions("vec=%v3f\n"), "vec=%f, %f, %f\n");
  EXPECT_EQ(ExpandVectorConversions("%5.2v2e|%-4v4d"), "%5.2e, %5.2e|%-4d, %-4d, %-4d, %-4d");
  EXPECT_EQ(ExpandVectorConversions("%v2x and %u"), "%x, %x and %u");
}

TEST(PrintfFormatTest, EverythingElseStays) {
  EXPECT_EQ(ExpandVectorConversions("100%% of %d, %08.3f"), "100%% of %d, %08.3f");
  EXPECT_EQ(ExpandVectorConversions("no conversions"), "no conversions");
  EXPECT_EQ(ExpandVectorConversions("trailing %"), "trailing %");
}

}  // namespace
}  // namespace slope::base

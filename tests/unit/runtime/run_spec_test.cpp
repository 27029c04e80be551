// slope-run's runner without the compiler: specs checked against hand-written
// reflection, std430 packing, output formatting, and whole runs of glslang-compiled
// kernels on the Vulkan device (skipped when there is none).

#include "tools/slope-run/run_spec.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>

#include "tests/unit/runtime/glsl_to_spirv.h"

namespace slope::run {
namespace {

using driver::BindingInfo;
using driver::ElementLayout;
using driver::EntryPointInfo;
using driver::Reflection;
using driver::ResourceKind;
using driver::ScalarKind;

TestSpec Parse(const std::string& source) {
  TestSpec spec;
  SpecError error;
  EXPECT_TRUE(ParseTestSpec(source, &spec, &error)) << error.line << ": " << error.message;
  return spec;
}

TEST(FormatTest, FloatsUseShortestRoundTripForm) {
  EXPECT_EQ(FormatFloat(2.0f), "2");
  EXPECT_EQ(FormatFloat(0.5f), "0.5");
  EXPECT_EQ(FormatFloat(-1.25f), "-1.25");
  EXPECT_EQ(FormatFloat(10.0f / 3.0f), "3.3333333");
  EXPECT_EQ(FormatFloat(0.1f), "0.1");
  EXPECT_EQ(FormatFloat(std::numeric_limits<float>::infinity()), "inf");
}

TEST(FormatTest, PackAndFormatHonourStride) {
  TestSpec spec = Parse("//INPUT: buffer v int3 [1, -2, 3, 4, 5, -6]\n");
  ElementLayout int3{ScalarKind::Int32, 3, 12, 16};
  std::vector<std::byte> bytes = PackBuffer(spec.buffers[0], int3);
  ASSERT_EQ(bytes.size(), 32u);
  int32_t words[8];
  std::memcpy(words, bytes.data(), sizeof(words));
  EXPECT_EQ(words[0], 1);
  EXPECT_EQ(words[1], -2);
  EXPECT_EQ(words[2], 3);
  EXPECT_EQ(words[3], 0);  // padding
  EXPECT_EQ(words[4], 4);
  EXPECT_EQ(words[6], -6);
  // Garbage in the padding must not show up in the output.
  words[3] = 999;
  std::memcpy(bytes.data(), words, sizeof(words));
  EXPECT_EQ(FormatBuffer(spec.buffers[0], int3, bytes), "v: 1 -2 3 4 5 -6");
}

TEST(FormatTest, UintsPrintUnsigned) {
  TestSpec spec = Parse("//OUTPUT: buffer u uint 2 = [4294967295, 7]\n");
  ElementLayout uint1{ScalarKind::UInt32, 1, 4, 4};
  EXPECT_EQ(FormatBuffer(spec.buffers[0], uint1, PackBuffer(spec.buffers[0], uint1)),
            "u: 4294967295 7");
}

Reflection OneBufferReflection(ElementLayout layout, ResourceKind kind) {
  Reflection reflection;
  reflection.entry_points.push_back(EntryPointInfo{"main", {1, 1, 1}});
  reflection.bindings.push_back(BindingInfo{"data", kind, 0, 0, layout});
  return reflection;
}

/// struct Item { float3 dir; float weight; int id; } in std430: 0, 12, 16; stride 32.
ElementLayout ItemLayout() {
  ElementLayout item;
  item.size = 32;
  item.stride = 32;
  item.struct_name = "Item";
  item.fields = {{"dir", ScalarKind::Float32, 3, 0},
                 {"weight", ScalarKind::Float32, 1, 12},
                 {"id", ScalarKind::Int32, 1, 16}};
  return item;
}

TEST(FormatTest, StructBuffersPackMembersAtTheirOffsets) {
  TestSpec spec = Parse("//INPUT: buffer v Item [1, 2, 3, 0.5, -4, 5, 6, 7, 8, 9]\n");
  ASSERT_EQ(spec.buffers[0].type.struct_name, "Item");
  ElementLayout item = ItemLayout();
  std::vector<std::byte> bytes = PackBuffer(spec.buffers[0], item);
  ASSERT_EQ(bytes.size(), 64u);
  float f[16];
  int32_t i[16];
  std::memcpy(f, bytes.data(), sizeof(f));
  std::memcpy(i, bytes.data(), sizeof(i));
  EXPECT_EQ(f[2], 3.0f);
  EXPECT_EQ(f[3], 0.5f);  // the float after a float3 packs at offset 12
  EXPECT_EQ(i[4], -4);
  EXPECT_EQ(f[8], 5.0f);  // element 1 starts at byte 32
  EXPECT_EQ(i[12], 9);
  spec.buffers[0].role = BufferRole::Output;
  spec.buffers[0].count = 2;
  EXPECT_EQ(FormatBuffer(spec.buffers[0], item, bytes), "v: 1 2 3 0.5 -4 5 6 7 8 9");
}

TEST(CheckSpecTest, StructBuffersNeedWholeElementsOfTheRightKinds) {
  Reflection reflection = OneBufferReflection(ItemLayout(), ResourceKind::RWStructuredBuffer);
  SpecError error;
  EXPECT_FALSE(CheckSpecAgainstReflection(
      Parse("\n//INPUT: buffer data Item [1, 2, 3, 4]\n"), reflection, &error));
  EXPECT_EQ(error.line, 2u);
  EXPECT_EQ(error.message,
            "buffer 'data': 4 values do not make whole Item elements (5 values each: dir "
            "float3, weight float, id int)");
  EXPECT_FALSE(CheckSpecAgainstReflection(Parse("//INPUT: buffer data Item [1, 2, 3, 4, 0.5]\n"),
                                          reflection, &error));
  EXPECT_EQ(error.message, "buffer 'data': member 'id': expected an int value, found '0.5'");
  EXPECT_FALSE(CheckSpecAgainstReflection(Parse("//OUTPUT: buffer data Other 1\n"), reflection,
                                          &error));
  EXPECT_EQ(error.message, "buffer 'data' is declared Other but the kernel's element type is Item");
  EXPECT_TRUE(CheckSpecAgainstReflection(Parse("//OUTPUT: buffer data Item 3\n"), reflection,
                                         &error));
}

TEST(CheckSpecTest, MismatchesNameTheDirectiveLine) {
  ElementLayout float3{ScalarKind::Float32, 3, 12, 16};
  Reflection reflection = OneBufferReflection(float3, ResourceKind::RWStructuredBuffer);
  SpecError error;
  EXPECT_TRUE(
      CheckSpecAgainstReflection(Parse("//OUTPUT: buffer data float3 2\n"), reflection, &error))
      << error.message;

  EXPECT_FALSE(
      CheckSpecAgainstReflection(Parse("\n//OUTPUT: buffer dta float3 2\n"), reflection, &error));
  EXPECT_EQ(error.line, 2u);
  EXPECT_NE(error.message.find("no buffer named 'dta' (it has 'data')"), std::string::npos)
      << error.message;

  EXPECT_FALSE(CheckSpecAgainstReflection(Parse("\n\n//OUTPUT: buffer data float4 2\n"), reflection,
                                          &error));
  EXPECT_EQ(error.line, 3u);
  EXPECT_NE(error.message.find("declared float4 but the kernel's element type is float3"),
            std::string::npos)
      << error.message;

  EXPECT_FALSE(
      CheckSpecAgainstReflection(Parse("//OUTPUT: buffer data int3 1\n"), reflection, &error));
  EXPECT_NE(error.message.find("element type is float3"), std::string::npos) << error.message;

  Reflection read_only = OneBufferReflection(float3, ResourceKind::StructuredBuffer);
  EXPECT_FALSE(
      CheckSpecAgainstReflection(Parse("//OUTPUT: buffer data float3 1\n"), read_only, &error));
  EXPECT_NE(error.message.find("read-only"), std::string::npos) << error.message;
}

class RunSpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    device_ = runtime::CreateDevice(runtime::Backend::Vulkan, -1, &error);
    if (device_ == nullptr) GTEST_SKIP() << "no Vulkan device: " << error;
  }

  // Parses `source`'s directives, checks them against `reflection`, runs the GLSL
  // `glsl` and returns what slope-run would print.
  std::string Run(const std::string& source, const char* glsl, const Reflection& reflection) {
    TestSpec spec = Parse(source);
    SpecError spec_error;
    EXPECT_TRUE(CheckSpecAgainstReflection(spec, reflection, &spec_error)) << spec_error.message;
    std::vector<uint32_t> spirv;
    std::string error;
    EXPECT_TRUE(runtime::testing::CompileGlslCompute(glsl, "main", &spirv, &error)) << error;
    std::ostringstream out;
    EXPECT_TRUE(RunTestSpec(spec, *device_, spirv, reflection, spec.entry, out, &error)) << error;
    return out.str();
  }

  std::unique_ptr<runtime::Device> device_;
};

TEST_F(RunSpecTest, ScalarFloatAndIntBuffers) {
  const char* glsl = R"(#version 450
layout(local_size_x = 2) in;
layout(std430, set = 0, binding = 0) readonly buffer In { float v[]; } input_buf;
layout(std430, set = 0, binding = 1) buffer Out { float v[]; } output_buf;
layout(std430, set = 0, binding = 2) buffer Idx { int v[]; } index_buf;
void main() {
  uint i = gl_GlobalInvocationID.x;
  output_buf.v[i] = input_buf.v[i] * 2.0 + output_buf.v[i];
  index_buf.v[i] = int(i) * -3;
}
)";
  Reflection reflection;
  reflection.entry_points.push_back(EntryPointInfo{"main", {2, 1, 1}});
  reflection.bindings.push_back(
      BindingInfo{"input", ResourceKind::StructuredBuffer, 0, 0, ElementLayout{}});
  reflection.bindings.push_back(
      BindingInfo{"output", ResourceKind::RWStructuredBuffer, 0, 1, ElementLayout{}});
  reflection.bindings.push_back(BindingInfo{"index", ResourceKind::RWStructuredBuffer, 0, 2,
                                            ElementLayout{ScalarKind::Int32, 1, 4, 4}});
  std::string printed =
      Run("//OUTPUT: buffer index int 4\n"
          "//INPUT: buffer input float [1, 0.25, -3, 1.5]\n"
          "//OUTPUT: buffer output float 4 = [0, 0, 0.5, 1]\n"
          "//DISPATCH: 2\n",
          glsl, reflection);
  // output = 2 * input + initial output; index = -3 * i.
  EXPECT_EQ(printed, "index: 0 -3 -6 -9\noutput: 2 0.5 -5.5 4\n");
}

TEST_F(RunSpecTest, Float3UsesStd430Stride) {
  // vec3 elements are 16 bytes apart in std430: a packing that ignored the stride would
  // feed the kernel shifted components.
  const char* glsl = R"(#version 450
layout(local_size_x = 3) in;
layout(std430, set = 0, binding = 0) buffer P { vec3 v[]; } p;
void main() {
  uint i = gl_GlobalInvocationID.x;
  p.v[i] = p.v[i].zyx * float(i + 1u) + vec3(0.5);
}
)";
  ElementLayout float3{ScalarKind::Float32, 3, 12, 16};
  Reflection reflection = OneBufferReflection(float3, ResourceKind::RWStructuredBuffer);
  std::string printed =
      Run("//OUTPUT: buffer data float3 3 = [1, 2, 3, 4, 5, 6, -1, -2, -4]\n", glsl, reflection);
  // Element i becomes (z, y, x) * (i + 1) + 0.5.
  EXPECT_EQ(printed, "data: 3.5 2.5 1.5 12.5 10.5 8.5 -11.5 -5.5 -2.5\n");
}

}  // namespace
}  // namespace slope::run

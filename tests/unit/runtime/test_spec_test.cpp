// The slope-run directive parser: good specs parse to what they say, bad ones are
// rejected with the line of the bad directive.

#include "tools/slope-run/test_spec.h"

#include <gtest/gtest.h>

#include <bit>
#include <cctype>
#include <ostream>
#include <string>

namespace slope::run {
namespace {

using driver::ScalarKind;

uint32_t Bits(float value) { return std::bit_cast<uint32_t>(value); }

TEST(ElementTypeTest, ParsesEveryTypeName) {
  struct Case {
    const char* text;
    ScalarKind scalar;
    uint32_t components;
  };
  for (const Case& c :
       {Case{"float", ScalarKind::Float32, 1}, Case{"int", ScalarKind::Int32, 1},
        Case{"uint", ScalarKind::UInt32, 1}, Case{"float2", ScalarKind::Float32, 2},
        Case{"float3", ScalarKind::Float32, 3}, Case{"float4", ScalarKind::Float32, 4},
        Case{"int2", ScalarKind::Int32, 2}, Case{"int3", ScalarKind::Int32, 3},
        Case{"int4", ScalarKind::Int32, 4}, Case{"uint2", ScalarKind::UInt32, 2},
        Case{"uint3", ScalarKind::UInt32, 3}, Case{"uint4", ScalarKind::UInt32, 4}}) {
    std::optional<ElementType> type = ParseElementType(c.text);
    ASSERT_TRUE(type.has_value()) << c.text;
    EXPECT_EQ(type->scalar, c.scalar) << c.text;
    EXPECT_EQ(type->components, c.components) << c.text;
    EXPECT_EQ(ElementTypeName(*type), c.text);
  }
  for (const char* bad : {"", "doubles", "float1", "float5", "float33", "bool", "Float", "uint0"}) {
    EXPECT_FALSE(ParseElementType(bad).has_value()) << bad;
  }
}

TEST(ElementTypeTest, ParsesMatrixTypeNames) {
  // floatRxC: R rows of C columns; values come row after row, R * C per element.
  std::optional<ElementType> m = ParseElementType("float2x3");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->scalar, ScalarKind::Float32);
  EXPECT_EQ(m->rows, 2u);
  EXPECT_EQ(m->components, 3u);
  EXPECT_EQ(m->Values(), 6u);
  EXPECT_EQ(ElementTypeName(*m), "float2x3");
  std::optional<ElementType> h = ParseElementType("half4x4");
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->scalar, ScalarKind::Float16);
  EXPECT_EQ(h->Values(), 16u);
  for (const char* bad : {"float1x3", "float3x1", "float5x2", "float2x", "float2y3"}) {
    EXPECT_FALSE(ParseElementType(bad).has_value()) << bad;
  }
}

TEST(TestSpecTest, ParsesAGoodSpec) {
  const char* source =
      "// A test.\n"
      "//INPUT: buffer input float [1, 2.5, -3, 4e2]\n"
      "  //INPUT: buffer offsets int3 [-1 2 3, 0x10, -2147483648, 7]\r\n"
      "RWStructuredBuffer<float> output;\n"
      "//OUTPUT: buffer output float 4\n"
      "//OUTPUT: buffer counts uint2 2 = [1, 2, 3, 4294967295]\n"
      "//DISPATCH: 4 2 1\n"
      "// RUN: %slope-run %s | FileCheck %s\n"
      "//ENTRY: computeMain\n";
  TestSpec spec;
  SpecError error;
  ASSERT_TRUE(ParseTestSpec(source, &spec, &error)) << error.line << ": " << error.message;
  ASSERT_EQ(spec.buffers.size(), 4u);

  const BufferSpec& input = spec.buffers[0];
  EXPECT_EQ(input.role, BufferRole::Input);
  EXPECT_EQ(input.name, "input");
  EXPECT_EQ(input.type.scalar, ScalarKind::Float32);
  EXPECT_EQ(input.count, 4u);
  EXPECT_EQ(input.line, 2u);
  EXPECT_EQ(input.bits, (std::vector<uint64_t>{Bits(1), Bits(2.5f), Bits(-3), Bits(400)}));

  const BufferSpec& offsets = spec.buffers[1];
  EXPECT_EQ(offsets.type.components, 3u);
  EXPECT_EQ(offsets.count, 2u);
  EXPECT_EQ(offsets.line, 3u);
  EXPECT_EQ(offsets.bits, (std::vector<uint64_t>{0xffffffffu, 2, 3, 16, 0x80000000u, 7}));

  const BufferSpec& output = spec.buffers[2];
  EXPECT_EQ(output.role, BufferRole::Output);
  EXPECT_EQ(output.count, 4u);
  EXPECT_EQ(output.bits, std::vector<uint64_t>(4, 0));
  EXPECT_EQ(output.line, 5u);

  const BufferSpec& counts = spec.buffers[3];
  EXPECT_EQ(counts.role, BufferRole::Output);
  EXPECT_EQ(counts.type.scalar, ScalarKind::UInt32);
  EXPECT_EQ(counts.count, 2u);
  EXPECT_EQ(counts.bits, (std::vector<uint64_t>{1, 2, 3, 4294967295u}));

  EXPECT_EQ(spec.dispatch.x, 4u);
  EXPECT_EQ(spec.dispatch.y, 2u);
  EXPECT_EQ(spec.dispatch.z, 1u);
  EXPECT_EQ(spec.entry, "computeMain");
  EXPECT_EQ(spec.entry_line, 9u);
}

TEST(TestSpecTest, DefaultsWithoutDirectives) {
  TestSpec spec;
  SpecError error;
  ASSERT_TRUE(ParseTestSpec("void f() {}\n// INPUT: not a directive (space)\n", &spec, &error));
  EXPECT_TRUE(spec.buffers.empty());
  EXPECT_EQ(spec.dispatch.x, 1u);
  EXPECT_EQ(spec.dispatch.y, 1u);
  EXPECT_EQ(spec.dispatch.z, 1u);
  EXPECT_TRUE(spec.entry.empty());
}

TEST(TestSpecTest, ShortDispatchFillsOnes) {
  TestSpec spec;
  SpecError error;
  ASSERT_TRUE(ParseTestSpec("//DISPATCH: 8\n", &spec, &error)) << error.message;
  EXPECT_EQ(spec.dispatch.x, 8u);
  EXPECT_EQ(spec.dispatch.y, 1u);
  EXPECT_EQ(spec.dispatch.z, 1u);
}

struct BadCase {
  const char* source;
  uint32_t line;
  const char* message_part;
};

// Names each case in test listings (ctest) by the reason it must report.
void PrintTo(const BadCase& c, std::ostream* os) {
  for (const char* p = c.message_part; *p != '\0'; ++p) {
    *os << (std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_');
  }
}

class BadSpecTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadSpecTest, RejectedWithLineAndReason) {
  const BadCase& c = GetParam();
  TestSpec spec;
  SpecError error;
  EXPECT_FALSE(ParseTestSpec(c.source, &spec, &error)) << c.source;
  EXPECT_EQ(error.line, c.line) << c.source;
  EXPECT_NE(error.message.find(c.message_part), std::string::npos) << "message: " << error.message;
}

INSTANTIATE_TEST_SUITE_P(
    Directives, BadSpecTest,
    ::testing::Values(
        BadCase{"//INPUT: buf x float [1]\n", 1, "expected 'buffer'"},
        BadCase{"\n//INPUT: buffer 9x float [1]\n", 2, "invalid buffer name '9x'"},
        BadCase{"//INPUT: buffer\n", 1, "expected a buffer name"},
        BadCase{"\n\n//INPUT: buffer x double5 [1]\n", 3, "unknown element type 'double5'"},
        BadCase{"//INPUT: buffer x int8_t [128]\n", 1, "found '128', which is out of range"},
        BadCase{"//INPUT: buffer x uint16_t [-1]\n", 1, "uint16_t value '-1' is negative"},
        BadCase{"//INPUT: buffer x half [70000]\n", 1, "half value '70000' is out of range"},
        BadCase{"//INPUT: buffer x float\n", 1, "expected '['"},
        BadCase{"//INPUT: buffer x float [1, 2\n", 1, "missing ']'"},
        BadCase{"//INPUT: buffer x float []\n", 1, "has no values"},
        BadCase{"//INPUT: buffer x float [1, , 2]\n", 1, "expected a value before ','"},
        BadCase{"//INPUT: buffer x float [1, abc]\n", 1, "expected a float value, found 'abc'"},
        BadCase{"//INPUT: buffer x float [1e99]\n", 1, "out of range"},
        BadCase{"//INPUT: buffer x int [1.5]\n", 1, "expected an int value, found '1.5'"},
        BadCase{"//INPUT: buffer x int [3000000000]\n", 1, "expected an int value"},
        BadCase{"//INPUT: buffer x uint [-1]\n", 1, "is negative"},
        BadCase{"//INPUT: buffer x float3 [1, 2, 3, 4]\n", 1, "do not make whole float3"},
        BadCase{"//INPUT: buffer x float [1] extra\n", 1, "unexpected 'extra'"},
        BadCase{"//OUTPUT: buffer y float\n", 1, "expected an element count"},
        BadCase{"//OUTPUT: buffer y float 0\n", 1, "at least 1"},
        BadCase{"//OUTPUT: buffer y float -3\n", 1, "expected an element count"},
        BadCase{"//OUTPUT: buffer y float 99999999999\n", 1, "too large"},
        BadCase{"//OUTPUT: buffer y float2 2 = [1, 2, 3]\n", 1, "expected 4 initial values"},
        BadCase{"//OUTPUT: buffer y float 2 [1, 2]\n", 1, "unexpected '[1, 2]'"},
        BadCase{"//INPUT: buffer x float [1]\n//OUTPUT: buffer x float 1\n", 2,
                "already declared on line 1"},
        BadCase{"//DISPATCH:\n", 1, "expected group counts"},
        BadCase{"//DISPATCH: 1 0 1\n", 1, "at least 1"},
        BadCase{"//DISPATCH: 1 1 1 1\n", 1, "at most 3"},
        BadCase{"//DISPATCH: 2 x\n", 1, "expected a group count, found 'x'"},
        BadCase{"//DISPATCH: 1\n//DISPATCH: 2\n", 2, "more than one //DISPATCH:"},
        BadCase{"//ENTRY:\n", 1, "expected an entry point name"},
        BadCase{"//ENTRY: a b\n", 1, "unexpected 'b'"},
        BadCase{"//ENTRY: a\n\n//ENTRY: b\n", 3, "more than one //ENTRY:"}));

TEST(TestSpecTest, ParsesUniformAndTensorDirectives) {
  const char* source =
      "//INPUT: uniform scale float 2.5\n"
      "//INPUT: uniform p.offset float3 [1, 2, 3]\n"
      "//INPUT: uniform w[1] int -4\n"
      "//INPUT: tensor t float [2, 3] [1, 2, 3, 4, 5, 6]\n"
      "//OUTPUT: tensor o uint [4]\n";
  TestSpec spec;
  SpecError error;
  ASSERT_TRUE(ParseTestSpec(source, &spec, &error)) << error.line << ": " << error.message;
  ASSERT_EQ(spec.uniforms.size(), 7u);
  EXPECT_EQ(spec.uniforms[0].name, "scale");
  EXPECT_EQ(spec.uniforms[0].bits, (std::vector<uint64_t>{std::bit_cast<uint32_t>(2.5f)}));
  EXPECT_EQ(spec.uniforms[1].name, "p.offset");
  EXPECT_EQ(spec.uniforms[1].type.components, 3u);
  EXPECT_EQ(spec.uniforms[2].name, "w[1]");
  EXPECT_EQ(spec.uniforms[2].bits, (std::vector<uint64_t>{0xFFFFFFFCu}));
  // A 2 x 3 tensor: sizes (2, 3, 0, 0), row-major strides (3, 1, 0, 0).
  EXPECT_EQ(spec.uniforms[3].name, "t.sizes");
  EXPECT_EQ(spec.uniforms[3].bits, (std::vector<uint64_t>{2, 3, 0, 0}));
  EXPECT_EQ(spec.uniforms[4].name, "t.strides");
  EXPECT_EQ(spec.uniforms[4].bits, (std::vector<uint64_t>{3, 1, 0, 0}));
  EXPECT_EQ(spec.uniforms[6].bits, (std::vector<uint64_t>{1, 0, 0, 0}));
  ASSERT_EQ(spec.buffers.size(), 2u);
  EXPECT_EQ(spec.buffers[0].name, "t.data");
  EXPECT_EQ(spec.buffers[0].count, 6u);
  EXPECT_EQ(spec.buffers[1].name, "o.data");
  EXPECT_EQ(spec.buffers[1].role, BufferRole::Output);
  EXPECT_EQ(spec.buffers[1].bits, (std::vector<uint64_t>{0, 0, 0, 0}));
}

TEST(TestSpecTest, RejectsBadUniformAndTensorDirectives) {
  struct Case {
    const char* source;
    const char* message;
  } cases[] = {
      {"//INPUT: uniform scale float3 [1, 2]\n",
       "uniform 'scale' of type float3 needs 3 values, found 2"},
      {"//INPUT: uniform 3x float 1\n", "invalid uniform member name '3x'"},
      {"//INPUT: uniform m float3x3 [1]\n",
       "expected a scalar or vector type, found 'float3x3' (give a matrix row by row)"},
      {"//INPUT: uniform s float 1\n//INPUT: uniform s float 2\n",
       "uniform 's' is already given on line 1"},
      {"//INPUT: uniform s float\n", "uniform 's' has no value"},
      {"//INPUT: tensor t float [2, 2] [1, 2, 3]\n",
       "tensor 't' of shape 2-D needs 4 values, found 3"},
      {"//INPUT: tensor t float [1, 1, 1, 1, 1] [1]\n",
       "a tensor has 1 to 4 dimensions, found 5"},
  };
  for (const Case& c : cases) {
    TestSpec spec;
    SpecError error;
    EXPECT_FALSE(ParseTestSpec(c.source, &spec, &error)) << c.source;
    EXPECT_EQ(error.message, c.message) << c.source;
  }
}

TEST(TestSpecTest, ParsesTextureAndSamplerDirectives) {
  const char* source =
      "//INPUT: texture colors float4 [2, 1] [1, 2, 3, 4, 5, 6, 7, 8]\n"
      "//INPUT: texture ids uint [2, 2] mips=2 [1, 2, 3, 4, 9]\n"
      "//INPUT: texture unorm rgba8 [1] [0, 0.5, 1, 0.25]\n"
      "//OUTPUT: texture canvas float [4, 4]\n"
      "//OUTPUT: texture seeded int2 [1] = [-1, 7]\n"
      "//INPUT: sampler smooth filter=linear address=wrap\n"
      "//INPUT: sampler plain\n";
  TestSpec spec;
  SpecError error;
  ASSERT_TRUE(ParseTestSpec(source, &spec, &error)) << error.line << ": " << error.message;
  ASSERT_EQ(spec.textures.size(), 5u);
  EXPECT_EQ(spec.textures[0].format, "rgba32f");
  EXPECT_EQ(spec.textures[0].components, 4u);
  EXPECT_EQ(spec.textures[0].size, (std::vector<uint32_t>{2, 1}));
  EXPECT_EQ(spec.textures[0].bits.size(), 8u);
  EXPECT_EQ(spec.textures[0].bits[1], Bits(2.0f));
  EXPECT_EQ(spec.textures[1].format, "r32ui");
  EXPECT_EQ(spec.textures[1].mips, 2u);
  EXPECT_EQ(spec.textures[1].bits.back(), 9u);
  // A normalized format takes its values as floats.
  EXPECT_EQ(spec.textures[2].format, "rgba8");
  EXPECT_EQ(spec.textures[2].scalar, ScalarKind::Float32);
  EXPECT_EQ(spec.textures[2].bits[1], Bits(0.5f));
  EXPECT_EQ(spec.textures[3].role, BufferRole::Output);
  EXPECT_TRUE(spec.textures[3].bits.empty());
  EXPECT_EQ(spec.textures[4].format, "rg32i");
  EXPECT_EQ(spec.textures[4].bits, (std::vector<uint64_t>{0xFFFFFFFFu, 7}));
  ASSERT_EQ(spec.samplers.size(), 2u);
  EXPECT_TRUE(spec.samplers[0].desc.linear);
  EXPECT_EQ(spec.samplers[0].desc.address, runtime::SamplerDesc::Address::Wrap);
  EXPECT_FALSE(spec.samplers[1].desc.linear);
  EXPECT_EQ(spec.samplers[1].desc.address, runtime::SamplerDesc::Address::Clamp);
}

TEST(TestSpecTest, RejectsBadTextureAndSamplerDirectives) {
  struct Case {
    const char* source;
    const char* message;
  } cases[] = {
      {"//INPUT: texture t float3 [1] [1, 2, 3]\n",
       "expected a texel type (float, float2, float4, int.., uint..) or a format (rgba8, "
       "rgba16f, ...), found 'float3'"},
      {"//INPUT: texture t float [0, 1] [1]\n", "texture sizes must be 1 to 4096"},
      {"//INPUT: texture t float [1] levels=2 [1]\n", "unexpected 'levels' after the texture size"},
      {"//OUTPUT: texture t float [1] mips=2\n", "expected 'mips=N' on an input texture"},
      {"//INPUT: sampler s filter=cubic\n",
       "unknown sampler setting 'filter=cubic' (filter=nearest|linear, "
       "address=clamp|wrap|mirror|border)"},
      {"//INPUT: sampler s linear\n", "expected 'filter=...' or 'address=...', found 'linear'"},
  };
  for (const Case& c : cases) {
    TestSpec spec;
    SpecError error;
    EXPECT_FALSE(ParseTestSpec(c.source, &spec, &error)) << c.source;
    EXPECT_EQ(error.message, c.message) << c.source;
    EXPECT_EQ(error.line, 1u) << c.source;
  }
}

}  // namespace
}  // namespace slope::run

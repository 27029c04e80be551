// The device API on the Vulkan backend, with kernels compiled from GLSL by glslang and
// expected values computed here in C++. Skipped (not passed) when no Vulkan device exists.

#include "runtime/core/device.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "tests/unit/runtime/glsl_to_spirv.h"

namespace slope::runtime {
namespace {

using driver::BindingInfo;
using driver::ElementLayout;
using driver::EntryPointInfo;
using driver::Reflection;
using driver::ResourceKind;
using driver::ScalarKind;

constexpr const char* kSquareShader = R"(#version 450
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) readonly buffer In { float data[]; } input_buf;
layout(std430, set = 0, binding = 1) buffer Out { float data[]; } output_buf;
void main() {
  uint i = gl_GlobalInvocationID.x;
  output_buf.data[i] = input_buf.data[i] * input_buf.data[i] + float(i);
}
)";

Reflection SquareReflection(const std::string& entry) {
  Reflection reflection;
  reflection.entry_points.push_back(EntryPointInfo{entry, {8, 1, 1}});
  reflection.bindings.push_back(
      BindingInfo{"input", ResourceKind::StructuredBuffer, 0, 0, ElementLayout{}});
  reflection.bindings.push_back(
      BindingInfo{"output", ResourceKind::RWStructuredBuffer, 0, 1, ElementLayout{}});
  return reflection;
}

// Sets 0 and 2 with set 1 unused, vec4 elements, a 2-D dispatch.
constexpr const char* kTwoSetShader = R"(#version 450
layout(local_size_x = 4, local_size_y = 2) in;
layout(std430, set = 0, binding = 0) readonly buffer A { vec4 data[]; } a;
layout(std430, set = 2, binding = 1) readonly buffer B { vec4 data[]; } b;
layout(std430, set = 2, binding = 0) buffer C { vec4 data[]; } c;
void main() {
  uint i = gl_GlobalInvocationID.y * 8u + gl_GlobalInvocationID.x;
  c.data[i] = a.data[i] * b.data[i].wzyx + vec4(float(i));
}
)";

Reflection TwoSetReflection() {
  ElementLayout vec4{ScalarKind::Float32, 4, 16, 16};
  Reflection reflection;
  reflection.entry_points.push_back(EntryPointInfo{"main", {4, 2, 1}});
  reflection.bindings.push_back(BindingInfo{"a", ResourceKind::StructuredBuffer, 0, 0, vec4});
  reflection.bindings.push_back(BindingInfo{"b", ResourceKind::StructuredBuffer, 2, 1, vec4});
  reflection.bindings.push_back(BindingInfo{"c", ResourceKind::RWStructuredBuffer, 2, 0, vec4});
  return reflection;
}

std::vector<uint32_t> Compile(const char* source, const std::string& entry = "main") {
  std::vector<uint32_t> spirv;
  std::string error;
  EXPECT_TRUE(testing::CompileGlslCompute(source, entry, &spirv, &error)) << error;
  return spirv;
}

template <typename T>
std::unique_ptr<Buffer> Upload(Device& device, const std::vector<T>& values) {
  std::string error;
  std::unique_ptr<Buffer> buffer = device.CreateBuffer(values.size() * sizeof(T), &error);
  EXPECT_NE(buffer, nullptr) << error;
  if (buffer == nullptr) return nullptr;
  EXPECT_TRUE(device.WriteBuffer(*buffer, 0, std::as_bytes(std::span(values)), &error)) << error;
  return buffer;
}

template <typename T>
std::vector<T> Download(Device& device, const Buffer& buffer) {
  std::vector<T> values(buffer.Size() / sizeof(T));
  std::string error;
  EXPECT_TRUE(device.ReadBuffer(buffer, 0, std::as_writable_bytes(std::span(values)), &error))
      << error;
  return values;
}

TEST(BackendTest, NamesRoundTrip) {
  for (Backend backend : {Backend::Vulkan, Backend::Cuda, Backend::Cpu}) {
    EXPECT_EQ(ParseBackend(BackendName(backend)), backend);
  }
  EXPECT_STREQ(BackendName(Backend::Vulkan), "vulkan");
  EXPECT_FALSE(ParseBackend("Vulkan").has_value());
  EXPECT_FALSE(ParseBackend("").has_value());
}

// The CPU backend loads the LLVM plugin, which the build makes: it opens device 0 only and
// runs host code, not SPIR-V.
TEST(BackendTest, CpuOpensAndRefusesSpirv) {
  std::string error;
  std::unique_ptr<Device> device = CreateDevice(Backend::Cpu, -1, &error);
  ASSERT_NE(device, nullptr) << error;
  EXPECT_EQ(device->GetBackend(), Backend::Cpu);
  EXPECT_FALSE(device->Name().empty());
  std::vector<uint32_t> words = {0x07230203u};
  driver::Reflection reflection;
  reflection.entry_points.push_back({"main", {1, 1, 1}});
  EXPECT_EQ(device->CreateKernel(words, reflection, "", &error), nullptr);
  EXPECT_NE(error.find("host code"), std::string::npos) << error;
  error.clear();
  EXPECT_EQ(CreateDevice(Backend::Cpu, 3, &error), nullptr);
  EXPECT_FALSE(error.empty());
}

// The CPU device's textures keep every mip level in host memory: levels round-trip, and a
// level of the wrong size or one the texture lacks is an error, as on Vulkan.
TEST(BackendTest, CpuTextureLevelsRoundTrip) {
  std::string error;
  std::unique_ptr<Device> device = CreateDevice(Backend::Cpu, -1, &error);
  ASSERT_NE(device, nullptr) << error;
  TextureDesc desc;
  desc.width = 4;
  desc.height = 2;
  desc.mip_levels = 2;
  desc.format = "rg32f";
  std::unique_ptr<Texture> texture = device->CreateTexture(desc, &error);
  ASSERT_NE(texture, nullptr) << error;
  EXPECT_EQ(texture->GetBackend(), Backend::Cpu);
  std::vector<float> level0(4 * 2 * 2), level1(2 * 1 * 2);
  for (size_t i = 0; i < level0.size(); ++i) level0[i] = 0.5f * static_cast<float>(i) + 1.0f;
  for (size_t i = 0; i < level1.size(); ++i) level1[i] = -static_cast<float>(i) - 7.0f;
  ASSERT_TRUE(device->WriteTexture(*texture, 0, std::as_bytes(std::span(level0)), &error)) << error;
  ASSERT_TRUE(device->WriteTexture(*texture, 1, std::as_bytes(std::span(level1)), &error)) << error;
  std::vector<float> back0(level0.size()), back1(level1.size());
  ASSERT_TRUE(device->ReadTexture(*texture, 0, std::as_writable_bytes(std::span(back0)), &error));
  ASSERT_TRUE(device->ReadTexture(*texture, 1, std::as_writable_bytes(std::span(back1)), &error));
  EXPECT_EQ(back0, level0);
  EXPECT_EQ(back1, level1);
  EXPECT_FALSE(device->WriteTexture(*texture, 1, std::as_bytes(std::span(level0)), &error));
  EXPECT_NE(error.find("mip level 1 of the texture takes 16 bytes, not 64"), std::string::npos)
      << error;
  EXPECT_FALSE(device->ReadTexture(*texture, 2, std::as_writable_bytes(std::span(back1)), &error));
  EXPECT_NE(error.find("no mip level 2"), std::string::npos) << error;
  TextureDesc unknown;
  unknown.format = "rgb9e5";
  EXPECT_EQ(device->CreateTexture(unknown, &error), nullptr);
  EXPECT_EQ(error, "unknown texture format 'rgb9e5'");
  SamplerDesc linear;
  linear.linear = true;
  std::unique_ptr<Sampler> sampler = device->CreateSampler(linear, &error);
  ASSERT_NE(sampler, nullptr) << error;
  EXPECT_TRUE(sampler->Desc().linear);
}

// The CUDA backend is always built (it loads libcuda.so.1 with dlopen): without an NVIDIA
// GPU it says why; with one it opens it, and refuses SPIR-V (it runs PTX).
TEST(BackendTest, CudaOpensOrSaysWhy) {
  std::string error;
  std::unique_ptr<Device> device = CreateDevice(Backend::Cuda, -1, &error);
  if (device == nullptr) {
    EXPECT_FALSE(error.empty());
    return;
  }
  EXPECT_EQ(device->GetBackend(), Backend::Cuda);
  EXPECT_FALSE(device->Name().empty());
  std::vector<uint32_t> words = {0x07230203u};
  driver::Reflection reflection;
  reflection.entry_points.push_back({"main", {1, 1, 1}});
  EXPECT_EQ(device->CreateKernel(words, reflection, "", &error), nullptr);
  EXPECT_NE(error.find("PTX"), std::string::npos) << error;
}

class VulkanDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    device_ = CreateDevice(Backend::Vulkan, -1, &error);
    if (device_ == nullptr) GTEST_SKIP() << "no Vulkan device: " << error;
  }

  // Runs kSquareShader over `count` elements; returns the output buffer's contents.
  std::vector<float> RunSquare(Kernel& kernel, const std::vector<float>& input) {
    std::unique_ptr<Buffer> in = Upload(*device_, input);
    std::unique_ptr<Buffer> out = Upload(*device_, std::vector<float>(input.size(), -12345.0f));
    // Deliberately not in reflection order: binding is by name.
    BufferBinding bindings[] = {{"output", out.get()}, {"input", in.get()}};
    std::string error;
    EXPECT_TRUE(device_->Dispatch(kernel, bindings, {static_cast<uint32_t>(input.size() / 8), 1, 1},
                                  &error))
        << error;
    return Download<float>(*device_, *out);
  }

  std::unique_ptr<Device> device_;
};

TEST_F(VulkanDeviceTest, HasNameAndBackend) {
  EXPECT_FALSE(device_->Name().empty());
  EXPECT_EQ(device_->GetBackend(), Backend::Vulkan);
}

TEST_F(VulkanDeviceTest, BufferWriteReadAtOffsets) {
  std::string error;
  std::unique_ptr<Buffer> buffer = device_->CreateBuffer(40, &error);
  ASSERT_NE(buffer, nullptr) << error;
  EXPECT_EQ(buffer->Size(), 40u);
  std::vector<uint32_t> first = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  ASSERT_TRUE(device_->WriteBuffer(*buffer, 0, std::as_bytes(std::span(first)), &error));
  std::vector<uint32_t> patch = {0xdeadbeef, 77};
  ASSERT_TRUE(device_->WriteBuffer(*buffer, 12, std::as_bytes(std::span(patch)), &error));
  EXPECT_EQ(Download<uint32_t>(*device_, *buffer),
            (std::vector<uint32_t>{1, 2, 3, 0xdeadbeef, 77, 6, 7, 8, 9, 10}));
  std::vector<uint32_t> tail(2);
  ASSERT_TRUE(device_->ReadBuffer(*buffer, 32, std::as_writable_bytes(std::span(tail)), &error));
  EXPECT_EQ(tail, (std::vector<uint32_t>{9, 10}));
}

TEST_F(VulkanDeviceTest, OutOfRangeAccessIsAnError) {
  std::string error;
  std::unique_ptr<Buffer> buffer = device_->CreateBuffer(16, &error);
  ASSERT_NE(buffer, nullptr) << error;
  std::vector<uint32_t> five(5, 1);
  EXPECT_FALSE(device_->WriteBuffer(*buffer, 0, std::as_bytes(std::span(five)), &error));
  EXPECT_NE(error.find("does not fit"), std::string::npos) << error;
  std::vector<uint32_t> two(2);
  error.clear();
  EXPECT_FALSE(device_->ReadBuffer(*buffer, 12, std::as_writable_bytes(std::span(two)), &error));
  EXPECT_NE(error.find("does not fit"), std::string::npos) << error;
  error.clear();
  EXPECT_FALSE(device_->ReadBuffer(*buffer, std::numeric_limits<size_t>::max(),
                                   std::as_writable_bytes(std::span(two)), &error));
  EXPECT_FALSE(error.empty());
}

TEST_F(VulkanDeviceTest, EmptyBufferIsAllowed) {
  std::string error;
  std::unique_ptr<Buffer> buffer = device_->CreateBuffer(0, &error);
  ASSERT_NE(buffer, nullptr) << error;
  EXPECT_EQ(buffer->Size(), 0u);
}

TEST_F(VulkanDeviceTest, SquarePlusIndex) {
  std::vector<uint32_t> spirv = Compile(kSquareShader);
  std::string error;
  std::unique_ptr<Kernel> kernel =
      device_->CreateKernel(spirv, SquareReflection("main"), "", &error);
  ASSERT_NE(kernel, nullptr) << error;
  EXPECT_EQ(kernel->GetEntryPoint().name, "main");
  std::vector<float> input(64);
  for (size_t i = 0; i < input.size(); ++i) input[i] = 0.25f * static_cast<float>(i) - 3.0f;
  std::vector<float> output = RunSquare(*kernel, input);
  ASSERT_EQ(output.size(), 64u);
  for (size_t i = 0; i < input.size(); ++i) {
    EXPECT_FLOAT_EQ(output[i], input[i] * input[i] + static_cast<float>(i)) << "i = " << i;
  }
}

TEST_F(VulkanDeviceTest, KernelRunsAgainWithNewData) {
  std::vector<uint32_t> spirv = Compile(kSquareShader);
  std::string error;
  std::unique_ptr<Kernel> kernel =
      device_->CreateKernel(spirv, SquareReflection("main"), "main", &error);
  ASSERT_NE(kernel, nullptr) << error;
  for (float scale : {1.5f, -0.75f}) {
    std::vector<float> input(16);
    for (size_t i = 0; i < input.size(); ++i) input[i] = scale * static_cast<float>(i + 1);
    std::vector<float> output = RunSquare(*kernel, input);
    ASSERT_EQ(output.size(), 16u);
    for (size_t i = 0; i < input.size(); ++i) {
      EXPECT_FLOAT_EQ(output[i], input[i] * input[i] + static_cast<float>(i));
    }
  }
}

TEST_F(VulkanDeviceTest, NamedEntryPoint) {
  std::vector<uint32_t> spirv = Compile(kSquareShader, "square");
  std::string error;
  std::unique_ptr<Kernel> kernel =
      device_->CreateKernel(spirv, SquareReflection("square"), "square", &error);
  ASSERT_NE(kernel, nullptr) << error;
  std::vector<float> input = {2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> output = RunSquare(*kernel, input);
  EXPECT_EQ(output, (std::vector<float>{4, 10, 18, 28, 40, 54, 70, 88}));
}

TEST_F(VulkanDeviceTest, TwoDescriptorSetsWithGapAndVec4) {
  std::vector<uint32_t> spirv = Compile(kTwoSetShader);
  std::string error;
  std::unique_ptr<Kernel> kernel = device_->CreateKernel(spirv, TwoSetReflection(), "", &error);
  ASSERT_NE(kernel, nullptr) << error;
  constexpr size_t kCount = 8 * 6;  // local size 4x2, dispatch 2x3
  std::vector<float> a(kCount * 4), b(kCount * 4);
  for (size_t k = 0; k < a.size(); ++k) {
    a[k] = static_cast<float>(k % 7) - 2.5f;
    b[k] = 0.5f * static_cast<float>(k % 5) + 1.0f;
  }
  std::unique_ptr<Buffer> a_buf = Upload(*device_, a);
  std::unique_ptr<Buffer> b_buf = Upload(*device_, b);
  std::unique_ptr<Buffer> c_buf = Upload(*device_, std::vector<float>(kCount * 4, 99.0f));
  BufferBinding bindings[] = {{"c", c_buf.get()}, {"a", a_buf.get()}, {"b", b_buf.get()}};
  ASSERT_TRUE(device_->Dispatch(*kernel, bindings, {2, 3, 1}, &error)) << error;
  std::vector<float> c = Download<float>(*device_, *c_buf);
  ASSERT_EQ(c.size(), kCount * 4);
  for (size_t i = 0; i < kCount; ++i) {
    for (size_t j = 0; j < 4; ++j) {
      float expected = a[4 * i + j] * b[4 * i + (3 - j)] + static_cast<float>(i);
      EXPECT_FLOAT_EQ(c[4 * i + j], expected) << "element " << i << " component " << j;
    }
  }
}

TEST_F(VulkanDeviceTest, BindingErrorsAreReportedAndNothingRuns) {
  std::vector<uint32_t> spirv = Compile(kSquareShader);
  std::string error;
  std::unique_ptr<Kernel> kernel =
      device_->CreateKernel(spirv, SquareReflection("main"), "", &error);
  ASSERT_NE(kernel, nullptr) << error;
  std::vector<float> input = {1, 2, 3, 4, 5, 6, 7, 8};
  std::unique_ptr<Buffer> in = Upload(*device_, input);
  std::unique_ptr<Buffer> out = Upload(*device_, std::vector<float>(8, 42.0f));

  BufferBinding unknown[] = {{"input", in.get()}, {"output", out.get()}, {"nope", out.get()}};
  EXPECT_FALSE(device_->Dispatch(*kernel, unknown, {1, 1, 1}, &error));
  EXPECT_NE(error.find("no binding named 'nope'"), std::string::npos) << error;
  EXPECT_NE(error.find("'input', 'output'"), std::string::npos) << error;

  BufferBinding missing[] = {{"input", in.get()}};
  EXPECT_FALSE(device_->Dispatch(*kernel, missing, {1, 1, 1}, &error));
  EXPECT_NE(error.find("no buffer given for binding 'output' (set 0, binding 1)"),
            std::string::npos)
      << error;

  BufferBinding twice[] = {{"input", in.get()}, {"output", out.get()}, {"input", in.get()}};
  EXPECT_FALSE(device_->Dispatch(*kernel, twice, {1, 1, 1}, &error));
  EXPECT_NE(error.find("more than once"), std::string::npos) << error;

  BufferBinding null_buffer[] = {{"input", in.get()}, {"output", nullptr}};
  EXPECT_FALSE(device_->Dispatch(*kernel, null_buffer, {1, 1, 1}, &error));
  EXPECT_NE(error.find("null buffer"), std::string::npos) << error;

  BufferBinding good[] = {{"input", in.get()}, {"output", out.get()}};
  EXPECT_FALSE(
      device_->Dispatch(*kernel, good, {std::numeric_limits<uint32_t>::max(), 1, 1}, &error));
  EXPECT_NE(error.find("exceeds the device limit"), std::string::npos) << error;

  // None of the failed dispatches ran, and the device still works afterwards.
  EXPECT_EQ(Download<float>(*device_, *out), std::vector<float>(8, 42.0f));
  ASSERT_TRUE(device_->Dispatch(*kernel, good, {1, 1, 1}, &error)) << error;
  EXPECT_EQ(Download<float>(*device_, *out), (std::vector<float>{1, 5, 11, 19, 29, 41, 55, 71}));
}

// A sampled texture read by texel and an RW texture written: dst(x, y) = 2 * src(x, y) + 1.
constexpr const char* kTextureShader = R"(#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 2, local_size_y = 2) in;
layout(set = 0, binding = 0) uniform texture2D src;
layout(set = 0, binding = 1, r32f) uniform image2D dst;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  imageStore(dst, p, vec4(texelFetch(src, p, 0).x * 2.0 + 1.0));
}
)";

Reflection TextureReflection() {
  ElementLayout f32{ScalarKind::Float32, 1, 4, 4};
  Reflection reflection;
  reflection.entry_points.push_back(EntryPointInfo{"main", {2, 2, 1}});
  BindingInfo src{"src", ResourceKind::Texture, 0, 0, f32};
  BindingInfo dst{"dst", ResourceKind::RWTexture, 0, 1, f32};
  dst.texture.format = "r32f";
  reflection.bindings.push_back(src);
  reflection.bindings.push_back(dst);
  return reflection;
}

TEST_F(VulkanDeviceTest, TextureLevelsRoundTrip) {
  TextureDesc desc;
  desc.width = 4;
  desc.height = 2;
  desc.mip_levels = 2;
  desc.format = "rg32f";
  std::string error;
  std::unique_ptr<Texture> texture = device_->CreateTexture(desc, &error);
  ASSERT_NE(texture, nullptr) << error;
  std::vector<float> level0(4 * 2 * 2), level1(2 * 1 * 2);
  for (size_t i = 0; i < level0.size(); ++i) level0[i] = 0.5f * static_cast<float>(i) + 1.0f;
  for (size_t i = 0; i < level1.size(); ++i) level1[i] = -static_cast<float>(i) - 7.0f;
  ASSERT_TRUE(device_->WriteTexture(*texture, 0, std::as_bytes(std::span(level0)), &error)) << error;
  ASSERT_TRUE(device_->WriteTexture(*texture, 1, std::as_bytes(std::span(level1)), &error)) << error;
  std::vector<float> back0(level0.size()), back1(level1.size());
  ASSERT_TRUE(device_->ReadTexture(*texture, 0, std::as_writable_bytes(std::span(back0)), &error));
  ASSERT_TRUE(device_->ReadTexture(*texture, 1, std::as_writable_bytes(std::span(back1)), &error));
  EXPECT_EQ(back0, level0);
  EXPECT_EQ(back1, level1);
  // A level of the wrong size, and a level the texture does not have.
  EXPECT_FALSE(device_->WriteTexture(*texture, 1, std::as_bytes(std::span(level0)), &error));
  EXPECT_NE(error.find("mip level 1 of the texture takes 16 bytes, not 64"), std::string::npos)
      << error;
  EXPECT_FALSE(device_->ReadTexture(*texture, 2, std::as_writable_bytes(std::span(back1)), &error));
  EXPECT_NE(error.find("no mip level 2"), std::string::npos) << error;
}

TEST_F(VulkanDeviceTest, TextureCreationErrors) {
  std::string error;
  TextureDesc unknown;
  unknown.format = "rgb9e5";
  EXPECT_EQ(device_->CreateTexture(unknown, &error), nullptr);
  EXPECT_EQ(error, "unknown texture format 'rgb9e5'");
  TextureDesc cube;
  cube.dim = 4;
  cube.width = 2;
  cube.height = 1;
  cube.layers = 6;
  EXPECT_EQ(device_->CreateTexture(cube, &error), nullptr);
  EXPECT_EQ(error, "invalid texture size for its shape");
  TextureDesc deep;
  deep.width = 4;
  deep.height = 4;
  deep.mip_levels = 4;
  EXPECT_EQ(device_->CreateTexture(deep, &error), nullptr);
  EXPECT_NE(error.find("at most 3 mip levels, not 4"), std::string::npos) << error;
}

TEST_F(VulkanDeviceTest, TexturesBoundByNameAndChecked) {
  std::vector<uint32_t> spirv = Compile(kTextureShader);
  std::string error;
  std::unique_ptr<Kernel> kernel = device_->CreateKernel(spirv, TextureReflection(), "", &error);
  ASSERT_NE(kernel, nullptr) << error;
  TextureDesc sampled;
  sampled.width = 2;
  sampled.height = 2;
  sampled.format = "r32f";
  std::unique_ptr<Texture> src = device_->CreateTexture(sampled, &error);
  ASSERT_NE(src, nullptr) << error;
  std::vector<float> texels = {1.5f, -2.0f, 3.25f, 10.0f};
  ASSERT_TRUE(device_->WriteTexture(*src, 0, std::as_bytes(std::span(texels)), &error)) << error;
  TextureDesc storage = sampled;
  storage.storage = true;
  std::unique_ptr<Texture> dst = device_->CreateTexture(storage, &error);
  ASSERT_NE(dst, nullptr) << error;
  std::unique_ptr<Buffer> buffer = device_->CreateBuffer(16, &error);

  BufferBinding as_buffer[] = {{"src", buffer.get()}, {"dst", nullptr, dst.get()}};
  EXPECT_FALSE(device_->Dispatch(*kernel, as_buffer, {1, 1, 1}, &error));
  EXPECT_NE(error.find("no texture given for binding 'src' (set 0, binding 0)"), std::string::npos)
      << error;
  BufferBinding not_storage[] = {{"src", nullptr, src.get()}, {"dst", nullptr, src.get()}};
  EXPECT_FALSE(device_->Dispatch(*kernel, not_storage, {1, 1, 1}, &error));
  EXPECT_NE(error.find("was not made for storage"), std::string::npos) << error;

  BufferBinding good[] = {{"dst", nullptr, dst.get()}, {"src", nullptr, src.get()}};
  ASSERT_TRUE(device_->Dispatch(*kernel, good, {1, 1, 1}, &error)) << error;
  std::vector<float> out(4);
  ASSERT_TRUE(device_->ReadTexture(*dst, 0, std::as_writable_bytes(std::span(out)), &error));
  EXPECT_EQ(out, (std::vector<float>{4.0f, -3.0f, 7.5f, 21.0f}));
}

// Typed buffers: a uniform texel buffer of rg32f read by index, a storage texel buffer of
// r32ui written; the runtime makes each binding's view from the reflected format.
constexpr const char* kTexelBufferShader = R"(#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform samplerBuffer src;
layout(set = 0, binding = 1, r32ui) uniform uimageBuffer dst;
void main() {
  int i = int(gl_GlobalInvocationID.x);
  vec2 v = texelFetch(src, i).xy;
  imageStore(dst, i, uvec4(uint(v.x * 10.0 + v.y) + uint(textureSize(src)) * 1000u));
}
)";

TEST_F(VulkanDeviceTest, TexelBuffersGetViewsOfTheirFormat) {
  std::vector<uint32_t> spirv = Compile(kTexelBufferShader);
  Reflection reflection;
  reflection.entry_points.push_back(EntryPointInfo{"main", {4, 1, 1}});
  BindingInfo src{"src", ResourceKind::TexelBuffer, 0, 0, {ScalarKind::Float32, 2, 8, 8}};
  src.texture.dim = 5;
  src.texture.format = "rg32f";
  BindingInfo dst{"dst", ResourceKind::RWTexelBuffer, 0, 1, {ScalarKind::UInt32, 1, 4, 4}};
  dst.texture.dim = 5;
  dst.texture.format = "r32ui";
  reflection.bindings.push_back(src);
  reflection.bindings.push_back(dst);
  std::string error;
  std::unique_ptr<Kernel> kernel = device_->CreateKernel(spirv, reflection, "", &error);
  ASSERT_NE(kernel, nullptr) << error;
  // Four rg32f elements: (1, 2), (3, 4), (5, 6), (7, 8); the view has 4 of them.
  std::unique_ptr<Buffer> in = Upload(*device_, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  std::unique_ptr<Buffer> out = Upload(*device_, std::vector<uint32_t>(4, 0));
  BufferBinding bindings[] = {{"src", in.get()}, {"dst", out.get()}};
  ASSERT_TRUE(device_->Dispatch(*kernel, bindings, {1, 1, 1}, &error)) << error;
  EXPECT_EQ(Download<uint32_t>(*device_, *out), (std::vector<uint32_t>{4012, 4034, 4056, 4078}));
  // Again with other data: the views are made anew for each dispatch.
  std::unique_ptr<Buffer> other = Upload(*device_, std::vector<float>{0, 9, 1, 1, 2, 2, 3, 3});
  BufferBinding again[] = {{"src", other.get()}, {"dst", out.get()}};
  ASSERT_TRUE(device_->Dispatch(*kernel, again, {1, 1, 1}, &error)) << error;
  EXPECT_EQ(Download<uint32_t>(*device_, *out), (std::vector<uint32_t>{4009, 4011, 4022, 4033}));
  // A format the device has no texel buffers of is refused by name.
  reflection.bindings[0].texture.format = "d32f";
  kernel = device_->CreateKernel(spirv, reflection, "", &error);
  ASSERT_NE(kernel, nullptr) << error;
  EXPECT_FALSE(device_->Dispatch(*kernel, bindings, {1, 1, 1}, &error));
  EXPECT_NE(error.find("no uniform texel buffers of format d32f (typed buffer 'src')"),
            std::string::npos)
      << error;
}

TEST_F(VulkanDeviceTest, KernelCreationErrors) {
  std::vector<uint32_t> spirv = Compile(kSquareShader);
  std::string error;
  EXPECT_EQ(device_->CreateKernel(spirv, SquareReflection("main"), "other", &error), nullptr);
  EXPECT_NE(error.find("no entry point named 'other'"), std::string::npos) << error;

  std::vector<uint32_t> garbage = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(device_->CreateKernel(garbage, SquareReflection("main"), "", &error), nullptr);
  EXPECT_NE(error.find("not a SPIR-V module"), std::string::npos) << error;

  Reflection clash = SquareReflection("main");
  clash.bindings[1].binding = 0;
  EXPECT_EQ(device_->CreateKernel(spirv, clash, "", &error), nullptr);
  EXPECT_NE(error.find("both use set 0, binding 0"), std::string::npos) << error;

  Reflection no_entries = SquareReflection("main");
  no_entries.entry_points.clear();
  EXPECT_EQ(device_->CreateKernel(spirv, no_entries, "", &error), nullptr);
  EXPECT_NE(error.find("no entry points"), std::string::npos) << error;
}

TEST_F(VulkanDeviceTest, DeviceIndexOutOfRange) {
  std::string error;
  EXPECT_EQ(CreateDevice(Backend::Vulkan, 1000, &error), nullptr);
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  // The message lists the devices there are, by number and name.
  EXPECT_NE(error.find("0: " + device_->Name()), std::string::npos) << error;
  std::unique_ptr<Device> first = CreateDevice(Backend::Vulkan, 0, &error);
  EXPECT_NE(first, nullptr) << error;
}

// A uniform buffer (std140: scale at 0, offset at 16) and a push-constant block (bias at
// 0, count at 4). out[i] = (i < count ? float(i) * scale + offset[i % 3] + bias : -1).
constexpr const char* kUniformShader = R"(#version 450
layout(local_size_x = 4) in;
layout(std140, set = 0, binding = 0) uniform Params { float scale; vec3 offset; } params;
layout(std430, set = 0, binding = 1) buffer Out { float data[]; } out_buf;
layout(push_constant) uniform Push { float bias; uint count; } push;
void main() {
  uint i = gl_GlobalInvocationID.x;
  out_buf.data[i] = i < push.count ? float(i) * params.scale + params.offset[i % 3u] + push.bias
                                   : -1.0;
}
)";

Reflection UniformReflection() {
  Reflection reflection;
  reflection.entry_points.push_back(EntryPointInfo{"main", {4, 1, 1}});
  ElementLayout params{ScalarKind::Float32, 1, 32, 32, "Params"};
  params.fields = {{"scale", ScalarKind::Float32, 1, 0}, {"offset", ScalarKind::Float32, 3, 16}};
  reflection.bindings.push_back(BindingInfo{"Params", ResourceKind::UniformBuffer, 0, 0, params});
  reflection.bindings.push_back(
      BindingInfo{"out", ResourceKind::RWStructuredBuffer, 0, 1, ElementLayout{}});
  ElementLayout push{ScalarKind::Float32, 1, 8, 8, "Push"};
  push.fields = {{"bias", ScalarKind::Float32, 1, 0}, {"count", ScalarKind::UInt32, 1, 4}};
  reflection.bindings.push_back(
      BindingInfo{"main.uniforms", ResourceKind::PushConstant, 0, 0, push, "main"});
  return reflection;
}

TEST_F(VulkanDeviceTest, UniformBufferAndPushConstants) {
  std::string error;
  std::vector<uint32_t> spirv = Compile(kUniformShader);
  std::unique_ptr<Kernel> kernel = device_->CreateKernel(spirv, UniformReflection(), "", &error);
  ASSERT_NE(kernel, nullptr) << error;
  // scale = 2 at 0, offset = (10, 20, 30) at 16.
  std::vector<float> params(8, 0.0f);
  params[0] = 2.0f;
  params[4] = 10.0f;
  params[5] = 20.0f;
  params[6] = 30.0f;
  std::unique_ptr<Buffer> uniforms = Upload(*device_, params);
  std::unique_ptr<Buffer> out = Upload(*device_, std::vector<float>(8, -12345.0f));
  // bias = 0.5, count = 6.
  struct {
    float bias;
    uint32_t count;
  } push{0.5f, 6};
  DispatchOptions options;
  options.push_constants = std::as_bytes(std::span(&push, 1));
  options.measure_time = true;
  DispatchStats stats;
  BufferBinding bindings[] = {{"Params", uniforms.get()}, {"out", out.get()}};
  ASSERT_TRUE(device_->Dispatch(*kernel, bindings, {2, 1, 1}, &error, options, &stats)) << error;
  // i * 2 + offset[i % 3] + 0.5 for i < 6, else -1.
  std::vector<float> expected{10.5f, 22.5f, 34.5f, 16.5f, 28.5f, 40.5f, -1.0f, -1.0f};
  EXPECT_EQ(Download<float>(*device_, *out), expected);
  // lavapipe has timestamps; a device without them leaves the time unmeasured.
  EXPECT_GE(stats.kernel_ms, 0.0);

  // The push-constant block must have its reflected size, and takes no buffer.
  DispatchOptions short_push;
  short_push.push_constants = std::as_bytes(std::span(&push.bias, 1));
  EXPECT_FALSE(device_->Dispatch(*kernel, bindings, {2, 1, 1}, &error, short_push));
  EXPECT_NE(error.find("push-constant block takes 8 bytes but 4 were given"), std::string::npos)
      << error;
  BufferBinding with_push[] = {
      {"Params", uniforms.get()}, {"out", out.get()}, {"main.uniforms", out.get()}};
  EXPECT_FALSE(device_->Dispatch(*kernel, with_push, {2, 1, 1}, &error, options));
  EXPECT_NE(error.find("takes no buffer"), std::string::npos) << error;
}

TEST_F(VulkanDeviceTest, UniformBufferTooSmallIsAnError) {
  std::string error;
  std::vector<uint32_t> spirv = Compile(kUniformShader);
  std::unique_ptr<Kernel> kernel = device_->CreateKernel(spirv, UniformReflection(), "", &error);
  ASSERT_NE(kernel, nullptr) << error;
  std::unique_ptr<Buffer> small = Upload(*device_, std::vector<float>(4, 1.0f));
  std::unique_ptr<Buffer> out = Upload(*device_, std::vector<float>(8, 0.0f));
  uint32_t push[2] = {0, 1};
  DispatchOptions options;
  options.push_constants = std::as_bytes(std::span(push));
  BufferBinding bindings[] = {{"Params", small.get()}, {"out", out.get()}};
  EXPECT_FALSE(device_->Dispatch(*kernel, bindings, {1, 1, 1}, &error, options));
  EXPECT_NE(error.find("uniform buffer 'Params' needs 32 bytes but its buffer has 16"),
            std::string::npos)
      << error;
}

TEST_F(VulkanDeviceTest, PushConstantsOverTheLimitAreRefused) {
  // Vulkan guarantees 128 bytes of push constants; lavapipe allows 256. 64 KiB fits none.
  Reflection reflection = UniformReflection();
  reflection.bindings.back().element.size = 65536;
  std::string error;
  std::vector<uint32_t> spirv = Compile(kUniformShader);
  EXPECT_EQ(device_->CreateKernel(spirv, reflection, "", &error), nullptr);
  EXPECT_NE(error.find("needs 65536 but the device's maxPushConstantsSize is"),
            std::string::npos)
      << error;
}

TEST_F(VulkanDeviceTest, DefaultDeviceFallsBackToVulkan) {
  // CUDA is not built, so the default order (CUDA, Vulkan, CPU) lands on Vulkan.
  std::string error;
  std::unique_ptr<Device> device = CreateDefaultDevice(&error);
  ASSERT_NE(device, nullptr) << error;
  EXPECT_EQ(device->GetBackend(), Backend::Vulkan);
}

}  // namespace
}  // namespace slope::runtime

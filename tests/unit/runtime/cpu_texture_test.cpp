// The CPU device's textures: slope_cpu_texture (what the host kernels call) against values
// worked by hand from Vulkan's texel-coordinate, filtering and addressing rules, and the
// device's texture creation, upload and read-back.

#include "runtime/cpu/cpu_texture.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <vector>

#include "compiler/driver/compile.h"
#include "compiler/ir/ir.h"

namespace slope::runtime::cpu {
namespace {

using T = ir::TextureOp;

std::unique_ptr<CpuTexture> Make(TextureDesc desc, const std::vector<float>& level0) {
  std::string error;
  std::unique_ptr<CpuTexture> t = CpuTexture::Create(desc, &error);
  EXPECT_NE(t, nullptr) << error;
  if (t == nullptr) return nullptr;
  std::span<std::byte> bytes = t->Level(0);
  EXPECT_EQ(bytes.size(), level0.size() * 4);
  std::memcpy(bytes.data(), level0.data(), bytes.size());
  return t;
}

SlopeCpuSampler MakeSampler(bool linear, uint32_t address) {
  SlopeCpuSampler s{};
  s.linear = linear ? 1 : 0;
  s.address = address;
  return s;
}

/// Component 0 of a float-texel operation.
float Apply(const CpuTexture& t, const SlopeCpuSampler* s, T op, const SlopeCpuTexelQuery& q,
            int component = 0) {
  uint32_t out[4];
  slope_cpu_texture(&t.View(), s, static_cast<uint32_t>(op), &q, out);
  return std::bit_cast<float>(out[component]);
}

SlopeCpuTexelQuery At(float u, float v = 0.5f) {
  SlopeCpuTexelQuery q{};
  q.coord[0] = u;
  q.coord[1] = v;
  return q;
}

TextureDesc Desc2D(uint32_t w, uint32_t h, const char* format = "r32f") {
  TextureDesc d;
  d.width = w;
  d.height = h;
  d.format = format;
  return d;
}

// A 4x1 row 10 20 30 40: texel centres at u = 0.125, 0.375, 0.625, 0.875.
TEST(CpuTextureTest, FiltersAndAddresses) {
  auto t = Make(Desc2D(4, 1), {10, 20, 30, 40});
  SlopeCpuSampler nearest_clamp = MakeSampler(false, kSlopeCpuClampToEdge),
                  linear_clamp = MakeSampler(true, kSlopeCpuClampToEdge);
  SlopeCpuSampler linear_wrap = MakeSampler(true, kSlopeCpuRepeat),
                  nearest_mirror = MakeSampler(false, kSlopeCpuMirroredRepeat);
  SlopeCpuSampler nearest_wrap = MakeSampler(false, kSlopeCpuRepeat);
  EXPECT_EQ(Apply(*t, &nearest_clamp, T::SampleLevel, At(0.375f)), 20);
  EXPECT_EQ(Apply(*t, &linear_clamp, T::SampleLevel, At(0.375f)), 20);
  // u = 0.5: 4u - 0.5 = 1.5, half way between 20 and 30.
  EXPECT_EQ(Apply(*t, &linear_clamp, T::SampleLevel, At(0.5f)), 25);
  // u = 0.4375: 1.25: 0.75 * 20 + 0.25 * 30.
  EXPECT_EQ(Apply(*t, &linear_clamp, T::SampleLevel, At(0.4375f)), 22.5f);
  // u = 0: -0.5 blends texels -1 and 0: clamped 10 and 10, wrapped 40 and 10.
  EXPECT_EQ(Apply(*t, &linear_clamp, T::SampleLevel, At(0.0f)), 10);
  EXPECT_EQ(Apply(*t, &linear_wrap, T::SampleLevel, At(0.0f)), 25);
  // u = 1.125 is texel 4: wrapped texel 0, mirrored texel 3; u = -0.125 is texel -1:
  // wrapped 3, mirrored 0.
  EXPECT_EQ(Apply(*t, &nearest_wrap, T::SampleLevel, At(1.125f)), 10);
  EXPECT_EQ(Apply(*t, &nearest_mirror, T::SampleLevel, At(1.125f)), 40);
  EXPECT_EQ(Apply(*t, &nearest_wrap, T::SampleLevel, At(-0.125f)), 40);
  EXPECT_EQ(Apply(*t, &nearest_mirror, T::SampleLevel, At(-0.125f)), 10);
  // u = 1.875 is texel 7: mirrored, 7 mod 8 - 4 = 3 -> 3 - 3 = texel 0.
  EXPECT_EQ(Apply(*t, &nearest_mirror, T::SampleLevel, At(1.875f)), 10);
  // Border: texel -1 is transparent black; u = 0 blends it with texel 0 half and half.
  SlopeCpuSampler nearest_border = MakeSampler(false, kSlopeCpuClampToBorder),
                  linear_border = MakeSampler(true, kSlopeCpuClampToBorder);
  EXPECT_EQ(Apply(*t, &nearest_border, T::SampleLevel, At(-0.125f)), 0);
  EXPECT_EQ(Apply(*t, &nearest_border, T::SampleLevel, At(-0.125f), 3), 1);  // r32f: alpha 1
  EXPECT_EQ(Apply(*t, &linear_border, T::SampleLevel, At(0.0f)), 5);
  // A constant offset of +1 texel: u = 0.125 reads texel 1.
  SlopeCpuTexelQuery q = At(0.125f);
  q.offset[0] = 1;
  EXPECT_EQ(Apply(*t, &nearest_clamp, T::SampleLevel, q), 20);
}

// 2x2: (0,0) 1, (1,0) 2, (0,1) 3, (1,1) 4. The centre blends all four equally.
TEST(CpuTextureTest, BilinearAndGather) {
  auto t = Make(Desc2D(2, 2), {1, 2, 3, 4});
  SlopeCpuSampler linear = MakeSampler(true, kSlopeCpuClampToEdge);
  EXPECT_EQ(Apply(*t, &linear, T::SampleLevel, At(0.5f, 0.5f)), 2.5f);
  // (0.375, 0.25): x = 0.25, y = 0 -> texels of row 0: 0.75 * 1 + 0.25 * 2.
  EXPECT_EQ(Apply(*t, &linear, T::SampleLevel, At(0.375f, 0.25f)), 1.25f);
  // Gather at the centre: (i0, j1) = 3, (i1, j1) = 4, (i1, j0) = 2, (i0, j0) = 1.
  uint32_t out[4];
  SlopeCpuTexelQuery q = At(0.5f, 0.5f);
  slope_cpu_texture(&t->View(), &linear, static_cast<uint32_t>(T::Gather), &q, out);
  EXPECT_EQ(std::bit_cast<float>(out[0]), 3);
  EXPECT_EQ(std::bit_cast<float>(out[1]), 4);
  EXPECT_EQ(std::bit_cast<float>(out[2]), 2);
  EXPECT_EQ(std::bit_cast<float>(out[3]), 1);
}

// 4x4 with three levels: level 0 1..16, level 1 100 200 300 400, level 2 1000.
TEST(CpuTextureTest, LevelsAndGradients) {
  TextureDesc d = Desc2D(4, 4);
  d.mip_levels = 3;
  auto t = Make(d, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  std::vector<float> l1 = {100, 200, 300, 400}, l2 = {1000};
  std::memcpy(t->Level(1).data(), l1.data(), 16);
  std::memcpy(t->Level(2).data(), l2.data(), 4);
  SlopeCpuSampler nearest = MakeSampler(false, kSlopeCpuClampToEdge),
                  linear = MakeSampler(true, kSlopeCpuClampToEdge);
  SlopeCpuTexelQuery q = At(0.1f, 0.1f);
  q.lod = 1;
  EXPECT_EQ(Apply(*t, &nearest, T::SampleLevel, q), 100);
  q.lod = 1.5f;  // nearest: ceil(2) - 1 = level 1
  EXPECT_EQ(Apply(*t, &nearest, T::SampleLevel, q), 100);
  q.lod = 7;  // clamped to level 2
  EXPECT_EQ(Apply(*t, &nearest, T::SampleLevel, q), 1000);
  // Linear between levels 1 (texel 100 near its corner, clamped) and 2: at (0.25, 0.25)
  // level 1's lookup is texel (0, 0) exactly; 0.5 * 100 + 0.5 * 1000.
  q = At(0.25f, 0.25f);
  q.lod = 1.5f;
  EXPECT_EQ(Apply(*t, &linear, T::SampleLevel, q), 550);
  // Gradients of half the texture per step: 2 texels of level 0, level of detail 1.
  q = At(0.25f, 0.25f);
  q.ddx[0] = 0.5f;
  q.ddy[1] = 0.5f;
  EXPECT_EQ(Apply(*t, &nearest, T::SampleGrad, q), 100);
  // Sizes and levels.
  uint32_t out[4];
  SlopeCpuTexelQuery size{};
  size.level = 1;
  slope_cpu_texture(&t->View(), nullptr, static_cast<uint32_t>(T::Size), &size, out);
  EXPECT_EQ(out[0], 2u);
  EXPECT_EQ(out[1], 2u);
  slope_cpu_texture(&t->View(), nullptr, static_cast<uint32_t>(T::Levels), &size, out);
  EXPECT_EQ(out[0], 3u);
}

TEST(CpuTextureTest, LoadsWritesAndFormats) {
  auto t = Make(Desc2D(2, 2), {1, 2, 3, 4});
  SlopeCpuTexelQuery q{};
  q.texel[0] = 1;
  q.texel[1] = 0;
  EXPECT_EQ(Apply(*t, nullptr, T::Fetch, q), 2);
  q.offset[1] = 1;  // texel (1, 1)
  EXPECT_EQ(Apply(*t, nullptr, T::Fetch, q), 4);
  q.offset[0] = 1;  // texel (2, 1): outside, zero
  EXPECT_EQ(Apply(*t, nullptr, T::Fetch, q), 0);
  // Missing components read as 0, 0, 1 for g, b, a.
  q = SlopeCpuTexelQuery{};
  EXPECT_EQ(Apply(*t, nullptr, T::Fetch, q, 3), 1);
  EXPECT_EQ(Apply(*t, nullptr, T::Fetch, q, 1), 0);

  // rgba8: written clamped and rounded, read back as c / 255.
  TextureDesc d = Desc2D(1, 1, "rgba8");
  d.storage = true;
  std::string error;
  std::unique_ptr<CpuTexture> u = CpuTexture::Create(d, &error);
  ASSERT_NE(u, nullptr) << error;
  SlopeCpuTexelQuery w{};
  float texel[4] = {0.5f, 2.0f, -1.0f, 1.0f};
  std::memcpy(w.value, texel, 16);
  uint32_t out[4];
  slope_cpu_texture(&u->View(), nullptr, static_cast<uint32_t>(T::Write), &w, out);
  auto bytes = u->Level(0);
  EXPECT_EQ(static_cast<int>(bytes[0]), 128);  // 127.5 rounds to even: 128
  EXPECT_EQ(static_cast<int>(bytes[1]), 255);
  EXPECT_EQ(static_cast<int>(bytes[2]), 0);
  EXPECT_EQ(static_cast<int>(bytes[3]), 255);
  EXPECT_EQ(Apply(*u, nullptr, T::Read, SlopeCpuTexelQuery{}, 1), 1.0f);

  // rgba16i keeps the sign of its components.
  d.format = "rgba16i";
  u = CpuTexture::Create(d, &error);
  ASSERT_NE(u, nullptr) << error;
  int32_t ints[4] = {-3, 70000, 5, -1};
  std::memcpy(w.value, ints, 16);
  slope_cpu_texture(&u->View(), nullptr, static_cast<uint32_t>(T::Write), &w, out);
  SlopeCpuTexelQuery r{};
  slope_cpu_texture(&u->View(), nullptr, static_cast<uint32_t>(T::Read), &r, out);
  EXPECT_EQ(static_cast<int32_t>(out[0]), -3);
  EXPECT_EQ(static_cast<int32_t>(out[1]), 70000 - 65536);  // the low 16 bits
  EXPECT_EQ(static_cast<int32_t>(out[3]), -1);
}

// Comparison: 1 where reference <= texel, filtered like any texel.
TEST(CpuTextureTest, CompareAndCube) {
  TextureDesc d = Desc2D(2, 1, "d32f");
  auto t = Make(d, {0.25f, 0.75f});
  SlopeCpuSampler s = MakeSampler(true, kSlopeCpuClampToEdge);
  s.comparison = 1;
  SlopeCpuTexelQuery q = At(0.5f);
  q.reference = 0.5f;  // texel 0 fails, texel 1 passes: 0.5
  EXPECT_EQ(Apply(*t, &s, T::SampleCmpLevelZero, q), 0.5f);
  q.reference = 0.1f;
  EXPECT_EQ(Apply(*t, &s, T::SampleCmpLevelZero, q), 1.0f);

  // A 1x1 cube, faces +x -x +y -y +z -z = 1..6.
  TextureDesc c;
  c.dim = 4;
  c.layers = 6;
  c.format = "r32f";
  auto cube = Make(c, {1, 2, 3, 4, 5, 6});
  SlopeCpuSampler n = MakeSampler(false, kSlopeCpuClampToEdge);
  SlopeCpuTexelQuery dir{};
  float dirs[6][3] = {{1, 0.2f, -0.3f}, {-2, 1, 1},      {0, 3, 0.5f},
                      {0, -2, 0.5f},    {0.1f, 0.1f, 1}, {0.1f, 0.1f, -1}};
  for (int f = 0; f < 6; ++f) {
    std::memcpy(dir.coord, dirs[f], 12);
    EXPECT_EQ(Apply(*cube, &n, T::SampleLevel, dir), f + 1) << "face " << f;
  }
}

TEST(CpuTextureTest, RefusesBadShapes) {
  std::string error;
  EXPECT_EQ(CpuTexture::Create(Desc2D(2, 2, "rgb9e5"), &error), nullptr);
  EXPECT_NE(error.find("unknown texture format"), std::string::npos);
  TextureDesc cube;
  cube.dim = 4;
  cube.width = 2;
  cube.height = 1;
  cube.layers = 6;
  EXPECT_EQ(CpuTexture::Create(cube, &error), nullptr);
  TextureDesc deep = Desc2D(4, 4);
  deep.mip_levels = 4;
  EXPECT_EQ(CpuTexture::Create(deep, &error), nullptr);
  EXPECT_NE(error.find("at most 3 mip levels"), std::string::npos);
}

// A typed buffer's view: the buffer's bytes as texels of its format, in place; whole
// texels only, those past the end reading as zero.
TEST(CpuTextureTest, TexelBufferViews) {
  std::vector<float> memory = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  SlopeCpuTexture view;
  std::string error;
  ASSERT_TRUE(TexelBufferView(reinterpret_cast<std::byte*>(memory.data()), memory.size() * 4,
                              "rgba32f", &view, &error))
      << error;
  EXPECT_EQ(view.width, 3u);  // 13 floats: 3 whole rgba32f texels
  uint32_t out[4];
  SlopeCpuTexelQuery q{};
  q.texel[0] = 2;
  slope_cpu_texture(&view, nullptr, static_cast<uint32_t>(T::Fetch), &q, out);
  EXPECT_EQ(std::bit_cast<float>(out[1]), 10.0f);
  q.texel[0] = 3;
  slope_cpu_texture(&view, nullptr, static_cast<uint32_t>(T::Fetch), &q, out);
  EXPECT_EQ(out[0], 0u);
  slope_cpu_texture(&view, nullptr, static_cast<uint32_t>(T::Size), &q, out);
  EXPECT_EQ(out[0], 3u);
  // rgb32ui (a Buffer<uint3>): writes land in the buffer's memory.
  std::vector<uint32_t> words(6, 0);
  ASSERT_TRUE(TexelBufferView(reinterpret_cast<std::byte*>(words.data()), words.size() * 4,
                              "rgb32ui", &view, &error))
      << error;
  SlopeCpuTexelQuery w{};
  w.texel[0] = 1;
  w.value[0] = 7;
  w.value[1] = 8;
  w.value[2] = 9;
  slope_cpu_texture(&view, nullptr, static_cast<uint32_t>(T::Write), &w, out);
  EXPECT_EQ(words, (std::vector<uint32_t>{0, 0, 0, 7, 8, 9}));
  EXPECT_FALSE(TexelBufferView(nullptr, 0, "rgb9e5", &view, &error));
  EXPECT_EQ(error, "unknown typed buffer format 'rgb9e5'");
}

/// `source` compiled for the host target (the CPU device's kernels), named `path`.
driver::CompileResult CompileForHost(const char* path, const char* source) {
  driver::CompileOptions options;
  options.input_path = path;
  options.source_text = source;
  options.target = driver::Target::Host;
  return driver::Compile(options);
}

// A Slang kernel with typed buffers on the CPU device: Buffer<float2> read, RWBuffer<int>
// written (its format inferred: r32i), GetDimensions of each.
constexpr const char* kTypedBufferKernel = R"(
Buffer<float2> points;
RWBuffer<int> lengths;
[shader("compute")]
[numthreads(3, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    uint n, m;
    points.GetDimensions(n);
    lengths.GetDimensions(m);
    float2 p = points[tid.x];
    lengths[tid.x] = int(p.x * p.y) - int(n * 100 + m * 10);
}
)";

TEST(CpuTextureTest, DispatchBindsTypedBuffers) {
  driver::CompileResult compiled = CompileForHost("typed_buffer_test.slang", kTypedBufferKernel);
  ASSERT_TRUE(compiled.ok);
  const driver::BindingInfo* lengths = compiled.reflection.FindBinding("lengths");
  ASSERT_NE(lengths, nullptr);
  EXPECT_EQ(lengths->kind, driver::ResourceKind::RWTexelBuffer);
  EXPECT_EQ(lengths->texture.format, "r32i");
  std::string error;
  std::unique_ptr<Device> device = CreateDevice(Backend::Cpu, -1, &error);
  ASSERT_NE(device, nullptr) << error;
  KernelCode code;
  code.host = compiled.binary;
  std::unique_ptr<Kernel> kernel =
      device->CreateKernelFromCode(code, compiled.reflection, "main", &error);
  ASSERT_NE(kernel, nullptr) << error;
  std::vector<float> points = {2, 3, -4, 5, 6, 7, 0, 0};  // four float2
  std::unique_ptr<Buffer> in = device->CreateBuffer(points.size() * 4, &error);
  std::unique_ptr<Buffer> out = device->CreateBuffer(3 * 4, &error);
  ASSERT_TRUE(in && out) << error;
  ASSERT_TRUE(device->WriteBuffer(*in, 0, std::as_bytes(std::span(points)), &error));
  BufferBinding bindings[] = {{"points", in.get()}, {"lengths", out.get()}};
  ASSERT_TRUE(device->Dispatch(*kernel, bindings, {1, 1, 1}, &error)) << error;
  std::vector<int32_t> result(3);
  ASSERT_TRUE(device->ReadBuffer(*out, 0, std::as_writable_bytes(std::span(result)), &error));
  // p.x * p.y - (4 * 100 + 3 * 10).
  EXPECT_EQ(result, (std::vector<int32_t>{6 - 430, -20 - 430, 42 - 430}));
}

// A kernel compiled for the host target and run on the CPU device: a combined texture
// (Sampler2D) sampled, a separate texture read by Load, an RW texture written; bindings of
// the wrong kind, shape or backend are refused by name before anything runs.
constexpr const char* kKernel = R"(
Sampler2D<float> image;
Texture2D<float> weights;
[format("r32f")] RWTexture2D<float> result;
[shader("compute")]
[numthreads(2, 2, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    float2 uv = (float2(tid.xy) + 0.5) / 2.0;
    result[tid.xy] = image.SampleLevel(uv, 0) * weights.Load(int3(tid.xy, 0));
}
)";

TEST(CpuTextureTest, DispatchBindsAndChecksTextures) {
  driver::CompileResult compiled = CompileForHost("cpu_texture_test.slang", kKernel);
  ASSERT_TRUE(compiled.ok);
  std::string error;
  std::unique_ptr<Device> device = CreateDevice(Backend::Cpu, -1, &error);
  ASSERT_NE(device, nullptr) << error;
  KernelCode code;
  code.host = compiled.binary;
  std::unique_ptr<Kernel> kernel =
      device->CreateKernelFromCode(code, compiled.reflection, "main", &error);
  ASSERT_NE(kernel, nullptr) << error;
  TextureDesc desc = Desc2D(2, 2);
  std::unique_ptr<Texture> image = device->CreateTexture(desc, &error);
  std::unique_ptr<Texture> weights = device->CreateTexture(desc, &error);
  desc.storage = true;
  std::unique_ptr<Texture> result = device->CreateTexture(desc, &error);
  ASSERT_TRUE(image && weights && result) << error;
  std::vector<float> texels = {1, 2, 3, 4}, factors = {10, 100, 1000, -1};
  ASSERT_TRUE(device->WriteTexture(*image, 0, std::as_bytes(std::span(texels)), &error));
  ASSERT_TRUE(device->WriteTexture(*weights, 0, std::as_bytes(std::span(factors)), &error));
  SamplerDesc nearest;
  std::unique_ptr<Sampler> sampler = device->CreateSampler(nearest, &error);
  ASSERT_NE(sampler, nullptr) << error;

  // The combined texture without its sampler.
  BufferBinding no_sampler[] = {{"image", nullptr, image.get()},
                                {"weights", nullptr, weights.get()},
                                {"result", nullptr, result.get()}};
  EXPECT_FALSE(device->Dispatch(*kernel, no_sampler, {1, 1, 1}, &error));
  EXPECT_NE(error.find("no texture and sampler given for binding 'image'"), std::string::npos)
      << error;
  // A sampled texture where the RW one goes.
  BufferBinding not_storage[] = {{"image", nullptr, image.get(), sampler.get()},
                                 {"weights", nullptr, weights.get()},
                                 {"result", nullptr, weights.get()}};
  EXPECT_FALSE(device->Dispatch(*kernel, not_storage, {1, 1, 1}, &error));
  EXPECT_NE(error.find("was not made for storage"), std::string::npos) << error;
  // A 3D texture for a 2D binding.
  TextureDesc volume = Desc2D(2, 2);
  volume.dim = 3;
  std::unique_ptr<Texture> cube = device->CreateTexture(volume, &error);
  ASSERT_NE(cube, nullptr) << error;
  BufferBinding wrong_shape[] = {{"image", nullptr, image.get(), sampler.get()},
                                 {"weights", nullptr, cube.get()},
                                 {"result", nullptr, result.get()}};
  EXPECT_FALSE(device->Dispatch(*kernel, wrong_shape, {1, 1, 1}, &error));
  EXPECT_NE(error.find("another shape"), std::string::npos) << error;

  // Each texel: image (x, y) at its centre times weights (x, y).
  BufferBinding good[] = {{"image", nullptr, image.get(), sampler.get()},
                          {"weights", nullptr, weights.get()},
                          {"result", nullptr, result.get()}};
  ASSERT_TRUE(device->Dispatch(*kernel, good, {1, 1, 1}, &error)) << error;
  std::vector<float> out(4);
  ASSERT_TRUE(device->ReadTexture(*result, 0, std::as_writable_bytes(std::span(out)), &error));
  EXPECT_EQ(out, (std::vector<float>{10, 200, 3000, -4}));
}

}  // namespace
}  // namespace slope::runtime::cpu

// The reflection JSON (compiler/driver/reflection_json.h) read back: a compiled module's
// reflection written and parsed gives the same data structure, the runtime runs the
// kernel from the parsed copy, and malformed documents are refused with a reason.

#include "compiler/driver/reflection_json.h"

#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "compiler/driver/compile.h"
#include "runtime/core/device.h"

namespace slope::driver {
namespace {

// out[i] = scale * i + bias[i % 2] + p.a + k, with the values set below.
constexpr const char* kSource = R"(
cbuffer Params { float scale; float2 bias; }
struct S { float a; float3x3 m; };
ConstantBuffer<S> p;
RWStructuredBuffer<float> out;
[shader("compute")]
[numthreads(4, 2, 1)]
void main(uint3 tid : SV_DispatchThreadID, uniform float k) {
    uint i = tid.x;
    out[i] = scale * float(i) + bias[i % 2] + p.a + k;
}
)";

CompileResult CompileSource(bool scalar_layout) {
  CompileOptions options;
  options.input_path = "reflection_json_test.slang";
  options.source_text = kSource;
  options.scalar_layout = scalar_layout;
  CompileResult result = Compile(options);
  EXPECT_TRUE(result.ok);
  return result;
}

void ExpectSameLayout(const ElementLayout& a, const ElementLayout& b) {
  EXPECT_EQ(a.scalar, b.scalar);
  EXPECT_EQ(a.components, b.components);
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.stride, b.stride);
  EXPECT_EQ(a.struct_name, b.struct_name);
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.row_step, b.row_step);
  EXPECT_EQ(a.component_stride, b.component_stride);
  ASSERT_EQ(a.fields.size(), b.fields.size());
  for (size_t i = 0; i < a.fields.size(); ++i) {
    EXPECT_EQ(a.fields[i].name, b.fields[i].name);
    EXPECT_EQ(a.fields[i].scalar, b.fields[i].scalar);
    EXPECT_EQ(a.fields[i].components, b.fields[i].components);
    EXPECT_EQ(a.fields[i].offset, b.fields[i].offset);
    EXPECT_EQ(a.fields[i].component_stride, b.fields[i].component_stride);
  }
}

void ExpectSame(const Reflection& a, const Reflection& b) {
  ASSERT_EQ(a.entry_points.size(), b.entry_points.size());
  for (size_t i = 0; i < a.entry_points.size(); ++i) {
    EXPECT_EQ(a.entry_points[i].name, b.entry_points[i].name);
    EXPECT_EQ(a.entry_points[i].numthreads, b.entry_points[i].numthreads);
    EXPECT_EQ(a.entry_points[i].wave_size, b.entry_points[i].wave_size);
  }
  ASSERT_EQ(a.bindings.size(), b.bindings.size());
  for (size_t i = 0; i < a.bindings.size(); ++i) {
    EXPECT_EQ(a.bindings[i].name, b.bindings[i].name);
    EXPECT_EQ(a.bindings[i].kind, b.bindings[i].kind);
    EXPECT_EQ(a.bindings[i].set, b.bindings[i].set);
    EXPECT_EQ(a.bindings[i].binding, b.bindings[i].binding);
    EXPECT_EQ(a.bindings[i].entry_point, b.bindings[i].entry_point);
    ExpectSameLayout(a.bindings[i].element, b.bindings[i].element);
  }
}

TEST(ReflectionJsonTest, RoundTripsACompiledModule) {
  for (bool scalar : {false, true}) {
    CompileResult compiled = CompileSource(scalar);
    std::string text = ReflectionToJson(compiled.reflection);
    Reflection back;
    std::string error;
    ASSERT_TRUE(ReflectionFromJson(text, &back, &error)) << error;
    ExpectSame(compiled.reflection, back);
    // Writing the parsed copy gives the same text.
    EXPECT_EQ(ReflectionToJson(back), text);
  }
}

TEST(ReflectionJsonTest, RoundTripsTheConformanceIds) {
  // By hand: ids in declaration order; A takes 1 word, B 3 (int3); an element is a
  // 16-byte header and the 12-byte payload.
  CompileOptions options;
  options.input_path = "reflection_dynamic.slang";
  options.source_text = R"(
[anyValueSize(12)] interface IV { int get(); }
struct A : IV { int x; int get() { return x; } }
struct B : IV { int3 v; int get() { return v.y; } }
StructuredBuffer<IV> objs;
RWStructuredBuffer<int> out;
[shader("compute")] [numthreads(1, 1, 1)]
void main() { out[0] = objs[0].get(); }
)";
  CompileResult compiled = Compile(options);
  ASSERT_TRUE(compiled.ok);
  ASSERT_EQ(compiled.reflection.dynamic_interfaces.size(), 1u);
  const DynamicInterfaceInfo& d = compiled.reflection.dynamic_interfaces[0];
  EXPECT_EQ(d.name, "IV");
  EXPECT_EQ(d.any_value_size, 12u);
  EXPECT_EQ(d.element_size, 28u);
  ASSERT_EQ(d.conformances.size(), 2u);
  EXPECT_EQ(d.conformances[0].type, "A");
  EXPECT_EQ(d.conformances[0].id, 0u);
  EXPECT_EQ(d.conformances[0].payload_size, 4u);
  EXPECT_EQ(d.conformances[1].type, "B");
  EXPECT_EQ(d.conformances[1].id, 1u);
  EXPECT_EQ(d.conformances[1].payload_size, 12u);
  std::string text = ReflectionToJson(compiled.reflection);
  Reflection back;
  std::string error;
  ASSERT_TRUE(ReflectionFromJson(text, &back, &error)) << error;
  ASSERT_EQ(back.dynamic_interfaces.size(), 1u);
  EXPECT_EQ(back.dynamic_interfaces[0].conformances[1].type, "B");
  EXPECT_EQ(ReflectionToJson(back), text);
}

TEST(ReflectionJsonTest, ReflectsTheLayoutRules) {
  // By hand. std140: scale @0, bias (float2) @8, 16 bytes; S: a @0, the rows of m
  // (row-major float3x3) @16, @32, @48, 64 bytes. Push constants (std430): k @0, 4 bytes.
  CompileResult compiled = CompileSource(false);
  const Reflection& r = compiled.reflection;
  ASSERT_EQ(r.entry_points.size(), 1u);
  EXPECT_EQ(r.entry_points[0].numthreads, (std::array<uint32_t, 3>{4, 2, 1}));
  const BindingInfo* params = r.FindBinding("Params");
  ASSERT_NE(params, nullptr);
  EXPECT_EQ(params->kind, ResourceKind::UniformBuffer);
  EXPECT_EQ(params->element.size, 16u);
  ASSERT_EQ(params->element.fields.size(), 2u);
  EXPECT_EQ(params->element.fields[1].name, "bias");
  EXPECT_EQ(params->element.fields[1].offset, 8u);
  const BindingInfo* p = r.FindBinding("p");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->element.size, 64u);
  ASSERT_EQ(p->element.fields.size(), 4u);
  EXPECT_EQ(p->element.fields[0].name, "p.a");
  EXPECT_EQ(p->element.fields[3].name, "p.m[2]");
  EXPECT_EQ(p->element.fields[3].offset, 48u);
  const BindingInfo* push = r.FindBinding("main.uniforms");
  ASSERT_NE(push, nullptr);
  EXPECT_EQ(push->kind, ResourceKind::PushConstant);
  EXPECT_EQ(push->entry_point, "main");
  EXPECT_EQ(push->element.size, 4u);
}

TEST(ReflectionJsonTest, RuntimeRunsFromTheParsedReflection) {
  CompileResult compiled = CompileSource(false);
  Reflection parsed;
  std::string error;
  ASSERT_TRUE(ReflectionFromJson(ReflectionToJson(compiled.reflection), &parsed, &error)) << error;
  std::unique_ptr<runtime::Device> device = runtime::CreateDevice(runtime::Backend::Vulkan, -1, &error);
  if (device == nullptr) GTEST_SKIP() << "no Vulkan device: " << error;
  std::unique_ptr<runtime::Kernel> kernel = device->CreateKernel(compiled.spirv, parsed, "", &error);
  ASSERT_NE(kernel, nullptr) << error;
  // Fill each uniform block at the parsed offsets: scale = 3, bias = (10, 20), p.a = 0.25,
  // k = 100.
  auto put = [](std::vector<std::byte>* bytes, const BindingInfo& b, const std::string& name,
                std::vector<float> values) {
    for (const FieldLayout& f : b.element.fields) {
      if (f.name != name) continue;
      std::memcpy(bytes->data() + f.offset, values.data(), values.size() * sizeof(float));
      return;
    }
    ADD_FAILURE() << "no field " << name;
  };
  const BindingInfo& params_info = *parsed.FindBinding("Params");
  const BindingInfo& p_info = *parsed.FindBinding("p");
  std::vector<std::byte> params(params_info.element.size), p(p_info.element.size),
      push(parsed.FindBinding("main.uniforms")->element.size);
  put(&params, params_info, "scale", {3});
  put(&params, params_info, "bias", {10, 20});
  put(&p, p_info, "p.a", {0.25f});
  put(&push, *parsed.FindBinding("main.uniforms"), "k", {100});
  std::unique_ptr<runtime::Buffer> params_buffer = device->CreateBuffer(params.size(), &error);
  std::unique_ptr<runtime::Buffer> p_buffer = device->CreateBuffer(p.size(), &error);
  std::unique_ptr<runtime::Buffer> out = device->CreateBuffer(4 * sizeof(float), &error);
  ASSERT_TRUE(device->WriteBuffer(*params_buffer, 0, params, &error)) << error;
  ASSERT_TRUE(device->WriteBuffer(*p_buffer, 0, p, &error)) << error;
  runtime::BufferBinding bindings[] = {
      {"Params", params_buffer.get()}, {"p", p_buffer.get()}, {"out", out.get()}};
  runtime::DispatchOptions options;
  options.push_constants = push;
  ASSERT_TRUE(device->Dispatch(*kernel, bindings, {1, 1, 1}, &error, options)) << error;
  std::vector<float> result(4);
  ASSERT_TRUE(device->ReadBuffer(*out, 0, std::as_writable_bytes(std::span(result)), &error));
  // 3 * i + bias[i % 2] + 0.25 + 100.
  EXPECT_EQ(result, (std::vector<float>{110.25f, 123.25f, 116.25f, 129.25f}));
}

TEST(ReflectionJsonTest, RoundTripsTheWaveSize) {
  CompileOptions options;
  options.input_path = "wave_size.slang";
  options.source_text = R"(
RWStructuredBuffer<uint> out;
[shader("compute")] [WaveSize(16)] [numthreads(64, 1, 1)]
void sized(uint t : SV_GroupIndex) { out[t] = WaveActiveSum(t); }
[shader("compute")] [numthreads(64, 1, 1)]
void plain(uint t : SV_GroupIndex) { out[t] = t; }
)";
  CompileResult compiled = Compile(options);
  ASSERT_TRUE(compiled.ok);
  ASSERT_EQ(compiled.reflection.entry_points.size(), 2u);
  EXPECT_EQ(compiled.reflection.entry_points[0].wave_size, 16u);
  EXPECT_EQ(compiled.reflection.entry_points[1].wave_size, 0u);
  std::string text = ReflectionToJson(compiled.reflection);
  EXPECT_NE(text.find("\"wave_size\": 16"), std::string::npos) << text;
  Reflection back;
  std::string error;
  ASSERT_TRUE(ReflectionFromJson(text, &back, &error)) << error;
  ExpectSame(compiled.reflection, back);
  EXPECT_FALSE(ReflectionFromJson(
      R"({"entry_points": [{"name": "m", "numthreads": [1, 1, 1], "wave_size": -8}],
          "parameters": []})",
      &back, &error));
  EXPECT_EQ(error, "entry_points[0]: \"wave_size\" must be an unsigned integer");
}

TEST(ReflectionJsonTest, MalformedDocumentsAreRefused) {
  Reflection r;
  std::string error;
  EXPECT_FALSE(ReflectionFromJson("{", &r, &error));
  EXPECT_EQ(error, "reflection: not valid JSON");
  EXPECT_FALSE(ReflectionFromJson(R"({"entry_points": []})", &r, &error));
  EXPECT_EQ(error, "reflection: missing array \"parameters\"");
  EXPECT_FALSE(ReflectionFromJson(
      R"({"entry_points": [], "parameters": [{"name": "b", "kind": "acceleration_structure"}]})",
      &r, &error));
  EXPECT_EQ(error, "parameters[0]: unknown kind 'acceleration_structure'");
  EXPECT_FALSE(ReflectionFromJson(R"({"entry_points": [], "parameters": [{"name": "b",
      "kind": "storage_buffer", "set": 0, "binding": -1, "type": "float", "size": 4,
      "stride": 4}]})",
                                  &r, &error));
  EXPECT_EQ(error, "parameters[0]: \"binding\" must be an unsigned 32-bit integer");
  EXPECT_FALSE(ReflectionFromJson(R"({"entry_points": [], "parameters": [{"name": "b",
      "kind": "storage_buffer", "set": 0, "binding": 0, "type": "quux", "size": 4,
      "stride": 4}]})",
                                  &r, &error));
  EXPECT_EQ(error, "parameters[0]: unknown type 'quux'");
}

}  // namespace
}  // namespace slope::driver

// The box-filter demo: compile examples/box_filter.slang to SPIR-V with the embedded
// compiler API, run it on the default device, print input and output, and check the
// output against the same filter computed here in plain C++.
//
//   box_filter_demo [path/to/box_filter.slang]

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/driver/compile.h"
#include "runtime/core/device.h"

namespace {

constexpr int kCount = 100;

void PrintRow(const char* label, const std::vector<float>& values) {
  std::printf("%s\n", label);
  for (size_t i = 0; i < values.size(); ++i) {
    std::printf("%9.4f%s", values[i], (i % 10 == 9 || i + 1 == values.size()) ? "\n" : " ");
  }
}

template <typename T>
std::span<const std::byte> Bytes(const std::vector<T>& v) {
  return std::as_bytes(std::span<const T>(v));
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "box_filter_demo: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = argc > 1 ? argv[1] : "examples/box_filter.slang";

  // 1. Compile.
  slope::driver::CompileOptions options;
  options.input_path = path;
  options.entries = {"boxFilterForward"};
  slope::driver::CompileResult compiled = slope::driver::Compile(options);
  if (!compiled.ok) return Fail("compilation failed");
  std::printf("compiled %s -> SPIR-V, %zu words, validated\n", path.c_str(),
              compiled.spirv.size());

  // 2. Open the default device.
  std::string error;
  std::unique_ptr<slope::runtime::Device> device = slope::runtime::CreateDefaultDevice(&error);
  if (!device) return Fail("no device: " + error);
  std::printf("device: %s (%s)\n", device->Name().c_str(),
              slope::runtime::BackendName(device->GetBackend()));

  // 3. Data: a wave with a ramp, so that every output differs from its input.
  std::vector<float> input(kCount);
  for (int i = 0; i < kCount; ++i) input[i] = 2.0f * std::sin(0.3f * i) + 0.05f * i;
  std::vector<int> info{kCount};
  std::vector<float> output(kCount, -1.0f);

  auto in_buf = device->CreateBuffer(input.size() * sizeof(float), &error);
  auto info_buf = in_buf ? device->CreateBuffer(sizeof(int), &error) : nullptr;
  auto out_buf = info_buf ? device->CreateBuffer(output.size() * sizeof(float), &error) : nullptr;
  if (!out_buf) return Fail(error);
  if (!device->WriteBuffer(*in_buf, 0, Bytes(input), &error) ||
      !device->WriteBuffer(*info_buf, 0, Bytes(info), &error) ||
      !device->WriteBuffer(*out_buf, 0, Bytes(output), &error)) {
    return Fail(error);
  }

  // 4. Run: ceil(kCount / 64) groups of 64 threads.
  auto kernel = device->CreateKernel(compiled.spirv, compiled.reflection, options.entries.front(), &error);
  if (!kernel) return Fail(error);
  slope::runtime::BufferBinding bindings[] = {
      {"input", in_buf.get()}, {"info", info_buf.get()}, {"output", out_buf.get()}};
  uint32_t groups = (kCount + 63) / 64;
  if (!device->Dispatch(*kernel, bindings, {groups, 1, 1}, &error)) return Fail(error);
  if (!device->ReadBuffer(*out_buf, 0, std::as_writable_bytes(std::span<float>(output)), &error)) {
    return Fail(error);
  }

  PrintRow("input:", input);
  PrintRow("output (forward box filter):", output);

  // 5. Check against the filter computed on the host.
  double max_error = 0;
  for (int i = 0; i < kCount; ++i) {
    auto at = [&](int j) { return input[std::min(std::max(j, 0), kCount - 1)]; };
    float expected = (at(i - 1) + at(i) + at(i + 1)) / 3.0f;
    max_error = std::max(max_error, static_cast<double>(std::fabs(expected - output[i])));
  }
  std::printf("max |device - host| = %.3g\n", max_error);
  if (max_error > 1e-5) return Fail("output does not match the host computation");
  std::printf("forward pass: OK\n");
  return 0;
}

// Uses an installed Slope as a user's program would: compiles a shader through the
// embedded API (<slope/slope.hpp>, Slope::compiler) and checks the shaders slope_add_shaders compiled at build
// time and embedded as headers. Exits non-zero, saying why, when anything is wrong.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <slope/slope.hpp>

#include "runtime/core/device.h"
#include "test_shaders/blur.cu.h"
#include "test_shaders/blur.spv.h"
#include "test_shaders/scale.cu.h"
#include "test_shaders/scale.spv.h"

namespace {

int failures = 0;

void Check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  if (!ok) ++failures;
}

constexpr uint32_t kSpirvMagic = 0x07230203;

uint32_t FirstWord(const unsigned char* bytes) {
  uint32_t word;
  std::memcpy(&word, bytes, sizeof word);
  return word;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The embedded array must hold exactly the bytes slopec wrote, plus the closing 0.
void CheckEmbedded(const char* name, const unsigned char* data, std::size_t size) {
  std::string file = ReadFile(std::string(SHADER_OUTPUT_DIR) + "/" + name);
  Check(!file.empty() && file.size() == size && std::memcmp(file.data(), data, size) == 0,
        std::string("embedded ") + name + " holds the bytes of the file slopec wrote (" +
            std::to_string(size) + " bytes)");
  Check(data[size] == 0, std::string("embedded ") + name + " ends with a 0 byte");
}

// 3. Slope::runtime: blur.slang, which imports common.slang from its folder, compiled to
// host code through the library and run on the CPU device. Both load the LLVM plugin,
// which the project copies next to this program (docs/cmake.md).
void RunBlurOnCpu() {
  slope::Session session;
  slope::Module module = session.LoadModule(std::string(SHADER_SOURCE_DIR) + "/blur.slang");
  slope::Artifact result = module.Compile(slope::Target::Host, {"computeMain"});
  Check(result.Ok() && !result.data.empty(),
        "the library compiles blur.slang (importing common.slang) to host code" +
            (result.Ok() ? "" : ": " + slope::Render(result.diagnostics) + result.internal_error));
  if (!result.Ok()) return;
  Check(result.dependencies.size() == 2 &&
            result.dependencies[1].find("common.slang") != std::string::npos,
        "its dependencies are blur.slang and the common.slang it imports");

  std::string error;
  std::unique_ptr<slope::runtime::Device> device =
      slope::runtime::CreateDevice(slope::runtime::Backend::Cpu, -1, &error);
  Check(device != nullptr, "the CPU device opens" + (error.empty() ? "" : ": " + error));
  if (!device) return;
  constexpr int kThreads = 64;  // blur's [numthreads(64, 1, 1)], one group
  std::vector<float> input(kThreads + 1), output(kThreads, -1.0f);
  for (int i = 0; i <= kThreads; ++i) input[i] = 1.0f + 0.5f * i + static_cast<float>(i % 3);
  auto in_buf = device->CreateBuffer(input.size() * sizeof(float), &error);
  auto out_buf = device->CreateBuffer(output.size() * sizeof(float), &error);
  slope::runtime::KernelCode code;
  code.host = result.data;
  auto kernel = device->CreateKernelFromCode(code, result.reflection, "computeMain", &error);
  std::vector<slope::runtime::BufferBinding> bindings{{"input", in_buf.get()},
                                                      {"output", out_buf.get()}};
  bool ran = in_buf && out_buf && kernel &&
             device->WriteBuffer(*in_buf, 0, std::as_bytes(std::span<const float>(input)), &error) &&
             device->WriteBuffer(*out_buf, 0, std::as_bytes(std::span<const float>(output)), &error) &&
             device->Dispatch(*kernel, bindings, {1, 1, 1}, &error) &&
             device->ReadBuffer(*out_buf, 0, std::as_writable_bytes(std::span<float>(output)), &error);
  Check(ran, "blur runs on the CPU device" + (error.empty() ? "" : ": " + error));
  if (!ran) return;
  // The weights common.slang gives: 0.25, 0.5, 0.25 (the left edge repeats input[0]).
  int wrong = 0;
  for (int i = 0; i < kThreads; ++i) {
    double expected = 0.25 * input[std::max(i - 1, 0)] + 0.5 * input[i] + 0.25 * input[i + 1];
    if (std::fabs(output[i] - expected) > 1e-5) ++wrong;
  }
  Check(wrong == 0, "blur's " + std::to_string(kThreads) + " outputs equal the hand-computed blur (" +
                        std::to_string(wrong) + " differ)");
}

}  // namespace

int main() {
  // 1. The embedded API: a shader given as text, compiled to SPIR-V with reflection.
  slope::Session session;
  slope::Module module = session.LoadModuleFromSource(
      "api.slang",
      "RWStructuredBuffer<float> values;\n"
      "[shader(\"compute\")] [numthreads(8, 4, 1)]\n"
      "void doubleIt(uint3 id : SV_DispatchThreadID) { values[id.x] = 2.0 * values[id.x]; }\n");
  Check(module.Ok() && module.EntryPoints().size() == 1 &&
            module.EntryPoints()[0].name == "doubleIt" &&
            module.EntryPoints()[0].numthreads == std::array<uint32_t, 3>{8, 4, 1},
        "the module lists doubleIt with [numthreads(8, 4, 1)]");
  slope::Artifact result = module.Compile(slope::Target::SpirV);
  Check(result.Ok() && result.diagnostics.empty(),
        "the library compiles a shader" + slope::Render(result.diagnostics));
  std::vector<uint32_t> words = result.Words();
  Check(words.size() > 5 && words[0] == kSpirvMagic, "its output is SPIR-V");
  const auto& entries = result.reflection.entry_points;
  Check(entries.size() == 1 && entries[0].name == "doubleIt" &&
            entries[0].numthreads == std::array<uint32_t, 3>{8, 4, 1},
        "reflection reports doubleIt with [numthreads(8, 4, 1)]");
  Check(result.reflection.FindBinding("values") != nullptr, "reflection reports the buffer 'values'");

  // A program with an error gets structured diagnostics, not an exit.
  slope::Artifact bad =
      session.LoadModuleFromSource("bad.slang", "void f() {\n  undefined_name = 1; }\n")
          .Compile(slope::Target::SpirV);
  Check(!bad.Ok() && !bad.diagnostics.empty() && bad.diagnostics[0].code == "E3001" &&
            bad.diagnostics[0].line == 2 && bad.diagnostics[0].column == 3,
        "an invalid shader is reported as an error E3001 at bad.slang:2:3");

  // 2. slope_add_shaders with EMBED: SPIR-V and CUDA C++ for each source.
  Check(test_shaders::blur_spv_size % 4 == 0 && FirstWord(test_shaders::blur_spv) == kSpirvMagic,
        "blur.spv is SPIR-V");
  Check(test_shaders::scale_spv_size % 4 == 0 && FirstWord(test_shaders::scale_spv) == kSpirvMagic,
        "scale.spv is SPIR-V");
  std::string blur_cu(reinterpret_cast<const char*>(test_shaders::blur_cu));
  std::string scale_cu(reinterpret_cast<const char*>(test_shaders::scale_cu));
  Check(blur_cu.find("__global__") != std::string::npos &&
            blur_cu.find("computeMain(") != std::string::npos,
        "blur.cu holds the computeMain kernel");
  // DEFINES renamed scale's output buffer: the kernel's parameter has the new name.
  Check(scale_cu.find("float* scaled") != std::string::npos, "scale.cu's buffer has the name DEFINES gave");
  CheckEmbedded("blur.spv", test_shaders::blur_spv, test_shaders::blur_spv_size);
  CheckEmbedded("scale.spv", test_shaders::scale_spv, test_shaders::scale_spv_size);
  CheckEmbedded("blur.cu", test_shaders::blur_cu, test_shaders::blur_cu_size);
  CheckEmbedded("scale.cu", test_shaders::scale_cu, test_shaders::scale_cu_size);

  RunBlurOnCpu();

  std::printf("%s\n", failures == 0 ? "consumer: all checks passed" : "consumer: checks failed");
  return failures == 0 ? 0 : 1;
}

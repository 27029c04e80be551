#include "tests/bench/cuda_bench.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "compiler/targets/cuda/prelude.h"
#include "runtime/cuda/cuda_device.h"

namespace slope::bench {

std::string ReadSource(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "bench: cannot read %s\n", path.c_str());
    return "";
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string CompileToPtx(const std::string& path, const std::string& source,
                         const std::string& entry, driver::Target target, int sm,
                         driver::Reflection* reflection) {
  driver::CompileOptions options;
  options.input_path = path;
  options.source_text = source;
  options.entries = {entry};
  options.stage = "compute";
  options.target = target;
  options.gpu_arch = "sm_" + std::to_string(sm);
  driver::CompileResult compiled = driver::Compile(options);
  if (!compiled.ok) return "";
  *reflection = compiled.reflection;
  if (target == driver::Target::Ptx) return compiled.text;
  std::string ptx, error;
  if (!runtime::cuda::CompileCudaToPtx(compiled.text, targets::cuda::kPreludeName,
                                       targets::cuda::PreludeText(), sm, &ptx, &error)) {
    std::fprintf(stderr, "bench: %s\n", error.c_str());
    return "";
  }
  return ptx;
}

std::unique_ptr<runtime::Kernel> BuildKernel(runtime::Device& device, const std::string& path,
                                             const std::string& source, const std::string& entry,
                                             driver::Target target, int sm) {
  driver::Reflection reflection;
  std::string ptx = CompileToPtx(path, source, entry, target, sm, &reflection);
  if (ptx.empty()) return nullptr;
  std::string error;
  auto kernel = device.CreateKernelFromCode(runtime::KernelCode{{}, ptx, {}}, reflection, entry, &error);
  if (kernel == nullptr) std::fprintf(stderr, "bench: %s\n", error.c_str());
  return kernel;
}

std::unique_ptr<runtime::Kernel> BuildHandWritten(runtime::Device& device, const std::string& cuda,
                                                  const std::string& path,
                                                  const std::string& source,
                                                  const std::string& entry, int sm) {
  driver::Reflection reflection;
  if (CompileToPtx(path, source, entry, driver::Target::Ptx, sm, &reflection).empty()) return nullptr;
  std::string ptx, error;
  if (!runtime::cuda::CompileCudaToPtx(cuda, targets::cuda::kPreludeName,
                                       targets::cuda::PreludeText(), sm, &ptx, &error)) {
    std::fprintf(stderr, "bench: hand-written kernel: %s\n", error.c_str());
    return nullptr;
  }
  auto kernel = device.CreateKernelFromCode(runtime::KernelCode{{}, ptx, {}}, reflection, entry, &error);
  if (kernel == nullptr) std::fprintf(stderr, "bench: %s\n", error.c_str());
  return kernel;
}

double TimeDispatch(runtime::Device& device, runtime::Kernel& kernel,
                    const std::vector<runtime::BufferBinding>& bindings,
                    runtime::GroupCount groups, int runs) {
  double best = -1.0;
  for (int r = 0; r <= runs; ++r) {
    runtime::DispatchStats stats;
    runtime::DispatchOptions timed;
    timed.measure_time = true;
    std::string error;
    if (!device.Dispatch(kernel, bindings, groups, &error, timed, &stats)) {
      std::fprintf(stderr, "bench: %s\n", error.c_str());
      return -1.0;
    }
    if (r > 0 && stats.kernel_ms > 0 && (best < 0 || stats.kernel_ms < best)) best = stats.kernel_ms;
  }
  if (best < 0) std::fprintf(stderr, "bench: the device measured no kernel time\n");
  return best;
}

std::unique_ptr<runtime::Buffer> Upload(runtime::Device& device, const std::vector<float>& values) {
  std::string error;
  auto buffer = device.CreateBuffer(values.size() * sizeof(float), &error);
  auto bytes = std::span<const std::byte>(reinterpret_cast<const std::byte*>(values.data()),
                                          values.size() * sizeof(float));
  if (buffer == nullptr || !device.WriteBuffer(*buffer, 0, bytes, &error)) {
    std::fprintf(stderr, "bench: %s\n", error.c_str());
    return nullptr;
  }
  return buffer;
}

std::vector<float> Download(runtime::Device& device, const runtime::Buffer& buffer) {
  std::vector<float> out(buffer.Size() / sizeof(float));
  std::string error;
  auto bytes = std::span<std::byte>(reinterpret_cast<std::byte*>(out.data()),
                                    out.size() * sizeof(float));
  if (!device.ReadBuffer(buffer, 0, bytes, &error)) {
    std::fprintf(stderr, "bench: %s\n", error.c_str());
    return {};
  }
  return out;
}

}  // namespace slope::bench

// The CUDA bandwidth benchmark: SAXPY over N floats (256M by default) compiled by
// slopec's ptx target (LLVM's NVPTX backend) and by its cuda target (CUDA C++, NVRTC),
// run on the CUDA backend, its achieved bandwidth printed as a fraction of a
// device-to-device copy (cuMemcpyDtoD) of the same bytes measured in the same run. The
// result is checked against the same arithmetic on the host. Exit 77 without a GPU.
//
//   saxpy_bench [SAXPY.slang] [-n ELEMENTS] [-runs R]

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/core/device.h"
#include "runtime/cuda/cuda_device.h"
#include "tests/bench/cuda_bench.h"

namespace {

namespace rt = slope::runtime;

constexpr float kA = 2.5f;  // the kernel's constant

float InitialX(size_t i) { return static_cast<float>(i % 1000) * 0.001f; }
float InitialY(size_t i) { return 1.0f - static_cast<float>(i % 7) * 0.25f; }

}  // namespace

int main(int argc, char** argv) {
  std::string path = "tests/bench/saxpy/saxpy.slang";
  size_t n = size_t{1} << 28;
  int runs = 10;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
      n = std::stoull(argv[++i]);
    } else if (std::strcmp(argv[i], "-runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::stoi(argv[++i]));
    } else {
      path = argv[i];
    }
  }
  std::string text = slope::bench::ReadSource(path);
  if (text.empty()) return 1;

  std::string error;
  std::unique_ptr<rt::Device> device = rt::CreateDevice(rt::Backend::Cuda, -1, &error, {});
  if (device == nullptr) {
    std::printf("saxpy_bench: skipped: %s\n", error.c_str());
    return 77;
  }
  int sm = rt::cuda::CudaComputeCapability(-1);
  size_t bytes = n * sizeof(float);
  std::printf("device: %s (sm_%d); %zu floats (%.2f GiB per buffer), best of %d runs\n",
              device->Name().c_str(), sm, n, bytes / 1073741824.0, runs);

  std::vector<float> x(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = InitialX(i);
    y[i] = InitialY(i);
  }
  auto bx = device->CreateBuffer(bytes, &error);
  auto by = bx ? device->CreateBuffer(bytes, &error) : nullptr;
  auto bz = by ? device->CreateBuffer(bytes, &error) : nullptr;
  auto as_bytes = [](const std::vector<float>& v) {
    return std::span<const std::byte>(reinterpret_cast<const std::byte*>(v.data()),
                                      v.size() * sizeof(float));
  };
  if (bz == nullptr || !device->WriteBuffer(*bx, 0, as_bytes(x), &error)) {
    std::fprintf(stderr, "saxpy_bench: %s\n", error.c_str());
    return 1;
  }

  // The baseline: a device-to-device copy reads and writes each byte once.
  float copy_ms = 1e30f;
  for (int r = 0; r <= runs; ++r) {
    float ms = -1.0f;
    if (!rt::cuda::TimedDeviceCopy(*device, *bx, *bz, bytes, &ms, &error)) {
      std::fprintf(stderr, "saxpy_bench: %s\n", error.c_str());
      return 1;
    }
    if (r > 0 && ms > 0) copy_ms = std::min(copy_ms, ms);  // run 0 warms up
  }
  double copy_gbs = 2.0 * bytes / (copy_ms * 1e6);
  std::printf("device-to-device copy: %.3f ms, %.1f GB/s\n", copy_ms, copy_gbs);

  int status = 0;
  for (auto [target, name] : {std::pair{slope::driver::Target::Ptx, "ptx (LLVM NVPTX)"},
                              std::pair{slope::driver::Target::Cuda, "cuda (CUDA C++, NVRTC)"}}) {
    slope::driver::Reflection reflection;
    std::string ptx =
        slope::bench::CompileToPtx(path, text, "saxpy", target, sm, &reflection);
    if (ptx.empty()) {
      std::printf("saxpy %s: FAILED to compile\n", name);
      status = 1;
      continue;
    }
    auto kernel = device->CreateKernelFromCode(rt::KernelCode{{}, ptx, {}}, reflection, "saxpy",
                                               &error);
    if (kernel == nullptr || !device->WriteBuffer(*by, 0, as_bytes(y), &error)) {
      std::printf("saxpy %s: FAILED: %s\n", name, error.c_str());
      status = 1;
      continue;
    }
    std::vector<rt::BufferBinding> bindings = {{"x", bx.get()}, {"y", by.get()}};
    rt::GroupCount groups{static_cast<uint32_t>((n + 255) / 256), 1, 1};
    double best = 1e30;
    bool ok = true;
    for (int r = 0; r <= runs && ok; ++r) {
      rt::DispatchStats stats;
      rt::DispatchOptions timed;
      timed.measure_time = true;
      ok = device->Dispatch(*kernel, bindings, groups, &error, timed, &stats);
      if (r > 0 && stats.kernel_ms > 0) best = std::min(best, stats.kernel_ms);
    }
    // runs + 1 dispatches: y = y0 + (runs + 1) * a * x, accumulated as the kernel does.
    std::vector<float> got(n);
    ok = ok && device->ReadBuffer(*by, 0,
                                  std::span<std::byte>(reinterpret_cast<std::byte*>(got.data()),
                                                       bytes),
                                  &error);
    size_t wrong = 0;
    for (size_t i = 0; ok && i < n; i += 4099) {
      float want = y[i];
      for (int r = 0; r <= runs; ++r) want = kA * x[i] + want;
      if (std::fabs(got[i] - want) > 1e-5f * std::max(1.0f, std::fabs(want))) ++wrong;
    }
    if (ok && best > 1e29) {
      ok = false;
      error = "the device measured no kernel time";
    }
    if (!ok || wrong != 0) {
      std::printf("saxpy %s: FAILED: %s\n", name,
                  ok ? (std::to_string(wrong) + " wrong values").c_str() : error.c_str());
      status = 1;
      continue;
    }
    double gbs = 3.0 * bytes / (best * 1e6);
    std::printf("saxpy %s: %.3f ms, %.1f GB/s = %.3f of the copy's bandwidth (results checked)\n",
                name, best, gbs, gbs / copy_gbs);
  }
  return status;
}

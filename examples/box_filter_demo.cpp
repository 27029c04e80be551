// The box-filter demo, the seed's story end to end: examples/box_filter.slang (a 3-tap
// box filter whose input reads carry a custom backward derivative) is compiled with the
// embedded compiler to SPIR-V and to CUDA C++; the forward and the backward kernels run
// on the default device (CUDA when a GPU is there, else Vulkan, else the CPU); the
// output is checked against the filter computed here, and the input gradient against
// the transpose of the filter applied on the host and against central finite
// differences of the loss L = sum_i outputGrad[i] * output[i], in double.
//
//   box_filter_demo [path/to/box_filter.slang]

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "compiler/driver/compile.h"
#include "compiler/targets/cuda/prelude.h"
#include "runtime/core/device.h"
#include "runtime/cuda/cuda_device.h"

namespace {

constexpr int kCount = 100;
constexpr uint32_t kGroupSize = 64;

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

/// The filter on the host, in double: (x[i-1] + x[i] + x[i+1]) / 3 with clamped indices.
double HostFilter(const std::vector<double>& x, int i) {
  auto at = [&](int j) { return x[static_cast<size_t>(std::clamp(j, 0, kCount - 1))]; };
  return (at(i - 1) + at(i) + at(i + 1)) / 3.0;
}

/// L = sum_i g[i] * filter(x)[i], the loss whose gradient the backward pass computes.
double HostLoss(const std::vector<double>& x, const std::vector<float>& g) {
  double loss = 0;
  for (int i = 0; i < kCount; ++i) loss += g[static_cast<size_t>(i)] * HostFilter(x, i);
  return loss;
}

/// Compiles both entry points of `path` for `target`.
slope::driver::CompileResult CompileFor(const std::string& path, slope::driver::Target target) {
  slope::driver::CompileOptions options;
  options.input_path = path;
  options.entries = {"boxFilterForward", "boxFilterBackward"};
  options.stage = "compute";
  options.target = target;
  return slope::driver::Compile(options);
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = argc > 1 ? argv[1] : "examples/box_filter.slang";

  // 1. Compile for SPIR-V and for CUDA, as `slopec -entry ... -stage compute` would.
  slope::driver::CompileResult spirv = CompileFor(path, slope::driver::Target::SpirV);
  if (!spirv.ok) return Fail("compilation to SPIR-V failed");
  std::printf("compiled %s -> SPIR-V: %zu words, validated\n", path.c_str(), spirv.spirv.size());
  slope::driver::CompileResult cuda = CompileFor(path, slope::driver::Target::Cuda);
  if (!cuda.ok) return Fail("compilation to CUDA C++ failed");
  std::printf("compiled %s -> CUDA C++: %zu bytes\n", path.c_str(), cuda.text.size());

  // 2. The default device, and the code it runs.
  std::string error;
  std::unique_ptr<slope::runtime::Device> device = slope::runtime::CreateDefaultDevice(&error);
  if (!device) return Fail("no device: " + error);
  std::printf("device: %s (%s)\n", device->Name().c_str(),
              slope::runtime::BackendName(device->GetBackend()));
  bool on_cuda = device->GetBackend() == slope::runtime::Backend::Cuda;
  std::string ptx;
  if (on_cuda) {
    int sm = slope::runtime::cuda::CudaComputeCapability(-1);
    if (!slope::runtime::cuda::CompileCudaToPtx(cuda.text, slope::targets::cuda::kPreludeName,
                                                slope::targets::cuda::PreludeText(), sm, &ptx,
                                                &error)) {
      return Fail("CUDA C++ to PTX: " + error);
    }
  }
  const slope::driver::Reflection& reflection = on_cuda ? cuda.reflection : spirv.reflection;
  auto make_kernel = [&](const char* entry) {
    slope::runtime::KernelCode code;
    if (on_cuda) {
      code.ptx = ptx;
    } else {
      code.spirv = spirv.spirv;
    }
    return device->CreateKernelFromCode(code, reflection, entry, &error);
  };

  // 3. Data: a wave with a ramp (no two neighbours equal), and an output gradient that
  // varies in sign and size, so a wrong index or a lost contribution shows.
  std::vector<float> input(kCount), output_grad(kCount);
  for (int i = 0; i < kCount; ++i) {
    input[static_cast<size_t>(i)] = 2.0f * std::sin(0.3f * static_cast<float>(i)) + 0.05f * i;
    output_grad[static_cast<size_t>(i)] = std::cos(0.7f * static_cast<float>(i)) + 0.25f;
  }
  std::vector<int> info{kCount};
  std::vector<float> output(kCount, -1.0f), input_grad(kCount, 0.0f);
  std::map<std::string, std::unique_ptr<slope::runtime::Buffer>> buffers;
  auto upload = [&](const std::string& name, std::span<const std::byte> bytes) {
    buffers[name] = device->CreateBuffer(bytes.size(), &error);
    return buffers[name] != nullptr && device->WriteBuffer(*buffers[name], 0, bytes, &error);
  };
  if (!upload("input", Bytes(input)) || !upload("info", Bytes(info)) ||
      !upload("output", Bytes(output)) || !upload("outputGrad", Bytes(output_grad)) ||
      !upload("inputGrad", Bytes(input_grad))) {
    return Fail(error);
  }
  std::vector<slope::runtime::BufferBinding> bindings;
  for (const slope::driver::BindingInfo& b : reflection.bindings) {
    if (buffers.count(b.name) == 0) return Fail("the kernel reads an unknown buffer " + b.name);
    bindings.push_back({b.name, buffers[b.name].get()});
  }

  // 4. Forward, then backward: ceil(kCount / 64) groups of 64 threads each.
  slope::runtime::GroupCount groups{(kCount + kGroupSize - 1) / kGroupSize, 1, 1};
  for (const char* entry : {"boxFilterForward", "boxFilterBackward"}) {
    auto kernel = make_kernel(entry);
    if (!kernel) return Fail(error);
    if (!device->Dispatch(*kernel, bindings, groups, &error)) return Fail(error);
  }
  if (!device->ReadBuffer(*buffers["output"], 0, std::as_writable_bytes(std::span<float>(output)),
                          &error) ||
      !device->ReadBuffer(*buffers["inputGrad"], 0,
                          std::as_writable_bytes(std::span<float>(input_grad)), &error)) {
    return Fail(error);
  }
  PrintRow("input:", input);
  PrintRow("output (forward box filter):", output);
  PrintRow("outputGrad (given):", output_grad);
  PrintRow("inputGrad (backward, bwd_diff with the atomic custom derivative):", input_grad);

  // 5. Checks. Forward: against the host filter.
  std::vector<double> x(input.begin(), input.end());
  double forward_error = 0;
  for (int i = 0; i < kCount; ++i) {
    forward_error = std::max(forward_error,
                             std::fabs(HostFilter(x, i) - output[static_cast<size_t>(i)]));
  }
  // Backward: the transpose of the filter applied to outputGrad (each output i sends
  // g_i / 3 to the clamped indices i-1, i, i+1), and central finite differences of L.
  std::vector<double> transpose(kCount, 0.0);
  for (int i = 0; i < kCount; ++i) {
    for (int j : {i - 1, i, i + 1}) {
      transpose[static_cast<size_t>(std::clamp(j, 0, kCount - 1))] +=
          output_grad[static_cast<size_t>(i)] / 3.0;
    }
  }
  double transpose_error = 0, fd_error = 0;
  const double eps = 1e-6;
  for (int j = 0; j < kCount; ++j) {
    auto jj = static_cast<size_t>(j);
    transpose_error = std::max(transpose_error, std::fabs(transpose[jj] - input_grad[jj]));
    std::vector<double> plus = x, minus = x;
    plus[jj] += eps;
    minus[jj] -= eps;
    double fd = (HostLoss(plus, output_grad) - HostLoss(minus, output_grad)) / (2 * eps);
    fd_error = std::max(fd_error, std::fabs(fd - input_grad[jj]));
  }
  std::printf("forward:  max |device - host filter|             = %.3g\n", forward_error);
  std::printf("backward: max |device - host transpose|          = %.3g\n", transpose_error);
  std::printf("backward: max |device - finite differences of L| = %.3g\n", fd_error);
  if (forward_error > 1e-5) return Fail("the forward output does not match the host filter");
  if (transpose_error > 1e-5 || fd_error > 1e-4) {
    return Fail("the input gradient does not match the host's");
  }
  std::printf("forward and backward passes: OK\n");
  return 0;
}

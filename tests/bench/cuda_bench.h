#pragma once
// What the CUDA benchmarks (saxpy_bench, autodiff_bench) share: compiling a kernel of a
// Slope source through the ptx or the cuda target to PTX, and timing dispatches on the
// CUDA backend with device events (best of N after a warm-up).

#include <memory>
#include <string>
#include <vector>

#include "compiler/driver/compile.h"
#include "runtime/core/device.h"

namespace slope::bench {

/// Reads `path`; "" after printing why when it cannot.
std::string ReadSource(const std::string& path);

/// `entry` of `source` compiled for `target` (Ptx, or Cuda then NVRTC) for GPU `sm`: the
/// PTX and the reflection, or "" after printing why.
std::string CompileToPtx(const std::string& path, const std::string& source,
                         const std::string& entry, driver::Target target, int sm,
                         driver::Reflection* reflection);

/// The kernel of `entry` of a Slope source, compiled for `target` (Ptx, or Cuda then
/// NVRTC) and loaded on `device`; nullptr after printing why.
std::unique_ptr<runtime::Kernel> BuildKernel(runtime::Device& device, const std::string& path,
                                             const std::string& source, const std::string& entry,
                                             driver::Target target, int sm);

/// A hand-written CUDA kernel: `entry` of the CUDA C++ text `cuda` (NVRTC, else nvcc),
/// bound as slopec's kernel `entry` of the Slope source is, so its parameters must be
/// slopec's for that entry, in the same order. nullptr after printing why.
std::unique_ptr<runtime::Kernel> BuildHandWritten(runtime::Device& device, const std::string& cuda,
                                                  const std::string& path,
                                                  const std::string& source,
                                                  const std::string& entry, int sm);

/// The best device time in ms of `runs` dispatches after one warm-up; negative after
/// printing why when one fails or none is timed.
double TimeDispatch(runtime::Device& device, runtime::Kernel& kernel,
                    const std::vector<runtime::BufferBinding>& bindings,
                    runtime::GroupCount groups, int runs);

/// A buffer holding `values`, or nullptr after printing why.
std::unique_ptr<runtime::Buffer> Upload(runtime::Device& device, const std::vector<float>& values);

/// The buffer's contents as floats (empty after printing why when the read fails).
std::vector<float> Download(runtime::Device& device, const runtime::Buffer& buffer);

}  // namespace slope::bench

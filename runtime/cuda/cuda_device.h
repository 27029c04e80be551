#pragma once
// The CUDA backend: the driver API, loaded with dlopen("libcuda.so.1") on first use (no
// link-time dependency, so the runtime builds and runs where no CUDA is installed).
// Kernels are PTX (what NVRTC or nvcc made of `slopec -target cuda` output), loaded with
// cuModuleLoadDataEx; a kernel takes its resources as parameters in reflection order
// (targets/cuda/writer.h); device events time dispatches.

#include <memory>
#include <string>
#include <string_view>

#include "runtime/core/device.h"

namespace slope::runtime::cuda {

/// Opens CUDA device `device_index` (-1 = device 0). Returns nullptr and sets `*error`
/// when libcuda.so.1 is missing or reports no device.
std::unique_ptr<Device> CreateCudaDevice(int device_index, std::string* error,
                                         const DeviceOptions& options);

/// Compiles CUDA C++ `source` to PTX for compute capability `sm` (90 for sm_90): with
/// NVRTC (libnvrtc.so, loaded with dlopen) when it is installed, else with nvcc; the
/// header `prelude_name` is `prelude_text`. Float multiply-adds are not contracted
/// (--fmad=false), so results match the other backends' exactly. Returns false with the
/// compiler's log in `*error` on failure.
bool CompileCudaToPtx(const std::string& source, std::string_view prelude_name,
                      std::string_view prelude_text, int sm, std::string* ptx,
                      std::string* error);

/// The compute capability of CUDA device `device_index` as major * 10 + minor (90 for an
/// H100 or H200), or 0 when there is none.
int CudaComputeCapability(int device_index);

/// Copies the first `bytes` of `src` to `dst` on the device (cuMemcpyDtoD) and puts the
/// device time between events around it in `*ms` (-1 when the events fail): the baseline
/// a memory-bound kernel's bandwidth is measured against. `device` and both buffers must
/// be CUDA ones.
bool TimedDeviceCopy(Device& device, const Buffer& src, Buffer& dst, size_t bytes, float* ms,
                     std::string* error);

}  // namespace slope::runtime::cuda

#pragma once
// The CPU backend: kernels compiled for the host (slopec -target host: LLVM bitcode),
// JIT-compiled by the LLVM plugin (compiler/targets/llvm), run on the host's cores.
// Workgroups run in parallel, one per worker thread at a time; the invocations of a
// workgroup run as scheduler.h describes (fibers when the kernel synchronizes).
// docs/cpu.md has the calling convention and the semantics.

#include <memory>
#include <string>

#include "runtime/core/device.h"

namespace slope::runtime::cpu {

/// The host as a device (only device 0). Returns nullptr and sets `*error` when the LLVM
/// plugin cannot be loaded.
std::unique_ptr<Device> CreateCpuDevice(int device_index, std::string* error,
                                        const DeviceOptions& options);

}  // namespace slope::runtime::cpu

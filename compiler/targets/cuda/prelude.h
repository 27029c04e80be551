#pragma once
// The CUDA prelude (slope_cuda_prelude.h), embedded in the compiler at build time: the
// vector and matrix types, operators and intrinsics the CUDA writer's output uses. The
// output includes it by name; slopec -emit-cuda-prelude writes it out, and the runtime
// hands it to NVRTC as an in-memory header.

#include <string_view>

namespace slope::targets::cuda {

/// The file name the output includes.
inline constexpr std::string_view kPreludeName = "slope_cuda_prelude.h";

/// The text of slope_cuda_prelude.h.
std::string_view PreludeText();

}  // namespace slope::targets::cuda

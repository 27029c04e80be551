#pragma once
// The symbol of the CUDA kernel the CUDA C++ writer makes for an entry point; the CUDA
// runtime backend looks kernels up by it.

#include <string>

namespace slope::targets::cuda {

/// The entry point's name, except that C++ reserves `main`: its kernel is `main_kernel`.
inline std::string KernelSymbol(const std::string& entry) {
  return entry == "main" ? "main_kernel" : entry;
}

}  // namespace slope::targets::cuda

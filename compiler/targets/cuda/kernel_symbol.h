#pragma once
// The symbol of the CUDA kernel the CUDA C++ writer makes for an entry point; the CUDA
// runtime backend looks kernels up by it.

#include <string>

namespace slope::targets::cuda {

/// The entry point's name, except that C++ reserves `main` (its kernel is
/// `main_kernel`) and PTX symbols are ASCII: each byte of a non-ASCII letter is written
/// `_xHH` (`主` is `_xE4_xB8_xBB`).
inline std::string KernelSymbol(const std::string& entry) {
  if (entry == "main") return "main_kernel";
  std::string out;
  for (char c : entry) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80) {
      out.push_back(c);
      continue;
    }
    const char* hex = "0123456789ABCDEF";
    out += "_x";
    out.push_back(hex[byte >> 4]);
    out.push_back(hex[byte & 15]);
  }
  return out;
}

}  // namespace slope::targets::cuda

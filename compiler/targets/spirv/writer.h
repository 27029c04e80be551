#pragma once
// The SPIR-V writer: an IR module in, a SPIR-V 1.3 binary out (Vulkan 1.1 rules,
// storage buffers with std430 layout). Entry-point parameters with system-value
// semantics become built-in input variables.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace slope::targets::spirv {

/// Bytes between consecutive elements of a buffer of `element` (std430).
uint32_t Std430ArrayStride(const ir::Type* element);
/// Bytes one element occupies (std430 size, without trailing padding).
uint32_t Std430Size(const ir::Type* element);

struct WriterOptions {
  /// Entry points to emit; empty = every entry point of the module.
  std::vector<std::string> entry_points;
};

/// Writes the module. The IR must have passed the verifier.
std::vector<uint32_t> WriteSpirv(ir::Module& module, const WriterOptions& options);

}  // namespace slope::targets::spirv

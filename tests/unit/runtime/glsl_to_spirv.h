#pragma once
// Test helper: compiles GLSL compute shaders to SPIR-V with the glslang library, so the
// runtime is tested independently of Slope's own compiler.

#include <cstdint>
#include <string>
#include <vector>

namespace slope::runtime::testing {

/// Compiles the GLSL 450 compute shader `source` for Vulkan 1.2. The SPIR-V entry point
/// is named `entry` (the GLSL function is always `main`). Returns false with the glslang
/// log in `*error` on failure.
bool CompileGlslCompute(const std::string& source, const std::string& entry,
                        std::vector<uint32_t>* spirv, std::string* error);

}  // namespace slope::runtime::testing

#pragma once
// The `-via-glsl` path of slope-run: the kernel goes through the GLSL writer and glslang
// instead of the SPIR-V writer, so the two writers are checked against each other on the
// same execution tests.

#include <cstdint>
#include <string>
#include <vector>

namespace slope::run {

/// Compiles GLSL compute shader `glsl` to SPIR-V with glslangValidator (Vulkan 1.1),
/// naming its entry point `entry` (the GLSL `main`), and validates the result with
/// SPIRV-Tools (with the scalar block layout rules when `scalar_layout`). On failure
/// returns false with `*error` holding glslang's or the validator's messages.
bool CompileGlslToSpirv(const std::string& glsl, const std::string& entry, bool scalar_layout,
                        std::vector<uint32_t>* spirv, std::string* error);

}  // namespace slope::run

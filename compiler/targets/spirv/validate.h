#pragma once
// Validation and disassembly of SPIR-V through the SPIRV-Tools library.

#include <cstdint>
#include <string>
#include <vector>

namespace slope::targets::spirv {

/// Validates for the Vulkan 1.1 environment (SPIR-V 1.3), with the scalar block layout
/// rules for buffers when `scalar_layout`. On failure returns false and sets `message` to
/// the validator's explanation.
bool ValidateSpirv(const std::vector<uint32_t>& words, std::string* message,
                   bool scalar_layout = false);

/// Disassembles to SPIR-V assembly text (friendly names, no header comment colours).
bool DisassembleSpirv(const std::vector<uint32_t>& words, std::string* text);

}  // namespace slope::targets::spirv

#include "compiler/targets/spirv/validate.h"

#include <spirv-tools/libspirv.hpp>

namespace slope::targets::spirv {

bool ValidateSpirv(const std::vector<uint32_t>& words, std::string* message,
                   bool scalar_layout) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  std::string collected;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& pos,
                               const char* msg) {
    if (!collected.empty()) collected += "; ";
    collected += msg;
    (void)pos;
  });
  spvtools::ValidatorOptions options;
  options.SetScalarBlockLayout(scalar_layout);
  bool ok = tools.Validate(words.data(), words.size(), options);
  if (!ok) *message = collected.empty() ? "unknown validation error" : collected;
  return ok;
}

bool DisassembleSpirv(const std::vector<uint32_t>& words, std::string* text) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  return tools.Disassemble(words, text,
                           SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES |
                               SPV_BINARY_TO_TEXT_OPTION_INDENT);
}

}  // namespace slope::targets::spirv

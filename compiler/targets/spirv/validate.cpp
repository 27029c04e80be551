#include "compiler/targets/spirv/validate.h"

#include <spirv-tools/libspirv.hpp>

namespace slope::targets::spirv {

namespace {

bool Validate(const std::vector<uint32_t>& words, std::string* message, bool scalar_layout,
              bool friendly_names) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  std::string collected;
  tools.SetMessageConsumer(
      [&](spv_message_level_t, const char*, const spv_position_t&, const char* msg) {
        if (!collected.empty()) collected += "; ";
        collected += msg;
      });
  spvtools::ValidatorOptions options;
  options.SetScalarBlockLayout(scalar_layout);
  options.SetFriendlyNames(friendly_names);
  bool ok = tools.Validate(words.data(), words.size(), options);
  if (!ok) *message = collected.empty() ? "unknown validation error" : collected;
  return ok;
}

}  // namespace

bool ValidateSpirv(const std::vector<uint32_t>& words, std::string* message, bool scalar_layout) {
  // Without friendly names: the validator would otherwise name every id (a hash set of
  // strings) before checking anything, a quarter of its time on a small module and a
  // tenth on a module of 10^4 functions. A module it rejects is validated again with
  // them, so the message names what it found.
  if (Validate(words, message, scalar_layout, false)) return true;
  return Validate(words, message, scalar_layout, true);
}

bool DisassembleSpirv(const std::vector<uint32_t>& words, std::string* text) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  return tools.Disassemble(words, text,
                           SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES |
                               SPV_BINARY_TO_TEXT_OPTION_INDENT);
}

}  // namespace slope::targets::spirv

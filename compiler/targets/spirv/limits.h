#pragma once
// SPIR-V's universal limits (the specification's "Universal Limits" table) checked on the
// IR the writer is about to write, so that a module the validator would reject is a
// positioned error at the declaration or statement that passes a limit.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/diag/diag.h"
#include "compiler/ir/ir.h"

namespace slope::targets::spirv {

/// Words in one instruction: its word count is a 16-bit field.
inline constexpr uint32_t kMaxInstructionWords = 65535;
/// Constituents of one OpCompositeConstruct (result type and id take two words).
inline constexpr uint32_t kMaxCompositeValues = kMaxInstructionWords - 3;
/// Members of one OpTypeStruct.
inline constexpr uint32_t kMaxStructMembers = kMaxInstructionWords - 2;
/// (literal, label) pairs of one OpSwitch.
inline constexpr uint32_t kMaxSwitchCases = 16383;
/// Members reached through nested struct fields, once per path (an array counts its
/// element once). Not a SPIR-V limit: SPIRV-Tools checks a struct type by walking
/// every such path, in time that doubles with each level of a struct holding two of
/// the level below, so Slope stops well before the validator would take seconds.
inline constexpr uint64_t kMaxNestedMembers = uint64_t{1} << 18;
/// Parameters of one OpTypeFunction.
inline constexpr uint32_t kMaxFunctionParams = 255;
/// Global OpVariables (any storage class but Function) in a module.
inline constexpr uint32_t kMaxGlobalVariables = 65535;
/// Bytes of an OpString's text (its result id takes a word; a nul ends the text).
inline constexpr uint32_t kMaxStringBytes = (kMaxInstructionWords - 2) * 4 - 1;

/// Whether `v` is all zeros: a zero constant, or a composite (make_array, make_struct,
/// make_matrix, make_vector, splat) of zeros. The writer writes a zero composite too
/// large for one instruction as OpConstantNull. `memo` caches the answers.
bool IsZeroValue(const ir::Value* v, std::unordered_map<const ir::Value*, bool>* memo);

/// Reports an entry point whose [numthreads] names specialization constants when more
/// entry points than it are written (`written`: their names; empty for all); false if so.
bool CheckSpecWorkgroupSizes(const ir::Module& module, const std::vector<std::string>& written,
                             diag::DiagEngine& diags);

/// Reports every place where `module` passes one of SPIR-V's limits; false if any.
bool CheckLimits(const ir::Module& module, diag::DiagEngine& diags);

}  // namespace slope::targets::spirv

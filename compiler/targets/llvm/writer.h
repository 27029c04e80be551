#pragma once
// The IR as LLVM IR (inside the plugin: only plugin.cpp includes this).
//
// In: a verified ir::Module after the SPIR-V target's pass list (structured control
// flow, locals in SSA form, resources traced to their globals). Out: an LLVM module with
// one function per IR function, taking the invocation (cpu_abi.h) first, and per chosen
// entry point the host entry `slope_cpu_E` and its info `slope_cpu_info_E` (CPU) or an
// NVPTX kernel named as the CUDA C++ target names it (GPU). docs/cpu.md has the mapping.

#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/targets/llvm/plugin_api.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace slope::targets::llvm {

/// Writes `module` for the host (`gpu` false) or for NVPTX, with the target machine's
/// data layout. Returns null with `*errors` set when something cannot be written.
std::unique_ptr<::llvm::Module> WriteLlvmModule(const ir::Module& module,
                                                const EmitOptions& options, bool gpu,
                                                const std::string& data_layout,
                                                ::llvm::LLVMContext& context,
                                                std::vector<EmitError>* errors);

}  // namespace slope::targets::llvm

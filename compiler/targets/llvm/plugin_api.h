#pragma once
// The interface of the LLVM plugin (libslope_llvm.so): the LLVM writer and the host JIT,
// built as a shared library that links libLLVM, so that programs which never use an
// LLVM target (slopec on the SPIR-V path) neither link LLVM nor pay its start-up.
// `plugin_loader.h` finds and opens the library on first use. The plugin and its
// callers come from one build: the interface passes C++ types and checks kApiVersion.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/source/source_manager.h"

namespace slope::targets::llvm {

inline constexpr uint32_t kApiVersion = 1;

/// What the writer produces.
enum class Output : uint8_t {
  LlvmIr,   ///< LLVM IR text (-target llvm-ir)
  Bitcode,  ///< LLVM bitcode for the host, which the CPU runtime JIT-compiles (-target host)
  Object,   ///< an ELF relocatable object for the host (-target object)
  Ptx,      ///< PTX text through LLVM's NVPTX backend (-target ptx)
};

/// One reflected resource, in reflection order (its index is its slot).
struct Binding {
  std::string name;
  std::string entry_point;  ///< a push-constant block: the entry point it belongs to
  bool storage = false;     ///< a structured or byte-address buffer (has a byte size)
  bool push_constant = false;
};

struct EmitOptions {
  Output output = Output::Bitcode;
  std::vector<std::string> entry_points;  ///< empty = every entry point
  std::vector<Binding> bindings;
  ir::MatrixLayout matrices = ir::MatrixLayout::RowMajor;
  uint32_t optimization_level = 2;  ///< 0..3: LLVM's pipeline level
  std::string gpu_arch = "sm_90";   ///< Ptx: the target processor
  /// Ptx: libdevice bitcode (the CUDA toolkit's nvvm/libdevice/libdevice.10.bc) for the
  /// transcendental functions; empty when there is none.
  std::string libdevice_path;
};

/// An error at a place in the source (an invalid location when there is none).
struct EmitError {
  source::SourceLoc loc;
  std::string message;
};

struct Jit;

struct Api {
  uint32_t version;
  /// Writes `module` (after the target's passes) as `options.output` into `*out`.
  /// Returns false with `*errors` set for what the target cannot express.
  bool (*emit)(const ir::Module& module, const EmitOptions& options, std::string* out,
               std::vector<EmitError>* errors);
  /// JIT-compiles host bitcode with `symbols` (name, address) resolvable from it, and
  /// the C library's functions; nullptr with `*error` on failure.
  Jit* (*jit_create)(std::string_view bitcode,
                     const std::vector<std::pair<std::string, void*>>& symbols,
                     std::string* error);
  /// The address of `name` in the JIT-compiled code, or nullptr with `*error`.
  void* (*jit_lookup)(Jit* jit, const std::string& name, std::string* error);
  void (*jit_destroy)(Jit* jit);
  /// LLVM's version, e.g. "19.1.7".
  const char* (*llvm_version)();
};

}  // namespace slope::targets::llvm

/// The plugin's one exported symbol.
extern "C" const slope::targets::llvm::Api* slope_llvm_plugin_api();

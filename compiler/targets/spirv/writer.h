#pragma once
// The SPIR-V writer: an IR module in, a SPIR-V 1.3 binary out (Vulkan 1.1 rules,
// storage buffers with std430 or scalar layout). Capabilities follow the types used:
// Int8/Int16/Int64/Float16/Float64 for those scalars, and StorageBuffer8BitAccess /
// StorageBuffer16BitAccess when a buffer holds 8- or 16-bit values. Entry-point
// parameters with system-value semantics become built-in input variables.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/source/source_manager.h"
#include "compiler/targets/spirv/layout.h"

namespace slope::targets::spirv {

struct WriterOptions {
  /// Entry points to emit; empty = every entry point of the module.
  std::vector<std::string> entry_points;
  /// The offsets and strides of buffer memory.
  BufferLayout layout = BufferLayout::Std430;
  /// How matrices without a `row_major` / `column_major` field modifier are laid out.
  ir::MatrixLayout matrix_layout = ir::MatrixLayout::RowMajor;
  /// Name a lone entry point "main" in OpEntryPoint (slangc without
  /// -fvk-use-entrypoint-name). Several entry points keep their names: they must differ.
  bool entry_names_main = false;
  /// -g: when set, NonSemantic.Shader.DebugInfo.100 describes the module, mapping each
  /// instruction to its line in these sources; `debug_file` is the file compiled.
  const source::SourceManager* debug_sources = nullptr;
  source::FileId debug_file = 0;
};

/// Writes the module. The IR must have passed the verifier.
std::vector<uint32_t> WriteSpirv(ir::Module& module, const WriterOptions& options);

}  // namespace slope::targets::spirv

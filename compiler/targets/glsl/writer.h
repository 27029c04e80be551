#pragma once
// The GLSL writer: an IR module (after the same pass list as SPIR-V, targets/spirv/
// raise.h) in, one GLSL 450 compute shader out, for glslang and Vulkan. Buffers keep
// the set, binding, std430 or scalar layout and matrix layout of the SPIR-V path, so the
// same host data feeds both; `#extension` lines follow the types and operations used.

#include <string>

#include "compiler/ir/ir.h"
#include "compiler/targets/layout/layout.h"

namespace slope::targets::glsl {

struct WriterOptions {
  /// The entry point to write (GLSL has one per shader, named `main`).
  std::string entry_point;
  /// The offsets and strides of buffer memory.
  targets::BufferLayout layout = targets::BufferLayout::Std430;
  /// How matrices without a `row_major` / `column_major` field modifier are laid out.
  ir::MatrixLayout matrix_layout = ir::MatrixLayout::RowMajor;
};

/// Writes entry point `options.entry_point` of `module` and every function it calls.
/// The IR must have passed the verifier and the SPIR-V pass list.
std::string WriteGlsl(ir::Module& module, const WriterOptions& options);

/// GLSL allows no layout qualifier on a struct member: a float matrix field whose
/// `row_major` / `column_major` modifier differs from the compile's matrix layout is held
/// transposed, but an array of such matrices or an integer matrix (an array of rows)
/// cannot be laid out so. Returns the first such field of a buffer element, as
/// `Struct.field`, or an empty string when every buffer can be written.
std::string FindUnsupportedMatrixField(const ir::Module& module, const WriterOptions& options);

}  // namespace slope::targets::glsl

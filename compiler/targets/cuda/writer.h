#pragma once
// The CUDA C++ writer: an IR module (after the same pass list as SPIR-V, targets/spirv/
// raise.h) in, CUDA C++ out, one `extern "C" __global__` kernel per entry point, for
// nvcc and NVRTC (sm_70 and later). The text includes slope_cuda_prelude.h
// (targets/cuda/prelude.h), which holds the vector and matrix types and the intrinsics.
//
// Buffers follow the scalar block layout (C's layout of the prelude's types), which the
// driver reports in the reflection for this target. A kernel takes, in reflection order,
// a pointer for each buffer and uniform buffer and its own push-constant block by value;
// functions reach them, and the `static` globals each thread owns, through a Context.

#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/targets/cuda/kernel_symbol.h"

namespace slope::targets::cuda {

/// One resource of the reflection, in its order.
struct Binding {
  std::string name;         ///< the reflection's (and the IR global's) name
  std::string entry_point;  ///< a push-constant block's entry point; else empty
  /// A storage buffer: after its resources, a kernel takes one `unsigned long long` per
  /// storage buffer, in reflection order, holding the buffer's size in bytes (what
  /// GetDimensions counts from).
  bool storage = false;
};

struct WriterOptions {
  /// Entry points to write; empty = every entry point of the module.
  std::vector<std::string> entry_points;
  /// The reflection's resources, in its order: each kernel's parameters.
  std::vector<Binding> bindings;
  /// How matrices without a `row_major` / `column_major` field modifier are laid out.
  ir::MatrixLayout matrix_layout = ir::MatrixLayout::RowMajor;
};

/// Writes the chosen entry points of `module` and every function they call. The IR must
/// have passed the verifier and the SPIR-V pass list.
std::string WriteCuda(ir::Module& module, const WriterOptions& options);

}  // namespace slope::targets::cuda

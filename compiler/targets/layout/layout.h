#pragma once
// Layout of buffer elements in buffer memory, by one of three rule sets; every target
// (SPIR-V, GLSL, CUDA C++) and the reflection lay buffers out through this module.
//
// std430 (the default): scalars align to their size, 2-vectors to twice it, 3- and
// 4-vectors to four times it; a struct aligns to its most aligned member, places each
// member at the next multiple of the member's alignment and rounds its size up to its
// alignment. An array aligns like its element; its stride is the element's size rounded
// up to the element's alignment (a float3[2] takes 32 bytes).
//
// std140 (uniform buffers, unless the scalar layout is chosen): the std430 rules, except
// that an array or a struct aligns to at least 16 bytes and an array's stride (and a
// matrix's row or column stride) is rounded up to a multiple of 16, so a float[3] takes
// 48 bytes and a struct that follows a float starts at offset 16.
//
// scalar (VK_EXT_scalar_block_layout, `-fvk-use-scalar-layout`): every type aligns to
// the size of its scalar components, so a float3 takes 12 bytes and aligns to 4; structs
// and arrays follow the std430 rules over those alignments.
//
// A device pointer (`T*`) takes 8 bytes and aligns to 8 under every rule set.
//
// A matrix is laid out like an array of vectors: of its rows when it is row-major (the
// default, `-matrix-layout-row-major`), of its columns when column-major
// (`-matrix-layout-column-major`); a `row_major` or `column_major` field overrides the
// default. A float3x3 takes 48 bytes under std430 (three 16-byte rows) and 36 under
// scalar. `matrices` below is the compile's default (RowMajor or ColumnMajor).

#include <cstdint>
#include <vector>

#include "compiler/ir/ir.h"

namespace slope::targets {

/// The rule set for buffer memory.
enum class BufferLayout : uint8_t { Std430, Scalar, Std140 };

/// The alignment of `t` in bytes (a scalar, vector, struct or array).
uint32_t LayoutAlign(const ir::Type* t, BufferLayout layout, ir::MatrixLayout matrices);
/// Bytes one value of `t` occupies: 12 for a 3-vector of 32-bit scalars; a struct's
/// size is rounded up to its alignment.
uint32_t LayoutSize(const ir::Type* t, BufferLayout layout, ir::MatrixLayout matrices);
/// Bytes between consecutive elements of an array (or buffer) of `element`.
uint32_t LayoutArrayStride(const ir::Type* element, BufferLayout layout,
                           ir::MatrixLayout matrices);
/// The byte offset of each member of struct `t`.
std::vector<uint32_t> LayoutMemberOffsets(const ir::Type* t, BufferLayout layout,
                                          ir::MatrixLayout matrices);
/// Bytes between consecutive rows (row-major) or columns (column-major) of matrix `m`:
/// its SPIR-V MatrixStride.
uint32_t LayoutMatrixStride(const ir::Type* m, BufferLayout layout, ir::MatrixLayout matrices);
/// `field`'s layout when it is not Default, else `fallback`.
inline ir::MatrixLayout MatrixLayoutOf(ir::MatrixLayout field, ir::MatrixLayout fallback) {
  return field == ir::MatrixLayout::Default ? fallback : field;
}

}  // namespace slope::targets

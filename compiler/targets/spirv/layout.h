#pragma once
// std430 layout of buffer elements (Vulkan storage buffers): scalars align to their size,
// 2-vectors to twice it, 3- and 4-vectors to four times it; a struct aligns to its most
// aligned member, places each member at the next multiple of the member's alignment and
// rounds its size up to its alignment. An array aligns like its element; its stride is
// the element's size rounded up to the element's alignment (a float3[2] takes 32 bytes).

#include <cstdint>
#include <vector>

#include "compiler/ir/ir.h"

namespace slope::targets::spirv {

/// The std430 alignment of `t` in bytes (a scalar, vector, struct or array).
uint32_t Std430Align(const ir::Type* t);
/// Bytes one value of `t` occupies: 12 for a 3-vector of 32-bit scalars; a struct's
/// size is rounded up to its alignment.
uint32_t Std430Size(const ir::Type* t);
/// Bytes between consecutive elements of a buffer of `element`.
uint32_t Std430ArrayStride(const ir::Type* element);
/// The byte offset of each member of struct `t`.
std::vector<uint32_t> Std430MemberOffsets(const ir::Type* t);

}  // namespace slope::targets::spirv

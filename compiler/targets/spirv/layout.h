#pragma once
// The SPIR-V writer's names for the target-neutral buffer layout (targets/layout/).

#include "compiler/targets/layout/layout.h"

namespace slope::targets::spirv {

using targets::BufferLayout;
using targets::LayoutAlign;
using targets::LayoutArrayStride;
using targets::LayoutMatrixStride;
using targets::LayoutMemberOffsets;
using targets::LayoutSize;
using targets::MatrixLayoutOf;

}  // namespace slope::targets::spirv

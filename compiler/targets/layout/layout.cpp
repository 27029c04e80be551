#include "compiler/targets/layout/layout.h"

#include <algorithm>

#include "compiler/base/ice.h"

namespace slope::targets {
namespace {
uint32_t RoundUp(uint32_t v, uint32_t align) { return (v + align - 1) / align * align; }

/// Bytes of one scalar component of a scalar, vector or matrix (a bool takes 4).
uint32_t ScalarBytes(const ir::Type* t) {
  if (t->IsPointer()) return 8;  // a device address
  return t->Scalar()->IsBool() ? 4 : t->Scalar()->Width() / 8;
}

/// Lays out the members of struct `t`: fills `offsets` (when given) and returns the end
/// of the last member. Each member's size is computed once, so nested structs cost
/// time linear in their depth.
uint32_t LayMembers(const ir::Type* t, BufferLayout layout, ir::MatrixLayout matrices,
                    std::vector<uint32_t>* offsets) {
  uint32_t end = 0;
  for (size_t i = 0; i < t->Members().size(); ++i) {
    const ir::Type* m = t->Members()[i];
    ir::MatrixLayout own = MatrixLayoutOf(t->MemberMatrixLayout(i), matrices);
    uint32_t offset = RoundUp(end, LayoutAlign(m, layout, own));
    if (offsets != nullptr) offsets->push_back(offset);
    end = offset + LayoutSize(m, layout, own);
  }
  return end;
}

/// The vector a matrix is an array of in memory: a row, or a column.
const ir::Type* MatrixVector(const ir::Type* m, ir::MatrixLayout matrices) {
  return matrices == ir::MatrixLayout::ColumnMajor ? nullptr : m->Element();
}

/// Size and alignment of a vector of `count` scalars of `bytes` each.
uint32_t VectorAlign(uint32_t bytes, uint32_t count, BufferLayout layout) {
  if (count == 1 || layout == BufferLayout::Scalar) return bytes;
  return bytes * (count == 2 ? 2 : 4);  // vec3 is aligned like vec4
}

/// std140 rounds the alignment of arrays and structs (and the stride of arrays and
/// matrices) up to 16 bytes.
uint32_t Extended(uint32_t align, BufferLayout layout) {
  return layout == BufferLayout::Std140 ? std::max<uint32_t>(align, 16) : align;
}
}  // namespace

uint32_t LayoutMatrixStride(const ir::Type* m, BufferLayout layout, ir::MatrixLayout matrices) {
  uint32_t bytes = ScalarBytes(m);
  uint32_t count = MatrixVector(m, matrices) != nullptr ? m->Cols() : m->Count();
  return RoundUp(bytes * count, Extended(VectorAlign(bytes, count, layout), layout));
}

uint32_t LayoutAlign(const ir::Type* t, BufferLayout layout, ir::MatrixLayout matrices) {
  if (t->IsArray()) return Extended(LayoutAlign(t->Element(), layout, matrices), layout);
  if (t->IsStruct()) {
    uint32_t align = 1;
    for (size_t i = 0; i < t->Members().size(); ++i) {
      ir::MatrixLayout own = MatrixLayoutOf(t->MemberMatrixLayout(i), matrices);
      align = std::max(align, LayoutAlign(t->Members()[i], layout, own));
    }
    return Extended(align, layout);
  }
  if (t->IsMatrix()) {
    uint32_t count = MatrixVector(t, matrices) != nullptr ? t->Cols() : t->Count();
    return Extended(VectorAlign(ScalarBytes(t), count, layout), layout);
  }
  if (t->IsPointer()) return 8;
  SLOPE_ASSERT(t->IsScalar() || t->IsVector());
  return VectorAlign(ScalarBytes(t), t->IsVector() ? t->Count() : 1, layout);
}

std::vector<uint32_t> LayoutMemberOffsets(const ir::Type* t, BufferLayout layout,
                                          ir::MatrixLayout matrices) {
  std::vector<uint32_t> offsets;
  LayMembers(t, layout, matrices, &offsets);
  return offsets;
}

uint32_t LayoutSize(const ir::Type* t, BufferLayout layout, ir::MatrixLayout matrices) {
  if (t->IsArray()) return t->Count() * LayoutArrayStride(t->Element(), layout, matrices);
  if (t->IsStruct()) {
    if (t->Members().empty()) return 0;
    return RoundUp(LayMembers(t, layout, matrices, nullptr), LayoutAlign(t, layout, matrices));
  }
  if (t->IsMatrix()) {
    uint32_t vectors = MatrixVector(t, matrices) != nullptr ? t->Count() : t->Cols();
    return vectors * LayoutMatrixStride(t, layout, matrices);
  }
  if (t->IsPointer()) return 8;
  return ScalarBytes(t) * t->Count();
}

uint32_t LayoutArrayStride(const ir::Type* element, BufferLayout layout,
                           ir::MatrixLayout matrices) {
  return RoundUp(LayoutSize(element, layout, matrices),
                 Extended(LayoutAlign(element, layout, matrices), layout));
}

}  // namespace slope::targets

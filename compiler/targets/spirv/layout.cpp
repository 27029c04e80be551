#include "compiler/targets/spirv/layout.h"

#include <algorithm>

#include "compiler/base/ice.h"

namespace slope::targets::spirv {
namespace {
uint32_t RoundUp(uint32_t v, uint32_t align) { return (v + align - 1) / align * align; }

/// Bytes of one scalar component of a scalar or vector (a bool takes 4).
uint32_t ScalarBytes(const ir::Type* t) {
  return t->Scalar()->IsBool() ? 4 : t->Scalar()->Width() / 8;
}

/// Lays out the members of struct `t`: fills `offsets` (when given) and returns the end
/// of the last member. Each member's size is computed once, so nested structs cost
/// time linear in their depth.
uint32_t LayMembers(const ir::Type* t, BufferLayout layout, std::vector<uint32_t>* offsets) {
  uint32_t end = 0;
  for (const ir::Type* m : t->Members()) {
    uint32_t offset = RoundUp(end, LayoutAlign(m, layout));
    if (offsets != nullptr) offsets->push_back(offset);
    end = offset + LayoutSize(m, layout);
  }
  return end;
}
}  // namespace

uint32_t LayoutAlign(const ir::Type* t, BufferLayout layout) {
  if (t->IsArray()) return LayoutAlign(t->Element(), layout);
  if (t->IsStruct()) {
    uint32_t align = 1;
    for (const ir::Type* m : t->Members()) align = std::max(align, LayoutAlign(m, layout));
    return align;
  }
  SLOPE_ASSERT(t->IsScalar() || t->IsVector());
  uint32_t scalar = ScalarBytes(t);
  if (!t->IsVector() || layout == BufferLayout::Scalar) return scalar;
  return scalar * (t->Count() == 2 ? 2 : 4);  // vec3 is aligned like vec4
}

std::vector<uint32_t> LayoutMemberOffsets(const ir::Type* t, BufferLayout layout) {
  std::vector<uint32_t> offsets;
  LayMembers(t, layout, &offsets);
  return offsets;
}

uint32_t LayoutSize(const ir::Type* t, BufferLayout layout) {
  if (t->IsArray()) return t->Count() * LayoutArrayStride(t->Element(), layout);
  if (t->IsStruct()) {
    if (t->Members().empty()) return 0;
    return RoundUp(LayMembers(t, layout, nullptr), LayoutAlign(t, layout));
  }
  return ScalarBytes(t) * t->Count();
}

uint32_t LayoutArrayStride(const ir::Type* element, BufferLayout layout) {
  return RoundUp(LayoutSize(element, layout), LayoutAlign(element, layout));
}

}  // namespace slope::targets::spirv

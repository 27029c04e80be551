#include "compiler/targets/spirv/layout.h"

#include <algorithm>

#include "compiler/base/ice.h"

namespace slope::targets::spirv {
namespace {
uint32_t RoundUp(uint32_t v, uint32_t align) { return (v + align - 1) / align * align; }
}  // namespace

uint32_t Std430Align(const ir::Type* t) {
  if (t->IsArray()) return Std430Align(t->Element());
  if (t->IsStruct()) {
    uint32_t align = 1;
    for (const ir::Type* m : t->Members()) align = std::max(align, Std430Align(m));
    return align;
  }
  SLOPE_ASSERT(t->IsScalar() || t->IsVector());
  uint32_t scalar = t->Scalar()->IsBool() ? 4 : t->Scalar()->Width() / 8;
  if (!t->IsVector()) return scalar;
  return scalar * (t->Count() == 2 ? 2 : 4);  // vec3 is aligned like vec4
}

namespace {
/// Lays out the members of struct `t`: fills `offsets` (when given) and returns the end
/// of the last member. Each member's size is computed once, so nested structs cost
/// time linear in their depth.
uint32_t LayMembers(const ir::Type* t, std::vector<uint32_t>* offsets) {
  uint32_t end = 0;
  for (const ir::Type* m : t->Members()) {
    uint32_t offset = RoundUp(end, Std430Align(m));
    if (offsets != nullptr) offsets->push_back(offset);
    end = offset + Std430Size(m);
  }
  return end;
}
}  // namespace

std::vector<uint32_t> Std430MemberOffsets(const ir::Type* t) {
  std::vector<uint32_t> offsets;
  LayMembers(t, &offsets);
  return offsets;
}

uint32_t Std430Size(const ir::Type* t) {
  if (t->IsArray()) return t->Count() * Std430ArrayStride(t->Element());
  if (t->IsStruct()) {
    if (t->Members().empty()) return 0;
    return RoundUp(LayMembers(t, nullptr), Std430Align(t));
  }
  uint32_t scalar = t->Scalar()->IsBool() ? 4 : t->Scalar()->Width() / 8;
  return t->IsVector() ? scalar * t->Count() : scalar;
}

uint32_t Std430ArrayStride(const ir::Type* element) {
  return RoundUp(Std430Size(element), Std430Align(element));
}

}  // namespace slope::targets::spirv

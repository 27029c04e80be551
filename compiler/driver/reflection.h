#pragma once
// Reflection: what a compiled module exposes to the host — its entry points and the
// resources they bind. The runtime binds buffers by the names recorded here.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace slope::driver {

/// Scalar element kinds that can appear in a buffer visible to the host.
enum class ScalarKind : uint8_t { Bool, Int32, UInt32, Float32 };

/// Returns "bool", "int", "uint" or "float".
inline const char* ScalarKindName(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::Bool: return "bool";
    case ScalarKind::Int32: return "int";
    case ScalarKind::UInt32: return "uint";
    case ScalarKind::Float32: return "float";
  }
  return "?";
}

/// The kind of a bound resource.
enum class ResourceKind : uint8_t {
  StructuredBuffer,    ///< read-only storage buffer of elements
  RWStructuredBuffer,  ///< read-write storage buffer of elements
};

/// One scalar or vector member of a struct element. Nested structs are flattened: their
/// members appear in place, named with a dot ("inner.x").
struct FieldLayout {
  std::string name;
  ScalarKind scalar = ScalarKind::Float32;
  uint32_t components = 1;  ///< 1 for a scalar, 2..4 for a vector
  uint32_t offset = 0;      ///< bytes from the start of the element (std430)
};

/// The layout of one element of a buffer: a scalar, a vector of `components` scalars,
/// or a struct (then `struct_name` is set and `fields` lists its members).
struct ElementLayout {
  ScalarKind scalar = ScalarKind::Float32;
  uint32_t components = 1;  ///< 1 for a scalar, 2..4 for a vector
  uint32_t size = 4;        ///< bytes actually occupied by one element
  uint32_t stride = 4;      ///< bytes between consecutive elements (std430)
  std::string struct_name{};        ///< the struct's name; empty for scalars and vectors
  std::vector<FieldLayout> fields{};  ///< a struct's members, flattened, in member order
};

/// One resource parameter of the module, bound through a descriptor set.
struct BindingInfo {
  std::string name;
  ResourceKind kind = ResourceKind::StructuredBuffer;
  uint32_t set = 0;
  uint32_t binding = 0;
  ElementLayout element;
};

/// One compute entry point.
struct EntryPointInfo {
  std::string name;
  std::array<uint32_t, 3> numthreads{1, 1, 1};
};

/// Everything the host needs to run a compiled module.
struct Reflection {
  std::vector<EntryPointInfo> entry_points;
  std::vector<BindingInfo> bindings;

  /// Returns the binding named `name`, or nullptr.
  const BindingInfo* FindBinding(const std::string& name) const {
    for (const BindingInfo& b : bindings) {
      if (b.name == name) return &b;
    }
    return nullptr;
  }
};

}  // namespace slope::driver

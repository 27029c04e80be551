#pragma once
// Reflection: what a compiled module exposes to the host — its entry points and the
// resources they bind. The runtime binds buffers by the names recorded here.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace slope::driver {

/// Scalar element kinds that can appear in a buffer visible to the host.
enum class ScalarKind : uint8_t {
  Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Float16, Float32, Float64
};

/// Returns the type's name in the language: "bool", "int", "uint", "float", "half",
/// "double", "int8_t", "uint64_t", ...
inline const char* ScalarKindName(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::Bool: return "bool";
    case ScalarKind::Int8: return "int8_t";
    case ScalarKind::Int16: return "int16_t";
    case ScalarKind::Int32: return "int";
    case ScalarKind::Int64: return "int64_t";
    case ScalarKind::UInt8: return "uint8_t";
    case ScalarKind::UInt16: return "uint16_t";
    case ScalarKind::UInt32: return "uint";
    case ScalarKind::UInt64: return "uint64_t";
    case ScalarKind::Float16: return "half";
    case ScalarKind::Float32: return "float";
    case ScalarKind::Float64: return "double";
  }
  return "?";
}

/// Bytes one value of `kind` takes in a buffer (a bool takes 4).
inline uint32_t ScalarKindBytes(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::Int8:
    case ScalarKind::UInt8: return 1;
    case ScalarKind::Int16:
    case ScalarKind::UInt16:
    case ScalarKind::Float16: return 2;
    case ScalarKind::Int64:
    case ScalarKind::UInt64:
    case ScalarKind::Float64: return 8;
    case ScalarKind::Bool:
    case ScalarKind::Int32:
    case ScalarKind::UInt32:
    case ScalarKind::Float32: return 4;
  }
  return 4;
}

/// The kind of a bound resource.
enum class ResourceKind : uint8_t {
  StructuredBuffer,    ///< read-only storage buffer of elements
  RWStructuredBuffer,  ///< read-write storage buffer of elements
  UniformBuffer,       ///< `cbuffer` / `ConstantBuffer<T>`: one struct (std140 or scalar)
  PushConstant,        ///< an entry point's `uniform` parameters, or the module's
                       ///< `[[vk::push_constant]]` block (one binding per entry point):
                       ///< one struct (std430 or scalar), set by the host at dispatch;
                       ///< no set or binding
  Texture,             ///< a sampled texture (`Texture2D<T>`): `texture` describes it
  RWTexture,           ///< a storage texture (`RWTexture2D<T>`), with its format
  Sampler,             ///< `SamplerState` / `SamplerComparisonState`
  SampledTexture,      ///< a combined texture and sampler (`Sampler2D<T>`): one descriptor
                       ///< holding both; `texture` describes the texture
  TexelBuffer,         ///< a typed buffer (`Buffer<T>`): a buffer read through a view of
                       ///< `texture.format` (a uniform texel buffer); `element` is one
                       ///< texel of that format as the buffer's memory holds it
  RWTexelBuffer,       ///< `RWBuffer<T>`: the same, read and written (a storage texel buffer)
};

/// "storage_buffer", "rw_storage_buffer", "uniform_buffer", "push_constant", "texture", ...
inline const char* ResourceKindName(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::StructuredBuffer: return "storage_buffer";
    case ResourceKind::RWStructuredBuffer: return "rw_storage_buffer";
    case ResourceKind::UniformBuffer: return "uniform_buffer";
    case ResourceKind::PushConstant: return "push_constant";
    case ResourceKind::Texture: return "texture";
    case ResourceKind::RWTexture: return "rw_texture";
    case ResourceKind::Sampler: return "sampler";
    case ResourceKind::SampledTexture: return "sampled_texture";
    case ResourceKind::TexelBuffer: return "texel_buffer";
    case ResourceKind::RWTexelBuffer: return "rw_texel_buffer";
  }
  return "?";
}

/// One scalar or vector member of a struct element. Nested structs are flattened: their
/// members appear in place, named with a dot ("inner.x").
struct FieldLayout {
  std::string name;
  ScalarKind scalar = ScalarKind::Float32;
  uint32_t components = 1;  ///< 1 for a scalar, 2..4 for a vector
  uint32_t offset = 0;      ///< bytes from the start of the element (std430)
  /// Bytes between components; 0 when they are packed (a matrix row of a column-major
  /// matrix has its components a matrix stride apart).
  uint32_t component_stride = 0;
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
  /// A matrix: `rows` rows of `components` components; component c of row r lies at
  /// r * row_step + c * component_stride. 0 rows for scalars and vectors.
  uint32_t rows = 0;
  uint32_t row_step = 0;
  uint32_t component_stride = 0;
};

/// One resource parameter of the module, bound through a descriptor set (or, for a
/// push-constant block, set with the dispatch). For a uniform buffer or push-constant
/// block, `element` is its one struct, and each field is named as the source reads it:
/// "scale" for a cbuffer member or a uniform parameter, "p.scale" for a member of
/// `ConstantBuffer<T> p`; `element.size` is the block's size in bytes.
/// What a texture binding holds: its shape and texel format. `element` of the binding
/// gives the texel type (a 32-bit scalar or vector).
struct TextureInfo {
  uint32_t dim = 2;        ///< 1, 2, 3, 4 for a cube, or 5 for a typed buffer
  bool arrayed = false;    ///< Texture2DArray, ...
  std::string format{};    ///< "rgba32f", ... for RW textures; empty for sampled ones;
                           ///< a typed buffer's view format (both kinds: "rgb32f" too)
  bool comparison = false;  ///< for a sampler: SamplerComparisonState; for a combined
                            ///< texture: a shadow one (`Sampler2DShadow`)
};

struct BindingInfo {
  std::string name;
  ResourceKind kind = ResourceKind::StructuredBuffer;
  uint32_t set = 0;
  uint32_t binding = 0;
  ElementLayout element;
  std::string entry_point{};  ///< for a push-constant block: the entry point it belongs to
  TextureInfo texture{};      ///< for textures and samplers
};

/// One compute entry point.
struct EntryPointInfo {
  std::string name;
  std::array<uint32_t, 3> numthreads{1, 1, 1};
  /// Per dimension, the constant_id of the specialization constant that sets it (its
  /// default is in `numthreads`), or -1: `[numthreads(kX, 1, 1)]`.
  std::array<int64_t, 3> numthreads_spec_ids{-1, -1, -1};
  /// [WaveSize(n)]: the subgroup size the kernel must run with; 0 when it names none.
  uint32_t wave_size = 0;
};

/// One specialization constant (`[vk::constant_id(N)]`, `[SpecializationConstant]`): a
/// 32-bit scalar (`bool` as a 32-bit 0 or 1, as VkSpecializationInfo takes it).
struct SpecConstantInfo {
  std::string name;
  uint32_t id = 0;
  ScalarKind type = ScalarKind::Int32;
  uint32_t default_bits = 0;  ///< the initializer's value, as the 32 bits of its type
  /// What a kernel made from this reflection uses instead of the default (the Vulkan
  /// runtime passes it through VkSpecializationInfo; CPU and CUDA refuse an override).
  bool overridden = false;
  uint32_t value_bits = 0;
};

/// One argument of a user-defined attribute, of its field's type.
struct AttributeArg {
  enum class Kind : uint8_t { Int, UInt, Float, Bool, String };
  Kind kind = Kind::Int;
  int64_t int_value = 0;  ///< Int and UInt (and Bool as 0 or 1)
  double float_value = 0;
  std::string string_value{};
};

/// A user-defined attribute on a declaration (`[MaxValue(12, "scale")] uniform int s;`).
struct UserAttributeInfo {
  std::string name;         ///< "MaxValue"
  std::string target_kind;  ///< "var", "field", "function", "param" or "struct"
  std::string target;       ///< "s", "S.radius", "main", "main.x", "S"
  std::vector<AttributeArg> args;
};

/// An interface with [anyValueSize(N)]: how a host writes its values into a buffer. An
/// element is `element_size` bytes: a type id word (not read), 0, the conformance id of
/// the value's type, 0, then the payload (the value's 32-bit fields in order).
struct DynamicInterfaceInfo {
  std::string name;
  uint32_t any_value_size = 0;
  uint32_t element_size = 0;
  /// The conforming types, each with its conformance id and payload bytes.
  struct Conformance {
    std::string type;
    uint32_t id = 0;
    uint32_t payload_size = 0;
  };
  std::vector<Conformance> conformances;
};

/// Everything the host needs to run a compiled module.
struct Reflection {
  std::vector<EntryPointInfo> entry_points;
  std::vector<BindingInfo> bindings;
  std::vector<SpecConstantInfo> spec_constants;
  std::vector<UserAttributeInfo> user_attributes;
  std::vector<DynamicInterfaceInfo> dynamic_interfaces;

  /// Returns the binding named `name`, or nullptr.
  const BindingInfo* FindBinding(const std::string& name) const {
    for (const BindingInfo& b : bindings) {
      if (b.name == name) return &b;
    }
    return nullptr;
  }
};

}  // namespace slope::driver

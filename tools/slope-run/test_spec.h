#pragma once
// The directives of an execution test: the buffers a kernel reads and writes, how many
// thread groups to launch, and which entry point to run, written as comments in the
// test's source file:
//
//   //INPUT: buffer NAME TYPE [v0, v1, ...]
//   //OUTPUT: buffer NAME TYPE COUNT [= [v0, v1, ...]]
//
// A typed buffer of the kernel (`Buffer<T>`, `RWBuffer<T>`) takes these lines too: TYPE is
// then its texel as memory holds it (reflection's element: float4 for rgba32f, uint8_t4
// for rgba8), and the runtime binds the buffer through a view of its format.
// TYPE is a scalar or vector ("float3") or the name of a struct of the kernel; a struct
// buffer's values are written flat, member after member (each component of a vector
// member, nested structs in place), and converted once the kernel's layout is known.
//   //INPUT: uniform NAME TYPE VALUE        (or [v0, v1, ...] for a vector)
//
// sets one member of uniform data: a cbuffer member or a `uniform` entry-point parameter
// by its name ("scale"), a member of `ConstantBuffer<T> p` by "p.scale" (a nested
// member "p.inner.x", an array element "w[1]", a matrix row "m[0]"). Every member of
// the uniform data the kernel has must be given; each is written at its reflected offset.
// A 64-bit integer value (a uniform, or a member of a struct buffer's element) may be
// written `@BUFFER` or `@BUFFER+BYTES`: the device address of the test's buffer BUFFER
// (plus BYTES), for a kernel's pointers (`T*`) to point into it.
//   //INPUT: tensor NAME TYPE [d0, d1, ...] [v0, v1, ...]
//   //OUTPUT: tensor NAME TYPE [d0, d1, ...]
//
// binds a `TensorView<TYPE> NAME` of the kernel: its buffer NAME.data holds the values
// (row-major, zero for an output), NAME.sizes the shape (up to 4 dimensions, unused ones
// 0) and NAME.strides the row-major strides in elements. An output prints as NAME.data.
// NAME may be a path to a TensorView inside a struct: `x.primal` and `x.diff.diff` are
// the values and the gradients of a `DiffTensorView x`.
//   //INPUT: texture NAME TYPE [w, h, ...] [mips=N] [v0, v1, ...]
//   //OUTPUT: texture NAME TYPE [w, h, ...] [= [v0, v1, ...]]
//   //INPUT: sampler NAME [filter=nearest|linear] [address=clamp|wrap|mirror|border]
//
// binds a texture of the kernel (`Texture2D<T> NAME`, `RWTexture3D<T> NAME`, ...): TYPE
// is its texel format, a 32-bit scalar or 2- or 4-vector (float4: rgba32f, uint: r32ui,
// ...) or a format name (rgba8); the size has one number per axis, then the layer count
// of an arrayed texture (a cube's size is [w, w], six faces +x -x +y -y +z -z per layer).
// The values are the texels of every mip level in turn, each level's layers and slices
// in row-major order, x fastest, components in order. An output texture prints its mip
// level 0 as NAME: v0 v1 .... A sampler binds a SamplerState (or comparison state). A
// combined texture and sampler (`Sampler2D<T> NAME`) takes a texture directive and a
// sampler directive of the same NAME (without one, a nearest, clamping sampler).
//   //DISPATCH: X [Y [Z]]
//   //ENTRY: NAME
//
// Each directive starts a line (after optional indentation), with no space between `//`
// and its keyword; other comments are ignored.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/driver/reflection.h"
#include "runtime/core/device.h"

namespace slope::run {

/// The element type named in a buffer directive: a scalar or a 2..4-vector of it, or a
/// struct of the kernel (then `struct_name` is set and the other members are unused).
struct ElementType {
  driver::ScalarKind scalar = driver::ScalarKind::Float32;
  uint32_t components = 1;  ///< a matrix's columns
  std::string struct_name{};
  uint32_t rows = 0;        ///< a matrix's rows (`float3x3`); 0 for scalars and vectors
  /// Values one element takes: a matrix's are given row after row.
  uint32_t Values() const { return components * (rows == 0 ? 1 : rows); }
};

/// Parses a scalar type name of the language ("float", "int", "uint", "half", "double",
/// "int8_t" ... "uint64_t", "float16_t", ...), its 2..4-vector forms ("float3",
/// "int64_t2", ...) and its matrix forms ("float3x3", "half2x4").
std::optional<ElementType> ParseElementType(std::string_view text);

/// Returns the directive spelling of `type`, e.g. "float3" or "int".
std::string ElementTypeName(ElementType type);

/// Whether a buffer is only uploaded, or also read back and printed.
enum class BufferRole : uint8_t { Input, Output };

/// One //INPUT: or //OUTPUT: directive.
struct BufferSpec {
  BufferRole role = BufferRole::Input;
  std::string name;
  ElementType type;
  uint32_t count = 0;  ///< number of elements
  /// Initial contents: count * components values, each the bit pattern of the value
  /// written in the element's scalar type (in the low bytes: 2 for a half, 8 for a
  /// double), all zero for an output without `= [...]`. Empty for struct buffers, whose
  /// values stay text in `texts` until the layout is known.
  std::vector<uint64_t> bits;
  std::vector<std::string> texts;  ///< a struct buffer's values as written, flat

  uint32_t line = 0;  ///< 1-based line of the directive
};

/// One //INPUT: uniform directive.
struct UniformSpec {
  std::string name;  ///< as the source reads it: "scale", "p.scale", "w[1]"
  ElementType type;  ///< a scalar or vector
  std::vector<uint64_t> bits;  ///< one bit pattern per component (as in BufferSpec)
  uint32_t line = 0;
  /// `@BUFFER` or `@BUFFER+BYTES`: the value is that buffer's device address (plus the
  /// bytes), known once the buffers exist; empty for a plain value.
  std::string address{};
};

/// One //INPUT: texture or //OUTPUT: texture directive.
struct TextureSpec {
  BufferRole role = BufferRole::Input;
  std::string name;
  std::string format;          ///< "rgba32f", ...
  driver::ScalarKind scalar = driver::ScalarKind::Float32;  ///< how values are written
  uint32_t components = 4;
  std::vector<uint32_t> size;  ///< as written: axes, then layers
  uint32_t mips = 1;
  std::vector<uint64_t> bits;  ///< every value of every level (as in BufferSpec); empty
                               ///< for an output without initial values
  uint32_t line = 0;
};

/// One //INPUT: sampler directive.
struct SamplerSpec {
  std::string name;
  runtime::SamplerDesc desc;
  uint32_t line = 0;
};

/// Everything the directives of one test file say.
struct TestSpec {
  std::vector<TextureSpec> textures;  ///< in declaration order
  std::vector<SamplerSpec> samplers;
  std::vector<BufferSpec> buffers;  ///< in declaration order
  std::vector<UniformSpec> uniforms;  ///< in declaration order
  runtime::GroupCount dispatch;     ///< //DISPATCH:, or 1 1 1
  std::string entry;                ///< //ENTRY:, or empty
  uint32_t entry_line = 0;          ///< line of //ENTRY:, 0 when absent
};

/// A malformed directive: where and what.
struct SpecError {
  uint32_t line = 0;  ///< 1-based
  std::string message;
};

/// Whether `text` is a buffer address (`@BUFFER` or `@BUFFER+BYTES`); sets the buffer's
/// name and the byte offset when it is.
bool ParseAddressValue(std::string_view text, std::string* buffer, uint64_t* offset);

/// Parses one value written in a directive as `scalar`, into its bit pattern (the
/// scalar's size in the low bytes); on failure, a value that is not a number of that
/// type or is out of its range, sets `*message`.
bool ParseScalarValue(std::string_view text, driver::ScalarKind scalar, uint64_t* bits,
                      std::string* message);

/// Parses every directive in `source`. On a malformed directive, returns false with
/// `*error` naming its line; `*spec` is then unspecified.
bool ParseTestSpec(std::string_view source, TestSpec* spec, SpecError* error);

}  // namespace slope::run

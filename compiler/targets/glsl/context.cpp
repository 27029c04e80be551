#include "compiler/targets/glsl/context.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "compiler/base/half.h"
#include "compiler/base/ice.h"

namespace slope::targets::glsl {
namespace {

/// GLSL 4.60's keywords and reserved words, the type names of the extensions the writer
/// uses, and the built-in functions it calls (a user name that equals one would hide it).
const std::vector<std::string_view>& ReservedWords() {
  static const std::vector<std::string_view> kWords = {
      // Keywords and words reserved for future use.
      "attribute",
      "const",
      "uniform",
      "varying",
      "buffer",
      "shared",
      "coherent",
      "volatile",
      "restrict",
      "readonly",
      "writeonly",
      "atomic_uint",
      "layout",
      "centroid",
      "flat",
      "smooth",
      "noperspective",
      "patch",
      "sample",
      "break",
      "continue",
      "do",
      "for",
      "while",
      "switch",
      "case",
      "default",
      "if",
      "else",
      "subroutine",
      "in",
      "out",
      "inout",
      "float",
      "double",
      "int",
      "void",
      "bool",
      "true",
      "false",
      "invariant",
      "precise",
      "discard",
      "return",
      "lowp",
      "mediump",
      "highp",
      "precision",
      "struct",
      "uint",
      "common",
      "partition",
      "active",
      "asm",
      "class",
      "union",
      "enum",
      "typedef",
      "template",
      "this",
      "resource",
      "goto",
      "inline",
      "noinline",
      "public",
      "static",
      "extern",
      "external",
      "interface",
      "long",
      "short",
      "half",
      "fixed",
      "unsigned",
      "superp",
      "input",
      "output",
      "filter",
      "sizeof",
      "cast",
      "namespace",
      "using",
      "main",
      "demote",
      "nonuniformEXT",
      "sampler",
      "image",
      "texture",
      "subpassInput",
      // Scalar, vector and matrix types.
      "vec2",
      "vec3",
      "vec4",
      "ivec2",
      "ivec3",
      "ivec4",
      "uvec2",
      "uvec3",
      "uvec4",
      "bvec2",
      "bvec3",
      "bvec4",
      "dvec2",
      "dvec3",
      "dvec4",
      "mat2",
      "mat3",
      "mat4",
      "dmat2",
      "dmat3",
      "dmat4",
      "mat2x2",
      "mat2x3",
      "mat2x4",
      "mat3x2",
      "mat3x3",
      "mat3x4",
      "mat4x2",
      "mat4x3",
      "mat4x4",
      "dmat2x2",
      "dmat2x3",
      "dmat2x4",
      "dmat3x2",
      "dmat3x3",
      "dmat3x4",
      "dmat4x2",
      "dmat4x3",
      "dmat4x4",
      "int8_t",
      "uint8_t",
      "int16_t",
      "uint16_t",
      "int32_t",
      "uint32_t",
      "int64_t",
      "uint64_t",
      "float16_t",
      "float32_t",
      "float64_t",
      // Built-in functions.
      "radians",
      "degrees",
      "sin",
      "cos",
      "tan",
      "asin",
      "acos",
      "atan",
      "sinh",
      "cosh",
      "tanh",
      "asinh",
      "acosh",
      "atanh",
      "pow",
      "exp",
      "log",
      "exp2",
      "log2",
      "sqrt",
      "inversesqrt",
      "abs",
      "sign",
      "floor",
      "trunc",
      "round",
      "roundEven",
      "ceil",
      "fract",
      "mod",
      "modf",
      "min",
      "max",
      "clamp",
      "mix",
      "step",
      "smoothstep",
      "isnan",
      "isinf",
      "floatBitsToInt",
      "floatBitsToUint",
      "intBitsToFloat",
      "uintBitsToFloat",
      "fma",
      "frexp",
      "ldexp",
      "packHalf2x16",
      "unpackHalf2x16",
      "length",
      "distance",
      "dot",
      "cross",
      "normalize",
      "faceforward",
      "reflect",
      "refract",
      "matrixCompMult",
      "outerProduct",
      "transpose",
      "determinant",
      "inverse",
      "lessThan",
      "lessThanEqual",
      "greaterThan",
      "greaterThanEqual",
      "equal",
      "notEqual",
      "any",
      "all",
      "not",
      "bitfieldExtract",
      "bitfieldInsert",
      "bitfieldReverse",
      "bitCount",
      "findLSB",
      "findMSB",
      "uaddCarry",
      "usubBorrow",
      "umulExtended",
      "imulExtended",
      "atomicAdd",
      "atomicMin",
      "atomicMax",
      "atomicAnd",
      "atomicOr",
      "atomicXor",
      "atomicExchange",
      "atomicCompSwap",
      "barrier",
      "memoryBarrier",
      "memoryBarrierShared",
      "memoryBarrierBuffer",
      "memoryBarrierImage",
      "groupMemoryBarrier",
      "subgroupElect",
      "subgroupAll",
      "subgroupAny",
      "subgroupAllEqual",
      "subgroupAdd",
      "subgroupMul",
      "subgroupMin",
      "subgroupMax",
      "subgroupAnd",
      "subgroupOr",
      "subgroupXor",
      "subgroupExclusiveAdd",
      "subgroupExclusiveMul",
      "subgroupBallot",
      "subgroupBallotBitCount",
      "subgroupBallotExclusiveBitCount",
      "subgroupBroadcastFirst",
      "subgroupShuffle",
  };
  return kWords;
}

}  // namespace

Context::Context(ir::Module& module, const WriterOptions& options)
    : module_(module),
      options_(options),
      names_(module, ReservedWords(), {"gl_"}, [&options](const ir::Function& f) {
        return f.is_entry && f.Name() == options.entry_point ? std::string("main")
                                                              : std::string();
      }) {}

bool Context::IsTransposedMember(const ir::Type* s, size_t i) const {
  const ir::Type* m = s->Members()[i];
  ir::MatrixLayout own = s->MemberMatrixLayout(i);
  return m->IsMatrix() && m->Scalar()->IsFloat() && own != ir::MatrixLayout::Default &&
         own != options_.matrix_layout;
}

const ir::Type* Context::MemberStorageType(const ir::Type* s, size_t i) {
  const ir::Type* m = s->Members()[i];
  if (!IsTransposedMember(s, i)) return m;
  return module_.Types().Matrix(m->Scalar(), m->Cols(), m->Count());
}

std::string Context::ScalarName(const ir::Type* t) {
  if (t->IsBool()) return "bool";
  if (t->IsFloat()) {
    if (t->Width() == 16) {
      Require("GL_EXT_shader_explicit_arithmetic_types_float16");
      Require("GL_EXT_shader_16bit_storage");
      return "float16_t";
    }
    return t->Width() == 64 ? "double" : "float";
  }
  SLOPE_ASSERT(t->IsInt());
  std::string u = t->IsSigned() ? "" : "u";
  if (t->Width() == 32) return u + "int";
  Require("GL_EXT_shader_explicit_arithmetic_types_int" + std::to_string(t->Width()));
  if (t->Width() == 8) Require("GL_EXT_shader_8bit_storage");
  if (t->Width() == 16) Require("GL_EXT_shader_16bit_storage");
  return u + "int" + std::to_string(t->Width()) + "_t";
}

std::string Context::BaseName(const ir::Type* t, std::vector<uint32_t>* dims) {
  switch (t->Kind()) {
    case ir::TypeKind::Void:
      return "void";
    case ir::TypeKind::Bool:
    case ir::TypeKind::Int:
    case ir::TypeKind::Float:
      return ScalarName(t);
    case ir::TypeKind::Vector: {
      const ir::Type* s = t->Element();
      std::string scalar = ScalarName(s);  // requires the extension
      std::string prefix;
      if (s->IsBool()) {
        prefix = "b";
      } else if (s->IsFloat()) {
        prefix = s->Width() == 16 ? "f16" : s->Width() == 64 ? "d" : "";
      } else {
        prefix = (s->IsSigned() ? "i" : "u") + (s->Width() == 32 ? "" : std::to_string(s->Width()));
      }
      return prefix + "vec" + std::to_string(t->Count());
    }
    case ir::TypeKind::Matrix: {
      const ir::Type* s = t->Scalar();
      if (!s->IsFloat()) {
        // An array of its rows, as in the SPIR-V writer.
        dims->push_back(t->Count());
        return BaseName(t->Element(), dims);
      }
      ScalarName(s);
      std::string prefix = s->Width() == 16 ? "f16" : s->Width() == 64 ? "d" : "";
      // GLSL's matNxM has N columns of M: the IR's rows are its columns.
      return prefix + "mat" + std::to_string(t->Count()) + "x" + std::to_string(t->Cols());
    }
    case ir::TypeKind::Struct:
      return names_.StructName(t);
    case ir::TypeKind::Array:
      dims->push_back(t->Count());
      return BaseName(t->Element(), dims);
    case ir::TypeKind::Pointer:
      if (t->IsDevicePointer()) return PointerTypeName(t->Element());
      return BaseName(t->Element(), dims);
    case ir::TypeKind::Buffer:
      SLOPE_ICE("a buffer has no GLSL value type");
    case ir::TypeKind::Texture:
    case ir::TypeKind::Sampler:
      SLOPE_ICE("glsl: textures are refused before the writer (driver/targets.cpp)");
  }
  SLOPE_ICE("unknown type kind");
}

const std::string& Context::PointerTypeName(const ir::Type* pointee) {
  auto it = pointer_names_.find(pointee);
  if (it != pointer_names_.end()) return it->second;
  Require("GL_EXT_buffer_reference");
  // Addresses are uint64_t: casts, arithmetic and comparisons go through them.
  ScalarName(module_.Types().Int(64, false));
  std::vector<uint32_t> dims;
  std::string base = BaseName(pointee, &dims);
  std::string hint = "ptr_" + base + (dims.empty() ? "" : "_array");
  pointees_.push_back(pointee);
  return pointer_names_.emplace(pointee, NewName(hint)).first->second;
}

targets::BufferLayout Context::DeviceLayout() const {
  return options_.layout == targets::BufferLayout::Scalar ? targets::BufferLayout::Scalar
                                                          : targets::BufferLayout::Std430;
}

std::string Context::TypeName(const ir::Type* t) {
  std::vector<uint32_t> dims;
  std::string name = BaseName(t, &dims);
  for (uint32_t d : dims) name += "[" + std::to_string(d) + "]";
  return name;
}

std::string Context::Declare(const ir::Type* t, const std::string& name) {
  std::vector<uint32_t> dims;
  std::string text = BaseName(t, &dims) + " " + name;
  for (uint32_t d : dims) text += "[" + std::to_string(d) + "]";
  return text;
}

ctext::Expr Context::Literal(const ir::Type* t, uint64_t bits) {
  using ctext::Atom;
  using ctext::Expr;
  using ctext::Prec;
  if (t->IsBool()) return Atom(bits != 0 ? "true" : "false");
  if (t->IsInt()) {
    uint32_t w = t->Width();
    if (!t->IsSigned()) {
      if (w < 64) bits &= (uint64_t{1} << w) - 1;
      std::string digits = std::to_string(bits);
      if (w == 32) return Atom(digits + "u");
      if (w == 64) {
        ScalarName(t);  // a 64-bit literal needs the extension its type does
        return Atom(digits + "ul");
      }
      return Atom(ScalarName(t) + "(" + digits + "u)");
    }
    int64_t v = w < 64 ? [&] {
      uint64_t sign = uint64_t{1} << (w - 1), mask = (uint64_t{1} << w) - 1;
      return static_cast<int64_t>(((bits & mask) ^ sign) - sign);
    }() : static_cast<int64_t>(bits);
    if (w == 64) {
      ScalarName(t);
      if (v == std::numeric_limits<int64_t>::min())
        return {"(-9223372036854775807l - 1l)", Prec::Primary};
      return {std::to_string(v) + "l", v < 0 ? Prec::Unary : Prec::Primary};
    }
    if (w == 32) {
      if (v == std::numeric_limits<int32_t>::min()) return {"(-2147483647 - 1)", Prec::Primary};
      return {std::to_string(v), v < 0 ? Prec::Unary : Prec::Primary};
    }
    return Atom(ScalarName(t) + "(" + std::to_string(v) + ")");
  }
  SLOPE_ASSERT(t->IsFloat());
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  // The value the type holds: what the SPIR-V writer stores in its literal.
  if (t->Width() == 32) d = static_cast<float>(d);
  if (t->Width() == 16) d = base::RoundToHalf(d);
  if (std::isnan(d) || std::isinf(d)) {
    float f = static_cast<float>(d);
    char hex[32];
    std::snprintf(hex, sizeof(hex), "0x%08xu", std::bit_cast<uint32_t>(f));
    std::string as_float = std::string("uintBitsToFloat(") + hex + ")";
    if (t->Width() == 32) return Atom(as_float);
    return Atom(ScalarName(t) + "(" + as_float + ")");
  }
  char text[64];
  std::snprintf(text, sizeof(text), t->Width() == 64 ? "%.17g" : "%.9g", d);
  std::string s = text;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  if (t->Width() == 64) s += "lf";
  Prec p = s[0] == '-' ? Prec::Unary : Prec::Primary;
  if (t->Width() == 16) return Atom("float16_t(" + s + ")");
  return {s, p};
}

ctext::Expr Context::LiteralOf(const ir::Type* t, double v) {
  uint64_t bits;
  if (t->IsFloat()) {
    std::memcpy(&bits, &v, sizeof(bits));
  } else {
    bits = static_cast<uint64_t>(static_cast<int64_t>(v));
  }
  return Literal(t, bits);
}

}  // namespace slope::targets::glsl

#include "compiler/targets/cuda/context.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "compiler/base/half.h"
#include "compiler/base/ice.h"

namespace slope::targets::cuda {
namespace {

/// C++20's keywords, CUDA's built-in variables and functions the output calls, and the
/// names slope_cuda_prelude.h declares (a user name that equals one would hide it).
const std::vector<std::string_view>& ReservedWords() {
  static const std::vector<std::string_view> kWords = {
      // C++ keywords and alternative tokens.
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
      "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
      "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
      "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "main", "restrict",
      // CUDA.
      "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "printf", "memcpy", "memset",
      "malloc", "free", "assert", "half", "half2", "nv_bfloat16", "dim3", "slope",
      "atomicAdd", "atomicSub", "atomicMin", "atomicMax", "atomicAnd", "atomicOr", "atomicXor",
      "atomicExch", "atomicCAS", "atomicInc", "atomicDec",
      // The prelude.
      "ctx", "Context", "vec", "mat", "arr", "cmat", "crow", "col_value", "to_cols", "b32", "make_vec", "make_mat", "bit_cast",
      "kWaveSize", "TensorView", "int8_t", "uint8_t", "int16_t", "uint16_t", "uint", "int64_t",
      "uint64_t", "sqrt", "floor", "ceil", "trunc", "round_even", "exp", "exp2", "log", "log2",
      "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "pow", "atan2",
      "rsqrt", "fma", "frac", "min", "max", "clamp", "abs", "sign", "lerp", "saturate", "step",
      "smoothstep", "is_nan", "is_inf", "count_bits", "first_bit_high", "first_bit_low",
      "reverse_bits", "f32tof16", "f16tof32", "dot", "length", "distance", "normalize", "cross",
      "reflect", "refract", "faceforward", "transpose", "mul", "determinant",
      "dispatch_thread_id", "group_thread_id", "group_id", "group_index", "lane_index",
      "shuffle", "wave_fold", "wave_sum", "wave_product", "wave_prefix_sum",
      "wave_prefix_product", "wave_first", "wave_min", "wave_max", "wave_and", "wave_or",
      "wave_xor", "wave_read_lane", "wave_is_first_lane", "wave_all", "wave_any",
      "wave_all_equal", "wave_ballot", "wave_count_bits", "wave_prefix_count_bits",
      "atomic_add", "atomic_and", "atomic_or", "atomic_xor", "atomic_min", "atomic_max",
      "atomic_exchange", "atomic_compare_exchange", "fmin_", "fmax_",
  };
  return kWords;
}

/// Prefixes of the prelude's type names (float3, int2x2, bool4, ...) and of names
/// reserved to the implementation.
const std::vector<std::string_view>& ReservedPrefixes() {
  static const std::vector<std::string_view> kPrefixes = {"__", "SLOPE_", "float", "double",
                                                          "int",  "uint",   "bool",  "half"};
  return kPrefixes;
}

}  // namespace

Context::Context(ir::Module& module, const WriterOptions& options)
    : module_(module), options_(options), names_(module, ReservedWords(), ReservedPrefixes()) {}

std::string Context::ScalarName(const ir::Type* t, bool memory) {
  if (t->IsBool()) return memory ? "b32" : "bool";
  if (t->IsFloat()) {
    if (t->Width() == 16) {
      RequireHalf();
      return "half";
    }
    return t->Width() == 64 ? "double" : "float";
  }
  SLOPE_ASSERT(t->IsInt());
  std::string u = t->IsSigned() ? "" : "u";
  if (t->Width() == 32) return u + "int";
  return u + "int" + std::to_string(t->Width()) + "_t";
}

std::string Context::TypeName(const ir::Type* t, bool memory) {
  switch (t->Kind()) {
    case ir::TypeKind::Void:
      return "void";
    case ir::TypeKind::Bool:
    case ir::TypeKind::Int:
    case ir::TypeKind::Float:
      return ScalarName(t, memory);
    case ir::TypeKind::Vector: {
      const ir::Type* s = t->Element();
      std::string scalar = s->IsBool() ? "bool" : ScalarName(s, true);
      return scalar + std::to_string(t->Count());
    }
    case ir::TypeKind::Matrix: {
      const ir::Type* s = t->Scalar();
      std::string scalar = s->IsBool() ? "bool" : ScalarName(s, true);
      bool named = s->IsBool() || s->IsFloat() || s->Width() == 32;
      if (!named) {
        return "mat<" + scalar + ", " + std::to_string(t->Count()) + ", " +
               std::to_string(t->Cols()) + ">";
      }
      return scalar + std::to_string(t->Count()) + "x" + std::to_string(t->Cols());
    }
    case ir::TypeKind::Struct:
      return StructName(t);
    case ir::TypeKind::Array:
      return "arr<" + TypeName(t->Element(), true) + ", " + std::to_string(t->Count()) + ">";
    case ir::TypeKind::Pointer:
      // A device pointer (`T*`) points at memory laid out by the scalar rules, as the
      // target's buffers are: a plain C++ pointer to the type memory holds.
      // Under -matrix-layout-column-major a matrix there is held column by column.
      if (t->IsDevicePointer()) return StorageTypeName(t->Element(), options_.matrix_layout) + "*";
      return TypeName(t->Element(), memory);
    case ir::TypeKind::Buffer:
      return TypeName(t->Element(), true) + "*";
    case ir::TypeKind::Texture:
    case ir::TypeKind::Sampler:
      SLOPE_ICE("cuda: textures are refused before the writer (driver/targets.cpp)");
  }
  SLOPE_ICE("unknown type kind");
}

std::string Context::StorageTypeName(const ir::Type* t, ir::MatrixLayout layout) {
  if (layout != ir::MatrixLayout::ColumnMajor) return TypeName(t, true);
  if (t->IsArray()) {
    return "arr<" + StorageTypeName(t->Element(), layout) + ", " + std::to_string(t->Count()) +
           ">";
  }
  if (!t->IsMatrix()) return TypeName(t, true);
  return "cmat<" + ScalarName(t->Scalar(), true) + ", " + std::to_string(t->Count()) + ", " +
         std::to_string(t->Cols()) + ">";
}

ir::MatrixLayout Context::MemberLayout(const ir::Type* s, size_t i) const {
  ir::MatrixLayout own = s->MemberMatrixLayout(i);
  return own == ir::MatrixLayout::Default ? options_.matrix_layout : own;
}

std::string Context::Declare(const ir::Type* t, const std::string& name, bool memory) {
  return TypeName(t, memory) + " " + name;
}

ctext::Expr Context::Literal(const ir::Type* t, uint64_t bits) {
  using ctext::Atom;
  using ctext::Prec;
  if (t->IsBool()) return Atom(bits != 0 ? "true" : "false");
  if (t->IsInt()) {
    uint32_t w = t->Width();
    if (!t->IsSigned()) {
      if (w < 64) bits &= (uint64_t{1} << w) - 1;
      std::string digits = std::to_string(bits);
      if (w == 32) return Atom(digits + "u");
      if (w == 64) return Atom(digits + "ull");
      return Atom(ScalarName(t, false) + "(" + digits + "u)");
    }
    int64_t v = w < 64 ? [&] {
      uint64_t sign = uint64_t{1} << (w - 1), mask = (uint64_t{1} << w) - 1;
      return static_cast<int64_t>(((bits & mask) ^ sign) - sign);
    }() : static_cast<int64_t>(bits);
    if (w == 64) {
      if (v == std::numeric_limits<int64_t>::min())
        return {"(-9223372036854775807ll - 1ll)", Prec::Primary};
      return {std::to_string(v) + "ll", v < 0 ? Prec::Unary : Prec::Primary};
    }
    if (w == 32) {
      if (v == std::numeric_limits<int32_t>::min()) return {"(-2147483647 - 1)", Prec::Primary};
      return {std::to_string(v), v < 0 ? Prec::Unary : Prec::Primary};
    }
    return Atom(ScalarName(t, false) + "(" + std::to_string(v) + ")");
  }
  SLOPE_ASSERT(t->IsFloat());
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  // The value the type holds: what the SPIR-V writer stores in its literal.
  if (t->Width() == 32) d = static_cast<float>(d);
  if (t->Width() == 16) d = base::RoundToHalf(d);
  if (std::isnan(d) || std::isinf(d)) {
    char hex[40];
    if (t->Width() == 64) {
      std::snprintf(hex, sizeof(hex), "0x%016llxll",
                    static_cast<unsigned long long>(std::bit_cast<uint64_t>(d)));
      return Atom(std::string("__longlong_as_double(") + hex + ")");
    }
    std::snprintf(hex, sizeof(hex), "0x%08x", std::bit_cast<uint32_t>(static_cast<float>(d)));
    std::string as_float = std::string("__int_as_float(") + hex + ")";
    if (t->Width() == 32) return Atom(as_float);
    RequireHalf();
    return Atom("half(" + as_float + ")");
  }
  char text[64];
  std::snprintf(text, sizeof(text), t->Width() == 64 ? "%.17g" : "%.9g", d);
  std::string s = text;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  Prec p = s[0] == '-' ? Prec::Unary : Prec::Primary;
  if (t->Width() == 16) {
    RequireHalf();
    return Atom("half(" + s + "f)");
  }
  if (t->Width() == 32) s += "f";
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

}  // namespace slope::targets::cuda

#pragma once
// What the CUDA writer knows about the whole module while it prints functions: the
// names it gave structs, members, globals and functions, how each IR type is spelled,
// and literals.

#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/targets/ctext/expr.h"
#include "compiler/targets/ctext/module.h"
#include "compiler/targets/cuda/writer.h"

namespace slope::targets::cuda {

class Context {
 public:
  Context(ir::Module& module, const WriterOptions& options);

  /// The type as a value spells it: `float3`, `float3x3`, `arr<float, 4>`, `S`. With
  /// `memory`, a bool is a `b32` (four bytes, as buffers hold it); members of structs
  /// and elements of arrays are always spelled so.
  std::string TypeName(const ir::Type* t, bool memory = false);
  /// The type as memory laid out with `layout` spells it: a matrix held column by column
  /// is a `cmat<float, 3, 4>` (also as an array's element), anything else as TypeName
  /// with `memory` spells it.
  std::string StorageTypeName(const ir::Type* t, ir::MatrixLayout layout);
  /// How the matrices of struct member `i` of `s` are laid out: its own `row_major` /
  /// `column_major`, else the compile's default.
  ir::MatrixLayout MemberLayout(const ir::Type* s, size_t i) const;
  /// A declaration of `name`: `float3 name`.
  std::string Declare(const ir::Type* t, const std::string& name, bool memory = false);
  /// A literal of scalar type `t` from a constant's bits (integers zero-extended, floats
  /// as the bits of a double).
  ctext::Expr Literal(const ir::Type* t, uint64_t bits);
  /// A literal of float or integer scalar type `t` with value `v`.
  ctext::Expr LiteralOf(const ir::Type* t, double v);

  const std::string& StructName(const ir::Type* s) const { return names_.StructName(s); }
  const std::string& MemberName(const ir::Type* s, size_t i) const {
    return names_.MemberName(s, i);
  }
  const std::string& FunctionName(const ir::Function* f) const { return names_.FunctionName(f); }
  const std::string& GlobalName(const ir::Global* g) const { return names_.GlobalName(g); }
  const ctext::ModuleNames& ModuleNames() const { return names_; }
  const ctext::NameTable& Names() const { return names_.Table(); }

  /// The name of the Context every function takes first.
  static constexpr const char* kContext = "ctx";
  /// The Context's member holding each storage buffer's size in bytes.
  static constexpr const char* kSizes = "SLOPE_sizes";  // SLOPE_ is reserved
  /// True once a type or intrinsic needs cuda_fp16.h (the output defines SLOPE_HALF).
  bool UsesHalf() const { return uses_half_; }
  void RequireHalf() { uses_half_ = true; }

  ir::Module& module_;
  const WriterOptions& options_;

 private:
  std::string ScalarName(const ir::Type* t, bool memory);
  ctext::ModuleNames names_;
  bool uses_half_ = false;
};

}  // namespace slope::targets::cuda

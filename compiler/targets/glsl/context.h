#pragma once
// What the GLSL writer knows about the whole module while it prints functions: the
// names it gave structs, members, buffers and functions, how each IR type is spelled,
// literals, and which `#extension`s the text needs.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/targets/ctext/expr.h"
#include "compiler/targets/ctext/module.h"
#include "compiler/targets/ctext/names.h"
#include "compiler/targets/glsl/writer.h"

namespace slope::targets::glsl {

/// The module-wide state of one GLSL write.
class Context {
 public:
  Context(ir::Module& module, const WriterOptions& options);

  /// The type as an expression spells it: `vec3`, `mat2x3`, `float[4]`, `ivec3[2]`, `S`.
  std::string TypeName(const ir::Type* t);
  /// A declaration of `name`: `vec3 name`, `float name[4]`, `ivec3 name[5][2]`.
  std::string Declare(const ir::Type* t, const std::string& name);
  /// A literal of scalar type `t` from a constant's bits (integers zero-extended, floats
  /// as the bits of a double).
  ctext::Expr Literal(const ir::Type* t, uint64_t bits);
  /// A literal of float or integer scalar type `t` with value `v`.
  ctext::Expr LiteralOf(const ir::Type* t, double v);

  /// True when member `i` of struct `s` is a float matrix whose `row_major` /
  /// `column_major` modifier differs from the compile's matrix layout. GLSL has no layout
  /// qualifier on a struct member, so the struct holds its transpose (the other GLSL
  /// matrix shape), which the block's layout then lays out as the modifier asks; every
  /// read and write of the member transposes.
  bool IsTransposedMember(const ir::Type* s, size_t i) const;
  /// The type member `i` of struct `s` has in the GLSL struct.
  const ir::Type* MemberStorageType(const ir::Type* s, size_t i);
  const std::string& StructName(const ir::Type* s) { return names_.StructName(s); }
  const std::string& MemberName(const ir::Type* s, size_t i) { return names_.MemberName(s, i); }
  const std::string& FunctionName(const ir::Function* f) { return names_.FunctionName(f); }
  const std::string& GlobalName(const ir::Global* g) { return names_.GlobalName(g); }
  /// The module's names (ctext::ModuleNames).
  const ctext::ModuleNames& ModuleNames() const { return names_; }
  /// The names every function must avoid (the module's, the language's).
  const ctext::NameTable& Names() const { return names_.Table(); }
  /// A new module-level name close to `hint`.
  std::string NewName(std::string_view hint) { return names_.NewName(hint); }

  /// The block type standing for device pointers to `pointee` (GL_EXT_buffer_reference):
  /// a `buffer_reference` block holding one `pointee` named `v` at offset 0, laid out by
  /// the compile's buffer rules and aligned as the pointee. Named on first use.
  const std::string& PointerTypeName(const ir::Type* pointee);
  /// The pointees of the device pointer types named so far, in the order named.
  const std::vector<const ir::Type*>& Pointees() const { return pointees_; }
  /// The layout rules of device memory (std430 unless the scalar layout is chosen).
  targets::BufferLayout DeviceLayout() const;

  /// Records that the text needs `#extension NAME : require`.
  void Require(const std::string& extension) { extensions_.insert(extension); }
  const std::set<std::string>& Extensions() const { return extensions_; }

  ir::Module& module_;
  const WriterOptions& options_;

 private:
  /// The element type and dimensions (outermost first) of arrays (and of integer and
  /// boolean matrices, which are arrays of their rows).
  std::string BaseName(const ir::Type* t, std::vector<uint32_t>* dims);
  std::string ScalarName(const ir::Type* t);
  ctext::ModuleNames names_;
  std::set<std::string> extensions_;
  std::map<const ir::Type*, std::string> pointer_names_;
  std::vector<const ir::Type*> pointees_;
};

}  // namespace slope::targets::glsl

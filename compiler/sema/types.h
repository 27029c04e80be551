#pragma once
// Semantic types. Types are interned by a TypeContext: two equal types are the same
// pointer, so comparing types is comparing pointers.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace slope::ast {
struct AggregateDecl;
struct FuncDecl;
struct VarDecl;
}  // namespace slope::ast

namespace slope::sema {

class Type;

/// What sema knows of a user-defined struct: its fields in declaration order (each
/// VarDecl's `type` is set once the struct is checked), its constructors and methods.
struct StructInfo {
  ast::AggregateDecl* decl = nullptr;
  std::string name;
  std::vector<ast::VarDecl*> fields;
  std::vector<ast::FuncDecl*> inits;    ///< `__init` constructors
  std::vector<ast::FuncDecl*> methods;  ///< instance and static methods, in source order
  bool checked = false;                 ///< field types resolved

  /// The index of field `name`, or -1.
  int FieldIndex(const std::string& field_name) const;
};

enum class TypeKind : uint8_t {
  Error,   ///< the type of an expression that already produced an error
  Void,
  Bool,
  Int,     ///< 32-bit signed
  UInt,    ///< 32-bit unsigned
  Float,   ///< 32-bit IEEE
  Vector,  ///< 2..4 elements of a scalar type
  Buffer,  ///< StructuredBuffer<T> / RWStructuredBuffer<T>
  Struct,  ///< a user-defined struct; Info() describes it
};

class Type {
 public:
  TypeKind Kind() const { return kind_; }
  /// Vector or buffer element type; null otherwise.
  const Type* Element() const { return element_; }
  /// Number of vector elements (1 for scalars).
  uint32_t Count() const { return count_; }
  /// For buffers: RWStructuredBuffer.
  bool IsWritable() const { return writable_; }

  bool IsError() const { return kind_ == TypeKind::Error; }
  bool IsVoid() const { return kind_ == TypeKind::Void; }
  bool IsScalar() const {
    return kind_ == TypeKind::Bool || kind_ == TypeKind::Int || kind_ == TypeKind::UInt ||
           kind_ == TypeKind::Float;
  }
  bool IsVector() const { return kind_ == TypeKind::Vector; }
  bool IsBuffer() const { return kind_ == TypeKind::Buffer; }
  bool IsStruct() const { return kind_ == TypeKind::Struct; }
  /// For structs: the declaration's facts; null otherwise.
  StructInfo* Info() const { return info_; }
  /// Scalar or vector: the types arithmetic works on.
  bool IsNumericLike() const { return IsScalar() || IsVector(); }
  /// The scalar type of a scalar or vector.
  const Type* ScalarType() const { return IsVector() ? element_ : this; }

  /// How the type is written in source: "float3", "RWStructuredBuffer<uint>".
  std::string Name() const;

 private:
  friend class TypeContext;
  Type(TypeKind kind, const Type* element, uint32_t count, bool writable)
      : kind_(kind), element_(element), count_(count), writable_(writable) {}

  TypeKind kind_;
  StructInfo* info_ = nullptr;
  const Type* element_;
  uint32_t count_;
  bool writable_;
};

/// Interns every type of a compile session.
class TypeContext {
 public:
  TypeContext();

  const Type* Error() const { return error_; }
  const Type* Void() const { return void_; }
  const Type* Bool() const { return bool_; }
  const Type* Int() const { return int_; }
  const Type* UInt() const { return uint_; }
  const Type* Float() const { return float_; }
  /// vector<element, count>; count 1 gives the scalar itself.
  const Type* Vector(const Type* element, uint32_t count);
  const Type* Buffer(const Type* element, bool writable);
  /// A new struct type described by `info` (structs are nominal: one type per declaration).
  const Type* Struct(std::unique_ptr<StructInfo> info);
  /// A scalar or vector with the scalar of `shape_of` replaced by `scalar`.
  const Type* WithScalar(const Type* shape_of, const Type* scalar);

 private:
  const Type* Make(TypeKind kind, const Type* element, uint32_t count, bool writable);

  std::map<std::tuple<TypeKind, const Type*, uint32_t, bool>, std::unique_ptr<Type>> types_;
  std::vector<std::unique_ptr<Type>> structs_;
  std::vector<std::unique_ptr<StructInfo>> struct_infos_;
  const Type* error_;
  const Type* void_;
  const Type* bool_;
  const Type* int_;
  const Type* uint_;
  const Type* float_;
};

}  // namespace slope::sema

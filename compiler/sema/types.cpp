#include "compiler/sema/types.h"

#include "compiler/ast/ast.h"
#include "compiler/base/ice.h"

namespace slope::sema {

std::string Type::Name() const {
  switch (kind_) {
    case TypeKind::Error: return "<error>";
    case TypeKind::Void: return "void";
    case TypeKind::Bool: return "bool";
    case TypeKind::Int: return "int";
    case TypeKind::UInt: return "uint";
    case TypeKind::Float: return "float";
    case TypeKind::Vector: return element_->Name() + std::to_string(count_);
    case TypeKind::Buffer:
      return std::string(writable_ ? "RWStructuredBuffer<" : "StructuredBuffer<") +
             element_->Name() + ">";
    case TypeKind::Struct: return info_->name;
  }
  return "<error>";
}

TypeContext::TypeContext() {
  error_ = Make(TypeKind::Error, nullptr, 1, false);
  void_ = Make(TypeKind::Void, nullptr, 1, false);
  bool_ = Make(TypeKind::Bool, nullptr, 1, false);
  int_ = Make(TypeKind::Int, nullptr, 1, false);
  uint_ = Make(TypeKind::UInt, nullptr, 1, false);
  float_ = Make(TypeKind::Float, nullptr, 1, false);
}

const Type* TypeContext::Make(TypeKind kind, const Type* element, uint32_t count, bool writable) {
  auto key = std::make_tuple(kind, element, count, writable);
  auto it = types_.find(key);
  if (it != types_.end()) return it->second.get();
  auto* type = new Type(kind, element, count, writable);
  types_.emplace(key, std::unique_ptr<Type>(type));
  return type;
}

const Type* TypeContext::Vector(const Type* element, uint32_t count) {
  SLOPE_ASSERT(element->IsScalar());
  if (count == 1) return element;
  return Make(TypeKind::Vector, element, count, false);
}

const Type* TypeContext::Buffer(const Type* element, bool writable) {
  return Make(TypeKind::Buffer, element, 1, writable);
}

const Type* TypeContext::Struct(std::unique_ptr<StructInfo> info) {
  auto* type = new Type(TypeKind::Struct, nullptr, 1, false);
  type->info_ = info.get();
  struct_infos_.push_back(std::move(info));
  structs_.emplace_back(type);
  return type;
}

int StructInfo::FieldIndex(const std::string& field_name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i]->name == field_name) return static_cast<int>(i);
  }
  return -1;
}

const Type* TypeContext::WithScalar(const Type* shape_of, const Type* scalar) {
  return Vector(scalar, shape_of->IsVector() ? shape_of->Count() : 1);
}

}  // namespace slope::sema

#include "compiler/sema/types.h"

#include "compiler/ast/ast.h"
#include "compiler/base/ice.h"

namespace slope::sema {

bool IsCoreAtomic(const Type* t) {
  return t->IsStruct() && t->Info()->name == "Atomic" && t->Args().size() == 1 &&
         t->Info()->fields.size() == 1 && t->Info()->fields[0]->name == "__value";
}

namespace {
std::string AssocName(const ast::AssociatedTypeDecl* assoc) { return assoc->name; }

/// A type nested in a struct is declared as `Outer$Inner` (parse/hoist_nested.cpp) and
/// written `Outer.Inner`.
std::string DisplayedName(std::string name) {
  // The core library's `__Tuple2` is written `Tuple`.
  if (name.size() == 8 && name.compare(0, 7, "__Tuple") == 0) return "Tuple";
  for (char& c : name) {
    if (c == '$') c = '.';
  }
  return name;
}
}  // namespace

/// How an IntExpr is written: `N * 2` (int_exprs.cpp).
std::string IntExprName(const Type* t);

std::string Type::Name() const {
  switch (kind_) {
    case TypeKind::Error: return "<error>";
    case TypeKind::InitList:
      return "initializer list";
    case TypeKind::Void: return "void";
    case TypeKind::Bool: return "bool";
    case TypeKind::Int: return width_ == 32 ? "int" : "int" + std::to_string(width_) + "_t";
    case TypeKind::UInt: return width_ == 32 ? "uint" : "uint" + std::to_string(width_) + "_t";
    case TypeKind::Float: return width_ == 16 ? "half" : width_ == 64 ? "double" : "float";
    case TypeKind::Vector:
      if (!args_.empty()) return "vector<" + element_->Name() + ", " + args_[0]->Name() + ">";
      return element_->Name() + std::to_string(count_);
    case TypeKind::Buffer:
      if (count_ == 0) return writable_ ? "RWByteAddressBuffer" : "ByteAddressBuffer";
      if (count_ >= 2) {
        return std::string(count_ == 2 ? "AppendStructuredBuffer<" : "ConsumeStructuredBuffer<") +
               element_->Name() + ">";
      }
      return std::string(writable_ ? "RWStructuredBuffer<" : "StructuredBuffer<") +
             element_->Name() + ">";
    case TypeKind::Texture: {
      static const char* const kShapes[] = {"?", "1D", "2D", "3D", "Cube"};
      uint32_t dim = TextureDim();
      if (IsTypedBuffer()) {
        return std::string(writable_ ? "RWBuffer<" : "Buffer<") + element_->Name() + ">";
      }
      if (IsShadowSampler()) {
        return std::string("Sampler") + kShapes[dim <= 4 ? dim : 0] +
               (IsTextureArray() ? "ArrayShadow" : "Shadow");
      }
      return std::string(writable_ ? "RWTexture" : IsCombinedSampler() ? "Sampler" : "Texture") +
             kShapes[dim <= 4 ? dim : 0] +
             (IsTextureArray() ? "Array<" : "<") + element_->Name() + ">";
    }
    case TypeKind::Sampler: return writable_ ? "SamplerComparisonState" : "SamplerState";
    case TypeKind::Pointer: return element_->IsVoid() ? "nullptr_t" : element_->Name() + "*";
    case TypeKind::Struct:
    case TypeKind::Interface: {
      std::string name = DisplayedName(kind_ == TypeKind::Struct ? info_->name : iface_->name);
      if (args_.empty()) return name;
      const std::vector<const Type*>& params =
          kind_ == TypeKind::Struct ? info_->params : iface_->params;
      name += "<";
      for (size_t i = 0; i < args_.size(); ++i) {
        // The argument of a `bool` parameter reads `true` / `false` (`Vertex<false>`).
        bool is_bool = i < params.size() && params[i]->Kind() == TypeKind::GenericParam &&
                       params[i]->Generic()->value_type != nullptr &&
                       params[i]->Generic()->value_type->Kind() == TypeKind::Bool &&
                       args_[i]->Kind() == TypeKind::IntValue;
        std::string arg = is_bool ? (args_[i]->Value() != 0 ? "true" : "false") : args_[i]->Name();
        name += (i != 0 ? ", " : "") + arg;
      }
      return name + ">";
    }
    case TypeKind::GenericParam: return (generic_->is_pack ? "each " : "") + generic_->name;
    case TypeKind::Pack: {
      if (element_ != nullptr) return "expand " + element_->Name();
      std::string name = "(";
      for (size_t i = 0; i < args_.size(); ++i) name += (i != 0 ? ", " : "") + args_[i]->Name();
      return name + ")";
    }
    case TypeKind::AssocType: return element_->Name() + "." + AssocName(assoc_);
    case TypeKind::Enum: return DisplayedName(enum_->name);
    case TypeKind::Array: {
      // `int[4][2]`: the dimensions follow the innermost element, outermost first.
      const Type* inner = this;
      std::string dims;
      while (inner->IsArray()) {
        dims += "[" + (inner->LengthParam() != nullptr ? inner->LengthParam()->Name()
                                                        : std::to_string(inner->count_)) + "]";
        inner = inner->element_;
      }
      return inner->Name() + dims;
    }
    case TypeKind::IntValue: return std::to_string(value_);
    case TypeKind::IntExpr:
      return IntExprName(this);
    case TypeKind::Matrix:
      if (!args_.empty()) {
        return "matrix<" + element_->Name() + ", " + args_[0]->Name() + ", " + args_[1]->Name() +
               ">";
      }
      return element_->Name() + std::to_string(count_) + "x" + std::to_string(width_);
  }
  return "<error>";
}

TypeContext::TypeContext() {
  error_ = Make(TypeKind::Error, nullptr, 1, false);
  init_list_ = Make(TypeKind::InitList, nullptr, 1, false);
  void_ = Make(TypeKind::Void, nullptr, 1, false);
  bool_ = Make(TypeKind::Bool, nullptr, 1, false);
  int_ = Make(TypeKind::Int, nullptr, 1, false, 32);
  uint_ = Make(TypeKind::UInt, nullptr, 1, false, 32);
  float_ = Make(TypeKind::Float, nullptr, 1, false, 32);
  half_ = Make(TypeKind::Float, nullptr, 1, false, 16);
  double_ = Make(TypeKind::Float, nullptr, 1, false, 64);
}

const Type* TypeContext::Scalar(TypeKind kind, uint32_t width) {
  SLOPE_ASSERT(kind == TypeKind::Int || kind == TypeKind::UInt || kind == TypeKind::Float);
  return Make(kind, nullptr, 1, false, width);
}

const Type* TypeContext::Make(TypeKind kind, const Type* element, uint32_t count, bool writable,
                              uint32_t width) {
  auto key = std::make_tuple(kind, element, count, writable, width);
  auto it = types_.find(key);
  if (it != types_.end()) return it->second.get();
  auto* type = new Type(kind, element, count, writable, width);
  type->dependent_ = element != nullptr && element->IsDependent();
  types_.emplace(key, std::unique_ptr<Type>(type));
  return type;
}

const Type* TypeContext::Vector(const Type* element, uint32_t count) {
  if (count == 1) return element;
  SLOPE_ASSERT(element->IsScalar());
  return Make(TypeKind::Vector, element, count, false);
}

const Type* TypeContext::Buffer(const Type* element, bool writable) {
  return Make(TypeKind::Buffer, element, 1, writable);
}

const Type* TypeContext::CounterBuffer(const Type* element, bool consume) {
  return Make(TypeKind::Buffer, element, consume ? 3 : 2, true);
}

const Type* TypeContext::ByteAddressBuffer(bool writable) {
  return Make(TypeKind::Buffer, uint_, 0, writable);
}

const Type* TypeContext::Texture(const Type* element, uint32_t dim, bool arrayed, bool writable,
                                 bool combined, bool shadow) {
  return Make(TypeKind::Texture, element,
              shadow     ? 3
              : combined ? 2
                         : 1,
              writable, dim * 2 + (arrayed ? 1 : 0));
}

const Type* TypeContext::Sampler(bool comparison) {
  return Make(TypeKind::Sampler, nullptr, 1, comparison);
}

const Type* TypeContext::Pointer(const Type* pointee) {
  return Make(TypeKind::Pointer, pointee, 1, false);
}

const Type* TypeContext::Array(const Type* element, uint32_t count) {
  return Make(TypeKind::Array, element, count, false);
}

const Type* TypeContext::Enum(std::unique_ptr<EnumInfo> info, const Type* underlying) {
  auto* type = new Type(TypeKind::Enum, underlying, 1, false);
  type->enum_ = info.get();
  enum_infos_.push_back(std::move(info));
  enums_.emplace_back(type);
  return type;
}

int EnumInfo::CaseIndex(const std::string& case_name) const {
  for (size_t i = 0; i < cases.size(); ++i) {
    if (cases[i]->name == case_name) return static_cast<int>(i);
  }
  return -1;
}

namespace {
bool AnyDependent(const std::vector<const Type*>& types) {
  for (const Type* t : types) {
    if (t->IsDependent()) return true;
  }
  return false;
}
}  // namespace

const Type* TypeContext::Struct(std::unique_ptr<StructInfo> info) {
  StructInfo* raw = info.get();
  struct_infos_.push_back(std::move(info));
  raw->self = StructOf(raw, raw->params);
  return raw->self;
}

const Type* TypeContext::PtrPairOf(const Type* t) {
  if (differentiable_ptr_ == nullptr || ptr_pair_ == nullptr || t == nullptr || !t->IsStruct() ||
      !Conforms(t, differentiable_ptr_)) {
    return nullptr;
  }
  return StructOf(ptr_pair_->Info(), {t});
}

const Type* TypeContext::StructOf(StructInfo* info, const std::vector<const Type*>& args) {
  auto key = std::make_tuple(TypeKind::Struct, static_cast<const void*>(info),
                             static_cast<const Type*>(nullptr), args);
  auto it = applied_.find(key);
  if (it != applied_.end()) return it->second.get();
  auto* type = new Type(TypeKind::Struct, nullptr, 1, false);
  type->info_ = info;
  type->args_ = args;
  type->dependent_ = AnyDependent(args);
  applied_.emplace(key, std::unique_ptr<Type>(type));
  return type;
}

bool Type::IsPackParam() const { return kind_ == TypeKind::GenericParam && generic_->is_pack; }

const Type* TypeContext::TypePack(const std::vector<const Type*>& elements) {
  auto key = std::make_tuple(TypeKind::Pack, static_cast<const void*>(nullptr),
                             static_cast<const Type*>(nullptr), elements);
  auto it = applied_.find(key);
  if (it != applied_.end()) return it->second.get();
  auto* type = new Type(TypeKind::Pack, nullptr, static_cast<uint32_t>(elements.size()), false);
  type->args_ = elements;
  type->dependent_ = AnyDependent(elements);
  applied_.emplace(key, std::unique_ptr<Type>(type));
  return type;
}

const Type* TypeContext::ExpandPack(const Type* pattern, const std::vector<const Type*>& captures) {
  auto key = std::make_tuple(TypeKind::Pack, static_cast<const void*>(nullptr), pattern, captures);
  auto it = applied_.find(key);
  if (it != applied_.end()) return it->second.get();
  auto* type = new Type(TypeKind::Pack, pattern, 0, false);
  type->args_ = captures;
  type->dependent_ = true;
  applied_.emplace(key, std::unique_ptr<Type>(type));
  return type;
}

const Type* TypeContext::GenericParam(std::unique_ptr<GenericParamInfo> info) {
  auto* type = new Type(TypeKind::GenericParam, nullptr, 1, false);
  type->generic_ = info.get();
  type->dependent_ = true;
  generic_infos_.push_back(std::move(info));
  unique_types_.emplace_back(type);
  return type;
}

InterfaceInfo* TypeContext::NewInterface(std::unique_ptr<InterfaceInfo> info) {
  interface_infos_.push_back(std::move(info));
  return interface_infos_.back().get();
}

const Type* TypeContext::InterfaceOf(InterfaceInfo* info, const std::vector<const Type*>& args) {
  auto key = std::make_tuple(TypeKind::Interface, static_cast<const void*>(info),
                             static_cast<const Type*>(nullptr), args);
  auto it = applied_.find(key);
  if (it != applied_.end()) return it->second.get();
  auto* type = new Type(TypeKind::Interface, nullptr, 1, false);
  type->iface_ = info;
  type->args_ = args;
  type->dependent_ = AnyDependent(args);
  applied_.emplace(key, std::unique_ptr<Type>(type));
  return type;
}

const Type* TypeContext::IntValue(int64_t value) {
  auto it = int_values_.find(value);
  if (it != int_values_.end()) return it->second;
  auto* type = new Type(TypeKind::IntValue, nullptr, 1, false);
  type->value_ = value;
  unique_types_.emplace_back(type);
  int_values_[value] = type;
  return type;
}

const Type* TypeContext::ArrayOfParam(const Type* element, const Type* length) {
  auto key = std::make_tuple(TypeKind::Array, static_cast<const void*>(nullptr), element,
                             std::vector<const Type*>{length});
  auto it = applied_.find(key);
  if (it != applied_.end()) return it->second.get();
  auto* type = new Type(TypeKind::Array, element, 0, false);
  type->args_ = {length};
  type->dependent_ = true;
  applied_.emplace(key, std::unique_ptr<Type>(type));
  return type;
}

const Type* TypeContext::DependentVector(const Type* element, const Type* length) {
  auto key = std::make_tuple(TypeKind::Vector, static_cast<const void*>(nullptr), element,
                             std::vector<const Type*>{length});
  auto it = applied_.find(key);
  if (it != applied_.end()) return it->second.get();
  uint32_t count =
      length->Kind() == TypeKind::IntValue ? static_cast<uint32_t>(length->Value()) : 0;
  auto* type = new Type(TypeKind::Vector, element, count, false);
  type->args_ = {length};
  type->dependent_ = true;
  applied_.emplace(key, std::unique_ptr<Type>(type));
  return type;
}

const Type* TypeContext::Matrix(const Type* element, uint32_t rows, uint32_t cols) {
  SLOPE_ASSERT(element->IsScalar());
  return Make(TypeKind::Matrix, element, rows, false, cols);
}

const Type* TypeContext::DependentMatrix(const Type* element, const Type* rows,
                                         const Type* cols) {
  auto key = std::make_tuple(TypeKind::Matrix, static_cast<const void*>(nullptr), element,
                             std::vector<const Type*>{rows, cols});
  auto it = applied_.find(key);
  if (it != applied_.end()) return it->second.get();
  auto known = [](const Type* n) {
    return n->Kind() == TypeKind::IntValue ? static_cast<uint32_t>(n->Value()) : 0;
  };
  auto* type = new Type(TypeKind::Matrix, element, known(rows), false, known(cols));
  type->args_ = {rows, cols};
  type->dependent_ = true;
  applied_.emplace(key, std::unique_ptr<Type>(type));
  return type;
}

const Type* TypeContext::RowOf(const Type* m) {
  if (m->RowsParam() != nullptr) return DependentVector(m->Element(), m->ColsParam());
  return Vector(m->Element(), m->Cols());
}

const Type* TypeContext::AssocOf(const Type* base, const ast::AssociatedTypeDecl* assoc) {
  if (base->IsGenericParam()) {
    auto equal = base->Generic()->assoc_equalities.find(assoc);
    if (equal != base->Generic()->assoc_equalities.end()) {
      // `where A.V == B.V where B.V == float`: A.V is float (chains are short and
      // acyclic: sema equates each associated type once).
      const Type* t = equal->second;
      for (int steps = 0;
           steps < 64 && t->Kind() == TypeKind::AssocType && t->Base()->IsGenericParam(); ++steps) {
        auto next = t->Base()->Generic()->assoc_equalities.find(t->Assoc());
        if (next == t->Base()->Generic()->assoc_equalities.end() || next->second == t) break;
        t = next->second;
      }
      return t;
    }
  }
  if (base->IsGenericParam() && assoc->name == "Differential") {
    auto owner = assoc_owners_.find(assoc);
    if (owner != assoc_owners_.end() && owner->second->name == "IDifferentiable" &&
        CapabilitiesOf(base).find('f') != std::string::npos) {
      return base;
    }
  }
  if (base->Kind() == TypeKind::AssocType && assoc->name == "Differential" &&
      base->assoc_->name == "Differential") {
    // IDifferentiable requires `Differential.Differential == Differential`.
    auto owner = assoc_owners_.find(assoc);
    auto base_owner = assoc_owners_.find(base->assoc_);
    if (owner != assoc_owners_.end() && owner->second->name == "IDifferentiable" &&
        base_owner != assoc_owners_.end() && base_owner->second->name == "IDifferentiable") {
      return base;
    }
  }
  auto key = std::make_tuple(TypeKind::AssocType, static_cast<const void*>(assoc), base,
                             std::vector<const Type*>{});
  auto it = applied_.find(key);
  if (it != applied_.end()) return it->second.get();
  auto* type = new Type(TypeKind::AssocType, base, 1, false);
  type->assoc_ = assoc;
  type->dependent_ = true;
  applied_.emplace(key, std::unique_ptr<Type>(type));
  return type;
}

ExtensionInfo* TypeContext::NewExtension(std::unique_ptr<ExtensionInfo> info) {
  extensions_.push_back(std::move(info));
  ExtensionsChanged();
  return extensions_.back().get();
}

int StructInfo::FieldIndex(const std::string& field_name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i]->name == field_name) return static_cast<int>(i);
  }
  return -1;
}

const Type* TypeContext::WithScalar(const Type* shape_of, const Type* scalar) {
  auto known = [](const Type* n) { return n->Kind() == TypeKind::IntValue; };
  if (shape_of->IsMatrix() && shape_of->RowsParam() != nullptr &&
      !(known(shape_of->RowsParam()) && known(shape_of->ColsParam()))) {
    return DependentMatrix(scalar, shape_of->RowsParam(), shape_of->ColsParam());
  }
  if (shape_of->IsMatrix()) return Matrix(scalar, shape_of->Rows(), shape_of->Cols());
  // `vector<float, N>`: the length stays the generic one.
  if (shape_of->IsVector() && shape_of->LengthParam() != nullptr &&
      !known(shape_of->LengthParam())) {
    return DependentVector(scalar, shape_of->LengthParam());
  }
  return Vector(scalar, shape_of->IsVector() ? shape_of->Count() : 1);
}

}  // namespace slope::sema

#include "compiler/autodiff/differential.h"

#include "compiler/base/ice.h"
#include "compiler/ir/cfg.h"

#include <string>
#include <vector>

namespace slope::autodiff {

namespace {

const ir::Type* StructDifferential(ir::TypeTable& types, const ir::Type* t) {
  if (const ir::TypeTable::DifferentialLayout* layout = types.FindDifferential(t)) {
    return layout->differential;
  }
  std::vector<const ir::Type*> members;
  std::vector<std::string> names;
  bool all_self = true;
  for (size_t i = 0; i < t->Members().size(); ++i) {
    const ir::Type* d = DifferentialType(types, t->Members()[i]);
    all_self = all_self && d == t->Members()[i];
    if (d == nullptr) continue;
    members.push_back(d);
    names.push_back(t->MemberNames()[i]);
  }
  if (members.empty()) return nullptr;  // an empty struct carries nothing either
  if (all_self) return t;
  return types.Struct(t->StructName() + ".Differential", std::move(members), std::move(names));
}

}  // namespace

const ir::Type* DifferentialType(ir::TypeTable& types, const ir::Type* t) {
  switch (t->Kind()) {
    case ir::TypeKind::Float: return t;
    case ir::TypeKind::Vector: return t->Element()->IsFloat() ? t : nullptr;
    case ir::TypeKind::Matrix: return t->Scalar()->IsFloat() ? t : nullptr;
    case ir::TypeKind::Array: {
      const ir::Type* element = DifferentialType(types, t->Element());
      return element == nullptr ? nullptr : types.Array(element, t->Count());
    }
    case ir::TypeKind::Pointer: {
      if (t->Space() != ir::AddressSpace::Function) return nullptr;
      const ir::Type* pointee = DifferentialType(types, t->Element());
      return pointee == nullptr ? nullptr : types.Pointer(ir::AddressSpace::Function, pointee);
    }
    case ir::TypeKind::Struct: return StructDifferential(types, t);
    case ir::TypeKind::Void:
    case ir::TypeKind::Bool:
    case ir::TypeKind::Int:
    case ir::TypeKind::Buffer:
    case ir::TypeKind::Texture:
    case ir::TypeKind::Sampler: return nullptr;
  }
  return nullptr;
}

int DifferentialMember(ir::TypeTable& types, const ir::Type* t, uint32_t index) {
  if (const ir::TypeTable::DifferentialLayout* layout = types.FindDifferential(t)) {
    return layout->members.at(index);
  }
  int position = 0;
  for (uint32_t i = 0; i < index; ++i) {
    if (DifferentialType(types, t->Members()[i]) != nullptr) ++position;
  }
  return DifferentialType(types, t->Members().at(index)) == nullptr ? -1 : position;
}

ir::Value* ZeroOf(ir::Builder& b, ir::Function& f, const ir::Type* type) {
  if (type->IsScalar() || type->IsVector() || type->IsMatrix()) {
    return ir::ZeroValue(b.GetModule(), f, type);
  }
  std::vector<ir::Value*> parts;
  if (type->IsStruct()) {
    for (const ir::Type* m : type->Members()) parts.push_back(ZeroOf(b, f, m));
    return b.MakeStruct(type, std::move(parts));
  }
  SLOPE_ASSERT(type->IsArray());
  for (uint32_t i = 0; i < type->Count(); ++i) parts.push_back(ZeroOf(b, f, type->Element()));
  return b.MakeArray(type, std::move(parts));
}

std::string SourceName(const ir::Function& f) {
  if (f.autodiff.ptr_lifted_from != nullptr) return SourceName(*f.autodiff.ptr_lifted_from);
  if (f.autodiff.fwd_diff_of != nullptr)
    return "fwd_diff(" + SourceName(*f.autodiff.fwd_diff_of) + ")";
  if (f.autodiff.bwd_diff_of != nullptr)
    return "bwd_diff(" + SourceName(*f.autodiff.bwd_diff_of) + ")";
  return f.Name();
}

}  // namespace slope::autodiff

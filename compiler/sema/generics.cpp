// Generic types: substitution of generic parameters, matching of extension targets,
// conformance and associated-type lookup. Sema uses these to check generic code once;
// lowering uses the same functions to specialize it for concrete types.

#include <algorithm>

#include "compiler/ast/ast.h"
#include "compiler/base/ice.h"
#include "compiler/sema/types.h"

namespace slope::sema {

namespace {
/// Conformance lookups recurse through extension constraints; a pathological set of
/// extensions (`extension<T : IA> T : IB` with `extension<T : IB> T : IA`) must not
/// recurse forever. Deeper than this, a lookup answers "no".
constexpr int kMaxConformanceDepth = 64;

class DepthGuard {
 public:
  explicit DepthGuard(int* depth) : depth_(depth) { ++*depth_; }
  ~DepthGuard() { --*depth_; }
  bool TooDeep() const { return *depth_ > kMaxConformanceDepth; }

 private:
  int* depth_;
};
}  // namespace

const Type* TypeContext::Substitute(const Type* t, const Subst& subst) {
  if (t == nullptr || !t->IsDependent() || subst.empty()) return t;
  switch (t->Kind()) {
    case TypeKind::GenericParam: {
      auto it = subst.find(t);
      return it != subst.end() ? it->second : t;
    }
    case TypeKind::Buffer:
      return Buffer(Substitute(t->Element(), subst), t->IsWritable());
    case TypeKind::Texture:
      return Texture(Substitute(t->Element(), subst), t->TextureDim(), t->IsTextureArray(),
                     t->IsWritable(), t->IsCombinedSampler(), t->IsShadowSampler());
    case TypeKind::Sampler:
      return t;
    case TypeKind::Pointer:
      return Pointer(Substitute(t->Element(), subst));
    case TypeKind::Vector: {
      const Type* element = Substitute(t->Element(), subst);
      const Type* length = Substitute(t->LengthParam(), subst);
      if (element->IsDependent() || length->Kind() != TypeKind::IntValue) {
        return DependentVector(element, length);
      }
      if (!element->IsScalar()) return Error();
      return Vector(element, static_cast<uint32_t>(length->Value()));
    }
    case TypeKind::Matrix: {
      const Type* element = Substitute(t->Element(), subst);
      const Type* rows = Substitute(t->RowsParam(), subst);
      const Type* cols = Substitute(t->ColsParam(), subst);
      if (element->IsDependent() || rows->Kind() != TypeKind::IntValue ||
          cols->Kind() != TypeKind::IntValue) {
        return DependentMatrix(element, rows, cols);
      }
      if (!element->IsScalar()) return Error();
      return Matrix(element, static_cast<uint32_t>(rows->Value()),
                    static_cast<uint32_t>(cols->Value()));
    }
    case TypeKind::Array: {
      const Type* element = Substitute(t->Element(), subst);
      if (t->LengthParam() == nullptr) return Array(element, t->Count());
      const Type* length = Substitute(t->LengthParam(), subst);
      if (length->Kind() == TypeKind::IntValue) {
        return Array(element, static_cast<uint32_t>(length->Value()));
      }
      return ArrayOfParam(element, length);
    }
    case TypeKind::Struct:
    case TypeKind::Interface: {
      std::vector<const Type*> args;
      for (const Type* a : t->Args()) args.push_back(Substitute(a, subst));
      return t->IsStruct() ? StructOf(t->Info(), args) : InterfaceOf(t->Iface(), args);
    }
    case TypeKind::Pack:
      return SubstitutePack(t, subst);
    case TypeKind::IntExpr: {
      std::vector<const Type*> operands;
      for (const Type* a : t->Args()) operands.push_back(Substitute(a, subst));
      return IntExpr(t->IntOperator(), t->Element(), operands);
    }
    case TypeKind::AssocType: {
      const Type* base = Substitute(t->Base(), subst);
      if (base->IsError()) return Error();
      if (base->IsDependent() && !base->IsStruct()) return AssocOf(base, t->Assoc());
      const Type* resolved = ResolveAssoc(base, t->Assoc());
      return resolved != nullptr ? resolved : Error();
    }
    default:
      return t;
  }
}

const Type* TypeContext::SubstitutePack(const Type* t, const Subst& subst) {
  if (t->PackPattern() == nullptr) {
    std::vector<const Type*> elements;
    for (const Type* e : t->Args()) elements.push_back(Substitute(e, subst));
    return TypePack(elements);
  }
  // `expand P` over packs T...: concrete once every T is, one element per index; else
  // still abstract, over the packs the T... became (`expand each U`, `expand Q`).
  auto target = [&](const Type* capture) {
    auto it = subst.find(capture);
    return it != subst.end() ? it->second : capture;
  };
  bool concrete = !t->Args().empty();
  size_t count = 0;
  for (const Type* capture : t->Args()) {
    const Type* to = target(capture);
    if (!to->IsPack() || to->PackPattern() != nullptr) {
      concrete = false;
    } else if (capture == t->Args()[0] || to->Count() == count) {
      count = to->Count();
    } else {
      return Error();  // packs of different lengths expanded together
    }
  }
  if (concrete) {
    std::vector<const Type*> elements;
    for (size_t i = 0; i < count; ++i) {
      Subst one = subst;
      for (const Type* capture : t->Args()) one[capture] = target(capture)->Args()[i];
      elements.push_back(Substitute(t->PackPattern(), one));
    }
    return TypePack(elements);
  }
  Subst inner = subst;
  std::vector<const Type*> captures;
  for (const Type* capture : t->Args()) {
    const Type* to = target(capture);
    if (to->IsPackParam()) {
      inner[capture] = to;
      captures.push_back(to);
    } else if (to->IsPack() && to->PackPattern() != nullptr) {
      inner[capture] = to->PackPattern();
      captures.insert(captures.end(), to->Args().begin(), to->Args().end());
    } else {
      return Error();  // a concrete pack expanded with an abstract one
    }
  }
  std::sort(captures.begin(), captures.end());
  captures.erase(std::unique(captures.begin(), captures.end()), captures.end());
  return ExpandPack(Substitute(t->PackPattern(), inner), captures);
}

bool TypeContext::UnifyPack(const Type* pattern, const Type* t,
                            const std::vector<const Type*>& params, Subst* bindings) {
  if (!t->IsPack()) return false;
  const std::vector<const Type*>& captures = pattern->Args();
  auto without_captures = [&]() {
    Subst local = *bindings;
    for (const Type* c : captures) local.erase(c);
    return local;
  };
  auto bind = [&](const Type* param, const Type* to) {
    if (std::find(params.begin(), params.end(), param) == params.end()) return true;
    auto [it, inserted] = bindings->emplace(param, to);
    return inserted || it->second == to;
  };
  auto keep_others = [&](const Subst& local) {
    for (auto& [p, to] : local) {
      if (std::find(captures.begin(), captures.end(), p) != captures.end()) continue;
      if (!bind(p, to)) return false;
    }
    return true;
  };
  if (t->PackPattern() != nullptr) {
    // `expand each U` (or `expand Q`) passed on: each capture becomes a pattern over U.
    Subst local = without_captures();
    if (!Unify(pattern->PackPattern(), t->PackPattern(), params, &local)) return false;
    for (const Type* c : captures) {
      auto it = local.find(c);
      if (it != local.end() && !bind(c, ExpandPack(it->second, t->Args()))) return false;
    }
    return keep_others(local);
  }
  std::map<const Type*, std::vector<const Type*>> elements;
  for (const Type* element : t->Args()) {
    Subst local = without_captures();
    if (!Unify(pattern->PackPattern(), element, params, &local)) return false;
    for (const Type* c : captures) {
      auto it = local.find(c);
      if (it != local.end()) elements[c].push_back(it->second);
    }
    if (!keep_others(local)) return false;
  }
  for (const Type* c : captures) {
    std::vector<const Type*>& found = elements[c];
    if (found.size() != t->Args().size()) continue;  // not inferred from the elements
    if (!bind(c, TypePack(found))) return false;
  }
  return true;
}

bool TypeContext::Unify(const Type* pattern, const Type* t, const std::vector<const Type*>& params,
                        Subst* bindings) {
  if (pattern->IsPack() && pattern->PackPattern() != nullptr) {
    return UnifyPack(pattern, t, params, bindings);
  }
  if (pattern->IsGenericParam()) {
    for (const Type* p : params) {
      if (p != pattern) continue;
      auto [it, inserted] = bindings->emplace(pattern, t);
      return inserted || it->second == t;
    }
  }
  if (!pattern->IsDependent()) return pattern == t;
  if (pattern->Kind() == TypeKind::IntExpr) return UnifyIntExpr(pattern, t, params, bindings);
  if (pattern->IsVector() && pattern->LengthParam() != nullptr) {
    // vector<T, N> matches a vector or (N = 1) a scalar.
    if (!t->IsScalar() && !t->IsVector()) return false;
    const Type* length = t->LengthParam() != nullptr ? t->LengthParam() : IntValue(t->Count());
    return Unify(pattern->Element(), t->ScalarType(), params, bindings) &&
           Unify(pattern->LengthParam(), length, params, bindings);
  }
  if (pattern->IsMatrix() && pattern->RowsParam() != nullptr) {
    if (!t->IsMatrix()) return false;
    const Type* rows = t->RowsParam() != nullptr ? t->RowsParam() : IntValue(t->Rows());
    const Type* cols = t->ColsParam() != nullptr ? t->ColsParam() : IntValue(t->Cols());
    return Unify(pattern->Element(), t->Element(), params, bindings) &&
           Unify(pattern->RowsParam(), rows, params, bindings) &&
           Unify(pattern->ColsParam(), cols, params, bindings);
  }
  if (pattern->Kind() != t->Kind()) return false;
  switch (pattern->Kind()) {
    case TypeKind::Buffer:
      return pattern->IsWritable() == t->IsWritable() &&
             Unify(pattern->Element(), t->Element(), params, bindings);
    case TypeKind::Texture:
      return pattern->IsWritable() == t->IsWritable() &&
             pattern->TextureDim() == t->TextureDim() &&
             pattern->IsTextureArray() == t->IsTextureArray() &&
             Unify(pattern->Element(), t->Element(), params, bindings);
    case TypeKind::Sampler:
      return pattern == t;
    case TypeKind::Pointer:
      // `nullptr` converts to every pointer type: it leaves T* to the other arguments
      // (`select(c, nullptr, p)`).
      if (t->Element()->IsVoid()) return true;
      return Unify(pattern->Element(), t->Element(), params, bindings);
    case TypeKind::Array:
      if (pattern->LengthParam() != nullptr) {
        const Type* length = t->LengthParam() != nullptr ? t->LengthParam() : IntValue(t->Count());
        if (!Unify(pattern->LengthParam(), length, params, bindings)) return false;
      } else if (t->LengthParam() != nullptr || pattern->Count() != t->Count()) {
        return false;
      }
      return Unify(pattern->Element(), t->Element(), params, bindings);
    case TypeKind::Pack:
      if (pattern->Args().size() != t->Args().size() || t->PackPattern() != nullptr) return false;
      for (size_t i = 0; i < pattern->Args().size(); ++i) {
        if (!Unify(pattern->Args()[i], t->Args()[i], params, bindings)) return false;
      }
      return true;
    case TypeKind::Struct:
    case TypeKind::Interface: {
      if (pattern->Info() != t->Info() || pattern->Iface() != t->Iface() ||
          pattern->Args().size() != t->Args().size()) {
        return false;
      }
      for (size_t i = 0; i < pattern->Args().size(); ++i) {
        if (!Unify(pattern->Args()[i], t->Args()[i], params, bindings)) return false;
      }
      return true;
    }
    default:
      return pattern == t;
  }
}

Subst TypeContext::StructSubst(const Type* struct_type) const {
  Subst s;
  const StructInfo* info = struct_type->Info();
  for (size_t i = 0; i < info->params.size() && i < struct_type->Args().size(); ++i) {
    s[info->params[i]] = struct_type->Args()[i];
  }
  return s;
}

const Type* TypeContext::FieldType(const Type* t, size_t index) {
  const Type* declared = t->Info()->fields[index]->type;
  if (declared == nullptr) return Error();
  return Substitute(declared, StructSubst(t));
}

bool TypeContext::IsCoreConditional(const Type* t) {
  // `__storage`: names that start with two underscores are the implementation's.
  return t->IsStruct() && t->Info()->name == "Conditional" && t->Args().size() == 2 &&
         t->Info()->fields.size() == 1 && t->Info()->fields[0]->name == "__storage";
}

bool TypeContext::FieldIsAbsent(const Type* t, size_t index) {
  if (!t->IsStruct() || t->IsDependent()) return false;
  if (IsCoreConditional(t)) {
    const Type* has = t->Args()[1];
    return has->Kind() == TypeKind::IntValue && has->Value() == 0;
  }
  return TakesNoStorage(FieldType(t, index));
}

bool TypeContext::TakesNoStorage(const Type* t) {
  if (!t->IsStruct() || t->IsDependent() || t->Info()->fields.empty()) return false;
  for (size_t i = 0; i < t->Info()->fields.size(); ++i) {
    if (!FieldIsAbsent(t, i)) return false;
  }
  return true;
}

const Type* TypeContext::NaturalLayout(const Type* t, int64_t* size, int64_t* align) {
  // Slang's natural layout: each part at the next multiple of its alignment, no padding
  // after the last one (the stride of an array element is its size rounded up).
  auto stride = [](int64_t s, int64_t a) { return (s + a - 1) / a * a; };
  switch (t->Kind()) {
    case TypeKind::Bool:
      *size = *align = 1;
      return nullptr;
    case TypeKind::Int:
    case TypeKind::UInt:
    case TypeKind::Float:
      *size = *align = t->Width() / 8;
      return nullptr;
    case TypeKind::Pointer:
      *size = *align = 8;  // a 64-bit address on every target
      return nullptr;
    case TypeKind::Enum:
      return NaturalLayout(t->Element(), size, align);
    case TypeKind::Vector:
    case TypeKind::Matrix:
    case TypeKind::Array: {
      if (t->IsDependent()) return t;
      int64_t n = t->Components();
      if (t->IsArray()) n = t->Count();
      if (n < 1) return t;  // an unsized array
      int64_t element_size = 0;
      if (const Type* culprit = NaturalLayout(t->Element(), &element_size, align)) return culprit;
      *size = element_size + stride(element_size, *align) * (n - 1);
      return nullptr;
    }
    case TypeKind::Struct: {
      if (t->IsDependent() || !t->Info()->checked) return t;
      *size = 0;
      *align = 1;
      for (size_t i = 0; i < t->Info()->fields.size(); ++i) {
        if (FieldIsAbsent(t, i)) continue;  // `Conditional<T, false>` takes no storage
        int64_t field_size = 0, field_align = 1;
        if (const Type* culprit = NaturalLayout(FieldType(t, i), &field_size, &field_align)) {
          return culprit;
        }
        *size = stride(*size, field_align) + field_size;
        *align = std::max(*align, field_align);
      }
      return nullptr;
    }
    default:
      return t;
  }
}

const std::vector<std::pair<ExtensionInfo*, Subst>>& TypeContext::ExtensionsOf(const Type* t) {
  auto cached = extensions_of_.find(t);
  if (cached != extensions_of_.end()) return cached->second;
  std::vector<std::pair<ExtensionInfo*, Subst>> result;
  int hits_before = depth_limit_hits_;
  bool partial = false;  // blanket extensions left out while `t` is being checked for one
  DepthGuard guard(&conformance_depth_);
  if (!guard.TooDeep()) {
    for (const auto& ext : extensions_) {
      if (ext->target == nullptr || ext->target->IsInterface()) continue;
      // `extension<T, let N : int> vector<T, N>` extends vectors; a scalar is not one here.
      if (ext->target->IsVector() && !t->IsVector()) continue;
      bool blanket = ext->target->IsGenericParam();
      std::pair<const ExtensionInfo*, const Type*> key{ext.get(), t};
      if (blanket && std::find(blanket_in_progress_.begin(), blanket_in_progress_.end(), key) !=
                         blanket_in_progress_.end()) {
        partial = true;
        continue;
      }
      Subst bindings;
      if (!Unify(ext->target, t, ext->params, &bindings)) continue;
      bool ok = bindings.size() == ext->params.size();
      if (blanket) blanket_in_progress_.push_back(key);
      for (const Type* p : ext->params) {
        if (!ok) break;
        for (const Type* c : p->Generic()->constraints) {
          if (!Conforms(bindings.at(p), Substitute(c, bindings))) {
            ok = false;
            break;
          }
        }
      }
      if (blanket) blanket_in_progress_.pop_back();
      if (ok) result.emplace_back(ext.get(), std::move(bindings));
    }
  } else {
    ++depth_limit_hits_;
  }
  if (depth_limit_hits_ != hits_before || partial) {
    // Incomplete, so not remembered for `t`; kept (rare) for the caller to read.
    return incomplete_extensions_of_.emplace_back(std::move(result));
  }
  return extensions_of_.emplace(t, std::move(result)).first->second;
}

std::vector<const Type*> TypeContext::DirectConformances(const Type* t, bool with_extensions) {
  std::vector<const Type*> result;
  switch (t->Kind()) {
    case TypeKind::Struct: {
      Subst s = StructSubst(t);
      for (const Type* b : t->Info()->bases) result.push_back(Substitute(b, s));
      break;
    }
    case TypeKind::GenericParam:
      result = t->Generic()->constraints;
      break;
    case TypeKind::Interface:
      result.push_back(t);
      break;
    case TypeKind::Array:
      // `T[N]` is differentiable when T is, as AUTODIFF.md's built-in conformances say.
      if (differentiable_ != nullptr && Conforms(t->Element(), differentiable_)) {
        result.push_back(differentiable_);
      }
      break;
    case TypeKind::AssocType: {
      // `where T.Assoc : IFoo` on the declaration of T.
      if (t->Base()->Kind() == TypeKind::GenericParam) {
        for (auto& [assoc, c] : t->Base()->Generic()->assoc_constraints) {
          if (assoc == t->Assoc()) result.push_back(c);
        }
      }
      auto owner = assoc_owners_.find(t->Assoc());
      if (owner == assoc_owners_.end()) break;
      Subst s{{owner->second->this_type, t->Base()}};
      auto it = owner->second->assoc_constraints.find(t->Assoc());
      if (it == owner->second->assoc_constraints.end()) break;
      for (const Type* c : it->second) result.push_back(Substitute(c, s));
      break;
    }
    case TypeKind::Vector:
      // `vector<float, N>` (a generic length, a concrete scalar): what the scalar and its
      // vectors of every length conform to (the core library gives float, float2..4 the
      // same interfaces; a program's extension of one length alone does not count).
      if (t->IsDependent() && !t->Element()->IsDependent()) {
        const Type* scalar = t->Element();
        for (const Type* c : DirectConformances(Vector(scalar, 4))) {
          bool every = Conforms(scalar, c);
          for (uint32_t n = 2; every && n < 4; ++n) every = Conforms(Vector(scalar, n), c);
          if (every) result.push_back(c);
        }
      }
      break;
    default:
      break;
  }
  if (with_extensions && !t->IsInterface()) {
    // For a generic parameter or associated type, only blanket extensions
    // (`extension<T : IA> T : IB`) can apply.
    for (auto& [ext, bindings] : ExtensionsOf(t)) {
      for (const Type* b : ext->bases) result.push_back(Substitute(b, bindings));
    }
  }
  return result;
}

bool TypeContext::Inherits(const Type* iface, const Type* target) {
  if (iface == target) return true;
  if (!iface->IsInterface()) return false;
  DepthGuard guard(&conformance_depth_);
  if (guard.TooDeep()) {
    ++depth_limit_hits_;
    return false;
  }
  const InterfaceInfo* info = iface->Iface();
  Subst s;
  for (size_t i = 0; i < info->params.size() && i < iface->Args().size(); ++i) {
    s[info->params[i]] = iface->Args()[i];
  }
  for (const Type* b : info->bases) {
    if (Inherits(Substitute(b, s), target)) return true;
  }
  return false;
}

bool TypeContext::DefaultInitializable(const Type* t) {
  if (t->IsNumericLike() || t->IsEnum()) return true;
  if (t->IsArray()) return t->LengthParam() == nullptr && DefaultInitializable(t->Element());
  if (!t->IsStruct() || t->IsDependent()) return false;
  const StructInfo* info = t->Info();
  for (const ast::FuncDecl* f : info->inits) {
    if (f->params.empty() || f->params.front()->init != nullptr) return true;
  }
  for (size_t i = 0; i < info->fields.size(); ++i) {
    if (info->fields[i]->init == nullptr && !Conforms(FieldType(t, i), default_initializable_)) {
      return false;
    }
  }
  return true;
}

bool TypeContext::Conforms(const Type* t, const Type* iface) {
  if (t->IsError() || iface->IsError()) return true;
  DepthGuard guard(&conformance_depth_);
  if (guard.TooDeep()) {
    ++depth_limit_hits_;
    return false;
  }
  if (iface == default_initializable_ && DefaultInitializable(t)) return true;
  if (iface == enum_interface_ && t->IsEnum()) return true;
  for (const Type* d : DirectConformances(t)) {
    if (Inherits(d, iface)) return true;
  }
  return false;
}

const Type* TypeContext::ResolveAssoc(const Type* t, const ast::AssociatedTypeDecl* assoc) {
  if (t->IsDependent() && !t->IsStruct()) return AssocOf(t, assoc);
  auto find = [&](const std::vector<ast::Decl*>& members, const Subst& s) -> const Type* {
    for (const ast::Decl* m : members) {
      if (m->name != assoc->name) continue;
      auto it = alias_types_.find(m);
      if (it != alias_types_.end()) return Substitute(it->second, s);
    }
    return nullptr;
  };
  if (t->IsStruct()) {
    if (const Type* r = find(t->Info()->type_members, StructSubst(t))) return r;
  }
  // `(T[N]).Differential` is `T.Differential[N]`.
  if (t->IsArray() && differentiable_ != nullptr && assoc->name == "Differential" &&
      Conforms(t, differentiable_)) {
    const Type* element = ResolveAssoc(t->Element(), assoc);
    if (element == nullptr) return nullptr;
    return t->LengthParam() != nullptr ? ArrayOfParam(element, t->LengthParam())
                                       : Array(element, t->Count());
  }
  for (auto& [ext, bindings] : ExtensionsOf(t)) {
    if (const Type* r = find(ext->type_members, bindings)) return r;
  }
  return nullptr;
}

const Type* TypeContext::ExtensionDifferential(const Type* t) {
  if (!t->IsStruct()) return nullptr;
  for (auto& [ext, bindings] : ExtensionsOf(t)) {
    for (const ast::Decl* m : ext->type_members) {
      if (m->name != "Differential") continue;
      auto it = alias_types_.find(m);
      if (it != alias_types_.end()) return Substitute(it->second, bindings);
    }
  }
  return nullptr;
}

std::string TypeContext::CapabilitiesOf(const Type* t) {
  std::string caps;
  std::vector<const Type*> work = DirectConformances(t);
  for (size_t i = 0; i < work.size() && i < 256; ++i) {
    const Type* iface = work[i];
    if (!iface->IsInterface()) continue;
    caps += iface->Iface()->capabilities;
    for (const Type* b : iface->Iface()->bases) work.push_back(b);
  }
  return caps;
}

Subst TypeContext::RequirementSubst(const Type* iface, const Type* self) const {
  const InterfaceInfo* info = iface->Iface();
  Subst s;
  for (size_t k = 0; k < info->params.size() && k < iface->Args().size(); ++k) {
    s[info->params[k]] = iface->Args()[k];
  }
  s[info->this_type] = self;
  return s;
}

bool TypeContext::MethodContext(const ast::FuncDecl* f, const Type* owner, Subst* context) {
  context->clear();
  const ast::AggregateDecl* parent = f->parent;
  if (parent == nullptr) return true;
  if (parent->kind == ast::DeclKind::Struct) {
    if (!owner->IsStruct() || owner->Info()->decl != parent) return false;
    *context = StructSubst(owner);
    return true;
  }
  for (const auto& ext : extensions_) {
    if (ext->decl != parent || ext->target == nullptr) continue;
    if (ext->target->IsInterface()) {
      (*context)[ext->params.back()] = owner;
      return Conforms(owner, ext->target);
    }
    return Unify(ext->target, owner, ext->params, context);
  }
  return false;
}

namespace {
bool IsStaticFunc(const ast::FuncDecl* f) { return (f->modifiers & ast::kModStatic) != 0; }
}  // namespace

const ast::FuncDecl* TypeContext::FindWitness(const Type* self, const ast::FuncDecl* req,
                                              const Type* iface, Subst* context,
                                              const ast::FuncDecl** near) {
  Subst want = RequirementSubst(iface, self);
  auto matches = [&](const ast::FuncDecl* f, const Subst& context) {
    if (f->params.size() != req->params.size() || IsStaticFunc(f) != IsStaticFunc(req)) {
      return false;
    }
    // A generic requirement (`U apply<U : IFloat>(U x)`) is met by a method with as many
    // generic parameters of the same kinds and constraints: the method's parameters stand
    // for the requirement's when the signatures are compared.
    size_t f_own = f->generic_context.size() - f->own_generic_begin;
    size_t req_own = req->generic_context.size() - req->own_generic_begin;
    if (f_own != req_own) return false;
    Subst s = context;
    for (size_t i = 0; i < f_own; ++i) {
      const Type* fp = f->generic_context[f->own_generic_begin + i];
      const Type* rp = req->generic_context[req->own_generic_begin + i];
      s[fp] = rp;
    }
    for (size_t i = 0; i < f_own; ++i) {
      const GenericParamInfo* fi = f->generic_context[f->own_generic_begin + i]->Generic();
      const GenericParamInfo* ri = req->generic_context[req->own_generic_begin + i]->Generic();
      if ((fi->value_type == nullptr) != (ri->value_type == nullptr) ||
          fi->constraints.size() != ri->constraints.size()) {
        return false;
      }
      for (size_t k = 0; k < fi->constraints.size(); ++k) {
        if (Substitute(fi->constraints[k], s) != Substitute(ri->constraints[k], want)) return false;
      }
    }
    if (f->result_type == nullptr || req->result_type == nullptr ||
        Substitute(f->result_type, s) != Substitute(req->result_type, want)) {
      return false;
    }
    for (size_t i = 0; i < f->params.size(); ++i) {
      if (f->params[i]->type == nullptr || req->params[i]->type == nullptr) return false;
      if (Substitute(f->params[i]->type, s) != Substitute(req->params[i]->type, want)) return false;
      if (f->params[i]->direction != req->params[i]->direction) return false;
    }
    return true;
  };
  std::vector<std::pair<const ast::FuncDecl*, Subst>> found;
  if (self->IsStruct()) {
    // An initializer requirement is met by an initializer (`__init`) of the type.
    bool init = req->func_kind == ast::FuncKind::Init;
    for (const ast::FuncDecl* m : init ? self->Info()->inits : self->Info()->methods) {
      if (m->name == req->name) found.emplace_back(m, StructSubst(self));
    }
  }
  for (auto& [ext, bindings] : ExtensionsOf(self)) {
    for (const ast::FuncDecl* m : ext->methods) {
      if (m->name == req->name) found.emplace_back(m, bindings);
    }
  }
  // Defaults from extensions of interfaces come last: the type's own methods win.
  for (const auto& ext : extensions_) {
    if (ext->target == nullptr || !ext->target->IsInterface()) continue;
    for (const ast::FuncDecl* m : ext->methods) {
      if (m->name != req->name || !Conforms(self, ext->target)) continue;
      found.emplace_back(m, Subst{{ext->params.back(), self}});
    }
  }
  for (auto& [f, s] : found) {
    if (!matches(f, s)) continue;
    *context = s;
    return f;
  }
  if (near != nullptr) *near = found.empty() ? nullptr : found.front().first;
  if (near != nullptr && !found.empty()) *context = found.front().second;
  return nullptr;
}

}  // namespace slope::sema

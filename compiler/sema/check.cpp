#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <utility>

#include "compiler/base/ice.h"
#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

const Type* LookupBuiltinTypeName(TypeContext& types, std::string_view name) {
  // Each type is made only for the name that matched: this runs for every type name the
  // core library and the program spell.
  enum class Which : uint8_t { Float, UInt, Int, Bool, Half, Double, Sized };
  struct ScalarName {
    std::string_view prefix;
    Which which;
    TypeKind kind = TypeKind::Int;  // with Which::Sized
    uint32_t width = 0;
  };
  static constexpr ScalarName kScalars[] = {
      {"float", Which::Float},
      {"uint", Which::UInt},
      {"int", Which::Int},
      {"bool", Which::Bool},
      {"half", Which::Half},
      {"double", Which::Double},
      {"float16_t", Which::Half},
      {"float32_t", Which::Float},
      {"float64_t", Which::Double},
      {"int8_t", Which::Sized, TypeKind::Int, 8},
      {"int16_t", Which::Sized, TypeKind::Int, 16},
      {"int32_t", Which::Int},
      {"int64_t", Which::Sized, TypeKind::Int, 64},
      {"uint8_t", Which::Sized, TypeKind::UInt, 8},
      {"uint16_t", Which::Sized, TypeKind::UInt, 16},
      {"uint32_t", Which::UInt},
      {"uint64_t", Which::Sized, TypeKind::UInt, 64},
      // HLSL's minimum-precision types: at least that precision, so the 32-bit type
      // computes what they may compute.
      {"min16float", Which::Float},
      {"min10float", Which::Float},
      {"min16int", Which::Int},
      {"min12int", Which::Int},
      {"min16uint", Which::UInt},
      {"dword", Which::UInt},
  };
  auto scalar = [&types](const ScalarName& s) -> const Type* {
    switch (s.which) {
      case Which::Float:
        return types.Float();
      case Which::UInt:
        return types.UInt();
      case Which::Int:
        return types.Int();
      case Which::Bool:
        return types.Bool();
      case Which::Half:
        return types.Half();
      case Which::Double:
        return types.Double();
      case Which::Sized:
        break;
    }
    return types.Scalar(s.kind, s.width);
  };
  if (name.empty() || name.front() < 'b' || name.front() > 'v') return nullptr;
  if (name == "void") return types.Void();
  const Type* element = nullptr;
  uint32_t rows = 0, cols = 0;
  if (ParseMatrixTypeName(types, name, &element, &rows, &cols)) {
    return rows >= 2 && cols >= 2 ? types.Matrix(element, rows, cols) : nullptr;
  }
  for (const ScalarName& s : kScalars) {
    if (name == s.prefix) return scalar(s);
    if (name.size() == s.prefix.size() + 1 && name.substr(0, s.prefix.size()) == s.prefix) {
      char n = name.back();
      if (n >= '2' && n <= '4') return types.Vector(scalar(s), static_cast<uint32_t>(n - '0'));
    }
  }
  return nullptr;
}

bool ParseMatrixTypeName(TypeContext& types, std::string_view name, const Type** scalar,
                         uint32_t* rows, uint32_t* cols) {
  if (name.size() < 4 || name[name.size() - 2] != 'x') return false;
  char r = name[name.size() - 3];
  char c = name.back();
  if (r < '1' || r > '4' || c < '1' || c > '4') return false;
  const Type* s = LookupBuiltinTypeName(types, name.substr(0, name.size() - 3));
  if (s == nullptr || !s->IsScalar()) return false;
  *scalar = s;
  *rows = static_cast<uint32_t>(r - '0');
  *cols = static_cast<uint32_t>(c - '0');
  return true;
}

namespace {
/// Evaluates a literal integer generic argument such as the 3 in vector<float, 3>.
bool LiteralUInt(const ast::Expr* e, uint32_t* out) {
  if (e->kind != ast::ExprKind::IntLiteral) return false;
  *out = static_cast<uint32_t>(static_cast<const ast::IntLiteralExpr*>(e)->value);
  return true;
}

/// A field of interface type inside struct `t` (through nested structs and arrays):
/// "'v' of 'Wrap', an 'IV'"; empty when none.
std::string InterfaceField(TypeContext& types, const Type* t, int depth = 0) {
  if (depth > 64) return "";
  if (t->IsArray()) return InterfaceField(types, t->Element(), depth + 1);
  if (!t->IsStruct()) return "";
  for (size_t i = 0; i < t->Info()->fields.size(); ++i) {
    const Type* f = types.FieldType(t, i);
    if (f->IsArray()) f = f->Element();
    if (f->IsInterface()) {
      return "'" + t->Info()->fields[i]->name + "' of '" + t->Name() + "', an '" + f->Name() + "'";
    }
    std::string inner = InterfaceField(types, f, depth + 1);
    if (!inner.empty()) return inner;
  }
  return "";
}
}  // namespace

const Type* Checker::ResolveType(ast::TypeExpr* te) {
  // A type pack is the type of a function parameter only, never part of another type.
  bool allow_pack = std::exchange(allow_pack_type_, false);
  const Type* type = ResolveTypeExpr(te);
  allow_pack_type_ = allow_pack;
  if (type->IsPack() && !allow_pack) {
    diags_.Report(DiagId::PackTypeNotHere, te->range, type->Name());
    type = types_.Error();
    if (te != nullptr) te->resolved = type;
  }
  if (te != nullptr && te->existential != ast::TypeExpr::kPlain && !type->IsError() &&
      !type->IsInterface()) {
    diags_.Report(DiagId::ExistentialNeedsInterface, te->range,
                  te->existential == ast::TypeExpr::kSome ? "some" : "dyn", type->Name());
    type = types_.Error();
    te->resolved = type;
  }
  RecordGenericUse(type);
  return type;
}

const Type* Checker::ResolveTypeExpr(ast::TypeExpr* te) {
  if (te == nullptr) return types_.Error();
  if (te->pack == ast::TypeExpr::kExpand) {
    te->resolved = ResolveExpandType(te);
    return te->resolved;
  }
  if (const Type* pointer = ResolvePointerType(te)) {
    te->resolved = pointer;
    return pointer;
  }
  if (!te->array_dims.empty()) {
    // `T[N][M]`: the element type first, then the dimensions (check_array.cpp).
    ast::TypeExpr element = *te;
    element.array_dims.clear();
    te->resolved = ApplyArrayDims(te, ResolveType(&element));
    return te->resolved;
  }
  const Type* result = nullptr;
  uint32_t rows = 0, cols = 0;
  if (const Type* texture = ResolveTextureType(te)) {
    te->resolved = texture;
    return texture;
  }
  if (!MapFuncInterface(te) || RejectUnsupportedType(te)) {
    te->resolved = types_.Error();
    return te->resolved;
  }
  if (te->type_args.empty() && te->value_args.empty()) {
    result = LookupBuiltinTypeName(types_, te->name);
    if (result == nullptr) {
      if (te->name == "StructuredBuffer" || te->name == "RWStructuredBuffer" ||
          te->name == "vector") {
        diags_.Report(DiagId::InvalidAttributeArgs, te->range, te->name, "generic arguments");
        result = types_.Error();
      } else if (te->name == "matrix") {
        result = types_.Matrix(types_.Float(), 4, 4);  // HLSL's `matrix` is float4x4
      } else if (const Type* element = nullptr; ParseMatrixTypeName(types_, te->name, &element,
                                                                    &rows, &cols)) {
        diags_.Report(DiagId::InvalidMatrixShape, te->range, te->name);
        result = types_.Error();
      } else if (te->name == "ByteAddressBuffer" || te->name == "RWByteAddressBuffer") {
        result = types_.ByteAddressBuffer(te->name == "RWByteAddressBuffer");
      } else if (const Type* scoped = ResolveScopedTypeName(te)) {
        result = scoped;
      } else if (const Type* named = ResolveUserTypeName(te)) {
        result = CheckAccess(Lookup(te->name), te->range) ? named : types_.Error();
      } else if (Lookup(te->name) != nullptr) {
        diags_.Report(DiagId::NotAType, te->range, te->name);
        result = types_.Error();
      } else {
        diags_.Report(DiagId::UnknownType, te->range, te->name);
        result = types_.Error();
      }
    }
  } else if ((te->name == "StructuredBuffer" || te->name == "RWStructuredBuffer" ||
              te->name == "AppendStructuredBuffer" || te->name == "ConsumeStructuredBuffer") &&
             te->type_args.size() == 1 && te->value_args.empty()) {
    const Type* element = ResolveType(te->type_args[0]);
    if (element->IsError()) {
      result = types_.Error();
    } else if (ContainsResource(element)) {
      // Resources are bindings, not memory: a buffer cannot hold one.
      diags_.Report(DiagId::ResourceInBufferElement, te->type_args[0]->range, element->Name());
      result = types_.Error();
    } else if (element->IsInterface()) {
      result = CheckInterfaceElement(te, element);
    } else if (std::string field = InterfaceField(types_, element); !field.empty()) {
      // Only a whole element has the stored form of an interface value.
      diags_.Report(DiagId::UnsupportedConstruct, te->type_args[0]->range,
                    "a field of interface type in a buffer element (" + field + ")", "is");
      result = types_.Error();
    } else if (!IsBufferElement(element) || element->IsArray()) {
      diags_.Report(DiagId::UnsupportedBufferElement, te->type_args[0]->range, element->Name());
      result = types_.Error();
    } else if (te->name == "AppendStructuredBuffer" || te->name == "ConsumeStructuredBuffer") {
      result = types_.CounterBuffer(element, te->name == "ConsumeStructuredBuffer");
    } else {
      result = types_.Buffer(element, te->name == "RWStructuredBuffer");
    }
  } else if ((te->name == "ConstantBuffer" || te->name == "ParameterBlock") &&
             te->type_args.size() == 1 && te->value_args.empty()) {
    // A constant buffer reads as a value of its element type (sema/check_uniform.cpp).
    result = ResolveType(te->type_args[0]);
  } else if (te->name == "vector" && !te->type_args.empty() &&
             te->type_args.size() + te->value_args.size() == 2) {
    result = ResolveVectorType(te);
  } else if (te->name == "matrix" && !te->type_args.empty() &&
             te->type_args.size() + te->value_args.size() == 3) {
    result = ResolveMatrixType(te);
  } else if (te->name == "Tuple" && te->value_args.empty() && Lookup("Tuple") == nullptr) {
    result = ResolveTupleType(te);
  } else if (ast::Decl* generic = Lookup(te->name);
             generic != nullptr &&
             (generic->kind == ast::DeclKind::Struct || generic->kind == ast::DeclKind::Interface ||
              (generic->kind == ast::DeclKind::TypeAlias && alias_state_.count(generic) != 0))) {
    result = CheckAccess(generic, te->range) ? ApplyGeneric(te, generic) : types_.Error();
  } else if (const Type* member = ResolveGenericMemberType(te)) {
    result = member;
  } else {
    diags_.Report(DiagId::UnknownType, te->range, te->name);
    result = types_.Error();
  }
  result = PackParamUse(te, result);
  te->resolved = result;
  return result;
}

const Type* Checker::ResolveTupleType(ast::TypeExpr* te) {
  // `Tuple<A, B>` is the core library's `__Tuple2<A, B>`.
  constexpr size_t kMaxTuple = 8;
  size_t n = te->type_args.size();
  ast::Decl* decl = n >= 1 && n <= kMaxTuple ? Lookup("__Tuple" + std::to_string(n)) : nullptr;
  if (decl == nullptr || decl->kind != ast::DeclKind::Struct) {
    diags_.Report(DiagId::TupleArity, te->range, std::to_string(kMaxTuple), std::to_string(n));
    return types_.Error();
  }
  ast::TypeExpr named = *te;
  named.name = decl->name;
  return ApplyGeneric(&named, decl);
}

ast::Decl* Checker::Lookup(const std::string& name) const {
  if (!ambiguity_.name.empty()) ambiguity_ = {};
  if (name.size() > 2 && name.compare(0, 2, "::") == 0) {
    // `::f`: the global scope only, past locals and enclosing namespaces.
    std::string plain = name.substr(2);
    auto found = scopes_.front().find(plain);
    if (found != scopes_.front().end()) {
      if (found->second->kind == ast::DeclKind::Func && pending_signatures_.count(plain) != 0) {
        const_cast<Checker*>(this)->EnsureSignatures(plain);
      }
      return found->second;
    }
    return LookupInUsed(global_used_, plain);
  }
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    // Inside a namespace, its members hide global declarations.
    if (current_ns_ != nullptr && std::next(it) == scopes_.rend()) {
      if (ast::Decl* member = LookupInNamespaces(name)) return member;
    }
    auto found = it->find(name);
    if (found != it->end()) {
      if (found->second->kind == ast::DeclKind::Func && !pending_signatures_.empty() &&
          pending_signatures_.count(name) != 0) {
        // A lookup is const to its callers; checking a signature only fills in types.
        const_cast<Checker*>(this)->EnsureSignatures(name);
      }
      return found->second;
    }
  }
  return LookupInUsed(global_used_, name);
}

void Checker::Declare(ast::Decl* decl) {
  if (decl->name.empty()) return;  // an unnamed parameter
  auto& scope = scopes_.back();
  auto [it, inserted] = scope.emplace(decl->name, decl);
  if (!inserted) {
    diags_.Report(DiagId::Redefinition, decl->name_range, decl->name)
        .Note(DiagId::PreviousDefinition, it->second->name_range, decl->name);
  }
}

/// Pushes a scope for its lifetime.
class ScopeGuard {
 public:
  explicit ScopeGuard(Checker& c) : c_(c) { c_.scopes_.emplace_back(); }
  ~ScopeGuard() { c_.scopes_.pop_back(); }

 private:
  Checker& c_;
};

void Checker::DeclareGlobal(ast::Decl* decl) {
  if (DeclareInNamespace(decl)) return;
  if (decl->kind == ast::DeclKind::Func) {
    auto* func = static_cast<ast::FuncDecl*>(decl);
    auto& scope = scopes_.front();
    auto it = scope.find(decl->name);
    if (it != scope.end() && it->second->kind != ast::DeclKind::Func) {
      diags_.Report(DiagId::Redefinition, decl->name_range, decl->name)
          .Note(DiagId::PreviousDefinition, it->second->name_range, decl->name);
      return;
    }
    scope.emplace(decl->name, decl);
    functions_[decl->name].push_back(func);
    return;
  }
  Declare(decl);
}

namespace {
/// What to call a declaration this version of sema does not check yet; null when it does.
const char* UnsupportedDeclName(const ast::Decl* decl) {
  switch (decl->kind) {
    case ast::DeclKind::Var: return nullptr;
    case ast::DeclKind::Func: {
      auto* f = static_cast<const ast::FuncDecl*>(decl);
      if (f->func_kind != ast::FuncKind::Plain && f->func_kind != ast::FuncKind::Operator) {
        return "'__init' outside a struct";
      }
      return nullptr;
    }
    case ast::DeclKind::Struct:
    case ast::DeclKind::Interface:
    case ast::DeclKind::Extension:
      return nullptr;
    case ast::DeclKind::Enum: return nullptr;
    case ast::DeclKind::EnumCase: return "enumerators";
    case ast::DeclKind::TypeAlias: return nullptr;
    case ast::DeclKind::Namespace: return nullptr;
    case ast::DeclKind::Import: return "'import' declarations";
    case ast::DeclKind::Using: return nullptr;
    case ast::DeclKind::AssociatedType: return "'associatedtype' declarations";
    case ast::DeclKind::GenericParam: return "generic parameters";
    case ast::DeclKind::Property: return "'property' declarations";
    case ast::DeclKind::Subscript: return "'__subscript' declarations";
    case ast::DeclKind::BufferBlock: return nullptr;
  }
  return "declarations of this kind";
}
}  // namespace

bool Checker::Run(ast::Module& module, CheckedModule* out) {
  scopes_.emplace_back();
  checked_out_ = out;
  DropShadowedCoreDecls(module.decls);
  AttachWhereClauses(module.decls, {});
  SplitDefaultImplementations(module.decls);
  std::vector<ast::Decl*> decls;
  for (ast::Decl* decl : module.decls) {
    if (const char* what = UnsupportedDeclName(decl)) {
      diags_.Report(DiagId::UnsupportedConstruct, decl->name_range, what, "are");
    } else if (DeclareUserAttribute(decl)) {
      // an attribute's declaration, not a type
    } else if (decl->kind == ast::DeclKind::BufferBlock) {
      // A cbuffer's members are globals whose names are visible unqualified.
      DeclareBufferBlock(static_cast<ast::AggregateDecl*>(decl), &decls);
    } else {
      decls.push_back(decl);
    }
  }
  LinkExternConstants(&decls);
  DeclareScopedDecls(&decls);
  ExpandAccessors(decls);
  DeclareStructs(decls);
  DeclareInterfaces(decls);
  for (ast::Decl* decl : decls) {
    if (decl->kind == ast::DeclKind::Extension) continue;  // adds to a type; has no name
    DeclareGlobal(decl);
    if (decl->kind == ast::DeclKind::Func) {
      auto* func = static_cast<ast::FuncDecl*>(decl);
      CheckAttributes(
          func->attributes,
          {"shader", "numthreads", "WaveSize", "ForceInline", "Differentiable",
           "ForwardDifferentiable", "BackwardDifferentiable", "TreatAsDifferentiable",
           "ForwardDerivative", "ForwardDerivativeOf", "BackwardDerivative", "BackwardDerivativeOf",
           "PrimalSubstitute", "PrimalSubstituteOf", "__intrinsic_op"},
          "a function", func->name);
      CheckIntrinsicAttribute(func);
      for (ast::VarDecl* p : func->params) {
        CheckAttributes(p->attributes, {}, "a parameter", func->name + "." + p->name);
      }
    } else {
      // `format` / `vk::image_format`: CheckTextureFormat allows them on RW textures only.
      if (decl->kind == ast::DeclKind::Var) {
        CheckAttributes(
            decl->attributes,
            {"vk::binding", "vk::push_constant", "format", "vk::image_format", "vk::constant_id",
             "SpecializationConstant", "vk::specialization_constant", "vk::counter_binding"},
            "this declaration", decl->name);
        // `[[vk::counter_binding(n)]]`: the binding of an Append/Consume buffer's counter.
        auto* var = static_cast<ast::VarDecl*>(decl);
        if (const ast::Attribute* a = var->FindAttribute("vk::counter_binding");
            a != nullptr && var->type_expr != nullptr &&
            var->type_expr->name != "AppendStructuredBuffer" &&
            var->type_expr->name != "ConsumeStructuredBuffer") {
          diags_.Report(DiagId::AttributeNotSupportedHere, a->range, a->name,
                        "a declaration that is not an AppendStructuredBuffer or "
                        "ConsumeStructuredBuffer");
        }
      } else {
        bool is_struct = decl->kind == ast::DeclKind::Struct;
        if (decl->kind == ast::DeclKind::Interface) {
          CheckAttributes(decl->attributes, {"anyValueSize"}, "an interface", decl->name);
        } else {
          CheckAttributes(decl->attributes,
                          {"vk::binding", "vk::push_constant", "format", "vk::image_format"},
                          is_struct ? "a struct" : "this declaration", decl->name);
        }
      }
    }
  }
  ResolveGenericHeaders(decls);
  headers_resolved_ = true;
  types_.SetDifferentiableInterface(DifferentiableInterface());
  if (!scopes_.empty()) {
    auto core_interface = [&](const char* name) -> const Type* {
      auto it = scopes_.front().find(name);
      if (it == scopes_.front().end() || interfaces_.count(it->second) == 0) return nullptr;
      return types_.InterfaceOf(interfaces_.at(it->second), {});
    };
    types_.SetDefaultInitializableInterface(core_interface("IDefaultInitializable"));
    types_.SetEnumInterface(core_interface("__EnumType"));
    const Type* ptr_pair = nullptr;
    if (auto it = scopes_.front().find("DifferentialPtrPair"); it != scopes_.front().end()) {
      auto st = struct_types_.find(it->second);
      if (st != struct_types_.end()) ptr_pair = st->second;
    }
    types_.SetDifferentiablePtr(DifferentiablePtrInterface(), ptr_pair);
  }
  ResolveAliasesAndEnums();
  ResolveStructFields();
  SynthesizeDifferentials();
  for (ast::Decl* decl : decls) {
    if (decl->kind == ast::DeclKind::Var) {
      CheckGlobalVar(static_cast<ast::VarDecl*>(decl), out);
    }
  }
  AssignSpecConstantIds(decls);
  CheckStructMembers();
  for (ast::Decl* decl : decls) {
    auto* func = decl->kind == ast::DeclKind::Func ? static_cast<ast::FuncDecl*>(decl) : nullptr;
    if (func == nullptr || func->result_type != nullptr) continue;
    if (DeferSignature(func)) {
      pending_signatures_.insert(func->name);
    } else {
      CheckFunctionSignature(func);
    }
  }
  EnsureSharedNames();
  // Two functions with the same parameter types are a redefinition, not an overload,
  // unless at most one has a body: the others declare it (`float f(float);` before its
  // definition), and their attributes join the definition's. Generic functions compare
  // with the later one's generic parameters renamed to the earlier one's (same kinds and
  // constraints, in order): `T twice<T : IArithmetic>(T x);` declares the generic
  // function defined below it.
  for (auto& [name, overloads] : functions_) {
    if (pending_signatures_.count(name) != 0) continue;  // the core library's alone
    for (size_t i = 0; i < overloads.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        ast::FuncDecl* later = overloads[i];
        ast::FuncDecl* earlier = overloads[j];
        const auto& a = later->params;
        const auto& b = earlier->params;
        Subst to_earlier;
        bool same = a.size() == b.size() &&
                    later->generic_params.size() == earlier->generic_params.size() &&
                    MatchGenericDerivative(earlier, later, &to_earlier);
        for (size_t k = 0; same && k < a.size(); ++k) {
          same = types_.Substitute(a[k]->type, to_earlier) == b[k]->type &&
                 a[k]->direction == b[k]->direction;
        }
        if (!same) continue;
        bool declaration = later->body == nullptr || earlier->body == nullptr;
        if (declaration &&
            types_.Substitute(later->result_type, to_earlier) == earlier->result_type &&
            later->intrinsic_op < 0 && earlier->intrinsic_op < 0) {
          ast::FuncDecl* kept = later->body != nullptr ? later : earlier;
          ast::FuncDecl* dropped = kept == later ? earlier : later;
          MergeDeclaration(dropped, kept);
          overloads.erase(overloads.begin() + static_cast<std::ptrdiff_t>(kept == later ? j : i));
          i = 0;  // indices moved: compare again from the start
          break;
        }
        diags_.Report(DiagId::Redefinition, later->name_range, name)
            .Note(DiagId::PreviousDefinition, earlier->name_range, name);
        // Calls see one of the two (the one with a body), so they are not ambiguous too.
        bool keep_later = later->body != nullptr && earlier->body == nullptr;
        overloads.erase(overloads.begin() + static_cast<std::ptrdiff_t>(keep_later ? j : i));
        i = 0;
        break;
      }
    }
  }
  CheckAccessorSignatures();
  CheckOperatorDecls(decls);
  CheckConformances();
  CheckDynamicConformances(decls);
  CheckStructBodies(out);
  CheckExtensionBodies(out);
  CheckCustomDerivatives(decls);
  for (ast::Decl* decl : decls) {
    if (diags_.LimitReached()) break;
    if (decl->kind != ast::DeclKind::Func) continue;
    auto* func = static_cast<ast::FuncDecl*>(decl);
    if (func->body != nullptr) {
      if (!DeferBody(func)) CheckFunctionBody(func);
      out->functions.push_back(func);
    }
    if (!IsEntryPoint(*func)) {
      const ast::Attribute* ws = func->FindAttribute("WaveSize");
      if (ws != nullptr && func->FindAttribute("numthreads") == nullptr) {
        diags_.Report(DiagId::AttributeNotSupportedHere, ws->range, ws->name,
                      "a function that is not an entry point");
      }
    } else {
      CheckEntryPoint(func);
      if (func->throws_type != nullptr && !func->throws_type->IsError()) {
        // Named by -entry without [shader]: no caller can catch what it throws.
        diags_.Report(DiagId::ThrowsUnsupported, func->throws_type_expr->range,
                      "entry point '" + func->name + "'",
                      "(an entry point has no caller to catch its errors)");
        func->throws_type = types_.Error();
      }
      out->entry_points.push_back(func);
      for (ast::VarDecl* param : func->params) {
        if (param->is_uniform && param->role == ast::VarRole::Global) {
          if (param->type->IsResource()) out->buffers.push_back(param);
          out->resources.push_back(param);
        }
      }
    }
  }
  CheckRequestedEntries(decls, *out);
  // A function whose signature is still unchecked is lowered only if a use checks it.
  std::erase_if(out->functions, [&](const ast::FuncDecl* f) { return SignaturePending(f); });
  CheckRecursion(out->functions);
  CheckConstantCycles();
  CheckGenericArraySizes();
  // Deferred bodies are checked later in this scope, which holds the globals.
  if (deferred_bodies_.empty()) scopes_.pop_back();
  return !diags_.HasErrors();
}

bool Checker::DeferBody(ast::FuncDecl* f) {
  if (modules_ == nullptr || modules_->deferred_bodies_file == 0 ||
      f->name_range.begin.file != modules_->deferred_bodies_file) {
    return false;
  }
  deferred_bodies_.insert(f);
  return true;
}

bool Checker::CheckDeferredBody(const ast::FuncDecl* f) {
  auto it = deferred_bodies_.find(f);
  if (it == deferred_bodies_.end()) return true;
  deferred_bodies_.erase(it);
  uint32_t errors = diags_.ErrorCount();
  if (f->result_type == nullptr) EnsureSignatures(f->name);
  if (modules_->prepare_deferred_body) modules_->prepare_deferred_body(f);
  CheckFunctionBody(const_cast<ast::FuncDecl*>(f));
  return diags_.ErrorCount() == errors;
}

void Checker::LinkExternConstants(std::vector<ast::Decl*>* decls) {
  // `extern static const int N;` in one module takes the value another module of the
  // compile gives with `export static const int N = 4;` (or a plain definition); with
  // none, an initializer on the extern declaration is its default.
  auto is_const = [](const ast::Decl* d) {
    return d->kind == ast::DeclKind::Var && (d->modifiers & ast::kModStatic) != 0 &&
           (d->modifiers & ast::kModConst) != 0;
  };
  // Link-time types likewise: `extern struct X : IFoo;` (or `extern struct X : IFoo =
  // Default;`) stands for the type another module gives with `export struct X : IFoo =
  // Y;` (or a struct X it defines).
  auto is_type = [](const ast::Decl* d) {
    return d->kind == ast::DeclKind::Struct ||
           (d->kind == ast::DeclKind::TypeAlias &&
            !static_cast<const ast::TypeAliasDecl*>(d)->conformances.empty());
  };
  auto linked = [&](const ast::Decl* d) { return is_const(d) || is_type(d); };
  std::map<std::string, ast::Decl*> definitions;
  for (ast::Decl* d : *decls) {
    if (linked(d) && (d->modifiers & ast::kModExtern) == 0) definitions.emplace(d->name, d);
  }
  std::vector<ast::Decl*> kept;
  for (ast::Decl* d : *decls) {
    if (!linked(d) || (d->modifiers & ast::kModExtern) == 0) {
      kept.push_back(d);
      continue;
    }
    auto it = definitions.find(d->name);
    if (it != definitions.end() && is_type(it->second) == is_type(d)) {
      // The definition is what the extern declaration names, visible to its module.
      it->second->modifiers |= ast::kModPublic;
      continue;
    }
    if (d->kind == ast::DeclKind::Struct) {
      // No definition and no default: reported here, and uses see an error type.
      auto* agg = static_cast<ast::AggregateDecl*>(d);
      std::string bases;
      for (const ast::TypeExpr* b : agg->bases) bases += (bases.empty() ? "" : ", ") + b->name;
      diags_.Report(DiagId::ExternTypeNotExported, d->name_range, d->name, d->name,
                    bases.empty() ? std::string("IFoo") : bases);
      auto* error_alias = ctx_.New<ast::TypeAliasDecl>(d->name, d->name_range);
      error_alias->modifiers = d->modifiers;
      kept.push_back(error_alias);  // no target: an error type, reported once
      continue;
    }
    kept.push_back(d);  // its default, or E3051 where it is used
  }
  *decls = std::move(kept);
}

void Checker::MergeDeclaration(ast::FuncDecl* declaration, ast::FuncDecl* definition) {
  for (ast::Attribute& attr : declaration->attributes) {
    if (definition->FindAttribute(attr.name) == nullptr) definition->attributes.push_back(attr);
  }
  declaration->attributes.clear();
  definition->modifiers |= declaration->modifiers;
  // Default arguments may be written on either.
  for (size_t k = 0; k < definition->params.size(); ++k) {
    if (definition->params[k]->init == nullptr) definition->params[k]->init = declaration->params[k]->init;
  }
}

bool Checker::CheckConstantExpr(const ast::Expr* e) {
  switch (e->kind) {
    case ast::ExprKind::IntLiteral:
    case ast::ExprKind::FloatLiteral:
    case ast::ExprKind::BoolLiteral:
      return true;
    case ast::ExprKind::Name: {
      auto* decl = static_cast<const ast::NameExpr*>(e)->decl;
      if (decl != nullptr && decl->kind == ast::DeclKind::GenericParam) return true;
      return decl != nullptr && decl->kind == ast::DeclKind::Var &&
             static_cast<ast::VarDecl*>(decl)->role == ast::VarRole::Global &&
             static_cast<ast::VarDecl*>(decl)->is_const;
    }
    case ast::ExprKind::Unary: {
      auto* u = static_cast<const ast::UnaryExpr*>(e);
      return (u->op == ast::OpKind::Neg || u->op == ast::OpKind::Plus ||
              u->op == ast::OpKind::Not || u->op == ast::OpKind::BitNot) &&
             CheckConstantExpr(u->operand);
    }
    case ast::ExprKind::Binary: {
      auto* b = static_cast<const ast::BinaryExpr*>(e);
      return CheckConstantExpr(b->lhs) && CheckConstantExpr(b->rhs);
    }
    case ast::ExprKind::Conditional: {
      auto* c = static_cast<const ast::ConditionalExpr*>(e);
      return CheckConstantExpr(c->cond) && CheckConstantExpr(c->then_expr) &&
             CheckConstantExpr(c->else_expr);
    }
    case ast::ExprKind::Cast:
      return CheckConstantExpr(static_cast<const ast::CastExpr*>(e)->operand);
    case ast::ExprKind::ImplicitCast:
      return CheckConstantExpr(static_cast<const ast::ImplicitCastExpr*>(e)->operand);
    case ast::ExprKind::Call: {
      auto* c = static_cast<const ast::CallExpr*>(e);
      // `T.value`: a `static const` requirement, read through its getter; every type that
      // satisfies it gives a constant.
      if (c->func != nullptr && c->args.empty() && c->receiver == nullptr &&
          c->func->name.ends_with(ast::kStaticConstGetterSuffix)) {
        return true;
      }
      if (c->constructed == nullptr) return false;
      for (const ast::Expr* a : c->args) {
        if (!CheckConstantExpr(a)) return false;
      }
      return true;
    }
    case ast::ExprKind::InitList:
      for (const ast::Expr* a : static_cast<const ast::InitListExpr*>(e)->elements) {
        if (!CheckConstantExpr(a)) return false;
      }
      return true;
    case ast::ExprKind::Pack: {
      auto form = static_cast<const ast::PackExpr*>(e)->form;
      return form == ast::PackExpr::kSizeOf || form == ast::PackExpr::kAlignOf ||
             form == ast::PackExpr::kValueOf;
    }
    case ast::ExprKind::StringLiteral:
    case ast::ExprKind::Diff:
    case ast::ExprKind::NoDiff:
    case ast::ExprKind::TypeTest:
    case ast::ExprKind::Lambda:
    case ast::ExprKind::Member:
    case ast::ExprKind::Index:
    case ast::ExprKind::Assign:
    case ast::ExprKind::SpirvAsm:
      return false;
  }
  return false;
}

void Checker::CheckGlobalVar(ast::VarDecl* var, CheckedModule* out) {
  base::IceLocationScope ice(diags_.Sources().Describe(var->name_range.begin));
  NamespaceScope ns(*this, var);
  if (var->type != nullptr) return;  // a constant checked early, as an array size
  if (IsSpecConstantDecl(var)) return CheckSpecConstant(var);
  if (var->uniform_kind == ast::UniformKind::CBufferMember) {
    if (var->uniform_index == 0 && out != nullptr) out->resources.push_back(var->uniform_block);
    var->type = ResolveType(var->type_expr);
    if (!var->type->IsError()) CheckUniformType(var->type, var->type_expr->range);
    return;
  }
  buffer_arrays_ok_ = out != nullptr && !var->is_static && (var->modifiers & ast::kModGroupShared) == 0;
  var->type = InferArraySize(var);  // `static const int t[] = {1, 2, 3}`
  buffer_arrays_ok_ = false;
  CheckTextureFormat(var);
  if (var->type->IsError()) return;
  if (var->type_expr->name == "ConstantBuffer" && out != nullptr && !var->is_static) {
    var->uniform_kind = ast::UniformKind::ConstantBuffer;
    if (var->init != nullptr) {
      diags_.Report(DiagId::InvalidGlobal, var->init->range,
                    "a 'ConstantBuffer' cannot have an initializer");
    }
    const source::SourceRange& element_range = var->type_expr->type_args[0]->range;
    if (!var->type->IsStruct()) {
      diags_.Report(DiagId::UnsupportedUniformType, element_range, var->type->Name(),
                    "the element of a 'ConstantBuffer' must be a struct");
      return;
    }
    if (var->semantic == "register") {
      CheckRegister(var->semantic_args, var->semantic_range, 'b', "a ConstantBuffer");
    }
    CheckUniformType(var->type, element_range);
    if (const ast::Attribute* push = var->FindAttribute("vk::push_constant")) {
      DeclarePushConstantBlock(var, *push);
    }
    out->resources.push_back(var);
    return;
  }
  if (const ast::Attribute* push = var->FindAttribute("vk::push_constant")) {
    diags_.Report(DiagId::AttributeNotSupportedHere, push->range, push->name,
                  "this declaration (only a 'cbuffer' or a 'ConstantBuffer<T>' can be a "
                  "push-constant block)");
  }
  bool parameter_block = var->type_expr->name == "ParameterBlock";
  if (out != nullptr && !var->is_static && (var->modifiers & ast::kModGroupShared) == 0 &&
      (parameter_block || (var->type->IsStruct() && ContainsResource(var->type)))) {
    return CheckResourceStruct(var, parameter_block, out);
  }
  if ((var->modifiers & ast::kModGroupShared) != 0) {
    if (out == nullptr) return CheckGroupSharedPlacement(var, "a struct member");
    return CheckGroupShared(var, out);
  }
  if (var->type->IsArray() && var->type->Element()->IsBuffer()) {
    // `RWStructuredBuffer<int> bufs[2];`: each element is bound on its own.
    if (var->init != nullptr) {
      diags_.Report(DiagId::InvalidGlobal, var->init->range, "a buffer cannot have an initializer");
    }
    out->resources.push_back(var);
    return;
  }
  if (var->type->IsTexture() || var->type->IsSampler()) {
    if (out == nullptr) return;  // a struct member: bound with its struct or rejected there
    if (var->init != nullptr) {
      diags_.Report(DiagId::InvalidGlobal, var->init->range,
                    "a texture or sampler cannot have an initializer");
    }
    if (var->semantic == "register") {
      bool rw = var->type->IsWritable();
      CheckRegister(var->semantic_args, var->semantic_range,
                    var->type->IsSampler() ? 's' : rw ? 'u' : 't',
                    var->type->IsSampler() ? "a sampler" : rw ? "an RW texture" : "a texture");
    }
    out->resources.push_back(var);
    return;
  }
  if (var->type->IsBuffer()) {
    if (out == nullptr) {  // a struct member
      if (!var->is_const) return;  // a static field: CheckStaticGlobal reports it
      diags_.Report(DiagId::InvalidGlobal, var->name_range, "a buffer cannot be a 'static const' member");
      return;
    }
    if (var->init != nullptr) {
      diags_.Report(DiagId::InvalidGlobal, var->init->range,
                    "a buffer cannot have an initializer");
    }
    if (var->semantic == "register") {
      bool rw = var->type->IsWritable();
      CheckRegister(var->semantic_args, var->semantic_range, rw ? 'u' : 't',
                    rw ? "a RWStructuredBuffer" : "a StructuredBuffer");
    }
    out->buffers.push_back(var);
    out->resources.push_back(var);
    return;
  }
  if (var->is_static && !var->is_const && out == nullptr) return;  // a static field
  if (var->is_static && var->is_const) {
    if (var->init == nullptr) {
      // An extern constant nobody exports is reported where it is used.
      if ((var->modifiers & ast::kModExtern) == 0) {
        diags_.Report(DiagId::MissingInitializer, var->name_range, "static const", var->name);
      }
      return;
    }
    var->init = CheckAs(var->init, var->type);
    static_consts_.push_back(var);
    if (!var->init->type->IsError() && !CheckConstantExpr(var->init)) {
      diags_.Report(DiagId::InvalidGlobal, var->init->range,
                    "the initializer of a 'static const' must be a constant expression");
    }
    return;
  }
  if (var->is_static && out != nullptr) return CheckStaticGlobal(var, out);
  if (out != nullptr) return DeclareGlobalUniform(var, out);
  diags_.Report(DiagId::UnsupportedConstruct, var->name_range,
                "global variables other than buffers and 'static const' constants", "are");
}

void Checker::CheckFunctionSignature(ast::FuncDecl* func) {
  NamespaceScope ns(*this, func);
  ContextScope outer(*this, func->parent);
  std::vector<const Type*> own;
  if (contexts_.count(func) == 0) {
    own = MakeGenericParams(func->generic_params);
    contexts_[func].params = own;
  } else {
    own = contexts_[func].params;
  }
  ContextScope inner(*this, func);
  ResolveConstraints(own);
  func->generic_context.clear();
  if (func->parent != nullptr && contexts_.count(func->parent) != 0) {
    func->generic_context = contexts_[func->parent].params;
  }
  func->own_generic_begin = func->generic_context.size();
  func->result_type = ResolveType(func->return_type);
  if (func->throws_type_expr != nullptr) CheckThrowsClause(func);
  for (ast::VarDecl* param : func->params) {
    CheckGroupSharedPlacement(param, "a parameter");
    allow_pack_type_ = true;
    param->type = ResolveType(param->type_expr);
    allow_pack_type_ = false;
    if (param->type->IsVoid()) {
      diags_.Report(DiagId::VoidValue, param->type_expr->range);
      param->type = types_.Error();
    }
    bool is_requirement = func->parent != nullptr && func->parent->kind == ast::DeclKind::Interface;
    if (param->type->IsInterface() && !is_requirement &&
        param->direction == ast::ParamDirection::In) {
      // An interface-typed parameter accepts any conforming type: the function is
      // generic over a hidden parameter standing for the argument's concrete type, so
      // that every call is specialized for it (static dispatch). An `out` or `inout`
      // one is an existential value: the function may store any conforming type in it.
      auto info = std::make_unique<GenericParamInfo>();
      info->name = param->type->Name();
      info->constraints.push_back(param->type);
      param->type = types_.GenericParam(std::move(info));
      own.push_back(param->type);
    }
  }
  contexts_[func].params = own;
  func->generic_context.insert(func->generic_context.end(), own.begin(), own.end());
  CheckVariadicSignature(func);
  CheckDefaultValues(func);
}

void Checker::CheckFunctionBody(ast::FuncDecl* func) {
  base::IceLocationScope ice(diags_.Sources().Describe(func->name_range.begin));
  current_function_ = func;
  std::vector<ErrorScope> outer_error_scopes = std::move(error_scopes_);
  error_scopes_.clear();
  NamespaceScope ns(*this, func);
  ContextScope outer(*this, func->parent);
  ContextScope inner(*this, func);
  ScopeGuard scope(*this);
  if (func->this_param != nullptr) Declare(func->this_param);
  for (ast::VarDecl* param : func->params) Declare(param);
  BeginOutParams(func);
  bool falls_through = CheckBlock(func->body);
  CheckOutParamsWritten(func);
  if (IsDifferentiableFunction(func)) CheckDifferentiableBody(func);
  bool is_init = func->func_kind == ast::FuncKind::Init;
  if (falls_through && !is_init && func->result_type != nullptr && !func->result_type->IsVoid() &&
      !func->result_type->IsError()) {
    source::SourceLoc end = func->body->range.end;
    if (end.offset > 0) --end.offset;  // point at the closing brace
    diags_.Report(DiagId::MissingReturn, source::SourceRange(end), func->name);
  }
  error_scopes_ = std::move(outer_error_scopes);
  current_function_ = nullptr;
}

std::array<uint32_t, 3> NumThreadsOf(const ast::FuncDecl& entry) {
  std::array<uint32_t, 3> sizes{1, 1, 1};
  if (const ast::Attribute* nt = entry.FindAttribute("numthreads")) {
    for (size_t i = 0; i < nt->args.size() && i < 3; ++i) {
      uint32_t v = 1;
      if (LiteralUInt(nt->args[i], &v)) sizes[i] = v;
    }
  }
  return sizes;
}

uint32_t WaveSizeOf(const ast::FuncDecl& entry) {
  uint32_t size = 0;
  const ast::Attribute* ws = entry.FindAttribute("WaveSize");
  if (ws != nullptr && ws->args.size() == 1 && !LiteralUInt(ws->args[0], &size)) size = 0;
  return size;
}

bool Checker::IsEntryPoint(const ast::FuncDecl& func) const {
  if (func.FindAttribute("shader") != nullptr) return true;
  if (entry_request_ == nullptr || func.owner != nullptr || func.body == nullptr) return false;
  const std::vector<std::string>& names = entry_request_->names;
  return std::find(names.begin(), names.end(), func.name) != names.end();
}

void Checker::CheckRequestedEntries(const std::vector<ast::Decl*>& decls,
                                    const CheckedModule& checked) {
  if (entry_request_ == nullptr || diags_.HasErrors()) return;
  // Functions that look like compute entry points: named in messages that ask for -entry.
  std::vector<const ast::FuncDecl*> candidates;
  for (const ast::Decl* decl : decls) {
    if (decl->kind != ast::DeclKind::Func) continue;
    auto* func = static_cast<const ast::FuncDecl*>(decl);
    if (func->owner == nullptr && func->body != nullptr &&
        func->FindAttribute("numthreads") != nullptr) {
      candidates.push_back(func);
    }
  }
  // An entry point that is nowhere is reported at the start of the file compiled.
  const source::SourceRange file_start(source::SourceLoc{entry_request_->file, 0});
  for (const std::string& name : entry_request_->names) {
    bool found = std::any_of(checked.entry_points.begin(), checked.entry_points.end(),
                             [&](const ast::FuncDecl* f) { return f->name == name; });
    if (found) continue;
    std::string names;
    for (const ast::FuncDecl* c : candidates) names += (names.empty() ? "" : ", ") + c->name;
    // With no candidate, say what the file holds (empty, white space, no function...)
    // and name the functions it has.
    std::vector<const ast::FuncDecl*> functions;
    auto report = diags_.Report(
        DiagId::EntryPointNotFound, file_start, name,
        names.empty() ? DescribeEntrySearch(decls, &functions)
                      : "functions with [numthreads]: " + names);
    for (const ast::FuncDecl* c : candidates) {
      report.Note(DiagId::EntryCandidateHere, c->name_range, c->name);
    }
    NoteFunctionsWithoutShader(report, functions);
  }
  if (!entry_request_->require_one || !entry_request_->names.empty() ||
      !checked.entry_points.empty()) {
    return;
  }
  if (candidates.empty()) {
    ReportNoEntryPoint(decls, file_start);
    return;
  }
  for (const ast::FuncDecl* c : candidates) {
    diags_.Report(DiagId::EntryPointNotMarked, c->name_range, c->name, c->name);
  }
}

void Checker::ReportNoEntryPoint(const std::vector<ast::Decl*>& decls,
                                 source::SourceRange file_start) {
  // Say where the compiler looked and what it found there: nothing, no function, or
  // functions without the attributes (each named in a note).
  std::vector<const ast::FuncDecl*> functions;
  std::string found = DescribeEntrySearch(decls, &functions);
  auto report = diags_.Report(DiagId::NoEntryPoints, file_start, found);
  NoteFunctionsWithoutShader(report, functions);
}

void Checker::NoteFunctionsWithoutShader(diag::DiagBuilder& report,
                                         const std::vector<const ast::FuncDecl*>& functions) {
  // Up to a few functions, the last ones first: an entry point usually ends the file.
  constexpr size_t kMaxNotes = 4;
  for (size_t i = 0; i < functions.size() && i < kMaxNotes; ++i) {
    const ast::FuncDecl* f = functions[functions.size() - 1 - i];
    source::LineCol at = diags_.Sources().GetLineCol(f->name_range.begin);
    report.Note(DiagId::FunctionWithoutShader, f->name_range, f->name,
                std::to_string(at.line) + ":" + std::to_string(at.column));
  }
}

std::string Checker::DescribeEntrySearch(const std::vector<ast::Decl*>& decls,
                                         std::vector<const ast::FuncDecl*>* functions) const {
  const source::FileId file = entry_request_->file;
  bool any_decl = false;
  for (const ast::Decl* decl : decls) {
    if (file == 0 || decl->name_range.begin.file != file) continue;  // the core library
    any_decl = true;
    if (decl->kind != ast::DeclKind::Func) continue;
    auto* func = static_cast<const ast::FuncDecl*>(decl);
    if (func->owner == nullptr && func->body != nullptr) functions->push_back(func);
  }
  std::string_view text = file != 0 ? diags_.Sources().Text(file) : std::string_view();
  bool blank = std::all_of(text.begin(), text.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  });
  if (text.empty()) return "the file is empty";
  if (blank) return "the file holds only white space";
  if (!any_decl) return "the file declares nothing";
  if (functions->empty()) return "the file declares no function with a body";
  return "no function has [numthreads] or [shader(\"compute\")]";
}

void Checker::CheckEntryPoint(ast::FuncDecl* func) {
  const ast::Attribute* shader = func->FindAttribute("shader");
  std::string stage = entry_request_ != nullptr ? entry_request_->stage : "compute";
  source::SourceRange stage_range = func->name_range;
  if (shader != nullptr) {
    stage.clear();
    stage_range = shader->range;
    if (shader->args.size() == 1 && shader->args[0]->kind == ast::ExprKind::StringLiteral) {
      stage = static_cast<const ast::StringLiteralExpr*>(shader->args[0])->value;
    }
  }
  bool is_compute = stage == "compute";
  if (!is_compute) {
    diags_.Report(DiagId::UnsupportedStage, stage_range, stage);
    return;
  }
  ast::Attribute* nt = nullptr;
  for (ast::Attribute& a : func->attributes) {
    if (a.name == "numthreads" && nt == nullptr) nt = &a;
  }
  if (nt == nullptr) {
    diags_.Report(DiagId::EntryPointMissingNumThreads, func->name_range, func->name);
  } else {
    // `[numthreads(kGroupSize, 1, 1)]` with a `static const`: its value, as a literal
    // from here on (NumThreadsOf reads literals).
    bool spec_reported = false;
    for (size_t i = 0; i < nt->args.size(); ++i) {
      ast::Expr*& arg = nt->args[i];
      if (arg->kind == ast::ExprKind::IntLiteral) continue;
      if (i < 3 && NumThreadsSpecConstant(func, i, arg)) continue;
      if (!FoldAttributeConstant(arg) && !spec_reported) {
        // Only a specialization constant named alone sizes the workgroup when the
        // pipeline is made (SPIR-V's WorkgroupSize); an expression of one cannot.
        spec_reported = ReportSpecConstantUse(arg, "[numthreads]");
      }
    }
    bool ok = !nt->args.empty() && nt->args.size() <= 3;
    uint64_t total = 1;
    for (const ast::Expr* arg : nt->args) {
      uint32_t v = 0;
      if (!LiteralUInt(arg, &v) || v == 0 || v > 1024) {
        ok = false;
      } else {
        total *= v;
      }
    }
    if ((!ok || total > 1024) && !spec_reported) {
      diags_.Report(DiagId::InvalidAttributeArgs, nt->range, "numthreads",
                    "one to three integer literals from 1 to 1024 whose product is at most 1024");
    }
  }
  CheckWaveSize(func);
  if (func->result_type != nullptr && !func->result_type->IsVoid() &&
      !func->result_type->IsError()) {
    diags_.Report(DiagId::InvalidEntryParameter, func->return_type->range, func->name,
                  "must return 'void'");
  }
  // A compute kernel's parameter without a semantic is uniform, `uniform` or not
  // (`void computeMain(uint3 tid : SV_DispatchThreadID, TensorView<float> t)`), as slangc
  // reads it.
  for (ast::VarDecl* param : func->params) {
    if (param->semantic.empty() && param->direction == ast::ParamDirection::In &&
        !param->type->IsError()) {
      param->is_uniform = true;
    }
  }
  if (!func->generic_params.empty()) {
    // slangc specializes a generic entry point through its API or `-entry f<Args>`;
    // nothing here names the arguments.
    diags_.Report(DiagId::UnsupportedConstruct, func->generic_params[0]->name_range,
                  "a generic entry point (specialize it in a non-generic kernel that calls it)",
                  "is");
    return;
  }
  for (ast::VarDecl* param : func->params) {
    if (param->type->IsError()) continue;
    if (param->type->IsDependent()) {
      // An interface-typed parameter is a generic one for Slope: the type that conforms is
      // chosen at compile time, and an entry point has no caller to choose it.
      diags_.Report(DiagId::InvalidEntryParameter, param->type_expr->range, param->name,
                    "has interface type '" + param->type_expr->name +
                        "', a shader object chosen at run time, which Slope does not lay out; "
                        "give it a concrete type that conforms to the interface");
      continue;
    }
    const std::string& sem = param->semantic;
    bool is_uint3 = param->type == types_.Vector(types_.UInt(), 3) ||
                    param->type == types_.Vector(types_.Int(), 3);
    bool is_uint = param->type == types_.UInt() || param->type == types_.Int();
    if (param->is_uniform) {
      CheckUniformEntryParam(func, param);
    } else if (sem.empty()) {
      diags_.Report(DiagId::InvalidEntryParameter, param->name_range, param->name,
                    "needs a system-value semantic such as ': SV_DispatchThreadID'");
    } else if (sem == "SV_DispatchThreadID" || sem == "SV_GroupThreadID" || sem == "SV_GroupID") {
      if (!is_uint3 && !is_uint) {
        diags_.Report(DiagId::InvalidEntryParameter, param->name_range, param->name,
                      "with semantic " + sem + " must have type 'uint3' or 'uint'");
      }
    } else if (sem == "SV_GroupIndex") {
      if (!is_uint) {
        diags_.Report(DiagId::InvalidEntryParameter, param->name_range, param->name,
                      "with semantic SV_GroupIndex must have type 'uint'");
      }
    } else {
      diags_.Report(DiagId::InvalidEntryParameter, param->semantic_range, param->name,
                    "has unknown semantic '" + sem + "'");
    }
  }
}

void Checker::CheckRecursion(const std::vector<ast::FuncDecl*>& functions) {
  // Depth-first search over the call graph in source order; a back edge is a cycle.
  enum class Mark { None, Active, Done };
  std::map<ast::FuncDecl*, Mark> marks;
  std::vector<ast::FuncDecl*> stack;
  std::set<ast::FuncDecl*> reported;
  std::function<void(ast::FuncDecl*)> visit = [&](ast::FuncDecl* f) {
    marks[f] = Mark::Active;
    stack.push_back(f);
    for (auto& [callee, range] : calls_[f]) {
      Mark m = marks[callee];
      if (m == Mark::Active) {
        if (reported.insert(callee).second) {
          std::string cycle;
          size_t start = 0;
          while (stack[start] != callee) ++start;
          for (size_t i = start; i < stack.size(); ++i) cycle += "'" + stack[i]->name + "' calls ";
          cycle += "'" + callee->name + "'";
          diags_.Report(DiagId::RecursiveCall, range, cycle);
        }
      } else if (m == Mark::None) {
        visit(callee);
      }
    }
    stack.pop_back();
    marks[f] = Mark::Done;
  };
  for (ast::FuncDecl* f : functions) {
    if (marks[f] == Mark::None) visit(f);
  }
}

// ---------------------------------------------------------------------------------------
// Statements

const char* JumpKeyword(const ast::Stmt* stmt) {
  return stmt->kind == ast::StmtKind::Break      ? "break"
         : stmt->kind == ast::StmtKind::Continue ? "continue"
                                                  : "return";
}

bool Checker::CheckBlock(ast::BlockStmt* block) {
  ScopeGuard scope(*this);
  bool reachable = true;
  bool warned = false;
  const char* ender = "return";
  for (ast::Stmt* stmt : block->stmts) {
    if (!reachable && !warned && stmt->kind != ast::StmtKind::Empty) {
      diags_.Report(DiagId::UnreachableCode, stmt->range, ender);
      warned = true;
    }
    bool next = CheckStmt(stmt);
    if (reachable && !next) ender = JumpKeyword(stmt);
    reachable = reachable && next;
    if (diags_.LimitReached()) break;
  }
  return reachable;
}

void Checker::CheckLocalVar(ast::VarDecl* var) {
  CheckGroupSharedPlacement(var, "a local variable");
  if (var->type_expr != nullptr) {
    var->type = InferArraySize(var);
    if (var->type->IsVoid()) {
      diags_.Report(DiagId::VoidValue, var->type_expr->range);
      var->type = types_.Error();
    }
    if (var->type->IsInterface()) {
      CheckInterfaceLocal(var);
      return;
    }
    if (var->init != nullptr) var->init = CheckAs(var->init, var->type);
    if (var->init == nullptr && var->type->IsStruct()) var->init = DefaultConstruction(var);
    if (var->init == nullptr && var->type->IsGenericParam()) {
      var->init = GenericDefaultConstruction(var);
    }
  } else if (var->init != nullptr) {
    var->init = CheckExpr(var->init);
    // `if (let x = c)` on a `Conditional<T, b>` tests its Optional<T> (parse_stmt.cpp
    // names the value the statement holds `x$opt`).
    if (var->name.ends_with("$opt") && TypeContext::IsCoreConditional(var->init->type) &&
        core_yielding_.contains("Conditional") &&
        var->init->type->Info()->decl == core_yielding_.at("Conditional")) {
      var->init = ConditionalGet(var->init);
    }
    var->type = var->init->type;
    if (var->type->IsVoid()) {
      diags_.Report(DiagId::VoidValue, var->init->range);
      var->type = types_.Error();
    } else if (var->type->IsPointer() && var->type->Element()->IsVoid()) {
      diags_.Report(DiagId::NullptrWithoutType, var->init->range);
      var->type = types_.Error();
    }
  } else {
    diags_.Report(DiagId::MissingInitializer, var->name_range, var->is_let ? "let" : "var",
                  var->name);
    var->type = types_.Error();
  }
  if (var->is_let && var->init == nullptr && var->type_expr != nullptr) {
    diags_.Report(DiagId::MissingInitializer, var->name_range, "let", var->name);
  }
  Declare(var);
}

void Checker::CheckLoopBody(ast::Stmt* body) {
  ++loop_depth_;
  {
    ScopeGuard scope(*this);
    CheckStmt(body);
  }
  --loop_depth_;
}

bool Checker::CheckStmt(ast::Stmt* stmt) {
  if (stmt == nullptr) return true;
  bool is_loop = stmt->kind == ast::StmtKind::For || stmt->kind == ast::StmtKind::While ||
                 stmt->kind == ast::StmtKind::DoWhile;
  if (is_loop) {
    // Loop hints are accepted; they do not change the meaning of the loop ([unroll] and
    // [ForceUnroll] reach the IR's `loop` for the unroll pass, [MaxIters(n)] as the
    // bound reverse-mode differentiation will size per-iteration storage by).
    // `[MaxIters(N)]` names a generic value parameter (its value once specialized) or a
    // constant (folded to a literal here).
    for (ast::Attribute& a : stmt->attributes) {
      if (a.name != "MaxIters" || a.args.size() != 1 ||
          a.args[0]->kind == ast::ExprKind::IntLiteral) {
        continue;
      }
      if (a.args[0]->kind == ast::ExprKind::Name) {
        a.args[0] = CheckExpr(a.args[0]);
        if (IsGenericValueName(a.args[0])) continue;
      }
      FoldAttributeConstant(a.args[0]);
    }
    CheckAttributes(stmt->attributes, {"unroll", "loop", "ForceUnroll", "MaxIters", "__label"},
                    "a loop");
  } else if (stmt->kind == ast::StmtKind::Break || stmt->kind == ast::StmtKind::Continue) {
    CheckAttributes(stmt->attributes, {"__label"}, "a statement");  // `break outer;`
  } else {
    CheckAttributes(stmt->attributes, {}, "a statement");
  }
  switch (stmt->kind) {
    case ast::StmtKind::Block:
      return CheckBlock(static_cast<ast::BlockStmt*>(stmt));
    case ast::StmtKind::Decl:
      for (ast::VarDecl* var : static_cast<ast::DeclStmt*>(stmt)->vars) CheckLocalVar(var);
      return true;
    case ast::StmtKind::Expr: {
      auto* s = static_cast<ast::ExprStmt*>(stmt);
      // `expand sum += each v;`: once per element, in order.
      s->expr = s->expr->kind == ast::ExprKind::Pack
                    ? CheckPackExpr(static_cast<ast::PackExpr*>(s->expr), true)
                    : CheckExpr(s->expr);
      return true;
    }
    case ast::StmtKind::If: {
      auto* s = static_cast<ast::IfStmt*>(stmt);
      s->cond = CoerceToBool(CheckExpr(s->cond));
      bool then_falls, else_falls = true;
      {
        ScopeGuard scope(*this);
        // `if (T is IFoo)`: the branch may use T's optional conformance (check_optional.cpp).
        auto [param, iface] = ConformanceGuard(s);
        if (param != nullptr) GrantConformance(param, iface);
        then_falls = CheckStmt(s->then_stmt);
        if (param != nullptr) RevokeConformance(param);
      }
      if (s->else_stmt != nullptr) {
        ScopeGuard scope(*this);
        else_falls = CheckStmt(s->else_stmt);
      }
      return then_falls || else_falls;
    }
    case ast::StmtKind::For: {
      auto* s = static_cast<ast::ForStmt*>(stmt);
      ScopeGuard scope(*this);
      CheckStmt(s->init);
      if (s->cond != nullptr) s->cond = CoerceToBool(CheckExpr(s->cond));
      in_loop_continue_ = &s->step_throws;  // see CheckTryCall
      if (s->step != nullptr) s->step = CheckExpr(s->step);
      in_loop_continue_ = nullptr;
      CheckLoopBody(s->body);
      return true;
    }
    case ast::StmtKind::While: {
      auto* s = static_cast<ast::WhileStmt*>(stmt);
      s->cond = CoerceToBool(CheckExpr(s->cond));
      CheckLoopBody(s->body);
      return true;
    }
    case ast::StmtKind::DoWhile: {
      auto* s = static_cast<ast::DoWhileStmt*>(stmt);
      CheckLoopBody(s->body);
      in_loop_continue_ = &s->cond_throws;
      s->cond = CoerceToBool(CheckExpr(s->cond));
      in_loop_continue_ = nullptr;
      return true;
    }
    case ast::StmtKind::Return: {
      auto* s = static_cast<ast::ReturnStmt*>(stmt);
      CheckJumpFromDefer(stmt);
      // An `__init` returns the object it builds; its `return` statements take no value.
      const Type* expected = current_function_->func_kind == ast::FuncKind::Init
                                 ? types_.Void()
                                 : current_function_->result_type;
      if (expected == nullptr) {
        // A lambda's first `return` gives its result type (check_lambda.cpp).
        if (s->value != nullptr) s->value = CheckExpr(s->value);
        current_function_->result_type = s->value != nullptr ? s->value->type : types_.Void();
        return false;
      }
      if (s->value != nullptr) {
        if (s->value->kind == ast::ExprKind::InitList && !expected->IsVoid()) {
          s->value = CheckAs(s->value, expected);
          return false;
        }
        s->value = CheckExpr(s->value);
        if (expected->IsVoid() && !s->value->type->IsError()) {
          diags_.Report(DiagId::ReturnTypeMismatch, s->value->range,
                        "function '" + current_function_->name +
                            "' returns 'void' and cannot return a value");
        } else if (!expected->IsError()) {
          s->value = Coerce(s->value, expected);
        }
      } else if (!expected->IsVoid() && !expected->IsError()) {
        diags_.Report(DiagId::ReturnTypeMismatch, s->range,
                      "function '" + current_function_->name + "' must return a value of type '" +
                          expected->Name() + "'");
      }
      return false;
    }
    case ast::StmtKind::Break:
      CheckJumpFromDefer(stmt);
      // `break outer;` leaves the labeled loop (the parser checked that one encloses it).
      for (const ast::Attribute& a : stmt->attributes) {
        if (a.name == "__label") return false;
      }
      // Inside a switch and no loop nested in it, `break` leaves the switch.
      if (!switches_.empty() && switches_.back().loop_depth == loop_depth_) {
        switches_.back().broken = true;
      } else if (loop_depth_ == 0) {
        diags_.Report(DiagId::BreakOutsideLoop, stmt->range, "break", "a loop or a switch");
      }
      return false;
    case ast::StmtKind::Continue:
      CheckJumpFromDefer(stmt);
      if (loop_depth_ == 0) {
        diags_.Report(DiagId::BreakOutsideLoop, stmt->range, "continue", "a loop");
      }
      return false;
    case ast::StmtKind::Empty:
      return true;
    case ast::StmtKind::Switch:
      return CheckSwitch(static_cast<ast::SwitchStmt*>(stmt));
    case ast::StmtKind::Case:
      // Labels directly in a switch body are taken apart by CheckSwitch.
      diags_.Report(DiagId::CaseOutsideSwitch, stmt->range,
                    static_cast<ast::CaseStmt*>(stmt)->value != nullptr ? "case" : "default");
      return true;
    case ast::StmtKind::Throw:
      return CheckThrow(static_cast<ast::ThrowStmt*>(stmt));
    case ast::StmtKind::DoCatch:
      return CheckDoCatch(static_cast<ast::DoCatchStmt*>(stmt));
    case ast::StmtKind::Defer:
      return CheckDefer(static_cast<ast::DeferStmt*>(stmt));
  }
  return true;
}

bool CheckModule(ast::Module& module, ast::AstContext& ctx, TypeContext& types,
                 diag::DiagEngine& diags, CheckedModule* out, const ModuleMap* modules,
                 const EntryRequest* entries) {
  out->types = &types;
  auto checker = std::make_shared<Checker>(ctx, types, diags);
  checker->SetModuleMap(modules);
  checker->SetEntryRequest(entries);
  bool ok = checker->Run(module, out);
  if (ok && checker->HasDeferredBodies()) {
    out->check_deferred_body = [checker](const ast::FuncDecl* f) {
      return checker->CheckDeferredBody(f);
    };
  }
  return ok;
}

}  // namespace slope::sema

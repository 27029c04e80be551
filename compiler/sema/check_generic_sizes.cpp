// Array sizes that generic value arguments give: `struct S<let N : int> { int a[N]; }`
// used as `S<2147483647>`, or `f<0>()` where f declares `int b[N]`. Sema checks generic
// bodies once, in terms of their parameters; the sizes are known only where concrete
// arguments are given. Those uses are recorded while checking and walked at the end,
// through the structs and generic calls they reach, each combination once.

#include <functional>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {
/// The largest array ApplyArrayDims accepts (check_array.cpp): the same limit holds for
/// sizes that come from generic arguments.
constexpr int64_t kMaxArraySize = 1 << 20;
}  // namespace

void Checker::RecordGenericUse(const Type* type) {
  if (current_function_ == nullptr || type == nullptr || !type->IsDependent()) return;
  GenericUses& uses = generic_uses_[current_function_];
  if (uses.seen.insert(type).second) uses.types.push_back(type);
}

void Checker::RecordGenericCall(ast::FuncDecl* func, const Subst& bindings,
                                source::SourceRange at) {
  if (bindings.empty()) return;
  bool dependent = false;
  for (const auto& [param, arg] : bindings) dependent = dependent || arg->IsDependent();
  if (!dependent) {
    concrete_calls_.push_back({func, bindings, at});
  } else if (current_function_ != nullptr) {
    generic_uses_[current_function_].calls.emplace_back(func, bindings);
  }
}

bool Checker::GenericSizesFit(const Type* pattern, const Subst& subst, const std::string& owner,
                              source::SourceRange at, std::set<const Type*>* structs_seen) {
  // `T[N][M]`: the sizes multiply, as in ApplyArrayDims.
  int64_t total = 1;
  const GenericParamInfo* param = nullptr;  // the last generic size met
  int64_t param_value = 0;
  const Type* t = pattern;
  for (; t->IsArray(); t = t->Element()) {
    int64_t n = t->Count();
    if (t->LengthParam() != nullptr) {
      const Type* length = types_.Substitute(t->LengthParam(), subst);
      if (length->Kind() != TypeKind::IntValue) return true;  // still generic here
      n = length->Value();
      if (t->LengthParam()->IsGenericParam()) {
        param = t->LengthParam()->Generic();
        param_value = n;
      }
    }
    if (param == nullptr) {
      if (n >= 1 && n <= kMaxArraySize) total *= n;  // a fixed size, checked where written
      continue;
    }
    // Both factors are at most kMaxArraySize when multiplied: no overflow.
    if (n < 1 || n > kMaxArraySize || (total *= n) > kMaxArraySize) {
      diags_.Report(DiagId::GenericArraySize, at, owner, n < 1 || n > kMaxArraySize ? n : total,
                    param->name, param_value, kMaxArraySize);
      return false;
    }
  }
  if (!t->IsStruct()) return true;
  const Type* concrete = types_.Substitute(t, subst);
  if (!concrete->IsStruct() || concrete->IsDependent() || !structs_seen->insert(concrete).second) {
    return true;
  }
  Subst inner = types_.StructSubst(concrete);
  for (ast::VarDecl* field : concrete->Info()->fields) {
    if (field->type == nullptr || field->type->IsError()) continue;
    if (!GenericSizesFit(field->type, inner, concrete->Name(), at, structs_seen)) return false;
  }
  return true;
}

void Checker::CheckGenericArraySizes() {
  std::set<const Type*> structs_seen;
  for (const ConcreteType& use : concrete_types_) {
    GenericSizesFit(use.pattern, use.bindings, use.name, use.at, &structs_seen);
  }
  // A generic function's body under concrete arguments, and the generic functions it
  // calls under the arguments composed through it.
  std::set<std::pair<const ast::FuncDecl*, Subst>> done;
  std::function<bool(const ast::FuncDecl*, const Subst&, source::SourceRange)> walk =
      [&](const ast::FuncDecl* func, const Subst& bindings, source::SourceRange at) {
        if (!done.insert({func, bindings}).second) return true;
        auto it = generic_uses_.find(func);
        if (it == generic_uses_.end()) return true;
        for (const Type* type : it->second.types) {
          if (!GenericSizesFit(type, bindings, func->name, at, &structs_seen)) return false;
        }
        for (const ast::PackExpr* query : it->second.size_queries) {
          if (!SizeOfFits(query, bindings, func->name)) return false;
        }
        for (const auto& [callee, callee_bindings] : it->second.calls) {
          Subst composed;
          for (const auto& [param, arg] : callee_bindings) {
            composed[param] = types_.Substitute(arg, bindings);
          }
          if (!walk(callee, composed, at)) return false;
        }
        return true;
      };
  for (const ConcreteCall& call : concrete_calls_) walk(call.func, call.bindings, call.at);
}

}  // namespace slope::sema

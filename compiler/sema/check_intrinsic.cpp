// Intrinsic functions of the core library and the typing rules they need: the
// `[__intrinsic_op("name")]` attribute that binds a declaration to an IR intrinsic,
// `vector<T, N>` over generic parameters, and HLSL's argument promotion when a generic
// parameter is inferred from several numeric arguments.

#include <algorithm>

#include "compiler/ir/ir.h"
#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

void Checker::CheckIntrinsicAttribute(ast::FuncDecl* func) {
  const ast::Attribute* attr = func->FindAttribute("__intrinsic_op");
  if (attr == nullptr) return;
  auto report = [&](const std::string& why) {
    diags_.Report(DiagId::InvalidIntrinsic, attr->range, func->name, why);
  };
  if (attr->args.size() != 1 || attr->args[0]->kind != ast::ExprKind::StringLiteral) {
    return report("it takes the name of an intrinsic as a string");
  }
  const std::string& name = static_cast<const ast::StringLiteralExpr*>(attr->args[0])->value;
  if (func->body != nullptr) return report("an intrinsic function has no body");
  ir::Intrinsic which{};
  if (ir::FindIntrinsic(name, &which)) {
    func->intrinsic_op = static_cast<int>(which);
    return;
  }
  // "atomic_add", "barrier_group_sync", "wave_sum": an operation of those instructions.
  for (auto [prefix, op] : {std::pair<std::string_view, ir::Op>{"atomic_", ir::Op::Atomic},
                            {"barrier_", ir::Op::Barrier},
                            {"wave_", ir::Op::Wave}}) {
    uint32_t imm = 0;
    if (name.rfind(prefix, 0) == 0 && ir::FindSyncOp(op, name.substr(prefix.size()), &imm)) {
      func->intrinsic_inst = static_cast<int>(op);
      func->intrinsic_op = static_cast<int>(imm);
      return;
    }
  }
  report("there is no intrinsic named '" + name + "'");
}

const Type* Checker::ResolveVectorType(ast::TypeExpr* te) {
  const Type* element = ResolveType(te->type_args[0]);
  if (element->IsError()) return element;
  // The count is a literal, a constant or a value parameter (which parses as a type).
  const Type* count = nullptr;
  if (!te->value_args.empty()) {
    count = GenericValueArg(te->value_args[0]);
  } else {
    count = ResolveType(te->type_args[1]);
    if (!count->IsError() &&
        !(count->IsGenericParam() && count->Generic()->value_type != nullptr)) {
      count = nullptr;
    }
  }
  if (count != nullptr && count->IsError()) return count;
  bool element_ok = element->IsScalar() ||
                    (element->IsGenericParam() && element->Generic()->value_type == nullptr);
  bool count_ok = count != nullptr && (count->Kind() != TypeKind::IntValue ||
                                       (count->Value() >= 1 && count->Value() <= 4));
  if (!element_ok || !count_ok) {
    diags_.Report(DiagId::InvalidAttributeArgs, te->range, "vector",
                  "a scalar type and an element count from 1 to 4");
    return types_.Error();
  }
  if (count->Kind() == TypeKind::IntValue && element->IsScalar()) {
    return types_.Vector(element, static_cast<uint32_t>(count->Value()));
  }
  return types_.DependentVector(element, count);
}

void Checker::JoinNumericArgs(const ast::FuncDecl* f, const std::vector<const Type*>& own,
                              const ast::CallExpr* call, Subst* bindings) {
  // `max(0, x)` with x a float: T is the common type of every argument bound to T, as HLSL's
  // built-in functions promote their arguments.
  Subst joined;
  // An `out` or `inout` argument must have its parameter's type exactly: the first one
  // binds its parameter's type, and the other arguments convert to it.
  // Parameters left to their default values bind nothing.
  for (size_t i = 0; i < f->params.size() && i < call->args.size(); ++i) {
    const Type* declared = f->params[i]->type;
    const Type* arg = call->args[i]->type;
    if (f->params[i]->direction == ast::ParamDirection::In || bindings->count(declared) != 0 ||
        !arg->IsNumericLike() || std::find(own.begin(), own.end(), declared) == own.end()) {
      continue;
    }
    (*bindings)[declared] = arg;
  }
  // Parameters left to their default values bind nothing.
  for (size_t i = 0; i < f->params.size() && i < call->args.size(); ++i) {
    const Type* declared = f->params[i]->type;
    const Type* arg = call->args[i]->type;
    if (bindings->count(declared) != 0 || !arg->IsNumericLike()) continue;
    if (std::find(own.begin(), own.end(), declared) == own.end()) continue;
    auto [it, inserted] = joined.emplace(declared, arg);
    if (!inserted) {
      const Type* common = CommonType(it->second, arg);
      it->second = common != nullptr && !common->IsError() ? common : it->second;
    }
  }
  for (auto& [p, t] : joined) (*bindings)[p] = t;
}

bool Checker::PromoteToFloat(const std::vector<const Type*>& own, const std::string& name,
                             const ast::CallExpr* call, Subst* bindings) {
  // `sqrt(4)`: an integer argument becomes float when the constraint asks for floats (a bool
  // stays a bool: it is no number to promote).
  Subst promoted = *bindings;
  bool changed = false;
  for (const Type* p : own) {
    auto it = promoted.find(p);
    if (it == promoted.end() || !it->second->IsNumericLike()) continue;
    TypeKind kind = it->second->ScalarType()->Kind();
    if (kind != TypeKind::Int && kind != TypeKind::UInt) continue;
    it->second = types_.WithScalar(it->second, types_.Float());
    changed = true;
  }
  if (!changed || !CheckConstraints(own, promoted, name, call->range, false)) return false;
  *bindings = std::move(promoted);
  return true;
}

}  // namespace slope::sema

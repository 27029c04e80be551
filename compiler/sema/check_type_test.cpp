// `value is T` and `value as T` on values of interface type.
//
// `is` asks whether the value's concrete type is T; `as` gives the core library's
// `Optional<T>`, holding the value when it is a T. T must conform to the interface: a
// value of the interface type could never hold anything else.

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

ast::Expr* Checker::CheckTypeTest(ast::TypeTestExpr* expr) {
  if (const Type* named = TypeNamedBy(expr->operand)) {
    // `T is half`: a question about a type, answered when T is specialized.
    expr->operand_type = named;
    const Type* target = ResolveType(expr->target);
    expr->target_type = target;
    if (expr->is_cast) {
      diags_.Report(DiagId::TypeTestNeedsValue, expr->range, named->Name());
      expr->type = types_.Error();
      return expr;
    }
    bool ok =
        !target->IsError() && (!target->IsInterface() || CheckConformanceTest(expr, named, target));
    expr->type = ok ? types_.Bool() : types_.Error();
    return expr;
  }
  expr->operand = CheckExpr(expr->operand);
  const Type* target = ResolveType(expr->target);
  expr->target_type = target;
  expr->type = types_.Error();
  const Type* from = expr->operand->type;
  if (from->IsError() || target->IsError()) return expr;
  // An interface-typed local takes its initializer's type and an interface-typed
  // parameter is a hidden type parameter (static dispatch): for those the answer is
  // known once the code is specialized; a true existential (an interface-typed field or
  // array element) carries its type's tag.
  bool generic = from->Kind() == TypeKind::GenericParam;
  if (!from->IsInterface() && !from->IsStruct() && !generic) {
    diags_.Report(DiagId::TypeTestNeedsInterface, expr->operand->range,
                  expr->is_cast ? "as" : "is", from->Name());
    return expr;
  }
  if (generic && target->IsInterface()) {
    // `t is IFoo` / `t as IFoo` of a parameter that may conform (check_optional.cpp):
    // a bool, or an Optional holding t itself.
    if (!CheckConformanceTest(expr, from, target)) return expr;
    if (!expr->is_cast) {
      expr->type = types_.Bool();
      return expr;
    }
    auto core = core_yielding_.find("Optional");
    if (core == core_yielding_.end() || core->second->kind != ast::DeclKind::Struct) {
      diags_.Report(DiagId::OptionalHidden, expr->range);
      return expr;
    }
    expr->type = types_.StructOf(StructTypeOf(core->second)->Info(), {from});
    return expr;
  }
  std::vector<const Type*> ifaces;
  if (from->IsInterface()) ifaces.push_back(from);
  if (generic) ifaces = from->Generic()->constraints;
  for (const Type* iface : ifaces) {
    if (target->IsInterface() || !types_.Conforms(target, iface)) {
      diags_.Report(DiagId::TypeTestNotConforming, expr->target->range, iface->Name(),
                    target->Name(), target->Name());
      return expr;
    }
  }
  if (!expr->is_cast) {
    expr->type = types_.Bool();
    return expr;
  }
  auto found = core_yielding_.find("Optional");
  ast::Decl* optional = found != core_yielding_.end() ? found->second : nullptr;
  if (optional == nullptr || optional->kind != ast::DeclKind::Struct) {
    diags_.Report(DiagId::OptionalHidden, expr->range);
    return expr;
  }
  ast::TypeExpr te;
  te.name = "Optional";
  te.range = expr->target->range;
  te.type_args = {expr->target};
  expr->type = ApplyGeneric(&te, optional);
  return expr;
}

}  // namespace slope::sema

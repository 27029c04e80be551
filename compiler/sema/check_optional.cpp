// `where optional T : IFoo`: a generic parameter that may conform to an interface.
//
// The generic accepts arguments that do not conform. Its body uses the conformance only
// inside `if (T is IFoo)` (or `t is IFoo`) and `if (let v = t as IFoo)`: while that branch
// is checked, IFoo is one of T's constraints; elsewhere a use of it is E3742. The test is
// a constant in each specialization, so lowering compiles only the branch it takes
// (lower.cpp's LowerIf), and a branch using IFoo is never compiled for a type without it.

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

bool Checker::DeclaresConformance(const Type* param, const Type* iface) {
  const GenericParamInfo* info = param->Generic();
  for (const auto* list : {&info->constraints, &info->optional_constraints}) {
    for (const Type* c : *list) {
      if (types_.Inherits(c, iface)) return true;
    }
  }
  return false;
}

bool Checker::CheckConformanceTest(ast::TypeTestExpr* expr, const Type* tested,
                                   const Type* target) {
  if (!tested->IsDependent()) return true;  // known here; lowering answers it
  if (tested->Kind() == TypeKind::GenericParam && DeclaresConformance(tested, target)) {
    return true;
  }
  std::string test = expr->is_cast ? "as" : "is";
  diags_.Report(DiagId::ConformanceTestUndeclared, expr->range, test, tested->Name(),
                target->Name(), tested->Name(), target->Name());
  return false;
}

std::pair<const Type*, const Type*> Checker::ConformanceGuard(ast::IfStmt* s) {
  auto interface_test = [](const ast::Expr* e) -> const ast::TypeTestExpr* {
    if (e->kind != ast::ExprKind::TypeTest) return nullptr;
    auto* test = static_cast<const ast::TypeTestExpr*>(e);
    bool iface = test->target_type != nullptr && test->target_type->IsInterface();
    return iface && !test->type->IsError() ? test : nullptr;
  };
  auto tested = [](const ast::TypeTestExpr* test) {
    return test->operand_type != nullptr ? test->operand_type : test->operand->type;
  };
  if (const ast::TypeTestExpr* test = interface_test(s->cond); test != nullptr && !test->is_cast) {
    const Type* t = tested(test);
    if (t->Kind() == TypeKind::GenericParam) return {t, test->target_type};
    return {nullptr, nullptr};
  }
  // `if (let v = t as IFoo)` reads `{ let v$opt = t as IFoo; if (v$opt.hasValue) ... }`
  // (parse_stmt.cpp): the condition becomes the test `T is IFoo` itself.
  if (s->cond->kind != ast::ExprKind::Member) return {nullptr, nullptr};
  auto* has = static_cast<ast::MemberExpr*>(s->cond);
  if (has->member != "hasValue" || has->base->kind != ast::ExprKind::Name) {
    return {nullptr, nullptr};
  }
  const ast::Decl* held = static_cast<const ast::NameExpr*>(has->base)->decl;
  if (held == nullptr || held->kind != ast::DeclKind::Var || !held->name.ends_with("$opt")) {
    return {nullptr, nullptr};
  }
  const ast::Expr* init = static_cast<const ast::VarDecl*>(held)->init;
  const ast::TypeTestExpr* cast = init != nullptr ? interface_test(init) : nullptr;
  if (cast == nullptr || !cast->is_cast || tested(cast)->Kind() != TypeKind::GenericParam) {
    return {nullptr, nullptr};
  }
  auto* test = ctx_.New<ast::TypeTestExpr>(s->cond->range, cast->operand, cast->target, false);
  test->operand_type = tested(cast);
  test->target_type = cast->target_type;
  test->type = types_.Bool();
  s->cond = test;
  return {test->operand_type, test->target_type};
}

void Checker::GrantConformance(const Type* param, const Type* iface) {
  param->Generic()->constraints.push_back(iface);
  types_.ExtensionsChanged();  // blanket extensions may now apply to it
}

void Checker::RevokeConformance(const Type* param) {
  param->Generic()->constraints.pop_back();
  types_.ExtensionsChanged();
}

bool Checker::ReportOptionalUse(const Type* owner, const std::string& what,
                                const std::function<bool(const Type*)>& offers,
                                source::SourceRange range) {
  if (owner->Kind() != TypeKind::GenericParam) return false;
  for (const Type* iface : owner->Generic()->optional_constraints) {
    if (!offers(iface)) continue;
    const std::string t = owner->Name();
    const std::string i = iface->Name();
    diags_.Report(DiagId::OptionalConformanceUse, range, what, t, i, t, i, t, i, i);
    return true;
  }
  return false;
}

}  // namespace slope::sema

// `sizeof(x)` and `alignof(x)`: compile-time `int` constants, the size and alignment in
// bytes of a type (or of a value's type) in Slang's natural layout
// (TypeContext::NaturalLayout). In a generic body the type may still name a parameter:
// the question is answered when the code is specialized, and checked for every
// specialization the program makes (check_generic_sizes.cpp).

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {
const char* QueryName(const ast::PackExpr* e) {
  return e->form == ast::PackExpr::kSizeOf ? "sizeof" : "alignof";
}
}  // namespace

ast::Expr* Checker::CheckSizeOf(ast::PackExpr* e) {
  if (e->pack != nullptr) {  // checked before
    e->type = types_.Int();
    return e;
  }
  e->type = types_.Error();
  const Type* queried = nullptr;
  if (e->type_arg != nullptr) {
    queried = ResolveType(e->type_arg);
  } else if (const Type* named = TypeNamedBy(e->operand)) {
    queried = named;
  } else {
    // `P[3]` on a struct P, a type alias or an enum: read as a type.
    std::vector<ast::Expr*> dims;
    ast::Expr* base = e->operand;
    for (; base->kind == ast::ExprKind::Index; base = static_cast<ast::IndexExpr*>(base)->base) {
      auto* index = static_cast<ast::IndexExpr*>(base);
      if (!index->more_indices.empty()) break;
      dims.insert(dims.begin(), index->index);
    }
    ast::Decl* decl = base->kind == ast::ExprKind::Name &&
                              static_cast<ast::NameExpr*>(base)->generic_args.empty()
                          ? Lookup(static_cast<ast::NameExpr*>(base)->name)
                          : nullptr;
    if (decl != nullptr && (decl->kind == ast::DeclKind::TypeAlias ||
                            decl->kind == ast::DeclKind::Enum ||
                            decl->kind == ast::DeclKind::Struct ||
                            decl->kind == ast::DeclKind::Interface ||
                            decl->kind == ast::DeclKind::GenericParam)) {
      auto* type_expr = ctx_.New<ast::TypeExpr>();
      type_expr->name = static_cast<ast::NameExpr*>(base)->name;
      type_expr->array_dims = std::move(dims);
      type_expr->range = e->operand->range;
      e->type_arg = type_expr;
      queried = ResolveType(type_expr);
    }
  }
  if (queried == nullptr) {
    e->operand = CheckExpr(e->operand);
    queried = e->operand->type;
  }
  if (queried->IsError()) return e;
  int64_t size = 0, align = 0;
  const Type* culprit = types_.NaturalLayout(queried, &size, &align);
  if (culprit != nullptr && !culprit->IsDependent()) {
    diags_.Report(DiagId::SizeOfNoLayout, e->range, QueryName(e), queried->Name(),
                  culprit->Name(), QueryName(e));
    return e;
  }
  if (culprit != nullptr && current_function_ != nullptr) {
    generic_uses_[current_function_].size_queries.push_back(e);
  }
  e->pack = queried;
  e->type = types_.Int();
  return e;
}

bool Checker::SizeOfFits(const ast::PackExpr* e, const Subst& subst, const std::string& owner) {
  const Type* concrete = types_.Substitute(e->pack, subst);
  int64_t size = 0, align = 0;
  const Type* culprit = types_.NaturalLayout(concrete, &size, &align);
  if (culprit == nullptr || culprit->IsDependent()) return true;
  diags_.Report(DiagId::SizeOfGenericNoLayout, e->range, QueryName(e), e->pack->Name(), owner,
                concrete->Name(), culprit->Name());
  return false;
}

}  // namespace slope::sema

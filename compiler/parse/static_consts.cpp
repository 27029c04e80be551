// `static const` members that interfaces require: `interface IRanged { static const
// This maxValue; }`, satisfied by `static const int maxValue = ...;` in a struct or an
// extension, and read as `T.maxValue` in generic code.
//
// A requirement is a static method in everything sema knows, so the constant is read
// through one: the requirement becomes `static This maxValue$get();`, a struct's
// `static const` member gains `static int maxValue$get() { return maxValue; }` beside it
// (the constant stays, so `S.maxValue` and a bare `maxValue` inside S still name it),
// and an extension's `static const` member becomes that method, returning its
// initializer (an extension has no storage). Sema reads `T.maxValue` as a call of
// `T.maxValue$get()`.

#include "compiler/parse/parser_impl.h"

namespace slope::parse {
namespace {

bool IsStaticConst(const ast::Decl* d) {
  if (d->kind != ast::DeclKind::Var) return false;
  auto* v = static_cast<const ast::VarDecl*>(d);
  return v->is_const && v->is_static && v->type_expr != nullptr;
}

ast::FuncDecl* Getter(ast::AstContext& ctx, const ast::VarDecl* var) {
  auto* f = ctx.New<ast::FuncDecl>(var->name + std::string(ast::kStaticConstGetterSuffix),
                                   var->name_range);
  f->return_type = var->type_expr;
  f->modifiers = ast::kModStatic |
                 (var->modifiers & (ast::kModPublic | ast::kModInternal | ast::kModPrivate));
  return f;
}

ast::BlockStmt* Returning(ast::AstContext& ctx, ast::Expr* value, source::SourceRange range) {
  auto* body = ctx.New<ast::BlockStmt>(range);
  body->stmts.push_back(ctx.New<ast::ReturnStmt>(range, value));
  return body;
}

void Rewrite(ast::AstContext& ctx, std::vector<ast::Decl*>& list) {
  for (ast::Decl* d : list) {
    if (d->kind == ast::DeclKind::Namespace) {
      Rewrite(ctx, static_cast<ast::AggregateDecl*>(d)->members);
      continue;
    }
    if (d->kind != ast::DeclKind::Interface && d->kind != ast::DeclKind::Struct &&
        d->kind != ast::DeclKind::Extension) {
      continue;
    }
    auto* agg = static_cast<ast::AggregateDecl*>(d);
    std::vector<ast::Decl*> members;
    for (ast::Decl* m : agg->members) {
      if (!IsStaticConst(m)) {
        members.push_back(m);
        continue;
      }
      auto* var = static_cast<ast::VarDecl*>(m);
      ast::FuncDecl* getter = Getter(ctx, var);
      if (d->kind == ast::DeclKind::Interface) {
        if (var->init != nullptr) {
          members.push_back(m);  // a default value: sema reports it
          continue;
        }
        members.push_back(getter);
        continue;
      }
      if (var->init == nullptr || !var->type_expr->array_dims.empty()) {
        members.push_back(m);
        continue;
      }
      if (d->kind == ast::DeclKind::Struct) {
        members.push_back(m);
        auto* name = ctx.New<ast::NameExpr>(var->name_range, var->name);
        getter->body = Returning(ctx, name, var->name_range);
      } else {
        getter->body = Returning(ctx, var->init, var->name_range);
      }
      members.push_back(getter);
    }
    agg->members = std::move(members);
  }
}

}  // namespace

void RewriteStaticConstRequirements(ast::AstContext& ctx, ast::Module& module) {
  Rewrite(ctx, module.decls);
}

}  // namespace slope::parse

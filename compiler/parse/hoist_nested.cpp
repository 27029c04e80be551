// Nested type declarations: `struct Outer { struct Inner { ... } Inner i; }`.
//
// A type declared inside a non-generic struct moves out to stand just before it, named
// `Outer$Inner` (no source can name it; diagnostics print `Outer.Inner`), and the
// struct keeps a type member
// `Inner` that names it. So `Inner` is found unqualified inside `Outer`, and
// `Outer.Inner` / `Outer::Inner` from outside, through the same type-member lookup as
// `typedef`s. Types nested in a generic struct stay where they are, and sema reports
// them as unsupported: they could depend on the struct's parameters.

#include <set>

#include "compiler/parse/parser_impl.h"

namespace slope::parse {
namespace {

bool IsNestedType(const ast::Decl* d) {
  return d->kind == ast::DeclKind::Struct || d->kind == ast::DeclKind::Enum ||
         d->kind == ast::DeclKind::Interface;
}

ast::TypeAliasDecl* AliasTo(ast::AstContext& ctx, const ast::Decl* target,
                            const std::string& name) {
  auto* alias = ctx.New<ast::TypeAliasDecl>(name, target->name_range);
  alias->target = ctx.New<ast::TypeExpr>();
  alias->target->name = target->name;
  alias->target->range = target->name_range;
  alias->modifiers = target->modifiers & (ast::kModPublic | ast::kModInternal | ast::kModPrivate);
  return alias;
}

void Hoist(ast::AstContext& ctx, std::vector<ast::Decl*>& list) {
  for (size_t i = 0; i < list.size(); ++i) {
    ast::Decl* d = list[i];
    if (d->kind == ast::DeclKind::Namespace) {
      Hoist(ctx, static_cast<ast::AggregateDecl*>(d)->members);
      continue;
    }
    if (d->kind != ast::DeclKind::Struct) continue;
    auto* outer = static_cast<ast::AggregateDecl*>(d);
    if (!outer->generic_params.empty()) continue;
    std::vector<ast::Decl*> nested, kept;
    for (ast::Decl* m : outer->members) (IsNestedType(m) ? nested : kept).push_back(m);
    if (nested.empty()) continue;
    std::vector<std::string> short_names;
    for (ast::Decl* n : nested) {
      short_names.push_back(n->name);
      n->name = outer->name + "$" + n->name;
      kept.push_back(AliasTo(ctx, n, short_names.back()));
    }
    // Each nested struct sees itself and its siblings by their short names too
    // (`struct Iterator { Iterator next() {...} }`).
    for (ast::Decl* n : nested) {
      if (n->kind != ast::DeclKind::Struct) continue;
      auto* inner = static_cast<ast::AggregateDecl*>(n);
      std::set<std::string> own;
      for (const ast::Decl* m : inner->members) own.insert(m->name);
      for (size_t k = 0; k < nested.size(); ++k) {
        if (own.count(short_names[k]) != 0) continue;
        inner->members.push_back(AliasTo(ctx, nested[k], short_names[k]));
      }
    }
    outer->members = std::move(kept);
    // Before the struct, and visited next: a type nested in a nested type moves out too.
    list.insert(list.begin() + static_cast<std::ptrdiff_t>(i), nested.begin(), nested.end());
    --i;
  }
}

}  // namespace

void HoistNestedTypes(ast::AstContext& ctx, ast::Module& module) { Hoist(ctx, module.decls); }

}  // namespace slope::parse

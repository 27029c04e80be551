// Struct inheritance: `struct D : B, IFoo { ... }` with B a struct.
//
// D holds a B as its first field (kBaseFieldName), then its own fields, as Slang lays it
// out. Member access, method calls and the fields and methods named alone inside D's
// methods look in D first, then in B (and in what B inherits), through that field; an
// initializer list may give B's fields flat, first. D does not gain B's interface
// conformances: a requirement must be implemented by D itself or an extension of it.

#include <functional>
#include <set>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

bool Checker::ResolveInheritedStruct(StructInfo* info, ast::TypeExpr* base) {
  ast::Decl* decl = base->type_args.empty() && base->value_args.empty() ? Lookup(base->name) : nullptr;
  bool names_struct = decl != nullptr && decl->kind == ast::DeclKind::Struct;
  if (!names_struct && !base->type_args.empty()) {
    ast::Decl* generic = Lookup(base->name);
    names_struct = generic != nullptr && generic->kind == ast::DeclKind::Struct;
  }
  if (!names_struct) return false;
  const Type* t = ResolveType(base);
  if (t->IsError()) return true;
  if (info->has_base) {
    diags_.Report(DiagId::UnsupportedConstruct, base->range,
                  "inheriting from more than one struct", "is");
    return true;
  }
  auto* field = ctx_.New<ast::VarDecl>(ast::VarRole::Field, kBaseFieldName, base->range);
  field->type_expr = base;
  info->fields.insert(info->fields.begin(), field);
  info->has_base = true;
  return true;
}

const Type* Checker::BaseStructOf(const Type* s) const {
  if (s == nullptr || !s->IsStruct() || !s->Info()->has_base) return nullptr;
  const Type* base = types_.FieldType(s, 0);
  return base->IsStruct() ? base : nullptr;
}

ast::Expr* Checker::BasePart(ast::Expr* receiver) {
  auto* member = ctx_.New<ast::MemberExpr>(receiver->range, receiver, kBaseFieldName, receiver->range);
  member->field_index = 0;
  member->type = types_.FieldType(receiver->type, 0);
  return member;
}

bool Checker::InheritsField(const Type* s, const std::string& name) {
  // An inheritance cycle is broken where it is reported (E3031); `seen` stops at one
  // all the same.
  std::set<const Type*> seen;
  for (; s != nullptr && seen.insert(s).second; s = BaseStructOf(s)) {
    if (s->Info()->FieldIndex(name) >= 0) return true;
  }
  return false;
}

bool Checker::InheritsMethod(const Type* s, const std::string& name) {
  std::set<const Type*> seen;
  for (; s != nullptr && seen.insert(s).second; s = BaseStructOf(s)) {
    if (!FindMethods(s, name).empty()) return true;
  }
  return false;
}

void Checker::GroupBaseInitializers(ast::InitListExpr* list, const Type* target) {
  const Type* base = BaseStructOf(target);
  if (base == nullptr || list->elements.empty() ||
      list->elements.front()->kind == ast::ExprKind::InitList) {
    return;
  }
  // Flat: as many values as the fields of D and of everything it inherits.
  std::function<size_t(const Type*)> flat = [&](const Type* s) {
    size_t n = s->Info()->fields.size();
    if (const Type* b = BaseStructOf(s)) n += flat(b) - 1;
    return n;
  };
  size_t own = target->Info()->fields.size() - 1;
  size_t inherited = flat(base);
  if (list->elements.size() <= own || list->elements.size() > own + inherited) return;
  size_t given = list->elements.size() - own;  // B's part, zero-filled past `given`
  auto* part = ctx_.New<ast::InitListExpr>(list->elements.front()->range);
  part->elements.assign(list->elements.begin(), list->elements.begin() + static_cast<std::ptrdiff_t>(given));
  GroupBaseInitializers(part, base);
  std::vector<ast::Expr*> grouped{part};
  grouped.insert(grouped.end(), list->elements.begin() + static_cast<std::ptrdiff_t>(given),
                 list->elements.end());
  list->elements = std::move(grouped);
}

}  // namespace slope::sema

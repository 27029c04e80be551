// Variadic generics, specialized (sema/check_pack.cpp checks them once). In an instance
// of a variadic function every type pack parameter is bound to a concrete pack, so a
// variadic parameter becomes one IR parameter per element (its slots are `pack_locals_`),
// an argument pack one IR argument per element, and `expand e` is lowered once per
// element with each captured pack parameter bound to that element (`each v` then reads
// the element's slot).

#include "compiler/lower/lowerer.h"

namespace slope::lower {

void Lowerer::LowerPackParam(const ast::VarDecl* param, ir::Function* f) {
  std::vector<Value*>& slots = pack_locals_[param];
  slots.clear();
  for (const sema::Type* element : Concrete(param->type)->Args()) {
    ir::Param* p = module_->AddParam(LowerType(element), nullptr);
    f->params.push_back(p);
    Value* slot = b_.Var(f, p->GetType());
    b_.Store(slot, p);
    slots.push_back(slot);
  }
}

void Lowerer::LowerPackArg(const ast::Expr* arg, std::vector<Value*>* out) {
  auto* pack = static_cast<const ast::PackExpr*>(arg);
  if (arg->kind != ast::ExprKind::Pack) SLOPE_ICE("a variadic argument that is not a pack");
  if (pack->form == ast::PackExpr::kGroup) {
    for (const ast::Expr* e : pack->elements) out->push_back(LowerExpr(e));
    return;
  }
  for (Value* v : LowerExpand(pack)) out->push_back(v);
}

std::vector<Value*> Lowerer::LowerExpand(const ast::PackExpr* e) {
  const sema::Type* pack = Concrete(e->type);
  if (!pack->IsPack() || pack->PackPattern() != nullptr) {
    SLOPE_ICE("'expand' over a pack that is not concrete: " + pack->Name());
  }
  std::vector<Value*> values;
  sema::Subst saved = subst_;
  int saved_index = expand_index_;
  for (size_t i = 0; i < pack->Args().size(); ++i) {
    for (const sema::Type* capture : e->type->Args()) {
      const sema::Type* bound = types_.Substitute(capture, saved);
      if (!bound->IsPack() || i >= bound->Args().size()) {
        SLOPE_ICE("type pack '" + capture->Name() + "' is not bound to a pack of the expanded length");
      }
      subst_[capture] = bound->Args()[i];
    }
    expand_index_ = static_cast<int>(i);
    Value* v = LowerExpr(e->operand);
    if (v != nullptr && !pack->Args()[i]->IsVoid()) values.push_back(v);
    subst_ = saved;
  }
  expand_index_ = saved_index;
  return values;
}

Value* Lowerer::LowerPackExpr(const ast::PackExpr* e) {
  switch (e->form) {
    case ast::PackExpr::kExpand:
      LowerExpand(e);  // a statement: the values are not used
      return nullptr;
    case ast::PackExpr::kEach:
      return b_.Load(EachSlot(e));
    case ast::PackExpr::kCount: {
      const sema::Type* pack = Concrete(e->pack);
      if (!pack->IsPack() || pack->PackPattern() != nullptr) {
        SLOPE_ICE("'countof' of a pack that is not concrete");
      }
      return module_->ConstInt(LowerType(e->type), static_cast<int64_t>(pack->Args().size()));
    }
    case ast::PackExpr::kSizeOf:
    case ast::PackExpr::kAlignOf: {
      int64_t size = 0, align = 0;
      if (types_.NaturalLayout(Concrete(e->pack), &size, &align) != nullptr) {
        SLOPE_ICE("'sizeof' of a type without a layout reached lowering");
      }
      return module_->ConstInt(LowerType(e->type),
                               e->form == ast::PackExpr::kSizeOf ? size : align);
    }
    case ast::PackExpr::kValueOf: {
      const sema::Type* value = Concrete(e->pack);
      if (value->Kind() != sema::TypeKind::IntValue) {
        SLOPE_ICE("generic value '" + e->pack->Name() + "' is not specialized in lowering");
      }
      return module_->ConstInt(LowerType(e->type), value->Value());
    }
    case ast::PackExpr::kGroup:
      break;
  }
  SLOPE_ICE("a pack of arguments outside a call");
}

Value* Lowerer::EachSlot(const ast::PackExpr* e) {
  auto* name = static_cast<const ast::NameExpr*>(e->operand);
  auto* var = static_cast<const ast::VarDecl*>(name->decl);
  auto it = pack_locals_.find(var);
  if (it == pack_locals_.end() || expand_index_ < 0 ||
      static_cast<size_t>(expand_index_) >= it->second.size()) {
    SLOPE_ICE("'each " + var->name + "' outside the expansion of its pack");
  }
  return it->second[static_cast<size_t>(expand_index_)];
}

}  // namespace slope::lower

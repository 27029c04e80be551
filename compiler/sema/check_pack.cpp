// Variadic generics, as Slang's proposal 007 has them: type pack parameters
// (`void f<each T : IFoo>(expand each T v)`), `expand` types and expressions, `each`
// on a pack's elements, and `countof`.
//
// Sema checks a variadic function once, like any generic function. The pack parameter
// `each T` is a generic parameter (GenericParamInfo::is_pack); inside an `expand`
// pattern, `each T` is T itself, so `(each v).get()` is checked against T's constraints
// as on any generic parameter. A parameter `expand P` has the abstract pack type
// `Type::PackPattern() == P`; a call gathers the arguments of each variadic parameter
// into one PackExpr (kGroup) whose type is the concrete pack of their types, and
// unification binds T to the pack of element types (`f(1, 2.0)`: T = (int, float)).
// Lowering specializes per pack: a variadic parameter becomes one IR parameter per
// element and an `expand` is lowered once per element (lower/lower_pack.cpp).
//
// Where packs may appear: a pack type only as the type of a function parameter; an
// `expand` expression as the argument of a variadic parameter or as a statement; `each`
// only inside `expand`; a pack of values named alone nowhere (E3650-E3658).

#include <algorithm>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {
void SortCaptures(std::vector<const Type*>* captures) {
  std::sort(captures->begin(), captures->end());
  captures->erase(std::unique(captures->begin(), captures->end()), captures->end());
}
}  // namespace

int Checker::PackConversionCost(const Type* from, const Type* to) const {
  if (!from->IsPack() && !to->IsPack()) return ConversionCost(from, to);
  if (from == to) return 0;
  if (!from->IsPack() || !to->IsPack() || from->PackPattern() != nullptr ||
      to->PackPattern() != nullptr || from->Args().size() != to->Args().size()) {
    return kNoConversion;
  }
  int cost = 0;
  for (size_t i = 0; i < from->Args().size(); ++i) {
    int c = ConversionCost(from->Args()[i], to->Args()[i]);
    if (c >= kNoConversion) return kNoConversion;
    cost += c;
  }
  return cost;
}

const Type* Checker::ResolveExpandType(ast::TypeExpr* te) {
  if (pack_captures_ != nullptr) {
    diags_.Report(DiagId::PackTypeNotHere, te->range, "expand ...");
    return types_.Error();
  }
  std::vector<const Type*> captures;
  pack_captures_ = &captures;
  const Type* pattern = ResolveType(te->type_args[0]);
  pack_captures_ = nullptr;
  if (pattern->IsError()) return pattern;
  if (captures.empty()) {
    diags_.Report(DiagId::ExpandWithoutEach, te->range);
    return types_.Error();
  }
  SortCaptures(&captures);
  return types_.ExpandPack(pattern, captures);
}

const Type* Checker::PackParamUse(ast::TypeExpr* te, const Type* resolved) {
  if (!resolved->IsPackParam()) {
    if (te->pack == ast::TypeExpr::kEach && !resolved->IsError()) {
      diags_.Report(DiagId::EachNotPack, te->range, "each", te->name);
      return types_.Error();
    }
    return resolved;
  }
  if (pack_captures_ != nullptr) {
    // `each T` inside a pattern: one element, T itself.
    pack_captures_->push_back(resolved);
    return resolved;
  }
  if (te->pack == ast::TypeExpr::kEach) {
    diags_.Report(DiagId::EachOutsideExpand, te->range, te->name);
    return types_.Error();
  }
  // `T v` for a pack parameter T means `expand each T v`, as in Slang.
  return types_.ExpandPack(resolved, {resolved});
}

void Checker::CheckVariadicSignature(ast::FuncDecl* func) {
  bool any_pack_param = false;
  for (const ast::GenericParamDecl* g : func->generic_params) {
    if (g->is_pack) {
      any_pack_param = true;
    } else if (any_pack_param) {
      diags_.Report(DiagId::VariadicSignature, g->name_range, func->name,
                    "generic parameter '" + g->name +
                        "' follows a type pack; type packs come after the other parameters");
      return;
    }
  }
  bool seen_pack = false;
  bool variadic = false;
  for (const ast::VarDecl* p : func->params) {
    if (p->type == nullptr || !p->type->IsPack()) {
      if (seen_pack) {
        diags_.Report(DiagId::VariadicSignature, p->name_range, func->name,
                      "parameter '" + p->name +
                          "' follows a variadic parameter; variadic parameters come last");
        return;
      }
      continue;
    }
    seen_pack = variadic = true;
    if (p->direction != ast::ParamDirection::In) {
      diags_.Report(DiagId::VariadicSignature, p->name_range, func->name,
                    "variadic parameter '" + p->name + "' must be an 'in' parameter");
    }
  }
  if (!variadic && !any_pack_param) return;
  for (const ast::VarDecl* p : func->params) {
    if (p->init != nullptr) {
      diags_.Report(DiagId::VariadicSignature, p->init->range, func->name,
                    "the parameters of a variadic function cannot have default values");
      return;
    }
  }
  static const char* const kDiffAttributes[] = {"Differentiable", "ForwardDifferentiable",
                                                "BackwardDifferentiable"};
  for (const char* attr : kDiffAttributes) {
    if (func->FindAttribute(attr) != nullptr) {
      diags_.Report(DiagId::VariadicSignature, func->name_range, func->name,
                    std::string("variadic functions cannot be [") + attr + "] yet");
      return;
    }
  }
  if (func->parent != nullptr && func->parent->kind == ast::DeclKind::Interface) {
    diags_.Report(DiagId::VariadicSignature, func->name_range, func->name,
                  "interface requirements cannot be variadic yet");
  }
}

size_t Checker::VariadicParamCount(const ast::FuncDecl* f) {
  size_t packs = 0;
  for (size_t i = f->params.size(); i-- > 0;) {
    if (f->params[i]->type == nullptr || !f->params[i]->type->IsPack()) break;
    ++packs;
  }
  return packs;
}

Checker::PackSplit Checker::SplitPackArgs(const ast::FuncDecl* f, const ast::CallExpr* call,
                                          std::vector<const Type*>* arg_types) {
  size_t packs = VariadicParamCount(f);
  arg_types->clear();
  if (packs == 0) {
    for (const ast::Expr* a : call->args) arg_types->push_back(a->type);
    return PackSplit::kFits;
  }
  size_t fixed = f->params.size() - packs;
  if (call->args.size() < fixed) return PackSplit::kTooFew;
  for (size_t i = 0; i < fixed; ++i) arg_types->push_back(call->args[i]->type);
  size_t rest = call->args.size() - fixed;
  size_t abstract = 0;
  for (size_t i = fixed; i < call->args.size(); ++i) {
    if (call->args[i]->type->IsPack()) ++abstract;
  }
  if (abstract != 0) {
    // `f(expand each v)`: one pack per variadic parameter, passed on whole.
    if (abstract != rest || rest != packs) return PackSplit::kMixed;
    for (size_t i = fixed; i < call->args.size(); ++i) arg_types->push_back(call->args[i]->type);
    return PackSplit::kFits;
  }
  if (rest % packs != 0) return PackSplit::kUneven;
  size_t each = rest / packs;
  for (size_t k = 0; k < packs; ++k) {
    std::vector<const Type*> elements;
    for (size_t j = 0; j < each; ++j) elements.push_back(call->args[fixed + k * each + j]->type);
    arg_types->push_back(types_.TypePack(elements));
  }
  return PackSplit::kFits;
}

void Checker::ReportPackSplit(const ast::FuncDecl* f, const ast::CallExpr* call,
                              const std::string& name, PackSplit split) {
  size_t packs = VariadicParamCount(f);
  size_t fixed = f->params.size() - packs;
  if (split == PackSplit::kTooFew) {
    diags_.Report(DiagId::WrongArgumentCount, call->range, name, fixed, call->args.size())
        .Note(DiagId::DeclaredHere, f->name_range, f->name);
  } else if (split == PackSplit::kUneven) {
    diags_.Report(DiagId::PackArgsUneven, call->range, name, packs, call->args.size() - fixed)
        .Note(DiagId::DeclaredHere, f->name_range, f->name);
  } else {
    // An `expand` argument mixed with single values for the same variadic parameter.
    diags_.Report(DiagId::ExpandNotHere, call->args[fixed]->range)
        .Note(DiagId::DeclaredHere, f->name_range, f->name);
  }
}

void Checker::GroupPackArgs(ast::CallExpr* call, const ast::FuncDecl* f,
                            const std::vector<const Type*>& param_types) {
  size_t packs = VariadicParamCount(f);
  if (packs == 0) return;
  size_t fixed = f->params.size() - packs;
  std::vector<ast::Expr*> args(call->args.begin(), call->args.begin() + static_cast<long>(fixed));
  size_t rest = call->args.size() - fixed;
  bool passed_on = rest == packs && rest > 0 && call->args[fixed]->type->IsPack();
  size_t each = passed_on ? 1 : rest / packs;
  for (size_t k = 0; k < packs; ++k) {
    const Type* pack = param_types[fixed + k];
    if (passed_on) {
      args.push_back(call->args[fixed + k]);
      continue;
    }
    source::SourceRange range = call->range;
    auto* group = ctx_.New<ast::PackExpr>(range, ast::PackExpr::kGroup, nullptr);
    std::vector<const Type*> elements;
    for (size_t j = 0; j < each; ++j) {
      ast::Expr* a = call->args[fixed + k * each + j];
      if (pack->PackPattern() == nullptr && j < pack->Args().size()) a = Coerce(a, pack->Args()[j]);
      group->elements.push_back(a);
      elements.push_back(a->type);
    }
    if (!group->elements.empty()) {
      group->range = source::SourceRange(group->elements.front()->range.begin,
                                         group->elements.back()->range.end);
    }
    group->type = types_.TypePack(elements);
    args.push_back(group);
  }
  call->args = std::move(args);
}

bool Checker::BindExplicitPackArgs(const std::vector<const Type*>& own,
                                   const std::vector<const Type*>& explicit_args, Subst* bindings) {
  size_t singles = 0, packs = 0;
  for (const Type* p : own) {
    if (p->IsPackParam()) {
      ++packs;
    } else if (p->Generic()->decl != nullptr) {
      ++singles;
    }
  }
  if (packs == 0) {
    if (explicit_args.size() > own.size()) return false;
    for (size_t i = 0; i < explicit_args.size(); ++i) (*bindings)[own[i]] = explicit_args[i];
    return true;
  }
  if (explicit_args.size() <= singles) {
    for (size_t i = 0; i < explicit_args.size(); ++i) (*bindings)[own[i]] = explicit_args[i];
    return true;
  }
  size_t rest = explicit_args.size() - singles;
  if (rest % packs != 0) return false;
  size_t each = rest / packs, next = 0, k = 0;
  for (const Type* p : own) {
    if (p->IsPackParam()) {
      auto from = explicit_args.begin() + static_cast<long>(singles + k * each);
      (*bindings)[p] = types_.TypePack(std::vector<const Type*>(from, from + static_cast<long>(each)));
      ++k;
    } else if (p->Generic()->decl != nullptr) {
      (*bindings)[p] = explicit_args[next++];
    }
  }
  return true;
}

ast::Expr* Checker::CheckPackExpr(ast::PackExpr* e, bool expand_allowed) {
  e->type = types_.Error();
  switch (e->form) {
    case ast::PackExpr::kExpand: {
      if (!expand_allowed || pack_captures_ != nullptr) {
        diags_.Report(DiagId::ExpandNotHere, e->range);
        return e;
      }
      std::vector<const Type*> captures;
      uint32_t errors = diags_.ErrorCount();
      pack_captures_ = &captures;
      e->operand = CheckExpr(e->operand);
      pack_captures_ = nullptr;
      if (e->operand->type->IsError() || diags_.ErrorCount() != errors) return e;
      if (captures.empty()) {
        diags_.Report(DiagId::ExpandWithoutEach, e->range);
        return e;
      }
      SortCaptures(&captures);
      e->type = types_.ExpandPack(e->operand->type, captures);
      return e;
    }
    case ast::PackExpr::kEach: {
      const ast::VarDecl* var = PackVariable(e->operand, "each");
      if (var == nullptr) return e;
      if (pack_captures_ == nullptr) {
        diags_.Report(DiagId::EachOutsideExpand, e->range, var->name);
        return e;
      }
      const Type* pack = var->type;
      pack_captures_->insert(pack_captures_->end(), pack->Args().begin(), pack->Args().end());
      e->pack = pack;
      e->type = pack->PackPattern();
      return e;
    }
    case ast::PackExpr::kSizeOf:
    case ast::PackExpr::kAlignOf:
      return CheckSizeOf(e);
    case ast::PackExpr::kGroup:
    case ast::PackExpr::kCount:
    case ast::PackExpr::kValueOf:
      return e;  // made by sema, already checked
  }
  return e;
}

const ast::VarDecl* Checker::PackVariable(ast::Expr* operand, const char* what) {
  std::string shown = operand->kind == ast::ExprKind::Name
                          ? static_cast<ast::NameExpr*>(operand)->name
                          : std::string("this expression");
  if (operand->kind == ast::ExprKind::Name) {
    auto* name = static_cast<ast::NameExpr*>(operand);
    ast::Decl* decl = Lookup(name->name);
    if (decl != nullptr && decl->kind == ast::DeclKind::Var) {
      auto* var = static_cast<ast::VarDecl*>(decl);
      if (var->type != nullptr && var->type->IsPack() && var->type->PackPattern() != nullptr) {
        name->decl = var;
        name->type = var->type;
        return var;
      }
    }
  }
  diags_.Report(DiagId::EachNotPack, operand->range, what, shown);
  return nullptr;
}

ast::Expr* Checker::CheckCountof(ast::CallExpr* call) {
  auto* count = ctx_.New<ast::PackExpr>(call->range, ast::PackExpr::kCount, nullptr);
  count->type = types_.Int();
  if (call->args.size() != 1) {
    diags_.Report(DiagId::WrongArgumentCount, call->range, "countof", 1, call->args.size());
    count->type = types_.Error();
    return count;
  }
  ast::Expr* arg = call->args[0];
  count->operand = arg;
  if (arg->kind == ast::ExprKind::Name) {
    ast::Decl* decl = Lookup(static_cast<ast::NameExpr*>(arg)->name);
    if (decl != nullptr && decl->kind == ast::DeclKind::GenericParam &&
        static_cast<ast::GenericParamDecl*>(decl)->is_pack) {
      count->pack = static_cast<ast::GenericParamDecl*>(decl)->type;
      arg->type = count->pack;
      return count;
    }
  }
  // `countof(t)` of a tuple value, and `countof(Tuple<int, float>)`: its element count.
  auto tuple_count = [&](const Type* t) -> ast::Expr* {
    if (t == nullptr || !t->IsStruct() || t->Info()->decl == nullptr) return nullptr;
    const std::string& name = t->Info()->decl->name;
    if (name.size() != 8 || name.compare(0, 7, "__Tuple") != 0) return nullptr;
    auto* lit = ctx_.New<ast::IntLiteralExpr>(call->range, t->Info()->fields.size(), false);
    lit->type = types_.Int();
    return lit;
  };
  if (arg->kind == ast::ExprKind::Name) {
    auto* name = static_cast<ast::NameExpr*>(arg);
    if (name->name == "Tuple" && !name->generic_args.empty() && Lookup("Tuple") == nullptr) {
      auto* lit = ctx_.New<ast::IntLiteralExpr>(call->range, name->generic_args.size(), false);
      lit->type = types_.Int();
      return lit;
    }
    ast::Decl* decl = Lookup(name->name);
    bool pack = decl != nullptr && decl->kind == ast::DeclKind::Var &&
                static_cast<ast::VarDecl*>(decl)->type != nullptr &&
                static_cast<ast::VarDecl*>(decl)->type->IsPack();
    if (!pack && decl != nullptr && decl->kind == ast::DeclKind::Var) {
      ast::Expr* checked = CheckExpr(arg);
      if (ast::Expr* n = tuple_count(checked->type)) return n;
    }
  } else if (arg->kind != ast::ExprKind::Pack) {
    ast::Expr* checked = CheckExpr(arg);
    if (checked->type->IsError()) {
      count->type = types_.Error();
      return count;
    }
    if (ast::Expr* n = tuple_count(checked->type)) return n;
  }
  const ast::VarDecl* var = PackVariable(arg, "countof");
  if (var == nullptr) {
    count->type = types_.Error();
    return count;
  }
  count->pack = var->type;
  return count;
}

}  // namespace slope::sema

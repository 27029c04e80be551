// `where` clauses and enum cases as generic arguments.
//
// `where` clauses: each constraint becomes one more constraint of the generic parameter
// (or associated type) the clause names, so the rest of the checker sees `f<T>(...)
// where T : IA & IB` exactly as `f<T : IA & IB>(...)`.

#include <string_view>
#include <unordered_set>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {

/// The parameter of `params` called `name`, or null.
ast::GenericParamDecl* FindParam(const std::vector<ast::GenericParamDecl*>& params,
                                 const std::string& name) {
  for (ast::GenericParamDecl* p : params) {
    if (p->name == name) return p;
  }
  return nullptr;
}

/// For `T.Assoc` or `T::Assoc` with T a type parameter of `params`: T, with `*member`
/// set to "Assoc"; null otherwise.
ast::GenericParamDecl* MemberSubject(const std::vector<ast::GenericParamDecl*>& params,
                                     const ast::TypeExpr* subject, std::string* member) {
  if (!subject->type_args.empty() || !subject->value_args.empty() || !subject->array_dims.empty()) {
    return nullptr;
  }
  const std::string& name = subject->name;
  size_t dot = name.find('.');
  size_t colons = name.find("::");
  size_t split = std::min(dot, colons);
  if (split == std::string::npos || split == 0) return nullptr;
  std::string rest = name.substr(split + (split == colons ? 2 : 1));
  if (rest.empty() || rest.find_first_of(".:") != std::string::npos) return nullptr;
  ast::GenericParamDecl* p = FindParam(params, name.substr(0, split));
  if (p == nullptr || p->is_value) return nullptr;
  *member = rest;
  return p;
}

}  // namespace

void Checker::AttachWhereClauses(const std::vector<ast::Decl*>& decls,
                                 const std::vector<ast::GenericParamDecl*>& outer) {
  // Attaches `clauses` to `params`; a clause naming a parameter of an enclosing
  // declaration (a conditional member) or anything else is reported.
  auto attach = [&](std::vector<ast::WhereClause>& clauses,
                    const std::vector<ast::GenericParamDecl*>& params, const std::string& owner) {
    for (ast::WhereClause& clause : clauses) {
      ast::TypeExpr* subject = clause.subject;
      if (clause.optional) {
        // `where optional T : IFoo` (check_optional.cpp).
        ast::GenericParamDecl* p = clause.equals == nullptr && subject->type_args.empty() &&
                                           subject->value_args.empty() &&
                                           subject->array_dims.empty()
                                       ? FindParam(params, subject->name)
                                       : nullptr;
        if (p != nullptr && !p->is_value) {
          p->optional_constraints.insert(p->optional_constraints.end(), clause.constraints.begin(),
                                         clause.constraints.end());
        } else {
          std::string what = clause.equals != nullptr ? "cannot make a type equality optional"
                                                      : "cannot apply to '" + subject->name + "'";
          diags_.Report(DiagId::OptionalConstraintForm, clause.optional_range, what);
        }
        continue;
      }
      if (clause.equals != nullptr) {
        // `where T.Assoc == type`: the associated type is that type inside the declaration.
        std::string member;
        if (ast::GenericParamDecl* of = MemberSubject(params, subject, &member)) {
          of->member_equalities.push_back({member, subject, clause.equals});
        } else {
          diags_.Report(DiagId::TypeEqualitySubject, subject->range, subject->name);
        }
        continue;
      }
      ast::GenericParamDecl* p = subject->type_args.empty() && subject->value_args.empty() &&
                                         subject->array_dims.empty()
                                     ? FindParam(params, subject->name)
                                     : nullptr;
      if (p != nullptr && !p->is_value) {
        size_t first = 0;
        if (p->constraint == nullptr) p->constraint = clause.constraints[first++];
        p->more_constraints.insert(p->more_constraints.end(), clause.constraints.begin() + first,
                                   clause.constraints.end());
      } else if (std::string member; ast::GenericParamDecl* of = MemberSubject(params, subject, &member)) {
        // `where T.Assoc : IFoo`: a constraint on an associated type of T.
        for (ast::TypeExpr* c : clause.constraints) of->member_constraints.push_back({member, subject, c});
      } else if (p == nullptr && FindParam(outer, subject->name) != nullptr) {
        diags_.Report(DiagId::UnsupportedConstruct, subject->range,
                      "'where' clauses on generic parameters of an enclosing declaration", "are");
      } else {
        diags_.Report(DiagId::WhereSubjectNotParam, subject->range, subject->name, owner);
      }
    }
    clauses.clear();
  };
  for (ast::Decl* decl : decls) {
    switch (decl->kind) {
      case ast::DeclKind::Func: {
        auto* f = static_cast<ast::FuncDecl*>(decl);
        attach(f->where_clauses, f->generic_params, f->name);
        break;
      }
      case ast::DeclKind::AssociatedType: {
        auto* assoc = static_cast<ast::AssociatedTypeDecl*>(decl);
        for (ast::WhereClause& clause : assoc->where_clauses) {
          ast::TypeExpr* subject = clause.subject;
          if (subject->name == assoc->name && subject->type_args.empty()) {
            assoc->constraints.insert(assoc->constraints.end(), clause.constraints.begin(),
                                      clause.constraints.end());
          } else {
            diags_.Report(DiagId::WhereSubjectNotParam, subject->range, subject->name,
                          assoc->name);
          }
        }
        assoc->where_clauses.clear();
        break;
      }
      case ast::DeclKind::Struct:
      case ast::DeclKind::Interface:
      case ast::DeclKind::Extension:
      case ast::DeclKind::Namespace: {
        auto* agg = static_cast<ast::AggregateDecl*>(decl);
        attach(agg->where_clauses, agg->generic_params, agg->name);
        std::vector<ast::GenericParamDecl*> enclosing = outer;
        enclosing.insert(enclosing.end(), agg->generic_params.begin(), agg->generic_params.end());
        AttachWhereClauses(agg->members, enclosing);
        break;
      }
      default:
        break;
    }
  }
}

void Checker::DropShadowedCoreDecls(std::vector<ast::Decl*>& decls) {
  // A yielding declaration is hidden by any declaration of its name that does not yield
  // (counted once: a scan of every declaration per yielding one took a second for 10^5
  // user declarations).
  std::unordered_set<std::string_view> user_names;
  for (const ast::Decl* other : decls) {
    // An extension adds to a type; it declares no name (the core library extends its
    // own yielding tuples).
    if (other->FindAttribute("__yield_to_user") == nullptr &&
        other->kind != ast::DeclKind::Extension) {
      user_names.insert(other->name);
    }
  }
  auto hidden = [&](const ast::Decl* decl) { return user_names.count(decl->name) != 0; };
  std::set<std::string> hidden_names;
  for (ast::Decl* decl : decls) {
    if (decl->kind != ast::DeclKind::Extension && decl->FindAttribute("__yield_to_user") != nullptr &&
        hidden(decl)) {
      hidden_names.insert(decl->name);
    }
  }
  // Which yielding declarations are hidden is decided for all of them before any loses
  // its marker (overloads of one name yield together).
  std::vector<bool> shadowed_at(decls.size(), false);
  for (size_t i = 0; i < decls.size(); ++i) {
    ast::Decl* decl = decls[i];
    if (decl->FindAttribute("__yield_to_user") == nullptr) continue;
    if (decl->kind == ast::DeclKind::Extension) {
      // An extension that conforms a type to a hidden declaration goes with it.
      for (const ast::TypeExpr* base : static_cast<ast::AggregateDecl*>(decl)->bases) {
        shadowed_at[i] = shadowed_at[i] || hidden_names.count(base->name) != 0;
      }
    } else {
      shadowed_at[i] = hidden(decl);
      // `[__yield_to_user(Optional)]`: it also goes when the module hides `Optional`,
      // whose name its own declarations use.
      for (const ast::Expr* arg : decl->FindAttribute("__yield_to_user")->args) {
        shadowed_at[i] = shadowed_at[i] ||
                         (arg->kind == ast::ExprKind::Name &&
                          hidden_names.count(static_cast<const ast::NameExpr*>(arg)->name) != 0);
      }
    }
  }
  std::vector<ast::Decl*> kept;
  for (size_t i = 0; i < decls.size(); ++i) {
    ast::Decl* decl = decls[i];
    if (decl->FindAttribute("__yield_to_user") == nullptr) {
      kept.push_back(decl);
      continue;
    }
    bool shadowed = shadowed_at[i];
    // The marker goes; the declaration's other attributes ([Differentiable], ...) stay.
    std::erase_if(decl->attributes,
                  [](const ast::Attribute& a) { return a.name == "__yield_to_user"; });
    if (!shadowed) {
      kept.push_back(decl);
      core_yielding_[decl->name] = decl;
    }
  }
  decls = std::move(kept);
}

const Type* Checker::EnumCaseArg(ast::TypeExpr* te) {
  if (!te->type_args.empty() || !te->value_args.empty() || !te->array_dims.empty()) return nullptr;
  size_t dot = te->name.rfind('.');
  size_t colons = te->name.rfind("::");
  size_t split = dot;
  size_t skip = 1;
  if (dot == std::string::npos || (colons != std::string::npos && colons > dot)) {
    split = colons;
    skip = 2;
  }
  if (split == std::string::npos || split == 0) return nullptr;
  ast::TypeExpr prefix;
  prefix.name = te->name.substr(0, split);
  prefix.range = te->range;
  const Type* type = ResolveScopedTypeName(&prefix);
  if (type == nullptr || !type->IsEnum()) return nullptr;
  EvaluateEnum(type);
  int index = type->Enumeration()->CaseIndex(te->name.substr(split + skip));
  if (index < 0) return nullptr;
  return types_.IntValue(type->Enumeration()->values[static_cast<size_t>(index)]);
}

}  // namespace slope::sema

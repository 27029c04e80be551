// Properties (`property float x { get {...} set {...} }`) and subscripts
// (`__subscript(int i) -> T { get {...} set {...} }`).
//
// Before anything is declared, each becomes ordinary methods of its struct, interface
// or extension: a getter "x.get" / "__subscript.get" and a [mutating] setter "x.set" /
// "__subscript.set" taking the value last (`newValue` unless named). Lookup, generics,
// extensions, interface requirements and lowering then treat them like other methods.
// A read `s.x` / `s[i]` becomes the getter's call; an assignment to one keeps that call
// as its target and records the setter's call (ast::AssignExpr::setter).

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

void Checker::ExpandAccessors(const std::vector<ast::Decl*>& decls) {
  for (ast::Decl* decl : decls) {
    if (decl->kind != ast::DeclKind::Struct && decl->kind != ast::DeclKind::Interface &&
        decl->kind != ast::DeclKind::Extension) {
      continue;
    }
    auto* agg = static_cast<ast::AggregateDecl*>(decl);
    std::vector<ast::Decl*> members;
    for (ast::Decl* m : agg->members) {
      bool is_property = m->kind == ast::DeclKind::Property;
      if (!is_property && m->kind != ast::DeclKind::Subscript) {
        members.push_back(m);
        continue;
      }
      auto* property = is_property ? static_cast<ast::PropertyDecl*>(m) : nullptr;
      auto* subscript = is_property ? nullptr : static_cast<ast::SubscriptDecl*>(m);
      std::string base = is_property ? m->name : "__subscript";
      std::string what = is_property ? "property '" + m->name + "'" : "'__subscript'";
      ast::TypeExpr* type = is_property ? property->type : subscript->result;
      std::vector<ast::VarDecl*> params;
      if (!is_property) params = subscript->params;
      std::vector<ast::FuncDecl*> accessors =
          is_property ? property->accessors : subscript->accessors;
      if (type == nullptr) continue;  // the parser reported
      if ((m->modifiers & ast::kModStatic) != 0) {
        diags_.Report(DiagId::UnsupportedConstruct, m->name_range,
                      "static properties and subscripts", "are");
        continue;
      }
      if (is_property) {
        for (ast::Decl* other : agg->members) {
          if (other->kind != ast::DeclKind::Var || other->name != m->name) continue;
          diags_.Report(DiagId::Redefinition, m->name_range, m->name)
              .Note(DiagId::PreviousDefinition, other->name_range, m->name);
        }
      }
      if (accessors.empty()) {
        // `property float x;` / `__subscript(int i) -> T;`: a getter without a body.
        auto* get = ctx_.New<ast::FuncDecl>("get", m->name_range);
        get->func_kind = ast::FuncKind::Getter;
        accessors.push_back(get);
      }
      ast::FuncDecl* getter = nullptr;
      ast::FuncDecl* setter = nullptr;
      for (ast::FuncDecl* acc : accessors) {
        if (acc->name == "ref") {
          diags_.Report(DiagId::UnsupportedConstruct, acc->name_range, "'ref' accessors", "are");
          continue;
        }
        ast::FuncDecl*& slot = acc->func_kind == ast::FuncKind::Setter ? setter : getter;
        if (slot != nullptr) {
          diags_.Report(DiagId::AccessorDuplicate, acc->name_range, what, acc->name);
          continue;
        }
        slot = acc;
      }
      if (getter == nullptr) {
        diags_.Report(DiagId::AccessorMissingGetter, m->name_range, what);
        continue;
      }
      if (!getter->params.empty()) {
        diags_.Report(DiagId::UnsupportedConstruct, getter->name_range,
                      "'get' accessors with parameters", "are");
      }
      getter->name = base + ".get";
      getter->func_kind = ast::FuncKind::Plain;
      getter->return_type = type;
      getter->params = params;
      getter->modifiers |= m->modifiers;
      members.push_back(getter);
      if (setter != nullptr) {
        std::vector<ast::VarDecl*> own = setter->params;
        if (own.size() > 1) {
          diags_.Report(DiagId::AccessorSetterType, setter->name_range, what, type->name);
          own.resize(1);
        }
        if (own.empty()) {
          auto* value = ctx_.New<ast::VarDecl>(ast::VarRole::Param, "newValue", setter->name_range);
          value->type_expr = type;
          own.push_back(value);
        }
        // The setter gets its own copies of the index parameters.
        std::vector<ast::VarDecl*> set_params;
        for (ast::VarDecl* p : params) set_params.push_back(ctx_.New<ast::VarDecl>(*p));
        set_params.push_back(own[0]);
        auto* void_type = ctx_.New<ast::TypeExpr>();
        void_type->name = "void";
        void_type->range = setter->name_range;
        setter->name = base + ".set";
        setter->func_kind = ast::FuncKind::Plain;
        setter->return_type = void_type;
        setter->params = std::move(set_params);
        setter->modifiers |= m->modifiers;
        // `[nonmutating] set` writes memory the object only refers to (a buffer).
        if (setter->FindAttribute("mutating") == nullptr &&
            setter->FindAttribute("nonmutating") == nullptr) {
          setter->attributes.push_back(ast::Attribute{"mutating", {}, setter->name_range});
        }
        members.push_back(setter);
        setter_of_[getter] = setter;
      }
      // The accessors stand where the property stood, in its namespace.
      if (auto ns = decl_ns_.find(m); ns != decl_ns_.end()) {
        decl_ns_[getter] = ns->second;
        if (setter != nullptr) decl_ns_[setter] = ns->second;
      }
      accessor_pairs_.push_back({getter, setter, what});
    }
    agg->members = std::move(members);
  }
}

void Checker::CheckAccessorSignatures() {
  for (const AccessorPair& pair : accessor_pairs_) {
    if (pair.setter == nullptr || pair.setter->params.empty()) continue;
    const Type* result = pair.getter->result_type;
    const ast::VarDecl* value = pair.setter->params.back();
    if (result == nullptr || value->type == nullptr || result->IsError() ||
        value->type->IsError()) {
      continue;
    }
    if (result->IsVoid()) {
      diags_.Report(DiagId::VoidValue, pair.getter->return_type->range);
      continue;
    }
    if (value->type != result) {
      diags_.Report(DiagId::AccessorSetterType, value->name_range, pair.what, result->Name());
    }
  }
}

ast::Expr* Checker::AccessorRead(ast::Expr* site, const Type* owner, ast::Expr* receiver,
                                 std::vector<ast::Expr*> args, const std::string& getter_name,
                                 const std::string& display, source::SourceRange range) {
  auto* call = ctx_.New<ast::CallExpr>(site->range, site, std::move(args));
  call->type = types_.Error();
  if (!ResolveCall(call, FindMethods(owner, getter_name), display, {})) return call;
  CheckAccess(call->func, range);
  if (call->func->this_param == nullptr) {
    call->static_owner = owner;
  } else {
    call->receiver = receiver;
  }
  accessor_reads_.insert(call);
  return call;
}

ast::Expr* Checker::CheckPropertyRead(ast::MemberExpr* expr) {
  const Type* owner = expr->base->type;
  if (owner->IsError() || owner->IsBuffer()) return nullptr;
  if (owner->IsStruct() && owner->Info()->FieldIndex(expr->member) >= 0) return nullptr;
  std::string getter = expr->member + ".get";
  if (FindMethods(owner, getter).empty()) return nullptr;
  return AccessorRead(expr, owner, expr->base, {}, getter, owner->Name() + "." + expr->member,
                      expr->member_range);
}

ast::Expr* Checker::CheckSubscriptRead(ast::IndexExpr* expr) {
  const Type* owner = expr->base->type;
  if (owner->IsError() || owner->IsBuffer() || owner->IsVector() || owner->IsArray() ||
      owner->IsMatrix() || expr->index->type->IsError()) {
    return nullptr;
  }
  for (const ast::Expr* index : expr->more_indices) {
    if (index->type->IsError()) return nullptr;
  }
  if (FindMethods(owner, "__subscript.get").empty()) return nullptr;
  std::vector<ast::Expr*> args{expr->index};
  args.insert(args.end(), expr->more_indices.begin(), expr->more_indices.end());
  return AccessorRead(expr, owner, expr->base, std::move(args), "__subscript.get",
                      owner->Name() + ".__subscript", expr->range);
}

ast::Expr* Checker::CheckImplicitProperty(ast::NameExpr* expr) {
  if (current_function_ == nullptr || current_function_->this_param == nullptr) return nullptr;
  ast::Decl* decl = Lookup(expr->name);
  bool global = decl != nullptr && scopes_.front().count(expr->name) != 0 &&
                scopes_.front().at(expr->name) == decl;
  if (decl != nullptr && !global) return nullptr;
  const Type* owner = CurrentOwner();
  if (owner == nullptr || FindMethods(owner, expr->name + ".get").empty()) return nullptr;
  auto* self = ctx_.New<ast::NameExpr>(expr->range, "this");
  auto* member = ctx_.New<ast::MemberExpr>(expr->range, self, expr->name, expr->range);
  return CheckExpr(member);
}

ast::Expr* Checker::CheckAccessorAssign(ast::AssignExpr* expr) {
  auto* get = static_cast<ast::CallExpr*>(expr->lhs);
  expr->type = get->type;
  ast::CallExpr* set = AccessorWriteback(get, expr->range);
  if (set == nullptr) return expr;
  if (expr->op == ast::OpKind::Assign) {
    expr->rhs = Coerce(expr->rhs, get->type);
  } else if (!CheckCompoundStep(expr, get)) {
    return expr;
  }
  expr->setter = set;
  return expr;
}

ast::CallExpr* Checker::AccessorWriteback(ast::CallExpr* get, source::SourceRange range) {
  const Type* owner = get->receiver != nullptr ? get->receiver->type : get->static_owner;
  std::string what = get->callee->kind == ast::ExprKind::Member
                         ? "property '" + owner->Name() + "." +
                               static_cast<ast::MemberExpr*>(get->callee)->member + "'"
                         : "an element of '" + owner->Name() + "' through its subscript";
  auto setter = setter_of_.find(get->func);
  std::vector<Candidate> candidates;
  if (setter != setter_of_.end()) {
    for (const Candidate& c : FindMethods(owner, setter->second->name)) {
      if (c.func == setter->second) candidates.push_back(c);
    }
  }
  if (candidates.empty()) {
    diags_.Report(DiagId::AccessorReadOnly, get->range, what)
        .Note(DiagId::DeclaredHere, get->func->name_range,
              get->func->name.substr(0, get->func->name.size() - 4));
    return nullptr;
  }
  // The setter's index arguments are the getter's; its value argument is the getter's
  // call, standing for the value lowering computes.
  std::vector<ast::Expr*> args = get->args;
  args.push_back(get);
  auto* set = ctx_.New<ast::CallExpr>(range, get->callee, std::move(args));
  set->type = types_.Error();
  std::string display = get->callee->kind == ast::ExprKind::Member
                            ? owner->Name() + "." + static_cast<ast::MemberExpr*>(get->callee)->member
                            : owner->Name() + ".__subscript";
  if (!ResolveCall(set, candidates, display, {})) return nullptr;
  if (set->func->this_param == nullptr) {
    set->static_owner = owner;
    return set;
  }
  if (set->func->is_mutating && !IsAssignableQuietly(get->receiver)) {
    diags_.Report(DiagId::AccessorReceiverNotAssignable, get->range, what,
                  DescribeReceiver(get->receiver));
    return nullptr;
  }
  set->receiver = get->receiver;
  NoteWritten(get->receiver);
  return set;
}

ast::Expr* Checker::CheckAccessorIncDec(ast::UnaryExpr* expr) {
  bool inc = expr->op == ast::OpKind::PreInc || expr->op == ast::OpKind::PostInc;
  auto* one = ctx_.New<ast::IntLiteralExpr>(expr->range, 1, false);
  one->type = types_.Int();
  auto* assign = ctx_.New<ast::AssignExpr>(expr->range, inc ? ast::OpKind::Add : ast::OpKind::Sub,
                                           expr->operand, one);
  assign->yields_old = expr->op == ast::OpKind::PostInc || expr->op == ast::OpKind::PostDec;
  return CheckAccessorAssign(assign);
}

}  // namespace slope::sema

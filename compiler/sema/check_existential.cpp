// Interface-typed values (existentials). A local with an initializer takes the
// initializer's concrete type, so calls through it are static. Fields, return values,
// uninitialized locals and arrays of interface type hold an existential value: lowering
// packs the concrete value with a tag naming its type and dispatches requirement calls
// on that tag.

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {
/// Whether `t` is `This` or an associated type, or is built from one.
bool MentionsSelf(const Type* t, const Type* this_type) {
  if (t == nullptr) return false;
  if (t == this_type || t->Kind() == TypeKind::AssocType) return true;
  if ((t->IsVector() || t->IsArray() || t->IsBuffer()) && MentionsSelf(t->Element(), this_type)) {
    return true;
  }
  for (const Type* a : t->Args()) {
    if (MentionsSelf(a, this_type)) return true;
  }
  return false;
}

/// Whether a value of type `t` holds a value of interface type `iface` (so packing it
/// into `iface` would make the existential contain itself).
bool HoldsInterface(TypeContext& types, const Type* t, const Type* iface, int depth = 0) {
  if (t == iface) return true;
  if (depth > 64) return false;
  if (t->IsArray()) return HoldsInterface(types, t->Element(), iface, depth + 1);
  if (!t->IsStruct()) return false;
  for (size_t i = 0; i < t->Info()->fields.size(); ++i) {
    if (HoldsInterface(types, types.FieldType(t, i), iface, depth + 1)) return true;
  }
  return false;
}
}  // namespace

namespace {

bool AssignsName(const ast::Expr* e, const std::string& name) {
  if (e == nullptr) return false;
  if (e->kind == ast::ExprKind::Assign) {
    auto* a = static_cast<const ast::AssignExpr*>(e);
    return a->lhs->kind == ast::ExprKind::Name &&
           static_cast<const ast::NameExpr*>(a->lhs)->name == name;
  }
  if (e->kind == ast::ExprKind::Binary) {  // `a = x, b = y`
    auto* b = static_cast<const ast::BinaryExpr*>(e);
    return b->op == ast::OpKind::Comma && (AssignsName(b->lhs, name) || AssignsName(b->rhs, name));
  }
  return false;
}

/// Whether a statement of `s` assigns to a variable called `name` (`name = value;`).
bool AssignsName(const ast::Stmt* s, const std::string& name) {
  if (s == nullptr) return false;
  switch (s->kind) {
    case ast::StmtKind::Block:
      for (const ast::Stmt* inner : static_cast<const ast::BlockStmt*>(s)->stmts) {
        if (AssignsName(inner, name)) return true;
      }
      return false;
    case ast::StmtKind::Expr:
      return AssignsName(static_cast<const ast::ExprStmt*>(s)->expr, name);
    case ast::StmtKind::If: {
      auto* i = static_cast<const ast::IfStmt*>(s);
      return AssignsName(i->then_stmt, name) || AssignsName(i->else_stmt, name);
    }
    case ast::StmtKind::For: {
      auto* f = static_cast<const ast::ForStmt*>(s);
      return AssignsName(f->init, name) || AssignsName(f->step, name) || AssignsName(f->body, name);
    }
    case ast::StmtKind::While:
      return AssignsName(static_cast<const ast::WhileStmt*>(s)->body, name);
    case ast::StmtKind::DoWhile:
      return AssignsName(static_cast<const ast::DoWhileStmt*>(s)->body, name);
    case ast::StmtKind::Switch:
      return AssignsName(static_cast<const ast::SwitchStmt*>(s)->body, name);
    case ast::StmtKind::Defer:
      return AssignsName(static_cast<const ast::DeferStmt*>(s)->body, name);
    case ast::StmtKind::DoCatch: {
      auto* d = static_cast<const ast::DoCatchStmt*>(s);
      if (AssignsName(d->body, name)) return true;
      for (const ast::CatchClause& c : d->clauses) {
        if (AssignsName(c.body, name)) return true;
      }
      return false;
    }
    default:
      return false;
  }
}

}  // namespace

void Checker::CheckInterfaceLocal(ast::VarDecl* var) {
  const Type* iface = var->type;
  if (var->init != nullptr && !var->is_let && current_function_ != nullptr &&
      AssignsName(current_function_->body, var->name)) {
    // `IAnimal a = dog; ... a = bird;`: the local holds values of several conforming
    // types, so it is an interface-typed value whose type is chosen at run time.
    var->init = CheckAs(var->init, iface);
    Declare(var);
    return;
  }
  if (var->init != nullptr) {
    var->init = CheckExpr(var->init);
    var->type = var->init->type;
    if (!var->type->IsError() && var->type != iface && !types_.Conforms(var->type, iface)) {
      diags_.Report(DiagId::CannotConvert, var->init->range, var->type->Name(), iface->Name());
      var->type = types_.Error();
    }
  }
  Declare(var);
}

void Checker::CheckExistentialPayload(const ast::Expr* expr, const Type* iface) {
  const Type* from = expr->type;
  if (ContainsResource(from)) {
    diags_.Report(DiagId::InterfaceValueUnsupported, expr->range, from->Name(), iface->Name(),
                  "it holds a resource; pass it to a parameter of the interface type, or make "
                  "the holder generic over a type parameter constrained by the interface");
  } else if (HoldsInterface(types_, from, iface)) {
    diags_.Report(DiagId::InterfaceValueUnsupported, expr->range, from->Name(), iface->Name(),
                  "it holds a value of that interface type itself");
  }
}

bool Checker::CheckDispatchable(const ast::CallExpr* call, const ast::FuncDecl* req,
                                const Type* iface) {
  const Type* self = iface->Iface()->this_type;
  const char* why = nullptr;
  if ((req->modifiers & ast::kModStatic) != 0) {
    why = "it is a static requirement, which needs a concrete type";
  } else if (MentionsSelf(req->result_type, self)) {
    why = "its result type depends on the concrete type ('This' or an associated type)";
  } else {
    for (const ast::VarDecl* p : req->params) {
      if (MentionsSelf(p->type, self)) {
        why = "a parameter type depends on the concrete type ('This' or an associated type)";
      }
    }
  }
  if (why == nullptr) return true;
  diags_.Report(DiagId::RequirementNotDispatchable, call->range, req->name, iface->Name(), why)
      .Note(DiagId::RequirementHere, req->name_range, req->name);
  return false;
}

}  // namespace slope::sema

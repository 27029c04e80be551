// `out` and `inout` parameters. The argument of one must be assignable storage of the
// parameter's type exactly: a variable, a field, a swizzle without repeated components,
// an array element, a writable buffer element or a place reached through a pointer. Lowering copies it in (for `inout`),
// passes the callee a pointer to a temporary and copies the temporary back after the
// call. An `out` parameter the callee never writes is warned about.

#include <functional>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {
/// Whether `e` (checked) names storage an `out` argument may write.
bool IsWritableStorage(const ast::Expr* e) {
  switch (e->kind) {
    case ast::ExprKind::Name: {
      const ast::Decl* decl = static_cast<const ast::NameExpr*>(e)->decl;
      if (decl == nullptr || decl->kind != ast::DeclKind::Var) return false;
      auto* var = static_cast<const ast::VarDecl*>(decl);
      return !var->type->IsResource() && !var->is_let && !var->is_const;
    }
    case ast::ExprKind::Index: {
      auto* index = static_cast<const ast::IndexExpr*>(e);
      const Type* base = index->base->type;
      if (base->IsBuffer() || base->IsTexture()) return base->IsWritable();
      // An element of a swizzle has no storage of its own.
      if (base->IsVector() && index->base->kind == ast::ExprKind::Member &&
          static_cast<const ast::MemberExpr*>(index->base)->field_index < 0) {
        return false;
      }
      return IsWritableStorage(index->base);
    }
    case ast::ExprKind::Member: {
      auto* member = static_cast<const ast::MemberExpr*>(e);
      for (size_t i = 0; i < member->swizzle.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (member->swizzle[i] == member->swizzle[j]) return false;
        }
      }
      if (member->field_index < 0 && member->swizzle.empty()) return false;
      return IsWritableStorage(member->base);
    }
    case ast::ExprKind::Unary:
      // `*p` (and `p->f`, `p[i]`, which become it): device memory, copied in and out.
      return static_cast<const ast::UnaryExpr*>(e)->op == ast::OpKind::Deref;
    default:
      return false;
  }
}

/// The variable at the root of an l-value (`v` in `v.a[2].x`), or null.
const ast::VarDecl* RootVar(const ast::Expr* e) {
  while (true) {
    switch (e->kind) {
      case ast::ExprKind::Name: {
        const ast::Decl* decl = static_cast<const ast::NameExpr*>(e)->decl;
        return decl != nullptr && decl->kind == ast::DeclKind::Var
                   ? static_cast<const ast::VarDecl*>(decl)
                   : nullptr;
      }
      case ast::ExprKind::Index: e = static_cast<const ast::IndexExpr*>(e)->base; break;
      case ast::ExprKind::Member: e = static_cast<const ast::MemberExpr*>(e)->base; break;
      default: return nullptr;
    }
  }
}

const char* DirectionName(ast::ParamDirection d) {
  return d == ast::ParamDirection::Out ? "out" : "inout";
}
}  // namespace

void Checker::CheckOutArguments(ast::CallExpr* call, const ast::FuncDecl* f) {
  for (size_t i = 0; i < f->params.size() && i < call->args.size(); ++i) {
    const ast::VarDecl* param = f->params[i];
    if (param->direction == ast::ParamDirection::In) continue;
    ast::Expr* arg = call->args[i];
    const Type* want = arg->type;  // the parameter's type: the argument was coerced to it
    // Conversions sema inserted are not storage; the argument itself must be.
    ast::Expr* inner = arg;
    while (inner->kind == ast::ExprKind::ImplicitCast) {
      inner = static_cast<ast::ImplicitCastExpr*>(inner)->operand;
    }
    if (inner->type->IsError() || want->IsError()) continue;
    if (IsAccessorRead(inner) && inner->type == want) {
      // A property or subscript: read into the temporary, stored back by its setter.
      ast::CallExpr* set = AccessorWriteback(static_cast<ast::CallExpr*>(inner), inner->range);
      if (set == nullptr) continue;
      call->writebacks.resize(call->args.size(), nullptr);
      call->writebacks[i] = set;
      call->args[i] = inner;
      continue;
    }
    if (!IsWritableStorage(inner)) {
      if (!capture_refs_.empty() && ReportCaptureAssign(inner)) continue;
      diags_.Report(DiagId::OutArgNotLValue, inner->range, i + 1, f->name,
                    DirectionName(param->direction))
          .Note(DiagId::DeclaredHere, param->name_range, param->name);
      continue;
    }
    if (inner->type != want) {
      diags_.Report(DiagId::CannotConvert, inner->range, inner->type->Name(), want->Name());
      continue;
    }
    call->args[i] = inner;
    NoteWritten(inner);
  }
}

void Checker::NoteWritten(const ast::Expr* expr) {
  const ast::VarDecl* root = RootVar(expr);
  auto it = out_written_.find(root);
  if (it != out_written_.end()) it->second = true;
}

void Checker::BeginOutParams(ast::FuncDecl* func) {
  out_written_.clear();
  for (const ast::VarDecl* p : func->params) {
    if (p->direction == ast::ParamDirection::Out) out_written_[p] = false;
  }
  if (func->FindAttribute("shader") == nullptr) return;
  for (const ast::VarDecl* p : func->params) {
    if (p->direction != ast::ParamDirection::In) {
      diags_.Report(DiagId::InvalidEntryParameter, p->name_range, p->name,
                    std::string("cannot be '") + DirectionName(p->direction) + "'");
    }
  }
}

void Checker::CheckOutParamsWritten(ast::FuncDecl* func) {
  for (const ast::VarDecl* p : func->params) {
    auto it = out_written_.find(p);
    if (it != out_written_.end() && !it->second) {
      diags_.Report(DiagId::OutParamNeverWritten, p->name_range, p->name);
    }
  }
  out_written_.clear();
}


// ---------------------------------------------------------------------------------------
// Default parameter values: `float f(float x, float s = 2.0)`. A call may leave out the
// trailing parameters that have one; ResolveCall appends their values to the call, so
// that lowering sees every argument. A default of a type that does not depend on generic
// parameters is checked once, with the signature, and shared by every call; one whose
// type is generic (`T s = 1.0` with T a generic parameter) must be a literal, checked
// anew at each call against the type the call binds.

namespace {
/// Whether `e` (unchecked) is a numeric or bool literal, possibly negated.
bool IsLiteral(const ast::Expr* e) {
  if (e->kind == ast::ExprKind::Unary) {
    auto* u = static_cast<const ast::UnaryExpr*>(e);
    return (u->op == ast::OpKind::Neg || u->op == ast::OpKind::Plus) && IsLiteral(u->operand);
  }
  return e->kind == ast::ExprKind::IntLiteral || e->kind == ast::ExprKind::FloatLiteral ||
         e->kind == ast::ExprKind::BoolLiteral;
}
}  // namespace

void Checker::CheckDefaultValues(ast::FuncDecl* func) {
  const ast::VarDecl* first_default = nullptr;
  for (ast::VarDecl* param : func->params) {
    if (param->init == nullptr) {
      if (first_default != nullptr) {
        diags_.Report(DiagId::DefaultParamOrder, param->name_range, param->name, first_default->name)
            .Note(DiagId::DeclaredHere, first_default->name_range, first_default->name);
      }
      continue;
    }
    if (first_default == nullptr) first_default = param;
    if (param->init->type != nullptr) continue;  // checked already
    if (param->direction != ast::ParamDirection::In) {
      diags_.Report(DiagId::DefaultOnOutParam, param->init->range, DirectionName(param->direction),
                    param->name);
      param->init = nullptr;
      continue;
    }
    if (param->type->IsError()) continue;
    if (param->type->IsDependent()) {
      // `T y = T(2)`: the conversion of a literal to the parameter's own type is the
      // literal, converted for each call's T.
      if (param->init->kind == ast::ExprKind::Call && param->type_expr != nullptr) {
        auto* call = static_cast<ast::CallExpr*>(param->init);
        if (call->callee->kind == ast::ExprKind::Name && call->args.size() == 1 &&
            static_cast<ast::NameExpr*>(call->callee)->name == param->type_expr->name &&
            param->type_expr->type_args.empty() && IsLiteral(call->args[0])) {
          param->init = call->args[0];
        }
      }
      if (!IsLiteral(param->init)) {
        diags_.Report(DiagId::DefaultValueGeneric, param->init->range, param->name,
                      param->type->Name());
        param->init = nullptr;
      }
      continue;
    }
    ast::Expr* value = CheckAs(param->init, param->type);
    if (value->type->IsError()) {
      param->init = nullptr;
      continue;
    }
    param->init = value;
  }
}

size_t Checker::RequiredParams(const ast::FuncDecl* f) {
  size_t n = f->params.size();
  while (n > 0 && f->params[n - 1]->init != nullptr) --n;
  return n;
}

ast::Expr* Checker::DefaultArgument(ast::VarDecl* param, const Type* type) {
  if (param->init->type != nullptr) return Coerce(param->init, type);
  // A literal of generic type: a fresh copy, checked against this call's type.
  std::function<ast::Expr*(const ast::Expr*)> copy = [&](const ast::Expr* e) -> ast::Expr* {
    switch (e->kind) {
      case ast::ExprKind::IntLiteral:
        return ctx_.New<ast::IntLiteralExpr>(*static_cast<const ast::IntLiteralExpr*>(e));
      case ast::ExprKind::FloatLiteral:
        return ctx_.New<ast::FloatLiteralExpr>(*static_cast<const ast::FloatLiteralExpr*>(e));
      case ast::ExprKind::BoolLiteral:
        return ctx_.New<ast::BoolLiteralExpr>(*static_cast<const ast::BoolLiteralExpr*>(e));
      default: {
        auto* u = static_cast<const ast::UnaryExpr*>(e);
        return ctx_.New<ast::UnaryExpr>(u->range, u->op, copy(u->operand));
      }
    }
  };
  return Coerce(CheckExpr(copy(param->init)), type);
}

}  // namespace slope::sema

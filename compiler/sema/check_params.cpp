// `out` and `inout` parameters. The argument of one must be assignable storage of the
// parameter's type exactly: a variable, a field, a swizzle without repeated components,
// an array element or a writable buffer element. Lowering copies it in (for `inout`),
// passes the callee a pointer to a temporary and copies the temporary back after the
// call. An `out` parameter the callee never writes is warned about.

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
      return !var->type->IsBuffer() && !var->is_let && !var->is_const;
    }
    case ast::ExprKind::Index: {
      auto* index = static_cast<const ast::IndexExpr*>(e);
      const Type* base = index->base->type;
      if (base->IsBuffer()) return base->IsWritable();
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
    if (!IsWritableStorage(inner)) {
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

}  // namespace slope::sema

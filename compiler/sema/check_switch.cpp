// Switch statements: the selector, the case labels and the clauses they start, and the
// integer constant expressions case values are written with.
//
// A clause is one or more labels and the statements up to the next label. As in HLSL,
// control may pass from one clause into the next only when the first has no statements
// (`case 1: case 2: ...` shares one body); a non-empty clause that can reach its end is
// an error unless it is the last one, which leaves the switch.

#include <map>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

bool Checker::EvaluateIntConstant(const ast::Expr* e, int64_t* out, int depth) {
  // Deep enough for any constant written by hand; stops cycles through bad constants.
  if (e == nullptr || e->type == nullptr || depth > 64) return false;
  const Type* t = e->type;
  if (t->IsEnum()) t = t->Element();  // an enumerator: its underlying value
  if (t != types_.Int() && t != types_.UInt() && t != types_.Bool()) return false;
  auto result = [&](int64_t v) {
    *out = t == types_.Int()    ? static_cast<int64_t>(static_cast<int32_t>(v))
           : t == types_.UInt() ? static_cast<int64_t>(static_cast<uint32_t>(v))
                                : static_cast<int64_t>(v != 0);
    return true;
  };
  int64_t a = 0, b = 0, c = 0;
  switch (e->kind) {
    case ast::ExprKind::IntLiteral:
      return result(static_cast<int64_t>(static_cast<const ast::IntLiteralExpr*>(e)->value));
    case ast::ExprKind::BoolLiteral:
      return result(static_cast<const ast::BoolLiteralExpr*>(e)->value ? 1 : 0);
    case ast::ExprKind::Name: {
      const ast::Decl* decl = static_cast<const ast::NameExpr*>(e)->decl;
      if (decl == nullptr || decl->kind != ast::DeclKind::Var) return false;
      const auto* var = static_cast<const ast::VarDecl*>(decl);
      if (!var->is_const || var->init == nullptr) return false;
      return EvaluateIntConstant(var->init, &a, depth + 1) && result(a);
    }
    case ast::ExprKind::Cast:
    case ast::ExprKind::ImplicitCast: {
      const ast::Expr* operand = e->kind == ast::ExprKind::Cast
                                     ? static_cast<const ast::CastExpr*>(e)->operand
                                     : static_cast<const ast::ImplicitCastExpr*>(e)->operand;
      return EvaluateIntConstant(operand, &a, depth + 1) && result(a);
    }
    case ast::ExprKind::Unary: {
      const auto* u = static_cast<const ast::UnaryExpr*>(e);
      if (!EvaluateIntConstant(u->operand, &a, depth + 1)) return false;
      switch (u->op) {
        case ast::OpKind::Neg: return result(-a);
        case ast::OpKind::Plus: return result(a);
        case ast::OpKind::BitNot: return result(~a);
        case ast::OpKind::Not: return result(a == 0 ? 1 : 0);
        default: return false;
      }
    }
    case ast::ExprKind::Binary: {
      const auto* bin = static_cast<const ast::BinaryExpr*>(e);
      if (!EvaluateIntConstant(bin->lhs, &a, depth + 1) ||
          !EvaluateIntConstant(bin->rhs, &b, depth + 1)) {
        return false;
      }
      // Operands are normalised to their 32-bit type, so int64 arithmetic followed by
      // truncation gives the wrapping 32-bit result, and comparisons need no sign care.
      switch (bin->op) {
        case ast::OpKind::Add: return result(a + b);
        case ast::OpKind::Sub: return result(a - b);
        case ast::OpKind::Mul: return result(a * b);
        case ast::OpKind::Div: return b != 0 && result(a / b);
        case ast::OpKind::Rem: return b != 0 && result(a % b);
        case ast::OpKind::BitAnd: return result(a & b);
        case ast::OpKind::BitOr: return result(a | b);
        case ast::OpKind::BitXor: return result(a ^ b);
        case ast::OpKind::Shl: return b >= 0 && b < 32 && result(a << b);
        case ast::OpKind::Shr: return b >= 0 && b < 32 && result(a >> b);
        case ast::OpKind::LogicalAnd: return result(a != 0 && b != 0);
        case ast::OpKind::LogicalOr: return result(a != 0 || b != 0);
        case ast::OpKind::Eq: return result(a == b);
        case ast::OpKind::Ne: return result(a != b);
        case ast::OpKind::Lt: return result(a < b);
        case ast::OpKind::Le: return result(a <= b);
        case ast::OpKind::Gt: return result(a > b);
        case ast::OpKind::Ge: return result(a >= b);
        default: return false;
      }
    }
    case ast::ExprKind::Conditional: {
      const auto* cond = static_cast<const ast::ConditionalExpr*>(e);
      if (!EvaluateIntConstant(cond->cond, &c, depth + 1)) return false;
      return EvaluateIntConstant(c != 0 ? cond->then_expr : cond->else_expr, &a, depth + 1) &&
             result(a);
    }
    default:
      return false;
  }
}

bool Checker::CheckSwitch(ast::SwitchStmt* s) {
  s->value = CheckExpr(s->value);
  // An enum selects by its underlying value; its cases are constants of that type.
  if (s->value->type->IsEnum()) s->value = ExplicitConvert(s->value, s->value->type->Element());
  const Type* selector = s->value->type;
  bool selector_ok = selector == types_.Int() || selector == types_.UInt();
  if (!selector_ok && !selector->IsError()) {
    diags_.Report(DiagId::SwitchSelectorNotInteger, s->value->range, selector->Name());
  }
  switches_.push_back(SwitchScope{loop_depth_, false});
  std::map<uint32_t, const ast::CaseStmt*> seen;
  const ast::CaseStmt* default_label = nullptr;
  const ast::CaseStmt* clause_label = nullptr;  // the first label of the current clause
  bool clause_has_stmts = false;
  bool reachable = true;  // whether control reaches the current point of the clause
  bool warned = false;
  scopes_.emplace_back();
  const char* ender = "break";
  for (ast::Stmt* stmt : s->body->stmts) {
    if (stmt->kind != ast::StmtKind::Case) {
      if (clause_label == nullptr) {
        // Nothing could ever run it; report the first such statement only.
        if (!warned) diags_.Report(DiagId::StatementBeforeCase, stmt->range);
        warned = true;
        continue;
      }
      if (stmt->kind == ast::StmtKind::Empty) continue;
      if (!reachable && !warned) {
        diags_.Report(DiagId::UnreachableCode, stmt->range, ender);
        warned = true;
      }
      clause_has_stmts = true;
      bool next = CheckStmt(stmt);
      if (reachable && !next) ender = JumpKeyword(stmt);
      reachable = reachable && next;
      if (diags_.LimitReached()) break;
      continue;
    }
    auto* label = static_cast<ast::CaseStmt*>(stmt);
    CheckAttributes(label->attributes, {});
    if (clause_label == nullptr) {
      clause_label = label;
      warned = false;
    } else if (clause_has_stmts) {
      // A new clause starts here: the one before must not run into it.
      if (reachable) diags_.Report(DiagId::SwitchFallThrough, clause_label->range);
      scopes_.pop_back();
      scopes_.emplace_back();
      clause_label = label;
      clause_has_stmts = false;
      reachable = true;
      warned = false;
    }
    if (label->value == nullptr) {
      if (default_label != nullptr) {
        diags_.Report(DiagId::DuplicateCase, label->range, "'default' label")
            .Note(DiagId::PreviousDefinition, default_label->range, "default");
      }
      default_label = label;
      continue;
    }
    label->value = CheckExpr(label->value);
    int64_t value = 0;
    if (label->value->type->IsError()) continue;
    if (!EvaluateIntConstant(label->value, &value) || label->value->type == types_.Bool()) {
      diags_.Report(DiagId::CaseNotConstant, label->value->range);
      continue;
    }
    if (!selector_ok) continue;
    // The value converts to the selector's type: both are 32 bits wide.
    auto bits = static_cast<uint32_t>(value);
    auto [it, inserted] = seen.emplace(bits, label);
    std::string shown = selector == types_.Int()
                            ? std::to_string(static_cast<int32_t>(bits))
                            : std::to_string(bits);
    if (!inserted) {
      diags_.Report(DiagId::DuplicateCase, label->value->range, "case value " + shown)
          .Note(DiagId::PreviousDefinition, it->second->range, "case " + shown);
    }
    auto* literal = ctx_.New<ast::IntLiteralExpr>(label->value->range, bits,
                                                  selector == types_.UInt());
    literal->type = selector;
    label->value = literal;
  }
  scopes_.pop_back();
  bool broken = switches_.back().broken;
  switches_.pop_back();
  // The end is reached by a `break`, by the last clause, or when no label matches.
  return broken || reachable || default_label == nullptr;
}

}  // namespace slope::sema

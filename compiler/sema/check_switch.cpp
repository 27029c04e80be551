// Switch statements: the selector, the case labels and the clauses they start, and the
// integer constant expressions case values are written with.
//
// A clause is one or more labels and the statements up to the next label. As in HLSL,
// control may pass from one clause into the next only when the first has no statements
// (`case 1: case 2: ...` shares one body); a non-empty clause that can reach its end is
// an error unless it is the last one, which leaves the switch.

#include <algorithm>
#include <map>

#include "compiler/sema/checker.h"
#include "compiler/sema/int_arith.h"

namespace slope::sema {

using diag::DiagId;

namespace {
/// Height limit of a constant's expression with the constants it names expanded in place
/// (as lowering expands them): the parser's limit for one expression.
constexpr uint32_t kMaxConstantHeight = 4096;
/// Longest chain of constants defined through constants that EvaluateIntConstant follows:
/// each link adds at least one level of height.
constexpr int kMaxConstantChain = static_cast<int>(kMaxConstantHeight);

/// The height the parser gave `e`, through the conversions sema wrapped around it.
uint32_t HeightOf(const ast::Expr* e) {
  uint32_t wrappers = 0;
  while (e->kind == ast::ExprKind::ImplicitCast) {
    e = static_cast<const ast::ImplicitCastExpr*>(e)->operand;
    ++wrappers;
  }
  return e->height + wrappers;
}

/// The global constants an expression names, with the names, in order.
void CollectConstantRefs(const ast::Expr* e,
                         std::vector<std::pair<ast::VarDecl*, const ast::Expr*>>& out) {
  if (e == nullptr) return;
  switch (e->kind) {
    case ast::ExprKind::Name: {
      ast::Decl* decl = static_cast<const ast::NameExpr*>(e)->decl;
      if (decl == nullptr || decl->kind != ast::DeclKind::Var) return;
      auto* var = static_cast<ast::VarDecl*>(decl);
      if (var->is_const && var->init != nullptr && var->role == ast::VarRole::Global) {
        out.push_back({var, e});
      }
      return;
    }
    case ast::ExprKind::Unary:
      return CollectConstantRefs(static_cast<const ast::UnaryExpr*>(e)->operand, out);
    case ast::ExprKind::Binary:
      CollectConstantRefs(static_cast<const ast::BinaryExpr*>(e)->lhs, out);
      return CollectConstantRefs(static_cast<const ast::BinaryExpr*>(e)->rhs, out);
    case ast::ExprKind::Conditional: {
      auto* c = static_cast<const ast::ConditionalExpr*>(e);
      CollectConstantRefs(c->cond, out);
      CollectConstantRefs(c->then_expr, out);
      return CollectConstantRefs(c->else_expr, out);
    }
    case ast::ExprKind::Cast:
      return CollectConstantRefs(static_cast<const ast::CastExpr*>(e)->operand, out);
    case ast::ExprKind::ImplicitCast:
      return CollectConstantRefs(static_cast<const ast::ImplicitCastExpr*>(e)->operand, out);
    case ast::ExprKind::Call:
      for (const ast::Expr* a : static_cast<const ast::CallExpr*>(e)->args) {
        CollectConstantRefs(a, out);
      }
      return;
    case ast::ExprKind::InitList:
      for (const ast::Expr* a : static_cast<const ast::InitListExpr*>(e)->elements) {
        CollectConstantRefs(a, out);
      }
      return;
    case ast::ExprKind::Member:
      return CollectConstantRefs(static_cast<const ast::MemberExpr*>(e)->base, out);
    case ast::ExprKind::Index:
      CollectConstantRefs(static_cast<const ast::IndexExpr*>(e)->base, out);
      return CollectConstantRefs(static_cast<const ast::IndexExpr*>(e)->index, out);
    default:
      return;
  }
}
}  // namespace

void Checker::CheckConstantCycles() {
  // Depth-first search over "initializer names constant" edges with an explicit stack;
  // an edge back to a constant on the stack closes a cycle.
  enum class State : uint8_t { kOnStack, kDone };
  std::unordered_map<const ast::VarDecl*, State> state;
  // The height of each finished constant's expression with the constants it names
  // expanded: its own height plus the tallest of theirs (an upper bound).
  std::unordered_map<const ast::VarDecl*, uint32_t> expanded;
  struct Frame {
    ast::VarDecl* var;
    std::vector<std::pair<ast::VarDecl*, const ast::Expr*>> refs;
    size_t next = 0;
  };
  std::vector<Frame> stack;
  auto push = [&](ast::VarDecl* var) {
    state[var] = State::kOnStack;
    Frame frame{var, {}, 0};
    CollectConstantRefs(var->init, frame.refs);
    stack.push_back(std::move(frame));
  };
  for (ast::VarDecl* root : static_consts_) {
    if (state.count(root) != 0) continue;
    push(root);
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == top.refs.size()) {
        state[top.var] = State::kDone;
        uint32_t below = 0;
        for (const auto& ref : top.refs) {
          auto h = expanded.find(ref.first);
          if (h != expanded.end()) below = std::max(below, h->second);
        }
        uint32_t height = HeightOf(top.var->init) + below;
        if (height > kMaxConstantHeight && below <= kMaxConstantHeight) {
          diags_.Report(DiagId::ConstantTooDeep, top.var->name_range, top.var->name,
                        kMaxConstantHeight);
        }
        expanded[top.var] = height;
        stack.pop_back();
        continue;
      }
      auto [to, at] = top.refs[top.next++];
      auto it = state.find(to);
      if (it == state.end()) {
        push(to);
        continue;
      }
      if (it->second == State::kDone) continue;
      size_t first = 0;
      while (stack[first].var != to) ++first;
      std::string cycle;
      for (size_t i = first; i < stack.size(); ++i) cycle += "'" + stack[i].var->name + "' -> ";
      cycle += "'" + to->name + "'";
      diags_.Report(DiagId::ConstantCycle, at->range, to->name, cycle);
    }
  }
}

bool Checker::EvaluateIntConstant(const ast::Expr* e, int64_t* out, int depth) {
  if (e == nullptr || e->type == nullptr) return false;
  const Type* t = e->type;
  if (t->IsEnum()) t = t->Element();  // an enumerator: its underlying value
  if (t->Kind() != TypeKind::Int && t->Kind() != TypeKind::UInt && t != types_.Bool()) {
    return false;
  }
  const int64_t width = t->Width();
  auto result = [&](int64_t v) {
    *out = t == types_.Bool() ? static_cast<int64_t>(v != 0)
                              : WrapToWidth(v, width, t->Kind() == TypeKind::Int);
    return true;
  };
  // Arithmetic whose exact result the type cannot hold (`65536 * 65536` in an int):
  // recorded for messages that would otherwise show only the wrapped value.
  auto arithmetic = [&](int64_t v) {
    if (t != types_.Bool() && WrapToWidth(v, width, t->Kind() == TypeKind::Int) != v) {
      constant_wrapped_ = true;
    }
    return result(v);
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
      if (!var->is_const || var->init == nullptr || IsSpecConstantDecl(var)) return false;
      // `depth` counts constants named through constants; expressions are bounded by the
      // parser's height limit.
      auto memo = const_values_.find(var);
      if (memo != const_values_.end()) {
        if (wrapped_consts_.count(var) != 0) constant_wrapped_ = true;
        return memo->second.has_value() && result(*memo->second);
      }
      if (depth > kMaxConstantChain) return false;
      const_values_[var] = std::nullopt;  // in progress: a cycle finds no value
      // Whether this constant's own arithmetic wrapped, remembered with its value.
      bool wrapped_before = constant_wrapped_;
      constant_wrapped_ = false;
      bool evaluated = EvaluateIntConstant(var->init, &a, depth + 1);
      if (evaluated && constant_wrapped_) wrapped_consts_.insert(var);
      constant_wrapped_ = constant_wrapped_ || wrapped_before;
      if (!evaluated) {
        const_values_.erase(var);  // may have a value once its initializer is checked
        return false;
      }
      const_values_[var] = a;
      return result(a);
    }
    case ast::ExprKind::Cast:
    case ast::ExprKind::ImplicitCast: {
      const ast::Expr* operand = e->kind == ast::ExprKind::Cast
                                     ? static_cast<const ast::CastExpr*>(e)->operand
                                     : static_cast<const ast::ImplicitCastExpr*>(e)->operand;
      return EvaluateIntConstant(operand, &a, depth) && result(a);
    }
    case ast::ExprKind::Pack: {
      // `sizeof(T)` / `alignof(T)` of a type known here.
      auto* query = static_cast<const ast::PackExpr*>(e);
      if (query->form != ast::PackExpr::kSizeOf && query->form != ast::PackExpr::kAlignOf) {
        return false;
      }
      if (query->pack == nullptr || types_.NaturalLayout(query->pack, &a, &b) != nullptr) {
        return false;
      }
      return result(query->form == ast::PackExpr::kSizeOf ? a : b);
    }
    case ast::ExprKind::Unary: {
      const auto* u = static_cast<const ast::UnaryExpr*>(e);
      if (!EvaluateIntConstant(u->operand, &a, depth)) return false;
      switch (u->op) {
        case ast::OpKind::Neg: return arithmetic(WrapNeg(a));
        case ast::OpKind::Plus: return result(a);
        case ast::OpKind::BitNot: return result(~a);
        case ast::OpKind::Not: return result(a == 0 ? 1 : 0);
        default: return false;
      }
    }
    case ast::ExprKind::Binary: {
      const auto* bin = static_cast<const ast::BinaryExpr*>(e);
      if (!EvaluateIntConstant(bin->lhs, &a, depth) ||
          !EvaluateIntConstant(bin->rhs, &b, depth)) {
        return false;
      }
      // Operands are normalised to their type, so 64-bit arithmetic followed by
      // truncation gives the wrapping result of narrower types.
      const Type* operand = bin->lhs->type->IsEnum() ? bin->lhs->type->Element()
                                                     : bin->lhs->type;
      bool unsigned64 = operand->Kind() == TypeKind::UInt && operand->Width() == 64;
      switch (bin->op) {
        case ast::OpKind::Add: return arithmetic(WrapAdd(a, b));
        case ast::OpKind::Sub: return arithmetic(WrapAdd(a, WrapNeg(b)));
        case ast::OpKind::Mul: return arithmetic(WrapMul(a, b));
        case ast::OpKind::Div:
        case ast::OpKind::Rem:
          return DivideInts(bin->op == ast::OpKind::Rem, a, b, unsigned64, &c) && result(c);
        case ast::OpKind::BitAnd: return result(a & b);
        case ast::OpKind::BitOr: return result(a | b);
        case ast::OpKind::BitXor: return result(a ^ b);
        case ast::OpKind::Shl: return b >= 0 && b < width && arithmetic(a << b);
        case ast::OpKind::Shr: return b >= 0 && b < width && result(a >> b);
        case ast::OpKind::LogicalAnd: return result(a != 0 && b != 0);
        case ast::OpKind::LogicalOr: return result(a != 0 || b != 0);
        case ast::OpKind::Eq: return result(a == b);
        case ast::OpKind::Ne: return result(a != b);
        case ast::OpKind::Lt: return result(Less(a, b, unsigned64));
        case ast::OpKind::Le: return result(!Less(b, a, unsigned64));
        case ast::OpKind::Gt: return result(Less(b, a, unsigned64));
        case ast::OpKind::Ge: return result(!Less(a, b, unsigned64));
        default: return false;
      }
    }
    case ast::ExprKind::Conditional: {
      const auto* cond = static_cast<const ast::ConditionalExpr*>(e);
      if (!EvaluateIntConstant(cond->cond, &c, depth)) return false;
      return EvaluateIntConstant(c != 0 ? cond->then_expr : cond->else_expr, &a, depth) &&
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
  // Narrower integers are promoted to int, as C promotes them (every value fits).
  if (const Type* t = s->value->type; t->IsScalar() &&
                                      (t->Kind() == TypeKind::Int || t->Kind() == TypeKind::UInt) &&
                                      t->Width() < 32) {
    s->value = ExplicitConvert(s->value, types_.Int());
  }
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
    CheckAttributes(label->attributes, {}, "a case label");
    if (clause_label == nullptr) {
      clause_label = label;
      warned = false;
    } else if (clause_has_stmts) {
      // A new clause starts here; when the one before can end normally it falls
      // through into this one, as in HLSL.
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
      if (ReportSpecConstantUse(label->value, "a case value")) continue;
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

// Specialization constants: `[vk::constant_id(N)] const int k = 4;` and
// `[SpecializationConstant] const float s = 1.5;`. Such a global is a 32-bit scalar
// (int, uint, float or bool) with an initializer known at compile time, which sema folds
// to a literal: its default. Lowering makes it an IR specialization constant (a global
// read as a value) that the SPIR-V writer emits as OpSpecConstant* with SpecId N and the
// GLSL writer as `layout(constant_id = N) const`; the CUDA and CPU targets compile the
// default in. Where a value must be known at compile time (an array size, [numthreads],
// a case label, a generic argument), naming one is an error.

#include <map>
#include <string>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {

const ast::Attribute* SpecAttribute(const ast::VarDecl* var) {
  for (const ast::Attribute& a : var->attributes) {
    if (a.name == "vk::constant_id" || a.name == "SpecializationConstant" ||
        a.name == "vk::specialization_constant") {
      return &a;
    }
  }
  return nullptr;
}

/// `1.5`, `-2`, `(3)`: a float literal, an integer literal or their negation.
bool FloatValue(const ast::Expr* e, double* out) {
  switch (e->kind) {
    case ast::ExprKind::FloatLiteral:
      *out = static_cast<const ast::FloatLiteralExpr*>(e)->value;
      return true;
    case ast::ExprKind::IntLiteral:
      *out = static_cast<double>(static_cast<const ast::IntLiteralExpr*>(e)->value);
      return true;
    case ast::ExprKind::ImplicitCast:
      return FloatValue(static_cast<const ast::ImplicitCastExpr*>(e)->operand, out);
    case ast::ExprKind::Unary: {
      auto* u = static_cast<const ast::UnaryExpr*>(e);
      if (u->op != ast::OpKind::Neg && u->op != ast::OpKind::Plus) return false;
      if (!FloatValue(u->operand, out)) return false;
      if (u->op == ast::OpKind::Neg) *out = -*out;
      return true;
    }
    default:
      return false;
  }
}

bool IsAutomatic(const ast::VarDecl* var) { return SpecAttribute(var)->name != "vk::constant_id"; }

}  // namespace

bool Checker::IsSpecConstantDecl(const ast::VarDecl* var) {
  return var->role == ast::VarRole::Global && SpecAttribute(var) != nullptr;
}

void Checker::CheckSpecConstant(ast::VarDecl* var) {
  const ast::Attribute* attr = SpecAttribute(var);
  if (attr->name == "vk::constant_id") {
    bool ok = attr->args.size() == 1 && attr->args[0]->kind == ast::ExprKind::IntLiteral &&
              static_cast<const ast::IntLiteralExpr*>(attr->args[0])->value <= 0x7fffffffu;
    if (!ok) {
      diags_.Report(DiagId::InvalidAttributeArgs, attr->range, attr->name,
                    "one integer literal from 0 to 2147483647");
    }
  } else if (!attr->args.empty()) {
    diags_.Report(DiagId::InvalidAttributeArgs, attr->range, attr->name, "no arguments");
  }
  if (var->type_expr == nullptr) {
    var->type = types_.Error();
    diags_.Report(DiagId::SpecConstantInvalid, var->name_range, var->name,
                  "needs a declared type: 'int', 'uint', 'float' or 'bool'");
    return;
  }
  var->type = ResolveType(var->type_expr);
  if (var->type->IsError()) return;
  if (!var->is_const || var->is_uniform || (var->modifiers & ast::kModGroupShared) != 0) {
    diags_.Report(DiagId::SpecConstantInvalid, var->name_range, var->name,
                  "must be a global 'const' with an initializer (its default value)");
    var->type = types_.Error();
    return;
  }
  if (var->type != types_.Int() && var->type != types_.UInt() && var->type != types_.Float() &&
      var->type != types_.Bool()) {
    diags_.Report(
        DiagId::SpecConstantInvalid, var->type_expr->range, var->name,
        "must have type 'int', 'uint', 'float' or 'bool', not '" + var->type->Name() + "'");
    var->type = types_.Error();
    return;
  }
  if (var->init == nullptr) {
    diags_.Report(DiagId::SpecConstantInvalid, var->name_range, var->name,
                  "needs an initializer: its default value");
    var->type = types_.Error();
    return;
  }
  var->init = CheckAs(var->init, var->type);
  if (var->init->type->IsError()) return;
  const source::SourceRange range = var->init->range;
  ast::Expr* literal = nullptr;
  int64_t v = 0;
  double f = 0;
  if (var->type == types_.Float()) {
    if (FloatValue(var->init, &f)) literal = ctx_.New<ast::FloatLiteralExpr>(range, f);
  } else if (EvaluateIntConstant(var->init, &v)) {
    if (var->type == types_.Bool()) {
      literal = ctx_.New<ast::BoolLiteralExpr>(range, v != 0);
    } else {
      literal = ctx_.New<ast::IntLiteralExpr>(range, static_cast<uint64_t>(v),
                                              var->type == types_.UInt());
    }
  }
  if (literal == nullptr) {
    diags_.Report(DiagId::SpecConstantInvalid, range, var->name,
                  "needs an initializer known at compile time (a literal, or for an integer "
                  "or bool an expression of literals and 'static const' values)");
    return;
  }
  literal->type = var->type;
  var->init = literal;
}

void Checker::AssignSpecConstantIds(const std::vector<ast::Decl*>& decls) {
  std::map<int64_t, const ast::VarDecl*> taken;
  std::vector<ast::VarDecl*> automatic;
  for (ast::Decl* d : decls) {
    if (d->kind != ast::DeclKind::Var) continue;
    auto* var = static_cast<ast::VarDecl*>(d);
    if (!IsSpecConstantDecl(var)) continue;
    if (var->type != nullptr && !var->type->IsError() && checked_out_ != nullptr) {
      checked_out_->spec_constants.push_back(var);
    }
    const ast::Attribute* attr = SpecAttribute(var);
    if (attr->name != "vk::constant_id") {
      automatic.push_back(var);
      continue;
    }
    if (attr->args.size() != 1 || attr->args[0]->kind != ast::ExprKind::IntLiteral) continue;
    auto id = static_cast<int64_t>(static_cast<const ast::IntLiteralExpr*>(attr->args[0])->value);
    if (id > 0x7fffffff) continue;
    auto [it, inserted] = taken.emplace(id, var);
    if (!inserted) {
      diags_.Report(DiagId::SpecConstantDuplicateId, attr->range, var->name, id, it->second->name);
      continue;
    }
    var->spec_id = id;
  }
  if (checked_out_ != nullptr) {
    // Those whose explicit id is repeated or invalid are reported and not lowered.
    std::erase_if(checked_out_->spec_constants,
                  [](const ast::VarDecl* v) { return v->spec_id < 0 && !IsAutomatic(v); });
  }
  int64_t next = 0;
  for (ast::VarDecl* var : automatic) {
    while (taken.count(next) != 0) ++next;
    var->spec_id = next;
    taken.emplace(next, var);
  }
}

bool Checker::NumThreadsSpecConstant(ast::FuncDecl* func, size_t dim, ast::Expr*& arg) {
  if (arg->kind != ast::ExprKind::Name) return false;
  auto* name = static_cast<ast::NameExpr*>(arg);
  ast::Decl* decl = Lookup(name->name);
  if (decl == nullptr || decl->kind != ast::DeclKind::Var) return false;
  auto* var = static_cast<ast::VarDecl*>(decl);
  if (!IsSpecConstantDecl(var)) return false;
  if (var->type == nullptr) CheckGlobalVar(var, nullptr);
  if (var->type->IsError()) return true;  // reported at its declaration
  int64_t value = 0;
  if ((var->type != types_.Int() && var->type != types_.UInt()) || var->init == nullptr ||
      !EvaluateIntConstant(var->init, &value)) {
    diags_.Report(DiagId::InvalidAttributeArgs, arg->range, "numthreads",
                  "an 'int' or 'uint' specialization constant with an integer default");
    arg = ctx_.New<ast::IntLiteralExpr>(arg->range, 1, false);  // reported once
    return true;
  }
  // Its default stands in the attribute (NumThreadsOf, the CPU and CUDA targets); the
  // SPIR-V and GLSL writers let the pipeline set it.
  func->numthreads_spec[dim] = var;
  arg = ctx_.New<ast::IntLiteralExpr>(arg->range,
                                      static_cast<uint64_t>(std::max<int64_t>(value, 0)), false);
  return true;
}

bool Checker::ReportSpecConstantUse(const ast::Expr* e, std::string_view what) {
  if (e == nullptr) return false;
  switch (e->kind) {
    case ast::ExprKind::Name: {
      const ast::Decl* decl = static_cast<const ast::NameExpr*>(e)->decl;
      if (decl == nullptr || decl->kind != ast::DeclKind::Var) return false;
      auto* var = static_cast<const ast::VarDecl*>(decl);
      if (IsSpecConstantDecl(var)) {
        diags_.Report(DiagId::SpecConstantNotCompileTime, e->range, what, var->name);
        return true;
      }
      // A `static const` computed from one.
      if (var->role == ast::VarRole::Global && var->is_const && var->init != nullptr &&
          ReportSpecConstantUse(var->init, what)) {
        return true;
      }
      return false;
    }
    case ast::ExprKind::Unary:
      return ReportSpecConstantUse(static_cast<const ast::UnaryExpr*>(e)->operand, what);
    case ast::ExprKind::Binary:
      return ReportSpecConstantUse(static_cast<const ast::BinaryExpr*>(e)->lhs, what) ||
             ReportSpecConstantUse(static_cast<const ast::BinaryExpr*>(e)->rhs, what);
    case ast::ExprKind::Conditional: {
      auto* c = static_cast<const ast::ConditionalExpr*>(e);
      return ReportSpecConstantUse(c->cond, what) || ReportSpecConstantUse(c->then_expr, what) ||
             ReportSpecConstantUse(c->else_expr, what);
    }
    case ast::ExprKind::Cast:
      return ReportSpecConstantUse(static_cast<const ast::CastExpr*>(e)->operand, what);
    case ast::ExprKind::ImplicitCast:
      return ReportSpecConstantUse(static_cast<const ast::ImplicitCastExpr*>(e)->operand, what);
    default:
      return false;
  }
}

}  // namespace slope::sema

#pragma once
// The Checker: private to sema/. Declarations and statements are in check.cpp,
// expressions in check_expr.cpp, calls and constructors in check_call.cpp, conversion
// rules in conversions.cpp.

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diag.h"
#include "compiler/sema/check.h"
#include "compiler/sema/types.h"

namespace slope::sema {

/// Cost of an implicit conversion; kNoConversion when there is none.
inline constexpr int kNoConversion = 1 << 20;

class Checker {
 public:
  Checker(ast::AstContext& ctx, TypeContext& types, diag::DiagEngine& diags)
      : ctx_(ctx), types_(types), diags_(diags) {}

  bool Run(ast::Module& module, CheckedModule* out);

  // conversions.cpp
  /// The cost of converting `from` to `to` implicitly (0 = identical).
  int ConversionCost(const Type* from, const Type* to) const;
  /// Wraps `expr` in an ImplicitCastExpr to `to` (reporting when impossible).
  ast::Expr* Coerce(ast::Expr* expr, const Type* to);
  /// Converts explicitly (casts, constructors): lossy conversions without a warning.
  ast::Expr* ExplicitConvert(ast::Expr* expr, const Type* to);
  /// Converts to bool for a condition.
  ast::Expr* CoerceToBool(ast::Expr* expr);
  /// The common type of two arithmetic operands, or null.
  const Type* CommonType(const Type* a, const Type* b);

  // check_expr.cpp
  ast::Expr* CheckExpr(ast::Expr* expr);
  /// Checks that `expr` (already checked) can be assigned to; reports if not.
  bool CheckAssignable(ast::Expr* expr);

  // check_call.cpp
  ast::Expr* CheckCall(ast::CallExpr* call);

  // check.cpp
  const Type* ResolveType(ast::TypeExpr* type_expr);
  ast::Decl* Lookup(const std::string& name) const;

  TypeContext& Types() { return types_; }
  diag::DiagEngine& Diags() { return diags_; }

 private:
  void DeclareGlobal(ast::Decl* decl);
  /// Warns about attributes this position does not understand; checks known ones' arguments.
  void CheckAttributes(const std::vector<ast::Attribute>& attrs,
                       std::initializer_list<std::string_view> known);
  void CheckGlobalVar(ast::VarDecl* var, CheckedModule* out);
  void CheckFunctionSignature(ast::FuncDecl* func);
  void CheckFunctionBody(ast::FuncDecl* func);
  void CheckEntryPoint(ast::FuncDecl* func);
  void CheckRecursion(const std::vector<ast::FuncDecl*>& functions);
  bool CheckConstantExpr(const ast::Expr* expr);

  /// Returns true when control can reach the end of `stmt`.
  bool CheckStmt(ast::Stmt* stmt);
  bool CheckBlock(ast::BlockStmt* block);
  /// Checks a loop body in its own scope, with break/continue allowed.
  void CheckLoopBody(ast::Stmt* body);
  void CheckLocalVar(ast::VarDecl* var);
  void Declare(ast::Decl* decl);
  ast::Expr* CheckCallOfFunction(ast::CallExpr* call, const std::vector<ast::FuncDecl*>& overloads);
  ast::Expr* CheckConstructor(ast::CallExpr* call, const Type* type);
  ast::Expr* CheckBuiltinCall(ast::CallExpr* call, ast::Builtin builtin);
  ast::Expr* CheckMember(ast::MemberExpr* expr);
  ast::Expr* CheckIndex(ast::IndexExpr* expr);
  ast::Expr* CheckUnary(ast::UnaryExpr* expr);
  ast::Expr* CheckBinary(ast::BinaryExpr* expr);
  ast::Expr* CheckAssign(ast::AssignExpr* expr);
  ast::Expr* CheckConditional(ast::ConditionalExpr* expr);
  ast::Expr* CheckName(ast::NameExpr* expr);
  const Type* ArithmeticResult(ast::OpKind op, const Type* a, const Type* b, bool* ok);

  friend class ScopeGuard;
  ast::AstContext& ctx_;
  TypeContext& types_;
  diag::DiagEngine& diags_;

  std::vector<std::unordered_map<std::string, ast::Decl*>> scopes_;
  std::map<std::string, std::vector<ast::FuncDecl*>> functions_;
  ast::FuncDecl* current_function_ = nullptr;
  int loop_depth_ = 0;
  std::map<ast::FuncDecl*, std::vector<std::pair<ast::FuncDecl*, source::SourceRange>>> calls_;
};

}  // namespace slope::sema

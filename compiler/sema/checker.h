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

/// "float, int3": the types of checked arguments, for messages.
std::string ArgTypeList(const std::vector<ast::Expr*>& args);
/// "float f(int, float3)": a checked function's signature, for candidate notes.
std::string Signature(const ast::FuncDecl* f);

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

  // check_struct.cpp
  /// Creates the types of the module's structs and sorts their members (before globals).
  void DeclareStructs(const std::vector<ast::Decl*>& decls);
  /// Resolves field types and reports structs that contain themselves.
  void ResolveStructFields();
  /// Checks field defaults and the signatures of methods and constructors.
  void CheckStructMembers();
  /// Checks method and constructor bodies; appends them to `out->functions`.
  void CheckStructBodies(CheckedModule* out);
  /// `S s;`: a call of S's `__init()` when it has one, else null (the field defaults).
  ast::Expr* DefaultConstruction(ast::VarDecl* var);
  /// Whether buffers may hold `type`: numbers and vectors, and structs of them.
  bool IsBufferElement(const Type* type) const;
  /// The struct type declared by `decl`, or null.
  const Type* StructTypeOf(const ast::Decl* decl) const;
  /// `S(args)`: an `__init` overload or the member-wise construction.
  ast::Expr* CheckStructConstructor(ast::CallExpr* call, const Type* type);
  /// `base.member(args)` and `S.member(args)` / `S::member(args)`.
  ast::Expr* CheckMethodCall(ast::CallExpr* call, ast::MemberExpr* callee);
  /// A call of method `name` of the current struct written without `this.`.
  ast::Expr* CheckImplicitMethodCall(ast::CallExpr* call, ast::NameExpr* name);
  /// `base.field` on a struct value.
  ast::Expr* CheckStructMember(ast::MemberExpr* expr);
  /// A field of the current struct named without `this.`: rewritten to `this.field`.
  ast::Expr* CheckImplicitField(ast::NameExpr* expr);
  /// Whether `expr` (checked) names storage a mutating method may modify; no report.
  bool IsAssignableQuietly(const ast::Expr* expr) const;
  /// The checked overload of `candidates` best matching `args` (null: none; reports
  /// nothing); `*ambiguous` is set when several match equally well.
  ast::FuncDecl* PickOverload(const std::vector<ast::FuncDecl*>& candidates,
                              const std::vector<ast::Expr*>& args, bool* ambiguous);
  /// The struct whose method or `__init` is being checked, or null.
  const Type* CurrentStruct() const {
    return current_function_ != nullptr ? current_function_->owner : nullptr;
  }

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
  ast::Expr* CheckCallOfFunction(ast::CallExpr* call, const std::vector<ast::FuncDecl*>& overloads,
                                 const std::string& name);
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
  std::map<const ast::Decl*, const Type*> struct_types_;  ///< struct declaration -> its type
  std::vector<const Type*> struct_list_;                   ///< in source order
};

}  // namespace slope::sema

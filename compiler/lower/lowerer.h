#pragma once
// The Lowerer: private to lower/. Declarations and statements are in lower.cpp,
// expressions in lower_expr.cpp.

#include <map>
#include <memory>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/base/ice.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/ir.h"
#include "compiler/sema/check.h"

namespace slope::lower {

using ir::Op;
using ir::Value;

/// A place that can be read and written: a pointer, optionally narrowed to some
/// components of the vector it points at.
struct LValue {
  Value* ptr = nullptr;
  std::vector<uint32_t> swizzle;  ///< components written, in order
  Value* dynamic_index = nullptr; ///< v[i] on a vector
};

struct LoopTargets {
  ir::Block* break_target;
  ir::Block* continue_target;
};

class Lowerer {
 public:
  explicit Lowerer(const source::SourceManager& sources)
      : sources_(sources), module_(std::make_unique<ir::Module>()), b_(*module_) {}

  std::unique_ptr<ir::Module> Run(const sema::CheckedModule& checked);

 private:
  const ir::Type* LowerType(const sema::Type* t);
  void DeclareGlobals(const std::vector<ast::VarDecl*>& buffers);
  void LowerFunction(ast::FuncDecl* decl, ir::Function* f);
  void RemoveDeadBlocks(ir::Function* f);

  // Statements.
  void LowerStmt(const ast::Stmt* stmt);
  void LowerIf(const ast::IfStmt* s);
  void LowerLoop(const ast::Stmt* init, const ast::Expr* cond, const ast::Expr* step,
                 const ast::Stmt* body, bool test_first);
  void LowerLocal(const ast::VarDecl* var);
  /// Starts a fresh block for code that follows a jump (it is unreachable).
  void StartDeadBlock();
  ir::Block* NewBlock() { return module_->AddBlock(func_); }
  void Place(ir::Block* block) {
    func_->blocks.push_back(block);
    b_.SetInsertBlock(block);
  }
  void Loc(source::SourceRange r) { b_.SetLoc(r.begin); }

  // Expressions.
  Value* LowerExpr(const ast::Expr* e);
  Value* LowerCall(const ast::CallExpr* call);
  Value* LowerBuiltin(const ast::CallExpr* call);
  Value* LowerBinary(const ast::BinaryExpr* e);
  Value* LowerUnary(const ast::UnaryExpr* e);
  Value* LowerAssign(const ast::AssignExpr* e);
  Value* LowerShortCircuit(const ast::BinaryExpr* e);
  Value* LowerConditional(const ast::ConditionalExpr* e);
  Value* ArithmeticOp(ast::OpKind op, Value* a, Value* b);
  Value* ConvertValue(Value* v, const ir::Type* to);
  Value* Zero(const ir::Type* t);
  Value* One(const ir::Type* t);
  LValue LowerLValue(const ast::Expr* e);
  Value* LoadLValue(const LValue& lv);
  void StoreLValue(const LValue& lv, Value* value);

  // Structs (lower_struct.cpp).
  const ir::Type* LowerStructType(const sema::Type* t);
  /// What `S s;` holds: each field's default value, else zero.
  Value* DefaultValue(const sema::Type* t);
  /// `S(...)`: an `__init` call, the default value or the member-wise construction.
  Value* LowerStructConstructor(const ast::CallExpr* call);
  /// A method call; a [mutating] one copies its receiver in and back out.
  Value* LowerMethodCall(const ast::CallExpr* call);
  /// The IR function name of a function or method ("f", "S.f", "S.__init").
  std::string FunctionName(const ast::FuncDecl* decl) const;

  const source::SourceManager& sources_;
  std::unique_ptr<ir::Module> module_;
  ir::Builder b_;
  std::map<const sema::Type*, const ir::Type*> type_cache_;
  std::map<const ast::VarDecl*, ir::Global*> globals_;
  std::map<const ast::FuncDecl*, ir::Function*> functions_;
  std::map<const ast::VarDecl*, Value*> locals_;
  std::vector<LoopTargets> loops_;
  ir::Function* func_ = nullptr;
  const ast::FuncDecl* decl_ = nullptr;  ///< the function being lowered
  base::IceLocationScope* ice_ = nullptr;  ///< names the statement being lowered in ICEs
};

}  // namespace slope::lower

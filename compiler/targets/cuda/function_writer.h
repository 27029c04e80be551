#pragma once
// One IR function printed as CUDA C++: the instructions, intrinsics, atomics, barriers
// and wave operations over the control flow that ctext::FunctionEmitter lays out.

#include <string>
#include <vector>

#include "compiler/targets/ctext/function_emitter.h"
#include "compiler/targets/cuda/context.h"

namespace slope::targets::cuda {

class FunctionWriter : public ctext::FunctionEmitter {
 public:
  FunctionWriter(Context& context, const ir::Function& f);
  /// The whole definition: `__device__ RESULT NAME(Context& ctx, PARAMS) { ... }`.
  std::string Definition();
  /// The declaration alone, for the list of prototypes before the first definition.
  std::string Prototype();

 protected:
  std::string Declare(const ir::Type* t, const std::string& name) override;
  ctext::Expr ConstantExpr(const ir::Constant& c) override;
  ctext::Expr GlobalExpr(const ir::Global& g) override;
  ctext::Expr FunctionParamExpr(const ir::Param& p, size_t index) override;
  ctext::Expr InstExpr(const ir::Inst& inst) override;
  void EmitInst(const ir::Inst& inst) override;
  bool IsExpression(const ir::Inst& inst) const override;
  std::string CaseLabel(const ir::Constant& c) override;
  ctext::Expr SwitchSelector(const ir::Value* selector) override;
  bool FoldsValues() const override { return !function_.precise; }
  /// A vector printf passes lane by lane: it stays a variable.
  bool KeepsNamed(const ir::Inst& user, const ir::Inst& value) const override {
    return user.GetOp() == ir::Op::Printf && value.GetType()->IsVector();
  }

 private:
  using Expr = ctext::Expr;
  Expr Componentwise(const ir::Inst& inst, const ir::Type* t, const std::vector<Expr>& ops);
  Expr ScalarOrVectorOp(const ir::Inst& inst, const ir::Type* t, const std::vector<Expr>& ops);
  Expr Comparison(ir::Op op, const Expr& a, const Expr& b);
  Expr ConvertExpr(const ir::Type* to, const ir::Type* from, const Expr& v);
  Expr IntrinsicExpr(const ir::Inst& inst);
  Expr AtomicExpr(const ir::Inst& inst);
  Expr WaveExpr(const ir::Inst& inst);
  void EmitBarrier(const ir::Inst& inst);
  /// `x` as a value of type `t` when its type is `from` (a conversion when they differ).
  Expr Cast(const ir::Type* t, const ir::Type* from, const Expr& x);
  /// Component `i` of a vector expression (`.x`, `.y`, ...).
  static Expr Lane(const Expr& v, uint32_t i);
  Expr Splat(const ir::Type* t, double v);
  /// Whether the place `ptr` points at holds its matrices column by column (cmat in the
  /// text): a member declared or defaulted so, a buffer's element under a column-major
  /// default, an element of an array that is such a place.
  bool ColumnPlace(const ir::Value* ptr) const;
  /// Whether `ptr` points at a row of a matrix held column by column (a crow).
  bool ColumnRow(const ir::Value* ptr) const;
  /// Under -matrix-layout-column-major, a row of a matrix through a device pointer (and an
  /// element of one): a place of the matrix in each use (a crow), never a pointer value.
  bool AlwaysFolds(const ir::Inst& inst) const override;
  /// `TYPE{a, b, ...}`: an aggregate (struct or array) from its parts.
  Expr Aggregate(const ir::Type* t, const std::vector<Expr>& parts);

  std::string StructMemberName(const ir::Type* s, size_t index) override;

  Context& context_;
  std::vector<std::string> param_names_;
};

}  // namespace slope::targets::cuda

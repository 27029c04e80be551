#pragma once
// One IR function printed as GLSL: the instructions, intrinsics, atomics, barriers and
// subgroup operations over the control flow that ctext::FunctionEmitter lays out.

#include <string>
#include <vector>

#include "compiler/targets/ctext/function_emitter.h"
#include "compiler/targets/glsl/context.h"

namespace slope::targets::glsl {

class FunctionWriter : public ctext::FunctionEmitter {
 public:
  FunctionWriter(Context& context, const ir::Function& f);
  /// The whole definition: `RESULT NAME(PARAMS) { ... }` (`void main()` for the entry).
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

 private:
  using Expr = ctext::Expr;
  /// A component-wise operation on operands of type `t` (scalars or vectors; a matrix
  /// goes row by row).
  Expr Componentwise(const ir::Inst& inst, const ir::Type* t, const std::vector<Expr>& ops);
  Expr ScalarOrVectorOp(const ir::Inst& inst, const ir::Type* t, const std::vector<Expr>& ops);
  Expr Comparison(ir::Op op, const ir::Type* operand, const Expr& a, const Expr& b);
  Expr ConvertExpr(const ir::Type* to, const ir::Type* from, const Expr& v);
  Expr IntrinsicExpr(const ir::Inst& inst);
  Expr MatMul(const ir::Inst& inst);
  /// bitcast between lanes of one width (a conversion function or a cast).
  Expr SameShapeBitcast(const ir::Type* t, const ir::Type* arg, const Expr& x);
  /// bitcast that may change the lane width: uint2 to uint64_t, half2 to uint, ...
  Expr Bitcast(const ir::Type* t, const ir::Type* arg, const Expr& x);
  Expr Transpose(const ir::Type* t, const ir::Type* m, const Expr& x);
  Expr AtomicExpr(const ir::Inst& inst);
  Expr WaveExpr(const ir::Inst& inst);
  /// A `texture` instruction: texelFetch, imageLoad/imageStore, textureLod, textureGrad,
  /// textureGather, textureSize, imageSize, textureQueryLevels (separate textures and
  /// samplers, combined where sampled; samplerless fetches and queries through
  /// GL_EXT_samplerless_texture_functions).
  Expr TextureExpr(const ir::Inst& inst);
  void EmitBarrier(const ir::Inst& inst);
  /// `x` as a value of type `t` when its type is `from` (a constructor when they differ).
  Expr Cast(const ir::Type* t, const ir::Type* from, const Expr& x);
  /// Component `i` of a vector expression (`.x`, `.y`, ...).
  static Expr Lane(const Expr& v, uint32_t i);
  Expr Splat(const ir::Type* t, double v);

  // Device pointers (`T*`) are buffer references (Context::PointerTypeName); addresses
  // are computed as uint64_t with the compile's buffer layout, as the SPIR-V writer's
  // PhysicalStorageBuffer pointers are laid out.
  std::string StructMemberName(const ir::Type* s, size_t index) override;
  /// Under column-major matrices, a row of a matrix through a device pointer (and an
  /// element of one): a place of the matrix in each use (`p.v[r]`), laid out by the
  /// blocks' row_major qualifier (the GLSL spelling), never an address of its own.
  bool AlwaysFolds(const ir::Inst& inst) const override;
  /// When `ptr` is an element of such a row: the `element_ptr` making it.
  const ir::Inst* ColumnRowElement(const ir::Value* ptr) const;
  /// A buffer reference's pointee is its member `v`: `*p` is `p.v`.
  Expr DeviceDeref(const Expr& p) override;
  /// A byte count as a uint64_t literal.
  Expr Address(uint64_t bytes);
  /// `index` elements of `stride` bytes, as uint64_t (a signed index wraps).
  Expr ScaledIndex(const ir::Value* index, uint32_t stride);
  /// The pointer of type `to` `bytes` past `base`.
  Expr OffsetAddress(const ir::Type* to, const ir::Value* base, const Expr& bytes);
  /// An `element_ptr` into an array or vector through a device pointer.
  Expr DeviceElementPtr(const ir::Inst& inst);
  /// A `ptr_cast`: through uint64_t, the one integer a buffer reference converts to.
  Expr PointerCast(const ir::Inst& inst);

  /// True when `ptr` points at a struct member held transposed
  /// (Context::IsTransposedMember).
  bool IsTransposedPtr(const ir::Value* ptr) const;
  /// When `ptr` points at a row of a matrix held transposed: the `element_ptr` making it.
  const ir::Inst* TransposedRow(const ir::Value* ptr) const;

  Context& context_;
  std::vector<std::string> param_names_;
};

}  // namespace slope::targets::glsl

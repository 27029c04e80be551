// Lowering of matrix values: splats, constructors and element access. A matrix is a
// composite of its rows (`make_matrix` of row vectors); operators and conversions apply
// to it as to vectors, component by component.

#include "compiler/base/ice.h"
#include "compiler/lower/lowerer.h"

namespace slope::lower {

using ir::Op;
using ir::Value;

Value* Lowerer::SplatMatrix(Value* scalar, const ir::Type* t) {
  Value* row = b_.Splat(scalar, t->Cols());
  return b_.Emit(Op::MakeMatrix, t, std::vector<Value*>(t->Count(), row));
}

Value* Lowerer::MatrixElements(Value* m, const std::vector<uint32_t>& lanes) {
  std::vector<Value*> parts;
  for (uint32_t lane : lanes) parts.push_back(b_.Extract(b_.Extract(m, lane / 4), lane % 4));
  if (parts.size() == 1) return parts[0];
  const ir::Type* t = module_->Types().Vector(m->GetType()->Scalar(),
                                              static_cast<uint32_t>(parts.size()));
  return b_.Emit(Op::MakeVector, t, parts);
}

Value* Lowerer::LowerMatrixConstructor(const ast::CallExpr* call) {
  const ir::Type* t = LowerType(call->type);
  if (call->args.size() == 1 && !call->args[0]->type->IsVector()) {
    // A splat or a conversion: sema made the argument a matrix of `t`'s type.
    return ConvertValue(LowerExpr(call->args[0]), t);
  }
  std::vector<Value*> args;
  for (const ast::Expr* a : call->args) args.push_back(LowerExpr(a));
  Loc(call->range);
  // The arguments' components in order: a row vector that starts a row is taken whole,
  // anything else goes component by component.
  const uint32_t cols = t->Cols();
  std::vector<Value*> rows;
  std::vector<Value*> pending;  // parts of the row being filled
  uint32_t filled = 0;
  auto add = [&](Value* part) {
    pending.push_back(part);
    filled += part->GetType()->Count();
    if (filled < cols) return;
    rows.push_back(pending.size() == 1 ? pending[0] : b_.Emit(Op::MakeVector, t->Element(), pending));
    pending.clear();
    filled = 0;
  };
  for (Value* v : args) {
    const ir::Type* vt = v->GetType();
    if (vt->IsScalar()) {
      add(v);
    } else if (vt->IsVector() && filled + vt->Count() <= cols) {
      add(v);
    } else if (vt->IsVector()) {
      for (uint32_t i = 0; i < vt->Count(); ++i) add(b_.Extract(v, i));
    } else {
      SLOPE_ASSERT(vt->IsMatrix());
      for (uint32_t r = 0; r < vt->Count(); ++r) {
        Value* row = b_.Extract(v, r);
        if (filled + vt->Cols() <= cols) {
          add(row);
        } else {
          for (uint32_t i = 0; i < vt->Cols(); ++i) add(b_.Extract(row, i));
        }
      }
    }
  }
  SLOPE_ASSERT(rows.size() == t->Count() && pending.empty());
  return b_.Emit(Op::MakeMatrix, t, rows);
}

}  // namespace slope::lower

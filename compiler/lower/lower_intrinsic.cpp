// Lowering of calls of the core library's intrinsic functions: each becomes the IR
// `intrinsic` its `[__intrinsic_op]` names, except on the types the intrinsic does not
// take (integer dot products, lengths of scalars, identity bit casts), which become the
// exact arithmetic they stand for.

#include "compiler/base/ice.h"
#include "compiler/lower/lowerer.h"

namespace slope::lower {

using ir::Intrinsic;
using ir::Op;
using ir::Value;

Value* Lowerer::LowerIntrinsicCall(const ast::CallExpr* call) {
  std::vector<Value*> args;
  for (const ast::Expr* a : call->args) args.push_back(LowerExpr(a));
  Loc(call->range);
  const ir::Type* type = LowerType(call->type);
  const ir::Type* arg_type = args[0]->GetType();
  auto which = static_cast<Intrinsic>(call->func->intrinsic_op);
  bool is_int = arg_type->Scalar()->IsInt();
  if (which == Intrinsic::Abs && is_int && !arg_type->Scalar()->IsSigned()) return args[0];
  if (which == Intrinsic::Bitcast && arg_type == type) return args[0];
  if (which == Intrinsic::Dot && (is_int || arg_type->IsScalar())) {
    // Integer dot products (and the "dot" of scalars) are a sum of products.
    Value* products = b_.Binary(Op::Mul, args[0], args[1]);
    if (arg_type->IsScalar()) return products;
    Value* sum = b_.Extract(products, 0);
    for (uint32_t i = 1; i < arg_type->Count(); ++i) {
      sum = b_.Binary(Op::Add, sum, b_.Extract(products, i));
    }
    return sum;
  }
  if (which == Intrinsic::Length && arg_type->IsScalar()) {
    return b_.CallIntrinsic(Intrinsic::Abs, type, args);
  }
  return b_.CallIntrinsic(which, type, args);
}

}  // namespace slope::lower

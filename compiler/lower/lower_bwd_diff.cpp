// Lowering of `bwd_diff(f)(args)`: a call of a bodiless function marked `bwd_diff(@f)`
// that the reverse-mode pass (compiler/autodiff/reverse) writes. Nested operators nest:
// `bwd_diff(fwd_diff(f))` is `bwd_diff(@f.fwd)`, `fwd_diff(bwd_diff(f))` `fwd_diff(@f.bwd)`.

#include "compiler/lower/lowerer.h"

namespace slope::lower {

Value* Lowerer::LowerBwdDiffCall(const ast::CallExpr* call) {
  auto* diff = static_cast<const ast::DiffExpr*>(call->callee);
  ir::Function* target = BwdDiffFunction(diff);
  std::vector<OutArg> outs;
  std::vector<Value*> args;
  for (size_t i = 0; i < call->args.size(); ++i) {
    const ast::Expr* a = call->args[i];
    ast::ParamDirection direction = diff->param_directions.at(i);
    if (direction == ast::ParamDirection::In) {
      args.push_back(LowerExpr(a));
      continue;
    }
    LValue place = LowerLValue(a);
    const ir::Type* t = LowerType(a->type);
    Value* slot = b_.Var(func_, t);
    b_.Store(slot, direction == ast::ParamDirection::InOut ? LoadLValue(place) : Zero(t));
    args.push_back(slot);
    outs.push_back({place, slot});
  }
  Loc(call->range);
  Value* result = b_.Call(target, std::move(args));
  CopyBack(outs);
  return result;
}

ir::Function* Lowerer::BwdDiffFunction(const ast::DiffExpr* diff) {
  // `bwd_diff(fwd_diff(f))` differentiates the function `fwd_diff(f)` denotes.
  auto* operand = diff->operand->kind == ast::ExprKind::Diff
                      ? static_cast<const ast::DiffExpr*>(diff->operand)
                      : nullptr;
  ir::Function* primal = operand != nullptr ? FwdDiffFunction(operand) : Instance(diff->func, {});
  auto it = bwd_functions_.find(primal);
  if (it != bwd_functions_.end()) return it->second;
  ir::Function* f = module_->AddFunction(UniqueFunctionName(primal->Name() + ".bwd"),
                                         LowerType(diff->result_type));
  for (size_t i = 0; i < diff->param_types.size(); ++i) {
    const ir::Type* t = LowerType(diff->param_types[i]);
    if (diff->param_directions.at(i) != ast::ParamDirection::In) {
      t = module_->Types().Pointer(ir::AddressSpace::Function, t);
    }
    f->params.push_back(module_->AddParam(t, nullptr));
  }
  f->bwd_diff_of = primal;
  bwd_functions_.emplace(primal, f);
  return f;
}

}  // namespace slope::lower

// Lowering of `bwd_diff(f)(args)`: a call of a bodiless function marked `bwd_diff(@f)`
// that the reverse-mode pass (compiler/autodiff/reverse) writes, one per function `f`
// names as a call would (a specialization, a method, a witness or a dispatcher). Nested
// operators nest: `bwd_diff(fwd_diff(f))` is `bwd_diff(@f.fwd)`, `fwd_diff(bwd_diff(f))`
// `fwd_diff(@f.bwd)`.

#include <functional>

#include "compiler/lower/lowerer.h"

namespace slope::lower {

Value* Lowerer::LowerBwdDiffCall(const ast::CallExpr* call) {
  auto* diff = static_cast<const ast::DiffExpr*>(call->callee);
  ir::Function* target = BwdDiffFunction(diff);
  std::vector<OutArg> outs;
  std::vector<Value*> args;
  // `bwd_diff(obj.method)`: `obj` is `this`, carrying no derivative: the backward
  // derivative of the method is the one `bwd_diff(S.method)` names, given a pair with a
  // zero derivative (whose gradient is dropped) or the plain object. Neither writes the
  // object back: a backward derivative leaves primal values as they were.
  size_t first = 0;
  if (diff->receiver_first) {
    first = 1;
    const ast::DiffExpr* inner = diff;
    while (inner->operand->kind == ast::ExprKind::Diff) {
      inner = static_cast<const ast::DiffExpr*>(inner->operand);
    }
    PushReceiverFirst(diff, inner, &args);
  } else if (diff->receiver != nullptr) {
    first = 1;
    Value* object = LowerExpr(diff->receiver);
    ast::ParamDirection direction;
    const ir::Type* t = LowerType(BoundThisType(diff, &direction));
    if (t != object->GetType()) object = b_.MakeStruct(t, {object, Zero(t->Members().at(1))});
    if (direction == ast::ParamDirection::In) {
      args.push_back(object);
    } else {
      Value* slot = b_.Var(func_, t);
      b_.Store(slot, object);
      args.push_back(slot);
    }
  }
  for (size_t i = 0; i < call->args.size(); ++i) {
    const ast::Expr* a = call->args[i];
    ast::ParamDirection direction = diff->param_directions.at(first + i);
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
  if (diff->dropped_result_diff != nullptr) args.push_back(Zero(target->params.back()->GetType()));
  Loc(call->range);
  Value* result = b_.Call(target, std::move(args));
  CopyBack(outs);
  return result;
}

const sema::Type* Lowerer::BoundThisType(const ast::DiffExpr* diff,
                                         ast::ParamDirection* direction) {
  *direction = diff->param_directions.at(0);
  if (diff->this_pair == nullptr ||
      !types_.Conforms(Concrete(diff->receiver->type), diff->differentiable)) {
    return diff->param_types.at(0);
  }
  *direction = ast::ParamDirection::InOut;
  return diff->this_pair;
}

void Lowerer::PushReceiverFirst(const ast::DiffExpr* diff, const ast::DiffExpr* inner,
                                 std::vector<Value*>* args) {
  // The object, then zero for each derivative around it: a value of type `t` or, for a
  // pair type, a pair of such a value and a zero derivative.
  Value* object = LowerExpr(inner->receiver);
  std::function<Value*(const ir::Type*)> wrap = [&](const ir::Type* t) -> Value* {
    if (t == object->GetType() || !t->IsStruct() || t->Members().size() != 2) return object;
    return b_.MakeStruct(t, {wrap(t->Members()[0]), Zero(t->Members()[1])});
  };
  const ir::Type* t = LowerType(diff->param_types.at(0));
  Value* value = wrap(t);
  if (diff->param_directions.at(0) == ast::ParamDirection::In) {
    args->push_back(value);
    return;
  }
  Value* slot = b_.Var(func_, t);
  b_.Store(slot, value);
  args->push_back(slot);
}

ir::Function* Lowerer::BwdDiffFunction(const ast::DiffExpr* diff) {
  ir::Function* primal = nullptr;
  if (diff->operand->kind == ast::ExprKind::Diff) {
    // `bwd_diff(fwd_diff(f))` differentiates the function `fwd_diff(f)` denotes.
    primal = FwdDiffFunction(static_cast<const ast::DiffExpr*>(diff->operand));
  } else {
    primal = DiffOperandFunction(diff);
  }
  auto it = bwd_functions_.find(primal);
  if (it != bwd_functions_.end()) return it->second;
  ir::Function* f = module_->AddFunction(UniqueFunctionName(primal->Name() + ".bwd"),
                                         LowerType(diff->result_type));
  for (size_t i = 0; i < diff->param_types.size(); ++i) {
    const sema::Type* type = diff->param_types[i];
    ast::ParamDirection direction = diff->param_directions.at(i);
    if (i == 0 && diff->receiver != nullptr && !diff->receiver_first) {
      type = BoundThisType(diff, &direction);
    }
    const ir::Type* t = LowerType(type);
    if (direction != ast::ParamDirection::In) {
      t = module_->Types().Pointer(ir::AddressSpace::Function, t);
    }
    f->params.push_back(module_->AddParam(t, nullptr));
  }
  if (diff->dropped_result_diff != nullptr) {
    // `no_diff R f(...)`: the gradient of the result, which every call passes as zero.
    f->params.push_back(module_->AddParam(LowerType(diff->dropped_result_diff), nullptr));
  }
  f->autodiff.bwd_diff_of = primal;
  bwd_functions_.emplace(primal, f);
  return f;
}

}  // namespace slope::lower

// Lowering of what differentiation needs: `fwd_diff(f)(args)` becomes a call of a
// function the forward-mode pass (compiler/autodiff/forward) writes; functions carry
// whether they are [Differentiable] and their custom derivative; `detach`/`no_diff`
// cut the derivative with a call the pass does not differentiate.

#include "compiler/lower/lowerer.h"

namespace slope::lower {

void Lowerer::MarkDifferentiable(const ast::FuncDecl* decl, ir::Function* f,
                                 const std::vector<const sema::Type*>& args) {
  for (const char* name : {"Differentiable", "ForwardDifferentiable", "BackwardDifferentiable"}) {
    if (decl->FindAttribute(name) != nullptr) f->autodiff.differentiable = true;
  }
  if (decl->FindAttribute("TreatAsDifferentiable") != nullptr) f->autodiff.zero_derivative = true;
  if (decl->FindAttribute("PreferRecompute") != nullptr) f->autodiff.prefer_recompute = true;
  if ((decl->modifiers & ast::kModNoDiff) != 0) f->autodiff.no_diff_result = true;
  f->loc = decl->name_range.begin;
  // A generic function's custom derivative has generic parameters matching its own
  // (sema checked them), so it takes the same arguments.
  if (decl->fwd_derivative != nullptr)
    f->autodiff.custom_fwd = Instance(decl->fwd_derivative, args);
  if (decl->bwd_derivative != nullptr)
    f->autodiff.custom_bwd = Instance(decl->bwd_derivative, args);
  if (decl->primal_substitute != nullptr) {
    f->autodiff.primal_substitute = Instance(decl->primal_substitute, {});
  }
  // `this` is the first IR parameter of a method (not of `__init`, which makes it).
  uint32_t first = decl->this_param != nullptr && decl->func_kind != ast::FuncKind::Init ? 1 : 0;
  if (first == 1 && decl->FindAttribute("NoDiffThis") != nullptr)
    f->autodiff.no_diff_params.push_back(0);
  for (size_t i = 0; i < decl->params.size(); ++i) {
    if ((decl->params[i]->modifiers & ast::kModNoDiff) != 0) {
      f->autodiff.no_diff_params.push_back(first + static_cast<uint32_t>(i));
    }
  }
  // Locations (IDifferentiablePtrType): derivatives take a DifferentialPtrPair instead.
  bool derivable = f->autodiff.differentiable || f->autodiff.custom_fwd != nullptr ||
                   f->autodiff.custom_bwd != nullptr;
  if (!derivable) return;
  sema::Subst subst;
  for (size_t k = 0; k < args.size() && k < decl->generic_context.size(); ++k) {
    subst[decl->generic_context[k]] = args[k];
  }
  if (first == 1 && !decl->is_mutating && decl->FindAttribute("NoDiffThis") == nullptr) {
    // `this` of a method of a location, as sema types it: a pair unless [NoDiffThis].
    const sema::Type* pair = types_.PtrPairOf(types_.Substitute(decl->owner, subst));
    if (pair != nullptr) f->autodiff.ptr_params.push_back({0, LowerType(pair)});
  }
  for (size_t i = 0; i < decl->params.size(); ++i) {
    const ast::VarDecl* p = decl->params[i];
    if ((p->modifiers & ast::kModNoDiff) != 0 || p->direction != ast::ParamDirection::In) continue;
    const sema::Type* pair = types_.PtrPairOf(types_.Substitute(p->type, subst));
    if (pair == nullptr) continue;
    f->autodiff.ptr_params.push_back({first + static_cast<uint32_t>(i), LowerType(pair)});
  }
}

namespace {

const ast::DiffExpr* InnermostDiff(const ast::DiffExpr* diff) {
  while (diff->operand->kind == ast::ExprKind::Diff) {
    diff = static_cast<const ast::DiffExpr*>(diff->operand);
  }
  return diff;
}

}  // namespace

Value* Lowerer::LowerFwdDiffCall(const ast::CallExpr* call) {
  auto* diff = static_cast<const ast::DiffExpr*>(call->callee);
  const ast::DiffExpr* inner = InnermostDiff(diff);
  ir::Function* target = FwdDiffFunction(diff);
  std::vector<OutArg> outs;
  std::vector<Value*> args;
  // `fwd_diff(obj.method)`: `obj` is `this`, copied in (and out, when [mutating]).
  size_t first = 0;
  if (diff->receiver_first) {
    first = 1;
    PushReceiverFirst(diff, inner, &args);
  } else if (inner->receiver != nullptr) {
    if (inner->func->is_mutating) {
      LValue place = LowerLValue(inner->receiver);
      Value* object = LoadLValue(place);
      Value* slot = b_.Var(func_, object->GetType());
      b_.Store(slot, object);
      args.push_back(slot);
      outs.push_back({place, slot});
    } else {
      args.push_back(LowerExpr(inner->receiver));
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
  Loc(call->range);
  Value* result = b_.Call(target, std::move(args));
  CopyBack(outs);
  return result;
}

ir::Function* Lowerer::IntrinsicWrapper(const ast::DiffExpr* diff) {
  // `fwd_diff(sin)`: a [Differentiable] function whose body is the intrinsic applied to
  // its parameters, so the derivative passes apply the intrinsic's rule.
  const ast::FuncDecl* decl = diff->func;
  auto key = std::make_pair(decl, diff->generic_args);
  auto it = intrinsic_wrappers_.find(key);
  if (it != intrinsic_wrappers_.end()) return it->second;
  sema::Subst subst;
  for (size_t k = 0; k < diff->generic_args.size() && k < decl->generic_context.size(); ++k) {
    subst[decl->generic_context[k]] = diff->generic_args[k];
  }
  const ir::Type* result = LowerType(types_.Substitute(decl->result_type, subst));
  ir::Function* f = module_->AddFunction(UniqueFunctionName(decl->name), result);
  f->autodiff.differentiable = true;
  f->loc = diff->operand->range.begin;
  std::vector<Value*> args;
  for (const ast::VarDecl* p : decl->params) {
    ir::Param* param = module_->AddParam(LowerType(types_.Substitute(p->type, subst)), nullptr);
    f->params.push_back(param);
    args.push_back(param);
  }
  ir::Builder b(*module_);
  f->blocks.push_back(module_->AddBlock(f));
  b.SetInsertBlock(f->blocks.front());
  auto which = static_cast<ir::Intrinsic>(decl->intrinsic_op);
  if (which == ir::Intrinsic::Length && args[0]->GetType()->IsScalar()) which = ir::Intrinsic::Abs;
  b.Return(b.CallIntrinsic(which, result, std::move(args)));
  intrinsic_wrappers_.emplace(key, f);
  return f;
}

ir::Function* Lowerer::DiffOperandFunction(const ast::DiffExpr* diff) {
  if (diff->func->intrinsic_op >= 0 && diff->func->body == nullptr) return IntrinsicWrapper(diff);
  // The function as a call of it would name it: specialized, a method in its struct's
  // context, a requirement through its witness or dispatcher.
  ast::CallExpr probe(diff->range, nullptr, {});
  probe.func = const_cast<ast::FuncDecl*>(diff->func);
  probe.generic_args = diff->generic_args;
  probe.receiver = diff->receiver;
  probe.static_owner = diff->static_owner;
  probe.via_interface = diff->via_interface;
  bool plain = diff->func->parent == nullptr && diff->generic_args.empty();
  return plain ? Instance(diff->func, {}) : Callee(&probe);
}

ir::Function* Lowerer::FwdDiffFunction(const ast::DiffExpr* diff) {
  ir::Function* primal = nullptr;
  bool bound_this = false;
  if (diff->operand->kind == ast::ExprKind::Diff) {
    // Higher order: the derivative of the function the operand denotes.
    auto* operand = static_cast<const ast::DiffExpr*>(diff->operand);
    primal = operand->backward ? BwdDiffFunction(operand) : FwdDiffFunction(operand);
  } else {
    primal = DiffOperandFunction(diff);
  }
  const ast::DiffExpr* inner = InnermostDiff(diff);
  bound_this = inner->receiver != nullptr && !diff->receiver_first;
  auto key = std::make_pair(static_cast<const ir::Function*>(primal), bound_this);
  auto it = fwd_functions_.find(key);
  if (it != fwd_functions_.end()) return it->second;
  ir::Function* f =
      module_->AddFunction(UniqueFunctionName(primal->Name() + ".fwd"), LowerType(diff->result_type));
  if (bound_this) {
    // `this` carries no derivative: the pair form takes it as the primal does (whose
    // parameters a specialization lowered on demand does not have yet).
    const ir::Type* t = LowerType(inner->receiver->type);
    if (inner->func->is_mutating) t = module_->Types().Pointer(ir::AddressSpace::Function, t);
    f->params.push_back(module_->AddParam(t, nullptr));
  }
  for (size_t i = 0; i < diff->param_types.size(); ++i) {
    const ir::Type* t = LowerType(diff->param_types[i]);
    if (diff->param_directions.at(i) != ast::ParamDirection::In) {
      t = module_->Types().Pointer(ir::AddressSpace::Function, t);
    }
    f->params.push_back(module_->AddParam(t, nullptr));
  }
  f->autodiff.fwd_diff_of = primal;
  fwd_functions_.emplace(key, f);
  return f;
}

Value* Lowerer::Detach(Value* v) {
  const ir::Type* t = v->GetType();
  if (t->IsVoid()) return v;
  auto [it, inserted] = detach_functions_.emplace(t, nullptr);
  if (inserted) {
    ir::Function* identity = module_->AddFunction(UniqueFunctionName("detach"), t);
    identity->autodiff.zero_derivative = true;
    ir::Param* p = module_->AddParam(t, nullptr);
    identity->params.push_back(p);
    ir::Builder b(*module_);
    identity->blocks.push_back(module_->AddBlock(identity));
    b.SetInsertBlock(identity->blocks.front());
    b.Return(p);
    it->second = identity;
  }
  return b_.Call(it->second, {v});
}

}  // namespace slope::lower
